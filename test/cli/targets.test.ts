/** Targets from git revisions and archives, the index command, and the persistent cache's safety. */
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { DIST, ROOT, stdlibZip, tempTree } from '../helpers';

const CLI = path.join(DIST, 'cli.js');

function run(args: string[], env: NodeJS.ProcessEnv = {}): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@example.com' } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

describe('git revisions as targets', () => {
  let repo: string;
  let bare: string;
  let user: string;
  before(() => {
    repo = tempTree({ 'lib/__init__.py': '', 'lib/core.py': 'def connect(host, port=80):\n    pass\n' });
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'v1');
    git(repo, 'tag', 'v1');
    fs.writeFileSync(path.join(repo, 'lib', 'core.py'), 'def connect(host, *, port=80, timeout):\n    pass\n');
    git(repo, 'commit', '-qam', 'v2');
    git(repo, 'tag', 'v2');
    // the work tree now says something else again: a git target must not read it
    fs.writeFileSync(path.join(repo, 'lib', 'core.py'), 'def connect():\n    pass\n');
    bare = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-bare-'));
    spawnSync('git', ['clone', '-q', '--bare', repo, bare]);
    user = tempTree({ 'u.py': 'from lib.core import connect\nconnect("h", 8080)\n' });
  });
  after(() => {
    for (const d of [repo, bare, user]) fs.rmSync(d, { recursive: true, force: true });
  });

  it('reads any revision of a work tree or a bare repository without a checkout', () => {
    const file = path.join(user, 'u.py');
    assert.equal(run(['check', '--no-cache', '--target', `git:${repo}@v1`, file]).code, 0);
    for (const r of [repo, bare]) {
      const out = run(['check', '--no-cache', '--format', 'json', '--target', `git:${r}@v2`, file]);
      assert.equal(out.code, 1, out.stderr);
      assert.deepEqual(JSON.parse(out.stdout).diagnostics.map((d: { code: string; param: string }) => `${d.code}:${d.param ?? ''}`).sort(), ['missing-argument:timeout', 'too-many-positional:']);
    }
  });

  it('compares two tags of one clone', () => {
    const out = run(['diff', '--no-cache', '--baseline', `git:${bare}@v1`, '--target', `git:${bare}@v2`]);
    assert.equal(out.code, 1, out.stderr); // a parameter became keyword-only: a breaking change
    assert.match(out.stdout, /~ lib\.core\.connect {2}\(function\)/);
    assert.match(out.stdout, /port became keyword-only/);
  });

  it('says clearly when the revision or the repository does not exist', () => {
    const a = run(['check', '--target', `git:${repo}@no-such-tag`, path.join(user, 'u.py')]);
    assert.equal(a.code, 2);
    assert.match(a.stderr, /git revision does not exist: no-such-tag/);
    const b = run(['check', '--target', 'git:/no/such/repo@v1', path.join(user, 'u.py')]);
    assert.equal(b.code, 2);
    assert.match(b.stderr, /git repository does not exist/);
  });
});

describe('apidrift index and the cache', () => {
  let cache: string;
  before(() => {
    cache = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-cache-'));
  });
  after(() => fs.rmSync(cache, { recursive: true, force: true }));

  const index = (): { modules: number; signatures: number; parsed: number; fromCache: number; ms: number } => {
    const r = run(['index', '--format', 'json', '--target', stdlibZip('312')], { XDG_CACHE_HOME: cache });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout);
  };

  it('builds the full index once and then loads it from the cache', () => {
    const cold = index();
    assert.ok(cold.modules > 500 && cold.signatures > 5000, JSON.stringify(cold));
    assert.ok(cold.parsed > 500);
    const warm = index();
    assert.equal(warm.parsed, 0);
    assert.equal(warm.fromCache, warm.modules);
    assert.equal(warm.signatures, cold.signatures);
    console.log(`  stdlib 3.12 index: cold ${cold.ms} ms, warm ${warm.ms} ms`);
  });

  it('ignores a corrupt or foreign cache file, rebuilds it, and gives the same answers', () => {
    const files = fs.readdirSync(path.join(cache, 'apidrift'));
    assert.ok(files.length >= 2);
    for (const [i, f] of files.entries()) fs.writeFileSync(path.join(cache, 'apidrift', f), i % 2 ? '{"format": "something-else", "entries": {}}' : '\u0000not json{{{');
    const again = index();
    assert.ok(again.parsed > 500, 'rebuilt');
    const check = run(['check', '--format', 'json', '--target', stdlibZip('312'), path.join(ROOT, 'examples', 'stdlib311_user.py')], { XDG_CACHE_HOME: cache });
    assert.equal(JSON.parse(check.stdout).diagnostics.length, 5);
    for (const f of fs.readdirSync(path.join(cache, 'apidrift'))) JSON.parse(fs.readFileSync(path.join(cache, 'apidrift', f), 'utf8'));
  });

  it('stays valid when two processes fill the same cache at once', async () => {
    fs.rmSync(path.join(cache, 'apidrift'), { recursive: true, force: true });
    const runOne = (): Promise<number> =>
      new Promise((resolve) => {
        const p = spawn(process.execPath, [CLI, 'index', '--target', stdlibZip('313')], { env: { ...process.env, XDG_CACHE_HOME: cache }, stdio: 'ignore' });
        p.on('exit', (code) => resolve(code ?? -1));
      });
    assert.deepEqual(await Promise.all([runOne(), runOne(), runOne()]), [0, 0, 0]);
    const files = fs.readdirSync(path.join(cache, 'apidrift'));
    assert.ok(!files.some((f) => f.endsWith('.tmp')), 'no temporary file left behind');
    for (const f of files) JSON.parse(fs.readFileSync(path.join(cache, 'apidrift', f), 'utf8'));
    const r = run(['index', '--format', 'json', '--target', stdlibZip('313')], { XDG_CACHE_HOME: cache });
    assert.equal(JSON.parse(r.stdout).parsed, 0);
  });

  it('--no-cache neither reads nor writes the cache', () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-nocache-'));
    try {
      const r = run(['index', '--no-cache', '--format', 'json', '--target', stdlibZip('311')], { XDG_CACHE_HOME: empty });
      assert.equal(r.code, 0);
      assert.ok(JSON.parse(r.stdout).parsed > 400);
      assert.equal(fs.existsSync(path.join(empty, 'apidrift')), false);
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('a git tag says the version of the project it tags', () => {
  it("decides version tests on the package named like the repository's project; not on another, nor at a branch", () => {
    const repo = tempTree({
      'pyproject.toml': '[build-system]\nrequires = ["setuptools"]\n\n[project]\nname = "lib"\ndynamic = ["version"]\n',
      'lib/__init__.py': 'try:\n    from ._version import __version__\nexcept ImportError:\n    __version__ = "dev"\n',
      'lib/engine.py': 'def start(config, block_size):\n    return config\n',
      'other/__init__.py': '__version__ = "dev"\n',
    });
    git(repo, 'init', '-q');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'release');
    git(repo, 'tag', 'v2.0.0');
    git(repo, 'branch', 'release-2.0');
    const user = tempTree({
      'u.py': 'import lib\nimport other\nfrom packaging.version import Version\nfrom lib.engine import start\n\nif Version(lib.__version__) >= Version("2.0"):\n    start(1)\nif Version(other.__version__) >= Version("2.0"):\n    start(2)\n',
    });
    try {
      const file = path.join(user, 'u.py');
      const tagged = run(['check', '--no-cache', '--target', `git:${repo}@v2.0.0`, file]);
      assert.equal(tagged.code, 1, tagged.stderr);
      assert.match(tagged.stdout, /u\.py:7:5: error \[missing-argument\]/);
      assert.doesNotMatch(tagged.stdout, /u\.py:9:/);
      const branch = run(['check', '--no-cache', '--target', `git:${repo}@release-2.0`, file]);
      assert.equal(branch.code, 0, branch.stdout);
    } finally {
      for (const d of [repo, user]) fs.rmSync(d, { recursive: true, force: true });
    }
  });
});
