/**
 * Re-checks that re-use the results of unchanged statements (the language server's keystroke
 * path) must say exactly what a fresh check of the same text says: every finding, fix, position
 * and count. Each step below is compared with a new engine that checks the text from scratch.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { initParser, parsePython, parsePythonIncremental } from '../../server/src/engine/parser';
import { parseRecovering } from '../../server/src/engine/check/recover';
import { dependencyWords, wordsOf } from '../../server/src/engine/check/statements';
import { FIXTURES, stdlibZip, tempTree } from '../helpers';
import { ZipRoot } from '../../server/src/engine/sources/zipRoot';

/** Everything a check reports, without the file name (the two engines check under different names). */
function essence(r: CheckResult): unknown {
  return {
    findings: r.findings.map((f) => ({ ...f, file: '' })),
    calls: r.calls.map((c) => ({ range: c.range, extent: c.extent, callee: c.callee, signatures: c.signatures, unknownReason: c.unknownReason, baseline: c.baseline, changes: c.changes })),
    callsChecked: r.callsChecked,
    callsUnknown: r.callsUnknown,
    skipped: r.skipped,
  };
}

const LIB = {
  'lib/__init__.py': [
    'def f(a, b):',
    '    return a',
    '',
    'def g(x, *, block_size):',
    '    return x',
    '',
    'class C:',
    '    def __init__(self, n):',
    '        self.n = n',
    '    def m(self, k):',
    '        return k',
    '',
    'class D(C):',
    '    pass',
    '',
  ].join('\n'),
  'lib/extra.py': 'def h(q):\n    return q\n',
};

const USER = [
  'from lib import f, C',
  'import lib',
  '',
  'A = C',
  'K = A',
  'def use():',
  '    return f(1, 2, 3)',
  '',
  'y = K(1, 2)',
  'f(1)',
  'lib.g(1)',
  '',
].join('\n');

/** A class of many methods that call into LIB (every fourth call has an argument too many). */
function bigClass(methods: number): string {
  const out = ['from lib import f, g, C', '', '', 'class Big(C):', '    def __init__(self, n):', '        self.c = C(1)', '', '    def helper(self, a):', '        return a', ''];
  for (let i = 0; i < methods; i++) {
    out.push(`    def step_${i}(self, x):`);
    out.push(`        f(x, ${i % 4 === 0 ? '1, 2' : '1'})`);
    out.push(`        g(x, block_size=${i})`);
    out.push(`        ${i % 4 === 1 ? 'f(x, 1, 2)' : 'self.helper(x)'}`);
    out.push('        self.c.m(k=x)', '');
  }
  out.push('', 'class Other(Big):', '    def helper(self, a, b=1):', '        return b', '');
  return out.join('\n');
}

describe('incremental re-checks', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  async function session(targets: string[], baseline?: string[]): Promise<{ check(text: string): CheckResult; fresh(text: string): Promise<CheckResult> }> {
    const engine = await Engine.open({ targets, baseline, incremental: true });
    return {
      check: (text) => engine.check(text, 'edited.py'),
      fresh: async (text) => (await Engine.open({ targets, baseline })).check(text, 'fresh.py'),
    };
  }

  /**
   * Checks `body`, then each of `lines` typed on a line above it (each replacing the last): every
   * check equal to a fresh one. How many units each re-used.
   */
  async function typedAbove(s: Awaited<ReturnType<typeof session>>, body: string, lines: string[]): Promise<number[]> {
    s.check(`\n${body}`);
    const reused: number[] = [];
    for (const line of lines) {
      const text = `${line}\n${body}`;
      const r = s.check(text);
      assert.deepEqual(essence(r), essence(await s.fresh(text)), `after typing "${line}"`);
      reused.push(r.reused ?? 0);
    }
    return reused;
  }

  it('follows edits that change what other statements depend on, and re-uses the rest', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const s = await session([dir]);
    const steps: Array<[string, (t: string) => string]> = [
      ['as written', (t) => t],
      // K(1, 2) mentions K only: what A is reaches it through K's binding
      ['K is f now', (t) => t.replace('A = C', 'A = f')],
      ['K is a subclass of C', (t) => t.replace('A = f', 'A = lib.D')],
      ['a constant a fix can use appears', (t) => `BLOCK_SIZE = 16\n${t}`],
      ['lines inserted above everything', (t) => `\n\n# moved down\n${t}`],
      ['f is rebound further down', (t) => `${t}from lib.extra import h as f\n`],
      ['a star import replaces the named one', (t) => t.replace('from lib import f, C', 'from lib import *')],
      ['C bound twice, conditionally', (t) => t.replace('import lib\n', 'import lib\nif lib:\n    from lib import D as C\n')],
      ['a broken statement', (t) => t.replace('f(1)', 'f(1, ')],
      ['and mended', (t) => t.replace('f(1, ', 'f(1, 2, 3)')],
    ];
    let text = USER;
    const seen: string[] = [];
    for (const [what, edit] of steps) {
      text = edit(text);
      const r = s.check(text);
      assert.deepEqual(essence(r), essence(await s.fresh(text)), `after "${what}"`);
      seen.push(`${what}: ${r.findings.map((f) => `${f.range.start.line}:${f.code}:${f.param ?? ''}`).join(' ')} (reused ${r.reused})`);
    }
    console.log(seen.join('\n'));
    // the edits were seen: K(1, 2) has one argument too many for C, binds f, then has one too many again
    assert.match(seen[0], /^as written: 6:too-many-positional: 8:too-many-positional:/);
    assert.doesNotMatch(seen[1], / 8:too-many-positional/);
    assert.match(seen[2], / 8:too-many-positional/);
    const withConstant = s.check(steps.slice(0, 4).reduce((t, [, e]) => e(t), USER));
    const fix = withConstant.findings.find((f) => f.param === 'block_size')?.fixes[0];
    assert.ok(fix && /block_size=BLOCK_SIZE/.test(fix.edits[0].newText), `fix uses the constant: ${JSON.stringify(fix)}`);
  });

  it('a method replaced from outside further down the file reaches the calls above it, re-checked as a fresh check sees them', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const s = await session([dir]);
    const base = ['from lib import C', '', '', 'def use():', '    c = C(1)', '    return c.m(1, 2)', '', ''].join('\n');
    // the call binds to C.m (one argument too many) until the file puts another function in its
    // place; only the new last statement changes, in two ways of writing the same replacement
    const steps: Array<[string, string]> = [
      ['as written', base],
      ['C.m replaced by assignment', `${base}C.m = lambda self, *a: None\n`],
      ['taken back', base],
      ['C.m replaced by setattr', `${base}setattr(C, "m", lambda self, *a: None)\n`],
    ];
    const seen: string[] = [];
    for (const [what, text] of steps) {
      const r = s.check(text);
      assert.deepEqual(essence(r), essence(await s.fresh(text)), `after "${what}"`);
      seen.push(r.findings.map((f) => f.code).join(' '));
    }
    assert.deepEqual(seen, ['too-many-positional', '', 'too-many-positional', '']);
  });

  it('follows user classes whose bases change while their own text and row stay the same', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    // a file inside the target folder is checked as a module, so its own classes are followed
    const file = path.join(dir, 'mine.py');
    const engine = await Engine.open({ targets: [dir], incremental: true });
    const s = { check: (text: string) => engine.check(text, file), fresh: async (text: string) => (await Engine.open({ targets: [dir] })).check(text, file) };
    const user = ['from lib import C, D', 'Base = C', 'class Mine(Base):', '    pass', 'class Leaf(Mine):', '    x: int = 1', 'Leaf(1, 2)', 'Mine()', ''].join('\n');
    const steps: Array<[string, (t: string) => string]> = [
      ['as written', (t) => t],
      // the classes' text and rows are unchanged: only what their bases resolve to changes
      ['the base is a function now', (t) => t.replace('Base = C', 'Base = D')],
      ['the base is unknown', (t) => t.replace('Base = D', 'Base = len')],
      ['and back', (t) => t.replace('Base = len', 'Base = C')],
      ['a decorator above the leaf', (t) => t.replace('class Leaf', '@staticmethod\nclass Leaf')],
    ];
    let text = user;
    const seen: string[] = [];
    for (const [what, edit] of steps) {
      text = edit(text);
      const r = s.check(text);
      assert.deepEqual(essence(r), essence(await s.fresh(text)), `after "${what}"`);
      seen.push(`${what}: ${r.findings.map((f) => `${f.range.start.line}:${f.code}`).join(' ')}`);
    }
    console.log(seen.join('\n'));
    assert.match(seen[0], /6:too-many-positional/);
    assert.doesNotMatch(seen[2], /too-many-positional|missing-argument/);
  });

  it('a host that re-validates in idle time sees a target change at its next re-validation, and only then', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const engine = await Engine.open({ targets: [dir], incremental: true });
    engine.revalidateEvery(Infinity); // keystrokes never re-validate: the host calls revalidate()
    const has = (r: CheckResult): boolean => r.findings.some((f) => f.code === 'missing-argument' && f.param === 'b');
    assert.ok(has(engine.check(USER, 'u.py')));
    assert.equal(engine.revalidate(), false, 'nothing changed yet');
    assert.equal(engine.check(USER, 'u.py').reused, parsePython(USER).rootNode.namedChildren.length, 'an idle re-validation that found nothing keeps every result');
    const file = path.join(dir, 'lib', '__init__.py');
    fs.writeFileSync(file, LIB['lib/__init__.py'].replace('def f(a, b):', 'def f(a):   '));
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(file, later, later);
    assert.ok(has(engine.check(USER, 'u.py')), 'between re-validations the target is taken as it was');
    assert.equal(engine.revalidate(), true, 'the change is found');
    const r = engine.check(USER, 'u.py');
    assert.ok(!has(r), 'the new signature of f is used');
    assert.equal(r.reused, 0);
  });

  it('re-checks only the statements an edit touched', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const s = await session([dir]);
    const first = s.check(USER);
    assert.equal(first.reused, 0);
    // an edit inside one function body: the other statements are taken over
    const edited = USER.replace('f(1, 2, 3)', 'f(1, 2, 4)');
    assert.notEqual(edited, USER);
    const r = s.check(edited);
    const statements = parsePython(edited).rootNode.namedChildren.length;
    assert.equal(r.reused, statements - 1, 'every statement but the edited one is re-used');
    assert.deepEqual(essence(r), essence(await s.fresh(edited)));
    // the same text again: everything is re-used
    assert.equal(s.check(edited).reused, statements);
  });

  it('a module-level name typed above functions that bind the same name themselves re-checks none of them', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const s = await session([dir]);
    // `config` is local to `local` (a parameter) and to `assigned`; `results` only follows a dot
    // in `attribute`; `declared` reads the module's `config` through `global`; `inner` binds it
    // in a class body, which reads the module's name until it has bound its own
    const body = [
      'from lib import f, C',
      '',
      '',
      'def local(config):',
      '    return f(config, 1, 2)',
      '',
      'def assigned():',
      '    config = C(1)',
      '    return config.m(1, 2)',
      '',
      'def attribute(x):',
      '    return f(x.results, 1, 2)',
      '',
      'def declared():',
      '    global config',
      '    return config.m(1)',
      '',
      'def inner():',
      '    config = C(1)',
      '    class K:',
      '        config = config',
      '    return K',
      '',
    ].join('\n');
    const typed = ['config = C', 'config = C(', 'config = C(1', 'config = C(1)', 'config = f', 'results = f'];
    const reusedEach = await typedAbove(s, body, typed);
    // where the text parses, the import and local, assigned and attribute are re-used at every
    // keystroke; declared and inner are checked again whenever the module's `config` changes (and
    // the line typed is new each time); half-typed lines are set aside, and matched fresh checks above
    const statements = parsePython(`config = C\n${body}`).rootNode.namedChildren.length;
    assert.equal(statements, 7);
    assert.deepEqual(
      reusedEach.filter((_, i) => !typed[i].endsWith('(') && !typed[i].endsWith('1')),
      [4, 4, 4, 4],
    );
  });

  it('a module-level name typed above a class whose methods use it as a parameter, a local or an attribute re-checks none of them', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const s = await session([dir]);
    // `Big` names `config` only as a parameter, a local and attributes, and imports a module whose
    // last name is `config`; `Typed` annotates a parameter with `config`: it reads the module's name
    const body = [
      'import lib.config',
      'from lib import f, C',
      '',
      '',
      'class Big(C):',
      '    def __init__(self, config):',
      '        self.config = config',
      '        self.results = C(1)',
      '',
      '    def step(self, x):',
      '        config = self.config',
      '        return f(config, self.results, 1)',
      '',
      '    def more(self):',
      '        return self.results.m(1, 2)',
      '',
      '',
      'class Typed:',
      '    def use(self, c: config):',
      '        return f(c, 1, 2)',
      '',
    ].join('\n');
    const reusedEach = await typedAbove(s, body, ['config = C', 'config = C(1)', 'config = f', 'results = f']);
    // units: the two imports, Big's header and its three methods, Typed's header and its method,
    // and the line typed; Typed's method is checked again while `config` changes, and once more
    // when it goes
    assert.deepEqual(reusedEach, [7, 7, 7, 7]);
  });

  it('notices a target file that changed between two checks', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const engine = await Engine.open({ targets: [dir], incremental: true });
    const before = engine.check(USER, 'u.py');
    assert.ok(before.findings.some((f) => f.code === 'missing-argument' && f.param === 'b'));
    // f loses its second parameter: `f(1)` now binds
    const file = path.join(dir, 'lib', '__init__.py');
    fs.writeFileSync(file, LIB['lib/__init__.py'].replace('def f(a, b):', 'def f(a):   '));
    const later = engine.check(USER, 'u.py');
    assert.ok(!later.findings.some((f) => f.param === 'b'), 'the new signature of f is used');
    assert.equal(later.reused, 0, 'nothing is re-used once the target changed');
    // a module that appears on disk is found too
    const withImport = `${USER}from lib.later import z\n`;
    assert.ok(engine.check(withImport, 'u.py').findings.some((f) => f.code === 'unknown-module'));
    fs.writeFileSync(path.join(dir, 'lib', 'later.py'), 'z = 1\n');
    assert.ok(!engine.check(withImport, 'u.py').findings.some((f) => f.code === 'unknown-module'), 'the new module is seen');
  });

  it('matches fresh checks while typing in the methods of a big class, syntax errors included', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const s = await session([dir]);
    let text = bigClass(30);
    const steps: string[] = [];
    /** Types `typed` one character at a time after the first `at` (the text after each keystroke). */
    const type = (at: string, typed: string): void => {
      let i = text.indexOf(at);
      assert.ok(i >= 0, at);
      i += at.length;
      for (const ch of typed) {
        text = text.slice(0, i) + ch + text.slice(i);
        i++;
        steps.push(text);
      }
    };
    const replace = (from: string, to: string): void => {
      assert.ok(text.includes(from), from);
      text = text.replace(from, to);
      steps.push(text);
    };
    // a keyword typed into calls of three methods (`f(x, k=)` is a syntax error for a keystroke)
    type('        f(x, 1', ', bogus=2');
    type('        g(x, block_size=1', ', k=');
    type('    def step_22(self, x):\n        f(x, 1)\n        g(x, block_size=22)\n        self.helper(x', ', z=1');
    // a header that loses its colon and gets it back, an unclosed bracket, a half-typed attribute
    replace('    def step_7(self, x):', '    def step_7(self, x)');
    replace('    def step_7(self, x)', '    def step_7(self, x):');
    type('    def step_9(self, x):\n', '        y = [x,\n');
    type('    def step_12(self, x):\n', '        self.');
    type('    def step_12(self, x):\n        self.', 'helper(1, 2)\n');
    // what the class summary holds changes: an attribute assigned in __init__, a new method
    replace('        self.c = C(1)', '        self.c = f(1, 2)');
    replace('    def step_3(self, x):', '    def helper(self, a, b):\n        return a\n\n    def step_3(self, x):');
    let compared = 0;
    for (const t of steps) {
      const r = s.check(t);
      assert.deepEqual(essence(r), essence(await s.fresh(t)), `step ${compared}:\n${t}`);
      compared++;
    }
    assert.ok(compared > 40);
    // the keystroke that broke a call set aside that statement only: the other calls of its method are checked
    const broken = steps.find((t) => t.includes('        g(x, block_size=1, k=)'))!;
    const r = s.check(broken);
    const row = broken.split('\n').findIndex((l) => l.includes('k=)'));
    assert.ok(r.findings.some((f) => f.range.start.line === row + 1 && f.code === 'too-many-positional'), 'the call on the next line is still checked');
  });

  it('matches fresh checks over random edits of the story file, with a baseline', async () => {
    const vllm = path.join(FIXTURES, 'vllm');
    const s = await session([path.join(vllm, 'new')], [path.join(vllm, 'old')]);
    let text = fs.readFileSync(path.join(vllm, 'user', 'hidden_states_generator.py'), 'utf8');
    let seed = 20261202;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ['\n', ' ', 'x', '(', ')', ',', '=', '.', ':', 'block_size=16, ', 'VLLM_BLOCK_SIZE = 1\n', 'import vllm\n', '    ', '#', '"'];
    let compared = 0;
    let reused = 0;
    const EDITS = 150;
    // lines are deleted, copied elsewhere or swapped; a typed piece (often a syntax error) stays
    // for one check and is taken back at the next, as a user types and corrects
    let undo: string | undefined;
    for (let i = 0; i < EDITS; i++) {
      const lines = text.split('\n');
      const op = undo !== undefined ? -1 : rand(4);
      if (op === -1) {
        text = undo!;
        undo = undefined;
      } else if (op === 0 && lines.length > 5) lines.splice(rand(lines.length), 1);
      else if (op === 1) lines.splice(rand(lines.length), 0, lines[rand(lines.length)]);
      else if (op === 2) {
        const at = rand(lines.length - 1);
        [lines[at], lines[at + 1]] = [lines[at + 1], lines[at]];
      } else {
        undo = text;
        const at = rand(text.length + 1);
        text = text.slice(0, at) + pieces[rand(pieces.length)] + text.slice(at);
      }
      if (op >= 0 && op <= 2) text = lines.join('\n');
      const r = s.check(text);
      reused += r.reused ?? 0;
      if (i % 3 === 0 || i === EDITS - 1) {
        assert.deepEqual(essence(r), essence(await s.fresh(text)), `edit ${i} (seed 20261202)`);
        compared++;
      }
    }
    console.log(`${EDITS} random edits, ${compared} compared with fresh checks, ${reused} statement results re-used`);
    assert.ok(reused > EDITS, 'statement results were re-used');
  });
});

describe('parsing after an edit', () => {
  it('an edited tree equals a fresh parse, for text typed on blank lines, in indentation and in code (stdlib modules)', async () => {
    await initParser();
    const zip = new ZipRoot(stdlibZip('312'));
    let compared = 0;
    for (const rel of ['argparse.py', 'dataclasses.py', 'json/decoder.py', 'textwrap.py']) {
      const text = zip.readText(rel)!;
      const lines = text.split('\n');
      const base = parsePython(text);
      const rows = lines.map((_, i) => i).filter((i) => i % 37 === 0 || (lines[i].trim() === '' && i > 0 && /^\s+\S/.test(lines[i - 1])));
      for (const row of rows.slice(0, 40)) {
        for (const insert of ['pass', 'x = 1', '    y.', '(']) {
          const changed = [...lines.slice(0, row), insert + lines[row], ...lines.slice(row + 1)].join('\n');
          const copy = base.copy();
          const edited = parsePythonIncremental(changed, { text, tree: copy });
          const fresh = parsePython(changed);
          assert.equal(edited.rootNode.toString(), fresh.rootNode.toString(), `${rel}:${row + 1} with ${JSON.stringify(insert)}`);
          compared++;
          for (const t of [copy, edited, fresh]) t.delete();
        }
      }
      base.delete();
    }
    assert.ok(compared > 300);
  });

  it('setting broken statements aside from the last checked tree gives what a fresh start gives', async () => {
    await initParser();
    const text = fs.readFileSync(path.join(FIXTURES, 'vllm', 'user', 'hidden_states_generator.py'), 'utf8');
    const lines = text.split('\n');
    const clean = parsePython(text);
    let compared = 0;
    for (let row = 0; row < lines.length; row += 3) {
      const line = lines[row];
      if (line.trim() === '') continue;
      // the line cut short, as while typing it
      const cut = [...lines.slice(0, row), line.slice(0, Math.ceil(line.length / 2)), ...lines.slice(row + 1)].join('\n');
      const raw = parsePythonIncremental(cut, { text, tree: clean.copy() });
      const fromScratch = parseRecovering(cut);
      const fromLast = parseRecovering(cut, raw, { text, tree: clean });
      assert.equal(fromLast.text, fromScratch.text, `line ${row + 1}`);
      assert.deepEqual(fromLast.broken, fromScratch.broken, `line ${row + 1}`);
      assert.equal(fromLast.tree.rootNode.toString(), fromScratch.tree.rootNode.toString(), `line ${row + 1}`);
      for (const t of new Set([raw, fromScratch.tree, fromLast.tree])) t.delete();
      compared++;
    }
    clean.delete();
    assert.ok(compared > 50, `${compared} lines compared`);
  });

  it('in a big class, a keystroke that breaks a statement sets aside that statement only, from the last checked tree as from scratch', async () => {
    await initParser();
    const text = bigClass(40);
    const lines = text.split('\n');
    const clean = parsePython(text);
    let compared = 0;
    for (let row = 0; row < lines.length; row++) {
      const line = lines[row];
      const damages: Array<[string, Array<[number, number]>]> = [];
      // the statement, with the blank lines after it
      let end = row;
      while (end + 1 < lines.length && lines[end + 1].trim() === '') end++;
      // `f(x, k=)`, a call left open, a header without its colon (its body stays, under `if True:`)
      if (/^ {8}\w.*\)$/.test(line)) damages.push([`${line.slice(0, -1)}, k=)`, [[row, end]]], [line.slice(0, -1), [[row, end]]]);
      if (/^ {4}def \w+\(self, x\):$/.test(line)) damages.push([line.slice(0, -1), [[row, row]]]);
      for (const [damaged, broken] of damages) {
        const cut = [...lines.slice(0, row), damaged, ...lines.slice(row + 1)].join('\n');
        const copy = clean.copy();
        const raw = parsePythonIncremental(cut, { text, tree: copy });
        copy.delete();
        const fromScratch = parseRecovering(cut);
        const fromLast = parseRecovering(cut, raw, { text, tree: clean });
        const what = `line ${row + 1}: ${damaged}`;
        assert.deepEqual(fromScratch.broken, broken, what);
        assert.equal(fromLast.text, fromScratch.text, what);
        assert.deepEqual(fromLast.broken, fromScratch.broken, what);
        assert.equal(fromLast.tree.rootNode.hasError, false, what);
        assert.equal(fromLast.tree.rootNode.toString(), fromScratch.tree.rootNode.toString(), what);
        for (const t of new Set([raw, fromScratch.tree, fromLast.tree])) t.delete();
        compared++;
      }
    }
    clean.delete();
    assert.ok(compared > 150, `${compared} edits compared`);
  });

  it('a clause without its statement, which no piece can set aside: the tree of the whole text is given', async () => {
    await initParser();
    // each piece parses alone; `else:` after a method is an error of the class body
    const text = bigClass(3).replace('    def step_1(self, x):', '    else:\n        pass\n\n    def step_1(self, x):');
    const r = parseRecovering(text);
    assert.equal(r.text.split('\n').length, text.split('\n').length);
    const fresh = parsePython(r.text);
    assert.equal(r.tree.rootNode.toString(), fresh.rootNode.toString());
    fresh.delete();
    r.tree.delete();
  });

  it('a half-typed attribute (`x = mod.`) is set aside by itself', async () => {
    await initParser();
    const text = 'import os\n\ndef f():\n    return 1\n\nx = os.path.\n\ndef g():\n    return 2\n';
    const r = parseRecovering(text);
    assert.deepEqual(r.broken, [[5, 5]]);
    assert.equal(r.tree.rootNode.hasError, false);
    r.tree.delete();
    const number = parseRecovering('x = 1.\n');
    assert.deepEqual(number.broken, [], '`1.` is a complete number');
    number.tree.delete();
  });
});

describe('values that depend on themselves', () => {
  it('`x = x.f()` and mutual assignments in a function are not followed forever', async () => {
    const dir = tempTree(LIB);
    try {
      const engine = await Engine.open({ targets: [dir] });
      const code = 'from lib import C\n\ndef f():\n    x = x.m(1)\n    x.m(k=1, j=2)\n    a = b()\n    b = a()\n    a.m(1)\n    y = C(1)\n    y.m(k=1, j=2)\n';
      const r = engine.check(code, 'self_ref.py');
      assert.deepEqual(r.findings.map((f) => `${f.range.start.line}:${f.code}:${f.param ?? ''}`), ['9:unexpected-keyword:j'], 'only the call on a known instance is checked');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('module-level values that depend on themselves', () => {
  it('conditional rebindings of a name from itself are not followed forever', async () => {
    const dir = tempTree(LIB);
    try {
      const engine = await Engine.open({ targets: [dir] });
      const rounds = Array.from({ length: 30 }, () => 'if lib:\n    x = x.y if lib else x\n').join('');
      const code = `import lib\nfrom lib import C as x\n${rounds}x.m(1)\nlib.f(1)\n`;
      const r = engine.check(code, 'self_ref_module.py');
      assert.deepEqual(r.findings.map((f) => `${f.code}:${f.param ?? ''}`), ['missing-argument:b'], 'the rest of the file is still checked');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the words a statement depends on', () => {
  it('are the identifiers of a text, ASCII or not', () => {
    const unicode = (t: string): string[] => [...new Set(t.match(/[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*/gu) ?? [])].sort();
    for (const t of ['x = f(a1, _b, c_2) + 3e5 # note', '{"kind":"class","cls":{"name":"Big","line":4,"members":{"$map":[["step_1",[]]]}}}', 'größe = maß(x)', 'café.menü()\nx_1 = 2', '']) {
      assert.deepEqual([...wordsOf(t)].sort(), unicode(t), t);
    }
  });

  it('leave out attribute names, and the names a function binds where only its own occurrences are', () => {
    const text = 'def g(config, n=limit):\n    x = self . results + config\n    return (x.\n        tail, cfg.größe, 1.e5)\n';
    assert.deepEqual([...dependencyWords(text)].sort(), ['cfg', 'config', 'def', 'g', 'limit', 'n', 'return', 'self', 'tail', 'x']);
    // `config` and `x` are the function's: its parameter's name and its body; `n` is one too, but
    // a use outside the body counts (here: none but its name, which is not at the given place)
    const body = text.indexOf('\n') + 1;
    const own = { names: new Set(['config', 'x', 'n']), inside: (i: number) => i >= body || i === text.indexOf('config') };
    assert.deepEqual([...dependencyWords(text, own)].sort(), ['cfg', 'def', 'g', 'limit', 'n', 'return', 'self', 'tail']);
  });
});
