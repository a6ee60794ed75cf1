/**
 * Keystrokes in a file that is one big class (most real files): the edited statement is most of
 * the file, so setting a damaged region right alone would parse most of the file afresh, twice.
 * An error-free keystroke is parsed incrementally only; a damaged one is set right as a whole,
 * with no fresh parse of the whole text (only the pieces it touched are parsed afresh, alone).
 * Every step gives what a fresh check of the same text gives.
 *
 * Work is counted, not timed: the fresh parses (no old tree given) of the incremental engine, and
 * the longest text parsed so.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import { after, describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { initParser, parsePython, parsePythonIncremental } from '../../server/src/engine/parser';
import { tempTree } from '../helpers';

// the same module instance the engine parses with
// eslint-disable-next-line @typescript-eslint/no-require-imports
const treeSitter = require('web-tree-sitter') as typeof import('web-tree-sitter');

let freshParses = 0;
let longestFresh = 0;
let counting = false;
const original = treeSitter.Parser.prototype.parse;
treeSitter.Parser.prototype.parse = function (this: unknown, input: unknown, oldTree?: unknown, ...rest: unknown[]) {
  if (counting && !oldTree) {
    freshParses++;
    if (typeof input === 'string') longestFresh = Math.max(longestFresh, input.length);
  }
  return (original as (...a: unknown[]) => unknown).call(this, input, oldTree, ...rest);
} as typeof original;
after(() => {
  treeSitter.Parser.prototype.parse = original;
});

function essence(r: CheckResult): unknown {
  return {
    findings: r.findings.map((f) => ({ ...f, file: '' })),
    calls: r.calls.map((c) => ({ range: c.range, callee: c.callee, status: c.status, unknownReason: c.unknownReason })),
    callsChecked: r.callsChecked,
    callsUnknown: r.callsUnknown,
    skipped: r.skipped,
  };
}

const LIB = {
  'lib/__init__.py': ['class Runner:', '    def execute(self, batch, *, mode="a"):', '        return batch', '', 'def make(x, y):', '    return x', ''].join('\n'),
};

function bigClass(methods: number, name = 'MyRunner', header = true): string {
  const out = header ? ['from lib import Runner, make', '', ''] : ['', ''];
  out.push(`class ${name}(Runner):`, '    def __init__(self):', '        self.n = 1', '');
  for (let i = 0; i < methods; i++) {
    out.push(`    def step_${i}(self, batch):`, '        out = self.execute(batch)', `        make(out, ${i})`, '        return out', '');
  }
  return out.join('\n');
}

describe('keystrokes in a file that is one big class', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  it('parses an error-free keystroke incrementally only, a damaged one without a fresh parse of the whole text, and gives what a fresh check gives', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const engine = await Engine.open({ targets: [dir], incremental: true });
    const freshEngine = await Engine.open({ targets: [dir] });
    let text = bigClass(40);
    engine.check(text, 'big.py');
    const at = text.indexOf('make(out, 20)') + 'make(out, 20'.length;
    // typing a keyword argument one key at a time (`z=` is damaged), then an unclosed call on a
    // new line, then a method header that loses its colon, each mended again
    const steps: Array<{ what: string; edit: (t: string) => string; damaged: boolean }> = [];
    const typed = ', z=1';
    for (let i = 0; i < typed.length; i++) {
      const k = i;
      steps.push({ what: `typing ${JSON.stringify(typed.slice(0, k + 1))}`, edit: (t) => t.slice(0, at + k) + typed[k] + t.slice(at + k), damaged: typed.slice(0, k + 1) === ', z=' });
    }
    steps.push({ what: 'an unclosed call on a new line', edit: (t) => t.replace('        make(out, 30)\n', '        make(out, 30)\n        make(\n'), damaged: true });
    steps.push({ what: 'and closed', edit: (t) => t.replace('        make(\n', '        make()\n'), damaged: false });
    steps.push({ what: 'a header without its colon', edit: (t) => t.replace('    def step_33(self, batch):', '    def step_33(self, batch)'), damaged: true });
    steps.push({ what: 'and mended', edit: (t) => t.replace('    def step_33(self, batch)\n', '    def step_33(self, batch):\n'), damaged: false });
    const log: string[] = [];
    for (const step of steps) {
      text = step.edit(text);
      freshParses = 0;
      longestFresh = 0;
      counting = true;
      let r: CheckResult;
      try {
        r = engine.check(text, 'big.py');
      } finally {
        counting = false;
      }
      log.push(`${step.what}: ${freshParses} fresh parse(s) of at most ${longestFresh} characters, ${r.findings.map((f) => `${f.range.start.line}:${f.code}`).join(' ')}`);
      // a method of 40 is a fortieth of the file
      if (step.damaged) assert.ok(freshParses <= 4 && longestFresh <= text.length / 10, `${step.what}: ${freshParses} fresh parses, of up to ${longestFresh} of ${text.length} characters`);
      else assert.equal(freshParses, 0, `${step.what}: parsed afresh`);
      assert.deepEqual(essence(r), essence(freshEngine.check(text, 'big.py')), `after ${step.what}`);
    }
    console.log(log.join('\n'));
    // the typed keyword argument is reported once complete
    assert.ok(log[typed.length - 1].includes('unexpected-keyword'), log[typed.length - 1]);
  });

  it('parses an error-free keystroke in one of two big classes incrementally only, and gives what a fresh check gives', async () => {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const engine = await Engine.open({ targets: [dir], incremental: true });
    const freshEngine = await Engine.open({ targets: [dir] });
    // two classes of some 150 rows each: the edited one is big, but not most of the file
    let text = bigClass(30) + bigClass(30, 'Second', false);
    engine.check(text, 'two.py');
    const at = text.indexOf('make(out, 12)') + 'make(out, 12'.length;
    const typed = ', z=1';
    for (let k = 0; k < typed.length; k++) {
      text = text.slice(0, at + k) + typed[k] + text.slice(at + k);
      freshParses = 0;
      counting = true;
      let r: CheckResult;
      try {
        r = engine.check(text, 'two.py');
      } finally {
        counting = false;
      }
      if (typed.slice(0, k + 1) !== ', z=') assert.equal(freshParses, 0, `typing ${JSON.stringify(typed.slice(0, k + 1))}: parsed afresh`);
      assert.deepEqual(essence(r), essence(freshEngine.check(text, 'two.py')), `after typing ${JSON.stringify(typed.slice(0, k + 1))}`);
    }
  });

  it('abandons an incremental re-parse past its budget, and the next parse starts afresh', async () => {
    await initParser();
    const text = bigClass(40);
    const damaged = text.replace('make(out, 20)', 'make((out, 20)');
    const base = parsePython(text);
    const copy = base.copy();
    try {
      assert.equal(parsePythonIncremental(damaged, { text, tree: copy }, 0), undefined, 'a zero budget abandons the parse');
    } finally {
      copy.delete();
    }
    // nothing of the abandoned parse is resumed: the next parses give what a fresh parse gives
    const again = base.copy();
    const t = parsePythonIncremental(damaged, { text, tree: again });
    const whole = parsePython(text);
    try {
      assert.equal(t.rootNode.hasError, true);
      assert.equal(whole.rootNode.toString(), base.rootNode.toString());
    } finally {
      for (const x of [again, t, whole, base]) x.delete();
    }
  });
});
