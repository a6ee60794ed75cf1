/**
 * The API-change report restricted to what code uses (`diff --uses`) reads what the used names
 * need, not every module of both versions, and says the same as the whole report filtered by
 * those uses.
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { buildReport, type ApiReport } from '../../server/src/engine/report/report';
import { tempTree } from '../helpers';

function library(version: 1 | 2): Record<string, string> {
  const files: Record<string, string> = {
    'pkg/__init__.py': '',
    // f loses a parameter, C.m gains a required one; h moves to pkg.new, k is removed
    'pkg/a.py': version === 1 ? 'def f(x, y):\n    return x\n\ndef h(p, q=1):\n    return p\n\ndef k(r):\n    return r\n' : 'def f(x):\n    return x\n',
    'pkg/c.py': ['class C:', `    def m(self, a${version === 2 ? ', b' : ''}):`, '        return a', ''].join('\n'),
    // g changes too, but the code below does not use it
    'pkg/b.py': version === 1 ? 'def g(x):\n    return x\n' : 'def g(x, z):\n    return x\n',
  };
  if (version === 2) files['pkg/new.py'] = 'def h(p, q=1):\n    return p\n';
  // many modules nothing uses, each with a change of its own
  for (let i = 0; i < 40; i++) files[`pkg/fill${i}.py`] = `def fill${i}(a${version === 2 ? ', b' : ''}):\n    return a\n`;
  return files;
}

function entries(r: ApiReport): string[] {
  return [
    ...r.removedModules.map((x) => `removed-module ${x.module} ${x.movedTo} ${x.uses}`),
    ...r.removedNames.map((x) => `removed ${x.name} ${x.uses}`),
    ...r.movedNames.map((x) => `moved ${x.name} ${x.to} ${x.uses}`),
    ...r.changedSignatures.map((x) => `changed ${x.name} ${x.group} ${x.uses}`),
  ];
}

describe('the report restricted to uses', () => {
  const uses = new Map([
    ['pkg.a.f', 3],
    ['pkg.c.C.m', 1],
  ]);

  it('compares only the modules the used names lie in, and gives the entries of the whole report for them', async () => {
    const base = tempTree(library(1));
    const target = tempTree(library(2));
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const report = buildReport(engine.baseline!.program, engine.program, { baseline: 'v1', target: 'v2' }, { uses });
    assert.deepEqual(entries(report), ['changed pkg.a.f removed 3', 'changed pkg.c.C.m added-required 1']);
    // the target's other modules were not read (a whole report reads every one); the baseline's
    // index names the modules to compare
    const read = [...engine.program.filesRead].map((f) => path.relative(target, f)).filter((f) => f !== 'pkg/__init__.py').sort();
    assert.deepEqual(read, ['pkg/a.py', 'pkg/c.py']);
    assert.equal(report.stats.baselineModules, 44);
    assert.equal(report.stats.targetModules, 45);

    // the whole report, filtered by the same uses, says the same
    const fresh = await Engine.open({ targets: [target], baseline: [base] });
    const whole = buildReport(fresh.baseline!.program, fresh.program, { baseline: 'v1', target: 'v2' });
    assert.ok(whole.changedSignatures.length > 40, 'the whole report has the changes nobody uses');
    const count = (n: string): number => uses.get(n) ?? 0;
    const filtered = whole.changedSignatures.filter((c) => count(c.name) > 0).map((c) => `changed ${c.name} ${c.group} ${count(c.name)}`);
    assert.deepEqual(entries(report), filtered.sort((a, b) => Number(b.split(' ')[3]) - Number(a.split(' ')[3])));
    assert.deepEqual([report.stats.baselineModules, report.stats.targetModules], [whole.stats.baselineModules, whole.stats.targetModules]);
    assert.ok(report.stats.compared < 10 && whole.stats.compared > 40, `${report.stats.compared} compared, against ${whole.stats.compared}`);
  });

  it('counts the uses of where the target defines a name now (a re-export of a moved def, an inherited method)', async () => {
    const base = tempTree({
      'pkg/__init__.py': '',
      'pkg/old.py': 'def tok(name, mode="auto"):\n    return name\n',
      'pkg/layers.py': ['class Base:', '    def apply(self, x):', '        return x', '', 'class Impl(Base):', '    def apply(self, x, y=0):', '        return x', ''].join('\n'),
      ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`pkg/other${i}.py`, `def other${i}(a):\n    return a\n`])),
    });
    const target = tempTree({
      'pkg/__init__.py': '',
      // tok moved to pkg.new (and lost `mode`); pkg.old re-exports it
      'pkg/old.py': 'from pkg.new import tok\n',
      'pkg/new.py': 'def tok(name):\n    return name\n',
      // Impl's apply is Base's now, which gained a required parameter
      'pkg/layers.py': ['class Base:', '    def apply(self, x, z):', '        return x', '', 'class Impl(Base):', '    pass', ''].join('\n'),
      ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`pkg/other${i}.py`, `def other${i}(a, b):\n    return a\n`])),
    });
    // code written for the target: its uses are the target's names only
    const uses = new Map([
      ['pkg.new.tok', 2],
      ['pkg.layers.Base.apply', 1],
    ]);
    const run = async (restricted: boolean): Promise<string[]> => {
      const engine = await Engine.open({ targets: [target], baseline: [base] });
      const r = buildReport(engine.baseline!.program, engine.program, { baseline: 'v1', target: 'v2' }, restricted ? { uses } : {});
      const count = (n: string): number => uses.get(n) ?? 0;
      return r.changedSignatures.map((c) => `${c.name} ${c.definedAs} ${restricted ? c.uses : count(c.name) + (c.definedAs !== c.name ? count(c.definedAs) : 0)}`).filter((e) => !e.endsWith(' 0'));
    };
    const restricted = await run(true);
    assert.deepEqual(restricted, ['pkg.old.tok pkg.new.tok 2', 'pkg.layers.Base.apply pkg.layers.Base.apply 1', 'pkg.layers.Impl.apply pkg.layers.Base.apply 1']);
    assert.deepEqual([...restricted].sort(), (await run(false)).sort());
  });

  it('says where a used name went (the unused ones that went are not looked for: see above)', async () => {
    const base = tempTree(library(1));
    const target = tempTree(library(2));
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const report = buildReport(engine.baseline!.program, engine.program, { baseline: 'v1', target: 'v2' }, { uses: new Map([['pkg.a.h', 2], ['pkg.a.k', 1]]) });
    assert.deepEqual(entries(report), ['removed pkg.a.k 1', 'moved pkg.a.h pkg.new.h 2']);
  });
});
