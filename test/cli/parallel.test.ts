/**
 * A project checked on worker threads gives the output of a check on one thread, in the same
 * order: findings, explanations against a baseline, fixes, listed calls, skipped inputs and the
 * statistics (but for the time taken).
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { ConfigFinder } from '../../server/src/engine/config/pyproject';
import { checkInput, checkOnWorkers } from '../../server/src/cli/parallel';
import { DIST, ROOT, tempTree } from '../helpers';

const CLI = path.join(DIST, 'cli.js');

/** The version the code was written for. */
const BASELINE: Record<string, string> = {
  'lib/__init__.py': 'from .core import run, Base, helper\n',
  'lib/core.py': [
    'def run(a, *, verbose=False, level=1):',
    '    pass',
    'def helper(x):',
    '    pass',
    'class Base:',
    '    def step(self, x):',
    '        pass',
    '    def go(self):',
    '        return self.step(1)',
    '',
  ].join('\n'),
};

/** The version moved to: `verbose` renamed, `level` removed, `helper` moved, a subclass that overrides `step`. */
const TARGET: Record<string, string> = {
  'lib/__init__.py': 'from .core import run, Base\n',
  'lib/core.py': [
    'def run(a, *, quiet=False):',
    '    pass',
    'class Base:',
    '    def step(self, x):',
    '        pass',
    '    def go(self):',
    '        return self.step(1)',
    '',
  ].join('\n'),
  'lib/tools/__init__.py': '',
  'lib/tools/helpers.py': 'def helper(x):\n    pass\n',
  'lib/models.py': 'from .core import Base\nclass Sub(Base):\n    def step(self, x, y):\n        pass\n',
};

/** Modules enough for the full index to be built on several threads (which keeps the summaries it reads for the workers). */
function filler(into: Record<string, string>): Record<string, string> {
  for (let i = 0; i < 220; i++) into[`lib/gen/m${i}.py`] = `from lib.core import Base\ndef g${i}(a, b=${i}):\n    pass\nclass K${i}(Base):\n    def other(self):\n        pass\n`;
  into['lib/gen/__init__.py'] = '';
  return into;
}

/** A user project of many files, each with something to find (and some with nothing). */
function project(): string {
  const files: Record<string, string> = {};
  for (let i = 0; i < 14; i++) {
    const lines = ['import lib', 'from lib import run'];
    if (i % 3 === 0) lines.push('from lib import helper', `helper(${i})`);
    if (i % 2 === 0) lines.push(`run(${i}, verbose=True)`);
    if (i % 4 === 1) lines.push(`run(${i}, level=2, quiet=True)`);
    if (i % 5 === 2) lines.push('lib.run()');
    lines.push(`class Mine${i}(lib.Base):`, '    def go(self):', '        return self.step(1, 2)');
    // a declared Base may be any subclass: which subclasses override step takes the full index
    lines.push(`def use${i}(b: lib.Base):`, `    return b.step(${i}, 2)`);
    lines.push(`from lib.gen.m${i * 7} import g${i * 7}`, `g${i * 7}(1, 2, 3)`, '');
    files[`app/m${String(i).padStart(2, '0')}.py`] = lines.join('\n');
  }
  // an override in one file that a call in another file reaches through self
  files['app/base_user.py'] = 'class Runner:\n    def act(self, a):\n        pass\n    def start(self):\n        return self.act(1)\n';
  files['app/sub_user.py'] = 'from app.base_user import Runner\nclass Fast(Runner):\n    def act(self, a, b):\n        pass\n';
  files['app/broken.py'] = 'from lib import run\nrun(1, verbose=True)\ndef f(:\n    pass\nrun(2, verbose=True)\n';
  const dir = tempTree(files);
  fs.symlinkSync('/dev/null', path.join(dir, 'app', 'device.py')); // skipped: not a regular file
  return dir;
}

function run(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, XDG_CACHE_HOME: path.join(ROOT, 'out', 'parallel-test-cache') } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** The output without the time taken. */
const timeless = (s: string): string => s.replace(/"ms": \d+/g, '"ms": 0').replace(/, \d+ ms\)/g, ', 0 ms)');

describe('check on worker threads', () => {
  const target = tempTree(filler({ ...TARGET }));
  const baseline = tempTree(filler({ ...BASELINE }));
  const app = project();

  for (const [name, extra] of [
    ['text', []],
    ['json with the calls listed', ['--format', 'json', '--list-calls']],
    ['with a baseline', ['--baseline', baseline, '--format', 'json']],
    ['fixes as a diff', ['--baseline', baseline, '--diff']],
    ['sarif, from the cache', ['--format', 'sarif']],
  ] as Array<[string, string[]]>) {
    it(`gives the same output on 1, 2 and 3 threads: ${name}`, { timeout: 120_000 }, () => {
      const args = ['check', ...(name.includes('cache') ? [] : ['--no-cache']), '--target', target, ...extra, path.join(app, 'app')];
      const one = run([...args, '--jobs', '1']);
      assert.ok(one.stdout.length > 200, one.stdout + one.stderr);
      for (const jobs of ['2', '3']) {
        const many = run([...args, '--jobs', jobs]);
        assert.equal(many.code, one.code, many.stderr);
        assert.equal(timeless(many.stdout), timeless(one.stdout));
        assert.equal(many.stderr, one.stderr);
      }
      if (name === 'text') {
        // what the check finds: the skipped folder, the override in another file, the explained keyword
        assert.match(one.stderr, /device\.py: not a regular file/);
        assert.match(one.stdout, /m00\.py:.*verbose/);
        assert.equal(one.code, 2);
      }
    });
  }

  it('diff --uses counts the same uses on 1 and 2 threads', { timeout: 120_000 }, () => {
    const args = ['diff', '--no-cache', '--exit-zero', '--format', 'json', '--baseline', baseline, '--target', target, '--uses', path.join(app, 'app')];
    const one = run([...args, '--jobs', '1']);
    const two = run([...args, '--jobs', '2']);
    assert.equal(two.code, one.code, two.stderr);
    assert.equal(timeless(two.stdout), timeless(one.stdout));
    assert.equal(two.stderr, one.stderr);
    // what the files use, counted: `run` in every file, `helper` (moved) where it is imported
    const report = JSON.parse(one.stdout) as { movedNames: Array<{ name: string; uses: number }>; changedSignatures: Array<{ name: string; uses: number }> };
    assert.deepEqual(report.movedNames.map((m) => [m.name, m.uses]), [['lib.core.helper', 5]]);
    assert.ok(report.changedSignatures.some((c) => c.name === 'lib.core.run' && c.uses > 14), JSON.stringify(report.changedSignatures));
    assert.match(one.stderr, /device\.py: not a regular file/);
  });

  it('hands the inputs to every worker, and each record equals the one-thread record', { timeout: 120_000 }, async () => {
    const files = fs.readdirSync(path.join(app, 'app')).filter((f) => f.endsWith('.py')).sort().map((f) => ({ file: path.join(app, 'app', f) }));
    const opts = { fix: 'none', unsafeFixes: false, listCalls: true } as const;
    const engine = await Engine.open({ targets: [target], baseline: [baseline], sourceRoots: [app] });
    const one = [];
    for (const input of files) one.push(await checkInput(engine, input, new ConfigFinder(), opts));
    const main = await Engine.open({ targets: [target], baseline: [baseline], sourceRoots: [app] });
    const said: string[] = [];
    const par = checkOnWorkers(main, files, 2, { targets: [target], baseline: [baseline], sourceRoots: [app], opts, indexThreads: 2 }, (m) => said.push(m), (n) => said.push(n), () => assert.fail('no worker fails'));
    const many = [];
    for (let i = 0; i < files.length; i++) many.push(await par.result(i));
    const { checked, provided } = await par.finish(false);
    // as printed (a summary read back from text has no keys whose value is undefined)
    assert.deepEqual(JSON.parse(JSON.stringify(many)), JSON.parse(JSON.stringify(one)));
    assert.equal(checked.length, 2);
    assert.ok(checked.every((n) => n > 0), `each worker checked some: ${checked}`);
    assert.equal(checked[0] + checked[1], files.length);
    assert.deepEqual(said, []);
    // the workers asked this thread for the full index (dispatch over Base's subclasses) and got it
    assert.equal(main.program.hasFullIndex, true);
    assert.equal(main.baseline!.program.hasFullIndex, true);
    // and the summaries this thread read for it, rather than parsing those files again
    assert.ok(provided[0] + provided[1] > 0, `summaries handed over: ${provided}`);
  });
});
