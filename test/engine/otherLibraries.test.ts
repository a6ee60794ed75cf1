/**
 * Python rules that checking libraries other than vLLM against themselves called for (an ORM, an
 * HTTP client, a datasets library): a module attribute another module sets from outside, a module
 * the build compiles from a Cython source, a `__new__` that builds an instance of another class
 * than the one called, and a module `__getattr__` made by a function (a migration shim).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

function lines(r: CheckResult): string[] {
  return r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort();
}

describe('rules from other libraries', () => {
  it('a module attribute that another module of the target sets from outside is there; one nobody sets is not', async () => {
    const dir = tempTree({
      'olib/__init__.py': 'from . import types\n',
      'olib/api.py': ['from typing import TYPE_CHECKING', 'if TYPE_CHECKING:', '    from .types import NULLTYPE', 'def coerce(x):', '    return x', ''].join('\n'),
      'olib/types.py': ['from . import api', 'class NullType:', '    pass', 'NULLTYPE = NullType()', 'api.NULLTYPE = NULLTYPE', ''].join('\n'),
    });
    const engine = await Engine.open({ targets: [dir] });
    const user = ['from olib import api', 'a = api.NULLTYPE', 'b = api.BOOLTYPE', ''].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['3:unknown-attribute']);
    // the project (or the file itself) may set one too
    assert.deepEqual(lines(engine.check(['from olib import api', 'api.BOOLTYPE = True', 'b = api.BOOLTYPE', ''].join('\n'), 'user.py')), []);
    // but a function that saves the original before it replaces it reads it first
    const saved = ['from olib import api', 'def patched():', '    orig = api.BOOLTYPE', '    api.BOOLTYPE = True', '    try:', '        yield', '    finally:', '        api.BOOLTYPE = orig', ''].join('\n');
    assert.deepEqual(lines(engine.check(saved, 'user.py')), ['3:unknown-attribute']);
    // also where the project's files are read together (the project's patches hold this file's)
    engine.setProjectFiles([{ file: '/proj/user.py', text: saved }]);
    assert.deepEqual(lines(engine.check(saved, '/proj/user.py')), ['3:unknown-attribute']);
  });

  it('a module the build compiles from a Cython source beside it is there; a name without one is not', async () => {
    const dir = tempTree({
      'olib/__init__.py': '',
      'olib/ext/__init__.py': '',
      'olib/ext/speedups.pyx': 'def fast(x):\n    return x\n',
      'olib/ext/speedups.pxd': '',
    });
    const engine = await Engine.open({ targets: [dir] });
    const user = ['from olib.ext import speedups', 'import olib.ext.speedups', 'from olib.ext import slow', 'import olib.ext.slow', ''].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['3:unknown-import', '4:unknown-module']);
  });

  it("a __new__ that may build another class leaves that class's __init__ to take the arguments: only __new__ is checked", async () => {
    const dir = tempTree({
      'olib/__init__.py': '',
      'olib/schema.py': [
        'class Generator:',
        '    def __init__(self, for_update=False):',
        '        self.for_update = for_update',
        '',
        'class Default(Generator):',
        '    def __new__(cls, arg=None, for_update=False):',
        '        if callable(arg):',
        '            cls = CallableDefault',
        '        return object.__new__(cls)',
        '',
        'class CallableDefault(Default):',
        '    def __init__(self, arg, for_update=False):',
        '        self.arg = arg',
        '',
        'class Plain(Generator):',
        '    def __new__(cls, arg=None, for_update=False):',
        '        return object.__new__(cls)',
        '',
      ].join('\n'),
    });
    const engine = await Engine.open({ targets: [dir] });
    const user = [
      'from olib.schema import Default, Plain',
      'Default(print, for_update=True)', // 2: __new__ binds; CallableDefault.__init__ runs next
      'Default(print, for_update=True, x=1)', // 3: __new__ refuses x
      'Plain(print, for_update=True)', // 4: Plain's own __init__ (Generator's) runs next and takes one argument
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['3:unexpected-keyword', '4:multiple-values']);
  });

  it('a module __getattr__ bound otherwise than by a def (`__getattr__ = migration(__name__)`) may serve any name', async () => {
    const dir = tempTree({
      'olib/__init__.py': '',
      'olib/_migration.py': ['def migration(module):', '    def wrapper(name):', '        return REDIRECTS[f"{module}:{name}"]', '    return wrapper', 'REDIRECTS = {}', ''].join('\n'),
      'olib/utils.py': ['from ._migration import migration', '__getattr__ = migration(__name__)', ''].join('\n'),
      'olib/tools.py': ['from ._migration import migration as __getattr__', ''].join('\n'),
      'olib/fields.py': ['class Field:', '    pass', ''].join('\n'),
    });
    const engine = await Engine.open({ targets: [dir] });
    const user = ['from olib.utils import lenient_issubclass', 'from olib.tools import parse_as', 'from olib.fields import ModelField', 'import olib.utils', 'olib.utils.deep_update', ''].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['3:unknown-import']);
  });

  it('a stub beside its source: overloads alone define a name, and what the stub leaves out may be in the source that runs', async () => {
    const dir = tempTree({
      'olib/__init__.py': ['from ._make import Factory, Attribute, _helper', '__getattr__ = lambda name: name', ''].join('\n'),
      'olib/__init__.pyi': [
        'from typing import overload, Any',
        'from ._make import Attribute as Attribute',
        '@overload',
        'def Factory(factory: Any) -> Any: ...',
        '@overload',
        'def Factory(factory: Any, takes_self: bool) -> Any: ...',
        'class Box:',
        '    @overload',
        '    def get(self, key: str) -> Any: ...',
        '    @overload',
        '    def get(self, key: str, default: Any) -> Any: ...',
        '',
      ].join('\n'),
      'olib/_make.py': ['class Attribute:', '    def __init__(self, name, default):', '        self.name = name', 'def Factory(factory, takes_self=False):', '    return factory', 'def _helper():', '    pass', ''].join('\n'),
      'olib/_make.pyi': ['class Attribute:', '    name: str', 'def Factory(factory, takes_self: bool = ...) -> object: ...', ''].join('\n'),
      // a compiled module's stub, no source beside
      'olib/fast.pyi': ['from typing import overload', '@overload', 'def speed(x: int) -> int: ...', '@overload', 'def speed(x: str) -> str: ...', ''].join('\n'),
    });
    const engine = await Engine.open({ targets: [dir] });
    const user = [
      'from olib import Factory, Box, _helper, __author__', // 1: all there at run time
      'from olib._make import Attribute, _helper as h, _missing', // 2: _missing is in neither
      'Factory(list)', // 3
      'Attribute(name="x", default=0)', // 4: the stub declares no constructor; the source has one
      'def f(b: Box):', // 5
      '    b.get("k")', // 6
      'from olib.fast import speed, slow', // 7: slow is nowhere
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['2:unknown-import', '7:unknown-import']);
    const missing = engine.check(user, 'user.py').findings.map((f) => f.message);
    assert.ok(missing.some((m) => m.includes("'_missing'")) && missing.some((m) => m.includes("'slow'")), missing.join('\n'));
  });

  it('a lazily loading package (a module __getattr__, or a lazy module in sys.modules) serves what it imports under TYPE_CHECKING: calls of those names are checked', async () => {
    const dir = tempTree({
      'olib/__init__.py': [
        'from typing import TYPE_CHECKING',
        'def _attach(name, attrs):',
        '    def __getattr__(n):',
        '        return n',
        '    return __getattr__, list',
        '__getattr__, __dir__ = _attach(__name__, {"api": ["Api", "upload"]})',
        'if TYPE_CHECKING:',
        '    from .api import Api, upload',
        '',
      ].join('\n'),
      'olib/api.py': ['class Api:', '    def __init__(self, endpoint=None):', '        self.endpoint = endpoint', 'def upload(path, *, repo):', '    return path', ''].join('\n'),
    });
    const engine = await Engine.open({ targets: [dir] });
    const user = ['from olib import Api, upload, Other', 'Api(endpoint="x", token=1)', 'upload("p")', 'Other(1)', ''].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['2:unexpected-keyword', '3:missing-argument']);
    // a package that puts a lazy module in its place in sys.modules, as large model libraries do
    const lazy = tempTree({
      'tlib/__init__.py': [
        'from typing import TYPE_CHECKING',
        'from .utils import LazyModule',
        '_import_structure = {"models": ["AutoModel"]}',
        'if TYPE_CHECKING:',
        '    from .models import AutoModel',
        'else:',
        '    import sys',
        '    sys.modules[__name__] = LazyModule(__name__, globals()["__file__"], _import_structure)',
        '',
      ].join('\n'),
      'tlib/utils.py': 'class LazyModule:\n    pass\n',
      'tlib/models.py': ['class AutoModel:', '    @classmethod', '    def from_pretrained(cls, name, *, revision=None):', '        return cls()', ''].join('\n'),
    });
    const e2 = await Engine.open({ targets: [lazy] });
    const r2 = e2.check(['from tlib import AutoModel, Other', 'AutoModel.from_pretrained("m", use_auth_token=True)', 'AutoModel.from_pretrained("m", revision="v1")', ''].join('\n'), 'user.py');
    assert.deepEqual(lines(r2), ['2:unexpected-keyword']);
  });

  it('with a baseline, a name a lazily loading package served and no longer names anywhere is reported', async () => {
    const version = (extra: string[], served: string[]) =>
      tempTree({
        'hub/__init__.py': [
          'from typing import TYPE_CHECKING',
          'def _attach(name, attrs):',
          '    def __getattr__(n):',
          '        return n',
          '    return __getattr__, list',
          `__getattr__, __dir__ = _attach(__name__, {"api": [${served.map((n) => `"${n}"`).join(', ')}]})`,
          'if TYPE_CHECKING:',
          `    from .api import ${served.join(', ')}`,
          '',
        ].join('\n'),
        'hub/api.py': ['class Api:', '    pass', ...extra, ''].join('\n'),
      });
    const base = version(['class Folder:', '    pass', 'class Kept:', '    pass'], ['Api', 'Folder', 'Kept']);
    const target = version(['class Kept:', '    pass'], ['Api']);
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const r = engine.check(['from hub import Api, Folder, Kept, Never', ''].join('\n'), 'user.py');
    // Folder is gone; Kept is still defined in the target (it may be served from there); Never the baseline did not serve
    assert.deepEqual(r.findings.map((f) => `${f.code}:${/'(\w+)'/.exec(f.message)?.[1]}`), ['unknown-import:Folder']);
    assert.match(r.findings[0].message, /loads its names lazily and no longer names it/);
    // without a baseline nothing says it was served
    const alone = await Engine.open({ targets: [target] });
    assert.deepEqual(alone.check('from hub import Folder\n', 'user.py').findings, []);
  });

  it("an instance of a metaclass is a class: `cls.__new__` in the metaclass's method is that class's own, not the metaclass's", async () => {
    const meta = [
      'class Meta(type):', // 1
      '    def __new__(mcs, name, bases, ns, *, boundary=None):', // 2
      '        return super().__new__(mcs, name, bases, ns)', // 3
      '    def __call__(cls, value):', // 4
      '        return cls.__new__(cls, value)', // 5: the class's __new__ (object's, or its own)
      '    def build(cls):', // 6
      '        return cls.__new__(cls, 1, 2, 3, 4, 5)', // 7: whatever the class takes
      '',
    ].join('\n');
    const dir = tempTree({ 'olib/__init__.py': '', 'olib/meta.py': meta });
    const engine = await Engine.open({ targets: [dir] });
    // the library checked against itself, as its self-check does
    const r = engine.check(meta, path.join(dir, 'olib', 'meta.py'), undefined, { name: 'olib.meta', isPackage: false });
    assert.deepEqual(lines(r), []);
    assert.match(r.calls.find((c) => c.range.start.line === 4)?.unknownReason ?? '', /Meta is a metaclass/);
  });

  it('a src layout: the version file the build writes (named in the pyproject.toml above src) is there, and a name declared at the top level is set elsewhere', async () => {
    const dir = tempTree({
      'proj/pyproject.toml': ['[project]', 'name = "olib"', 'dynamic = ["version"]', '[tool.setuptools_scm]', 'write_to = "src/olib/_version.py"', ''].join('\n'),
      'proj/src/olib/__init__.py': 'from ._version import version as __version__\n',
      'proj/src/olib/grammar.py': ['class Symbols:', '    pass', 'python_symbols: Symbols', 'def initialize():', '    global python_symbols', '    python_symbols = Symbols()', ''].join('\n'),
      'proj/src/_olib_version.pyi': 'version: str\n',
    });
    const engine = await Engine.open({ targets: [path.join(dir, 'proj', 'src')] });
    const user = [
      'from olib._version import version', // 1: written by the build
      'import olib._other', // 2: no build writes it
      'from olib import grammar', // 3
      'syms = grammar.python_symbols', // 4: declared, set by initialize()
      'from _olib_version import version as v', // 5: declared in a stub
      'x = grammar.missing', // 6
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['2:unknown-module', '6:unknown-attribute']);
  });
});
