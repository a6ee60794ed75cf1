/**
 * `super().m(...)` where the target no longer has `m` on any class after the caller's along its
 * MRO, while the baseline's did: `super()` looks only in the classes' own namespaces (never an
 * instance's attributes, never `__getattr__`), so the call raises AttributeError. Reported with
 * the baseline's evidence only, and never where a class after the caller's is not seen, where the
 * code guards against it, where something sets the method from outside, or where a class of the
 * file derives from the caller's class with other bases (its MRO may hold another class).
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

const lines = (r: CheckResult): string[] => r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`);

const lib = (v: 1 | 2): Record<string, string> => ({
  'lib/__init__.py': '',
  'lib/graphs.py': [
    'class Manager:',
    ...(v === 1 ? ['    def capture(self, x):', '        return x', ''] : []),
    '    def replay(self):',
    '        pass',
    '',
    'class Middle(Manager):',
    '    pass',
    '',
  ].join('\n'),
});

describe('super() to a method the target removed', () => {
  const v1 = tempTree(lib(1));
  const v2 = tempTree(lib(2));
  const user = (body: string): string => ['from lib.graphs import Manager, Middle', '', body].join('\n');

  it('is reported against the baseline, through a class in between, called or not', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const r = engine.check(user(['class Mine(Middle):', '    def capture(self, x):', '        return super().capture(x)', '    def run(self):', '        f = super().capture', '        return super().replay()', ''].join('\n')), 'user.py');
    assert.deepEqual(lines(r).filter((l) => !l.endsWith('changed-override')), ['5:unknown-attribute', '7:unknown-attribute']);
    const f = r.findings.find((x) => x.code === 'unknown-attribute')!;
    assert.match(f.message, /'super' object has no attribute 'capture' in the target: no class after Mine along its MRO defines it, while the baseline's .*Manager has it/);
    assert.equal(f.change, '`Manager.capture` was removed');
    // the call is counted as checked
    assert.ok(r.calls.some((c) => c.range.start.line === 4 && c.callee.endsWith('.capture')));
  });

  it('is not reported without a baseline, under a guard, with a mixin, or when something puts it back', async () => {
    const plain = await Engine.open({ targets: [v2] });
    const called = user(['class Mine(Manager):', '    def capture(self, x):', '        return super().capture(x)', ''].join('\n'));
    assert.deepEqual(lines(plain.check(called, 'user.py')), []);
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const guarded = user(['class Mine(Manager):', '    def capture(self, x):', '        if hasattr(super(), "capture"):', '            return super().capture(x)', '        try:', '            return super().capture(x)', '        except AttributeError:', '            return x', ''].join('\n'));
    assert.deepEqual(lines(engine.check(guarded, 'user.py')).filter((l) => !l.endsWith('changed-override')), []);
    // a class of the file mixes another base in after Mine: super() there may find it
    const mixed = user(['class Mine(Manager):', '    def capture(self, x):', '        return super().capture(x)', 'class Other:', '    def capture(self, x):', '        return x', 'class Both(Mine, Other):', '    pass', ''].join('\n'));
    assert.deepEqual(lines(engine.check(mixed, 'user.py')).filter((l) => !l.endsWith('changed-override')), []);
    const patched = called + 'Manager.capture = lambda self, x: x\n';
    assert.deepEqual(lines(engine.check(patched, 'user.py')).filter((l) => !l.endsWith('changed-override')), []);
  });

  it('is not reported where a base after the caller is outside the target', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const outside = ['import somewhere_else', 'from lib.graphs import Manager', 'class Mine(Manager, somewhere_else.Base):', '    def capture(self, x):', '        return super().capture(x)', ''].join('\n');
    assert.deepEqual(lines(engine.check(outside, 'user.py')).filter((l) => !l.endsWith('changed-override')), []);
  });
});
