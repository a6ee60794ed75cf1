/**
 * Callables handed to the standard library's functions that call them with the arguments after
 * them: `asyncio.to_thread`, an event loop's `run_in_executor`, a `concurrent.futures`
 * executor's `submit`, and `functools.partial` (whose missing arguments the later call may give);
 * keywords the user's own function hands on with `**kwargs` to the target's callable; and the keys
 * of the dicts the user's own functions build for `**`.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

const lines = (r: CheckResult): string[] => r.findings.map((f) => `${f.range.start.line + 1}:${f.code}`);

const lib = {
  'lib/__init__.py': '',
  'lib/engine.py': [
    'class Engine:',
    '    def __init__(self, model: str):',
    '        self.model = model',
    '    def generate(self, prompt, max_tokens=16):',
    '        return prompt',
    '',
    'def load(path, *, strict=True):',
    '    return path',
    '',
  ].join('\n'),
};

describe('calls made by the function a callable is handed to', () => {
  const target = tempTree(lib);

  it('checks the callable of asyncio.to_thread, run_in_executor and submit with the arguments passed on', async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'import asyncio',
      'from asyncio import to_thread',
      'from concurrent.futures import ThreadPoolExecutor',
      'from lib.engine import Engine, load',
      '',
      'async def main(e: Engine):',
      '    await asyncio.to_thread(e.generate, "hi", max_tokenz=3)',
      '    await to_thread(load, "p", strictt=False)',
      '    loop = asyncio.get_running_loop()',
      '    await loop.run_in_executor(None, load, "p", "q")',
      '    await asyncio.get_event_loop().run_in_executor(None, e.generate)',
      '    with ThreadPoolExecutor(max_workers=2) as ex:',
      '        ex.submit(load, "a", stric=1)',
      '    await asyncio.to_thread(e.generate, "ok", max_tokens=3)',
      '    await asyncio.to_thread(load, "p", strict=False)',
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['7:unexpected-keyword', '8:unexpected-keyword', '10:too-many-positional', '11:missing-argument', '13:unexpected-keyword']);
    assert.match(r.findings[0].message, /Engine\.generate\(\) got an unexpected keyword argument 'max_tokenz'/);
    // the calls that bind are checked too
    assert.equal(r.callsChecked, 7);
    // the fix takes the keyword out of the outer call's arguments
    const edit = r.findings[0].fixes[0].edits[0];
    const line = user.split('\n')[6];
    assert.equal(edit.range.start.line, 6);
    assert.equal(line.slice(0, edit.range.start.character) + edit.newText + line.slice(edit.range.end.character), '    await asyncio.to_thread(e.generate, "hi")');
    // run_in_executor passes positional arguments only: no keyword is offered for the missing one
    assert.deepEqual(r.findings[3].fixes, []);
  });

  it('lets other receivers and functions of the same names alone', async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'import asyncio',
      'from lib.engine import Engine, load',
      '',
      'def to_thread(f, *args):',
      '    return f',
      '',
      'async def main(e: Engine, pool, loop):',
      '    to_thread(load, "p", strictt=False)',
      '    pool.submit(load, "a", stric=1)',
      '    await loop.run_in_executor(None, load, "p", "q")',
      '    other = asyncio.get_running_loop()',
      '    other = pool',
      '    await other.run_in_executor(None, load, "p", "q")',
      '    await asyncio.to_thread(func=load)',
      '    await asyncio.to_thread(*[load, "p", "q"])',
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), []);
  });

  it('checks what functools.partial binds now, leaving missing arguments to the later call', async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'import functools',
      'from functools import partial',
      'from lib.engine import Engine, load',
      '',
      'strict_load = functools.partial(load, strict=False)',
      'bad_load = functools.partial(load, stric=False)',
      'two = partial(load, "a", "b")',
      'def make():',
      '    return partial(Engine, model="m"), partial(Engine, modle="m")',
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['6:unexpected-keyword', '7:too-many-positional', '9:unexpected-keyword']);
  });

  it("reports a keyword the user's own function hands on with **kwargs to a target callable that refuses it", async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'from lib.engine import Engine, load',
      '',
      'def make_engine(model, **engine_kwargs):',
      '    return Engine(model=model, **engine_kwargs)',
      '',
      'def load_it(path, **kw):',
      '    kw.pop("legacy", None)',
      '    return load(path, **kw)',
      '',
      'def mine(**kw):',
      '    return other(**kw)',
      '',
      'def other(a=1):',
      '    return a',
      '',
      'make_engine("m", swap_space=4)', // 16: Engine() takes no swap_space
      'make_engine("m")',
      'load_it("p", strict=False, legacy=1)', // legacy is taken out before it is handed on
      'load_it("p", stric=False)', // 19
      'mine(b=2)', // the user's own other() refuses it: not the target's concern
      'make_engine("m", "extra", swap_space=4)', // does not bind make_engine: not the target's concern either
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['16:unexpected-keyword', '19:unexpected-keyword']);
    assert.match(r.findings[0].message, /make_engine\(\) passes it on with \*\*engine_kwargs to Engine\(\)/);
    // the user's calls are not calls into the target: not counted
    assert.equal(r.callsChecked, 2);
  });

  it('checks the target a thread or a process runs with its args and kwargs, when they are displays', async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'import threading',
      'import multiprocessing as mp',
      'from threading import Thread',
      'from lib.engine import Engine, load',
      '',
      'def run(e: Engine, xs):',
      '    threading.Thread(target=e.generate, args=("p",), kwargs={"max_tokenz": 1}, daemon=True)', // 7
      '    Thread(target=load, args=("a", "b"))', // 8
      '    mp.Process(target=load, kwargs={"path": "p", "strict": False})', // binds
      '    Thread(target=load)', // 10: run() calls load()
      '    Thread(target=load, args=xs)', // what xs holds is not known
      '    Thread(target=load, args=("a"))', // a string: its characters are the arguments
      '    Thread(None, load, args=("a", "b"))', // the target by position: not followed
      '    Thread(target=load, kwargs=opts(), args=("a",))',
      '',
    ].join('\n');
    const r = engine.check(user, 'user.py');
    assert.deepEqual(lines(r), ['7:unexpected-keyword', '8:too-many-positional', '10:missing-argument']);
    // the key in the kwargs display is what is reported; no fix edits a display
    assert.equal(r.findings[0].range.start.character, user.split('\n')[6].indexOf('"max_tokenz"'));
    assert.deepEqual(r.findings.flatMap((f) => f.fixes), []);
  });

  it("takes the keys of a dict the user's own function returns as the keywords ** hands in", async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'from lib.engine import Engine, load',
      '',
      'def engine_kwargs(model, fast):', // 3
      '    if fast:',
      '        return {"model": model, "swap_space": 4}',
      '    return dict(model=model, swap_space=8, extra=1)', // extra: only on one path
      '',
      'def loader_kwargs():', // 8
      '    return {"strict": True}',
      '',
      'def gen():', // 11
      '    yield {"bogus": 1}',
      '    return {"bogus": 1}',
      '',
      'def run(fast):', // 15
      '    Engine(**engine_kwargs("m", fast))', // 16: swap_space on every path
      '    kw = loader_kwargs()',
      '    load("p", **kw)', // binds
      '    kw2 = engine_kwargs("m", fast)',
      '    kw2.pop("swap_space")',
      '    Engine(**kw2)', // swap_space taken out: may be there or not
      '    load("p", **gen())', // a generator: no dict
      '    class Local:',
      '        def kwargs(self):',
      '            return {"bogus": 1}',
      '    load("p", **Local().kwargs())', // a method: an override may return another
      '    Engine(**inline(fast))', // a return inside a line: not read
      '    Engine(**documented())', // 28: the docstring's line is no return: bogus is there
      '',
      'def inline(fast):',
      '    if fast: return {"bogus": 1}',
      '    return {"model": "m"}',
      '',
      'def documented():',
      '    """Like:',
      '    if x: return {}',
      '    """',
      '    return {"model": "m", "bogus": 1}',
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['16:unexpected-keyword', '28:unexpected-keyword']);
    // the function changes: so does what its callers are told (no stale result is reused)
    const incremental = await Engine.open({ targets: [target], incremental: true });
    assert.deepEqual(lines(incremental.check(user, 'user.py')), ['16:unexpected-keyword', '28:unexpected-keyword']);
    const edited = user.replace('return {"strict": True}', 'return {"strict": True, "mode": 1}');
    assert.deepEqual(lines(incremental.check(edited, 'user.py')), ['16:unexpected-keyword', '18:unexpected-keyword', '28:unexpected-keyword']);
    assert.deepEqual(lines(engine.check(edited, 'user.py')), ['16:unexpected-keyword', '18:unexpected-keyword', '28:unexpected-keyword']);
  });

  it('follows a partial bound to a local to its calls, with its arguments first', async () => {
    const engine = await Engine.open({ targets: [target] });
    const user = [
      'import functools',
      'from lib.engine import Engine, load',
      '',
      'def run(e: Engine):',
      '    strict_load = functools.partial(load, strict=False)',
      '    strict_load("p")', // binds
      '    strict_load()', // 7: path missing
      '    strict_load("p", mode=1)', // 8
      '    make = functools.partial(Engine, model="m")',
      '    make()', // binds: model is preset
      '    make(extra=1)', // 11
      '    gen = functools.partial(e.generate, "p")', // a method taken off an instance: not followed
      '    gen(bogus=1)',
      '    other = functools.partial(load)',
      '    other = print',
      '    other(1, 2)', // bound twice: not followed
      '    again = functools.partial(again, 1)', // depends on itself: not followed (and no endless lookup)
      '    again()',
      '',
    ].join('\n');
    assert.deepEqual(lines(engine.check(user, 'user.py')), ['7:missing-argument', '8:unexpected-keyword', '11:unexpected-keyword']);
  });
});
