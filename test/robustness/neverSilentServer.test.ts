/**
 * Never a silent all-clear, in the language server and for git targets: a git target set from
 * the editor, a git environment that would redirect it, a repository's tests shadowing the
 * user's, and a broken message stream. Inputs are made here.
 */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { after, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { Engine } from '../../server/src/engine';
import { GitRoot } from '../../server/src/engine/sources/gitRoot';
import { Target } from '../../server/src/engine/sources/target';
import { resolveTargetPath } from '../../server/src/lsp/settings';
import { DIST } from '../helpers';
import { TestClient } from '../server/lspClient';
import { removeTree, tempDir } from './util';

const dirs: string[] = [];
after(() => dirs.forEach(removeTree));

const GIT_ENV = { GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' };

/** A repository whose one commit (tagged v1) holds `files`. */
function repo(files: Record<string, string>): string {
  const dir = tempDir('git');
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  const env: NodeJS.ProcessEnv = { ...process.env, ...GIT_ENV };
  for (const k of Object.keys(env)) if (k.startsWith('GIT_DIR') || k === 'GIT_WORK_TREE' || k === 'GIT_INDEX_FILE') delete env[k];
  for (const args of [['init', '-q'], ['add', '.'], ['commit', '-qm', 'v1'], ['tag', 'v1']]) {
    const r = spawnSync('git', args, { cwd: dir, env, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  }
  return dir;
}

describe('git targets', () => {
  it('GIT_DIR and other GIT_* variables of the caller do not redirect a git target', async () => {
    const mine = repo({ 'lib/__init__.py': 'def f(a, b):\n    pass\n' });
    const other = repo({ 'lib/__init__.py': 'def f(a):\n    pass\n' });
    const saved = { GIT_DIR: process.env.GIT_DIR, GIT_WORK_TREE: process.env.GIT_WORK_TREE };
    // as inside a git hook or `git rebase --exec` run in the other repository
    process.env.GIT_DIR = path.join(other, '.git');
    process.env.GIT_WORK_TREE = other;
    try {
      const engine = await Engine.open({ targets: [`git:${mine}@v1`] });
      assert.deepEqual(engine.check('from lib import f\nf(1)\n', 'u.py').findings.map((f) => f.param), ['b']);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  });

  it('the import root of a source checkout is the folder of its package, not its tests or benchmarks', async () => {
    const flat = repo({ 'lib/__init__.py': 'def f(a, b):\n    pass\n', 'tests/__init__.py': '', 'tests/conftest.py': '', 'benchmarks/__init__.py': '', 'setup.py': '' });
    const t = new Target([new GitRoot(flat, 'v1')]);
    assert.ok(t.findModule('lib'));
    assert.equal(t.findModule('tests'), null, "the repository's tests do not shadow the user's");
    assert.equal(t.findModule('benchmarks'), null);
    // the user's own tests package: no false `No module named 'tests.layers'`
    const engine = await Engine.open({ targets: [`git:${flat}@v1`] });
    assert.deepEqual(engine.check('from tests.layers import helper\nhelper()\nfrom lib import f\nf(1)\n', 'u.py').findings.map((f) => `${f.code}:${f.param}`), ['missing-argument:b']);

    const src = repo({ 'src/lib/__init__.py': 'def f(a, b):\n    pass\n', 'tests/__init__.py': '', 'pyproject.toml': '' });
    const root = new GitRoot(src, 'v1');
    const s = new Target([root]);
    assert.ok(s.findModule('lib'), 'a src layout imports from src/');
    assert.equal(s.findModule('src'), null);
    assert.equal(s.findModule('tests'), null);
    assert.equal(root.displayPath('lib/__init__.py'), `git:${src}@v1:src/lib/__init__.py`);
  });
});

describe('build-filled packages of a source checkout', () => {
  it('a module its .gitignore says the build makes is not reported missing (git revision and folder)', async () => {
    const files = {
      '.gitignore': '# made by the build\n/lib/_version.py\nlib/gen/*\nbuild/\n*.so\n',
      'lib/__init__.py': 'def f(a, b):\n    pass\n',
    };
    const user = 'from lib.gen import kernel\nkernel(1)\nfrom lib.gen.deep import more\nfrom lib._version import version\nfrom lib.missing import x\nfrom lib import f\nf(1)\n';
    const checkout = repo(files);
    for (const spec of [`git:${checkout}@v1`, checkout]) {
      const engine = await Engine.open({ targets: [spec] });
      const got = engine.check(user, 'u.py').findings.map((f) => `${f.range.start.line}:${f.code}`);
      assert.deepEqual(got, ['4:unknown-module', '6:missing-argument'], spec);
    }
  });
});

describe('the language server', () => {
  it('resolves a git:REPO@REF setting as a git target, the repository path against the folder', () => {
    assert.equal(resolveTargetPath('git:/abs/repo@v1', '/ws'), 'git:/abs/repo@v1');
    assert.equal(resolveTargetPath('git:../lib@main', '/ws/app'), 'git:/ws/lib@main');
    assert.equal(resolveTargetPath('git:${workspaceFolder}/vendor/lib@a@b', '/ws'), 'git:/ws/vendor/lib@a@b');
  });

  it('checks against a git:REPO@REF target while a workspace folder is open', { timeout: 60_000 }, async () => {
    const lib = repo({ 'lib/__init__.py': 'def f(a, b):\n    pass\n' });
    const ws = tempDir('ws');
    dirs.push(ws);
    const client = new TestClient({ targets: [`git:${lib}@v1`] });
    try {
      await client.initialize(ws);
      const uri = pathToFileURL(path.join(ws, 'u.py')).href;
      client.open(uri, 'from lib import f\nf(1)\n', 1);
      const diags = await client.diagnosticsFor(uri, 1);
      assert.deepEqual(diags.map((d) => `${d.range.start.line}:${d.code}`), ['1:missing-argument']);
      await client.waitFor('ready status', () => client.statuses.find((s) => s.state === 'ready'));
    } finally {
      await client.shutdown();
    }
  });

  it('a document too large to check gets a warning saying so and an error status, never an empty all-clear', { timeout: 120_000 }, async () => {
    const lib = tempDir('lib');
    dirs.push(lib);
    fs.mkdirSync(path.join(lib, 'lib'));
    fs.writeFileSync(path.join(lib, 'lib', '__init__.py'), 'def f(a, b):\n    pass\n');
    const ws = tempDir('ws');
    dirs.push(ws);
    const client = new TestClient({ targets: [lib] });
    try {
      await client.initialize(ws);
      await client.waitFor('ready status', () => client.statuses.find((s) => s.state === 'ready'));
      const big = pathToFileURL(path.join(ws, 'big.py')).href;
      client.open(big, 'from lib import f\nf(1)\n' + 'x = 1\n'.repeat(1_500_000), 1);
      const diags = await client.diagnosticsFor(big, 1);
      assert.deepEqual(diags.map((d) => d.code), ['not-checked']);
      assert.match(diags[0].message, /could not check this file: too large to parse/);
      await client.waitFor('error status', () => client.statuses.find((s) => s.state === 'error' && /big\.py could not be checked/.test(s.message)));
      // other documents are still checked
      const small = pathToFileURL(path.join(ws, 'small.py')).href;
      client.open(small, 'from lib import f\nf(1)\n', 1);
      assert.deepEqual((await client.diagnosticsFor(small, 1)).map((d) => d.code), ['missing-argument']);
      // once the large document is checkable, the status is ready again
      client.change(big, 2, [{ text: 'from lib import f\nf(1)\n' }]);
      assert.deepEqual((await client.diagnosticsFor(big, 2)).map((d) => d.code), ['missing-argument']);
      const errorAt = client.statuses.map((s) => s.state).lastIndexOf('error');
      await client.waitFor('ready again', () => client.statuses.slice(errorAt + 1).find((s) => s.state === 'ready'));
    } finally {
      await client.shutdown();
    }
  });

  it('exits (so that the client restarts it) after a message with a broken header, instead of going deaf', { timeout: 60_000 }, async () => {
    const proc = spawn(process.execPath, [path.join(DIST, 'server.js'), '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    proc.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
    proc.stdin.write('Content-Type: application/json\r\n\r\n{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}');
    const guard = setTimeout(() => proc.kill('SIGKILL'), 30_000);
    const code = await exited;
    clearTimeout(guard);
    assert.equal(code, 1, `the server exited by itself (stderr: ${stderr})`);
    assert.match(stderr, /message stream is broken/);
  });
});
