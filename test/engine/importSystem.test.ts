/**
 * What the import system and the test runners do, which decides whether a name is there: the
 * submodules a package's import loads (attributes of the package, which a star import without
 * `__all__` takes), the last of several star imports that bind a name, a package that hands itself
 * to code that changes its namespace, the names a file's own `__main__` block binds, and calls a
 * test expects to fail (`raises(E, lambda: ...)`, `@pytest.mark.xfail`).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

const lines = (r: CheckResult): string[] => r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`);

describe('submodules a package import loads', () => {
  // graphs/__init__.py takes everything from graphs.algos, whose own import loads
  // algos.paths (and through it paths.weighted and paths.generic), algos.helpers and, from
  // helpers, algos.extra; nothing imports algos.never
  const target = tempTree({
    'graphs/__init__.py': 'from graphs.algos import *\nfrom graphs.gen import *\nfrom graphs.algos import *\n',
    'graphs/algos/__init__.py': 'from graphs.algos.paths import *\nfrom graphs.algos import helpers\n',
    'graphs/algos/helpers.py': 'import graphs.algos.extra\n\ndef h():\n    pass\n',
    'graphs/algos/extra.py': 'def e():\n    pass\n',
    'graphs/algos/never.py': 'def n():\n    pass\n',
    'graphs/algos/paths/__init__.py': 'from graphs.algos.paths.weighted import *\nfrom .generic import g\n',
    'graphs/algos/paths/weighted.py': 'def w(a):\n    pass\n',
    'graphs/algos/paths/generic.py': 'def g(a):\n    pass\n',
    'graphs/algos/community.py': 'def is_partition(g, parts):\n    pass\n',
    // gen's import loads gen.community, a submodule of another name's package
    'graphs/gen/__init__.py': 'from graphs.gen.community import *\n',
    'graphs/gen/community.py': '__all__ = ["planted"]\n\ndef planted(n):\n    pass\n',
  });

  it('takes the submodules the import loaded, and only those', async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'import graphs',
      'graphs.weighted.w(1)',
      'graphs.generic.g(1)',
      'graphs.helpers.h()',
      'graphs.extra.e()',
      'graphs.never.n()',
      'graphs.paths.weighted.w(1, 2)',
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    // never is not loaded by any import: it is no attribute of graphs.algos, nor of graphs
    assert.deepEqual(lines(r), ['6:unknown-attribute', '7:too-many-positional']);
    assert.match(r.findings[0].message, /has no attribute 'never'/);
    // the loaded submodules are followed to their functions
    assert.equal(r.callsChecked, 5);
  });

  it('takes a name two star imports bind from the last of them', async () => {
    // graphs binds `community` from gen (gen.community, loaded by gen's import) and then from
    // algos (which does not bind it): the first star import's module; with algos binding it too,
    // the last
    const engine = await Engine.open({ targets: [target] });
    const r = engine.check('import graphs\ngraphs.community.planted(1)\ngraphs.community.is_partition(1, 2)\n', 'user.py');
    assert.deepEqual(lines(r), ['3:unknown-attribute']);
    const both = tempTree({
      'g2/__init__.py': 'from g2.gen import *\nfrom g2.algos import *\n',
      'g2/gen/__init__.py': 'from g2.gen.community import *\n',
      'g2/gen/community.py': '__all__ = ["planted"]\n\ndef planted(n):\n    pass\n',
      'g2/algos/__init__.py': 'from g2.algos import community\n',
      'g2/algos/community.py': 'def is_partition(g, parts):\n    pass\n',
    });
    const e2 = await Engine.open({ targets: [both] });
    const r2 = e2.check('import g2\ng2.community.is_partition(1, 2, 3)\ng2.community.planted(1)\n', 'user.py');
    // g2.community is algos.community (its `from g2.algos import community` loads it): planted is not there
    assert.deepEqual(lines(r2), ['2:too-many-positional', '3:unknown-attribute']);
  });

  it('stays silent where the package imports by computed names', async () => {
    const dynamic = tempTree({
      'plug/__init__.py': 'from plug.loader import *\n',
      'plug/loader/__init__.py': 'import importlib\nfor _m in ("a",):\n    importlib.import_module("plug.loader." + _m)\n',
      'plug/loader/a.py': 'def f():\n    pass\n',
    });
    const engine = await Engine.open({ targets: [dynamic] });
    const r = engine.check('import plug\nplug.a.f()\n', 'user.py');
    assert.deepEqual(lines(r), []);
  });
});

describe('a module whose import may change its namespace', () => {
  const target = tempTree({
    'tlib/__init__.py': 'import logging\nfrom . import _dep\n\nlogger = logging.getLogger(__name__)\n_dep.enable(__name__)\n\ndef kept():\n    pass\n',
    'tlib/_dep.py': 'import sys\n\n\ndef enable(\n    module_name,\n):\n    module = sys.modules[module_name]\n    module.__class__ = type(module)\n\n\ndef plain(x):\n    return x\n',
    'tlib2/__init__.py': 'import logging\nfrom tlib._dep import plain\n\nlogger = logging.getLogger(__name__)\nplain(__name__)\n',
  });

  it('leaves what a package with an import hook may serve unknown', async () => {
    const hooked = tempTree({
      'vend/__init__.py': '',
      'vend/extern/__init__.py': 'import sys\n\nclass Finder:\n    def install(self):\n        sys.meta_path.append(self)\n\nFinder().install()\n',
      'vend/plain/__init__.py': 'import sys\n',
    });
    const engine = await Engine.open({ targets: [hooked] });
    const r = engine.check('from vend.extern import packaging\nfrom vend.plain import packaging as p2\n', 'user.py');
    assert.deepEqual(lines(r), ['2:unknown-import']);
  });

  it('leaves the names it does not bind unknown; a function that does not look in sys.modules changes nothing', async () => {
    const engine = await Engine.open({ targets: [target] });
    const r = engine.check('import tlib, tlib2\ntlib.Gone()\ntlib2.Gone()\nfrom tlib import Old\n', 'user.py');
    assert.deepEqual(lines(r), ['3:unknown-attribute']);
  });
});

describe("the file's own __main__ block", () => {
  const target = tempTree({
    'mlib/__init__.py': 'def run(a, b):\n    pass\n\ndef one(a):\n    pass\n\nclass K:\n    def m(self, a, b):\n        pass\n',
  });

  it('binds its names for the code after it in the block', async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'from mlib import run',
      '',
      'if __name__ == "__main__":',
      '    import mlib',
      '    from mlib import K',
      '    run(1)',
      '    mlib.one(1, 2)',
      '    k = K()',
      '    k.m(1)',
      '    alias = mlib.one',
      '    alias(1)',
      '    alias(1, 2)',
      '',
    ].join('\n');
    const r = engine.check(user, 'script.py');
    // the names the block imports and assigns are followed
    assert.deepEqual(lines(r), ['6:missing-argument', '7:too-many-positional', '9:missing-argument', '12:too-many-positional']);
    assert.equal(r.callsChecked, 6);
  });

  it('is part of the check of a module of the target as well', async () => {
    // the block rebinds the name of an imported module: a call on it is no longer the module's
    const t = tempTree({
      'tool/__init__.py': '',
      'tool/split.py': 'class Splitter:\n    def push(self, line):\n        pass\n',
      'tool/run.py': 'from tool import split as sp\n\nif __name__ == "__main__":\n    sp, prompt = sp.Splitter(), "> "\n    sp.push("x")\n',
    });
    const engine = await Engine.open({ targets: [t] });
    const file = path.join(t, 'tool', 'run.py');
    const r = engine.check(fs.readFileSync(file, 'utf8'), file);
    assert.deepEqual(lines(r), []);
  });

  it('is not part of what an importer of the module sees', async () => {
    const withMain = tempTree({
      'mlib/__init__.py': 'def run(a, b):\n    pass\n',
      'app/__init__.py': '',
      'app/tool.py': 'if __name__ == "__main__":\n    from mlib import run\n',
    });
    const engine = await Engine.open({ targets: [withMain] });
    const r = engine.check('from app.tool import run\n', 'user.py');
    assert.deepEqual(lines(r), ['1:unknown-import']);
  });
});

describe('calls a test expects to fail', () => {
  const target = tempTree({ 'elib/__init__.py': 'def pair(a, b):\n    pass\n' });

  it('are not reported inside raises(E, lambda: ...) or a test marked to fail with that error', async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'import pytest',
      'import unittest',
      'from elib import pair',
      '',
      'def raises(exc, fn):',
      '    pass',
      '',
      'def test_a():',
      '    raises(TypeError, lambda: pair(1))',
      '    raises(KeyError, lambda: pair(1))',
      '    pytest.raises((KeyError, TypeError), lambda: pair(1, 2, 3))',
      '',
      '@pytest.mark.xfail',
      'def test_b():',
      '    pair(1)',
      '',
      '@pytest.mark.xfail(raises=KeyError)',
      'def test_c():',
      '    pair(1)',
      '',
      'class T(unittest.TestCase):',
      '    @unittest.expectedFailure',
      '    def test_e(self):',
      '        pair(1)',
      '',
      '    def test_f(self):',
      '        self.assertRaises(TypeError, lambda: pair(1))',
      '        pair(1)',
      '',
    ].join('\n');
    const r = engine.check(user, 'test_user.py');
    assert.deepEqual(lines(r), ['10:missing-argument', '19:missing-argument', '28:missing-argument']);
  });
});

describe('the handler of except AttributeError', () => {
  const target = tempTree({
    'pp/__init__.py': 'from pp import common\n\ndef word(x):\n    pass\n',
    'pp/common.py': 'def lower(t):\n    pass\n',
    'qq/__init__.py': 'def other():\n    pass\n',
  });

  it('is a fallback for a version where the block reads an attribute of the same object that fails', async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'import pp',
      'import qq',
      '',
      'try:  # the new place',
      '    lower = pp.common.lower',
      'except AttributeError:',
      '    lower = pp.lower',
      '',
      'try:',
      '    lower = pp.common.lower',
      'except AttributeError:',
      '    gone = qq.gone',
      '',
      'try:',
      '    x = 1',
      'except AttributeError:',
      '    lower = pp.lower',
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    // the handler of the first block reads the old place of what the block reads; the others do not
    assert.deepEqual(lines(r), ['12:unknown-attribute', '17:unknown-attribute']);
  });
});

describe('a module that takes itself out of sys.modules', () => {
  it('may be anything once imported: its own entry deleted or replaced by its name', async () => {
    const target = tempTree({
      'net/__init__.py': '',
      // deletes its entry, then installs an object there (as an event-loop module does)
      'net/loop.py': 'import sys\ndel sys.modules["net.loop"]\nfrom net import default\ndefault.install()\n',
      'net/default.py': 'import sys\n\n\ndef install():\n    sys.modules["net.loop"] = object()\n',
      // reads another module's entry: nothing of its own changes
      'net/plain.py': 'import sys\nother = sys.modules["net.default"]\n\n\ndef f():\n    pass\n',
      'net/popped.py': 'import sys\nsys.modules.pop("net.popped", None)\n',
    });
    const engine = await Engine.open({ targets: [target] });
    const user = ['from net import loop, default, plain, popped', 'loop.call_later(1, print)', 'default.nothing()', 'plain.nothing()', 'popped.anything()', ''].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['3:unknown-attribute', '4:unknown-attribute']);
  });
});

describe('an import that runs only where an earlier import succeeded', () => {
  const target = tempTree({
    'lib/__init__.py': '',
    'lib/other.py': 'def f():\n    pass\n',
    // the flag records whether the compiled module could be imported (it cannot: it is not there)
    'lib/row.py': 'try:\n    from lib.cext import BaseRow\n    _use_cext = True\nexcept ImportError:\n    _use_cext = False\n',
    'lib/result.py': 'from .row import _use_cext\n\nif _use_cext:\n    from lib.cext import getter\nelse:\n    from lib.cext2 import getter\n',
    'lib/same.py': 'try:\n    import lib.cext\n    HAS = True\nexcept ImportError:  # not built\n    HAS = False\n\nif not HAS:\n    pass\nelse:\n    from lib.cext import getter\n',
    // flags that record something else: the import under them is reported
    'lib/wrong.py': 'try:\n    from lib.other import f\n    OK = True\nexcept ImportError:\n    OK = False\n\nif OK:\n    from lib.cext import getter\n',
    'lib/nohandler.py': 'try:\n    from lib.cext import BaseRow\n    OK = True\nexcept ValueError:\n    OK = False\n\nif OK:\n    from lib.cext import getter\n',
  });

  it('is not reported; the other branch, or a flag of another import, is', async () => {
    const engine = await Engine.open({ targets: [target] });
    const found = ['result', 'same', 'wrong', 'nohandler'].flatMap((m) => {
      const file = path.join(target, 'lib', `${m}.py`);
      return engine.check(fs.readFileSync(file, 'utf8'), file, undefined, { name: `lib.${m}`, isPackage: false }).findings.map((f) => `${m}:${f.range.start.line + 1}:${f.code}`);
    });
    // (the try of nohandler.py does not handle ImportError: its own import is reported too)
    assert.deepEqual(found, ['result:6:unknown-module', 'wrong:8:unknown-module', 'nohandler:2:unknown-module', 'nohandler:8:unknown-module']);
  });
});

describe('an attribute of a module written in any target form', () => {
  it('is a store, not a read', async () => {
    const target = tempTree({ 'pkg/__init__.py': '', 'pkg/uow.py': 'X = 1\n', 'pkg/sess.py': 'Y = 1\n' });
    const engine = await Engine.open({ targets: [target] });
    const user = ['from pkg import uow, sess', 'sess.set = (', '    uow.set', ') = 3', '(uow.c) = 5', 'a, uow.d = 1, 2', 'for uow.e in []:', '    pass', 'print(uow.f)', ''].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['9:unknown-attribute']);
  });
});

describe('a package whose import runs code that may change it', () => {
  it('may serve any name when a module it loads installs its import hook or reaches it through sys.modules', async () => {
    const target = tempTree({
      // tz's import runs tz._build, which fills tz from another package through sys.modules
      'tz/__init__.py': 'from . import _build\n',
      'tz/_build.py': 'import sys\n\n\nclass Loader:\n    def fill(self, module):\n        module.__dict__.update({})\n\n\nLoader().fill(sys.modules["tz"])\n',
      // hk's import runs a module of its own that installs an import hook
      'hk/__init__.py': 'from hk import _hook\n',
      'hk/_hook.py': 'import sys\n\n\nclass Finder:\n    pass\n\n\nsys.meta_path.append(Finder())\n',
      // compat installs a hook for its own names; pl only imports it
      'compat/__init__.py': 'import sys\nsys.meta_path.append(object())\n',
      'pl/__init__.py': 'import compat\nfrom pl import _reads\n',
      'pl/_reads.py': 'import sys\nother = sys.modules["compat"]\n',
    });
    const engine = await Engine.open({ targets: [target] });
    const user = ['import tz, hk, pl', 'from tz import concat', 'tz.partition(1)', 'from hk.extra import x', 'from pl import concat', 'pl.partition(1)', ''].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['5:unknown-import', '6:unknown-attribute']);
  });

  it('has the submodule an import in the same try body loaded, where the code after it runs', async () => {
    const target = tempTree({ 'pp/__init__.py': '', 'pp/other.py': '' });
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'import pp',
      'def version():',
      '    try:',
      '        import pp.commands.freeze',
      '        return pp.commands.freeze.freeze()',
      '    except (ImportError, IndexError):',
      '        return None',
      'def other():',
      '    try:',
      '        import pp.other',
      '        return pp.commands.freeze()',
      '    except ImportError:',
      '        return None',
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['11:unknown-attribute']);
  });
});

describe('a stub of a compiled module', () => {
  it('may leave out what the compiled module defines: its Cython source says, else the name is left open', async () => {
    const target = tempTree({
      'pkg/__init__.py': '',
      'pkg/fast.pyi': 'def dumps(obj) -> str: ...\n',
      'pkg/fast.cpython-311-x86_64-linux-gnu.so': '',
      'pkg/cy.pyi': 'def roll(x) -> int: ...\n',
      'pkg/cy.pyx': 'cpdef shift(x):\n    return x\n',
      'pkg/cy.cpython-311-x86_64-linux-gnu.so': '',
      'pkg/plain.pyi': 'def dumps(obj) -> str: ...\n',
    });
    const engine = await Engine.open({ targets: [target] });
    const user = ['from pkg.fast import dumps, decode', 'from pkg.cy import roll, shift', 'from pkg.cy import gone', 'from pkg.plain import decode', ''].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['3:unknown-import', '4:unknown-import']);
    // what a call takes is the compiled code's: the stub of a compiled module may lag behind it
    const calls = engine.check('from pkg import fast, cy, plain\nfast.dumps(1, 2)\ncy.roll(1, on_bad=2)\nplain.dumps(1, 2)\n', 'user.py');
    assert.deepEqual(lines(calls), ['4:too-many-positional']);
    assert.equal(calls.callsUnknown, 2);
  });

  it('reads a stub package beside an extension module as that module, its stub modules as submodules it makes', async () => {
    const target = tempTree({
      'tc/__init__.py': '',
      // Python passes over tc/_C/ (no __init__.py) and loads the extension module beside it
      'tc/_C/__init__.pyi': 'def declared(x) -> int: ...\n',
      'tc/_C/_nn.pyi': 'def pad(x) -> int: ...\n',
      'tc/_C.cpython-311-x86_64-linux-gnu.so': '',
      // a stub package with no extension module beside it is what it says
      'tp/__init__.py': '',
      'tp/_D/__init__.pyi': 'def declared(x) -> int: ...\n',
    });
    const engine = await Engine.open({ targets: [target] });
    const user = ['from tc import _C', 'from tc._C import _special', 'from tc._C._tree import View', '_C._nn.gone(1)', '_C.declared(1, 2)', 'from tp._D import gone', ''].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['6:unknown-import']);
  });

  it('leaves calls to the source beside a stub, whose signatures may be newer', async () => {
    const target = tempTree({
      'sp/__init__.py': '',
      'sp/dist.pyi': 'def js(p, q, base=...) -> float: ...\ndef same(p: int, *, scale: float = ...) -> float: ...\n',
      'sp/dist.py': 'def js(p, q, base=None, *, axis=0, keepdims=False):\n    pass\n\n\ndef same(p, *, scale=1.0):\n    pass\n',
    });
    const engine = await Engine.open({ targets: [target] });
    const r = engine.check('from sp.dist import js, same\njs(1, 2, axis=1)\nfrom sp.dist import gone\nsame(1, 2)\n', 'user.py');
    // js: the source takes more than its stub says (left unknown); same: the source has the
    // stub's parameters, and the call is checked against them
    assert.deepEqual(lines(r), ['3:unknown-import', '4:too-many-positional']);
    assert.equal(r.callsUnknown, 1);
  });
});

describe('stubs and marks bound to names', () => {
  const target = tempTree({
    'tl/__init__.py': '',
    'tl/typing_.py': 'from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from tl.frame import Frame\n',
    'tl/frame.py': 'class Frame:\n    pass\n\n\ndef check(left, right):\n    pass\n',
  });

  it('does not check the imports of a stub, which only type checkers read', async () => {
    const engine = await Engine.open({ targets: [target] });
    const text = 'from tl.typing_ import Frame\nfrom tl.gone import X\n';
    assert.deepEqual(lines(engine.check(text, 'user.pyi')), []);
    assert.deepEqual(lines(engine.check(text, 'user.py')), ['1:unknown-import', '2:unknown-module']);
  });

  it('takes a mark bound to a name for the mark (an expected failure)', async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'import pytest',
      'from tl.frame import check',
      'unhashable = pytest.mark.xfail(reason="unhashable")',
      'slow = pytest.mark.slow',
      '',
      'class TestX:',
      '    broken = pytest.mark.xfail(',
      '        reason="not supported"',
      '    )',
      '',
      '    @unhashable',
      '    def test_a(self):',
      '        check(1)',
      '',
      '    @broken',
      '    def test_b(self):',
      '        check(1)',
      '',
      '    @slow',
      '    def test_c(self):',
      '        check(1)',
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'test_x.py')), ['21:missing-argument']);
  });
});

describe('a module that hands a class of its own to a decorator that looks in sys.modules', () => {
  it('may have the attributes of that class, which the decorator may copy into it', async () => {
    const target = tempTree({
      'be/__init__.py': '',
      'be/base.py': 'import sys\n\n\nclass Backend:\n    @staticmethod\n    def export(cls):\n        for name in ["show", "Canvas"]:\n            setattr(sys.modules[cls.__module__], name, getattr(cls, name))\n        return cls\n\n\ndef plain(cls):\n    return cls\n',
      'be/agg.py': 'from be.base import Backend\n\n\n@Backend.export\nclass _Agg(Backend):\n    Canvas = object\n\n    def show(self):\n        pass\n',
      'be/other.py': 'from be.base import Backend, plain\n\n\n@plain\nclass _Other(Backend):\n    pass\n',
    });
    const engine = await Engine.open({ targets: [target] });
    const r = engine.check('from be.agg import Canvas, show\nfrom be.other import Canvas as C2\nfrom be.agg import nothing\n', 'user.py');
    // the decorator copies attributes of the class: a name the class does not have is not there
    assert.deepEqual(lines(r), ['2:unknown-import', '3:unknown-import']);
  });
});

describe('names a module sets through locals()', () => {
  it('may be any name (at module level locals() is the module namespace)', async () => {
    const target = tempTree({
      'sig/__init__.py': 'from sig import windows\n\n\ndef deco(name):\n    return getattr(windows, name)\n\n\nfor name in ("hann",):\n    locals()[name] = deco(name)\n',
      'sig/windows.py': 'def hann(n):\n    pass\n',
    });
    const engine = await Engine.open({ targets: [target] });
    assert.deepEqual(lines(engine.check('from sig import hann\n', 'user.py')), []);
  });
});

describe('a plain module whose __getattr__ may answer any name', () => {
  it('may answer __path__ as well, and so have submodules', async () => {
    const target = tempTree({
      'dk/__init__.py': '',
      'dk/ml.py': 'def __getattr__(value):\n    import dk_ml\n    return getattr(dk_ml, value)\n',
      'dk/plain.py': 'X = 1\n',
      'dk/table.py': 'def __getattr__(name):\n    if name == "old":\n        return 1\n    raise AttributeError(name)\n',
    });
    const engine = await Engine.open({ targets: [target] });
    const r = engine.check('from dk.ml.model_selection import Grid\nfrom dk.plain.sub import Y\nfrom dk.table.sub import Z\n', 'user.py');
    assert.deepEqual(lines(r), ['2:unknown-module', '3:unknown-module']);
  });
});

describe('what a module of the target does to its own callables, checked as itself', () => {
  it('counts defaults it sets afterwards and placeholders it registers, inside the module too', async () => {
    const target = tempTree({
      'lp/__init__.py': '',
      'lp/util.py': [
        'from collections import namedtuple',
        '',
        'Problem = namedtuple("Problem", "c a b")',
        'Problem.__new__.__defaults__ = (None,) * 2',
        '',
        'def overload(f):',
        '    return lambda impl: impl',
        '',
        'def _copy():',
        '    pass',
        '',
        '@overload(_copy)',
        'def ol_copy(a):',
        '    return a',
        '',
        'def plain(a):',
        '    return a',
        '',
        'def use(x):',
        '    return Problem(x), _copy(x), plain()',
        '',
      ].join('\n'),
    });
    const engine = await Engine.open({ targets: [target] });
    const file = path.join(target, 'lp', 'util.py');
    const r = engine.check(fs.readFileSync(file, 'utf8'), file, undefined, { name: 'lp.util', isPackage: false });
    assert.deepEqual(lines(r), ['20:missing-argument']);
  });
});

describe('a name a function of the module declares global', () => {
  it('may be bound in the module once that function ran', async () => {
    const target = tempTree({
      'cf/__init__.py': '',
      'cf/uses.py': 'ffi = None\n\n\ndef init():\n    global ffi, cffi_sin\n    cffi_sin = ffi\n',
    });
    const engine = await Engine.open({ targets: [target] });
    const r = engine.check('from cf import uses\nuses.cffi_sin(1)\nuses.cffi_cos(1)\n', 'user.py');
    assert.deepEqual(lines(r), ['3:unknown-attribute']);
  });
});
