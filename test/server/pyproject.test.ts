/** The language server reads `[tool.apidrift]` of the workspace's pyproject.toml; settings override it. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { tempTree } from '../helpers';
import { TestClient } from './lspClient';

const APP = 'from mylib.core import connect, gone\nconnect("h", 1, 2)\n';

function workspace(): string {
  return tempTree({
    'lib/mylib/__init__.py': '',
    'lib/mylib/core.py': 'def connect(host, port=80):\n    pass\n',
    'other/mylib/__init__.py': '',
    'other/mylib/core.py': 'def connect(host, port=80, timeout=None):\n    pass\n\ndef gone():\n    pass\n',
    'pyproject.toml': '[tool.apidrift]\ntarget = "lib"\nignore = ["unknown-import"]\nseverity = { too-many-positional = "warning" }\n',
    'app.py': APP,
  });
}

describe('pyproject.toml in the language server', () => {
  const clients: TestClient[] = [];
  const dirs: string[] = [];
  after(async () => {
    for (const c of clients) await c.shutdown();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it('takes the target from [tool.apidrift] and applies ignore and severity', async () => {
    const ws = workspace();
    dirs.push(ws);
    const client = new TestClient({ targets: [] });
    clients.push(client);
    await client.initialize(ws);
    const st = await client.waitFor('ready', () => client.statuses.find((s) => s.state === 'ready'));
    assert.match(st.message, /pyproject\.toml \[tool\.apidrift\]/);
    const uri = pathToFileURL(path.join(ws, 'app.py')).href;
    client.open(uri, APP, 1);
    const d = await client.diagnosticsFor(uri, 1);
    // unknown-import (gone) is ignored; too-many-positional is a warning (LSP severity 2)
    assert.deepEqual(d.map((x) => [x.code, x.severity]), [['too-many-positional', 2]]);
  });

  it('the apidrift.targets setting overrides the file', async () => {
    const ws = workspace();
    dirs.push(ws);
    const client = new TestClient({ targets: [path.join(ws, 'other')] });
    clients.push(client);
    await client.initialize(ws);
    await client.waitFor('ready', () => client.statuses.find((s) => s.state === 'ready'));
    const uri = pathToFileURL(path.join(ws, 'app.py')).href;
    client.open(uri, APP, 1);
    const d = await client.diagnosticsFor(uri, 1);
    assert.deepEqual(d, []);
  });
});
