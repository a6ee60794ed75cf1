/** Binding rules on small targets of our own: each rule, and what must stay silent. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brief, checkAgainst } from '../helpers';

const LIB = {
  'lib/__init__.py': 'from .core import Engine as Engine\nfrom .core import helper\n',
  'lib/core.py': `
def helper(a, b, /, c, d=1, *args, e, f=2, **kw):
    pass

def plain(x, y=0):
    pass

def kwonly(x, *, flag):
    pass

class Base:
    def __init__(self, size, *, name="base"):
        pass

    def run(self, steps, verbose=False):
        pass

    @staticmethod
    def make(kind):
        pass

    @classmethod
    def create(cls, kind, *, fast=False):
        pass

class Engine(Base):
    pass
`,
};

describe('functions', () => {
  it('reports each binding error kind with the parameter it concerns', async () => {
    const r = await checkAgainst(LIB, [
      'from lib.core import helper, plain, kwonly',
      'helper(1, 2, 3, e=4)', // ok
      'helper(1, 2, e=4)', // missing c
      'helper(1, 2, 3, a=9, e=4)', // a is positional-only, but **kw takes it: ok
      'plain(1, 2, 3)', // too many
      'plain(1, x=2)', // multiple values
      'plain(1, z=2)', // unexpected
      'kwonly(1)', // missing kw-only
      'kwonly(1, flag=True)', // ok
    ].join('\n'));
    assert.deepEqual(brief(r), ['3:missing-argument:c', '5:too-many-positional:', '6:multiple-values:x', '7:unexpected-keyword:z', '8:missing-argument:flag']);
  });

  it('reports positional-only passed as keyword only without **kwargs', async () => {
    const r = await checkAgainst({ 'm.py': 'def p(a, /, b):\n    pass\ndef q(a, /, **kw):\n    pass\n' }, 'import m\nm.p(a=1, b=2)\nm.q(a=1)\n');
    // q(a=1): the keyword lands in **kw, so positional-only `a` is still missing (as CPython says)
    assert.deepEqual(brief(r).sort(), ['2:missing-argument:a', '2:positional-only-as-keyword:a', '3:missing-argument:a']);
  });

  it('stays silent when star arguments could supply what is missing', async () => {
    const r = await checkAgainst(LIB, [
      'from lib.core import plain, kwonly',
      'args = (1,)',
      'kw = {}',
      'plain(*args)',
      'kwonly(**kw)',
      'plain(*args, y=3)',
      'plain(1, 2, *args)', // fine when *args is empty: silent
      'plain(1, 2, 3, *args)', // too many whatever *args holds
      'plain(*(1, 2, 3))', // literal star: expanded
      'plain(**{"x": 1, "z": 2})', // literal dict: expanded
      'plain(1, *args, x=2)', // x is filled by the literal 1 before the star
    ].join('\n'));
    assert.deepEqual(brief(r), ['8:too-many-positional:', '9:too-many-positional:', '10:unexpected-keyword:z', '11:multiple-values:x']);
  });
});

describe('classes and methods', () => {
  it('binds constructors through inherited __init__ across modules and re-exports', async () => {
    const r = await checkAgainst(LIB, 'import lib\nfrom lib import Engine as E\nlib.Engine(1, name="x")\nE()\nE(1, 2)\n');
    assert.deepEqual(brief(r), ['4:missing-argument:size', '5:too-many-positional:']);
    assert.equal(r.findings[0].callee, 'lib.core.Engine');
    assert.match(r.findings[0].message, /size/);
    assert.equal(r.findings[0].definition?.line, 12); // Base.__init__ decides
  });

  it('binds Class.method with explicit self, static and class methods', async () => {
    const r = await checkAgainst(LIB, [
      'from lib.core import Base',
      'b = None',
      'Base.run(b, 10)', // ok: self passed explicitly
      'Base.run(10)', // missing steps (10 is self)
      'Base.make("a")', // ok
      'Base.make()', // missing kind
      'Base.create("k", fast=True)', // ok
      'Base.create("k", slow=True)', // unexpected
    ].join('\n'));
    assert.deepEqual(brief(r), ['4:missing-argument:steps', '6:missing-argument:kind', '8:unexpected-keyword:slow']);
  });

  it('binds super().__init__ in a user subclass to the next class in its MRO', async () => {
    const r = await checkAgainst(LIB, [
      'from lib.core import Engine',
      'class Mine(Engine):',
      '    def __init__(self):',
      '        super().__init__(name="mine")',
      'class Fine(Engine):',
      '    def __init__(self):',
      '        super().__init__(4)',
    ].join('\n'));
    assert.deepEqual(brief(r), ['4:missing-argument:size']);
  });

  it('stays silent on bases, decorators and metaclasses it cannot see', async () => {
    const r = await checkAgainst(
      {
        'm.py': `
import torch
import unknown_lib

class FromTorch(unknown_lib.Base):
    pass

def mystery(fn):
    return make_wrapper(fn)

@mystery
def decorated(a):
    pass

class Meta(type):
    def __call__(cls, *a, **k):
        pass

class WithMeta(metaclass=Meta):
    def __init__(self, x):
        pass

class Mixin:
    pass

class Late(Mixin, unknown_lib.Struct):
    pass
`,
      },
      'from m import FromTorch, decorated, WithMeta, Late\nFromTorch(1, 2, z=3)\ndecorated()\nWithMeta()\nLate(anything=1)\n',
    );
    assert.deepEqual(brief(r), []);
    assert.equal(r.callsUnknown, 4);
  });

  it('treats a (*args, **kwargs) wrapper decorator as transparent', async () => {
    const r = await checkAgainst(
      {
        'm.py': `
import functools

def logged(fn):
    @functools.wraps(fn)
    def inner(*args, **kwargs):
        print("calling")
        return fn(*args, **kwargs)
    return inner

@logged
def work(a, b):
    pass

@functools.lru_cache(maxsize=None)
def cached(a):
    pass
`,
      },
      'from m import work, cached\nwork(1)\ncached(1, 2)\n',
    );
    assert.deepEqual(brief(r), ['2:missing-argument:b', '3:too-many-positional:']);
  });
});

describe('synthesised constructors', () => {
  it('dataclass fields: InitVar, ClassVar, field(init=False), defaults, kw_only and KW_ONLY', async () => {
    const r = await checkAgainst(
      {
        'cfg.py': `
from dataclasses import dataclass, field, InitVar, KW_ONLY
from typing import ClassVar

@dataclass
class Base:
    size: int
    LIMIT: ClassVar[int] = 3
    cache: dict = field(default_factory=dict)
    hidden: int = field(init=False, default=0)
    mode: InitVar[str] = "a"
    _: KW_ONLY
    tag: str

@dataclass(kw_only=True)
class Child(Base):
    depth: int
    extra: int = 1
`,
      },
      [
        'from cfg import Base, Child',
        'Base(1, {}, "m", tag="t")', // ok
        'Base(1, tag="t", hidden=1)', // hidden is init=False
        'Base(1, LIMIT=2, tag="t")', // ClassVar is no parameter
        'Base(1)', // tag is required keyword-only
        'Child(1, depth=2, tag="x")', // ok
        'Child(1, 2, tag="x")', // depth is keyword-only, and missing
        'Child(1, {}, "m", 5, depth=1, tag="x")', // three positional fields only
      ].join('\n'),
    );
    assert.deepEqual(brief(r).sort(), ['3:unexpected-keyword:hidden', '4:unexpected-keyword:LIMIT', '5:missing-argument:tag', '7:missing-argument:depth', '8:too-many-positional:']);
    assert.equal(r.findings[0].signature, 'Base(size: int, cache: dict = <factory>, mode: InitVar[str] = "a", *, tag: str)');
  });

  it('msgspec.Struct fields count although msgspec is not installed, mixins first or not', async () => {
    const r = await checkAgainst(
      {
        'sp.py': `
import msgspec

class Mixin:
    pass

class Params(Mixin, msgspec.Struct, omit_defaults=True):
    n: int = 1
    max_tokens: int = 16
    _private: list = []

class Strict(msgspec.Struct, kw_only=True):
    name: str
`,
      },
      'from sp import Params, Strict\nParams(max_tokens=1, n=2)\nParams(2)\nParams(_private=[1])\nParams(bogus=1)\nStrict("x")\n',
    );
    assert.deepEqual(brief(r).sort(), ['5:unexpected-keyword:bogus', '6:missing-argument:name', '6:too-many-positional:']);
  });

  it('pydantic dataclasses: unknown keywords only when extra is forbidden', async () => {
    const r = await checkAgainst(
      {
        'pd.py': `
from pydantic.dataclasses import dataclass
from pydantic import ConfigDict, Field

@dataclass
class Loose:
    a: int
    b: int = Field(None, ge=0)

@dataclass(config=ConfigDict(extra="forbid"))
class Tight:
    a: int
`,
      },
      'from pd import Loose, Tight\nLoose(1, bogus=2)\nLoose()\nTight(1, bogus=2)\nLoose(a=1)\n',
    );
    assert.deepEqual(brief(r), ['3:missing-argument:a', '4:unexpected-keyword:bogus']);
  });
});

describe('imports and module attributes', () => {
  it('reports names and submodules the target no longer has, in every import form', async () => {
    const r = await checkAgainst(
      {
        'pkg/__init__.py': 'from .a import kept\n',
        'pkg/a.py': 'def kept():\n    pass\n',
        'pkg/sub/__init__.py': '',
      },
      [
        'import pkg.a as pa', // ok
        'import pkg.gone', // unknown-module
        'from pkg import kept, removed', // unknown-import removed
        'from pkg.a import kept as k2', // ok
        'from pkg import sub', // submodule: ok
        'def f():',
        '    from pkg.a import vanished', // unknown-import, inside a function
        '    return pa.kept() + pa.lost()', // unknown-attribute lost
        'try:',
        '    from pkg.a import optional', // guarded by except ImportError: silent
        'except ImportError:',
        '    optional = None',
        'from typing import TYPE_CHECKING',
        'if TYPE_CHECKING:',
        '    from pkg.a import only_for_types', // never runs: silent
      ].join('\n'),
    );
    assert.deepEqual(
      r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.callee}`),
      ['2:unknown-module:pkg.gone', '3:unknown-import:pkg.removed', '7:unknown-import:pkg.a.vanished', '8:unknown-attribute:pkg.a.lost'],
    );
  });

  it('follows star imports, __getattr__ name tables and conditional definitions', async () => {
    const r = await checkAgainst(
      {
        'm/__init__.py': `
from .impl import *
import sys
if sys.version_info >= (3, 12):
    def both(a):
        pass
else:
    def both(a, b):
        pass
_LAZY = {"Lazy": ".impl"}
def __getattr__(name):
    if name in _LAZY:
        return 1
    raise AttributeError(name)
`,
        'm/impl.py': '__all__ = ["Exported"]\nclass Exported:\n    pass\nclass NotExported:\n    pass\n',
      },
      'from m import Exported, Lazy, NotExported, both\nboth(1)\nboth(1, 2)\nboth()\n',
    );
    assert.deepEqual(
      r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param ?? f.callee}`),
      ['1:unknown-import:m.NotExported', '4:missing-argument:a'],
    );
  });
});

describe('receivers whose class is certain', () => {
  const LIB2 = {
    'eng.py': `
class Engine:
    def __init__(self, size):
        self.size = size

    def run(self, steps, verbose=False):
        pass

    @staticmethod
    def make(kind):
        pass

class Shadowed:
    def __init__(self):
        self.run = lambda *a: None

    def run(self, steps):
        pass

class Odd:
    def __new__(cls, *args):
        return object()

    def run(self, steps):
        pass
`,
  };

  it('checks x.method(...) after x = C(...) in the same scope, and self.x set once in __init__', async () => {
    const r = await checkAgainst(LIB2, [
      'from eng import Engine, Shadowed, Odd',
      'def work():',
      '    e = Engine(4)',
      '    e.run(1, True)', // ok
      '    e.run()', // missing steps
      '    e.make()', // static: missing kind
      '    s = Shadowed()',
      '    s.run()', // instance attribute shadows the method: silent
      '    o = Odd()',
      '    o.run()', // __new__ may return anything: silent
      '    z = Engine(1)',
      '    z = None',
      '    z.run()', // on None the call fails anyway: where it runs, z holds the Engine (missing steps)
      'class User:',
      '    def __init__(self):',
      '        self.engine = Engine(2)',
      '        self.other = Engine(3)',
      '    def go(self):',
      '        self.engine.run(verbose=True)', // missing steps
      '        self.other.run()', // assigned twice, once a value not followed: silent
      '        self.later.run()', // None until reset: a call on it runs only on the Engine
      '    def reset(self):',
      '        self.other = []',
      '        self.later = None',
      '        self.later = Engine(5)',
    ].join('\n'));
    assert.deepEqual(brief(r).sort(), ['13:missing-argument:steps', '19:missing-argument:steps', '21:missing-argument:steps', '5:missing-argument:steps', '6:missing-argument:kind']);
  });

  it('a local rebound to an instance of another class, or to a value not followed, stays silent', async () => {
    const r = await checkAgainst(LIB2, ['from eng import Engine, Shadowed', 'def work(c):', '    z = Engine(1)', '    if c:', '        z = c.make()', '    z.run()', '    y = Engine(1)', '    y = Shadowed()', '    y.run()', ''].join('\n'));
    assert.deepEqual(brief(r), []);
  });
});

describe('more constructors', () => {
  it("uses a metaclass's __call__, and hands a forwarding one over to __init__", async () => {
    const r = await checkAgainst(
      {
        'mc.py': `
class Meta(type):
    def __call__(cls, a, b=1):
        return super().__call__()

class Forward(type):
    def __call__(cls, *args, **kwargs):
        return super().__call__(*args, **kwargs)

class A(metaclass=Meta):
    def __init__(self):
        pass

class B(metaclass=Forward):
    def __init__(self, x):
        pass
`,
      },
      'from mc import A, B\nA()\nA(1, 2)\nB()\nB(1)\n',
    );
    assert.deepEqual(brief(r), ['2:missing-argument:a', '4:missing-argument:x']);
  });

  it('pydantic BaseModel: positional arguments, missing fields only without before-validators, unknown keys only with extra="forbid"', async () => {
    const r = await checkAgainst(
      {
        'pm.py': `
from pydantic import BaseModel, ConfigDict, Field, model_validator

class Plain(BaseModel):
    a: int
    b: int = 2
    c: int = Field(None, ge=0)
    _private: int = 0

class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    a: int

class Validated(BaseModel):
    a: int

    @model_validator(mode="before")
    @classmethod
    def fill(cls, data):
        data.setdefault("a", 0)
        return data

class Aliased(BaseModel):
    a: int = Field(alias="A")
`,
      },
      'from pm import Plain, Strict, Validated, Aliased\nPlain()\nPlain(a=1, zzz=2)\nPlain(1, a=1)\nStrict(a=1, zzz=2)\nValidated()\nAliased(A=1)\nAliased()\n',
    );
    assert.deepEqual(brief(r), ['2:missing-argument:a', '4:too-many-positional:', '5:unexpected-keyword:zzz', '8:missing-argument:A']);
  });

  it('attrs: auto_attribs fields, attr.ib fields, private names without the underscore', async () => {
    const r = await checkAgainst(
      {
        'at.py': `
import attr
from attrs import define, field

@define
class P:
    x: int
    _y: int = 0
    z: list = field(factory=list)

@attr.s
class Q:
    a = attr.ib()
    b = attr.ib(5)
    c = attr.ib(init=False)
`,
      },
      'from at import P, Q\nP(1, y=2)\nP()\nP(1, _y=2)\nQ(1)\nQ(1, 2, 3)\n',
    );
    assert.deepEqual(brief(r), ['3:missing-argument:x', '4:unexpected-keyword:_y', '6:too-many-positional:']);
  });

  it('follows lazy re-exports served by a module __getattr__ table', async () => {
    const r = await checkAgainst(
      {
        'pkg/__init__.py': `
MODULE_ATTRS = {"Engine": ".engine:Engine"}
def __getattr__(name):
    from importlib import import_module
    if name in MODULE_ATTRS:
        module_name, attr = MODULE_ATTRS[name].split(":")
        return getattr(import_module(module_name, __package__), attr)
    else:
        raise AttributeError(name)
`,
        'pkg/engine.py': 'class Engine:\n    def __init__(self, size):\n        pass\n',
      },
      'from pkg import Engine, Missing\nEngine()\n',
    );
    assert.deepEqual(brief(r), ['1:unknown-import:', '2:missing-argument:size']);
  });
});

describe('constructors whose arguments another signature takes', () => {
  it('leaves a class whose __new__ builds a class it names to that class, and a registry lookup as it was', async () => {
    const r = await checkAgainst(
      {
        'ops.py': `
class Operator:
    def __new__(cls, *args, **kwargs):
        if cls is Operator:
            return super(Operator, cls).__new__(_Custom)
        return super(Operator, cls).__new__(cls)

    def __init__(self, dtype, shape):
        pass

class _Custom(Operator):
    def __init__(self, shape, matvec, rmatvec=None):
        pass

class Grouper:
    def __new__(cls, *args, **kwargs):
        if kwargs.get("freq") is not None:
            cls = TimeGrouper
        return super().__new__(cls)

    def __init__(self, key=None, freq=None):
        pass

class TimeGrouper(Grouper):
    def __init__(self, freq="Min", closed=None, label=None):
        pass

REGISTRY = {}

class Op:
    def __new__(cls, *args, **kwargs):
        chosen = REGISTRY.get(cls.__name__, cls)
        return super().__new__(chosen)

    def __init__(self, size):
        pass
`,
      },
      'from ops import Operator, Op, Grouper\nOperator((2, 2), matvec=len)\nOp(1, 2)\nGrouper(freq="D", closed="left")\n',
    );
    // Operator(...) runs _Custom.__init__ and Grouper(freq=...) TimeGrouper's (both left
    // unknown); Op's registry may hold the class itself
    assert.deepEqual(brief(r), ['3:too-many-positional:']);
    assert.equal(r.callsUnknown, 2);
  });

  it('leaves a callable whose defaults the module sets after defining it', async () => {
    const r = await checkAgainst(
      {
        'lp.py': `
from collections import namedtuple

Problem = namedtuple('Problem', 'c a b')
Problem.__new__.__defaults__ = (None,) * 2

def f(a, b):
    pass

f.__defaults__ = (1,)

def g(a, b):
    pass
`,
      },
      'from lp import Problem, f, g\nProblem(1)\nf(1)\ng(1)\n',
    );
    assert.deepEqual(brief(r), ['4:missing-argument:b']);
  });
});

describe('calls that a compiler gives their meaning', () => {
  it('leaves a class that Python cannot build, and a placeholder registered with a decorator', async () => {
    const r = await checkAgainst(
      {
        'kern.py': `
class Stub:
    """Objects a compiler handles inside kernels."""
    def __new__(cls):
        raise NotImplementedError("%s is not instantiable" % cls)

class grid(Stub):
    """grid(ndim)"""

class Plain:
    def __new__(cls):
        return super().__new__(cls)

def overload(f):
    def register(impl):
        return impl
    return register

def _copy_to_fortran_order():
    pass

@overload(_copy_to_fortran_order)
def ol_copy(a):
    return a

def lonely():
    pass
`,
      },
      'from kern import grid, Plain, _copy_to_fortran_order, lonely\ngrid(1)\nPlain(1)\n_copy_to_fortran_order(2)\nlonely(3)\n',
    );
    assert.deepEqual(brief(r), ['3:too-many-positional:', '5:too-many-positional:']);
    assert.equal(r.callsUnknown, 2);
  });
});
