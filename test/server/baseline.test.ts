/** The language server with a baseline: explanations, moved names after background indexing, fix all, the report. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { applyEdits, FIXTURES, ROOT } from '../helpers';
import { TestClient } from './lspClient';

const DRIFT = path.join(FIXTURES, 'drift');
const TEXT = fs.readFileSync(path.join(DRIFT, 'user.py'), 'utf8');

describe('language server with a baseline', () => {
  let client: TestClient;
  const uri = pathToFileURL(path.join(ROOT, 'test', 'fixtures', 'virtual', 'drift_user.py')).href;

  before(async () => {
    client = new TestClient({ targets: [path.join(DRIFT, 'v2')], baseline: [path.join(DRIFT, 'v1')] });
    await client.initialize(ROOT);
    client.open(uri, TEXT, 1);
  });
  after(async () => client.shutdown());

  it('explains the findings, and names moved imports once the background index is built', async () => {
    const diags = await client.waitFor('moved-name explanation', () => {
      const d = client.diagnostics.get(uri);
      return d && d.version === 1 && d.diagnostics.some((x) => /moved from drift\.utils to drift\.utils\.math_utils/.test(x.message)) ? d.diagnostics : undefined;
    });
    assert.ok(diags.some((d) => d.code === 'unexpected-keyword' && /keyword host was renamed to address$/.test(d.message)));
    // the Problems panel gets plain, short text: no backticks, no target signature
    assert.ok(diags.every((d) => !d.message.includes('`') && !d.message.includes('Target signature')), JSON.stringify(diags.map((d) => d.message)));
    assert.ok(diags.some((d) => d.code === 'changed-override'));
    const dep = diags.find((d) => d.code === 'deprecated');
    assert.ok(dep && dep.severity === 4 && (dep as unknown as { tags?: number[] }).tags?.includes(2));
    await client.waitFor('index log', () => client.logs.some((l) => /full index: \d+ modules/.test(l)));
  });

  it('attaches the target and baseline definitions to a diagnostic', async () => {
    const diags = (await client.diagnosticsFor(uri, 1)) as unknown as Array<{ code: string; message: string; relatedInformation?: Array<{ location: { uri: string; range: { start: { line: number } } }; message: string }> }>;
    const missing = diags.find((d) => d.code === 'missing-argument')!;
    const rel = missing.relatedInformation ?? [];
    assert.deepEqual(rel.map((r) => r.message), ['drift.engine.Engine in the target', 'drift.engine.Engine in the baseline']);
    assert.ok(rel[0].location.uri.endsWith('/drift/v2/drift/engine.py'), rel[0].location.uri);
    assert.ok(rel[1].location.uri.endsWith('/drift/v1/drift/engine.py'), rel[1].location.uri);
    const lineOf = (dir: string): number => fs.readFileSync(path.join(DRIFT, dir, 'drift', 'engine.py'), 'utf8').split('\n').findIndex((l) => /^\s*def __init__/.test(l));
    assert.equal(rel[0].location.range.start.line, lineOf('v2'));
    assert.equal(rel[1].location.range.start.line, lineOf('v1'));
  });

  it('fixes everything that can be fixed without input in one edit', async () => {
    const actions = (await client.conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      context: { diagnostics: [], only: ['source.fixAll'] },
    })) as Array<{ kind: string; edit: { documentChanges: Array<{ edits: Parameters<typeof applyEdits>[1] }> } }>;
    assert.equal(actions.length, 1);
    assert.equal(actions[0].kind, 'source.fixAll.apidrift');
    const fixed = applyEdits(TEXT, actions[0].edit.documentChanges[0].edits);
    assert.ok(fixed.includes('open_port(address="0.0.0.0")'));
    assert.ok(fixed.includes('Engine(model, block_size=16)'));
    assert.ok(/from drift\.utils\.math_utils import (cdiv|round_up)/.test(fixed));
    assert.ok(!fixed.includes('device="cuda"'));
  });

  it('hovers a changed call with both signatures and the changes', async () => {
    const line = TEXT.split('\n').findIndex((l) => l.includes('engine = Engine(model)'));
    const hover = (await client.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character: TEXT.split('\n')[line].indexOf('Engine(') + 2 } })) as { contents: { value: string } };
    const v = hover.contents.value;
    // the explanation first, then the target's signature with the missing parameter in bold, then the baseline's
    assert.match(v, /^- `block_size` lost its default/);
    assert.match(v, /\*\*target\*\* \[engine\\\.py:5\]\([^)]*\)\n\nEngine\\\(model, \*\*block\\_size\*\*, seed=0\\\)/);
    assert.match(v, /\*\*baseline\*\*[\s\S]*```python\nEngine\(model, block_size=16, seed=0\)/);
    assert.ok(v.indexOf('**target**') < v.indexOf('**baseline**'));
    // the signature is shown once
    assert.equal(v.split('seed=0').length - 1, 2);
  });

  it('serves the API-change report', async () => {
    const r = (await client.conn.sendRequest('apidrift/changes')) as { text?: string; error?: string };
    assert.equal(r.error, undefined);
    assert.match(r.text ?? '', /^apidrift API changes: /);
    assert.match(r.text ?? '', /> drift\.utils\.cdiv -> drift\.utils\.math_utils\.cdiv/);
    assert.match(r.text ?? '', /~ drift\.engine\.Engine\.connect/);
  });
});

describe('language server with a baseline that cannot be read', () => {
  let client: TestClient;
  const uri = pathToFileURL(path.join(ROOT, 'test', 'fixtures', 'virtual', 'drift_typo.py')).href;
  const missing = path.join(DRIFT, 'v1-typo');

  before(async () => {
    client = new TestClient({ targets: [path.join(DRIFT, 'v2')], baseline: [missing] });
    await client.initialize(ROOT);
    client.open(uri, TEXT, 1);
  });
  after(async () => client.shutdown());

  it('warns that the baseline is not found and goes on checking against the target', async () => {
    const diags = await client.diagnosticsFor(uri, 1);
    assert.ok(diags.some((d) => d.code === 'unexpected-keyword' && /host/.test(d.message)), JSON.stringify(diags.map((d) => d.message)));
    // without the baseline there is nothing to explain with
    assert.ok(!diags.some((d) => /renamed to/.test(d.message)));
    const ready = await client.waitFor('ready status', () => client.statuses.find((s) => s.state === 'ready'));
    assert.match(ready.message, /baseline .*v1-typo.* not found/);
    assert.ok(!client.statuses.some((s) => s.state === 'error'), JSON.stringify(client.statuses));
    assert.ok(!client.logs.some((l) => /target error/.test(l)));
    assert.ok(client.logs.some((l) => /baseline .*v1-typo.* not found/.test(l)));
    const r = (await client.conn.sendRequest('apidrift/changes')) as { text?: string; error?: string };
    assert.match(r.error ?? '', /baseline .* not found/);
  });
});
