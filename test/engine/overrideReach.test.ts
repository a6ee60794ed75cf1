/**
 * A changed base method warns about an override only where the library may call the override with
 * the new arguments. The target's calls of the method by name are read: a call on a class named
 * in its module (`Batch.make(...)`), `super().m(...)`, and `self.m(...)` in a method the user's
 * class overrides never run the user's override; a call that binds to the override as it stands
 * passes it nothing it lacks. Where the target makes no call of the method by name (it may call it
 * through `getattr`, or through `__call__`), where it writes the name as a string (an RPC by name), and
 * for a special method (the language calls it), the warning stays.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

const lines = (r: CheckResult): string[] => r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`);

/** The library in two versions: each method's signature changes, the callers are the same except for what the change needs. */
function lib(v: 1 | 2): Record<string, string> {
  const two = v === 2;
  return {
    'lib/__init__.py': '',
    'lib/sampler.py': [
      'class Sampler:',
      // renamed where it stands; the library passes it by position
      `    def sample(self, logits, ${two ? 'index_map' : 'idx_mapping'}):`,
      '        return logits',
      '',
      'def run(s: Sampler, logits, m):',
      '    return s.sample(logits, m)',
      '',
      'class Batch:',
      // a classmethod the library calls on the class itself
      '    @classmethod',
      `    def make(cls, n${two ? ', device' : ''}):`,
      '        return cls()',
      '',
      'def dummy(n):',
      `    return Batch.make(n${two ? ', "cpu"' : ''})`,
      '',
      'class Layer:',
      // called only through super() in a subclass of the library's
      `    def go(self, x${two ? ', y' : ''}):`,
      '        return x',
      '',
      'class Deep(Layer):',
      `    def go(self, x${two ? ', y' : ''}):`,
      `        return super().go(x${two ? ', y' : ''})`,
      '',
      'class Runner:',
      // a new required parameter, passed by the one caller: `self._prep` in `step`
      `    def _prep(self, a${two ? ', n' : ''}):`,
      '        return a',
      '',
      '    def step(self, a):',
      `        return self._prep(a${two ? ', 2' : ''})`,
      '',
      'class Engine2:',
      // `_ids` is called by `_prepare`, which only `execute` calls
      `    def _ids(self, a${two ? ', n' : ''}):`,
      '        return a',
      '',
      // (its parameters on lines of their own, the closing line at the def's indentation)
      '    def _prepare(',
      '        self,',
      '        a,',
      '    ) -> int:',
      `        return self._ids(a${two ? ', 1' : ''})`,
      '',
      '    def execute(self, a):',
      '        return self._prepare(a)',
      '',
      'def drive_engine(e: Engine2):',
      '    return e.execute(1)',
      '',
      'class Platform:',
      // a new optional parameter, passed by keyword
      '    @classmethod',
      `    def backend(cls, selected, config${two ? ', num_heads=None' : ''}):`,
      '        return ""',
      '',
      'def select(p: Platform, selected, config, heads):',
      `    return p.backend(selected, config=config${two ? ', num_heads=heads' : ''})`,
      '',
      'class Worker:',
      // renamed keyword the overrides never took
      `    def load(self, ${two ? 'eep_dummy' : 'eep_scale_up'}=False):`,
      '        pass',
      '',
      'def start(w: Worker):',
      `    w.load(${two ? 'eep_dummy' : 'eep_scale_up'}=True)`,
      '',
      'class Ticker:',
      // a new optional parameter; one call by name binds to the override, but the name is also a
      // string the library dispatches on
      `    def tick(self, x${two ? ', y=None' : ''}):`,
      '        pass',
      '',
      'def rpc(w, method, *args):',
      '    return getattr(w, method)(*args)',
      '',
      'def drive(w: Ticker):',
      `    w.tick(1)`,
      `    rpc(w, "tick", 1${two ? ', 2' : ''})`,
      '',
      'class Config:',
      // a special method: the language calls it (a dataclass's __init__ calls __post_init__)
      `    def __post_init__(self${two ? ', extra' : ''}):`,
      '        pass',
      '',
      'def post(c: Config):',
      `    c.__post_init__(${two ? '1' : ''})`,
      '',
      'import torch',
      'class Attn(torch.nn.Module):',
      // torch.nn.Module's __call__ runs forward: the calls `self.attn(...)` name no method
      `    def forward(self, x${two ? ', scale' : ''}):`,
      '        return x',
      '',
      'def apply(a: Attn, x):',
      `    return a.forward(x${two ? ', scale=1.0' : ''})`,
      '',
      'class Hidden:',
      // called only through getattr: no call by name
      `    def hook(self, x${two ? ', y' : ''}):`,
      '        pass',
      '',
      'def call(h, name):',
      '    return getattr(h, name)(1)',
      '',
    ].join('\n'),
  };
}

describe('overrides of changed methods, against what the library calls', () => {
  const v1 = tempTree(lib(1));
  const v2 = tempTree(lib(2));

  it('stay quiet where the library never calls them with arguments they lack, and warn where it may', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const user = [
      'from lib.sampler import Sampler, Batch, Runner, Platform, Worker, Hidden, Layer, Ticker, Config, Attn',
      'class MySampler(Sampler):',
      '    def sample(self, logits, idx_mapping):',
      '        return logits',
      'class MyBatch(Batch):',
      '    @classmethod',
      '    def make(cls, n):',
      '        return cls()',
      'class MyRunner(Runner):',
      '    def _prep(self, a):',
      '        return a',
      '    def step(self, a):',
      '        return self._prep(a)',
      'class MyPlatform(Platform):',
      '    @classmethod',
      '    def backend(cls, selected, config, **kwargs):',
      '        return "x"',
      'class MyWorker(Worker):',
      '    def load(self):',
      '        pass',
      'class MyHidden(Hidden):',
      '    def hook(self, x):',
      '        pass',
      'class MyLayer(Layer):',
      '    def go(self, x):',
      '        return x',
      'class MyTicker(Ticker):',
      '    def tick(self, x):',
      '        pass',
      'class MyConfig(Config):',
      '    def __post_init__(self):',
      '        pass',
      'class MyAttn(Attn):',
      '    def forward(self, x, **kwargs):',
      '        return x',
      '',
    ].join('\n');
    // the methods called through getattr, by a name the library writes as a string, by the
    // language, and by torch.nn.Module's __call__: the library's calls of them cannot all be read
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['22:changed-override', '28:changed-override', '31:changed-override', '34:changed-override']);
  });

  it('warn where a call the library makes reaches the override and does not bind to it', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const user = [
      'from lib.sampler import Runner, Platform, Sampler',
      // does not override step: the library's step calls this _prep with two arguments
      'class OnlyPrep(Runner):',
      '    def _prep(self, a):',
      '        return a',
      // no **kwargs: num_heads= does not bind
      'class Strict(Platform):',
      '    @classmethod',
      '    def backend(cls, selected, config):',
      '        return "x"',
      // takes the old name by keyword only: the library's positional call does not bind to it
      'class KeywordOnly(Sampler):',
      '    def sample(self, logits, *, idx_mapping):',
      '        return logits',
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['3:changed-override', '7:changed-override', '10:changed-override']);
  });

  it('follow the library method that makes the call: one only a method the class overrides calls never runs', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const user = (execute: string): string =>
      ['from lib.sampler import Engine2', 'class MyEngine(Engine2):', '    def _ids(self, a):', '        return a', '    def execute(self, a):', `        return ${execute}`, ''].join('\n');
    // execute is the user's own: the library's _prepare, and its call of _ids, never run
    assert.deepEqual(lines(engine.check(user('a'), 'user.py')), []);
    // the user's execute runs the library's _prepare, which passes _ids the new argument
    assert.deepEqual(lines(engine.check(user('self._prepare(a)'), 'user.py')), ['3:changed-override']);
  });
});

describe('a function put in place of a changed method (C.m = f)', () => {
  const lib = (v: 1 | 2): Record<string, string> => ({
    'lib/__init__.py': '',
    'lib/engine.py': [
      'class Engine:',
      `    def step(self, batch${v === 2 ? ', budget' : ''}):`,
      '        return batch',
      '',
      `    def flush(self, force=False${v === 2 ? ', wait=None' : ''}):`,
      '        pass',
      '',
      '    @staticmethod',
      `    def build(size${v === 2 ? ', device' : ''}):`,
      '        return Engine()',
      '',
      `def helper(x${v === 2 ? ', y' : ''}):`,
      '    return x',
      '',
      'def loop(e: Engine, b):',
      `    e.step(b${v === 2 ? ', 10' : ''})`,
      '    e.flush(force=True)',
      '',
    ].join('\n'),
  });
  const v1 = tempTree(lib(1));
  const v2 = tempTree(lib(2));

  it('is compared as an override: warned where a call of the library may not bind to it', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const user = [
      'import functools',
      'from lib.engine import Engine',
      'def my_step(self, batch):',
      '    return batch',
      'def my_flush(self, force=False):',
      '    pass',
      'Engine.step = my_step',
      // every call of flush the library makes binds to it: nothing to say
      'Engine.flush = my_flush',
      // a static method, and a function of the module
      'def my_build(size):',
      '    return None',
      'Engine.build = my_build',
      'import lib.engine',
      'def my_helper(x):',
      '    return x',
      'lib.engine.helper = my_helper',
      // a decorated replacement: what it takes is not known
      '@functools.lru_cache',
      'def cached(x):',
      '    return x',
      'lib.engine.helper = cached',
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['7:changed-override', '11:changed-override', '15:changed-override']);
    assert.match(r.findings[0].message, /lib\.engine\.Engine\.step changed .*`budget` was added as a required parameter.*the function put in its place here/);
    // without a baseline there is nothing to compare
    const plain = await Engine.open({ targets: [v2] });
    assert.deepEqual(lines(plain.check(user, 'user.py')), []);
    // a patch defined in the function that applies it
    const nested = ['def apply_patches():', '    from lib.engine import Engine', '    def my_step(self, batch):', '        return batch', '    Engine.step = my_step', ''].join('\n');
    assert.deepEqual(lines(engine.check(nested, 'user.py')), ['5:changed-override']);
    // bound twice there: which one is put in place is not known
    const twice = nested.replace('    Engine.step = my_step', '    if batch_mode():\n        my_step = other\n    Engine.step = my_step');
    assert.deepEqual(lines(engine.check(twice, 'user.py')), []);
  });
});
