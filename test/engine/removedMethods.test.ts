/**
 * A method the target removed: `r.m(...)` where every class of r's MRO is seen in the target and
 * none defines, assigns or serves `m`, while the baseline's class had it. The call raises
 * AttributeError; it is reported only with the baseline's evidence, and never where the code
 * guards against it or gives the method back itself.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

const COMMON = {
  'lib/__init__.py': '',
  'lib/proxy.py': 'class Proxy:\n    def __getattr__(self, name):\n        return 1\n',
};

const V1 = {
  ...COMMON,
  'lib/manager.py': [
    'class Base:',
    '    def create_empty(self):',
    '        return []',
    '',
    'class Manager(Base):',
    '    def allocate(self, n):',
    '        return n',
    '',
    '    def old_stats(self):',
    '        return {}',
    '',
    'class Special(Manager):',
    '    pass',
    '',
    'def make() -> Manager:',
    '    return Manager()',
    '',
  ].join('\n'),
};

const V2 = {
  ...COMMON,
  'lib/manager.py': [
    'class Base:',
    '    pass',
    '',
    'class Manager(Base):',
    '    def allocate(self, n):',
    '        return n',
    '',
    'class Special(Manager):',
    '    def old_stats(self):',
    '        return {}',
    '',
    'def make() -> Manager:',
    '    return Manager()',
    '',
  ].join('\n'),
};

const USER = [
  'from lib.manager import Manager, make', // 1
  '', // 2
  'class MyManager(Manager):', // 3
  '    def step(self):', // 4
  '        return self.create_empty()', // 5: removed from Base
  '', // 6
  'def run():', // 7
  '    m = Manager()', // 8
  '    m.create_empty()', // 9: exact instance: removed
  '    m.old_stats()', // 10: exact Manager: Special is no Manager instance here
  '    d = make()', // 11
  '    d.old_stats()', // 12: declared: may be a Special, which has it
  '    m.never_there()', // 13: the baseline lacks it too: a typo, not a removal
  '    if hasattr(m, "create_empty"):', // 14
  '        m.create_empty()', // 15: guarded
  '    try:', // 16
  '        m.create_empty()', // 17: guarded
  '    except AttributeError:', // 18
  '        pass', // 19
  '',
].join('\n');

function lines(r: CheckResult): string[] {
  return r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort();
}

describe('methods the target removed', () => {
  const v1 = tempTree(V1);
  const v2 = tempTree(V2);

  it('are reported on exact instances and on self, with the baseline as evidence, and nowhere the code guards against them', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const r = engine.check(USER, 'user.py');
    assert.deepEqual(lines(r), ['10:unknown-attribute', '5:unknown-attribute', '9:unknown-attribute']);
    const f = r.findings.find((x) => x.range.start.line === 8)!;
    assert.match(f.message, /'Manager' object has no attribute 'create_empty'.*baseline's Base has it/);
    assert.equal(f.change, '`Base.create_empty` was removed');
    // counted as checked (their binding is decided: they fail)
    assert.equal(r.calls.find((c) => c.range.start.line === 8)?.status ?? 'checked', 'checked');
  });

  it('an override of a method the target removed from every base is a warning: the library no longer calls it', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const code = [
      'import torch',
      'from lib.manager import Manager',
      'class Mine(Manager):',
      '    def create_empty(self):', // 4: Base.create_empty is gone
      '        return [1]',
      '    def old_stats(self):', // 6: Manager.old_stats moved to a subclass: gone from Mine's MRO
      '        return {}',
      '    def allocate(self, n):', // 8: still there
      '        return n',
      '    def helper(self):', // 10: never overrode anything
      '        return 0',
      '    def __repr__(self):', // 12: a dunder: object has it
      '        return "m"',
      'class Mixed(Manager, torch.nn.Module):',
      '    def create_empty(self):', // 15: torch.nn.Module's public names are known: not this one
      '        return []',
      'from outside import Mixin',
      'class Other(Manager, Mixin):',
      '    def create_empty(self):', // 19: a base the engine cannot see may define it
      '        return []',
      '',
    ].join('\n');
    const r = engine.check(code, 'user.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.callee}`), ['4:changed-override:lib.manager.Base.create_empty', '6:changed-override:lib.manager.Manager.old_stats', '15:changed-override:lib.manager.Base.create_empty']);
    assert.match(r.findings[0].message, /^this method overrode Base\.create_empty in the baseline, which no class along its MRO defines in the target: the library no longer calls it there/);
    // without a baseline nothing says it overrode anything
    assert.deepEqual((await Engine.open({ targets: [v2] })).check(code, 'user.py').findings, []);
    // a method new in the target with the same parameters is named as the likely rename; one without parameters is not
    const lib = (old: boolean) => ({
      'mlib/__init__.py': '',
      'mlib/model.py': ['class Model:', `    def ${old ? 'get_input_embeddings' : 'embed_input_ids'}(self, input_ids):`, '        return input_ids', `    def ${old ? 'stats' : 'summary'}(self):`, '        return {}', ''].join('\n'),
    });
    const [m1, m2] = [tempTree(lib(true)), tempTree(lib(false))];
    const mine = ['from mlib.model import Model', 'class Mine(Model):', '    def get_input_embeddings(self, input_ids):', '        return input_ids', '    def stats(self):', '        return {}', ''].join('\n');
    const found = (await Engine.open({ targets: [m2], baseline: [m1] })).check(mine, 'user.py').findings;
    assert.deepEqual(found.map((f) => f.range.start.line + 1), [3, 5]);
    assert.match(found[0].message, /; Model\.embed_input_ids, new in the target, takes the same parameters \(renamed\?\)$/);
    assert.doesNotMatch(found[1].message, /renamed/);
    // a model class on torch.nn.Module: Module's public names are known, and this is none of them
    const torchLib = (old: boolean) => ({
      'tlib/__init__.py': '',
      'tlib/model.py': ['import torch', 'class Model(torch.nn.Module):', `    def ${old ? 'get_input_embeddings' : 'embed_input_ids'}(self, input_ids):`, '        return input_ids', `    def ${old ? '_old_hook' : '_new_hook'}(self, x):`, '        return x', ...(old ? ['    def _apply(self, fn):', '        return self'] : []), ''].join('\n'),
    });
    const [t1, t2] = [tempTree(torchLib(true)), tempTree(torchLib(false))];
    const model = ['from tlib.model import Model', 'class Mine(Model):', '    def get_input_embeddings(self, input_ids):', '        return input_ids', '    def _old_hook(self, x):', '        return x', '    def _apply(self, fn):', '        return self', ''].join('\n');
    const onTorch = (await Engine.open({ targets: [t2], baseline: [t1] })).check(model, 'user.py').findings;
    // Module's private names are known too: `_old_hook` is none of them; `_apply`, which the
    // baseline's Model overrode and the target's does not, is one (it still overrides Module's)
    assert.deepEqual(onTorch.map((f) => `${f.range.start.line + 1}:${f.code}`), ['3:changed-override', '5:changed-override']);
    assert.match(onTorch[0].message, /Model\.embed_input_ids, new in the target, takes the same parameters/);
  });

  it('are not reported without a baseline: nothing says the code relied on them', async () => {
    const engine = await Engine.open({ targets: [v2] });
    assert.deepEqual(lines(engine.check(USER, 'user.py')), []);
  });

  it('are not reported when the file or another file of the project gives the method back (a compatibility patch)', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const patched = USER + 'Manager.create_empty = lambda self: []\n';
    assert.deepEqual(lines(engine.check(patched, 'user.py')), ['10:unknown-attribute']);
    const viaSetattr = USER + 'setattr(Manager, "old_stats", lambda self: {})\n';
    assert.deepEqual(lines(engine.check(viaSetattr, 'user.py')), ['5:unknown-attribute', '9:unknown-attribute']);
    engine.addProjectFiles([
      { file: 'user.py', text: USER },
      { file: 'compat.py', text: 'import lib.manager\nlib.manager.Base.create_empty = lambda self: []\n' },
    ]);
    assert.deepEqual(lines(engine.check(USER, 'user.py')), ['10:unknown-attribute']);
  });

  it('are not reported on a class that serves attributes through __getattr__, or on a subclass of the user that defines it', async () => {
    const engine = await Engine.open({ targets: [v2], baseline: [v1] });
    const user = [
      'from lib.manager import Manager',
      'class MyManager(Manager):',
      '    def step(self):',
      '        return self.create_empty()',
      'class Mine(MyManager):',
      '    def create_empty(self):',
      '        return []',
      '',
    ].join('\n');
    // only the warning that Mine's create_empty no longer overrides the library's
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['6:changed-override']);
    const withGetattr = tempTree({ ...V2, 'lib/manager.py': V2['lib/manager.py'].replace('class Base:\n    pass', 'class Base:\n    def __getattr__(self, name):\n        return None') });
    const e2 = await Engine.open({ targets: [withGetattr], baseline: [v1] });
    assert.deepEqual(lines(e2.check(USER, 'user.py')), []);
  });

  it('attributes read (not called) are reported the same way, and never where they are written', async () => {
    const lib = (fields: string[]): Record<string, string> => ({
      ...COMMON,
      'lib/config.py': [
        'from dataclasses import dataclass',
        '',
        '@dataclass',
        'class Config:',
        ...fields.map((f) => `    ${f}: int = 0`),
        '',
        'class Runner:',
        '    def __init__(self, config: Config):',
        '        self.config = config',
        ...(fields.includes('delta') ? ['        self.width = 1', '        self.loaded = False'] : []),
        '',
        'class Sub(Runner):',
        '    pass',
        '',
        'def load(r: Runner):',
        '    r.loaded = True',
        '',
      ].join('\n'),
    });
    const old = tempTree(lib(['size', 'delta']));
    const now = tempTree(lib(['size']));
    const user = [
      'from lib.config import Config, Runner', // 1
      '', // 2
      'class MyRunner(Runner):', // 3
      '    def step(self):', // 4
      '        w = self.width', // 5: removed from Runner.__init__
      '        return self.config.delta', // 6: removed field (declared: the annotation of config)
      '', // 7
      'def run(c: Config):', // 8
      '    c.size', // 9: still there
      '    if hasattr(c, "delta"):', // 10
      '        print(c.delta)', // 11: guarded
      '    for c.delta in range(3):', // 12: written
      '        pass', // 13
      '    [0 for c.delta in range(3)]', // 14: written
      '    with open("f") as (a, c.delta):', // 15: written
      '        pass', // 16
      '    r = Runner(c)', // 17
      '    return r.width, r.loaded', // 18: removed; `loaded` is set by the library from outside
      '',
    ].join('\n');
    const engine = await Engine.open({ targets: [now], baseline: [old] });
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['18:unknown-attribute', '5:unknown-attribute', '6:unknown-attribute']);
    assert.match(r.findings.find((f) => f.range.start.line === 5)!.message, /'Config' object has no attribute 'delta'.*baseline's Config has it/);
    // a read is no call: nothing is added to the calls checked
    assert.equal(r.calls.filter((c) => [4, 5, 17].includes(c.range.start.line)).length, 0);
    // a file that sets it on the object from outside gives it back (a compatibility patch)
    assert.deepEqual(lines(engine.check(user + '\nConfig.delta = 0\n', 'user.py')), ['18:unknown-attribute', '5:unknown-attribute']);
    // a subclass of the target that sets it may be what an annotated value holds
    const withSub = tempTree({ ...lib(['size']), 'lib/more.py': 'from lib.config import Config\n\nclass Wide(Config):\n    def __post_init__(self):\n        self.delta = 1\n' });
    const e2 = await Engine.open({ targets: [withSub], baseline: [old] });
    assert.deepEqual(lines(e2.check(user, 'user.py')), ['18:unknown-attribute', '5:unknown-attribute']);
    // what the library sets from outside, read ahead (as the editor does after indexing), or in
    // slices cancelled half-way (then read when needed): the same findings
    for (const cancel of [false, true]) {
      const ahead = await Engine.open({ targets: [now], baseline: [old] });
      ahead.revalidateEvery(Infinity); // as the editor's server, which watches its targets
      await ahead.readTargetPatchesAsync(() => cancel, 0);
      const found = ahead.check(user, 'user.py').findings;
      assert.deepEqual(found.map((f) => /no attribute '(\w+)'/.exec(f.message)?.[1]).sort(), ['delta', 'width', 'width']);
    }
    // no baseline, no evidence
    assert.deepEqual(lines((await Engine.open({ targets: [now] })).check(user, 'user.py')), []);
    // code that tests for it first, in any form, knows it may be missing; so does a class that
    // tests for it in one method and reads it in another (which it calls where the test found it)
    const tested = [
      'from lib.config import Runner', // 1
      '', // 2
      'def g(r: Runner):', // 3
      '    ok = hasattr(r, "width") and r.width', // 4
      '    if not hasattr(r, "width"):', // 5
      '        return ok', // 6
      '    return r.width', // 7
      '', // 8
      'def h(r: Runner):', // 9
      '    return r.width', // 10: not tested here
      '', // 11
      'class Profiler:', // 12
      '    def __init__(self, r: Runner):', // 13
      '        self.r = r', // 14
      '', // 15
      '    def start(self):', // 16
      '        if getattr(self.r, "width", None) is not None:', // 17
      '            return self.legacy()', // 18
      '', // 19
      '    def legacy(self):', // 20
      '        return self.r.width', // 21: read where start found it
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(tested, 'tested.py')), ['10:unknown-attribute']);
    // without the class's test, its read is reported
    assert.deepEqual(lines(engine.check(tested.replace('getattr(self.r, "width", None)', 'self.r'), 'tested.py')), ['10:unknown-attribute', '21:unknown-attribute']);
  });

  it('an attribute still assigned is there, whatever is missing along the value assigned to it', async () => {
    const lib = (now: boolean): Record<string, string> => ({
      ...COMMON,
      'lib/engine.py': [
        'class Executor:',
        '    def run(self):',
        '        pass',
        '',
        'class Client:',
        '    pass',
        '',
        'class InprocClient(Client):',
        '    def __init__(self):',
        '        self.core = Core()',
        '',
        'class Core:',
        '    def __init__(self):',
        '        self.executor = Executor()',
        '',
        'def make_client() -> Client:',
        '    return InprocClient()',
        '',
        'class Engine:',
        '    def __init__(self, inproc: bool):',
        '        self.client = make_client()',
        ...(now
          ? [
              '        if inproc:',
              '            # the base class Client has no `core`: its in-process subclass does',
              '            self.executor = self.client.core.executor',
            ]
          : ['        self.executor = Executor()']),
        '        self.ready = True',
        '',
      ].join('\n'),
    });
    const engine = await Engine.open({ targets: [tempTree(lib(true))], baseline: [tempTree(lib(false))] });
    const user = [
      'from lib.engine import Engine', // 1
      '', // 2
      'def f(e: Engine):', // 3
      '    e.executor.run()', // 4: still assigned in the target, under a condition
      '    return e.executor, e.ready', // 5
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), []);
    // an attribute no class assigns any more is still reported
    const gone = await Engine.open({ targets: [tempTree({ ...lib(true), 'lib/engine.py': lib(true)['lib/engine.py'].replace('        self.ready = True\n', '') })], baseline: [tempTree(lib(false))] });
    assert.deepEqual(lines(gone.check(user, 'user.py')), ['5:unknown-attribute']);
  });

  it('a class of the user that copies the setting onto itself under the same name is not taken for the config; one that may stand for it is', async () => {
    const lib = (fields: string[]): Record<string, string> => ({
      ...COMMON,
      'lib/config.py': ['from dataclasses import dataclass', '', '@dataclass', 'class SchedConfig:', ...fields.map((f) => `    ${f}: int = 0`), '', '', 'class Engine:', '    sched: SchedConfig', ''].join('\n'),
    });
    const old = tempTree(lib(['max_seqs', 'chunked']));
    const now = tempTree(lib(['max_seqs']));
    const engine = await Engine.open({ targets: [now], baseline: [old] });
    const user = (extra: string[]): string =>
      [
        'from lib.config import Engine, SchedConfig', // 1
        '', // 2
        'class Builder:', // 3
        '    def __init__(self, engine: Engine):', // 4
        '        sched = engine.sched', // 5
        '        self.chunked = sched.chunked', // 6: removed; Builder only copies it
        ...extra,
        '',
      ].join('\n');
    assert.deepEqual(lines(engine.check(user([]), 'user.py')), ['6:unknown-attribute']);
    // a class that has another of the config's names may be stored where a SchedConfig is declared (duck typing)
    const standIn = ['', 'class MySched:', '    def __init__(self):', '        self.max_seqs = 1', '        self.chunked = True'];
    assert.deepEqual(lines(engine.check(user(standIn), 'user.py')), []);
    // and so may a subclass of it that sets it
    const sub = ['', 'class MySched(SchedConfig):', '    def __post_init__(self):', '        self.chunked = True'];
    assert.deepEqual(lines(engine.check(user(sub), 'user.py')), []);
  });

  it('a dataclass field that became an InitVar with no default is no attribute any more', async () => {
    const config = (limit: string): Record<string, string> => ({
      'lib/__init__.py': '',
      'lib/config.py': ['from dataclasses import InitVar, dataclass', '', '@dataclass', 'class Sched:', `    ${limit}`, '    seats: int = 1', '    spare: InitVar[int] = 0', '    kept: InitVar[int] = 2', '', '    def __post_init__(self, *args):', '        self.kept = 3', ''].join('\n'),
    });
    const old = tempTree(config('max_len: int'));
    const now = tempTree(config('max_len: InitVar[int]'));
    const user = [
      'from lib.config import Sched', // 1
      '', // 2
      'def f(s: Sched):', // 3
      '    return s.max_len, s.seats, s.spare, s.kept', // 4: max_len is only an argument of __init__ now
      '',
    ].join('\n');
    const engine = await Engine.open({ targets: [now], baseline: [old] });
    const found = engine.check(user, 'user.py').findings;
    assert.deepEqual(found.map((f) => `${f.range.start.line + 1}:${f.code}:${/no attribute '(\w+)'/.exec(f.message)?.[1]}`), ['4:unknown-attribute:max_len']);
    // it says what became of the field
    assert.match(found[0].message, /Sched\.max_len is an init-only field now: the constructor takes it, instances do not keep it/);
    assert.equal(found[0].change, '`Sched.max_len` became an init-only field (`InitVar`)');
    // the field of the baseline was an attribute there: against itself, nothing is said
    assert.deepEqual((await Engine.open({ targets: [old], baseline: [old] })).check(user, 'user.py').findings, []);
  });
  it('the target setting the name from outside hides the removal only where it may set it on such an object', async () => {
    const config = (limit: string, elsewhere: string): Record<string, string> => ({
      'lib/__init__.py': '',
      'lib/config.py': ['from dataclasses import InitVar, dataclass', '', '@dataclass', 'class Sched:', `    ${limit}`, '', '@dataclass', 'class Model:', '    max_len: int = 0', ''].join('\n'),
      // a class that sets max_len on the Model it holds, from outside that class
      'lib/spec.py': ['from lib.config import Model', '', 'class Spec:', '    def __init__(self, model: Model):', '        self.draft: Model = model', '', '    def fit(self, n):', '        self.draft.max_len = n', ''].join('\n'),
      'lib/other.py': elsewhere,
    });
    const user = ['from lib.config import Sched', '', 'def f(s: Sched):', '    return s.max_len', ''].join('\n');
    const reported = async (elsewhere: string): Promise<string[]> => {
      const engine = await Engine.open({ targets: [tempTree(config('max_len: InitVar[int]', elsewhere))], baseline: [tempTree(config('max_len: int', elsewhere))] });
      return engine.check(user, 'user.py').findings.map((f) => `${f.range.start.line + 1}:${f.code}`);
    };
    // `self.draft` holds a Model, a class unrelated to Sched: nothing is set on a Sched; nor on a
    // parameter annotated with Model (through an attribute of it too), nor on a config of another library
    assert.deepEqual(await reported(''), ['4:unknown-attribute']);
    assert.deepEqual(await reported('from lib.config import Model\nfrom lib.spec import Spec\n\ndef fit(model: Model, spec: Spec, n):\n    model.max_len = n\n    spec.draft.max_len = n\n'), ['4:unknown-attribute']);
    assert.deepEqual(await reported('from transformers import PretrainedConfig\n\ndef fit(hf: PretrainedConfig, n):\n    hf.max_len = n\n'), ['4:unknown-attribute']);
    // a parameter bound again in its function may hold anything
    assert.deepEqual(await reported('from lib.config import Model\n\ndef fit(model: Model, other, n):\n    model = other\n    model.max_len = n\n'), []);
    // set on anything the engine cannot place (a parameter), or on self.x that may hold a Sched: it may be
    assert.deepEqual(await reported('def patch(obj):\n    obj.max_len = 1\n'), []);
    assert.deepEqual(await reported('from lib.config import Sched\n\nclass Holder:\n    def __init__(self, s: Sched):\n        self.s = s\n        self.s.max_len = 1\n'), []);
  });

  it('a store of the target is placed through closures, pydantic wrappers of an annotation and the declared class of a field', async () => {
    const config = (limit: string, elsewhere: string): Record<string, string> => ({
      'lib/__init__.py': '',
      'lib/config.py': ['from dataclasses import InitVar, dataclass', '', '@dataclass', 'class Sched:', `    ${limit}`, '', '@dataclass', 'class Model:', '    max_len: int = 0', ''].join('\n'),
      'lib/other.py': elsewhere,
    });
    const user = ['from lib.config import Sched', '', 'def f(s: Sched):', '    return s.max_len', ''].join('\n');
    const reported = async (elsewhere: string): Promise<string[]> => {
      const engine = await Engine.open({ targets: [tempTree(config('max_len: InitVar[int]', elsewhere))], baseline: [tempTree(config('max_len: int', elsewhere))] });
      return engine.check(user, 'user.py').findings.map((f) => `${f.range.start.line + 1}:${f.code}`);
    };
    const gone = ['4:unknown-attribute'];
    // a closure stores on the annotated parameter of the function around it
    const closure = (cls: string, inner: string): string => `from lib.config import ${cls}\n\ndef outer(model: ${cls}):\n    def fits(n):\n${inner}        model.max_len = n\n    return fits\n`;
    assert.deepEqual(await reported(closure('Model', '')), gone);
    assert.deepEqual(await reported(closure('Sched', '')), []);
    // the closure binds the name itself: what it holds is not known
    assert.deepEqual(await reported(closure('Model', '        model = n\n')), []);
    // pydantic's SkipValidation[C] annotates a C
    const wrapped = (cls: string): string => `from pydantic import SkipValidation\nfrom lib.config import ${cls}\n\nclass Spec:\n    draft: SkipValidation[${cls}] = None\n\n    def fit(self, n):\n        self.draft.max_len = n\n`;
    assert.deepEqual(await reported(wrapped('Model')), gone);
    assert.deepEqual(await reported(wrapped('Sched')), []);
    // a dataclass field declared as a class, assigned a value the engine does not follow (a local
    // bound twice), read through a local of another class's method
    const declared = (cls: string): string =>
      [
        'from dataclasses import dataclass, field',
        `from lib.config import ${cls}`,
        '',
        '@dataclass',
        'class Holder:',
        `    cfg: ${cls} = field(init=False)`,
        '',
        '    def __post_init__(self):',
        `        cfg = ${cls}()`,
        '        cfg = cfg',
        '        self.cfg = cfg',
        '',
        'class Owner:',
        '    def __init__(self, h: Holder):',
        '        config = h.cfg',
        '        self.config = config',
        '',
        '    def fit(self, n):',
        '        self.config.max_len = n',
        '',
      ].join('\n');
    assert.deepEqual(await reported(declared('Model')), gone);
    assert.deepEqual(await reported(declared('Sched')), []);
  });

  it("a field removed from a msgspec Struct is no attribute any more (its instances have slots), unless it keeps a __dict__", async () => {
    const lib = (old: boolean, keywords: string): Record<string, string> => ({
      'lib/__init__.py': '',
      'lib/req.py': ['import msgspec', '', `class Request(msgspec.Struct${keywords}):`, '    request_id: str', ...(old ? ['    eos_token_id: int | None = None'] : []), '    arrival: float = 0.0', ''].join('\n'),
    });
    const user = ['from lib.req import Request', '', 'def f(r: Request):', '    return r.eos_token_id, r.arrival', ''].join('\n');
    const found = async (keywords: string): Promise<string[]> =>
      (await Engine.open({ targets: [tempTree(lib(false, keywords))], baseline: [tempTree(lib(true, keywords))] })).check(user, 'user.py').findings.map((f) => `${f.range.start.line + 1}:${f.code}:${/no attribute '(\w+)'/.exec(f.message)?.[1]}`);
    assert.deepEqual(await found(''), ['4:unknown-attribute:eos_token_id']);
    assert.deepEqual(await found(', array_like=True, omit_defaults=True'), ['4:unknown-attribute:eos_token_id']);
    // a Struct that keeps a __dict__ takes any attribute set on it
    assert.deepEqual(await found(', dict=True'), []);
  });

  it('a method or class attribute removed from a class, used on the class object itself', async () => {
    const lib = (old: boolean): Record<string, string> => ({
      'lib/__init__.py': '',
      'lib/cfg.py': [
        'from abc import ABCMeta',
        'class Base:',
        ...(old ? ['    LIMIT = 3', '    def init_sizes(self, n):', '        pass', '    @classmethod', '    def make(cls):', '        return cls()'] : ['    pass']),
        'class Cfg(Base):',
        '    def other(self):',
        '        self.seen = 1',
        ...(old ? ['        self.width = 2'] : []),
        'class Meta(type):',
        '    pass',
        'class Odd(metaclass=Meta):',
        ...(old ? ['    def gone(self):', '        pass'] : ['    pass']),
        'class Abstract(metaclass=ABCMeta):',
        ...(old ? ['    def gone(self):', '        pass'] : ['    pass']),
        '',
      ].join('\n'),
    });
    const old = tempTree(lib(true));
    const now = tempTree(lib(false));
    const user = [
      'from lib.cfg import Cfg, Odd, Abstract', // 1
      'def f(c):', // 2
      '    Cfg.init_sizes(c, 3)', // 3: removed method, called on the class
      '    Cfg.make()', // 4: removed classmethod
      '    n = Cfg.LIMIT', // 5: removed class attribute, read
      '    Cfg.other(c)', // 6: still there
      '    Cfg.width', // 7: an instance attribute in the baseline too: no class attribute then either
      '    Odd.gone(c)', // 8: a metaclass may supply it
      '    Abstract.gone(c)', // 9: ABCMeta supplies nothing of the kind
      '    Abstract.register(int)', // 10: ABCMeta gives it
      '',
    ].join('\n');
    const engine = await Engine.open({ targets: [now], baseline: [old] });
    const found = engine.check(user, 'user.py').findings;
    assert.deepEqual(found.map((f) => `${f.range.start.line + 1}:${f.code}:${/no attribute '(\w+)'/.exec(f.message)?.[1]}`), ['3:unknown-attribute:init_sizes', '4:unknown-attribute:make', '5:unknown-attribute:LIMIT', '9:unknown-attribute:gone']);
    assert.match(found[0].message, /^type object 'Cfg' has no attribute 'init_sizes' in the target: .*baseline's Base has it/);
    // without a baseline, no evidence
    assert.deepEqual((await Engine.open({ targets: [now] })).check(user, 'user.py').findings, []);
  });
  it('are reported on a class whose only base outside the target is torch.nn.Module, unless the name is one of its own or one an instance registers', async () => {
    const model = (embed: string, overrides: boolean, register = '"cache"'): Record<string, string> => ({
      'lib/__init__.py': '',
      'lib/model.py': [
        'import torch.nn as nn',
        '',
        'class Model(nn.Module):',
        '    def __init__(self, n):',
        '        super().__init__()',
        `        self.register_buffer(${register}, n, persistent=False)`,
        '',
        `    def ${embed}(self, ids):`,
        '        return ids',
        '',
        ...(overrides ? ['    def state_dict(self):', '        return {}', '', '    def to_device(self):', '        return self', ''] : []),
      ].join('\n'),
    });
    const oldLib = tempTree(model('get_input_embeddings', true));
    const newLib = tempTree(model('embed_input_ids', false));
    const user = [
      'from lib.model import Model', // 1
      '', // 2
      'class MyModel(Model):', // 3
      '    def run(self, ids):', // 4
      '        x = self.get_input_embeddings(ids)', // 5: renamed in the target: reported
      '        self.state_dict()', // 6: removed override, torch.nn.Module still has it
      '        self.cache.zero_()', // 7: a registered buffer
      '        self._apply(None)', // 8: a private name torch.nn.Module may have
      '        return self.to_device()', // 9: removed, torch.nn.Module has no such name
      '',
    ].join('\n');
    const engine = await Engine.open({ targets: [newLib], baseline: [oldLib] });
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['5:unknown-attribute', '9:unknown-attribute']);
    // a name registered by a computed name may be any name: nothing is said to be absent
    const computed = tempTree(model('embed_input_ids', false, 'n'));
    const e2 = await Engine.open({ targets: [computed], baseline: [oldLib] });
    assert.deepEqual(lines(e2.check(user, 'user.py')), []);
  });
});
