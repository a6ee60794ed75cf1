/**
 * The check-results cache: a warm run replays what a fresh check gives, byte for byte (but for
 * the time taken and the count of target modules read), and checks again what may have changed:
 * an edited input, a target module it calls, a user module it imports, other options, a corrupt
 * cache file.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { main, resultCacheCounts } from '../../server/src/cli';
import { tempTree } from '../helpers';

const TARGET: Record<string, string> = {
  'lib/__init__.py': 'from .core import run, Base\n',
  'lib/core.py': ['def run(a, *, verbose=False):', '    pass', 'def other(a, b=1):', '    pass', 'class Base:', '    def step(self, x):', '        pass', ''].join('\n'),
};

const BASELINE: Record<string, string> = {
  'lib/__init__.py': 'from .core import run, Base\n',
  'lib/core.py': ['def run(a, *, verbose=False, level=1):', '    pass', 'def other(a, b=1):', '    pass', 'class Base:', '    def step(self, x):', '        pass', ''].join('\n'),
};

const PROJECT: Record<string, string> = {
  'a.py': 'import lib\nlib.run(1, verbose=True)\nlib.run(2, level=3)\n',
  // a user module (found in the project's folder) that re-exports the target's function
  'util.py': 'from lib.core import run, other\n',
  'b.py': 'from util import run, other\nrun(1, verbose=True)\nother(1, c=2)\n',
  'c.py': 'from lib import Base\nclass Mine(Base):\n    def go(self):\n        return self.step(1, 2)\n',
  'd.py': 'import lib\nlib.run(4)\n',
};

/** Files older than the cache's two seconds of doubt about a file's identity. */
const aged = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 2100));

async function check(args: string[]): Promise<{ code: number; stdout: string; stderr: string; replayed: number; checked: number }> {
  let stdout = '';
  let stderr = '';
  const io = { stdout: { write: (s: string) => ((stdout += s), true) }, stderr: { write: (s: string) => ((stderr += s), true) } } as unknown as Parameters<typeof main>[1];
  resultCacheCounts.replayed = resultCacheCounts.checked = -1;
  const code = await main(['check', '--format', 'json', ...args], io);
  return { code, stdout, stderr, replayed: resultCacheCounts.replayed, checked: resultCacheCounts.checked };
}

/** The output without what differs between a run that checks and one that replays: the time, the target modules read. */
const comparable = (s: string): string => s.replace(/"ms": \d+/g, '"ms": 0').replace(/"targetModulesRead": \d+/g, '"targetModulesRead": 0');

describe('check-results cache', () => {
  let target: string;
  let baseline: string;
  let project: string;
  const cacheHome = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-results-'));
  const inputs = (): string[] => ['a.py', 'b.py', 'c.py', 'd.py', 'util.py'].map((f) => path.join(project, f));
  let savedXdg: string | undefined;

  before(async () => {
    savedXdg = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cacheHome;
    target = tempTree(TARGET);
    baseline = tempTree(BASELINE);
    project = tempTree(PROJECT);
    await aged();
  });

  /** A check with the cache and the same check without it: the outputs agree; the cached run's counts. */
  async function agrees(args: string[]): Promise<{ replayed: number; checked: number; stdout: string }> {
    const warm = await check(args);
    const fresh = await check(['--no-cache', ...args]);
    assert.equal(comparable(warm.stdout), comparable(fresh.stdout));
    // but for a note on a corrupt cache file
    assert.equal(warm.stderr.replace(/^apidrift: ignoring .*results cache.*\n/m, ''), fresh.stderr);
    assert.equal(warm.code, fresh.code);
    return { replayed: warm.replayed, checked: warm.checked, stdout: warm.stdout };
  }

  it('replays every result of an unchanged run, exactly as a fresh check gives it', async () => {
    const args = ['--target', target, ...inputs()];
    const first = await agrees(args);
    assert.equal(first.replayed, 0);
    assert.equal(first.checked, 5);
    const warm = await check(args);
    const fresh = await check(['--no-cache', ...args]);
    assert.equal(warm.replayed, 5);
    assert.equal(warm.checked, 0);
    assert.equal(comparable(warm.stdout), comparable(fresh.stdout));
    // nothing was checked: no target module was read
    assert.equal(JSON.parse(warm.stdout).stats.targetModulesRead, 0);
    assert.ok(JSON.parse(fresh.stdout).stats.targetModulesRead > 0);
    assert.ok(JSON.parse(warm.stdout).diagnostics.length >= 3, warm.stdout);
  });

  it('checks again the edited input only', async () => {
    const args = ['--target', target, ...inputs()];
    await check(args);
    fs.writeFileSync(path.join(project, 'd.py'), 'import lib\nlib.run(4, verbose=1, quiet=2)\n');
    const r = await agrees(args);
    assert.equal(r.checked, 1);
    assert.equal(r.replayed, 4);
    assert.match(r.stdout, /quiet/);
  });

  it('checks again every input when a user module they import changes', async () => {
    const args = ['--target', target, ...inputs()];
    await check(args);
    fs.writeFileSync(path.join(project, 'util.py'), 'from lib.core import run\ndef other(a, c=1):\n    pass\n');
    const r = await agrees(args);
    assert.equal(r.replayed, 0);
    assert.doesNotMatch(r.stdout, /"c"/);
    // results read from a user module changed moments ago are not kept
    assert.equal((await check(args)).replayed, 0);
    await aged();
  });

  it('checks again when a target module a file calls changes', async () => {
    const args = ['--target', target, ...inputs()];
    await check(args);
    assert.equal((await check(args)).replayed, 5);
    fs.writeFileSync(path.join(target, 'lib', 'core.py'), TARGET['lib/core.py'].replace('def run(a, *, verbose=False):', 'def run(a):'));
    const r = await agrees(args);
    assert.equal(r.replayed, 0);
    // the keyword removed from the target is found in a.py and b.py
    assert.ok(JSON.parse(r.stdout).diagnostics.filter((f: { message: string }) => /verbose/.test(f.message)).length >= 2, r.stdout);
    await aged();
    await check(args);
    assert.equal((await check(args)).replayed, 5);
  });

  it('replays when Python wrote compiled files of the target, which no check reads', async () => {
    const args = ['--target', target, ...inputs()];
    const cache = path.join(target, 'lib', '__pycache__');
    fs.mkdirSync(cache, { recursive: true });
    fs.writeFileSync(path.join(cache, 'core.cpython-312.pyc'), 'compiled');
    await aged();
    await check(args);
    assert.equal((await check(args)).replayed, 5);
    fs.writeFileSync(path.join(cache, '__init__.cpython-312.pyc'), 'compiled');
    assert.equal((await agrees(args)).replayed, 5);
    // a module there is another matter
    fs.writeFileSync(path.join(cache, 'stray.py'), 'x = 1\n');
    assert.equal((await agrees(args)).replayed, 0);
    fs.rmSync(cache, { recursive: true });
    await aged();
  });

  it('does not reuse a result made with other options', async () => {
    const args = ['--target', target, ...inputs()];
    await check(args);
    assert.equal((await check(args)).replayed, 5);
    const listed = await agrees([...args, '--list-calls']);
    assert.equal(listed.replayed, 0);
    assert.ok(JSON.parse(listed.stdout).calls.length > 0);
    assert.equal((await agrees([...args, '--list-calls'])).replayed, 5);
    const explained = await agrees(['--baseline', baseline, ...args]);
    assert.equal(explained.replayed, 0);
    // a config that applies to the files
    fs.writeFileSync(path.join(project, 'pyproject.toml'), '[tool.apidrift]\nignore = ["unexpected-keyword"]\n');
    try {
      const configured = await agrees(args);
      assert.equal(configured.replayed, 0);
      assert.doesNotMatch(configured.stdout, /unexpected-keyword/);
    } finally {
      fs.rmSync(path.join(project, 'pyproject.toml'));
    }
    await agrees(args);
  });

  it('ignores a corrupt cache file', async () => {
    const args = ['--target', target, ...inputs()];
    const dir = path.join(cacheHome, 'apidrift');
    for (const f of fs.readdirSync(dir)) if (f.endsWith('.results.json')) fs.rmSync(path.join(dir, f));
    await check(args);
    const files = fs.readdirSync(path.join(cacheHome, 'apidrift')).filter((f) => f.endsWith('.results.json'));
    assert.equal(files.length, 1);
    for (const f of files) fs.writeFileSync(path.join(cacheHome, 'apidrift', f), '{"format":"apidrift-results-1","entries":{"x":');
    const r = await agrees(args);
    assert.equal(r.replayed, 0);
    // and a foreign one, whose results would be wrong if they were used
    for (const f of files) {
      const data = JSON.parse(fs.readFileSync(path.join(cacheHome, 'apidrift', f), 'utf8'));
      for (const e of Object.values(data.entries) as Array<[string, string, { outcome: { findings: unknown[] } }]>) e[2].outcome.findings = [];
      data.key = 'another run';
      fs.writeFileSync(path.join(cacheHome, 'apidrift', f), JSON.stringify(data));
    }
    assert.equal((await agrees(args)).replayed, 0);
    assert.equal((await agrees(args)).replayed, 5);
  });

  it('replays on worker threads as on one', async () => {
    const args = ['--jobs', '2', '--target', target, ...inputs()];
    fs.writeFileSync(path.join(project, 'e.py'), 'from util import run\nrun(9, verbose=True)\n');
    const all = [...args, path.join(project, 'e.py')];
    const first = await agrees(all);
    assert.equal(first.checked, 1);
    const again = await agrees(all);
    assert.equal(again.replayed, 6);
  });

  after(() => {
    if (savedXdg === undefined) delete process.env.XDG_CACHE_HOME;
    else process.env.XDG_CACHE_HOME = savedXdg;
  });
});
