/**
 * Breaks that hide behind general Python patterns, on a fake library of our own in two versions
 * (test/fixtures/recall/v1 and v2, checked with test/fixtures/recall/user.py): identity
 * decorators written as code, packages that vanished above the imported module (and modules a
 * build creates, which a source tree lacks), module `__getattr__` answering from `globals()` or
 * a table, deprecation shims, and pydantic validators that pass their input through. Each
 * pattern has its negative twin, which must stay silent.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine, type CallInfo, type CheckResult } from '../../server/src/engine';
import { initParser } from '../../server/src/engine/parser';
import { summarizeModule, type FunctionInfo, type ModuleSummary } from '../../server/src/engine/index/summary';
import { applyEdits, checkAgainst, FIXTURES, tempTree } from '../helpers';

const DIR = path.join(FIXTURES, 'recall');
const V1 = path.join(DIR, 'v1');
const V2 = path.join(DIR, 'v2');
const USER = path.join(DIR, 'user.py');
const TEXT = fs.readFileSync(USER, 'utf8');

let opened: Promise<CheckResult> | undefined;
function result(): Promise<CheckResult> {
  opened ??= Engine.open({ targets: [V2], baseline: [V1] }).then((e) => e.check(TEXT, USER));
  return opened;
}

/** Findings on the given lines as `line:code:param-or-callee`. */
function on(r: CheckResult, lines: number[]): string[] {
  return r.findings
    .filter((f) => lines.includes(f.range.start.line + 1))
    .map((f) => `${f.range.start.line + 1}:${f.code}:${f.param ?? f.callee}`)
    .sort();
}

function callAt(r: CheckResult, line: number): CallInfo {
  const calls = r.calls.filter((c) => c.range.start.line + 1 === line);
  assert.equal(calls.length, 1, `one call on line ${line}`);
  return calls[0];
}

function summaryOf(rel: string, name: string): ModuleSummary {
  const text = fs.readFileSync(path.join(V2, rel), 'utf8');
  return summarizeModule(text, name, rel.endsWith('__init__.py'), rel);
}

function fn(s: ModuleSummary, name: string): FunctionInfo {
  const b = s.bindings.get(name)?.[0];
  assert.ok(b && b.kind === 'def', `${name} is a def`);
  return b.fn;
}

describe('recall of general patterns', () => {
  it('sees through decorators that return what they decorate, directly or through a conditional or an inner function', async () => {
    const r = await result();
    // include (conditional), include(reason=...) (inner `_wrap` when obj is None), register("x") (inner), on classes and on a function
    assert.deepEqual(on(r, [16, 17, 18, 22]), ['16:unexpected-keyword:old_field', '17:missing-argument:prompt', '18:missing-argument:name', '22:missing-argument:budget']);
    for (const line of [16, 17, 18, 22]) assert.equal(callAt(r, line).unknownReason, undefined);
  });

  it('stays silent for decorators that replace, may replace, or return something it cannot follow', async () => {
    const r = await result();
    // wrapping returns another class; sometimes returns another class on one path; maybe_none's inner
    // returns another class; checked(strict=True) returns the decorator itself (not followed)
    assert.deepEqual(on(r, [19, 20, 21, 23]), []);
    for (const line of [19, 20, 21, 23]) assert.ok(callAt(r, line).unknownReason, `line ${line} is unknown`);
  });

  it('sees through a class method of a registry that hands the class back, called or not, and not through one that hands back the registry', async () => {
    const r = await result();
    // @Registry.register_oot(name=...) and @Registry.register_oot: the class, its `registered_as` set
    assert.deepEqual(on(r, [32, 33]), ['32:missing-argument:size', '33:missing-argument:size']);
    // @Registry.adopt returns `cls`, the registry: AdoptedOp is the registry class at run time
    assert.deepEqual(on(r, [34]), []);
    assert.match(callAt(r, 34).unknownReason ?? '', /adopt may replace the constructor/);
    await initParser();
    const marks = summaryOf('recall/marks.py', 'recall.marks');
    const registry = marks.bindings.get('Registry')?.[0];
    assert.ok(registry?.kind === 'class');
    const oot = registry.cls.members.get('register_oot')?.[0];
    assert.ok(oot?.kind === 'def');
    assert.equal(oot.fn.returnsFirstArg, true);
    assert.deepEqual(oot.fn.patchedAttrs, ['registered_as']);
    assert.equal(oot.fn.innerIfFirstNone, true);
  });

  it('records the decorator facts the same way whether the body was skeletonised or parsed whole', async () => {
    await initParser();
    const text = fs.readFileSync(path.join(V2, 'recall/marks.py'), 'utf8');
    for (const full of [false, true]) {
      const s = summarizeModule(text, 'recall.marks', false, 'marks.py', full);
      const include = fn(s, 'include');
      assert.equal(include.returnsFirstArg, true);
      assert.equal(include.innerIfFirstNone, true);
      assert.equal(include.returnedInner?.returnsFirstArg, true);
      assert.equal(fn(s, 'register').returnedInner?.returnsFirstArg, true);
      assert.equal(fn(s, 'register').innerIfFirstNone, undefined);
      for (const name of ['wrapping', 'sometimes']) assert.equal(fn(s, name).returnsFirstArg, false, name);
      assert.equal(fn(s, 'maybe_none').returnedInner?.returnsFirstArg, false);
    }
  });

  it('keeps the bodies whose returns it reads in the skeleton, however the return is laid out', async () => {
    await initParser();
    const text = [
      'def spread(obj=None, *, x=None):',
      '    return obj if obj is not None \\',
      '        else other',
      '',
      'def accented(obj):',
      '    return obj if obj is not None else other  # café',
      '',
      'def commented(obj=None):',
      '    def _wrap(x):',
      '        return x',
      '    return _wrap if obj is None else obj  # else nothing',
      '',
    ].join('\n');
    const full = summarizeModule(text, 'm', false, 'm.py', true);
    const fast = summarizeModule(text, 'm', false, 'm.py');
    for (const name of ['spread', 'accented', 'commented']) {
      assert.equal(fn(full, name).returnsFirstArg, true, name);
      assert.deepEqual(fn(fast, name), fn(full, name), name);
    }
  });

  it('reports every missing component of a module path, and where the baseline had it', async () => {
    const r = await result();
    assert.deepEqual(on(r, [2, 3, 14, 15]), ['14:unknown-module:recall.missing', '15:unknown-module:recall._gone', '2:unknown-module:recall.attention', '3:unknown-module:recall.attention']);
    const f = r.findings.find((x) => x.range.start.line + 1 === 2)!;
    assert.match(f.message, /package recall has no submodule attention \(so recall\.attention\.layer cannot be imported\) \(the baseline has it\)/);
    assert.equal(f.change, 'module `recall.attention` was removed');
  });

  it('a plain module is no package: a module path through it is reported, even where it serves names at run time; not where it registers modules', async () => {
    const lib = tempTree({
      'pkg/__init__.py': '',
      'pkg/utils.py': 'def __getattr__(name):\n    raise AttributeError(name)\n\ndef f():\n    pass\n',
      'pkg/hooked.py': 'import sys\n\ndef load(name, module):\n    sys.modules[name] = module\n',
    });
    const user = ['from pkg.utils.torch_utils import f', 'import pkg.hooked.x', 'try:', '    from pkg.utils.torch_utils import f as g', 'except ImportError:', '    from pkg.utils import f as g', 'g(1)', ''].join('\n');
    const r = (await Engine.open({ targets: [lib] })).check(user, 'user.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['1:unknown-module', '7:too-many-positional']);
    assert.match(r.findings[0].message, /No module named 'pkg\.utils\.torch_utils': the target's pkg\.utils is a module, not a package: it has no submodule torch_utils/);
  });

  it('stays silent for modules the build creates: extensions and copied folders named in build files, compiled files, folders kept by a placeholder', async () => {
    const r = await result();
    // recall._C (setup.py Extension), recall._fast (a .so beside), recall.kernels (CMake install DIRECTORY), recall.vendored (.gitkeep)
    assert.deepEqual(on(r, [10, 11, 12, 13]), []);
    // the same tree without that evidence: the copied folders' modules are reported, and a last
    // component under a package with a module __getattr__ is left alone (it may be compiled)
    const bare = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-recall-'));
    try {
      fs.cpSync(V2, bare, { recursive: true });
      for (const f of ['setup.py', 'CMakeLists.txt', 'cmake', 'recall/vendored/.gitkeep']) fs.rmSync(path.join(bare, f), { recursive: true });
      const r2 = (await Engine.open({ targets: [bare] })).check(TEXT, USER);
      assert.deepEqual(on(r2, [10, 11, 12, 13, 15]), ['12:unknown-module:recall.kernels.triton', '13:unknown-module:recall.vendored.layers']);
      // a baseline that had the last component as Python source says it was removed, not built
      const r3 = (await Engine.open({ targets: [bare], baseline: [V1] })).check(TEXT, USER);
      assert.deepEqual(on(r3, [2, 3, 10, 11, 15]), ['2:unknown-module:recall.attention', '3:unknown-module:recall.attention']);
      assert.deepEqual(on(r2, [3]), []);
    } finally {
      fs.rmSync(bare, { recursive: true, force: true });
    }
  });

  it('a result unpacked into another number of names than the function\'s fixed-length tuple annotation gives', async () => {
    const lib = {
      'pkg/__init__.py': '',
      'pkg/experts.py': [
        'from typing import Tuple',
        'def expert_map(n) -> tuple[int, list[int] | None, dict[str, int]]:',
        '    return n, None, {}',
        'def pair(n) -> Tuple[int, int]:',
        '    return n, n',
        'def many(n) -> tuple[int, ...]:',
        '    return (n,)',
        'class Planner:',
        '    def plan(self) -> tuple[int, int, int]:',
        '        return 1, 2, 3',
        '',
      ].join('\n'),
    };
    const code = [
      'from pkg.experts import expert_map, pair, many, Planner', // 1
      'size, emap = expert_map(4)', // 2: 3 values into 2 names
      '(a, b, c, d) = expert_map(4)', // 3: 3 into 4 (and 2 into 4 in the baseline)
      'size, emap, table = expert_map(4)', // 4: fits
      'first, *rest = expert_map(4)', // 5: starred: fits any length
      'x, y = pair(1)', // 6: fits
      'p, q = many(2)', // 7: any length
      'u, v = Planner().plan()', // 8: a method whose annotation did not change
      'try:',
      '    s, e = expert_map(4)', // 10: the code catches the error
      'except ValueError:',
      '    pass',
      'whole = expert_map(4)', // 13: not unpacked
      '',
    ].join('\n');
    // the baseline: expert_map returned 2 values (code unpacking 2 fitted it), and 4 for `wide`
    const base = tempTree({ ...lib, 'pkg/experts.py': lib['pkg/experts.py'].replace('-> tuple[int, list[int] | None, dict[str, int]]', '-> tuple[int, list[int] | None]') });
    const target = tempTree(lib);
    try {
      const engine = await Engine.open({ targets: [target], baseline: [base] });
      const r = engine.check(code, 'user.py');
      // line 3 unpacks 4: it did not fit the baseline either, and is not said to break now
      assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['2:unpack-mismatch']);
      assert.match(r.findings[0].message, /expert_map\(\) returns 3 values in the target .*this unpacks 2 as the baseline's did .*ValueError: too many values to unpack \(expected 2\)/);
      // an annotation alone says nothing: real functions do not always keep theirs
      assert.deepEqual((await Engine.open({ targets: [target] })).check(code, 'user.py').findings, []);
    } finally {
      fs.rmSync(base, { recursive: true, force: true });
      fs.rmSync(target, { recursive: true, force: true });
    }
  });

  it('a method\'s result unpacked into another number of names, where the receiver\'s method is decided', async () => {
    const lib = (base: boolean) => ({
      'pkg/__init__.py': '',
      'pkg/planner.py': [
        'class Planner:',
        `    def split(self) -> tuple[int, int${base ? '' : ', int'}]:`,
        `        return ${base ? '1, 2' : '1, 2, 3'}`,
        `    def __call__(self) -> tuple[int, int${base ? '' : ', int'}]:`,
        `        return ${base ? '1, 2' : '1, 2, 3'}`,
        'class Loader:',
        `    def load(self) -> tuple[int, int${base ? '' : ', int'}]:`,
        `        return ${base ? '1, 2' : '1, 2, 3'}`,
        'class FastLoader(Loader):',
        '    def load(self) -> tuple[int, int]:',
        '        return 1, 2',
        '',
      ].join('\n'),
    });
    const code = [
      'from pkg.planner import Planner, Loader', // 1
      'class MyPlanner(Planner):',
      '    def go(self):',
      '        a, b = self.split()', // 4: inherited, and no subclass of MyPlanner overrides it
      'class Other(Planner):',
      '    def split(self):',
      '        return 1, 2',
      'def use(p: Planner, l: Loader):',
      '    a, b = Planner().split()', // 9: the class is certain
      '    c, d = p.split()', // 10: p may hold an Other, whose split returns what it likes
      '    e, f = l.load()', // 11: l may hold a FastLoader, whose load returns 2
      '    g, h = Planner()()', // 12: calling the instance: hooks of __call__ are not followed
      '    i, j, k = Planner().split()', // 13: fits
      '',
    ].join('\n');
    const engine = await Engine.open({ targets: [tempTree(lib(false))], baseline: [tempTree(lib(true))] });
    const r = engine.check(code, 'user.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.callee}`), ['4:unpack-mismatch:pkg.planner.Planner.split', '9:unpack-mismatch:pkg.planner.Planner.split']);
    assert.match(r.findings[0].message, /split\(\) returns 3 values in the target \(-> tuple\[int, int, int\]\), and this unpacks 2 as the baseline's did \(-> tuple\[int, int\]\)/);
    // without the class Other, nothing else may hold p: its call is decided too
    const alone = engine.check(code.replace('class Other(Planner):\n    def split(self):\n        return 1, 2', 'class Other:\n    pass\n'), 'user.py');
    assert.deepEqual(alone.findings.map((f) => f.range.start.line + 1), [4, 9, 10]);
  });

  it("the result of awaiting an async method unpacked into the baseline's number of names", async () => {
    const lib = (base: boolean): Record<string, string> => ({
      'pkg/__init__.py': '',
      'pkg/serving.py': ['class Serving:', `    async def prep(self) -> tuple[list, ${base ? 'list, list' : 'list'}]:`, `        return ${base ? '[], [], []' : '[], []'}`, ''].join('\n'),
    });
    const code = [
      'from pkg.serving import Serving', // 1
      'async def serve():', // 2
      '    a, b, c = await Serving().prep()', // 3: the await gives two now
      '    d, e, f = Serving().prep()', // 4: no await: a coroutine, not the tuple (another error)
      '',
    ].join('\n');
    const engine = await Engine.open({ targets: [tempTree(lib(false))], baseline: [tempTree(lib(true))] });
    const r = engine.check(code, 'user.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.callee}`), ['3:unpack-mismatch:pkg.serving.Serving.prep']);
  });

  it('a keyword that lands in **kwargs which the function hands on to a callable that no longer takes it', async () => {
    const lib = (v1: boolean) => ({
      'lib/__init__.py': '',
      'lib/engine.py': [
        'from dataclasses import dataclass',
        '@dataclass',
        'class Args:',
        '    model: str = ""',
        ...(v1 ? ['    task: str = "auto"'] : []),
        '    seed: int = 0',
        '',
        'class Runner:',
        '    def __init__(self, model, *, seed=0, **kwargs):',
        '        """Builds the arguments."""',
        '        if "seed" in kwargs:',
        '            raise ValueError(kwargs["seed"])',
        '        kwargs.pop("legacy", None)',
        '        def helper():',
        '            return 1',
        '        self.args = Args(model=model, seed=seed, **kwargs)',
        '',
        'def make(model, **kwargs):',
        '    return Runner(model, **kwargs)',
        '',
        'def branchy(model, **kwargs):',
        '    if model:',
        '        return Args(model=model, **kwargs)',
        '',
        'def early(model, **kwargs):',
        '    if not model:',
        '        return None',
        '    return Args(model=model, **kwargs)',
        '',
        'def rebound(model, **kwargs):',
        '    kwargs = dict(kwargs)',
        '    return Args(model=model, **kwargs)',
        '',
        'def kept(model, **kwargs):',
        '    keep(kwargs)',
        '    return Args(model=model, **kwargs)',
        '',
        'def keep(d):',
        '    d.pop("task", None)',
        '',
        'class Open:',
        '    def __init__(self, **kwargs):',
        '        self.kwargs = kwargs',
        '',
        'def to_open(**kwargs):',
        '    return Open(**kwargs)',
        '',
        'class Base:',
        `    def __init__(self, size, dtype=None${v1 ? ', task=None' : ''}):`,
        '        self.size = size',
        '',
        'class Layer(Base):',
        '    def __init__(self, size, *, bias=False, **kwargs):',
        '        super().__init__(size, **kwargs)',
        '',
        'class Mid(Base):',
        '    def __init__(self, size, **kwargs):',
        '        self.size = size',
        '',
        'class Both(Layer, Mid):',
        '    pass',
        '',
        'def make_layer(size, **kwargs):',
        '    return Layer(size, **kwargs)',
        '',
      ].join('\n'),
    });
    const code = [
      'from lib.engine import Runner, make, branchy, early, rebound, kept, to_open, Layer, Both, make_layer',
      'Runner("m", task="x")', // 2: Args no longer takes task
      'Runner("m", legacy=1)', // 3: taken out before it is handed on
      'make("m", task="x")', // 4: through Runner to Args
      'branchy("m", task="x")', // 5: handed on in one branch only
      'early("m", task="x")', // 6: the function may return first
      'rebound("m", task="x")', // 7: the dict is rebound
      'kept("m", task="x")', // 8: the dict goes elsewhere as a value
      'to_open(task="x")', // 9: the callable takes any keyword
      'Runner("m", seed=1)', // 10: a parameter of Runner
      'Layer(4, task="x", dtype=1)', // 11: super().__init__ is Base's, which no longer takes task
      'Both(4, task="x")', // 12: in a Both, super() in Layer reaches Mid, which takes any keyword
      'make_layer(4, task="x")', // 13: a function that builds a Layer: super() there is Base's
      'def run(params):', // 14
      '    return Runner(task="x", **params)', // 15: the model may come from params only: reported once
      '',
    ].join('\n');
    const base = tempTree(lib(true));
    const target = tempTree(lib(false));
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const r = engine.check(code, 'user.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param}`), ['2:unexpected-keyword:task', '4:unexpected-keyword:task', '11:unexpected-keyword:task', '13:unexpected-keyword:task', '15:unexpected-keyword:task']);
    assert.match(r.findings[0].message, /^Args\(\) got an unexpected keyword argument 'task': Runner\(\) passes it on with \*\*kwargs to Args\(\), which takes no such parameter/);
    assert.match(r.findings[1].message, /make\(\) to Runner\(\) pass it on with \*\*kwargs to Args\(\)/);
    // the baseline's Args had the field: what changed is said
    assert.equal(r.findings[0].change, '`Args.task` was removed');
    assert.match(r.findings[0].message, /which takes no such parameter \(`Args\.task` was removed\)\. Target signature/);
    // the fix drops the keyword
    assert.equal(applyEdits(code, r.findings[0].fixes[0].edits).split('\n')[1], 'Runner("m")');
    // the version the code was written for takes it
    assert.deepEqual((await Engine.open({ targets: [base] })).check(code, 'user.py').findings, []);
  });

  it('the keys of a local dict, bound once to literal keys and only read, are the keywords ** hands in', async () => {
    const lib = { 'lib/__init__.py': '', 'lib/m.py': ['def run(*, a=1, b=2):', '    return a + b', ''].join('\n') };
    const code = [
      'from lib.m import run',
      'def main(x):',
      '    opts = {"a": 1, "c": 3}',
      '    run(**opts)', // 4: c is no parameter
      '    more = dict(a=1, d=4)',
      '    run(**more)', // 6: d is no parameter
      '    grown = {"a": 1}',
      '    grown["c"] = 3',
      '    run(**grown)', // 9: the dict changes
      '    shown = {"c": 3}',
      '    log(shown)',
      '    run(**shown)', // 12: the dict is handed on as a value
      '    read = {"a": 1}',
      '    if "a" in read and read.get("a"):',
      '        run(**read, b=read["a"])', // 15: binds
      '    twice = {"a": 1}',
      '    twice = {"c": 1}',
      '    run(**twice)', // 18: bound twice
      '    gone = {"c": 1}',
      '    del gone["c"]',
      '    run(**gone)', // 21: a key taken out
      'def log(d):',
      '    pass',
      '',
    ].join('\n');
    const r = await checkAgainst(lib, code);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param}`), ['4:unexpected-keyword:c', '6:unexpected-keyword:d']);
    // the fix would take out the whole dict: none is offered
    assert.deepEqual(r.findings.map((f) => f.fixes.length), [0, 0]);
  });

  it('a local dict whose keys are set by literal subscripts may hold those keys only: a required parameter none of them names is missing', async () => {
    const lib = { 'lib/__init__.py': '', 'lib/m.py': ['def serve(engine, *, render, model=None):', '    return engine', ''].join('\n') };
    const code = [
      'from lib.m import serve',
      'def main(engine, old, extra):',
      '    kw = {}',
      '    if old:',
      '        kw["model"] = 1',
      '    serve(engine, **kw)', // 6: render can come from nowhere
      '    kw2 = {}',
      '    if not old:',
      '        kw2["render"] = 2',
      '    serve(engine, **kw2)', // 10: render may be there
      '    kw3 = {}',
      '    kw3[extra] = 1',
      '    serve(engine, **kw3)', // 13: a key the engine cannot read
      '    serve(engine, **extra)', // 14: a dict from outside
      '',
    ].join('\n');
    const r = await checkAgainst(lib, code);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param}`), ['6:missing-argument:render']);
    // where only the unpacked arguments may give `render`, the call is not decided: unknown, not checked
    for (const line of [10, 13, 14]) {
      const c = r.calls.find((x) => x.range.start.line + 1 === line);
      assert.equal(c?.status, 'unknown', `line ${line}`);
      assert.match(c?.unknownReason ?? '', /unpacked arguments .*`render`/);
    }
  });

  it('super() reaches through a base that a registry decorates and hands back, but not through one whose decorator sets that method', async () => {
    const lib = {
      'lib/__init__.py': '',
      'lib/ops.py': [
        'class CustomOp:',
        '    registry = {}',
        '    @classmethod',
        '    def register(cls, name):',
        '        def decorator(op_cls):',
        '            op_cls.name = name',
        '            cls.registry[name] = op_cls',
        '            return op_cls',
        '        return decorator',
        '',
        'def patch_load(cls):',
        '    cls.load = lambda self, *a: None',
        '    return cls',
        '',
        '@CustomOp.register("norm")',
        'class Norm(CustomOp):',
        '    def load(self, layer):',
        '        pass',
        '',
        '@patch_load',
        'class Patched(CustomOp):',
        '    def load(self, layer):',
        '        pass',
        '',
      ].join('\n'),
    };
    const code = [
      'from lib.ops import Norm, Patched', // 1
      'class MyNorm(Norm):', // 2
      '    def load(self, layer):', // 3
      '        super().load(layer, 1)', // 4: Norm.load takes one argument
      'class MyPatched(Patched):', // 5
      '    def load(self, layer):', // 6
      '        super().load(layer, 1)', // 7: the decorator replaced load
      '',
    ].join('\n');
    const r = await checkAgainst(lib, code);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['4:too-many-positional']);
  });

  it('treats an import under contextlib.suppress(ImportError) as guarded', async () => {
    const r = await checkAgainst({ 'pkg/__init__.py': '', 'pkg/a.py': '' }, 'import contextlib\nwith contextlib.suppress(ImportError):\n    import pkg.gone\nimport pkg.lost\n');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.callee}`), ['4:unknown-module:pkg.lost']);
  });

  it('evaluates a module __getattr__ that answers from globals(): other names are missing', async () => {
    const r = await result();
    assert.deepEqual(on(r, [5]), ['5:unknown-import:recall.platforms._Legacy']);
    const s = summaryOf('recall/platforms/__init__.py', 'recall.platforms');
    assert.equal(s.dynamic, false, 'a globals() write guarded by `name in globals()` adds no name');
    assert.ok(s.getattr.kind === 'names' && s.getattr.names.has('current'));
  });

  it('leaves a __getattr__ that computes names alone', async () => {
    const r = await result();
    assert.deepEqual(on(r, [7]), []);
    assert.equal(summaryOf('recall/utils/computed.py', 'recall.utils.computed').getattr.kind, 'opaque');
  });

  it('follows a table-driven __getattr__ to the module it imports from', async () => {
    const r = await result();
    assert.deepEqual(on(r, [30]), ['30:unexpected-keyword:old_field']);
  });

  it('gives a deprecated hint with a fix for a name served by a deprecation shim, and checks calls through it', async () => {
    const r = await result();
    assert.deepEqual(on(r, [6, 24]), ['24:missing-argument:host', '6:deprecated:recall.utils.get_port']);
    const hint = r.findings.find((f) => f.code === 'deprecated')!;
    assert.equal(hint.severity, 'hint');
    assert.match(hint.message, /recall\.utils\.get_port is deprecated\. Use recall\.utils\.network\.get_port instead; import it from `recall\.utils\.network`/);
    const fixed = applyEdits(TEXT, hint.fixes[0].edits);
    assert.equal(fixed.split('\n')[5], 'from recall.utils.network import get_port');
  });

  it('gives the same hint for the attribute form (module.name) of a name a deprecation shim serves', async () => {
    const engine = await Engine.open({ targets: [V2] });
    const r = engine.check('import recall.utils\nrecall.utils.get_port()\n', 'attr.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param ?? f.callee}`).sort(), ['2:deprecated:recall.utils.get_port', '2:missing-argument:host']);
    assert.match(r.findings.find((f) => f.code === 'deprecated')!.message, /recall\.utils\.get_port is deprecated in the target: .*; it lives in `recall\.utils\.network`/);
  });

  it('gives no deprecated hint for an import or attribute written for another version (an ImportError fallback, a version test)', async () => {
    const engine = await Engine.open({ targets: [V2] });
    const code = [
      'try:',
      '    from recall.utils.network import get_port',
      'except ImportError:',
      '    from recall.utils import get_port',
      'import sys',
      'import recall.utils',
      'if sys.version_info < (3, 9):',
      '    from recall.utils import get_port as old_port',
      '    recall.utils.get_port',
      'try:',
      '    from recall.utils import get_port as tried',
      'except ImportError:',
      '    tried = None',
      '',
    ].join('\n');
    const r = engine.check(code, 'fallback.py');
    // the import tried first runs on the target: its hint stays
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['11:deprecated']);
  });

  it('follows the branch of an availability test that runs where the target is installed, and not a test it cannot read', async () => {
    const lib = { 'lib/__init__.py': '', 'lib/api.py': 'def get(x):\n    return x\n\nclass Loader:\n    def load(self, source):\n        return source\n' };
    const code = [
      'from importlib.util import find_spec',
      'if find_spec("lib") is not None:',
      '    from lib.api import get',
      'else:',
      '    get = None',
      'if not is_package_available("lib"):',
      '    Loader = object',
      'else:',
      '    from lib.api import Loader',
      'if importlib.util.find_spec("other_pkg"):',
      '    from other_pkg import get as other',
      'else:',
      '    from lib.api import get as other',
      'if is_package_available("lib", "2.0"):',
      '    from lib.api import get as versioned',
      'else:',
      '    def versioned(a, b): ...',
      'get(1, 2)',
      'Loader().load()',
      'other(1, 2)',
      'versioned(1, 2)',
      '',
    ].join('\n');
    const r = await checkAgainst(lib, code);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['18:too-many-positional', '19:missing-argument']);
    // a module the target lacks may be installed or not: `other` may be the user's own; a test
    // with more than the module's name is not read: `versioned` may be the def, which binds
    assert.deepEqual(r.calls.filter((c) => c.range.start.line + 1 === 20), []);
  });

  it('reports a missing required field through validators that pass their input on, and not through one that fills it', async () => {
    const r = await result();
    // a logging wrap validator and a checking before validator: the field is still missing
    assert.deepEqual(on(r, [25, 26]), ['25:missing-argument:error', '26:missing-argument:name']);
    // a before validator that writes the field, a wrap validator that retries with other input or rebinds it
    assert.deepEqual(on(r, [27, 28, 29]), []);
    const s = summaryOf('recall/protocol.py', 'recall.protocol');
    const method = (cls: string, name: string): FunctionInfo => {
      const b = s.bindings.get(cls)?.[0];
      assert.ok(b && b.kind === 'class');
      const m = b.cls.members.get(name)?.[0];
      assert.ok(m && m.kind === 'def');
      return m.fn;
    };
    assert.equal(method('Base', 'log_extra').passesInput, true);
    assert.equal(method('Checked', 'check').passesInput, true);
    for (const [cls, name] of [['Filled', 'fill'], ['Guarded', 'default'], ['Prepared', 'prepare']]) assert.equal(method(cls, name).passesInput, undefined, `${cls}.${name}`);
  });

  it("sees through a wrapper that takes the function's own first parameters before *args and hands them all on", async () => {
    const lib = {
      'wlib/__init__.py': '',
      'wlib/deco.py': [
        'from functools import wraps',
        '',
        'def reloadable(fn):',
        '    @wraps(fn)',
        '    def wrapped(self, weights, *args, **kwargs):',
        '        if not getattr(self, "reload", False):',
        '            return fn(self, weights, *args, **kwargs)',
        '        out = fn(self, weights, *args, **kwargs)',
        '        return out',
        '    return wrapped',
        '',
        'def extra(fn):',
        '    def wrapped(self, weights, *args, **kwargs):',
        '        return fn(self, weights, 1, *args, **kwargs)',
        '    return wrapped',
        '',
        'def renamed(fn):',
        '    def wrapped(self, w, *args, **kwargs):',
        '        return fn(self, w, *args, **kwargs)',
        '    return wrapped',
        '',
        'def plus(fn):',
        '    def wrapped(*args, **kwargs):',
        '        return fn(*args, 1, **kwargs)',
        '    return wrapped',
        '',
        'def defaulted(fn):',
        '    def wrapped(self, weights=None, *args, **kwargs):',
        '        return fn(self, weights, *args, **kwargs)',
        '    return wrapped',
        '',
      ].join('\n'),
      'wlib/loader.py': [
        'from wlib.deco import reloadable, extra, renamed, defaulted, plus',
        '',
        'class Loader:',
        '    @reloadable',
        '    def load(self, weights, strict):',
        '        pass',
        '',
        '    @extra',
        '    def load_extra(self, weights, strict):',
        '        pass',
        '',
        '    @renamed',
        '    def load_renamed(self, weights, strict):',
        '        pass',
        '',
        '    @plus',
        '    def load_plus(self, weights, strict):',
        '        pass',
        '',
        '    @defaulted',
        '    def load_defaulted(self, weights, strict):',
        '        pass',
        '',
      ].join('\n'),
    };
    const code = [
      'from wlib.loader import Loader',
      'l = Loader()',
      'l.load([], strict=True, bogus=1)',
      'l.load([])',
      'l.load([], True)',
      'l.load_extra([], strict=True, bogus=1)',
      'l.load_renamed([], strict=True, bogus=1)',
      'l.load_defaulted([], strict=True, bogus=1)',
      'l.load_plus([], strict=True, bogus=1)',
      '',
    ].join('\n');
    const r = await checkAgainst(lib, code);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort(), ['3:unexpected-keyword', '4:missing-argument']);
    assert.equal(callAt(r, 5).status ?? 'checked', 'checked');
    // the wrapper adds an argument, names its parameter otherwise, or gives it a default: not followed
    for (const line of [6, 7, 8, 9]) assert.match(callAt(r, line).unknownReason ?? '', /may change the signature/, `line ${line}`);
  });
});
