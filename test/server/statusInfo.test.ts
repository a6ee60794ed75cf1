/** The status names the environment and the versions of the libraries the open files import (from their dist-info), and where the target comes from. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { tempTree } from '../helpers';
import { environmentName, importedDistributions, importedTopLevels } from '../../server/src/lsp/environmentInfo';
import { TestClient } from './lspClient';

const SP = '.venv/lib/python3.12/site-packages';

describe('what the status says of the target', () => {
  it('finds the environment folder of a site-packages folder', () => {
    assert.equal(environmentName('/home/me/proj/.venv/lib/python3.12/site-packages'), '.venv');
    assert.equal(environmentName('/opt/envs/new-vllm/lib64/python3.11/site-packages'), 'new-vllm');
    assert.equal(environmentName('C:\\proj\\venv\\Lib\\site-packages'), 'venv');
    assert.equal(environmentName('/srv/vllm-checkout'), undefined);
  });

  it('reads the top-level modules a file imports', () => {
    const text = 'import os, numpy as np\nfrom vllm.v1 import x\nfrom . import y\nfrom .a import b\n  import torch.nn\n# import nope\ns = "import not_this"\nimport a.b.c as d\n';
    assert.deepEqual([...importedTopLevels(text)].sort(), ['a', 'numpy', 'os', 'torch', 'vllm']);
  });

  it('maps imports to distributions by name and by top_level.txt', () => {
    const ws = tempTree({
      [`${SP}/vllm-0.16.0.dist-info/METADATA`]: 'Metadata-Version: 2.1\nName: vllm\nVersion: 0.16.0\n\nName: not-this\n',
      [`${SP}/PyYAML-6.0.1.dist-info/METADATA`]: 'Name: PyYAML\nVersion: 6.0.1\n',
      [`${SP}/PyYAML-6.0.1.dist-info/top_level.txt`]: '_yaml\nyaml\n',
      [`${SP}/typing_extensions-4.0.dist-info/METADATA`]: 'Name: typing_extensions\nVersion: 4.0\n',
      [`${SP}/unused-1.0.dist-info/METADATA`]: 'Name: unused\nVersion: 1.0\n',
    });
    try {
      const sp = path.join(ws, SP);
      assert.deepEqual(importedDistributions(sp, ['vllm', 'yaml', 'typing_extensions', 'os']), [
        { name: 'PyYAML', version: '6.0.1' },
        { name: 'typing_extensions', version: '4.0' },
        { name: 'vllm', version: '0.16.0' },
      ]);
      assert.deepEqual(importedDistributions(sp, []), []);
    } finally {
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe('language server: the status with an auto-detected .venv', () => {
  let ws: string;
  let client: TestClient;
  let uri: string;

  before(async () => {
    ws = tempTree({
      [`${SP}/mylib/__init__.py`]: '',
      [`${SP}/mylib/core.py`]: 'def connect(host, port=80):\n    pass\n',
      [`${SP}/mylib-2.3.1.dist-info/METADATA`]: 'Metadata-Version: 2.1\nName: mylib\nVersion: 2.3.1\n',
      [`${SP}/other-1.0.dist-info/METADATA`]: 'Name: other\nVersion: 1.0\n',
      'app.py': 'from mylib.core import connect\nconnect("h", 1, 2)\n',
    });
    uri = pathToFileURL(path.join(ws, 'app.py')).href;
    client = new TestClient({ targets: [] }, { VIRTUAL_ENV: '' });
    await client.initialize(ws);
  });
  after(async () => {
    await client.shutdown();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('names .venv, the origin, and the version of the imported library', async () => {
    client.open(uri, fs.readFileSync(path.join(ws, 'app.py'), 'utf8'), 1);
    type S = { state: string; origin?: string; environment?: string; libraries?: Array<{ name: string; version: string }> };
    const st = (await client.waitFor('ready with libraries', () => (client.statuses as S[]).find((s) => s.state === 'ready' && s.libraries?.length))) as S;
    assert.equal(st.environment, '.venv');
    assert.deepEqual(st.libraries, [{ name: 'mylib', version: '2.3.1' }]);
    assert.match(st.origin ?? '', /^auto-detected: \.venv in the workspace$/);
    // the file stops importing it: the status follows
    const n = client.statuses.length;
    client.change(uri, 2, [{ text: 'import os\n' }]);
    const later = (await client.waitFor('libraries gone', () => (client.statuses.slice(n) as S[]).find((s) => s.state === 'ready' && s.libraries?.length === 0))) as S;
    assert.equal(later.environment, '.venv');
  });

  it('keeps the origin current when the detected environment is pinned in the settings, and back', async () => {
    type S = { state: string; origin?: string; targets: string[] };
    const sp = fs.realpathSync(path.join(ws, SP));
    let n = client.statuses.length;
    client.changeSettings({ targets: [sp] });
    const pinned = (await client.waitFor('origin: the setting', () => (client.statuses.slice(n) as S[]).find((s) => s.state === 'ready' && s.origin === 'apidrift.targets'))) as S;
    assert.deepEqual(pinned.targets, [sp]);
    n = client.statuses.length;
    client.changeSettings({ targets: [] });
    await client.waitFor('origin: detection', () => (client.statuses.slice(n) as S[]).find((s) => s.state === 'ready' && /^auto-detected/.test(s.origin ?? '')));
  });
});
