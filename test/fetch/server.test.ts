/**
 * The language server with `apidrift.targets: ["drift==2.0"]` and a package index on 127.0.0.1:
 * the target is fetched with a progress notification, the version installed in the workspace's
 * environment is the baseline, and the findings explain what changed.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { after, before, describe, it } from 'node:test';
import { FIXTURES } from '../helpers';
import { TestClient } from '../server/lspClient';
import { IndexServer, installInto, wheelOf } from './indexServer';

const V1 = path.join(FIXTURES, 'drift', 'v1');
const V2 = path.join(FIXTURES, 'drift', 'v2');

describe('language server: fetching a target the client shows with a cancel button', () => {
  it('reports the download with its size, and stops it when the user cancels', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-lsp-cancel-'));
    const files = path.join(tmp, 'files');
    fs.mkdirSync(files);
    const big = 'drift-2.0-cp312-cp312-manylinux_2_17_x86_64.whl';
    fs.writeFileSync(path.join(files, big), wheelOf('drift', '2.0', V2, 3_000_000));
    const server = new IndexServer(files);
    await server.start();
    await server.configure({ stallAfter: { [big]: 1_500_000 } });
    const settings = { targets: ['drift==2.0'], indexUrl: server.url, requireHashes: true };
    const client = new TestClient(settings as unknown as { targets: string[] }, { XDG_CACHE_HOME: path.join(tmp, 'cache'), VIRTUAL_ENV: '', HOME: tmp });
    const seen: Array<{ id: number; kind: string; message?: string; percentage?: number }> = [];
    client.conn.onNotification('apidrift/fetchProgress', (p: (typeof seen)[0]) => {
      seen.push(p);
      if (p.kind === 'report' && /downloading/.test(p.message ?? '')) void client.conn.sendNotification('apidrift/cancelFetch', { id: p.id });
    });
    try {
      await client.conn.sendRequest('initialize', {
        processId: process.pid,
        rootUri: pathToFileURL(tmp).href,
        workspaceFolders: [{ uri: pathToFileURL(tmp).href, name: 'ws' }],
        capabilities: { workspace: { configuration: true } },
        initializationOptions: { fetchProgress: true },
      });
      await client.conn.sendNotification('initialized', {});
      const error = await client.waitFor('the cancelled fetch', () => client.statuses.find((s) => s.state === 'error'), 10_000).catch((e) => {
        throw new Error(JSON.stringify(seen) + String(e));
      });
      assert.match(error.message, /^the download of http:\/\/127\.0\.0\.1:\d+\/files\/drift-2\.0-cp312-cp312-manylinux_2_17_x86_64\.whl was cancelled$/);
      const report = seen.find((p) => p.kind === 'report' && /downloading/.test(p.message ?? ''));
      assert.match(report?.message ?? '', /^drift==2\.0: downloading drift-2\.0-cp312-cp312-manylinux_2_17_x86_64\.whl \(\d+\.\d MB of 2\.9 MB\)$/);
      assert.equal(typeof report?.percentage, 'number');
      assert.equal(seen[seen.length - 1].kind, 'end');
      assert.deepEqual(fs.readdirSync(path.join(tmp, 'cache', 'apidrift', 'dists', 'drift', '2.0')).flatMap((d) => fs.readdirSync(path.join(tmp, 'cache', 'apidrift', 'dists', 'drift', '2.0', d))), []);
    } finally {
      await client.shutdown();
      await server.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('language server: a target named by version', () => {
  let tmp: string;
  let server: IndexServer;
  let client: TestClient;
  const progress: Array<{ kind: string; title?: string; message?: string; cancellable?: boolean }> = [];

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-lsp-fetch-'));
    const files = path.join(tmp, 'files');
    fs.mkdirSync(files);
    fs.writeFileSync(path.join(files, 'drift-2.0-cp312-cp312-manylinux_2_17_x86_64.whl'), wheelOf('drift', '2.0', V2, 300_000));
    fs.writeFileSync(path.join(files, 'drift-1.0-py3-none-any.whl'), wheelOf('drift', '1.0', V1));
    fs.writeFileSync(path.join(files, 'drift-1.5-py3-none-any.whl'), wheelOf('drift', '1.5', V1));
    server = new IndexServer(files);
    await server.start();
    await server.configure();
    const ws = path.join(tmp, 'ws');
    installInto(path.join(ws, '.venv', 'lib', 'python3.12', 'site-packages'), 'drift', '1.0', V1);
    client = new TestClient({ targets: ['drift==2.0'], indexUrl: server.url } as unknown as { targets: string[] }, { XDG_CACHE_HOME: path.join(tmp, 'cache'), VIRTUAL_ENV: '', PIP_INDEX_URL: '', UV_INDEX_URL: '', HOME: tmp });
    client.conn.onRequest('window/workDoneProgress/create', () => null);
    client.conn.onNotification('$/progress', (p: { value: { kind: string; title?: string; message?: string; cancellable?: boolean } }) => progress.push(p.value));
    await client.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(ws).href,
      workspaceFolders: [{ uri: pathToFileURL(ws).href, name: 'ws' }],
      capabilities: { window: { workDoneProgress: true }, workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true } } },
    });
    await client.conn.sendNotification('initialized', {});
  });

  after(async () => {
    await client.shutdown();
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('fetches the target with a progress notification and explains the findings against the installed version', async () => {
    const uri = pathToFileURL(path.join(tmp, 'ws', 'user.py')).href;
    client.open(uri, fs.readFileSync(path.join(FIXTURES, 'drift', 'user.py'), 'utf8'), 1);
    const diags = await client.diagnosticsFor(uri, 1);
    assert.ok(diags.some((d) => d.code === 'unexpected-keyword' && /keyword host was renamed to address/.test(d.message)), JSON.stringify(diags.map((d) => d.message)));
    assert.ok(diags.some((d) => d.code === 'missing-argument' && /block_size lost its default/.test(d.message)));
    const begin = progress.find((p) => p.kind === 'begin' && p.title === 'apidrift: fetching the target');
    assert.ok(begin && begin.cancellable === true, JSON.stringify(progress));
    assert.ok(progress.some((p) => p.kind === 'report' && /drift==2\.0: reading the file list of drift-2\.0-cp312/.test(p.message ?? '')), JSON.stringify(progress));
    assert.ok(progress.some((p) => p.kind === 'end'));
    assert.ok(client.statuses.some((s) => s.state === 'ready' && /drift==2\.0/.test(s.message)));
    assert.ok(client.logs.some((l) => /baseline: drift 1\.0 installed in /.test(l)));
  });

  it('lists the installed distributions and the versions the index has, newest first, for "Check an upgrade…"', async () => {
    const here = (await client.conn.sendRequest('apidrift/versions', {})) as { installed: Array<{ name: string; version: string }> };
    assert.deepEqual(here.installed, [{ name: 'drift', version: '1.0' }]);
    const listed = (await client.conn.sendRequest('apidrift/versions', { project: 'Drift' })) as { versions: string[] };
    assert.deepEqual(listed.versions, ['2.0', '1.5', '1.0']);
    const none = (await client.conn.sendRequest('apidrift/versions', { project: 'nosuch' })) as { error: string };
    assert.match(none.error, /^no project nosuch on the index http:\/\/127\.0\.0\.1:\d+\/simple\/$/);
  });
});
