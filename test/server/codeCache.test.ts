/**
 * The server's bundle through V8's code cache (server/src/codeCache.ts): the first start writes
 * the cache after its first diagnostics, the next start compiles from it and gives the same
 * diagnostics, and a damaged cache is set aside, never given to V8, and written anew.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { codeCacheDir, codeCacheHook, runBundle } from '../../server/src/codeCache';
import { tempTree } from '../helpers';
import { TestClient } from './lspClient';

describe('the code cache of the server bundle', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('is written after the first check, loaded by the next start, and set aside when damaged', async () => {
    const ws = tempTree({
      'lib/mylib/__init__.py': '',
      'lib/mylib/core.py': 'def connect(host, port=80):\n    pass\n',
      'app.py': 'from mylib.core import connect\nconnect("h", 1, 2)\nconnect(hots="h")\n',
    });
    dirs.push(ws);
    const code = path.join(ws, 'storage', 'code');
    const app = pathToFileURL(path.join(ws, 'app.py')).href;
    const files = (): string[] => (fs.existsSync(code) ? fs.readdirSync(code).sort() : []);
    /** One start of the server: the diagnostics of app.py and the server's log. */
    const start = async (waitForWrite: boolean): Promise<{ diags: string[]; logs: string[] }> => {
      const client = new TestClient({ targets: [path.join(ws, 'lib')] }, {}, [`--code-cache=${code}`]);
      try {
        await client.initialize(ws, [], {}, { cacheDir: path.join(ws, 'storage') });
        await client.waitFor('ready', () => client.statuses.find((s) => s.state === 'ready'));
        client.open(app, fs.readFileSync(path.join(ws, 'app.py'), 'utf8'), 1);
        const d = await client.diagnosticsFor(app, 1);
        if (waitForWrite) await client.waitFor('the code cache written', () => client.logs.some((l) => /code cache written/.test(l)), 30_000);
        return { diags: d.map((x) => `${x.range.start.line}:${x.code}`), logs: [...client.logs] };
      } finally {
        await client.shutdown();
      }
    };

    const first = await start(true);
    assert.deepEqual(first.diags, ['1:too-many-positional', '2:missing-argument', '2:unexpected-keyword']);
    assert.ok(first.logs.some((l) => /code cache: none yet/.test(l)), first.logs.join('\n'));
    const written = files();
    assert.equal(written.length, 1, `one cache file: ${written.join(', ')}`);
    assert.match(written[0], /^serverMain-[0-9a-f]{16}-v[\d.]+-\w+\.bin$/);

    const second = await start(false);
    assert.deepEqual(second.diags, first.diags);
    assert.ok(second.logs.some((l) => /code cache: loaded/.test(l)), second.logs.join('\n'));
    assert.ok(!second.logs.some((l) => /code cache written/.test(l)), 'a start that took the cache writes nothing');

    // damage the data (the header names its hash): set aside, never given to V8, written anew
    const file = path.join(code, written[0]);
    const bytes = fs.readFileSync(file);
    for (let i = bytes.length - 200; i < bytes.length; i++) bytes[i] ^= 0xff;
    fs.writeFileSync(file, bytes);
    const third = await start(true);
    assert.deepEqual(third.diags, first.diags);
    assert.ok(third.logs.some((l) => /code cache: damaged, set aside/.test(l)), third.logs.join('\n'));
    assert.deepEqual(files(), written, 'the same file, written anew, and no temporary file left');
    assert.notDeepEqual(fs.readFileSync(file), bytes);
  });

  it('keeps its own state: none, then used; a cut file is damaged; no folder, no cache', () => {
    const dir = tempTree({ 'bundle.js': '#!/usr/bin/env node\nglobalThis.__codeCacheRuns = (globalThis.__codeCacheRuns || 0) + 1;\nmodule.exports.dir = __dirname;\n' });
    dirs.push(dir);
    const bundle = path.join(dir, 'bundle.js');
    const cache = path.join(dir, 'cc');
    const g = globalThis as { __codeCacheRuns?: number };
    const runs = g.__codeCacheRuns ?? 0;
    runBundle(bundle, undefined);
    assert.equal(codeCacheHook()!.state.state, 'off');
    runBundle(bundle, cache);
    const hook = codeCacheHook()!;
    assert.equal(hook.state.state, 'none');
    hook.save();
    assert.equal(hook.state.saved, true);
    const [name] = fs.readdirSync(cache);
    assert.match(name, /^bundle-[0-9a-f]{16}-/);
    runBundle(bundle, cache);
    assert.equal(codeCacheHook()!.state.state, 'used');
    assert.equal(g.__codeCacheRuns, runs + 3, 'the bundle ran each time');
    // a file cut short (a write interrupted elsewhere) is set aside
    const full = fs.readFileSync(path.join(cache, name));
    fs.writeFileSync(path.join(cache, name), full.subarray(0, full.length >> 1));
    runBundle(bundle, cache);
    assert.equal(codeCacheHook()!.state.state, 'damaged');
    assert.equal(codeCacheDir(['node', 'server.js', '--code-cache=/a/b', '--stdio']), '/a/b');
    assert.equal(codeCacheDir(['node', 'server.js', '--code-cache', '/c', '--stdio']), '/c');
    assert.equal(codeCacheDir(['node', 'server.js', '--stdio']), undefined);
  });
});
