/**
 * Removed attributes read with a baseline, in two more shapes: a read the file's own later store
 * cannot save (the store comes after it, or in another branch of an `if`), and an attribute that
 * may hold instances of several classes, none of which has the name any more.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

const lines = (r: CheckResult): string[] => r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`);

const lib = (v: 1 | 2): Record<string, string> => ({
  'lib/__init__.py': '',
  'lib/config.py': ['class CompileConfig:', '    def __init__(self):', `        self.${v === 1 ? 'split_points' : 'endpoints'} = []`, '        self.level = 0', ''].join('\n'),
  'lib/states.py': ['class State:', '    def __init__(self):', `        self.${v === 1 ? 'prefill_ids' : 'all_ids'} = None`, '', 'class Runner:', '    def __init__(self):', '        self.states = State()', ''].join('\n'),
});

describe('removed attributes read', () => {
  const v1 = tempTree(lib(1));
  const v2 = tempTree(lib(2));

  it('are reported where the file sets them only after the read, or in another branch', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const user = [
      'from lib.config import CompileConfig',
      '',
      'def update(cfg: CompileConfig, fast: bool):',
      '    if fast:',
      '        points = cfg.split_points',
      '        cfg.split_points = sorted(points)',
      '    else:',
      '        points = cfg.split_points',
      '        if len(points) > 2:',
      '            cfg.split_points = points[:2]',
      '        return len(cfg.split_points)',
      '',
    ].join('\n');
    // line 11 may run after the store on line 10: the attribute may be there then
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['5:unknown-attribute', '8:unknown-attribute']);
  });

  it('are not reported where a store may run first: before it in the same branch, in a loop, in another function', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const before = ['from lib.config import CompileConfig', 'def f(cfg: CompileConfig):', '    cfg.split_points = []', '    return cfg.split_points', ''].join('\n');
    assert.deepEqual(lines(engine.check(before, 'user.py')), []);
    const loop = ['from lib.config import CompileConfig', 'def f(cfg: CompileConfig, xs):', '    for x in xs:', '        if x:', '            cfg.split_points = [x]', '        else:', '            print(cfg.split_points)', ''].join('\n');
    assert.deepEqual(lines(engine.check(loop, 'user.py')), []);
    const elsewhere = ['from lib.config import CompileConfig', 'def setup(cfg: CompileConfig):', '    cfg.split_points = []', 'def f(cfg: CompileConfig):', '    return cfg.split_points', ''].join('\n');
    assert.deepEqual(lines(engine.check(elsewhere, 'user.py')), []);
    const bySetattr = ['from lib.config import CompileConfig', 'def f(cfg: CompileConfig):', '    x = cfg.split_points', '    setattr(cfg, "split_points", x)', ''].join('\n');
    assert.deepEqual(lines(engine.check(bySetattr, 'user.py')), []);
  });

  it('are reported on an attribute that holds one of several classes, none of which has the name', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const user = [
      'from lib.states import Runner, State',
      '',
      'class MyState(State):',
      '    pass',
      '',
      'class MyRunner(Runner):',
      '    def __init__(self):',
      '        super().__init__()',
      '        self.states = MyState()',
      '',
      '    def step(self):',
      '        return self.states.prefill_ids',
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['12:unknown-attribute']);
    // one of the classes has it: the read may succeed
    const gives = user.replace('class MyState(State):\n    pass', 'class MyState(State):\n    prefill_ids = None');
    assert.deepEqual(lines(engine.check(gives, 'user.py')), []);
  });
});

describe('a subclass that saves and restores attributes by computed names', () => {
  const lib = (v: 1 | 2, sets: string): Record<string, string> => ({
    'lib/__init__.py': '',
    'lib/moe.py': [
      'class MoE:',
      '    def __init__(self):',
      '        self.experts = 8',
      ...(v === 1 ? ['', '    @property', '    def dp_size(self):', '        return 1'] : []),
      '',
      'class ZeroMoE(MoE):',
      '    def _temporarily_set(self, **attrs):',
      ...sets.split('\n'),
      '',
    ].join('\n'),
  });
  const user = ['from lib.moe import MoE', 'def f(layer: MoE):', '    return layer.dp_size', ''].join('\n');

  it('gives no name a subclass may have: a removed attribute read on the base class is reported', async () => {
    const restore = [
      '        originals = {key: getattr(self, key) for key in attrs}',
      '        try:',
      '            for key, value in attrs.items():',
      '                object.__setattr__(self, key, value)',
      '            yield',
      '        finally:',
      '            for key, value in originals.items():',
      '                object.__setattr__(self, key, value)',
    ].join('\n');
    const engine = await Engine.open({ targets: [tempTree(lib(2, restore))], baseline: [tempTree(lib(1, restore))] });
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['3:unknown-attribute']);
  });

  it('but one that sets names it never read may set any: silent', async () => {
    const sets = ['        for key, value in attrs.items():', '            object.__setattr__(self, key, value)'].join('\n');
    const engine = await Engine.open({ targets: [tempTree(lib(2, sets))], baseline: [tempTree(lib(1, sets))] });
    assert.deepEqual(lines(engine.check(user, 'user.py')), []);
  });
});
