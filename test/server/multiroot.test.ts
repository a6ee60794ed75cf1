/**
 * Multi-root workspaces over JSON-RPC: each folder reads its own settings (configuration requests
 * with the folder as scopeUri), so two folders with two targets get each their own findings; a
 * folder without settings of its own shares the first folder's target.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { FIXTURES, tempTree } from '../helpers';
import { type Diagnostic, TestClient } from './lspClient';

const VLLM = path.join(FIXTURES, 'vllm');
const USER = fs.readFileSync(path.join(VLLM, 'user', 'hidden_states_generator.py'), 'utf8');
const EXPECTED = JSON.parse(fs.readFileSync(path.join(VLLM, 'user', 'expected.json'), 'utf8')) as Record<string, Array<{ line: number; code: string }>>;
const brief = (ds: Diagnostic[]): string[] => ds.map((d) => `${d.range.start.line + 1}:${d.code}`).sort();
const expected = (v: string): string[] => EXPECTED[v].map((f) => `${f.line}:${f.code}`).sort();

describe('multi-root workspace', () => {
  let client: TestClient;
  let root: string;
  const uri = (folder: string): string => pathToFileURL(path.join(root, folder, 'hidden_states_generator.py')).href;

  before(async () => {
    root = fs.realpathSync(tempTree({ 'a/hidden_states_generator.py': USER, 'b/hidden_states_generator.py': USER, 'c/hidden_states_generator.py': USER }));
    client = new TestClient({ targets: [path.join(VLLM, 'new')] });
    // folder b moves to nightly; folder c has no settings of its own
    client.folderSettings.set(pathToFileURL(path.join(root, 'b')).href, { targets: [path.join(VLLM, 'nightly')] });
    await client.initialize(path.join(root, 'a'), [path.join(root, 'b'), path.join(root, 'c')]);
  });
  after(async () => {
    await client.shutdown();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('checks each folder against its own target', async () => {
    for (const f of ['a', 'b', 'c']) client.open(uri(f), USER, 1);
    assert.deepEqual(brief(await client.diagnosticsFor(uri('a'), 1)), expected('new'));
    assert.deepEqual(brief(await client.diagnosticsFor(uri('b'), 1)), expected('nightly'));
    assert.deepEqual(brief(await client.diagnosticsFor(uri('c'), 1)), expected('new'));
    assert.notDeepEqual(expected('new'), expected('nightly'));
  });

  it("follows a change of one folder's settings", async () => {
    client.folderSettings.set(pathToFileURL(path.join(root, 'b')).href, { targets: [path.join(VLLM, 'old')] });
    const count = client.published.length;
    client.changeSettings(client.settings);
    await client.waitFor('b re-checked against old', () => client.published.slice(count).find((p) => p.uri === uri('b') && p.diagnostics.length === 0));
    assert.deepEqual(expected('old'), []);
    // a is still checked against new
    await client.waitFor('a re-checked', () => client.published.slice(count).find((p) => p.uri === uri('a')));
    assert.deepEqual(brief(client.diagnostics.get(uri('a'))!.diagnostics), expected('new'));
  });
});

describe("multi-root workspace: the environment the Python extension selected for each folder", () => {
  let client: TestClient;
  let root: string;
  const uri = (folder: string): string => pathToFileURL(path.join(root, folder, 'hidden_states_generator.py')).href;

  before(async () => {
    root = fs.realpathSync(tempTree({ 'a/hidden_states_generator.py': USER, 'b/hidden_states_generator.py': USER }));
    // folder a: a .venv of its own holding `new`; folder b: an environment outside the workspace holding `nightly`
    fs.cpSync(path.join(VLLM, 'new'), path.join(root, 'a', '.venv', 'lib', 'python3.12', 'site-packages'), { recursive: true });
    fs.cpSync(path.join(VLLM, 'nightly'), path.join(root, 'envs', 'nightly', 'lib', 'python3.12', 'site-packages'), { recursive: true });
    client = new TestClient({ targets: [] });
    await client.initialize(path.join(root, 'a'), [path.join(root, 'b')], {}, { environment: { trusted: true, folders: { [path.join(root, 'b')]: path.join(root, 'envs', 'nightly') } } });
  });
  after(async () => {
    await client.shutdown();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('checks a folder against the environment selected for it, outside the workspace, and the first folder against its .venv', async () => {
    for (const f of ['a', 'b']) client.open(uri(f), USER, 1);
    assert.deepEqual(brief(await client.diagnosticsFor(uri('a'), 1)), expected('new'));
    assert.deepEqual(brief(await client.diagnosticsFor(uri('b'), 1)), expected('nightly'));
  });
});
