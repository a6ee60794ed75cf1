/**
 * Method calls: receivers followed through `self`, instance attributes, locals, parameters and
 * return annotations, with virtual dispatch (SEMANTICS.md section F). A fake library in two
 * versions (test/fixtures/receivers/v1 and v2) and a user file written for v1 whose lines say
 * what checking against v2 must give; against v1 the same file must give nothing at all.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { PROJECT_PENDING } from '../../server/src/engine/check/check';
import { brief, checkAgainst, FIXTURES, tempTree } from '../helpers';

const DIR = path.join(FIXTURES, 'receivers');
const USER = fs.readFileSync(path.join(DIR, 'user.py'), 'utf8');

async function checkWith(version: 'v1' | 'v2', text = USER): Promise<CheckResult> {
  const engine = await Engine.open({ targets: [path.join(DIR, version)] });
  return engine.check(text, 'user.py');
}

/** A library with a Session class (with `withFast`, a subclass whose run takes two) and a function without a return annotation whose value the engine cannot follow (not the value of a call). */
function sessionLib(withFast: boolean): Record<string, string> {
  const fast = withFast ? ['class Fast(Session):', '    def run(self, n, m):', '        return n', '', ''] : [];
  return { 'slib/__init__.py': '', 'slib/core.py': ['class Session:', '    def run(self, n):', '        return n', '', '', ...fast, '_OPEN = []', '', '', 'def open_session():', '    return _OPEN[-1]', ''].join('\n') };
}

/** What each marked line of the user file expects: `expect: CODE`, `checked`, `unknown`, `untraced`. */
function marks(text: string): Map<number, string> {
  const out = new Map<number, string>();
  text.split('\n').forEach((line, i) => {
    const m = /#\s*(expect: [\w-]+|checked|unknown|untraced)\s*$/.exec(line);
    if (m) out.set(i + 1, m[1]);
  });
  return out;
}

describe('receivers', () => {
  it('reports exactly the marked method calls that no longer bind, and nothing else', async () => {
    const r = await checkWith('v2');
    const expected = [...marks(USER)].filter(([, m]) => m.startsWith('expect: ')).map(([line, m]) => `${line}:${m.slice(8)}`);
    const found = r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`);
    assert.deepEqual(found.sort(), expected.sort());
    assert.ok(expected.length >= 15, `${expected.length} expected findings`);
  });

  it('gives every marked call the status it says, with a reason when it is left open', async () => {
    const r = await checkWith('v2');
    for (const [line, m] of marks(USER)) {
      const calls = r.calls.filter((c) => c.range.start.line + 1 === line);
      assert.equal(calls.length, 1, `line ${line}: ${JSON.stringify(calls)}`);
      const status = calls[0].status ?? 'checked';
      if (m.startsWith('expect: ')) assert.equal(status, 'checked', `line ${line}`);
      else assert.equal(status, m, `line ${line}: ${calls[0].unknownReason}`);
      if (status !== 'checked') assert.ok(calls[0].unknownReason, `line ${line} has a reason`);
    }
    assert.equal(r.callsUntraced, r.calls.filter((c) => c.status === 'untraced').length);
    assert.ok((r.callsUntraced ?? 0) >= 3);
  });

  it('finds nothing against the version the file was written for, and checks the same calls', async () => {
    const r = await checkWith('v1');
    assert.deepEqual(r.findings, []);
    const checked = [...marks(USER)].filter(([, m]) => m === 'checked' || m.startsWith('expect: ')).map(([line]) => line);
    for (const line of checked) assert.ok(r.calls.some((c) => c.range.start.line + 1 === line && (c.status ?? 'checked') === 'checked'), `line ${line} checked against v1`);
  });

  it('the reasons to stay unknown', async () => {
    const r = await checkWith('v2');
    const reasonAt = (needle: string): string => {
      const line = USER.split('\n').findIndex((l) => l.includes(needle)) + 1;
      return r.calls.find((c) => c.range.start.line + 1 === line)?.unknownReason ?? '';
    };
    // an override in a subclass binds the call differently (target subclass, user subclass)
    assert.match(reasonAt('e.shutdown()'), /RayExecutor\.shutdown overrides it/);
    assert.match(reasonAt('e.collective_rpc("ping"'), /MyExecutor\.collective_rpc overrides it/);
    // assignments of two classes whose methods bind the call differently
    assert.match(reasonAt('self.helper.help()'), /HelperA or HelperB, whose help bind the call differently/);
    // an instance attribute that shadows the method
    assert.match(reasonAt('self.execute(out)'), /instances also assign/);
    // super() in a class whose subclass mixes in another base reaches another method
    assert.match(reasonAt('super()._prepare_inputs(out)'), /in MixedRunner, super\(\) after SuperRunner reaches another _prepare_inputs/);
    // an attribute only ever set to None
    assert.match(reasonAt('self.pending.schedule()'), /only None is assigned to pending/);
    // a Protocol: any class with the right methods may stand for it
    assert.match(reasonAt('worker.execute(1, 2)'), /Protocol/);
  });

  it('a subclass in the user file that overrides the method alike keeps the call checked', async () => {
    const same = USER.replace('def collective_rpc(self, method, unique_reply_rank=None):', 'def collective_rpc(self, method, timeout=None, args=(), kwargs=None):');
    const r = await checkWith('v2', same);
    const line = same.split('\n').findIndex((l) => l.includes('e.collective_rpc("ping"')) + 1;
    assert.ok(r.findings.some((f) => f.range.start.line + 1 === line && f.code === 'unexpected-keyword'));
  });

  it('a local rebound to another class, or set in a loop, is not followed', async () => {
    const text = [
      'from rlib.runner import Scheduler, Session',
      'def f(cfg, xs):',
      '    s = Scheduler(cfg, 1)',
      '    s = Session()',
      '    s.schedule(1)',
      '    for t in xs:',
      '        t.schedule(1)',
      '',
    ].join('\n');
    const r = await checkWith('v2', text);
    assert.deepEqual(r.findings, []);
  });

  it('self in a static method is not an instance; in a classmethod it is the class, whose functions take self explicitly', async () => {
    const text = [
      'from rlib.runner import ModelRunner',
      'class R(ModelRunner):',
      '    @staticmethod',
      '    def a(self):',
      '        self._prepare_inputs(1)',
      '    @classmethod',
      '    def b(self):',
      '        self._prepare_inputs(1)',
      '    def c(self):',
      '        self._prepare_inputs(1)',
      '',
    ].join('\n');
    const r = await checkWith('v2', text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['8:missing-argument', '10:missing-argument']);
    // through the class, 1 is `self` and both other parameters are missing
    assert.match(r.findings[0].message, /missing 2 required positional arguments/);
  });

  it("the user's own modules: a class derived from a target class, imported from another module, is checked where it is built and called", async () => {
    const proj = tempTree({
      'myapp/__init__.py': '',
      'myapp/serving.py': ['from rlib.runner import Scheduler', '', '', 'class MyScheduler(Scheduler):', '    def extra(self):', '        return 1', ''].join('\n'),
      // a user package named like nothing in the target; a plain folder is no package
      'notes/readme.txt': '',
    });
    const text = ['from myapp.serving import MyScheduler', 'from myapp import serving', 'import notes', 's = MyScheduler(None)', 's.finish_requests([1], 2, 3)', 's.extra(1)', 'serving.MyScheduler(None, 16, 3)', ''].join('\n');
    try {
      const withRoot = await Engine.open({ targets: [path.join(DIR, 'v2')], sourceRoots: [proj] });
      const r = withRoot.check(text, path.join(proj, 'main.py'));
      assert.deepEqual(
        r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`),
        ['4:missing-argument', '5:too-many-positional', '7:too-many-positional'],
      );
      // without the folder the user's classes are not followed, and nothing is reported
      const without = await Engine.open({ targets: [path.join(DIR, 'v2')] });
      assert.deepEqual(without.check(text, path.join(proj, 'main.py')).findings, []);
    } finally {
      fs.rmSync(proj, { recursive: true, force: true });
    }
  });

  it("calls on what the user's own modules give are not the target's: they are not counted as untraced, unless the value is the target's", async () => {
    const lib = tempTree({ 'olib/__init__.py': '', 'olib/make.py': 'def make():\n    return build()\n' });
    const proj = tempTree({
      'myutil/__init__.py': '',
      'myutil/funcs.py': ['from olib.make import make', '', '', 'def mine():', '    return [1]', ''].join('\n'),
    });
    const text = ['from myutil import funcs', 'a = funcs.mine()', 'a.append(1)', 'funcs.mine().count(1)', 'funcs.mine.cache_clear()', 'b = funcs.make()', 'b.run(1)', 'funcs.make().run(2)', ''].join('\n');
    try {
      const engine = await Engine.open({ targets: [lib], sourceRoots: [proj] });
      const r = engine.check(text, path.join(proj, 'main.py'));
      const untraced = r.calls.filter((c) => c.status === 'untraced').map((c) => `${c.range.start.line + 1}:${c.callee}`);
      assert.deepEqual(untraced, ['7:b.run', '8:funcs.make().run']);
    } finally {
      fs.rmSync(proj, { recursive: true, force: true });
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });

  it('an attribute the target declares of a builtin class, and assigns values the engine cannot follow, is of that class: calls on it are not counted', async () => {
    const lib = tempTree({
      'olib/__init__.py': '',
      'olib/req.py': [
        'class Request:',
        '    def __init__(self, args, runner):',
        '        self.params: dict[str, int] | None = None',
        '        self.params = args.get("params")',
        '        self.runner = None',
        '        self.runner = runner.pick()',
        '',
      ].join('\n'),
    });
    try {
      const engine = await Engine.open({ targets: [lib] });
      const text = ['from olib.req import Request', 'def f(r: Request):', '    r.params.get("y")', '    r.runner.go(1)', ''].join('\n');
      const untraced = engine.check(text, 'user.py').calls.filter((c) => c.status === 'untraced').map((c) => `${c.range.start.line + 1}:${c.callee}`);
      // the runner, assigned without a declaration, may be anything, the library's own objects too
      assert.deepEqual(untraced, ['4:r.runner.go']);
    } finally {
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });

  it("a plain class's annotation that names a class the engine cannot see says less than what the MRO assigns; a dataclass's field does not", async () => {
    const lib = {
      'elib/__init__.py': '',
      'elib/engine.py': ['class Engine:', '    def generate(self, prompt, params=None):', '        return prompt', '', '    @classmethod', '    def build(cls, args) -> "Engine":', '        return cls()', ''].join('\n'),
    };
    const user = (decorator: string): string =>
      [
        'from dataclasses import dataclass',
        'from typing import Union',
        'from elib.engine import Engine',
        'from elsewhere import Model',
        '',
        decorator,
        'class Base:',
        '    model: Union["Model", "Engine"]',
        '',
        'class Runner(Base):',
        '    def __init__(self, args):',
        '        self.model = Engine.build(args)',
        '',
        '    def go(self):',
        '        return self.model.generate("p", bogus=1)',
        '',
      ].join('\n');
    const at = (r: CheckResult): string[] => r.calls.filter((c) => c.range.start.line === 14).map((c) => `${c.status ?? 'checked'}:${c.callee}`);
    // every assignment along Runner's MRO builds an Engine: the union only declares the attribute
    const plain = await checkAgainst(lib, user('# a plain class'));
    assert.deepEqual(plain.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['15:unexpected-keyword']);
    // a dataclass's constructor may store a Model there
    const fields = await checkAgainst(lib, user('@dataclass'));
    assert.deepEqual(fields.findings, []);
    assert.notDeepEqual(at(fields), at(plain));
  });

  it('what a method returns when it says it returns its own class is of that class or a subclass, not a look-alike of the user; a parameter so annotated may hold one', async () => {
    const lib = {
      'flib/__init__.py': '',
      'flib/engine.py': ['class Engine:', '    def generate(self, prompt, params=None):', '        return prompt', '', '    @classmethod', '    def create(cls, args) -> "Engine":', '        return cls()', ''].join('\n'),
    };
    const text = [
      'from flib.engine import Engine',
      '',
      'class Server:',
      '    def generate(self, a, b, c, bogus):',
      '        return a',
      '',
      'def run(args):',
      '    e = Engine.create(args)',
      '    e.generate("p", bogus=1)',
      '',
      'def serve(e: Engine):',
      '    e.generate("p", bogus=1)',
      '',
    ].join('\n');
    const r = await checkAgainst(lib, text);
    // Engine.create builds an Engine (or an instance of a subclass): Server's generate is no concern
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['9:unexpected-keyword']);
    // a parameter's annotation is not enforced: a Server may be passed, whose generate takes `bogus`
    const serve = r.calls.find((c) => c.range.start.line === 11);
    assert.equal(serve?.status, 'unknown');
    assert.match(serve?.unknownReason ?? '', /Server/);
  });

  it('an isinstance test above a call (assert, an if around it, an early raise) makes the name an instance of that class or a subclass; a name bound again since is not followed', async () => {
    const lib = {
      'flib/__init__.py': '',
      'flib/load.py': [
        'class Base:',
        '    pass',
        '',
        'class Loader(Base):',
        '    def load(self, source):',
        '        return source',
        '',
        'class Fancy(Loader):',
        '    def load(self, source, extra):',
        '        return source',
        '',
        'class Other(Base):',
        '    def read(self, n):',
        '        return n',
        '',
        'def get_loader() -> Base:',
        '    return Loader()',
        '',
      ].join('\n'),
    };
    const text = [
      'from flib.load import Base, Loader, Other, get_loader',
      '',
      'def a():',
      '    x = get_loader()',
      '    assert isinstance(x, Other)',
      '    x.read(1, 2)',
      '',
      'def b(x: Base):',
      '    if isinstance(x, Other):',
      '        x.read()',
      '    if not isinstance(x, Other):',
      '        raise TypeError(x)',
      '    x.read(1, 2, 3)',
      '',
      'def c(x: Base, items):',
      '    for i in items:',
      '        if not isinstance(x, Other):',
      '            continue',
      '        x.read(n=1, m=2)',
      '',
      'def rebound(y: Base):',
      '    assert isinstance(y, Other)',
      '    y = get_loader()',
      '    y.read(1, 2)',
      '',
      'def looped(y: Base, items):',
      '    assert isinstance(y, Other)',
      '    for i in items:',
      '        y.read(1, 2)',
      '        y = i',
      '',
      'def handled(y: Base):',
      '    assert isinstance(y, Other)',
      '    try:',
      '        y = get_loader()',
      '    except Exception:',
      '        y.read(1, 2)',
      '',
      'def shadowed(y: Base):',
      '    Other = Loader',
      '    assert isinstance(y, Other)',
      '    y.read(1, 2)',
      '',
      'def tupled(y: Base):',
      '    assert isinstance(y, (Other, Loader))',
      '    y.read(1, 2)',
      '',
      'def virtual(y: Base):',
      '    assert isinstance(y, Loader)',
      '    y.load(1, 2)',
      '',
    ].join('\n');
    const r = await checkAgainst(lib, text);
    assert.deepEqual(brief(r), ['6:too-many-positional:', '10:missing-argument:n', '13:too-many-positional:', '19:unexpected-keyword:m']);
    // rebound, looped, handled, shadowed and tupled: Base has no read, the call is not decided
    // (a name bound several ways in its function is not counted at all)
    for (const line of [24, 29, 37, 42, 46]) {
      const call = r.calls.find((c) => c.range.start.line + 1 === line);
      assert.notEqual(call ? (call.status ?? 'checked') : 'not counted', 'checked', `line ${line}`);
    }
    // a Loader may be a Fancy, whose load takes two: the call binds on one of them
    const virtual = r.calls.find((c) => c.range.start.line + 1 === 50);
    assert.equal(virtual?.status, 'unknown');
    assert.match(virtual?.unknownReason ?? '', /Fancy/);
  });

  it('a classmethod without a return annotation that returns what cls(...) builds is an alternative constructor; one that may return something else is not', async () => {
    const lib = {
      'hlib/__init__.py': '',
      'hlib/args.py': [
        'class Args:',
        '    def __init__(self, model, dtype="auto"):',
        '        self.model = model',
        '',
        '    @classmethod',
        '    def from_cli(cls, ns):',
        '        args = cls(',
        '            model=ns.model,',
        '        )',
        '        return args',
        '',
        '    @classmethod',
        '    def either(cls, ns):',
        '        return cls(ns.model) or ns',
        '',
        '    @classmethod',
        '    def rebound(cls, ns):',
        '        args = cls(ns.model)',
        '        args = ns',
        '        return args',
        '',
        '    def build(self, usage):',
        '        return usage',
        '',
      ].join('\n'),
    };
    const text = ['from hlib.args import Args', '', 'def run(ns):', '    Args.from_cli(ns).build(1, 2)', '    Args.either(ns).build(1, 2)', '    Args.rebound(ns).build(1, 2)', ''].join('\n');
    const r = await checkAgainst(lib, text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['4:too-many-positional']);
    const status = (line: number): string | undefined => r.calls.find((c) => c.range.start.line === line - 1 && /build/.test(c.callee))?.status;
    assert.notEqual(status(5), 'checked');
    assert.notEqual(status(6), 'checked');
  });

  it("a call on what is read off the target's instance, through the user's own object, is counted as untraced when its class is not known", async () => {
    const lib = {
      'ilib/__init__.py': '',
      'ilib/engine.py': ['_MADE = []', '', '', 'def make():', '    return _MADE[-1]', '', '', 'class Engine:', '    def __init__(self):', '        self.core = make()', ''].join('\n'),
    };
    const text = [
      'from ilib.engine import Engine',
      '',
      'class Generation:',
      '    def __init__(self):',
      '        self.llm = Engine()',
      '',
      '    def sync(self, weights):',
      '        model = self.llm.core.runner.model',
      '        model.load_weights(weights)',
      '        self.llm.core.reset(1)',
      '        self.local.reset(1)',
      '',
    ].join('\n');
    const r = await checkAgainst(lib, text);
    const listed = r.calls.map((c) => `${c.range.start.line + 1}:${c.status ?? 'checked'}`);
    // the user's own attribute `self.local` comes from nowhere the engine knows: not counted
    assert.deepEqual(listed, ['5:checked', '9:untraced', '10:untraced']);
    assert.equal(r.callsUntraced, 2);
  });

  it('a function without a return annotation whose every return gives one call returns what that call returns; one that returns two different calls is not followed', async () => {
    const lib = {
      'jlib/__init__.py': '',
      'jlib/engine.py': [
        'class Engine:',
        '    def generate(self, prompt):',
        '        return prompt',
        '',
        '',
        'class Other:',
        '    def generate(self, prompt, bogus):',
        '        return prompt',
        '',
        '',
        'def make_engine():',
        '    engine = Engine()',
        '    return engine',
        '',
        '',
        'def choose(flag):',
        '    if flag:',
        '        return Engine()',
        '    return Other()',
        '',
      ].join('\n'),
    };
    const text = [
      'from jlib.engine import Engine, choose, make_engine',
      '',
      'class Base:',
      '    def __init__(self):',
      '        self.llm = self._create()',
      '',
      'class Sync(Base):',
      '    def _create(self):',
      '        return Engine()',
      '',
      '    def go(self):',
      '        self.llm.generate("p", bogus=1)',
      '',
      'def run():',
      '    make_engine().generate("p", bogus=1)',
      '    choose(True).generate("p", bogus=1)',
      '',
    ].join('\n');
    const r = await checkAgainst(lib, text);
    // Sync's own `_create` builds an Engine, and so does make_engine (through a local)
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort(), ['12:unexpected-keyword', '15:unexpected-keyword']);
    assert.notEqual(r.calls.find((c) => c.range.start.line === 15 && /generate/.test(c.callee))?.status ?? 'none', 'checked');
  });

  it('a backslash that continues a line inside the brackets of a call is no argument', async () => {
    const lib = { 'klib/__init__.py': ['class Loader:', '    def load(self, module, *, pattern=None):', '        return module', '', '', 'def make():', '    loader = Loader()', '    return loader', ''].join('\n') };
    const text = ['from klib import make', '', 'def f(m):', '    make().load(\\', '        m)', '    make().load(\\', '        m, m)', ''].join('\n');
    const r = await checkAgainst(lib, text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['7:too-many-positional']);
    assert.match(r.findings[0].message, /takes 1 positional argument but 2 were given/);
  });

  it("under a class decorator the engine cannot see into, what the class's methods store on the instance is followed; its methods and fields are not", async () => {
    const lib = {
      'glib/__init__.py': '',
      'glib/engine.py': ['class Engine:', '    def generate(self, prompt, params=None):', '        return prompt', '', '', 'class Worker:', '    def step(self, n):', '        return n', ''].join('\n'),
    };
    const text = [
      'from elsewhere import remote',
      'from glib.engine import Engine, Worker',
      '',
      '@remote',
      'class Actor(Worker):',
      '    cached: Engine',
      '',
      '    def __init__(self):',
      '        self.engine = Engine()',
      '        self.cached = Engine()',
      '',
      '    def go(self):',
      '        self.engine.generate("p", bogus=1)',
      '        self.cached.generate("p", bogus=1)',
      '        self.step(1, 2)',
      '',
    ].join('\n');
    const r = await checkAgainst(lib, text);
    // the decorator may put another class in Actor's place, which may wrap `step` or make
    // `cached` a field it converts; `self.engine` is what __init__ stores there
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['13:unexpected-keyword']);
    const undecorated = await checkAgainst(lib, text.replace('@remote\n', ''));
    assert.deepEqual(undecorated.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort(), ['12:unexpected-keyword', '13:unexpected-keyword', '14:too-many-positional']);
  });

  it("a user file inside the user's folders resolves its relative imports", async () => {
    const proj = tempTree({
      'src/myapp/__init__.py': '',
      'src/myapp/serving.py': ['from rlib.runner import Scheduler', '', '', 'class MyScheduler(Scheduler):', '    pass', ''].join('\n'),
    });
    const text = ['from .serving import MyScheduler', 'from . import serving', 'MyScheduler(None)', 'serving.MyScheduler(None, 16, 3)', ''].join('\n');
    try {
      const engine = await Engine.open({ targets: [path.join(DIR, 'v2')], sourceRoots: [proj, path.join(proj, 'src')] });
      const r = engine.check(text, path.join(proj, 'src', 'myapp', 'main.py'));
      assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['3:missing-argument', '4:too-many-positional']);
      // outside the user's folders the file is a script: its relative imports are not followed
      const outside = await Engine.open({ targets: [path.join(DIR, 'v2')] });
      assert.deepEqual(outside.check(text, path.join(proj, 'src', 'myapp', 'main.py')).findings, []);
    } finally {
      fs.rmSync(proj, { recursive: true, force: true });
    }
  });

  it("the project's other files, as they change, decide virtual dispatch in an editor's engine; while they are read such calls stay unknown", async () => {
    const engine = await Engine.open({ targets: [path.join(DIR, 'v2')], incremental: true });
    const text = ['from rlib.runner import ModelRunner', '', '', 'class Base(ModelRunner):', '    def step(self, out):', '        self._prepare_inputs(out)', ''].join('\n');
    const statusOf = (): string => {
      const c = engine.check(text, '/proj/base.py').calls.find((x) => x.range.start.line === 5)!;
      return `${c.status ?? 'checked'}${c.unknownReason ? ': ' + c.unknownReason : ''}`;
    };
    assert.equal(statusOf(), 'checked');
    engine.projectPending = true;
    assert.match(statusOf(), /^unknown: the project's other files are still being read/);
    engine.projectPending = false;
    // a subclass in another file overrides _prepare_inputs another way
    const sub = ['from base import Base', '', '', 'class Sub(Base):', '    def _prepare_inputs(self, out):', '        return out', ''].join('\n');
    engine.setProjectFiles([{ file: '/proj/sub.py', text: sub }]);
    assert.match(statusOf(), /^unknown: Sub\._prepare_inputs overrides it/);
    // the same file saved again without a change of its classes, then removed
    engine.setProjectFiles([{ file: '/proj/sub.py', text: sub + '\n' }]);
    assert.match(statusOf(), /^unknown: Sub\._prepare_inputs overrides it/);
    engine.setProjectFiles([{ file: '/proj/sub.py' }]);
    assert.equal(statusOf(), 'checked');
  });

  it("an editor's file is checked again after the project's files are read only where another file changed what it sees", async () => {
    const engine = await Engine.open({ targets: [path.join(DIR, 'v2')], incremental: true });
    const base = ['from rlib.runner import ModelRunner', '', '', 'class Base(ModelRunner):', '    def step(self, out):', '        self._prepare_inputs(out)', '', '    def other(self):', '        return 1', ''].join('\n');
    const file = '/proj/base.py';
    const view = engine.projectViewOf(file);
    engine.projectPending = true;
    const pending = engine.check(base, file);
    assert.equal(pending.calls.find((c) => c.range.start.line === 5)?.unknownReason, PROJECT_PENDING);
    // the project's files are read: only the file itself, as it is on disk
    engine.setProjectFiles([{ file, text: base }]);
    engine.projectPending = false;
    assert.equal(engine.projectViewOf(file), view);
    // the statement that waited is checked again, the rest is reused
    const after = engine.check(base, file);
    const call = after.calls.find((c) => c.range.start.line === 5);
    assert.ok(call && call.status === undefined && call.unknownReason === undefined, 'the call that waited is checked');
    assert.ok((after.reused ?? 0) > 0, 'statements that did not wait are reused');
    assert.ok((after.timing?.unitsChecked ?? 0) > 0, 'the statement that waited is checked again');
    assert.deepEqual(after.findings, (await Engine.open({ targets: [path.join(DIR, 'v2')] })).check(base, file).findings);
    // another file's classes change what it sees: nothing is reused
    engine.setProjectFiles([{ file: '/proj/sub.py', text: ['from base import Base', '', '', 'class Sub(Base):', '    def _prepare_inputs(self, out):', '        return out', ''].join('\n') }]);
    assert.notEqual(engine.projectViewOf(file), view);
    assert.equal(engine.check(base, file).reused ?? 0, 0);
    // a change of the file itself on disk does not
    const seen = engine.projectViewOf(file);
    engine.setProjectFiles([{ file, text: base.replace('return 1', 'return 2') }]);
    assert.equal(engine.projectViewOf(file), seen);
  });

  it('a user module never shadows a target module of the same name', async () => {
    const proj = tempTree({ 'rlib/__init__.py': '', 'rlib/runner.py': 'class Scheduler:\n    def __init__(self):\n        pass\n' });
    try {
      const engine = await Engine.open({ targets: [path.join(DIR, 'v2')], sourceRoots: [proj] });
      const r = engine.check('from rlib.runner import Scheduler\nScheduler()\n', path.join(proj, 'main.py'));
      assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param}`), ['2:missing-argument:config']);
      assert.match(r.findings[0].message, /missing 2 required positional arguments: 'config' and 'block_size'/);
    } finally {
      fs.rmSync(proj, { recursive: true, force: true });
    }
  });

  it('a receiver that may hold one of several classes: a call none of them takes is reported, one some take is left unknown', async () => {
    const lib = tempTree({ 'rlib4/__init__.py': 'class Base:\n    pass\nclass Ngram:\n    def propose(self, a, b, c, d):\n        pass\nclass Eagle:\n    def propose(self, a, b, c, d, e, f, g):\n        pass\n' });
    try {
      const engine = await Engine.open({ targets: [lib] });
      const code = [
        'from rlib4 import Base, Ngram, Eagle', // 1
        'class Runner(Base):', // 2
        '    def __init__(self, fast):', // 3
        '        self.drafter = Ngram() if fast else Eagle()', // 4
        '    def run(self):', // 5
        '        self.drafter.propose(1, 2, 3, 4, 5)', // 6: 5 arguments: Ngram takes 4, Eagle needs 7
        '        self.drafter.propose(1, 2, 3, 4)', // 7: Ngram takes it
        '',
      ].join('\n');
      const r = engine.check(code, 'u.py');
      assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['6:too-many-positional']);
      assert.match(r.findings[0].message, /^no class the receiver may hold takes this call \(Ngram\.propose\(\) takes 4 positional arguments but 5 were given; Eagle\.propose\(\) missing/);
      const seven = r.calls.find((c) => c.range.start.line === 6);
      assert.equal(seven?.status, 'unknown');
      assert.match(seven?.unknownReason ?? '', /Ngram or Eagle, whose propose bind the call differently/);
    } finally {
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });

  it('an attribute given back a value it held (saved = self.x ... self.x = saved) adds no class; one given another attribute\'s value does', async () => {
    const lib = tempTree({ 'rlib3/__init__.py': 'class Base:\n    pass\nclass Batch:\n    def refresh(self):\n        pass\n' });
    try {
      const engine = await Engine.open({ targets: [lib] });
      const code = [
        'from rlib3 import Base, Batch', // 1
        'class Runner(Base):', // 2
        '    def __init__(self):', // 3
        '        self.batch = Batch()', // 4
        '        self.spare = Batch()', // 5
        '    def swap(self):', // 6
        '        saved = self.batch', // 7
        '        self.batch = saved', // 8
        '        other = self.batch', // 9
        '        self.spare = other.refresh', // 10: another value
        '    def run(self):', // 11
        '        self.batch.refresh(1)', // 12
        '        self.spare.refresh(1)', // 13
        '',
      ].join('\n');
      const r = engine.check(code, 'u.py');
      assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['12:too-many-positional']);
      assert.equal(r.calls.find((c) => c.range.start.line === 12)?.status, 'untraced');
    } finally {
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });

  it('a name a target module binds once to C(...) is an instance of C where it is imported, unless something rebinds it', async () => {
    const lib = tempTree({
      'rlib2/__init__.py': 'from rlib2.reg import REGISTRY\n',
      'rlib2/reg.py': 'class Registry:\n    def create(self, a):\n        pass\nREGISTRY = Registry()\nOTHER = Registry()\ndef reset():\n    global OTHER\n    OTHER = Registry()\n',
    });
    try {
      const engine = await Engine.open({ targets: [lib] });
      const code = 'from rlib2 import REGISTRY\nfrom rlib2.reg import OTHER\nREGISTRY.create(1, 2)\nOTHER.create(1, 2)\n';
      // OTHER is rebound by a function of its module
      assert.deepEqual(engine.check(code, 'u.py').findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['3:too-many-positional']);
      // a file that puts its own object there decides what it is
      assert.deepEqual(engine.check(`${code}import rlib2\nrlib2.REGISTRY = object()\n`, 'u.py').findings, []);
    } finally {
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });

  it("a name the module's __getattr__ serves and a bare annotation declares (`current: Platform`) holds an instance of that class or a subclass", async () => {
    const platforms = (declare: string, extra = ''): Record<string, string> => ({
      'plib/__init__.py': [
        'from typing import TYPE_CHECKING',
        'from plib.interface import Platform',
        '_current = None',
        declare,
        'def __getattr__(name):',
        '    if name == "current":',
        '        global _current',
        '        if _current is None:',
        '            _current = Platform()',
        '        return _current',
        '    raise AttributeError(name)',
        '',
      ].join('\n'),
      'plib/interface.py': `class Platform:\n    def is_fast(self):\n        return False\n    def capability(self, device_id=0):\n        return 1\n${extra}`,
    });
    const code = 'from plib import current\ncurrent.is_fast(True)\ncurrent.capability(0, 1)\n';
    const run = async (files: Record<string, string>): Promise<CheckResult> => {
      const lib = tempTree(files);
      try {
        return (await Engine.open({ targets: [lib] })).check(code, 'u.py');
      } finally {
        fs.rmSync(lib, { recursive: true, force: true });
      }
    };
    // declared under TYPE_CHECKING, or at the top level
    for (const declare of ['if TYPE_CHECKING:\n    current: Platform', 'current: Platform']) {
      const r = await run(platforms(declare));
      assert.deepEqual(brief(r), ['2:too-many-positional:', '3:too-many-positional:'], declare);
      assert.equal(r.callsChecked, 2);
    }
    // a subclass that takes more: the call may land on its override
    const sub = await run(platforms('current: Platform', 'class Other(Platform):\n    def capability(self, device_id=0, extra=None):\n        return 2\n'));
    assert.deepEqual(brief(sub), ['2:too-many-positional:']);
    assert.equal(sub.calls.find((c) => c.range.start.line === 2)?.status, 'unknown');
    // without the declaration the served value is not followed, and the calls are not counted
    const bare = await run(platforms(''));
    assert.deepEqual(bare.findings, []);
    assert.equal(bare.callsChecked, 0);
  });

  it('a parameter annotated with a union of classes holds one of them: a call that every class binds alike is checked, one they bind differently is left unknown', async () => {
    const lib = tempTree({
      'ulib/__init__.py': '',
      'ulib/req.py': 'class Rerank:\n    def validate(self, a):\n        pass\n\nclass Score:\n    def validate(self, a):\n        pass\n\nclass Loose:\n    def validate(self, a, b=None):\n        pass\n',
    });
    try {
      const engine = await Engine.open({ targets: [lib] });
      const code = [
        'from typing import Optional, Union',
        'from ulib.req import Loose, Rerank, Score',
        'def f(r: Rerank | Score):',
        '    r.validate(1, 2)',
        'def g(r: "Union[Rerank, Score, None]"):',
        '    r.validate(1, 2)',
        'def h(r: Optional[Rerank | Loose]):',
        '    r.validate(1, 2)',
        'def k(r: Rerank | str):',
        '    r.validate(1, 2)',
        'def m(r: Rerank | Score):',
        '    r.validate(1)',
        '',
      ].join('\n');
      const r = engine.check(code, 'u.py');
      assert.deepEqual(brief(r), ['4:too-many-positional:', '6:too-many-positional:']);
      const status = (line: number): string | undefined => r.calls.find((c) => c.range.start.line === line - 1)?.status ?? (r.calls.some((c) => c.range.start.line === line - 1) ? 'checked' : undefined);
      // Loose takes a second argument: the classes bind it differently
      assert.equal(status(8), 'unknown');
      // a class outside the target may be what it holds: not the target's call, not counted
      assert.equal(status(10), undefined);
      assert.equal(status(12), 'checked');
    } finally {
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });

  it('an annotation names the class imported under TYPE_CHECKING, also where run time binds the name to a placeholder', async () => {
    const lib = tempTree({ 'tlib/__init__.py': '', 'tlib/conf.py': 'class Conf:\n    def setup(self, a):\n        pass\n' });
    try {
      const engine = await Engine.open({ targets: [lib] });
      const user = (fallback: string): string =>
        ['from typing import TYPE_CHECKING, Any', 'if TYPE_CHECKING:', '    from tlib.conf import Conf', 'else:', `    Conf = ${fallback}`, '', 'def f(c: Conf):', '    c.setup(1, 2)', ''].join('\n');
      for (const fallback of ['None', 'object', 'Any']) {
        assert.deepEqual(engine.check(user(fallback), 'u.py').findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['8:too-many-positional'], fallback);
      }
      // a run-time value that may be a class of its own is what the annotation names
      assert.deepEqual(engine.check(user('make_conf()'), 'u.py').findings, []);
    } finally {
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });

  it('a class decorator that may patch the class leaves its methods unknown; one that returns it untouched does not', async () => {
    const lib = tempTree({
      'dlib/__init__.py': [
        'def patch(cls):',
        '    cls.run = lambda self, *a: None',
        '    return cls',
        '',
        'def register(cls):',
        '    REGISTRY.append(cls.__name__)',
        '    return cls',
        '',
        'REGISTRY = []',
        '',
        '@patch',
        'class Patched:',
        '    def run(self, x):',
        '        pass',
        '',
        '@register',
        'class Registered:',
        '    def run(self, x):',
        '        pass',
        '',
      ].join('\n'),
    });
    try {
      const engine = await Engine.open({ targets: [lib] });
      const r = engine.check(['from dlib import Patched, Registered', 'def f():', '    p = Patched()', '    p.run(1, 2)', '    q = Registered()', '    q.run(1, 2)', ''].join('\n'), 'user.py');
      assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['6:too-many-positional']);
      assert.ok(r.calls.some((c) => c.range.start.line === 3 && c.status !== 'checked' && c.status !== undefined), JSON.stringify(r.calls));
    } finally {
      fs.rmSync(lib, { recursive: true, force: true });
    }
  });

  it('a base outside the target that comes first in the MRO may define the method itself, unless it is torch.nn.Module and the name is none of its own', async () => {
    const text = [
      'import torch',
      'from rlib.runner import ModelRunner',
      'class First(torch.nn.Module, ModelRunner):',
      '    def go(self):',
      '        self._prepare_inputs(1)',
      'class Last(ModelRunner, torch.nn.Module):',
      '    def go(self):',
      '        self._prepare_inputs(1)',
      '',
    ].join('\n');
    const r = await checkWith('v2', text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['5:missing-argument', '8:missing-argument']);
    // torch.nn.Module's own names are known: one it has (`_apply`) is its method, not the target's
    const own = await checkWith('v2', text.replace(/_prepare_inputs/g, '_apply'));
    assert.deepEqual(own.findings, []);
    assert.equal(own.calls.some((c) => c.range.start.line === 4 && (c.status ?? 'checked') === 'checked'), false);
    // a base it cannot see into may define any name
    const other = await checkWith('v2', text.replace('torch.nn.Module, ModelRunner', 'torch.nn.Linear, ModelRunner'));
    assert.deepEqual(other.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['8:missing-argument']);
    assert.match(other.calls.find((c) => c.range.start.line === 4)?.unknownReason ?? '', /comes first in the MRO/);
  });

  it("a subclass in another file of the project that overrides a method differently leaves self's call unknown", async () => {
    const base = ['from rlib.runner import ModelRunner', 'class Base(ModelRunner):', '    def step(self, out):', '        self._prepare_inputs(out)', ''].join('\n');
    const sub = ['from base import Base', 'class Sub(Base):', '    def _prepare_inputs(self, out):', '        return out', ''].join('\n');
    const engine = await Engine.open({ targets: [path.join(DIR, 'v2')] });
    // checked alone, the call misses num_scheduled_tokens
    assert.deepEqual(engine.check(base, 'base.py').findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['4:missing-argument']);
    // with the project's other file, Sub's override binds the call another way: unknown, and why
    engine.addProjectFiles([{ file: 'base.py', text: base }, { file: 'sub.py', text: sub }]);
    const r = engine.check(base, 'base.py');
    assert.deepEqual(r.findings, []);
    assert.match(r.calls.find((c) => c.range.start.line === 3)?.unknownReason ?? '', /Sub\._prepare_inputs overrides it/);
  });

  it('a class whose base is one of several classes (a conditional import) derives from what one of them derives from, and from nothing else', async () => {
    const lib = { ...sessionLib(false), 'slib/engines.py': ['class EngineA:', '    pass', '', 'class EngineB:', '    pass', ''].join('\n') };
    // the block also imports a module from outside the target: which of the two runs cannot be told
    const code = (fallback: string, attempt = 'import user_accel; from slib.engines import EngineA as Base') =>
      [
        'from slib.core import Session',
        'try:',
        `    ${attempt}`,
        'except ImportError:',
        `    ${fallback}`,
        'class Mine(Base):',
        '    def run(self, n, m):',
        '        return n',
        'class Runner(Session):',
        '    def go(self):',
        '        self.run(1, 2)', // 11
        '',
      ].join('\n');
    // Mine's base is EngineA or EngineB: it is no subclass of Runner, whose run takes one argument
    const r = await checkAgainst(lib, code('from slib.engines import EngineB as Base'));
    assert.deepEqual(brief(r), ['11:too-many-positional:']);
    // `object` instead of EngineB: still no Runner
    assert.deepEqual(brief(await checkAgainst(lib, code('Base = object'))), ['11:too-many-positional:']);
    // one of them may be a Runner (a module the engine cannot read): Mine may be what self holds
    const open = await checkAgainst(lib, code('from slib.engines import EngineA as Base', 'from user_runner import Runner as Base'));
    assert.deepEqual(brief(open), []);
    assert.match(open.calls.find((c) => c.range.start.line === 10)?.unknownReason ?? '', /Mine\.run overrides it/);
    // but where the block's import succeeds against the target, its handler never runs there; and
    // where it certainly fails (a module the target lacks), the handler's is the only base
    assert.deepEqual(brief(await checkAgainst(lib, code('from user_runner import Runner as Base', 'from slib.engines import EngineA as Base'))), ['11:too-many-positional:']);
    assert.deepEqual(brief(await checkAgainst(lib, code('from slib.engines import EngineA as Base', 'from slib.missing import Base'))), ['11:too-many-positional:']);
  });

  it("the items of a container a target function returns (`-> list[C]`) are instances of C, by index, by a name bound to one, and in a loop", async () => {
    const lib = {
      'olib/__init__.py': '',
      'olib/run.py': [
        'from typing import TypeVar',
        'T = TypeVar("T")',
        'class Out:',
        '    def text(self, n):',
        '        return n',
        'def generate() -> list[Out]:',
        '    return [Out()]',
        'def layers(kind: type[T]) -> dict[str, T]:',
        '    return {}',
        'def sizes() -> dict[str, int]:',
        '    return {}',
        '',
      ].join('\n'),
    };
    const code = [
      'from olib.run import generate, layers, sizes, Out',
      'def main():',
      '    outs = generate()',
      '    for o in outs:',
      '        o.text(1, 2)', // 5: too many
      '    outs[0].text(1, 2)', // 6: too many
      '    first = outs[0]',
      '    first.text()', // 8: missing n
      '    outs.append(Out())', // 9: a list's method: not the target's
      '    ls = layers(Out)',
      '    ls["a"].text(1)', // 11: T is not known: untraced
      '    for s in sizes().values():',
      '        s.bit_length()', // 13: an int's: not counted
      '',
    ].join('\n');
    const r = await checkAgainst(lib, code);
    assert.deepEqual(brief(r), ['5:too-many-positional:', '6:too-many-positional:', '8:missing-argument:n']);
    const at = (line: number) => r.calls.filter((c) => c.range.start.line === line - 1).map((c) => `${c.callee}:${c.status ?? 'checked'}`);
    assert.deepEqual(at(9), ['olib.run.Out:checked']);
    assert.deepEqual(at(11), ['ls["a"].text:untraced']);
    assert.deepEqual(at(13), []);
  });

  it("`d.get(k)` of a mapping annotated `dict[K, C]` is a C (or None), bound to a name or not; with another default it may be that default", async () => {
    const lib = {
      'olib/__init__.py': '',
      'olib/sched.py': [
        'class Req:',
        '    def events(self, n):',
        '        return n',
        'class Sched:',
        '    def __init__(self):',
        '        self.requests: dict[str, Req] = {}',
        '',
      ].join('\n'),
    };
    const code = [
      'from olib.sched import Sched',
      'class Mine(Sched):',
      '    def step(self, k, other):',
      '        r = self.requests.get(k)',
      '        r.events()', // 5: missing n
      '        self.requests.get(k, None).events(1, 2)', // 6: too many
      '        if (w := self.requests.get(k)) is not None:',
      '            w.events()', // 8: missing n
      '        d = self.requests.get(k, other)',
      '        d.events()', // 10: the default may be returned: untraced
      '        e = self.requests.get(k, default=other)',
      '        e.events()', // 12: the same
      '',
    ].join('\n');
    const r = await checkAgainst(lib, code);
    assert.deepEqual(brief(r), ['5:missing-argument:n', '6:too-many-positional:', '8:missing-argument:n']);
    const at = (line: number) => r.calls.filter((c) => c.range.start.line === line - 1).map((c) => `${c.callee}:${c.status ?? 'checked'}`);
    assert.deepEqual(at(10), ['d.events:untraced']);
    assert.deepEqual(at(12), ['e.events:untraced']);
  });

  it('a chained assignment (`self.x = self.y = C()`, `a = b = C()`) gives every target the value', async () => {
    const lib = {
      'olib/__init__.py': '',
      'olib/net.py': [
        'class Sock:',
        '    def send(self, data):',
        '        return data',
        'class Client:',
        '    def __init__(self):',
        '        self.sock = self.resources_sock = Sock()',
        '        self.out = out = Sock()',
        '        out.send(1)',
        '',
      ].join('\n'),
    };
    const code = [
      'from olib.net import Client, Sock',
      'def f(c: Client):',
      '    c.sock.send()', // 3: missing data
      '    c.resources_sock.send(1, 2)', // 4: too many
      '    c.out.send()', // 5: missing data
      '    a = b = Sock()',
      '    a.send()', // 7: missing data
      '    b.send()', // 8: missing data
      '',
    ].join('\n');
    const r = await checkAgainst(lib, code);
    assert.deepEqual(brief(r), ['3:missing-argument:data', '4:too-many-positional:', '5:missing-argument:data', '7:missing-argument:data', '8:missing-argument:data']);
  });

  it("a static method's first parameter is a parameter like any other; a name a function imports is what the module binds it to; loop targets unpacked from enumerate, zip and items()", async () => {
    const lib = {
      'olib/__init__.py': '',
      'olib/core.py': [
        'class Layer:',
        '    def run(self, x):',
        '        return x',
        'class Registry:',
        '    def lookup(self, name):',
        '        return name',
        'REGISTRY = Registry()',
        'class Model:',
        '    def __init__(self):',
        '        self.layers: list[Layer] = []',
        '        self.by_name: dict[str, Layer] = {}',
        '',
      ].join('\n'),
    };
    const code = [
      'from olib.core import Model, Layer',
      'class Helper:',
      '    @staticmethod',
      '    def use(layer: Layer):',
      '        layer.run()', // 5: missing x (before: the first parameter was taken for self)
      'def f(m: Model, names):',
      '    from olib.core import REGISTRY',
      '    REGISTRY.lookup()', // 8: missing name
      '    for i, layer in enumerate(m.layers):',
      '        layer.run()', // 10: missing x
      '    for a, b in zip(m.layers, names):',
      '        a.run()', // 12: missing x
      '        b.run()', // 13: an element of names: not known, not counted
      '    for k, v in m.by_name.items():',
      '        v.run()', // 15: missing x
      '        k.upper()', // 16: a str: not the target's
      'def g(m: Model):',
      '    enumerate = lambda xs: [(0, 1)]',
      '    for i, layer in enumerate(m.layers):',
      '        layer.run()', // 20: enumerate is not the builtin here
      '    for i, (a, b) in enumerate(m.layers):',
      '        a.run()', // 22: nested targets are not followed
      '',
    ].join('\n');
    const r = await checkAgainst(lib, code);
    assert.deepEqual(brief(r), ['5:missing-argument:x', '8:missing-argument:name', '10:missing-argument:x', '12:missing-argument:x', '15:missing-argument:x']);
    const at = (line: number) => r.calls.filter((c) => c.range.start.line === line - 1).map((c) => `${c.callee}:${c.status ?? 'checked'}`);
    assert.deepEqual([at(13), at(16), at(22)], [[], [], []]);
    assert.deepEqual(at(20), ['layer.run:untraced']);
  });

  it('a call on a name bound once to what the target gives, whose class is not known, is counted as untraced', async () => {
    const text = [
      'import slib.core',
      'from slib.core import open_session',
      'shared = slib.core.open_session()',
      'def f(items, helper):',
      '    s = open_session()',
      '    s.run(1)',
      '    shared.run(2)',
      '    with open_session() as w:',
      '        w.run(3)',
      '    for x in items:',
      '        x.run(4)',
      '    h = helper()',
      '    h.run(5)',
      '    t = []',
      '    t.append(6)',
      '    u = open_session()',
      '    u = helper()',
      '    u.run(7)',
      '',
    ].join('\n');
    const r = await checkAgainst(sessionLib(false), text);
    const status = (line: number): string | undefined => {
      const c = r.calls.find((x) => x.range.start.line + 1 === line && x.callee.endsWith('.run'));
      return c && (c.status ?? 'checked');
    };
    // open_session() has no return annotation: the value comes from the target, its class is not known
    assert.equal(status(6), 'untraced');
    assert.equal(status(7), 'untraced');
    assert.equal(status(9), 'untraced');
    // values that do not come from the target, and a name bound two ways, are not counted
    assert.equal(status(11), undefined);
    assert.equal(status(13), undefined);
    assert.equal(status(18), undefined);
    assert.ok(!r.calls.some((c) => c.range.start.line + 1 === 15));
    assert.equal(r.callsUntraced, 3);
  });

  it('a local annotated with a class holds what its annotation declares where its value cannot be followed', async () => {
    const text = [
      'from slib.core import Fast, Session, open_session',
      'def f():',
      '    s: Session = open_session()',
      '    s.run(1, 2)',
      '    t: Session = open_session()  # type: ignore',
      '    t.run(1, 2)',
      '    u: Session = Fast()',
      '    u.run(1)',
      '',
    ].join('\n');
    const r = await checkAgainst(sessionLib(true), text);
    // declared by the annotation: a Session or a subclass, and Fast.run binds (1, 2) differently
    assert.match(r.calls.find((c) => c.range.start.line === 3)?.unknownReason ?? '', /Fast\.run overrides it/);
    // an annotation the type checker is told to ignore says nothing
    assert.equal(r.calls.find((c) => c.range.start.line === 5)?.status, 'untraced');
    // a value the engine follows wins over the annotation: an exact Fast, whose run takes two
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['8:missing-argument']);
    const plain = await checkAgainst(sessionLib(false), text.replace(/Fast, /, '').replace('u: Session = Fast()', 'u = 1'));
    assert.deepEqual(plain.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['4:too-many-positional']);
  });

  it('an instance a registry may replace is of the class or a subclass: no class of the user stands for it; calling a value of several classes is checked against each', async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/ops.py': [
        'class Op:',
        '    registry = {}',
        '',
        '    def __new__(cls, *args, **kwargs):',
        '        op_cls = cls.registry.get(cls.__name__, cls)',
        '        return super().__new__(op_cls)',
        '',
        '    def __init__(self):',
        '        self.ready = True',
        '',
        '    def __call__(self, x):',
        '        return x',
        '',
        '',
        'class Norm(Op):',
        '    def __call__(self, x, eps=0.0):',
        '        return x',
        '',
      ].join('\n'),
    };
    const text = [
      'from slib.ops import Norm, Op', // 1
      '', // 2
      'class Block:', // 3
      '    def __call__(self, a, b, c):', // 4: takes (1, 2, 3), but is no Norm
      '        return a', // 5
      '', // 6
      'def f(flag):', // 7
      '    n = Norm()', // 8
      '    n(1, 2, 3)', // 9: Norm.__call__ takes two
      '    m = Norm() if flag else Op()', // 10
      '    m(1, 2, 3)', // 11: neither takes three
      '    m(1, 2)', // 12: Norm takes two, Op one
      '    m(1)', // 13: both take one
      '',
    ].join('\n');
    const r = await checkAgainst(files, text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['9:too-many-positional', '11:too-many-positional']);
    const at = (line: number) => r.calls.find((c) => c.range.start.line + 1 === line && c.callee.endsWith('__call__'));
    assert.match(at(12)?.unknownReason ?? '', /Norm or Op, whose __call__ bind the call differently/);
    assert.equal(at(13)?.status ?? 'checked', 'checked');
  });

  it('a subclass of torch.nn.Identity is built and called as one of torch.nn.Module is', async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/layers.py': ['import torch', '', '', 'class Missing(torch.nn.Identity):', '    def __init__(self, *args, **kwargs):', '        super().__init__()', '', '    def forward(self, x):', '        return x', ''].join('\n'),
    };
    const r = await checkAgainst(files, ['from slib.layers import Missing', 'def f():', '    m = Missing(3)', '    m(1, 2)', '    m(1)', ''].join('\n'));
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['4:too-many-positional']);
    assert.equal(r.calls.find((c) => c.range.start.line === 4)?.callee, 'slib.layers.Missing.forward');
  });

  it("an attribute the target only ever sets to literals holds builtin values: calls on it are not the target's, and not counted", async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/core.py': [
        '_MADE = []',
        '',
        '',
        'def make():',
        '    return _MADE[-1]',
        '',
        '',
        'import numpy as np',
        '',
        '',
        'class Base:',
        '    def __init__(self):',
        '        self.arr: np.ndarray = np.zeros(3)',
        '        self.items = []',
        '        self.table = {}',
        '        self.tags = {"a", "b"}',
        '        self.name = ""',
        '        self.mixed = []',
        '',
        '    def reset(self):',
        '        self.items = [x for x in range(3)]',
        '        self.mixed = make()',
        '',
      ].join('\n'),
    };
    const text = [
      'from slib.core import Base',
      'class Mine(Base):',
      '    def step(self):',
      '        self.items.append(1)',
      '        self.table.get(1)',
      '        self.tags.add(2)',
      '        self.name.upper()',
      '        self.mixed.append(3)',
      '        self.arr.reshape(3).sum()',
      '',
    ].join('\n');
    const r = await checkAgainst(files, text);
    assert.deepEqual(r.findings, []);
    // what a method of an outside value returns is not the target's either
    assert.deepEqual(r.calls.map((c) => `${c.range.start.line + 1}:${c.status ?? 'checked'}`), ['8:untraced']);
    assert.match(r.calls[0].unknownReason ?? '', /may be an external value/);
  });
});

/**
 * More receivers (test/fixtures/receivers2): attributes assigned from attribute chains, attributes
 * written by computed names that the code limits to a few, and locals bound in several places.
 */
describe('receivers: attribute chains, computed attribute names, locals bound in several places', () => {
  const DIR2 = path.join(FIXTURES, 'receivers2');
  const USER2 = fs.readFileSync(path.join(DIR2, 'user.py'), 'utf8');
  const check2 = async (version: 'v1' | 'v2', text = USER2): Promise<CheckResult> => (await Engine.open({ targets: [path.join(DIR2, version)] })).check(text, 'user.py');

  it('reports exactly the marked calls, and gives every marked call its status with a reason when left open', async () => {
    const r = await check2('v2');
    const expected = [...marks(USER2)].filter(([, m]) => m.startsWith('expect: ')).map(([line, m]) => `${line}:${m.slice(8)}`);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort(), expected.sort());
    assert.ok(expected.length >= 9, `${expected.length} expected findings`);
    for (const [line, m] of marks(USER2)) {
      const calls = r.calls.filter((c) => c.range.start.line + 1 === line);
      assert.equal(calls.length, 1, `line ${line}: ${JSON.stringify(calls)}`);
      const status = calls[0].status ?? 'checked';
      assert.equal(status, m.startsWith('expect: ') ? 'checked' : m, `line ${line}: ${calls[0].unknownReason}`);
      if (status !== 'checked') assert.ok(calls[0].unknownReason, `line ${line} has a reason`);
    }
  });

  it('finds nothing against the version the file was written for, and checks the same calls', async () => {
    const r = await check2('v1');
    assert.deepEqual(r.findings, []);
    for (const [line, m] of marks(USER2)) {
      if (m !== 'checked' && !m.startsWith('expect: ')) continue;
      assert.ok(r.calls.some((c) => c.range.start.line + 1 === line && (c.status ?? 'checked') === 'checked'), `line ${line} checked against v1`);
    }
  });

  it('the reasons to stay open', async () => {
    const r = await check2('v2');
    const reasonAt = (needle: string, nth = 0): string => {
      const lines = USER2.split('\n');
      const at = lines.map((l, i) => (l.includes(needle) ? i + 1 : 0)).filter((x) => x > 0)[nth];
      return r.calls.find((c) => c.range.start.line + 1 === at)?.unknownReason ?? '';
    };
    assert.match(reasonAt('self.cursor.walk(1)'), /from itself/);
    assert.match(reasonAt('self.model_config.get_hidden_size(True)'), /ConfigurableRunner assigns the attribute in a way/);
    assert.match(reasonAt('self.dispatcher.dispatch(3)  # untraced', 0), /LooseRunner sets attributes dynamically/);
    assert.match(reasonAt('cls.is_rocm(strict=True)'), /SubPlatform\.is_rocm overrides it and binds the call differently/);
    assert.match(reasonAt('platform.is_rocm(strict=True)'), /Platform\.is_rocm overrides it and binds the call differently/);
    assert.match(reasonAt('w.varied.dispatch(3)'), /FastWorkshop\._vary overrides it and returns another class/);
    // the target's own subclasses count
    const alone = await check2('v2', 'from qlib.platform import Platform\n\n\ndef f(p: type[Platform]):\n    p.is_rocm(strict=True)\n    p.is_cuda(strict=True)\n');
    assert.match(alone.calls.find((c) => c.range.start.line === 4)?.unknownReason ?? '', /RocmPlatform\.is_rocm overrides it and binds the call differently/);
    assert.deepEqual(alone.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['6:unexpected-keyword']);
    // an unannotated parameter bound again is not followed at all
    const raw = USER2.split('\n').findIndex((l) => l.includes('raw.dispatch(3)')) + 1;
    assert.ok(!r.calls.some((c) => c.range.start.line + 1 === raw));
  });
});

describe('receivers: a namespace read is no namespace written', () => {
  it("reading the instance's __dict__ and restoring it in __setstate__ write no attribute of their own; updating it may write any", async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/models.py': [
        'class Reply:',
        '    def __init__(self, body: bytes):',
        '        self.body = body',
        '',
        '    def json(self, strict: bool = True):',
        '        return self.body',
        '',
        '    def __getstate__(self):',
        '        return {k: v for k, v in self.__dict__.items() if k != "body"}',
        '',
        '    def __setstate__(self, state):',
        '        for name, value in state.items():',
        '            setattr(self, name, value)',
        '',
        '    def __contains__(self, name):',
        '        return name in self.__dict__',
        '',
        'class Loose:',
        '    def __init__(self, **kw):',
        '        self.__dict__.update(kw)',
        '',
        '    def json(self, strict: bool = True):',
        '        return None',
        '',
        'def fetch() -> Reply:',
        '    return Reply(b"")',
        '',
        'def loose() -> Loose:',
        '    return Loose()',
        '',
      ].join('\n'),
    };
    const text = ['from slib.models import fetch, loose', 'def main():', '    fetch().json(strict=False, pretty=True)', '    loose().json(pretty=True)', ''].join('\n');
    const r = await checkAgainst(files, text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['3:unexpected-keyword']);
    const at = (line: number) => r.calls.filter((c) => c.range.start.line + 1 === line && c.callee.endsWith('json'));
    assert.equal(at(4)[0]?.status, 'untraced');
    assert.match(at(4)[0]?.unknownReason ?? '', /Loose sets attributes dynamically/);
  });
});

describe('receivers: an annotation continued on the next line', () => {
  it('`self.x: C \\` then `= C(...)` on the next line is an annotated assignment, not a bare declaration of "C \\"', async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/core.py': ['class Manager:', '    def add(self, item):', '        return item', '', '', 'class Runner:', '    pass', ''].join('\n'),
    };
    const text = [
      'from slib.core import Manager, Runner',
      '',
      '',
      'class MyRunner(Runner):',
      '    def __init__(self):',
      '        self.manager: Manager \\',
      '            = Manager()',
      '        self.other: Manager = \\',
      '            Manager()',
      '',
      '    def run(self):',
      '        self.manager.add(1, 2)',
      '        self.other.add(1, 2)',
      '',
    ].join('\n');
    const r = await checkAgainst(files, text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['12:too-many-positional', '13:too-many-positional']);
  });
});

describe('receivers: names a case pattern captures', () => {
  it('a name captured by a case pattern (bare, in a list or a mapping, a class pattern keyword, a star, as) is bound again there; a class name or a dotted value is not', async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/core.py': ['class Manager:', '    def add(self, item):', '        return item', ''].join('\n'),
    };
    const fn = (name: string, pattern: string): string[] => [`def ${name}(y):`, '    m = Manager()', '    match y:', `        case ${pattern}:`, '            pass', '    m.add(1, 2)', '', ''];
    const text = [
      'import sys',
      'from slib.core import Manager',
      '',
      ...fn('bare', 'm'),
      ...fn('listed', '[m, *_]'),
      ...fn('mapped', '{"k": m}'),
      ...fn('keyword', 'Manager(item=m)'),
      ...fn('starred', '[_, *m]'),
      ...fn('kwstar', '{"k": _, **m}'),
      ...fn('aliased', 'str() as m'),
      // these capture nothing named m: the call binds against Manager as before
      ...fn('classname', 'Manager()'),
      ...fn('dotted', 'sys.maxsize'),
      ...fn('other', '[x, *_] if x'),
      'g = Manager()',
      'match sys.argv:',
      '    case [g]:',
      '        pass',
      'g.add(1, 2)',
      '',
    ].join('\n');
    const r = await checkAgainst(files, text);
    const lines = text.split('\n');
    const expected = ['classname', 'dotted', 'other'].map((f) => `${lines.findIndex((l) => l.startsWith(`def ${f}(`)) + 6}:too-many-positional`);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort(), expected.sort());
  });
});

describe('receivers: a name bound again by := in a comprehension, or by nonlocal in a function inside', () => {
  it("binds the function's name (a lambda's := binds the lambda's own); at module level any := of a statement binds the global", async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/core.py': ['class Manager:', '    def add(self, item):', '        return item', ''].join('\n'),
    };
    const text = [
      'import sys',
      'from slib.core import Manager',
      '',
      '',
      'def comp(y):',
      '    m = Manager()',
      '    [m := v for v in y]',
      '    m.add(1, 2)',
      '',
      '',
      'def outer():',
      '    m = Manager()',
      '',
      '    def inner():',
      '        nonlocal m',
      '        m = 5',
      '',
      '    inner()',
      '    m.add(1, 2)',
      '',
      '',
      'def lam():',
      '    m = Manager()',
      '    f = lambda: (m := 3)',
      '    m.add(1, 2)  # the lambda binds its own m',
      '',
      '',
      'g = Manager()',
      '[g := v for v in sys.argv]',
      'g.add(1, 2)',
      'k = Manager()',
      'if (k := len(sys.argv)):',
      '    pass',
      'k.add(1, 2)',
      '',
    ].join('\n');
    const r = await checkAgainst(files, text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['25:too-many-positional']);
  });
});

describe('receivers: a name bound again by a type alias statement', () => {
  it('`type m = ...` (3.12) binds m in the function, generic or not', async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/core.py': ['class Manager:', '    def add(self, item):', '        return item', ''].join('\n'),
    };
    const text = [
      'from slib.core import Manager',
      '',
      '',
      'def plain():',
      '    m = Manager()',
      '    type m = int',
      '    m.add(1, 2)',
      '',
      '',
      'def generic():',
      '    m = Manager()',
      '    type m[T] = list[T]',
      '    m.add(1, 2)',
      '',
      '',
      'def other():',
      '    m = Manager()',
      '    type n = int',
      '    m.add(1, 2)',
      '',
    ].join('\n');
    const r = await checkAgainst(files, text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['19:too-many-positional']);
  });
});

describe('receivers: a function stored as a class attribute', () => {
  it('is a method when read through an instance (its first parameter takes the instance), a plain function when read through the class', async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/core.py': ['def g(a, b):', '    return a', '', '', 'class A:', '    f = g', ''].join('\n'),
    };
    const text = [
      'from slib.core import A',
      '',
      'A().f(1)',
      'A().f(1, 2)',
      'A.f(1, 2)',
      'A.f(1)',
      '',
      '',
      'class B(A):',
      '    def run(self):',
      '        self.f(1)',
      '        self.f(1, 2)',
      '',
    ].join('\n');
    const r = await checkAgainst(files, text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['4:too-many-positional', '6:missing-argument', '12:too-many-positional']);
  });
});

describe('receivers: a receiver of several classes whose method the project replaces', () => {
  it('is unknown where no class would bind the call, since the call may reach the replacement; reported where nothing replaces it', async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/core.py': ['class Slow:', '    def run(self, n):', '        return n', '', '', 'class Fast:', '    def run(self, n, m):', '        return n', ''].join('\n'),
    };
    const body = [
      'from slib.core import Fast, Slow',
      '',
      '',
      'class Runner:',
      '    def __init__(self, fast):',
      '        if fast:',
      '            self.worker = Fast()',
      '        else:',
      '            self.worker = Slow()',
      '',
      '    def go(self):',
      '        return self.worker.run(1, extra=2)',
      '',
    ];
    const plain = await checkAgainst(files, body.join('\n'));
    assert.deepEqual(plain.findings.map((f) => `${f.range.start.line + 1}:${f.code}`), ['12:unexpected-keyword']);
    const patched = await checkAgainst(files, [...body, '', 'def fast_run(self, n, extra=0):', '    return n', '', '', 'Fast.run = fast_run', ''].join('\n'));
    assert.deepEqual(patched.findings, []);
    assert.match(patched.calls.find((c) => c.range.start.line === 11)?.unknownReason ?? '', /sets Fast\.run from outside/);
  });
});

describe('receivers: a decorator that hands back a function of its own', () => {
  it('binds calls to that function (its own signature, no *args or **kwargs); one that wraps with *args, rebinds it or may not return it stays unknown', async () => {
    const files = {
      'slib/__init__.py': '',
      'slib/deco.py': [
        'import functools',
        '',
        '',
        'def reloadable(load):',
        '    @functools.wraps(load)',
        '    def patched(loader, weights, *, mapper=None):',
        '        return load(loader, weights, mapper=mapper)',
        '    return patched',
        '',
        '',
        'def loose(load):',
        '    def patched(*args, **kwargs):',
        '        return load(*args, extra=1, **kwargs)',
        '    return patched',
        '',
        '',
        'def rebound(load):',
        '    def patched(loader, weights):',
        '        return load(loader, weights)',
        '    patched = functools.lru_cache(patched)',
        '    return patched',
        '',
      ].join('\n'),
      'slib/core.py': [
        'from slib.deco import loose, rebound, reloadable',
        '',
        '',
        'class Loader:',
        '    @reloadable',
        '    def load_weights(self, weights, mapper=None, strict=True):',
        '        return weights',
        '',
        '    @loose',
        '    def load_loose(self, weights):',
        '        return weights',
        '',
        '    @rebound',
        '    def load_rebound(self, weights):',
        '        return weights',
        '',
      ].join('\n'),
    };
    const text = [
      'from slib.core import Loader',
      '',
      'loader = Loader()',
      'loader.load_weights([], mapper=None)',
      'loader.load_weights([], strict=False)',
      'loader.load_weights([], None)',
      'loader.load_loose([], strict=False)',
      'loader.load_rebound([], strict=False)',
      '',
    ].join('\n');
    const r = await checkAgainst(files, text);
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort(), ['5:unexpected-keyword', '6:too-many-positional']);
    const at = (line: number) => r.calls.find((c) => c.range.start.line + 1 === line && c.callee.includes('load_'));
    assert.equal(at(4)?.status ?? 'checked', 'checked');
    assert.equal(at(7)?.status, 'unknown');
    assert.equal(at(8)?.status, 'unknown');
  });
});
