/**
 * Decorators that hand a class back after changing it (replacing `__init__` or `__call__`,
 * appending a base), and calls of instances (`__call__`, and torch.nn.Module's, which runs
 * `forward`): what stays checked, what becomes unknown, on a fake library of our own.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CheckResult } from '../../server/src/engine';
import { checkAgainst } from '../helpers';

const WRAPPER = `
class CompiledWrapper:
    def compile_now(self, mode: str) -> None: ...
    def forward(self, *args, **kwargs): ...
`;

const COMPILED = `
from typing import Callable, TypeVar, overload
from lib.wrapper import CompiledWrapper

KEY = "_compile_marker"
T = TypeVar("T")


@overload
def compiled(cls: type[T]) -> type[T]: ...


@overload
def compiled(*, dims: dict | None = None) -> Callable[[type[T]], type[T]]: ...


def compiled(cls=None, *, dims=None):
    def helper(cls):
        if not hasattr(cls, "forward"):
            raise TypeError("a forward method is needed")
        return _compiled(cls, dims or {})

    if cls is not None:
        assert isinstance(cls, type)
        return helper(cls)

    return helper


def _compiled(cls, dims):
    if CompiledWrapper in cls.__bases__:
        return cls
    cls.__bases__ = cls.__bases__ + (CompiledWrapper,)
    old_init = cls.__init__
    setattr(cls, KEY, True)

    def __init__(self, *, config=None, **kwargs):
        old_init(self, config=config, **kwargs)

    cls.__init__ = __init__

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    cls.__call__ = __call__
    return cls


def replacing(cls):
    cls.__init__ = lambda self: None
    return CompiledWrapper


def prepending(cls):
    cls.__bases__ = (CompiledWrapper,) + cls.__bases__
    return cls


def marking(cls):
    setattr(cls, KEY, True)
    return _finish(cls)


def _finish(cls):
    cls.finished = True
    return cls


def renaming(cls, name):
    setattr(cls, name, True)
    return cls


def hidden(cls):
    return renaming(cls, "embed")


def hook(fn):
    return _register(fn, "hooks")


def _register(fn, group):
    fn.hook_group = group
    return fn


def resigned(fn):
    return _resign(fn)


def _resign(fn):
    fn.__signature__ = None
    return fn


@hook
def on_start(name, retries):
    return name


@resigned
def on_stop(name):
    return name
`;

const MODELS = `
import torch.nn as nn
from lib.compiled import compiled, hidden, marking, prepending, replacing


@compiled
class Encoder(nn.Module):
    def __init__(self, *, config, prefix=""):
        super().__init__()

    def embed(self, ids, scale):
        return ids

    def forward(self, ids, positions):
        return ids


@compiled(dims={"ids": 0})
class Decoder(nn.Module):
    def __init__(self, *, config):
        super().__init__()

    def embed(self, ids):
        return ids

    def forward(self, ids):
        return ids


@compiled
class Visible:
    def __init__(self, *, config):
        self.config = config

    def forward(self, x):
        return x


@replacing
class Replaced(nn.Module):
    def embed(self, ids):
        return ids


@prepending
class Prepended:
    def embed(self, ids):
        return ids


@marking
class Marked:
    def __init__(self, size):
        self.size = size

    def embed(self, ids):
        return ids


@hidden
class Hidden:
    def embed(self, ids):
        return ids


class Block(nn.Module):
    def __init__(self, size):
        super().__init__()
        self.size = size

    def forward(self, x, mask=None):
        return x


class WideBlock(Block):
    def forward(self, *xs):
        return xs


class Scorer:
    def __call__(self, a):
        return a


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(4)
        self.scorer = Scorer()

    def run(self, x):
        return self.block(x, mask=None)
`;

const FILES = { 'lib/__init__.py': '', 'lib/wrapper.py': WRAPPER, 'lib/compiled.py': COMPILED, 'lib/models.py': MODELS };

const USER = `from lib.models import Block, Decoder, Encoder, Hidden, Marked, Prepended, Replaced, Scorer, Stack, Visible


def use(config, block: Block):
    enc = Encoder(config=config)
    enc.embed([1])
    dec = Decoder(config=config)
    dec.embed([1], 2)
    enc(1, 2, 3)
    Replaced().embed(1)
    Prepended().embed(1, 2)
    v = Visible(config=config)
    v.compile_now()
    b = Block(4)
    b(1, mask=None, extra=2)
    b(1)
    s = Scorer()
    s(1, 2)
    Stack().block(1, 2, 3)
    Stack().scorer()
    block(1, 2, 3)
    Marked(1).embed()
    Marked()
    Hidden().embed(1, 2)


class MyEncoder(Encoder):
    def run(self):
        return self.embed(1)


from lib.compiled import on_start, on_stop
on_start("a")
on_stop("a", 2)
`;

let cached: Promise<CheckResult> | undefined;
const result = (): Promise<CheckResult> => (cached ??= checkAgainst(FILES, USER));

/** `line:code:param` of the findings on a line (1-based). */
function on(r: CheckResult, line: number): string[] {
  return r.findings.filter((f) => f.range.start.line + 1 === line).map((f) => `${f.code}:${f.param ?? ''}`);
}

function status(r: CheckResult, line: number, callee: RegExp): { status: string; reason?: string } {
  const c = r.calls.find((x) => x.range.start.line + 1 === line && callee.test(x.callee));
  assert.ok(c, `a call of ${callee} on line ${line}`);
  return { status: c.status ?? 'checked', reason: c.unknownReason ?? undefined };
}

describe('decorators that hand the class back, changed', () => {
  it('follows methods of a class whose decorator replaced __init__ and __call__ and appended a base, used bare or called', async () => {
    const r = await result();
    assert.deepEqual(on(r, 6), ['missing-argument:scale']);
    assert.deepEqual(on(r, 8), ['too-many-positional:']);
    // an inherited method of a user subclass of such a class
    assert.deepEqual(on(r, 29), ['missing-argument:scale']);
  });

  it('leaves the constructor and calls of the instance unknown where the decorator replaced __init__ or __call__', async () => {
    const r = await result();
    assert.deepEqual(on(r, 5), []);
    assert.match(status(r, 5, /Encoder/).reason ?? '', /sets the class's __init__/);
    assert.deepEqual(on(r, 9), []);
    assert.equal(status(r, 9, /enc/).status, 'untraced');
    assert.match(status(r, 9, /enc/).reason ?? '', /sets its __call__/);
  });

  it('looks a method up in the base the decorator appended', async () => {
    const r = await result();
    assert.deepEqual(on(r, 13), ['missing-argument:mode']);
  });

  it('stays silent where the decorator returns another object, writes the bases another way, or sets the method by a computed name', async () => {
    const r = await result();
    for (const line of [10, 11, 24]) {
      assert.deepEqual(on(r, line), [], `line ${line}`);
      assert.notEqual(status(r, line, /embed/).status, 'checked', `line ${line}`);
    }
  });

  it('reads a setattr name from a module constant, and follows a decorator that hands the class on to another function', async () => {
    const r = await result();
    assert.deepEqual(on(r, 22), ['missing-argument:ids']);
    assert.deepEqual(on(r, 23), ['missing-argument:size']);
  });
});

describe('function decorators that hand the function back', () => {
  it('checks a function whose decorator hands it on to a module function that returns it, not one that sets its __signature__', async () => {
    const r = await result();
    assert.deepEqual(on(r, 33), ['missing-argument:retries']);
    assert.deepEqual(on(r, 34), []);
    assert.equal(status(r, 34, /on_stop/).status, 'unknown');
  });
});

describe('calls of instances', () => {
  it('binds a call of a torch.nn.Module instance to its forward, and of another instance to its __call__', async () => {
    const r = await result();
    assert.deepEqual(on(r, 15), ['unexpected-keyword:extra']);
    assert.deepEqual(on(r, 16), []);
    assert.equal(status(r, 16, /Block\.forward$/).status, 'checked');
    assert.deepEqual(on(r, 18), ['too-many-positional:']);
    // through attributes of an instance
    assert.deepEqual(on(r, 19), ['too-many-positional:']);
    assert.deepEqual(on(r, 20), ['missing-argument:a']);
  });

  it('stays unknown where a subclass the value may be binds the call another way', async () => {
    const r = await result();
    // `block: Block` may hold a WideBlock, whose forward takes any number of arguments
    assert.deepEqual(on(r, 21), []);
    assert.equal(status(r, 21, /Block\.forward$/).status, 'unknown');
  });
});
