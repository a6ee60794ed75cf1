/**
 * "Moved" is said only of the same API in a new place. Found on vLLM: a class said to have moved
 * because another class elsewhere has the same name (an unrelated class that had been there all
 * along). The cases below are made here: the real move must still be said (with its fix), the
 * same-named strangers never.
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { after, describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { buildReport } from '../../server/src/engine/report/report';
import { tempTree } from '../helpers';
import * as fs from 'fs';

const CONFIG = ['class Config:', '    def __init__(self, model, dtype, seed=0):', '        self.model = model', '    def validate(self):', '        return True', ''].join('\n');
const LOADER = ['class Loader:', '    def load(self, path, strict=True):', '        return path', ''].join('\n');
const HELPER = 'def helper(a, b, c=1):\n    return a\n';

const BASELINE = {
  'pkg/__init__.py': '',
  'pkg/config.py': `${CONFIG}\n${LOADER}\n${HELPER}`,
  // an unrelated class of the same name, there all along
  'pkg/logging.py': ['class Config:', '    def __init__(self, level, fmt):', '        self.level = level', ''].join('\n'),
  'pkg/io.py': 'X = 1\n',
};
const TARGET = {
  'pkg/__init__.py': '',
  'pkg/config.py': 'X = 1\n',
  'pkg/logging.py': BASELINE['pkg/logging.py'],
  // Loader really moved (one parameter renamed on the way); helper moved unchanged
  'pkg/io.py': `X = 1\n${LOADER.replace('strict=True', 'strict_mode=True')}\n${HELPER}`,
  // an unrelated class that is new, with the removed function's name
  'pkg/tools.py': 'class helper:\n    def run(self, job):\n        return job\n',
};
const USER = 'from pkg.config import Config, Loader, helper\n';

describe('moved names', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('says "moved" of the same API only, in check findings and in the report', async () => {
    const base = tempTree(BASELINE);
    const target = tempTree(TARGET);
    dirs.push(base, target);
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const findings = engine.check(USER, path.join(target, '..', 'user.py')).findings;
    const byName = (n: string): string => findings.find((f) => f.callee === `pkg.config.${n}`)?.message ?? 'no finding';
    // Config did not move: pkg.logging.Config is another class, defined there before
    assert.match(byName('Config'), /cannot import name 'Config'/);
    assert.doesNotMatch(byName('Config'), /moved/);
    // Loader and helper did (a class def of another kind named helper is no candidate)
    assert.match(byName('Loader'), /`Loader` moved from `pkg\.config` to `pkg\.io`/);
    assert.match(byName('helper'), /`helper` moved from `pkg\.config` to `pkg\.io`/);
    const fix = findings.find((f) => f.callee === 'pkg.config.Loader')?.fixes[0];
    assert.ok(fix, 'the real move keeps its fix');
    assert.equal(findings.find((f) => f.callee === 'pkg.config.Config')?.fixes.length, 0);

    const report = buildReport(engine.baseline!.program, engine.program, { baseline: 'v1', target: 'v2' });
    assert.deepEqual(report.movedNames.map((m) => `${m.name} -> ${m.to}`).sort(), ['pkg.config.Loader -> pkg.io.Loader', 'pkg.config.helper -> pkg.io.helper']);
    assert.ok(report.removedNames.some((r) => r.name === 'pkg.config.Config'), 'Config is reported removed');
  });

  it('checks the uses of a moved name against where it lives now; a name that did not move stays unchecked', async () => {
    const base = tempTree(BASELINE);
    const target = tempTree(TARGET);
    dirs.push(base, target);
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const code = [
      'from pkg.config import Config, Loader, helper', // 1: three names the module lost (two moved)
      'Loader().load("p", strict=False)', // 2: the keyword was renamed on the way
      'helper(1, 2, c=3)', // 3: binds where helper lives now
      'helper(1)', // 4: does not
      'Config(1, 2, 3, 4)', // 5: Config did not move: not checked
      '',
    ].join('\n');
    const findings = engine.check(code, path.join(target, '..', 'user3.py')).findings;
    assert.deepEqual(findings.filter((f) => f.range.start.line > 0).map((f) => `${f.range.start.line + 1}:${f.code}:${f.callee}`), ['2:unexpected-keyword:pkg.io.Loader.load', '4:missing-argument:pkg.io.helper']);
    // without a baseline nothing says where the names went: their uses stay unchecked
    const alone = await Engine.open({ targets: [target] });
    assert.deepEqual(alone.check(code, path.join(target, '..', 'user3.py')).findings.filter((f) => f.range.start.line > 0), []);
  });

  it('checks the uses of names whose whole module is gone against where they live now', async () => {
    // the module of the baseline is gone from the target: its class now lives in pkg.io
    const base = tempTree({ 'pkg/__init__.py': '', 'pkg/serving.py': LOADER, 'pkg/io.py': 'X = 1\n' });
    const target = tempTree({ 'pkg/__init__.py': '', 'pkg/io.py': `X = 1\n${LOADER.replace('strict=True', 'strict_mode=True')}` });
    dirs.push(base, target);
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const code = ['from pkg.serving import Loader', 'Loader().load("p", strict=False)', ''].join('\n');
    const found = engine.check(code, path.join(target, '..', 'user4.py')).findings.map((f) => `${f.range.start.line + 1}:${f.code}`);
    assert.deepEqual(found, ['1:unknown-module', '2:unexpected-keyword']);
  });

  it('does not call a new, unrelated class of the same name a move', async () => {
    const base = tempTree({ 'pkg/__init__.py': '', 'pkg/a.py': CONFIG, 'pkg/b.py': 'Y = 2\n' });
    // b gains a Config of its own that shares nothing with a's
    const target = tempTree({ 'pkg/__init__.py': '', 'pkg/a.py': 'Y = 1\n', 'pkg/b.py': 'class Config:\n    def __init__(self, url, retries=3):\n        self.url = url\n    def connect(self):\n        return self.url\n' });
    dirs.push(base, target);
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const f = engine.check('from pkg.a import Config\n', path.join(target, '..', 'user2.py')).findings;
    assert.equal(f.length, 1);
    assert.doesNotMatch(f[0].message, /moved/);
    const report = buildReport(engine.baseline!.program, engine.program, { baseline: 'v1', target: 'v2' });
    assert.deepEqual(report.movedNames, []);
  });
});
