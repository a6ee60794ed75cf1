/**
 * `try: from lib import X` / `except ImportError: X = fallback`: which of the two a name holds
 * depends on whether the block's imports succeed against the target. When they all do, the
 * handler never runs there; when one of them certainly fails, the handler's binding is the one.
 * When the engine cannot tell (an import from outside the target, a name the target binds only
 * under a condition, a handler that does not catch ImportError), both stay possible.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

function lines(r: CheckResult): string[] {
  return r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort();
}

/** Version 1 has `olib.old.connect` only; version 2 moved it to `olib.net` and added the `Marker` base. */
function versions(): { v1: string; v2: string } {
  const v1 = tempTree({
    'olib/__init__.py': '',
    'olib/old.py': 'def connect(host, port):\n    return (host, port)\n',
    'olib/base.py': ['class Connector:', '    def start(self, host):', '        return host', ''].join('\n'),
  });
  const v2 = tempTree({
    'olib/__init__.py': '',
    'olib/net.py': 'def connect(host, *, timeout):\n    return (host, timeout)\n',
    'olib/base.py': [
      'import sys',
      'class Connector:',
      '    def start(self, host, *, block):',
      '        return host',
      'class Marker:',
      '    pass',
      'if sys.platform == "win32":',
      '    class WinOnly:',
      '        def __init__(self, a):',
      '            pass',
      '',
    ].join('\n'),
  });
  return { v1, v2 };
}

describe('names bound by an import or by its ImportError handler', () => {
  it('an import that succeeds against the target: the handler does not run, the call is checked', async () => {
    const { v1, v2 } = versions();
    const user = [
      'try:',
      '    from olib.net import connect',
      'except ImportError:',
      '    def connect(*args, **kwargs):',
      '        return None',
      'connect("h", 1)',
      '',
    ].join('\n');
    const e2 = await Engine.open({ targets: [v2] });
    assert.deepEqual(lines(e2.check(user, 'user.py')), ['6:missing-argument', '6:too-many-positional']);
    // against version 1 the import fails: the user's own fallback runs, and nothing is reported
    const e1 = await Engine.open({ targets: [v1] });
    assert.deepEqual(lines(e1.check(user, 'user.py')), []);
  });

  it('an import that fails against the target: the name is what the handler binds', async () => {
    const { v1, v2 } = versions();
    const user = [
      'try:',
      '    from olib.net import connect',
      'except ImportError:',
      '    from olib.old import connect',
      'connect("h", timeout=3)',
      '',
    ].join('\n');
    const e1 = await Engine.open({ targets: [v1] });
    assert.deepEqual(lines(e1.check(user, 'user.py')), ['5:missing-argument', '5:unexpected-keyword']);
    const e2 = await Engine.open({ targets: [v2] });
    assert.deepEqual(lines(e2.check(user, 'user.py')), []);
  });

  it('an import from a package the target no longer has fails even where the top package serves names lazily: the handler binds the name', async () => {
    // the top package answers attribute lookups at run time (a module __getattr__): a last
    // component might be a compiled module, but a missing package above it is not
    const lazy = tempTree({
      'olib/__init__.py': 'def __getattr__(name):\n    import importlib\n    return importlib.import_module("olib." + name)\n',
      'olib/net.py': 'def connect(host, *, timeout):\n    return (host, timeout)\n',
    });
    const user = [
      'try:',
      '    from olib.legacy.net import connect',
      'except ModuleNotFoundError:',
      '    from olib.net import connect',
      'connect("h", 1)',
      'try:',
      '    from olib.fast import connect as fast',
      'except ImportError:',
      '    from olib.net import connect as fast',
      'fast("h", 1)',
      '',
    ].join('\n');
    const e = await Engine.open({ targets: [lazy] });
    // `olib.fast` may be a compiled module that a copy of the source lacks: both stay possible
    assert.deepEqual(lines(e.check(user, 'user.py')), ['5:missing-argument', '5:too-many-positional']);
  });

  it('an import that certainly fails, whose handler is `pass`: the name is unbound where the file uses it', async () => {
    const { v1, v2 } = versions();
    const user = [
      'try:', // 1
      '    from olib.old import connect', // 2: gone in version 2
      'except ImportError:', // 3
      '    pass', // 4
      'try:', // 5
      '    from olib.gone import helper', // 6: a module version 2 lacks
      'except ImportError:', // 7
      '    pass', // 8
      'try:', // 9
      '    from olib.old import connect as unused', // 10: never used
      'except ImportError:', // 11
      '    pass', // 12
      'try:', // 13
      '    from olib.old import connect as flagged', // 14
      '    HAS_IT = True', // 15: a flag may guard the uses
      'except ImportError:', // 16
      '    HAS_IT = False', // 17
      '', // 18
      'def main():', // 19
      '    helper()', // 20
      '    try:', // 21
      '        return connect("h", 1)', // 22: guarded against NameError: the first use is not this one
      '    except NameError:', // 23
      '        return connect("h", 2)', // 24
      '    if HAS_IT:', // 25
      '        flagged("h", 1)', // 26
      '', // 27
      'def other(unused):', // 28: a parameter of that name is the function's own
      '    return unused()', // 29
      '',
    ].join('\n');
    const e2 = await Engine.open({ targets: [v2] });
    const found = e2.check(user, 'user.py').findings;
    assert.deepEqual(found.map((f) => `${f.range.start.line + 1}:${f.code}`), ['2:unknown-import', '6:unknown-import']);
    assert.match(found[0].message, /binds nothing in its place: 'connect' is unbound where line 24 uses it \(NameError\)/);
    assert.match(found[1].message, /'helper' is unbound where line 20 uses it/);
    // against version 1 the imports succeed: nothing to say
    const e1 = await Engine.open({ targets: [v1] });
    assert.deepEqual(e1.check(user, 'user.py').findings.filter((f) => f.range.start.line < 10).map((f) => `${f.range.start.line + 1}:${f.code}`), ['6:unknown-import']);
  });

  it('a base class imported with a fallback: the class is seen through, so methods called on self are checked', async () => {
    const { v2 } = versions();
    const user = [
      'from olib.base import Connector',
      'try:',
      '    from olib.base import Marker',
      '    HAS_MARKER = True',
      'except ImportError:',
      '    Marker = object',
      '    HAS_MARKER = False',
      'class Mine(Connector, Marker):',
      '    def run(self):',
      '        return self.start("h")',
      '',
    ].join('\n');
    const e2 = await Engine.open({ targets: [v2] });
    assert.deepEqual(lines(e2.check(user, 'user.py')), ['10:missing-argument']);
  });

  it('inside a function as well: an import that succeeds leaves its handler out', async () => {
    const { v1, v2 } = versions();
    const user = [
      'def go():',
      '    try:',
      '        from olib.net import connect',
      '    except ImportError:',
      '        connect = None',
      '    return connect("h", 1)',
      '',
    ].join('\n');
    const e2 = await Engine.open({ targets: [v2] });
    assert.deepEqual(lines(e2.check(user, 'user.py')), ['6:missing-argument', '6:too-many-positional']);
    const e1 = await Engine.open({ targets: [v1] });
    assert.deepEqual(lines(e1.check(user, 'user.py')), []);
    // and an import that fails leaves the handler's
    const moved = ['def go():', '    try:', '        from olib.net import connect', '    except ImportError:', '        from olib.old import connect', '    return connect("h", timeout=3)', ''].join('\n');
    assert.deepEqual(lines(e1.check(moved, 'user.py')), ['6:missing-argument', '6:unexpected-keyword']);
    assert.deepEqual(lines(e2.check(moved, 'user.py')), []);
  });

  it('stays open when the block imports from outside the target, the target binds the name under a condition, or the handler catches something else', async () => {
    const { v2 } = versions();
    const e2 = await Engine.open({ targets: [v2] });
    const outside = ['try:', '    import numpy', '    from olib.net import connect', 'except ImportError:', '    def connect(*args, **kwargs):', '        return None', 'connect("h", 1)', ''].join('\n');
    assert.deepEqual(lines(e2.check(outside, 'user.py')), []);
    const conditional = ['try:', '    from olib.base import WinOnly', 'except ImportError:', '    def WinOnly(*args, **kwargs):', '        return None', 'WinOnly()', ''].join('\n');
    assert.deepEqual(lines(e2.check(conditional, 'user.py')), []);
    const other = ['try:', '    from olib.net import connect', 'except AttributeError:', '    def connect(*args, **kwargs):', '        return None', 'connect("h", 1)', ''].join('\n');
    assert.deepEqual(lines(e2.check(other, 'user.py')), []);
    // a block that also calls something may fail for another reason
    const calls = ['import os', 'try:', '    from olib.net import connect', '    os.getcwd()', 'except Exception:', '    def connect(*args, **kwargs):', '        return None', 'connect("h", 1)', ''].join('\n');
    assert.deepEqual(lines(e2.check(calls, 'user.py')), []);
  });
});
