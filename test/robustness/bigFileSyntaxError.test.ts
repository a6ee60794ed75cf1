/**
 * A syntax error typed into a 100,000-line file, as an editor's user does it: the re-check of each
 * keystroke must cost what the damaged region costs, not what the file costs. It was found with an
 * unclosed bracket typed in the middle of a large file: tree-sitter's recovery of the whole damaged
 * text read the rest of the file as one error, with quadratic effort (minutes per keystroke at
 * 100,000 lines), on every keystroke until the bracket was closed.
 *
 * Work is counted, not timed: every text handed to the parser that holds a damaged line is
 * measured (a parse of the whole damaged file is refused at once, so the old way fails quickly),
 * and so is the number of top-level statements checked again.
 */
import * as assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { parseRecovering, recoverRegion } from '../../server/src/engine/check/recover';
import { initParser, parsePython } from '../../server/src/engine/parser';
import { ZipRoot } from '../../server/src/engine/sources/zipRoot';
import { stdlibZip } from '../helpers';
import { removeTree, tempDir } from './util';
import * as fs from 'fs';
import * as path from 'path';

// the same module instance the engine parses with
// eslint-disable-next-line @typescript-eslint/no-require-imports
const treeSitter = require('web-tree-sitter') as typeof import('web-tree-sitter');

/** Lines of the current keystroke that are broken; a parse whose text holds one is damaged. */
let damagedLines: string[] = [];
/** Characters of damaged text handed to the parser since the last reset. */
let damagedChars = 0;
/** No damaged text longer than this is ever parsed (the whole file is 2.4 MB). */
const MAX_DAMAGED_PARSE = 100_000;

const original = treeSitter.Parser.prototype.parse;
treeSitter.Parser.prototype.parse = function (this: unknown, input: unknown, ...rest: unknown[]) {
  if (typeof input === 'string' && damagedLines.some((l) => input.includes(`\n${l}\n`))) {
    damagedChars += input.length;
    if (input.length > MAX_DAMAGED_PARSE) throw new Error(`the parser was handed ${input.length} characters of damaged text (the whole file)`);
  }
  return (original as (...a: unknown[]) => unknown).call(this, input, ...rest);
} as typeof original;
after(() => {
  treeSitter.Parser.prototype.parse = original;
});

describe('a syntax error in a 100,000-line file', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(removeTree));

  it('costs each keystroke the damaged region, not the file', async () => {
    const dir = tempDir('bigsyntax');
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'lib'));
    fs.writeFileSync(path.join(dir, 'lib', '__init__.py'), 'def f(a, b):\n    return a\n');
    // the user's file lies outside the target (a file inside it is checked as one of its modules)
    const user = tempDir('bigsyntax-user');
    dirs.push(user);
    const engine = await Engine.open({ targets: [dir], incremental: true });
    const lines = ['from lib import f'];
    for (let i = 0; i < 25_000; i++) lines.push(`def g${i}(x):`, `    y = f(x, ${i})`, '    return y', '');
    lines.push('f(1)', '');
    assert.ok(lines.length > 100_000);
    const statements = (t: string): number => t.split('\n').filter((l) => /^\S/.test(l)).length;
    const check = (t: string, broken: string[]): { rechecked: number; damaged: number; findings: string[] } => {
      damagedLines = broken;
      damagedChars = 0;
      const r = engine.check(t, path.join(user, 'big.py'));
      damagedLines = [];
      return { rechecked: statements(t) - (r.reused ?? 0), damaged: damagedChars, findings: r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param ?? ''}`) };
    };
    const at = (rows: Array<[number, string]>, edit?: [number, string]): string => {
      const copy = lines.slice();
      if (edit) copy[edit[0]] = edit[1];
      for (const [row, line] of [...rows].sort((a, b) => b[0] - a[0])) copy.splice(row, 0, line);
      return copy.join('\n');
    };
    const clean = check(lines.join('\n'), []);
    assert.deepEqual(clean.findings, [`${lines.length - 1}:missing-argument:b`]);

    const middle = 50_001; // between two definitions
    // an unclosed bracket typed in the middle, then more of the call, then an edit far above it
    // while the bracket is still open, then a second error of another kind, then both mended
    const far: [number, string] = [10, '    y = f(x, 22)'];
    assert.equal(lines[10], '    y = f(x, 2)');
    const steps: Array<{ what: string; rows: Array<[number, string]>; edit?: [number, string]; broken: string[] }> = [
      { what: 'an unclosed bracket', rows: [[middle, 'f(1, ']], broken: ['f(1, '] },
      { what: 'more of the call', rows: [[middle, 'f(1, 2']], broken: ['f(1, 2'] },
      { what: 'an edit far above', rows: [[middle, 'f(1, 2']], edit: far, broken: ['f(1, 2'] },
      { what: 'a second error', rows: [[middle, 'f(1, 2'], [90_001, 'f(2,, 3)']], edit: far, broken: ['f(1, 2', 'f(2,, 3)'] },
      { what: 'both mended', rows: [[middle, 'f(1, 2)'], [90_001, 'f(2, 3)']], edit: far, broken: [] },
    ];
    for (const step of steps) {
      const text = at(step.rows, step.edit);
      const r = check(text, step.broken);
      const shift = step.rows.length;
      // the rest of the file is still checked: the finding at its end moved down, nothing else
      assert.deepEqual(r.findings, [`${lines.length - 1 + shift}:missing-argument:b`], step.what);
      assert.ok(r.damaged <= 2_000, `${step.what}: ${r.damaged} characters of damaged text parsed`);
      assert.ok(r.rechecked <= 8, `${step.what}: ${r.rechecked} top-level statements checked again`);
    }
  });

  it('sets the damaged region right exactly as a recovery of the whole text does (random edits of stdlib modules, two in a row)', async () => {
    await initParser();
    const zip = new ZipRoot(stdlibZip('312'));
    let seed = 140014;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const pieces = ['(', ')', ':', '"', '"""', 'x = = ', '\n', ',', '[', 'def ', 'if x', '    ', '.', "'", '#'];
    const edit = (t: string): string => {
      const at = rand(t.length);
      return rand(3) === 0 ? t.slice(0, at) + t.slice(at + 1 + rand(5)) : t.slice(0, at) + pieces[rand(pieces.length)] + t.slice(at);
    };
    let regional = 0;
    for (const rel of ['argparse.py', 'dataclasses.py', 'json/decoder.py', 'textwrap.py', 'typing.py']) {
      const text = zip.readText(rel)!;
      const tree = parsePython(text);
      for (let k = 0; k < 40; k++) {
        // a first keystroke, then a second one somewhere else while the first may still be broken
        const t1 = edit(text);
        const r1 = recoverRegion(t1, { text, tree }, { text, broken: [] }) ?? parseRecovering(t1);
        const t2 = edit(t1);
        const keystrokes: Array<[string, { text: string; tree: typeof tree }, { text: string; broken: Array<[number, number]> }]> = [
          [t1, { text, tree }, { text, broken: [] }],
          [t2, { text: r1.text, tree: r1.tree }, { text: t1, broken: r1.broken }],
        ];
        for (const [t, last, seen] of keystrokes) {
          if (last.tree.rootNode.hasError) continue;
          const region = recoverRegion(t, last, seen);
          if (!region) continue;
          const whole = parseRecovering(t);
          assert.equal(region.text, whole.text, `${rel}: ${JSON.stringify(region.broken)} set aside, the whole text sets aside ${JSON.stringify(whole.broken)}`);
          assert.equal(region.tree.rootNode.toString(), whole.tree.rootNode.toString());
          regional++;
          region.tree.delete();
          whole.tree.delete();
        }
        r1.tree.delete();
      }
      tree.delete();
    }
    console.log(`${regional} damaged keystrokes set right by region, each as the whole text would be`);
    assert.ok(regional > 50);
  });
  it('a region reaching the end of the file is set right as the whole text is: a bracket left open there ends no statement (fuzz seed 1548056916)', async () => {
    const dir = tempDir('bigsyntax-end');
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'lib'));
    fs.writeFileSync(path.join(dir, 'lib', '__init__.py'), 'def f(a, b):\n    return a\n');
    const user = tempDir('bigsyntax-end-user');
    dirs.push(user);
    const file = path.join(user, 'tail.py');
    const text = '"""Doc.\n\nMore.\n"""\n\nfrom lib import f\n\n\nclass C:\n    """Runs."""\n\n    def m(self):\n        return f(1)\n\n    def n(self):\n        return f(2)\n';
    // the docstring's quotes broken: the triple quote left below it opens a string that ends in the
    // class's docstring, which then leaves a bracket open up to the end of the file
    const broken = text.replace('"""Doc.', '"Doc.').replace('"""Runs."""', '"""Runs and= g(x, "y z."""');
    const incremental = await Engine.open({ targets: [dir], incremental: true });
    const keys = (e: Engine, t: string): string[] => e.check(t, file).findings.map((x) => `${x.range.start.line + 1}:${x.code}:${x.param ?? ''}`);
    assert.deepEqual(keys(incremental, text), ['13:missing-argument:b', '16:missing-argument:b']);
    const fresh = await Engine.open({ targets: [dir] });
    const want = keys(fresh, broken);
    // the methods are still checked: only the damaged lines are set aside
    assert.deepEqual(want, ['13:missing-argument:b', '16:missing-argument:b']);
    assert.deepEqual(keys(incremental, broken), want);
  });

  it('a region whose errors move up while being set right is left to the whole text (fuzz seed 8)', async () => {
    await initParser();
    const text = 'import os\nfrom a import (\n    b,\n    c,\n)\nfrom d import e\nfrom g import h\nfrom i import j\nfrom k import l\n\nx = 1\n';
    const typed = text.replace('from d import e', 'from d GPUimport e').replace('from g import h', 'from coreduler');
    const tree = parsePython(text);
    try {
      const whole = parseRecovering(typed);
      const region = recoverRegion(typed, { text, tree }, { text, broken: [] });
      try {
        // alone, the region sets aside `from coreduler` too; the whole text leaves it in place
        if (region) assert.equal(region.text, whole.text);
      } finally {
        region?.tree.delete();
        whole.tree.delete();
      }
    } finally {
      tree.delete();
    }
  });
  it('valid code that indentation reads as a bracket left open is set aside with the region as by the whole text (fuzz seed 1754559906)', async () => {
    const dir = tempDir('bigsyntax-dedent');
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'lib'));
    fs.writeFileSync(path.join(dir, 'lib', '__init__.py'), 'def f(a, b):\n    return a\n\ndef g(a, b):\n    return a\n');
    const user = tempDir('bigsyntax-dedent-user');
    dirs.push(user);
    const file = path.join(user, 'dedent.py');
    // valid Python: a line inside the brackets of f(...) indented less than the statement
    const text = 'import os\nfrom lib import f\nfrom lib import g\n\nA = 1\nB = 2\nD = 3\n\n\nclass C:\n    def m(self, x):\n        y = f(\n            x,\n      x)\n        return g(y)\n';
    // an import line broken far above it
    const typed = text.replace('from lib import g', 'from lib.25  # more import g');
    const keys = (e: Engine, t: string): string[] => e.check(t, file).findings.map((x) => `${x.range.start.line + 1}:${x.code}:${x.param ?? ''}`);
    const incremental = await Engine.open({ targets: [dir], incremental: true });
    assert.deepEqual(keys(incremental, text), ['15:missing-argument:b']);
    const fresh = await Engine.open({ targets: [dir] });
    const want = keys(fresh, typed);
    assert.deepEqual(keys(incremental, typed), want);
    // the unit behind it: the region (when it is used) gives the text the whole recovery gives
    await initParser();
    const tree = parsePython(text);
    try {
      const whole = parseRecovering(typed);
      const region = recoverRegion(typed, { text, tree }, { text, broken: [] });
      try {
        assert.ok(whole.broken.some(([a]) => a === 11), `the whole text sets aside the call with the dedented line: ${JSON.stringify(whole.broken)}`);
        if (region) assert.equal(region.text, whole.text);
      } finally {
        region?.tree.delete();
        whole.tree.delete();
      }
    } finally {
      tree.delete();
    }
  });
});
