/**
 * The name a file of the user's own code is checked under (what its relative imports start from),
 * and classes the user defines in function bodies.
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { tempTree } from '../helpers';

describe("the user's own code: the names of its packages, classes in function bodies", () => {
  it('a package under a namespace package that shares its name with the target imports its own modules relatively, not the target\'s', async () => {
    const lib = tempTree({ 'lib/__init__.py': '', 'lib/envs.py': 'PORT = 1\n' });
    const user = [
      'from . import envs', // 1: ns.lib.envs, the user's
      'from .sub.helper import helper', // 2: ns.lib.sub.helper
      'print(envs.MY_PORT)', // 3
      'helper()',
      '',
    ].join('\n');
    // `src/ns/` has no __init__.py: a namespace package, `ns.lib` where `src` is on the path
    const src = tempTree({
      'ns/lib/__init__.py': '',
      'ns/lib/envs.py': 'MY_PORT = 1\n',
      'ns/lib/sub/__init__.py': '',
      'ns/lib/sub/helper.py': 'def helper():\n    pass\n',
      'ns/lib/user.py': user,
    });
    const file = path.join(src, 'ns/lib/user.py');
    const found = async (roots: string[]): Promise<string[]> => (await Engine.open({ targets: [lib], sourceRoots: roots })).check(user, file).findings.map((f) => `${f.range.start.line + 1}:${f.code}`);
    // the folder above the top package, and the one above that: the second names it ns.lib
    assert.deepEqual(await found([path.join(src, 'ns'), src]), []);
    // where no folder gives it another name, it is the target's package (a fork checked against its upstream)
    assert.deepEqual(await found([path.join(src, 'ns')]), ['2:unknown-module', '3:unknown-attribute']);
  });

  it('a class defined in a function body is followed as a module-level one: self, super() and its overrides; not where a name its bases start from is bound in the function', async () => {
    const lib = tempTree({
      'lib/__init__.py': '',
      'lib/serving.py': ['class Serving:', '    def __init__(self, engine, *, models):', '        self.engine = engine', '', '    def preprocess(self, request, tokenizer):', '        return request', ''].join('\n'),
    });
    const user = (prelude: string): string =>
      [
        'from lib.serving import Serving', // 1
        '', // 2
        'def setup(engine, models):', // 3
        `    ${prelude}`, // 4
        '    class Local(Serving):', // 5
        '        def handle(self, request):', // 6
        '            self.preprocess(request, None, 3)', // 7: three arguments where two are taken
        '            return super().preprocess(request, tokenizer=None, bogus=1)', // 8: an unexpected keyword
        '', // 9
        '    return Local(engine, models=models)', // 10
        '',
      ].join('\n');
    const engine = await Engine.open({ targets: [lib] });
    const lines = (text: string): string[] => engine.check(text, 'user.py').findings.map((f) => `${f.range.start.line + 1}:${f.code}`);
    assert.deepEqual(lines(user('pass')), ['7:too-many-positional', '8:unexpected-keyword']);
    // the function binds the base's name itself: the module's Serving may not be the one
    assert.deepEqual(lines(user('Serving = engine.serving_class')), []);
    // ... unless by one import of its own before the class (a lazy import): the base is what it imports
    assert.deepEqual(lines(user('from lib.serving import Serving')), ['7:too-many-positional', '8:unexpected-keyword']);
    assert.deepEqual(lines(user('from lib.serving import Serving as Serving')), ['7:too-many-positional', '8:unexpected-keyword']);
    // imported, then bound again: not followed
    assert.deepEqual(lines(user('from lib.serving import Serving; Serving = engine.serving_class')), []);
    // another import of the name in the function (a fallback of another library) leaves it undecided
    assert.deepEqual(lines(user('from lib.serving import Serving\n    if not engine:\n        from other.serving import Serving')), []);
    // an import of a module the base is read off
    const viaModule = user('import lib.serving as srv').replace('class Local(Serving)', 'class Local(srv.Serving)');
    assert.deepEqual(lines(viaModule), ['7:too-many-positional', '8:unexpected-keyword']);
  });

  it('a class defined in a function body is checked where the function (or one inside it) builds it, when the name is bound only there', async () => {
    const lib = tempTree({
      'lib/__init__.py': '',
      'lib/serving.py': ['class Serving:', '    def __init__(self, engine, *, models):', '        self.engine = engine', ''].join('\n'),
    });
    const user = [
      'from lib.serving import Serving', // 1
      '', // 2
      'def setup(engine, models):', // 3
      '    class Local(Serving):', // 4
      '        pass', // 5
      '    def later():', // 6
      '        return Local(engine, model=models)', // 7: the keyword is `models`
      '    return Local(engine), later', // 8: `models` is required
      '', // 9
      'def twice(engine, flag):', // 10
      '    class Other(Serving):', // 11
      '        pass', // 12
      '    if flag:', // 13
      '        Other = dict', // 14
      '    return Other(engine)', // 15: Other may be a dict here
      '', // 16
      'def own(engine):', // 17
      '    class Mine(Serving):', // 18
      '        def __init__(self, engine):', // 19
      '            super().__init__(engine, models=[])', // 20
      '    return Mine(engine)', // 21: its own __init__
      '',
    ].join('\n');
    const engine = await Engine.open({ targets: [lib] });
    assert.deepEqual(
      engine.check(user, 'user.py').findings.map((f) => `${f.range.start.line + 1}:${f.code}`),
      ['7:missing-argument', '7:unexpected-keyword', '8:missing-argument'],
    );
  });
});
