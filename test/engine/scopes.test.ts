/**
 * Names and their scopes: a comprehension's `for` targets are names of its own, which hide the
 * enclosing ones inside it. A real library reads `{config.name: config for config in configs}`
 * in a module that imports a module named `config`: the `config` of the comprehension is an
 * element of `configs`, not that module. And names a module binds for type checkers only (under
 * `if TYPE_CHECKING:`) are there for annotations: a real library annotates `-> _repr.ReprArgs`.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

const LIB = {
  'lib/__init__.py': '',
  'lib/config.py': 'DEBUG = False\n',
  'lib/types.py': [
    'from typing import TYPE_CHECKING, TypeAlias',
    'if TYPE_CHECKING:',
    '    from collections.abc import Iterable',
    '    Args: TypeAlias = Iterable[tuple[str, int]]',
    '    Other = int',
    'RUNTIME = 1',
    '',
  ].join('\n'),
  'lib/engine.py': [
    'class Builder:',
    '    name: str',
    '    def build(self, prefix_len: int, metadata: dict) -> dict:',
    '        return metadata',
    '',
    'def builders() -> list[Builder]:',
    '    return [Builder()]',
    '',
  ].join('\n'),
};

function lines(r: CheckResult): string[] {
  return r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort();
}

describe('names and their scopes', () => {
  it('a comprehension target hides a module of the same name inside the comprehension only', async () => {
    const engine = await Engine.open({ targets: [tempTree(LIB)] });
    const user = [
      'from lib import config', // 1
      'from lib.engine import Builder', // 2
      'def names(configs: list[Builder]):', // 3
      '    by_name = {config.name: config for config in configs}', // 4
      '    listed = [config.name for config in configs]', // 5
      '    some = set(config.name for config in configs if config.name)', // 6
      '    pairs = [(a, config.name) for a in configs for config in configs]', // 7
      '    return config.name', // 8: the module, which has no `name`
      'class Registry:', // 9
      '    table = {config.name: 1 for config in []}', // 10
      'top = {config.name for config in []}', // 11
      'flag = config.DEBUG', // 12
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['8:unknown-attribute']);
  });

  it('a comprehension target over an annotated container is one of its elements, and its calls are checked', async () => {
    const engine = await Engine.open({ targets: [tempTree(LIB)] });
    const user = [
      'from lib.engine import builders', // 1
      'def run():', // 2
      '    a = [b.build(1) for b in builders()]', // 3: metadata missing
      '    c = {b.build(1, {}) for b in builders()}', // 4: binds
      '    d = list(b.build(1, {}, 2) for b in builders())', // 5: one too many
      '    e = [b.build(1) for b in b]', // 6: the iterable names the target: not followed
      '    return a, c, d, e',
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['3:missing-argument', '5:too-many-positional']);
    const on = (line: number) => r.calls.filter((x) => x.range.start.line + 1 === line && x.callee.endsWith('.build')).map((x) => x.status ?? 'checked');
    assert.deepEqual(on(4), ['checked']);
    assert.deepEqual(on(6), []);
    // a loop statement over what a call returns: the same elements
    const loop = engine.check(['from lib.engine import builders', 'def go():', '    for b in builders():', '        b.build(1)', ''].join('\n'), 'loop.py');
    assert.deepEqual(lines(loop), ['4:missing-argument']);
  });

  it('a name bound only under TYPE_CHECKING is there for annotations and TYPE_CHECKING blocks, not for code that runs', async () => {
    const engine = await Engine.open({ targets: [tempTree(LIB)] });
    const user = [
      'from typing import TYPE_CHECKING', // 1
      'from lib import types', // 2
      'def f(a: types.Other, b: "types.Args" = None) -> types.Args:', // 3
      '    c: types.Iterable = []', // 4
      '    return c', // 5
      'if TYPE_CHECKING:', // 6
      '    Alias = types.Args', // 7
      'args = types.Args', // 8: runs: AttributeError
      'def g() -> types.Gone: ...', // 9: bound nowhere
      'n = types.RUNTIME', // 10
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['8:unknown-attribute', '9:unknown-attribute']);
  });
});

describe('names a class body binds, and code that never runs', () => {
  it('reads a name the class body binds from the class body, where the body itself runs', async () => {
    const target = tempTree(LIB);
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'from lib import config', // 1
      'class Handler:', // 2
      '    @property', // 3
      '    def config(self):', // 4
      '        return 1', // 5
      '    @config.setter', // 6: the property, not the module
      '    def config(self, value):', // 7
      '        config.gone', // 8: in a method the class body is not seen: the module
      '    other = config.missing', // 9: the body binds config: the property's attribute, not the module's
      '',
      'class Plain:', // 11
      '    flag = config.absent', // 12: nothing in this body binds config: the module
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['12:unknown-attribute', '8:unknown-attribute']);
  });

  it('leaves code after a statement that always leaves its block unchecked', async () => {
    const target = tempTree(LIB);
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'from lib import config', // 1
      'def f(x):', // 2
      '    if True:', // 3
      '        return 42', // 4
      '    config.gone1', // 5: never runs
      'def g(x):', // 6
      '    if x:', // 7
      '        return 1', // 8
      '    config.gone2', // 9: runs when x is false
      'def h(x):', // 10
      '    if x:', // 11
      '        raise ValueError()', // 12
      '    else:', // 13
      '        return 2', // 14
      '    config.gone3', // 15: never runs
      'def k(items):', // 16
      '    for i in items:', // 17
      '        continue', // 18
      '        config.gone4', // 19: never runs
      '    config.gone5', // 20: runs
      'def m(x):', // 21
      '    first = True', // 22
      '    if not first:', // 23
      '        config.gone6', // 24: never runs
      '    else:', // 25
      '        config.gone7', // 26: runs
      '    later = False', // 27
      '    for i in x:', // 28
      '        if later:', // 29
      '            config.gone8', // 30: never runs
      '    again = True', // 31
      '    again = x', // 32
      '    if not again:', // 33
      '        config.gone9', // 34: may run (bound twice)
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['20:unknown-attribute', '26:unknown-attribute', '34:unknown-attribute', '9:unknown-attribute']);
  });
});
