/**
 * The summary cache is written a little after a check; an editor closed sooner (a quick look at a
 * file) still leaves it for the next start, which then opens its first file from the cache.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { tempTree } from '../helpers';
import { TestClient } from './lspClient';

describe('the summary cache at shutdown', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('is written when the server shuts down before its delayed write', async () => {
    const ws = tempTree({
      'lib/mylib/__init__.py': '',
      'lib/mylib/core.py': 'def connect(host, port=80):\n    pass\n',
      'app.py': 'from mylib.core import connect\nconnect("h", 1, 2)\n',
    });
    dirs.push(ws);
    const storage = path.join(ws, 'storage');
    const written = (): string[] => {
      const dir = path.join(storage, 'cache');
      return fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.json')) : [];
    };
    const client = new TestClient({ targets: [path.join(ws, 'lib')] });
    try {
      await client.initialize(ws, [], {}, { cacheDir: storage });
      await client.waitFor('ready', () => client.statuses.find((s) => s.state === 'ready'));
      const app = pathToFileURL(path.join(ws, 'app.py')).href;
      client.open(app, fs.readFileSync(path.join(ws, 'app.py'), 'utf8'), 1);
      const d = await client.diagnosticsFor(app, 1);
      assert.deepEqual(d.map((x) => `${x.range.start.line}:${x.code}`), ['1:too-many-positional']);
      // well within the delayed write's two seconds
      assert.deepEqual(written(), [], 'nothing written yet');
    } finally {
      await client.shutdown();
    }
    assert.ok(written().length > 0, 'the summary cache was written at shutdown');
  });
});
