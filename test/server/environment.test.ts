/** Without apidrift.targets: the workspace's environment is found; a target that changes on disk is re-checked. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { tempTree } from '../helpers';
import { detectEnvironments } from '../../server/src/lsp/detect';
import { TestClient } from './lspClient';

describe('environment detection and target changes', () => {
  let ws: string;
  let client: TestClient;
  let uri: string;
  const core = (): string => path.join(ws, '.venv', 'lib', 'python3.12', 'site-packages', 'mylib', 'core.py');

  before(async () => {
    ws = tempTree({
      '.venv/lib/python3.12/site-packages/mylib/__init__.py': '',
      '.venv/lib/python3.12/site-packages/mylib/core.py': 'def connect(host, port=80):\n    pass\n',
      'app.py': 'from mylib.core import connect\nconnect("h", 1, 2)\n',
    });
    uri = pathToFileURL(path.join(ws, 'app.py')).href;
    client = new TestClient({ targets: [] });
    await client.initialize(ws);
  });
  after(async () => {
    await client.shutdown();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('uses the site-packages of the workspace .venv when no target is set', async () => {
    const st = await client.waitFor('ready', () => client.statuses.find((s) => s.state === 'ready'));
    assert.match(st.message, /auto-detected: \.venv in the workspace/);
    assert.ok(st.targets[0].endsWith(path.join('python3.12', 'site-packages')));
    client.open(uri, fs.readFileSync(path.join(ws, 'app.py'), 'utf8'), 1);
    const d = await client.diagnosticsFor(uri, 1);
    assert.deepEqual(d.map((x) => x.code), ['too-many-positional']);
  });

  it('re-checks open files when the environment changes on disk', async () => {
    // an upgrade: connect now takes a third parameter, so the call binds
    fs.writeFileSync(core(), 'def connect(host, port=80, timeout=None):\n    pass\n');
    const later = new Date(Date.now() + 3000);
    fs.utimesSync(core(), later, later);
    await client.waitFor('diagnostics to clear', () => {
      const d = client.diagnostics.get(uri);
      return d && d.diagnostics.length === 0;
    });
    // a module rewritten without an installer (no dist-info replaced) is found by the re-validation
    // of the files the checks used, in idle time after the check
    assert.ok(client.logs.some((l) => /target changed on disk|target files changed/.test(l)));
  });

  it('ignores the workspace environment while the workspace is untrusted', async () => {
    const before = client.statuses.length;
    void client.conn.sendNotification('apidrift/environment', { trusted: false });
    const st = await client.waitFor('idle status', () => client.statuses.slice(before).find((s) => s.state === 'idle'));
    assert.match(st.message, /no target set/);
  });
});

describe('environments found without apidrift.targets', () => {
  it('lists the selected interpreter, $VIRTUAL_ENV, .venv and venv, in that order, each once', () => {
    const sp = (env: string): string => `${env}/lib/python3.11/site-packages/pkg/__init__.py`;
    const root = tempTree({
      [sp('interp-env')]: '',
      'interp-env/bin/python': '',
      [sp('virtual')]: '',
      [sp('ws/.venv')]: '',
      [sp('ws/venv')]: '',
      'ws/app.py': '',
    });
    try {
      const ws = path.join(root, 'ws');
      const found = detectEnvironments({ workspaceFolder: ws, interpreter: path.join(root, 'interp-env', 'bin', 'python'), virtualEnv: path.join(root, 'virtual') });
      assert.deepEqual(
        found.map((f) => [f.label, path.relative(root, f.sitePackages)]),
        [
          ['the interpreter selected in the Python extension', path.join('interp-env', 'lib', 'python3.11', 'site-packages')],
          ['$VIRTUAL_ENV', path.join('virtual', 'lib', 'python3.11', 'site-packages')],
          ['.venv in the workspace', path.join('ws', '.venv', 'lib', 'python3.11', 'site-packages')],
          ['venv in the workspace', path.join('ws', 'venv', 'lib', 'python3.11', 'site-packages')],
        ],
      );
      // $VIRTUAL_ENV pointing at the workspace's .venv is listed once; a folder without site-packages not at all
      const again = detectEnvironments({ workspaceFolder: ws, virtualEnv: path.join(ws, '.venv'), interpreter: path.join(root, 'nowhere', 'bin', 'python') });
      assert.deepEqual(again.map((f) => f.label), ['$VIRTUAL_ENV', 'venv in the workspace']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
