/**
 * What the server watches: an upgrade is seen where it always shows (the `*.dist-info` folder an
 * installer replaces at the top of site-packages), without a recursive watch of the target (one
 * inotify watch per folder: tens of thousands with torch); workspace files through the editor's
 * own watcher (`workspace/didChangeWatchedFiles`, registered by the server); the server's own
 * cache writes are no change, and the root of a file system is never watched.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { tempTree } from '../helpers';
import { TestClient } from './lspClient';

/** The inotify watches a process holds (Linux: one `inotify wd:` line per watched folder). */
function inotifyWatches(pid: number): number {
  let n = 0;
  const dir = `/proc/${pid}/fd`;
  for (const fd of fs.readdirSync(dir)) {
    let link = '';
    try {
      link = fs.readlinkSync(path.join(dir, fd));
    } catch {
      continue;
    }
    if (link !== 'anon_inode:inotify') continue;
    n += fs.readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:')).length;
  }
  return n;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

const SP = '.venv/lib/python3.12/site-packages';

describe('watching targets and workspace files', () => {
  let ws: string;
  let sp: string;
  let client: TestClient;
  let app: string;
  const cacheRoot = (): string => path.join(sp, 'apidrift-cache');

  before(async () => {
    const files: Record<string, string> = {
      [`${SP}/mylib/__init__.py`]: '',
      [`${SP}/mylib/core.py`]: 'def connect(host, port=80):\n    pass\n',
      [`${SP}/mylib-1.0.dist-info/METADATA`]: 'Name: mylib\nVersion: 1.0\n',
      [`${SP}/mylib-1.0.dist-info/RECORD`]: 'mylib/core.py,,\n',
      'helpers.py': 'from mylib.core import connect as run\n',
      'app.py': 'from mylib.core import connect\nfrom helpers import run\nconnect("h", 1, 2)\nrun("h", 1, 2)\n',
    };
    // a site-packages with many folders, as one with torch has
    for (let i = 0; i < 300; i++) files[`${SP}/bigpkg/sub${i}/__init__.py`] = '';
    ws = tempTree(files);
    sp = path.join(ws, SP);
    app = pathToFileURL(path.join(ws, 'app.py')).href;
    client = new TestClient({ targets: [] });
    // the server's cache folder lies inside the target: its writes must not read as changes
    await client.initialize(ws, [], { didChangeWatchedFiles: { dynamicRegistration: true } }, { cacheDir: cacheRoot() });
    await client.waitFor('ready', () => client.statuses.find((s) => s.state === 'ready'));
    client.open(app, fs.readFileSync(path.join(ws, 'app.py'), 'utf8'), 1);
    const d = await client.diagnosticsFor(app, 1);
    assert.deepEqual(d.map((x) => `${x.range.start.line}:${x.code}`), ['2:too-many-positional', '3:too-many-positional']);
  });
  after(async () => {
    await client.shutdown();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('does not watch the target wholesale, and asks the editor to watch the workspace files', async () => {
    const watches = inotifyWatches(client.proc.pid!);
    console.log(`inotify watches held by the server: ${watches} (the target has ${300 + 3} folders)`);
    assert.ok(watches <= 2, `${watches} inotify watches for one site-packages folder`);
    const reg = await client.waitFor('a file watcher registration', () => client.registrations.find((r) => r.method === 'workspace/didChangeWatchedFiles'), 10_000);
    const globs = (reg.registerOptions as { watchers: Array<{ globPattern: string }> }).watchers.map((w) => w.globPattern);
    assert.ok(globs.includes('**/*.{py,pyi}'), globs.join(', '));
  });

  it('ignores what the server writes into its own cache folder inside the target', async () => {
    // the summary cache is written a little after a check
    const written = (): boolean => fs.existsSync(path.join(cacheRoot(), 'cache')) && fs.readdirSync(path.join(cacheRoot(), 'cache')).some((f) => f.endsWith('.json'));
    for (let i = 0; i < 150 && !written(); i++) await sleep(100);
    assert.ok(written(), 'the summary cache was written inside the target');
    await sleep(1500);
    assert.ok(!client.logs.some((l) => /changed on disk/.test(l)), client.logs.filter((l) => /changed on disk/.test(l)).join('\n'));
  });

  it('re-checks when an upgrade replaces the dist-info folder and the module files', async () => {
    // the idle re-validation after the last check is over: only the watcher can see what follows
    await sleep(1500);
    const published = client.diagnostics.get(app);
    // what an installer does: the old files and metadata go, the new ones come
    fs.rmSync(path.join(sp, 'mylib-1.0.dist-info'), { recursive: true });
    fs.writeFileSync(path.join(sp, 'mylib', 'core.py'), 'def connect(host, port=80, timeout=None):\n    pass\n');
    const later = new Date(Date.now() + 3000);
    fs.utimesSync(path.join(sp, 'mylib', 'core.py'), later, later);
    fs.mkdirSync(path.join(sp, 'mylib-2.0.dist-info'));
    fs.writeFileSync(path.join(sp, 'mylib-2.0.dist-info', 'METADATA'), 'Name: mylib\nVersion: 2.0\n');
    await client.waitFor('diagnostics to clear', () => {
      const d = client.diagnostics.get(app);
      return d !== published && d && d.diagnostics.length === 0;
    }, 8000);
    assert.ok(client.logs.some((l) => /target changed on disk \(.*mylib-[12]\.0\.dist-info\)/.test(l)), client.logs.join('\n'));
  });

  it("re-checks when the editor's watcher reports a workspace module that changed", async () => {
    await sleep(1500);
    // the upgrade took the call's error away; helpers now wraps the call in a function of its own
    fs.writeFileSync(path.join(ws, 'app.py'), 'from helpers import run\nrun("h", 1, 2, 3)\n');
    client.change(app, 2, [{ text: 'from helpers import run\nrun("h", 1, 2, 3)\n' }]);
    // a finding new on the edited lines comes after the typing pause
    const d2 = await client.waitFor('the finding of v2', () => {
      const d = client.diagnostics.get(app);
      return d && d.version === 2 && d.diagnostics.length > 0 ? d.diagnostics : undefined;
    });
    assert.deepEqual(d2.map((x) => x.code), ['too-many-positional']);
    await sleep(1500);
    fs.writeFileSync(path.join(ws, 'helpers.py'), 'def run(*args):\n    return args\n');
    const later = new Date(Date.now() + 3000);
    fs.utimesSync(path.join(ws, 'helpers.py'), later, later);
    void client.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(path.join(ws, 'helpers.py')).href, type: 2 }] });
    await client.waitFor('diagnostics to clear', () => {
      const d = client.diagnostics.get(app);
      return d && d.diagnostics.length === 0;
    }, 8000);
    assert.ok(client.logs.some((l) => /workspace file changed on disk \(helpers\.py\)/.test(l)), client.logs.join('\n'));
  });
});

describe('a file-system root as the target', () => {
  it('is not watched (its files are re-validated in idle time)', async () => {
    const ws = tempTree({ 'app.py': 'x = 1\n' });
    const client = new TestClient({ targets: ['/'] });
    try {
      await client.initialize(ws);
      await client.waitFor('not watching /', () => client.logs.some((l) => /not watching \/ \(the root of a file system\)/.test(l)), 30_000);
      assert.equal(inotifyWatches(client.proc.pid!), 0);
    } finally {
      await client.shutdown();
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});
