/**
 * Code that says it may not fit the installed version: branches chosen by a version test, calls
 * inside `try ... except TypeError`, and values whose annotation the user's own classes may not
 * honour (duck typing). Found on a real plug-in checked against the library version it supports:
 * its `else` branches, written for the next version, and its own builders stored where the
 * library annotates its base class, gave false errors.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

const LIB = {
  'lib/__init__.py': '__version__ = "2.0"\n',
  'lib/engine.py': [
    'class Builder:',
    '    def build(self, prefix_len: int, metadata: dict) -> dict:',
    '        return metadata',
    '',
    'class Group:',
    '    def __init__(self, builders: list[Builder]):',
    '        self.builders = builders',
    '',
    '    def builder(self) -> Builder:',
    '        return self.builders[0]',
    '',
    'def start(config, block_size):',
    '    return config',
    '',
  ].join('\n'),
};

/** The same library as a source checkout: its version is written by the build, so the checkout does not say it. */
const LIB_CHECKOUT = { ...LIB, 'lib/__init__.py': 'try:\n    from ._version import __version__\nexcept ImportError:\n    __version__ = "dev"\n' };

function lines(r: CheckResult): string[] {
  return r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`).sort();
}

function callOn(r: CheckResult, line: number): { status: string; reason?: string } {
  const c = r.calls.find((x) => x.range.start.line + 1 === line);
  assert.ok(c, `a call on line ${line}`);
  return { status: c.status ?? 'checked', reason: c.unknownReason };
}

/** Each call on `lines` is unknown, for a reason that matches every one of `reasons`. */
function unknownOn(r: CheckResult, lines: number[], ...reasons: RegExp[]): void {
  for (const line of lines) {
    const c = callOn(r, line);
    assert.equal(c.status, 'unknown', `line ${line}`);
    for (const reason of reasons) assert.match(c.reason ?? '', reason);
  }
}

describe('code that may not run on the installed version', () => {
  it('a branch chosen by a version test reports nothing and leaves its calls unknown; code outside it is checked', async () => {
    const dir = tempTree(LIB);
    const engine = await Engine.open({ targets: [dir] });
    const user = [
      'import lib', // 1
      'from lib.engine import start', // 2
      'from myproject.utils import lib_version_is', // 3
      'if lib_version_is("2.0"):', // 4
      '    from lib.engine import Group', // 5
      'else:', // 6
      '    from lib.layers import Group', // 7
      'def run(config):', // 8
      '    if lib_version_is("1.0"):', // 9
      '        start(config)', // 10
      '    elif lib.__version__ >= "3":', // 11
      '        start(config, 16, extra=1)', // 12
      '    else:', // 13
      '        start(config, 16)', // 14
      '    x = start(config) if lib.__version__ < "2" else None', // 15
      '    start(config)', // 16
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    // only the call outside every version test
    assert.deepEqual(lines(r), ['16:missing-argument']);
    unknownOn(r, [10, 12, 14, 15], /version test/);
    assert.equal(callOn(r, 16).status, 'checked');
    // the same branches under a test of anything else are checked as usual
    const plain = engine.check(user.replace(/lib_version_is/g, 'feature_on').replace(/lib\.__version__/g, 'config.level'), 'user.py');
    assert.deepEqual(lines(plain), ['10:missing-argument', '12:unexpected-keyword', '15:missing-argument', '16:missing-argument', '7:unknown-module']);
  });

  it('a version test may go through a name assigned from a version, and a function that returns early on one is written for that version after it', async () => {
    const engine = await Engine.open({ targets: [tempTree(LIB)] });
    const user = [
      'import lib', // 1
      'from packaging import version', // 2
      'from lib.engine import start', // 3
      '', // 4
      'def serve(config):', // 5
      '    is_new_api = version.parse(lib.__version__) >= version.parse("3.0")', // 6
      '    if is_new_api:', // 7
      '        start(config, 16, extra=1)', // 8: the 3.0 signature
      '    else:', // 9
      '        start(config)', // 10: the 1.0 signature
      '', // 11
      'def patch(config):', // 12
      '    try:', // 13
      '        needs_patch = lib.__version__ == "1.0"', // 14
      '    except ValueError:', // 15
      '        needs_patch = False', // 16
      '    if not needs_patch:', // 17
      '        return', // 18
      '', // 19
      '    def patched():', // 20
      '        return start(config)', // 21: for 1.0 only
      '    return start(config), patched', // 22
      '', // 23
      'def plain(config, ready):', // 24
      '    if not ready:', // 25
      '        return', // 26
      '    if ready:', // 27
      '        start(config)', // 28
      '    return start(config)', // 29
      '', // 30
      'def loose(config, cfg):', // 31
      '    if cfg.metrics_for_version is None:', // 32: speaks of a version, compares none
      '        return', // 33
      '    return start(config)', // 34
      '', // 35
      'def reused(config):', // 36
      '    ret = lib.__version__ >= "2"', // 37
      '    ret = start(config, 16)', // 38: the name holds other values too: no flag
      '    if ret:', // 39
      '        start(config)', // 40
      '',
    ].join('\n');
    // a checkout that does not say its version: which branch runs cannot be told
    const checkout = await Engine.open({ targets: [tempTree(LIB_CHECKOUT)] });
    const open = checkout.check(user, 'user.py');
    assert.deepEqual(lines(open), ['28:missing-argument', '29:missing-argument', '34:missing-argument', '40:missing-argument']);
    unknownOn(open, [8, 10, 21, 22], /version test/);
    // version 2.0 takes the else branch of the flag bound once (line 10 runs); `needs_patch`, bound twice, stays open
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['10:missing-argument', '28:missing-argument', '29:missing-argument', '34:missing-argument', '40:missing-argument']);
    unknownOn(r, [8], /only on other versions/);
    unknownOn(r, [21, 22], /version test/);
    // a string that says "version" is data, not a test of one
    const command = engine.check(['from lib.engine import start', 'def main(command, config):', '    if command == "run":', '        start(config)', '    elif command == "version":', '        print("1")', ''].join('\n'), 'user.py');
    assert.deepEqual(lines(command), ['4:missing-argument']);
    // the same names assigned from anything else are no version tests
    const plain = engine.check(user.replace('version.parse(lib.__version__) >= version.parse("3.0")', 'config.level > 2').replace('lib.__version__ == "1.0"', 'config.level == 1'), 'user.py');
    assert.deepEqual(lines(plain), ['10:missing-argument', '21:missing-argument', '22:missing-argument', '28:missing-argument', '29:missing-argument', '34:missing-argument', '40:missing-argument', '8:unexpected-keyword']);
  });

  it('a call through a name that only a version-tested branch binds is written for that version, wherever it sits', async () => {
    const engine = await Engine.open({ targets: [tempTree(LIB)] });
    const user = [
      'from lib.engine import Group', // 1
      'from myproject.utils import lib_available', // 2
      'if lib_available(min_version="3.0"):', // 3
      '    from lib.engine import start, Builder', // 4
      '', // 5
      'class Sender:', // 6
      '    def __init__(self):', // 7
      '        if not lib_available(min_version="3.0"):', // 8
      '            raise ImportError("needs lib 3.0")', // 9
      '', // 10
      '    def send(self, config):', // 11
      '        start(config, 16, options=1)', // 12: the 3.0 signature
      '        Builder().build(1, {}, extra=2)', // 13
      '        Group([]).builder().build(1)', // 14: Group is bound whatever the version
      '', // 15
      'def local(config):', // 16
      '    from lib.engine import start', // 17
      '    start(config, 16, options=1)', // 18: the function binds it itself
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['14:missing-argument', '18:unexpected-keyword']);
    unknownOn(r, [12, 13], /start|Builder/, /version test/);
    // bound under a test of anything else, the calls are checked as usual
    const plain = engine.check(user.replace('if lib_available(min_version="3.0"):', 'if lib_available("fast"):'), 'user.py');
    assert.deepEqual(lines(plain), ['12:unexpected-keyword', '13:unexpected-keyword', '14:missing-argument', '18:unexpected-keyword']);
  });

  it('a module attribute the code tests for is not reported missing where the test covers it: before it in the function, or anywhere in the class', async () => {
    const engine = await Engine.open({ targets: [tempTree(LIB)] });
    const user = [
      'import lib.engine as eng', // 1
      '', // 2
      'class Profiler:', // 3
      '    def start(self):', // 4
      '        if getattr(eng, "PROFILE_DIR", None) is not None:', // 5
      '            return self.legacy()', // 6
      '', // 7
      '    def legacy(self):', // 8
      '        return eng.PROFILE_DIR, eng.PROFILE_STACK', // 9: read where start found PROFILE_DIR (and its sibling)
      '', // 10
      'def plain():', // 11
      '    return eng.PROFILE_DIR, eng.PROFILE_STACK', // 12
      '', // 13
      'def tested():', // 14
      '    return hasattr(eng, "PROFILE_DIR") and eng.PROFILE_DIR', // 15
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['12:unknown-attribute', '12:unknown-attribute']);
    assert.deepEqual(lines(engine.check(user.replace('getattr(eng, "PROFILE_DIR", None)', 'eng'), 'user.py')), ['12:unknown-attribute', '12:unknown-attribute', '9:unknown-attribute', '9:unknown-attribute']);
  });

  it('a package of the project that the rest of it imports only under version tests is written for one version, all of its modules', async () => {
    const files: Record<string, string> = {
      'app/__init__.py': '',
      'app/backends/__init__.py': [
        'import lib', // 1
        'from packaging.version import Version', // 2
        'if Version(lib.__version__) == Version("1.0"):', // 3
        '    from app.backends.lib_1_0.runner import Runner', // 4
        'elif Version(lib.__version__) >= Version("2.0"):', // 5
        '    from app.backends.lib_2_0.runner import Runner', // 6
        'else:', // 7
        '    raise NotImplementedError(lib.__version__)', // 8
        '',
      ].join('\n'),
      'app/backends/lib_1_0/__init__.py': '',
      'app/backends/lib_1_0/runner.py': 'from lib.engine import start\nfrom app.backends.lib_1_0.helpers import prepare\n\nclass Runner:\n    def run(self, config):\n        return start(prepare(config))\n',
      'app/backends/lib_1_0/helpers.py': 'from lib.engine import start\n\ndef prepare(config):\n    start(config)\n    return config\n',
      // a module loaded by name (`worker_cls = "..."`), which nothing imports: it lies in the package
      'app/backends/lib_1_0/worker.py': 'from lib.engine import start\n\ndef work(config):\n    return start(config)\n',
      'app/backends/lib_2_0/__init__.py': '',
      // the 2.0 package reuses a module of the 1.0 one: both are chosen only by the version test
      'app/backends/lib_2_0/runner.py': 'from lib.engine import start\nfrom app.backends.lib_1_0.helpers import prepare\n\nclass Runner:\n    def run(self, config):\n        return start(prepare(config), 16)\n',
      'app/main.py': 'from app.backends import Runner\nfrom lib.engine import start\n\ndef main(config):\n    start(config)\n    return Runner().run(config)\n',
    };
    const root = tempTree(files);
    const engine = await Engine.open({ targets: [tempTree(LIB_CHECKOUT)], sourceRoots: [root] });
    const all = Object.keys(files).map((f) => ({ file: path.join(root, f), text: files[f] }));
    const check = (f: string): CheckResult => engine.check(files[f], path.join(root, f));
    // before the project is read, each file is checked as usual
    assert.deepEqual(lines(check('app/backends/lib_1_0/runner.py')), ['6:missing-argument']);
    engine.addProjectFiles(all);
    for (const f of ['app/backends/lib_1_0/runner.py', 'app/backends/lib_1_0/helpers.py', 'app/backends/lib_1_0/worker.py']) {
      const r = check(f);
      assert.deepEqual(lines(r), [], f);
      assert.ok(r.calls.some((c) => c.status === 'unknown' && /only under version tests/.test(c.unknownReason ?? '')), f);
    }
    // code the project imports plainly is checked: main, and the 2.0 runner's own call binds
    assert.deepEqual(lines(check('app/main.py')), ['5:missing-argument']);
    // a plain import from outside the packages makes the module it reaches an ordinary one again
    const plain: Record<string, string> = { ...files, 'app/tools.py': 'from app.backends.lib_1_0.helpers import prepare\n' };
    const e2 = await Engine.open({ targets: [tempTree(LIB_CHECKOUT)], sourceRoots: [root] });
    e2.addProjectFiles(Object.keys(plain).map((f) => ({ file: path.join(root, f), text: plain[f] })));
    assert.deepEqual(lines(e2.check(files['app/backends/lib_1_0/helpers.py'], path.join(root, 'app/backends/lib_1_0/helpers.py'))), ['4:missing-argument']);
    // where the target says its version (2.0), the tests are decided: the 2.0 package is imported
    // in the branch taken, and so is the helper it imports from the 1.0 one; the 1.0 runner is not
    const e3 = await Engine.open({ targets: [tempTree(LIB)], sourceRoots: [root] });
    e3.addProjectFiles(all);
    const at3 = (f: string): CheckResult => e3.check(files[f], path.join(root, f));
    assert.deepEqual(lines(at3('app/backends/lib_1_0/helpers.py')), ['4:missing-argument']);
    assert.deepEqual(lines(at3('app/backends/lib_1_0/runner.py')), []);
    assert.ok(at3('app/backends/lib_2_0/runner.py').calls.some((c) => c.callee.endsWith('start') && (c.status ?? 'checked') === 'checked'));
  });

  it('a package the rest of the project names only in strings under version tests (a class loaded by its dotted name) is written for one version; a string outside them keeps it checked', async () => {
    const files: Record<string, string> = {
      'app/__init__.py': '',
      'app/backends/__init__.py': [
        'import lib',
        'from packaging.version import Version',
        'from app.loader import load_class',
        'if Version(lib.__version__) == Version("1.0"):',
        '    runner_cls = load_class("app.backends.lib_1_0.runner.Runner")',
        'else:',
        '    path = "app.backends.lib_2_0.runner.Runner"',
        '    runner_cls = load_class(path)',
        '',
      ].join('\n'),
      'app/loader.py': 'import importlib\n\ndef load_class(path):\n    module, _, name = path.rpartition(".")\n    return getattr(importlib.import_module(module), name)\n',
      'app/backends/lib_1_0/__init__.py': '',
      'app/backends/lib_1_0/runner.py': 'from lib.engine import start\n\nclass Runner:\n    def run(self, config):\n        return start(config)\n',
      'app/backends/lib_2_0/__init__.py': '',
      'app/backends/lib_2_0/runner.py': 'from lib.engine import start\n\nclass Runner:\n    def run(self, config):\n        return start(config)\n',
    };
    const root = tempTree(files);
    const engine = await Engine.open({ targets: [tempTree(LIB_CHECKOUT)], sourceRoots: [root] });
    engine.addProjectFiles(Object.keys(files).map((f) => ({ file: path.join(root, f), text: files[f] })));
    for (const f of ['app/backends/lib_1_0/runner.py', 'app/backends/lib_2_0/runner.py']) {
      const r = engine.check(files[f], path.join(root, f));
      assert.deepEqual(lines(r), [], f);
      assert.ok(r.calls.some((c) => c.status === 'unknown' && /only under version tests/.test(c.unknownReason ?? '')), f);
    }
    // named outside a version test as well (a default, a registry): it may be loaded on any version
    const plain: Record<string, string> = { ...files, 'app/registry.py': 'DEFAULT_RUNNER = "app.backends.lib_1_0.runner.Runner"\n' };
    const e2 = await Engine.open({ targets: [tempTree(LIB_CHECKOUT)], sourceRoots: [root] });
    e2.addProjectFiles(Object.keys(plain).map((f) => ({ file: path.join(root, f), text: plain[f] })));
    assert.deepEqual(lines(e2.check(files['app/backends/lib_1_0/runner.py'], path.join(root, 'app/backends/lib_1_0/runner.py'))), ['5:missing-argument']);
    assert.deepEqual(lines(e2.check(files['app/backends/lib_2_0/runner.py'], path.join(root, 'app/backends/lib_2_0/runner.py'))), []);
  });

  it('a callee the file replaces from outside (a class, a function, a constructor) is left unknown: the call may reach the replacement', async () => {
    const engine = await Engine.open({ targets: [tempTree(LIB)] });
    const user = [
      'import lib.engine', // 1
      'from lib.engine import Group, start', // 2
      '', // 3
      'class PatchedGroup:', // 4
      '    def __init__(self, builders, extra=None):', // 5
      '        self.builders = builders', // 6
      '', // 7
      'def install():', // 8
      '    lib.engine.Group = PatchedGroup', // 9
      '    lib.engine.start = lambda config, **kw: config', // 10
      '', // 11
      'def run(config):', // 12
      '    from lib.engine import Group as G, start as begin', // 13
      '    G([], extra=1)', // 14
      '    return begin(config, mode=2)', // 15
      '',
      'def saved(config):', // 17
      '    return start(config, mode=2)', // 18
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    // `start`, imported at the top before anything sets lib.engine.start, is the original
    assert.deepEqual(lines(r), ['18:missing-argument', '18:unexpected-keyword']);
    unknownOn(r, [14, 15], /from outside/);
    // without the replacements, every call is reported
    const plain = engine.check(user.replace('    lib.engine.Group = PatchedGroup', '    pass').replace('    lib.engine.start = lambda config, **kw: config', '    pass'), 'user.py');
    assert.deepEqual(lines(plain), ['14:unexpected-keyword', '15:missing-argument', '15:unexpected-keyword', '18:missing-argument', '18:unexpected-keyword']);
    // a replacement above the import (it may run first), a `global` rebinding, or another file's replacement leaves it open
    const above = engine.check(['import lib.engine', 'lib.engine.start = lambda config, **kw: config', 'from lib.engine import start', 'start(1, mode=2)', ''].join('\n'), 'user.py');
    unknownOn(above, [4], /from outside/);
    const rebound = engine.check(user + 'def swap():\n    global start\n    start = print\n', 'user.py');
    assert.deepEqual(lines(rebound), []);
    // the project's files as an engine of a worker thread is told of them: which file sets what
    engine.addProjectFiles([
      { file: 'user.py', text: user },
      { file: 'other.py', text: 'import lib.engine\nlib.engine.Group = None\n' },
    ]);
    const worker = await Engine.open({ targets: [tempTree(LIB)] });
    worker.useProjectClasses(engine.projectClassList());
    assert.deepEqual(lines(worker.check(user, 'user.py')), ['18:missing-argument', '18:unexpected-keyword']);
    engine.addProjectFiles([{ file: 'other.py', text: 'import lib.engine\nlib.engine.start = print\n' }]);
    const elsewhere = engine.check(user.replace('    lib.engine.start = lambda config, **kw: config', '    pass'), 'user.py');
    assert.deepEqual(lines(elsewhere).filter((l) => l.startsWith('18:')), []);
  });

  it('a function the module uses only where a version test chooses it is written for that version', async () => {
    const engine = await Engine.open({ targets: [tempTree(LIB)] });
    const user = [
      'import lib', // 1
      'from packaging import version', // 2
      'from lib.engine import start', // 3
      '', // 4
      'def for_v1(config):', // 5
      '    return start(config)', // 6: the 1.0 signature
      '', // 7
      'def for_v2(config):', // 8
      '    return start(config, 16, extra=1)', // 9: the 3.0 signature
      '', // 10
      'def used(config):', // 11
      '    return start(config)', // 12
      '', // 13
      'def apply(config):', // 14
      '    impl = for_v2 if version.parse(lib.__version__) >= version.parse("3") else for_v1', // 15
      '    used(config)', // 16
      '    return impl(config)', // 17
      '', // 18
      'def lib_version():', // 19
      '    return start(lib.__version__)', // 20: the test calls it, whatever the version
      '', // 21
      'def go(config):', // 22
      '    if lib_version() == "3":', // 23
      '        return for_v2(config)', // 24
      '',
    ].join('\n');
    // a checkout that does not say its version: both are written for one version
    const checkout = await Engine.open({ targets: [tempTree(LIB_CHECKOUT)] });
    const open = checkout.check(user, 'user.py');
    assert.deepEqual(lines(open), ['12:missing-argument', '20:missing-argument']);
    unknownOn(open, [6, 9], /used only under version tests/);
    // version 2.0 chooses for_v1, which runs there as any code; for_v2 is also chosen by a test
    // of the user's own helper (line 23), which stays open
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['12:missing-argument', '20:missing-argument', '6:missing-argument']);
    unknownOn(r, [9], /used only under version tests/);
    // one installed in every branch of a test that covers every version runs whatever the version
    const both = user + ['if version.parse(lib.__version__) >= version.parse("3"):', '    lib.engine.hook = for_v1', 'else:', '    lib.other_hook = for_v1', ''].join('\n');
    assert.deepEqual(lines(engine.check(both, 'user.py')), ['12:missing-argument', '20:missing-argument', '6:missing-argument']);
    // a function also used outside the test runs whatever the version
    assert.deepEqual(lines(engine.check(user + 'for_v1(None)\n', 'user.py')), ['12:missing-argument', '20:missing-argument', '6:missing-argument']);
    // chosen by a test of anything else, both are checked
    assert.deepEqual(lines(engine.check(user.replace('version.parse(lib.__version__) >= version.parse("3")', 'config.level > 2').replace('if lib_version() == "3":', 'if config.level == 3:'), 'user.py')), ['12:missing-argument', '20:missing-argument', '6:missing-argument', '9:unexpected-keyword']);
  });

  it('a call inside try ... except TypeError is left unknown; except of another error does not guard it', async () => {
    const dir = tempTree(LIB);
    const engine = await Engine.open({ targets: [dir] });
    const user = [
      'from lib.engine import start', // 1
      'def run(config):', // 2
      '    try:', // 3
      '        start(config, 16, extra=1)', // 4
      '    except TypeError:', // 5
      '        start(config, 16)', // 6
      '    try:', // 7
      '        start(config)', // 8
      '    except (ValueError, KeyError):', // 9
      '        pass', // 10
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['8:missing-argument']);
    assert.equal(callOn(r, 4).status, 'unknown');
    assert.match(callOn(r, 4).reason ?? '', /TypeError/);
    // the handler retries the same call: a fallback for a version where the first does not bind
    unknownOn(r, [6], /same call in the try block failed/);
  });

  it('a call in a test that expects its body to fail with the error of a call that does not bind is left unknown', async () => {
    const dir = tempTree(LIB);
    const engine = await Engine.open({ targets: [dir] });
    const user = [
      'import pytest', // 1
      'import unittest', // 2
      'from lib.engine import start', // 3
      'def test_start(config):', // 4
      '    with pytest.raises(TypeError):', // 5
      '        start(config)', // 6
      '    with pytest.raises((ValueError, KeyError), match="x"):', // 7
      '        start(config, 1, 2)', // 8
      '    with pytest.raises(KeyError):', // 9
      '        start(config)', // 10: expects another error: a break is a break
      '    with open("f") as f:', // 11
      '        start(config, f, 3)', // 12
      'class T(unittest.TestCase):', // 13
      '    def test_it(self):', // 14
      '        with self.assertRaises(TypeError):', // 15
      '            start()', // 16
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['10:missing-argument', '12:too-many-positional']);
    unknownOn(r, [6, 8, 16], /TypeError/);
  });

  it("a value annotated with a library class may hold the user's own class that only has the method (duck typing)", async () => {
    const dir = tempTree(LIB);
    const runner = [
      'from lib.engine import Group', // 1
      'def step(group: Group, n):', // 2
      '    b = group.builder()', // 3
      '    return b.build(prefix_len=n, metadata={}, model=None)', // 4
      '',
    ].join('\n');
    const own = [
      'class MyBuilder:', // not a subclass of lib's Builder
      '    def build(self, prefix_len, metadata, model=None):',
      '        return metadata',
      '',
    ].join('\n');
    const engine = await Engine.open({ targets: [dir] });
    // alone, the call passes a keyword lib's Builder.build does not take
    assert.deepEqual(lines(engine.check(runner, 'runner.py')), ['4:unexpected-keyword']);
    // with the project's class that takes it, the value may be one of those: unknown, and why
    engine.addProjectFiles([
      { file: 'runner.py', text: runner },
      { file: 'builders.py', text: own },
    ]);
    const r = engine.check(runner, 'runner.py');
    assert.deepEqual(lines(r), []);
    assert.equal(callOn(r, 4).status, 'unknown');
    assert.match(callOn(r, 4).reason ?? '', /MyBuilder .*annotations are not enforced/);
    // a user class whose method binds the call alike changes nothing: still checked (and wrong)
    const alike = engine;
    alike.addProjectFiles([{ file: 'builders.py', text: own.replace(', model=None', '') }]);
    const r2 = alike.check(runner, 'runner.py');
    assert.deepEqual(lines(r2), ['4:unexpected-keyword']);
    assert.equal(callOn(r2, 4).status, 'checked');
  });
  it('an except ImportError handler is a fallback for another version: nothing in it is reported', async () => {
    const dir = tempTree(LIB);
    const engine = await Engine.open({ targets: [dir] });
    const user = [
      'try:', // 1
      '    from lib.engine import start as go', // 2
      'except ImportError:', // 3
      '    from lib.old_engine import start', // 4
      'def run(config):', // 5
      '    try:', // 6
      '        from lib.engine import Group', // 7
      '    except (ImportError, AttributeError):', // 8
      '        from lib import Group', // 9
      '        go(config)', // 10
      '    go(config)', // 11
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['11:missing-argument']);
    assert.match(callOn(r, 10).reason ?? '', /except ImportError/);
    // the same lines under a handler of another error are reported
    const other = engine.check(user.replace(/ImportError/g, 'KeyError'), 'user.py');
    assert.deepEqual(lines(other), ['10:missing-argument', '11:missing-argument', '4:unknown-module', '9:unknown-import']);
  });

  it('a module whose availability the file tests (find_spec) is not reported missing where another function imports it', async () => {
    const dir = tempTree(LIB);
    const engine = await Engine.open({ targets: [dir] });
    const user = [
      'import importlib.util', // 1
      'def setup():', // 2
      '    if importlib.util.find_spec("lib.profiler.wrapper") is None:', // 3
      '        return None', // 4
      '    return make()', // 5
      'def make():', // 6
      '    from lib.profiler.wrapper import Wrapper', // 7
      '    return Wrapper()', // 8
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), []);
    assert.deepEqual(lines(engine.check(user.replace('find_spec("lib.profiler.wrapper")', 'find_spec("other")'), 'user.py')), ['7:unknown-module']);
  });

  it('a branch chosen by a test of a signature is evaluated against the target: the branch that runs is checked, the others are not', async () => {
    const dir = tempTree(LIB);
    const engine = await Engine.open({ targets: [dir] });
    const user = [
      'import inspect', // 1
      'from inspect import signature', // 2
      'from lib.engine import start, Group, Builder', // 3
      'def a(config):', // 4
      '    if "block_size" in inspect.signature(start).parameters:', // 5
      '        return start(config, block_size=16)', // 6 runs: checked
      '    return start(config)', // 7 never runs against the target
      'def b(config):', // 8
      '    params = signature(start).parameters', // 9
      '    if "block_size" not in params:', // 10
      '        start(config)', // 11 never runs
      '    else:', // 12
      '        start(config, 16, 17)', // 13 runs: too many
      'def c(config):', // 14
      '    sig = inspect.signature(Builder.build)', // 15
      '    has_meta = "metadata" in sig.parameters', // 16
      '    x = Builder().build(1, {}) if has_meta else Builder().build(1)', // 17 the first runs
      '    spec = inspect.getfullargspec(Group)', // 18
      '    if "builders" in spec.kwonlyargs:', // 19
      '        Group(builders=[])', // 20 never runs: builders is no keyword-only parameter
      '    if "size" in inspect.signature(config.fn).parameters:', // 21
      '        start(config)', // 22 cannot be told
      '    start(config)', // 23 outside: checked
      'def d(config, other):', // 24
      '    accepts = "block_size" in set(inspect.signature(start).parameters.keys())', // 25
      '    if not accepts:', // 26
      '        raise ValueError("block_size")', // 27
      '    start(config, 16, 17)', // 28 runs: too many
      '    if "x" not in inspect.signature(other.fn).parameters:', // 29
      '        raise ValueError("x")', // 30
      '    start(config)', // 31 a refusal the engine cannot evaluate leaves the rest checked
      '    if "x" not in inspect.signature(other.fn).parameters:', // 32
      '        return None', // 33
      '    start(config)', // 34 a choice it cannot evaluate does not
      'def g(config, ready):', // 35
      '    if ready and "block_size" in inspect.signature(start).parameters:', // 36
      '        start(config, 16, 17)', // 37 may run: too many
      '    else:', // 38
      '        start(config)', // 39 may run too (when not ready)
      '    if ready or "block_size" in inspect.signature(start).parameters:', // 40
      '        start(config, 16)', // 41 runs
      '    else:', // 42
      '        start(config, 16, 17)', // 43 never runs
      '    if ready and "size" in inspect.signature(start).parameters:', // 44
      '        start(config)', // 45 never runs
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['13:too-many-positional', '23:missing-argument', '28:too-many-positional', '31:missing-argument', '37:too-many-positional', '39:missing-argument']);
    unknownOn(r, [43, 45], /another version/);
    unknownOn(r, [34], /early return on a test of a signature that the engine cannot evaluate/);
    // the fields a constructor takes, read off the class
    // the `__init__` a dataclass is given: its fields
    const dc = await Engine.open({ targets: [tempTree({ 'dlib/__init__.py': '', 'dlib/opts.py': ['from dataclasses import dataclass', '@dataclass', 'class Opts:', '    size: int', '    block_size: int = 16', ''].join('\n') })] });
    const made = ['import inspect', 'from dlib.opts import Opts', 'def f():', '    if "block_size" in inspect.signature(Opts.__init__).parameters:', '        return Opts(1, block_size=2, extra=3)', '    return Opts()', ''].join('\n');
    const rd = dc.check(made, 'user.py');
    assert.deepEqual(lines(rd), ['5:unexpected-keyword']);
    unknownOn(rd, [6], /another version/);
    // a `parameters` attribute of anything else is no signature
    const other = ['from lib.engine import start', 'def f(model):', '    if model.parameters and len(model.parameters) > 0:', '        start(model)', ''].join('\n');
    assert.deepEqual(lines(engine.check(other, 'user.py')), ['4:missing-argument']);
    const fields = ['from lib.engine import Group', 'def e():', '    if "size" in Group.__dataclass_fields__:', '        Group(size=1)', '    Group([])', ''].join('\n');
    assert.deepEqual(lines(engine.check(fields, 'user.py')), []);
    unknownOn(engine.check(fields, 'user.py'), [4], /test of a signature that the engine cannot evaluate/);
    for (const line of [6, 13, 23]) assert.equal(callOn(r, line).status, 'checked', `line ${line}`);
    unknownOn(r, [7, 11, 20], /test of a signature/, /another version/);
    unknownOn(r, [22], /cannot evaluate/);
    const c17 = r.calls.filter((c) => c.range.start.line + 1 === 17).map((c) => c.status ?? 'checked');
    assert.deepEqual(c17.sort(), ['checked', 'checked', 'unknown', 'unknown']);
  });

  it('a call in the handler of a try whose block makes the same call first is a fallback for another version', async () => {
    const dir = tempTree(LIB);
    const engine = await Engine.open({ targets: [dir] });
    const user = [
      'from lib.engine import start', // 1
      'def a(config):', // 2
      '    try:', // 3
      '        return start(config, block_size=16)', // 4
      '    except TypeError:', // 5
      '        return start(config)', // 6 the fallback
      'def b(config):', // 7
      '    try:', // 8
      '        config.validate()', // 9
      '    except TypeError:', // 10
      '        return start(config)', // 11 no retry of the same call: checked
      'def c(config):', // 12
      '    try:', // 13
      '        config.prepare()', // 14
      '        start(config, 1)', // 15
      '    except Exception:', // 16
      '        return start(config)', // 17 error handling after a longer block: checked
      'def d(config):', // 18
      '    try:', // 19
      '        start(config, 1)', // 20
      '    except TypeError:', // 21
      '        def later():', // 22
      '            return start(config)', // 23 runs when called, not as the fallback: checked
      '        return later', // 24
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['11:missing-argument', '17:missing-argument', '23:missing-argument']);
    unknownOn(r, [6], /same call in the try block failed/);
  });
});

describe('version tests decided by the version the target says', () => {
  const lib = (init: string, distInfo?: string): Record<string, string> => ({
    'lib/__init__.py': init,
    'lib/engine.py': 'def start(config, block_size):\n    return config\n',
    ...(distInfo ? { 'lib-2.0.0.dist-info/METADATA': `Metadata-Version: 2.1\nName: lib\nVersion: ${distInfo}\n` } : {}),
  });
  const user = [
    'import lib', // 1
    'from importlib.metadata import version', // 2
    'from packaging.version import Version', // 3
    'from lib import __version__ as lib_version', // 4
    'from lib.engine import start', // 5
    '', // 6
    'if Version(lib.__version__) >= Version("2.0"):', // 7
    '    start(1)', // 8: taken on 2.0.0
    'elif Version(lib.__version__) >= Version("1.0"):', // 9
    '    start(1, 2, 3)', // 10: not taken
    'else:', // 11
    '    start()', // 12: not taken
    '', // 13
    '', // 14
    'def strings():', // 15
    '    if lib.__version__ < "1.5":', // 16: "2.0.0" < "1.5" is false: no return
    '        return', // 17
    '    start(1)', // 18: runs
    '', // 19
    '', // 20
    'def early():', // 21
    '    if Version(lib_version) < Version("3"):', // 22: holds: the rest never runs
    '        return', // 23
    '    start(1)', // 24
    '', // 25
    '', // 26
    'x = start(1) if Version(version("lib")) < Version("1") else start(2)', // 27: the second arm runs
    'if lib_version_is("2.0"):', // 28: a helper the engine does not decide
    '    start(1)', // 29
    'if Version(lib.__version__) >= Version("2.0") and not lib_version_is("2.1"):', // 30: half decided
    '    start(1)', // 31
    '',
  ].join('\n');

  it('checks the branch the target takes and leaves the others, from the dist-info beside the package', async () => {
    const engine = await Engine.open({ targets: [tempTree(lib('from importlib.metadata import version as _version\n\n__version__ = _version("lib")\n', '2.0.0'))] });
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['18:missing-argument', '27:missing-argument', '8:missing-argument'].sort());
    const at = (line: number) => r.calls.find((c) => c.range.start.line + 1 === line && c.callee.endsWith('start'));
    assert.match(at(10)?.unknownReason ?? '', /only on other versions/);
    assert.match(at(24)?.unknownReason ?? '', /only on other versions/);
    assert.match(at(29)?.unknownReason ?? '', /depends on the version installed/);
    assert.match(at(31)?.unknownReason ?? '', /depends on the version installed/);
  });

  it('reads a literal __version__ of the package the same way', async () => {
    const engine = await Engine.open({ targets: [tempTree({ ...lib('from ._version import __version__\n'), 'lib/_version.py': '__version__ = version = "2.0.0"\n' })] });
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['18:missing-argument', '27:missing-argument', '8:missing-argument'].sort());
  });

  it('reads a name the module binds once to a version, or to a test of one; not where a function binds it itself', async () => {
    const engine = await Engine.open({ targets: [tempTree(lib('__version__ = "2.0.0"\n'))] })
    const text = [
      'import lib', // 1
      'from packaging import version', // 2
      'from lib.engine import start', // 3
      'lib_version = version.parse(lib.__version__)', // 4
      'IS_NEW = lib_version >= version.parse("2.0")', // 5
      '', // 6
      'if IS_NEW:', // 7
      '    start(1)', // 8: taken
      'if not IS_NEW:', // 9
      '    start(1, 2, 3)', // 10: not taken
      '', // 11
      '', // 12
      'def f(lib_version):', // 13
      '    if lib_version < version.parse("1.0"):', // 14: the parameter, not the module's name
      '        start()', // 15
      '', // 16
    ].join('\n');
    const r = engine.check(text, 'user.py');
    assert.deepEqual(lines(r), ['8:missing-argument']);
    assert.match(r.calls.find((c) => c.range.start.line === 9)?.unknownReason ?? '', /only on other versions/);
    assert.match(r.calls.find((c) => c.range.start.line === 14)?.unknownReason ?? '', /depends on the version installed/);
  });

  it('binds a name by the branch the target takes, decides a flag a function binds once, and runs a function its version test chooses', async () => {
    const files = { ...lib('__version__ = "2.0.0"\n'), 'lib/net.py': 'def uri(host, port):\n    return host\n', 'lib/old.py': 'def uri(host, port, scheme):\n    return host\n' };
    const text = [
      'import lib', // 1
      'from packaging import version', // 2
      'from lib.engine import start', // 3
      'if version.parse(lib.__version__) >= version.parse("2.0"):', // 4
      '    from lib.net import uri', // 5: taken
      'else:', // 6
      '    from lib.old import uri', // 7: not taken
      'if version.parse(lib.__version__) > version.parse("1.0"):', // 8
      '    from lib.net import uri as uri2', // 9: taken, the only binding
      'if version.parse(lib.__version__) < version.parse("1.0"):', // 10
      '    from lib.old import uri as uri3', // 11: never taken
      '', // 12
      'def calls(h):', // 13
      '    uri(h, 1, 2)', // 14: lib.net.uri
      '    uri2(h, 1, 2)', // 15: lib.net.uri
      '    uri3(h, 1)', // 16: bound only on other versions
      '', // 17
      'def serve(config):', // 18
      '    is_new = version.parse(lib.__version__) >= version.parse("2.0")', // 19: a flag bound once
      '    if is_new:', // 20
      '        start(config)', // 21: taken
      '    else:', // 22
      '        start(config, 1, 2)', // 23: not taken
      '', // 24
      'def for_new(config):', // 25
      '    return start(config, 1, 2)', // 26: chosen on 2.0: runs
      '', // 27
      'def for_old(config):', // 28
      '    return start()', // 29: chosen on other versions only
      '', // 30
      'def install(register):', // 31
      '    register(for_new if version.parse(lib.__version__) >= version.parse("2.0") else for_old)', // 32
      '', // 33
      'def reused(config, flag):', // 34
      '    is_new = version.parse(lib.__version__) >= version.parse("2.0")', // 35
      '    if flag:', // 36
      '        is_new = False', // 37: bound twice: no flag
      '    if is_new:', // 38
      '        start(config)', // 39
      '',
    ].join('\n');
    const engine = await Engine.open({ targets: [tempTree(files)] });
    const r = engine.check(text, 'user.py');
    assert.deepEqual(lines(r), ['14:too-many-positional', '15:too-many-positional', '21:missing-argument', '26:too-many-positional'].sort());
    const at = (line: number) => r.calls.find((c) => c.range.start.line + 1 === line);
    assert.match(at(16)?.unknownReason ?? '', /fail on the target's version/);
    assert.match(at(23)?.unknownReason ?? '', /only on other versions/);
    assert.match(at(29)?.unknownReason ?? '', /used only on other versions/);
    assert.match(at(39)?.unknownReason ?? '', /depends on the version installed/);
    // where the target does not say its version, none of it is decided
    const checkout = await Engine.open({ targets: [tempTree({ ...files, 'lib/__init__.py': '__version__ = "dev"\n' })] });
    assert.deepEqual(lines(checkout.check(text, 'user.py')), []);
  });

  it('decides nothing where the target does not say its version (a source checkout, a placeholder)', async () => {
    for (const init of ['from importlib.metadata import version as _version\n\n__version__ = _version("lib")\n', 'try:\n    from ._version import __version__\nexcept ImportError:\n    __version__ = "dev"\n', '__version__ = "0.0.0"\n']) {
      const engine = await Engine.open({ targets: [tempTree(lib(init))] });
      assert.deepEqual(lines(engine.check(user, 'user.py')), [], init);
    }
  });
});
