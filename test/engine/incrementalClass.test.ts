/**
 * Re-checks inside big classes: a top-level class is reused member by member (its header and each
 * statement of its body), so an edit inside one method re-checks that method only. What a member's
 * results depend on elsewhere in the class (the attributes `__init__` assigns, the signatures of
 * the methods it calls on `self`, the overrides of subclasses, the class's bases) must re-check it
 * when it changes: every step is compared with a fresh check of the same text.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, describe, it } from 'node:test';
import { Engine, type CheckResult } from '../../server/src/engine';
import { tempTree } from '../helpers';

/** Everything a check reports, without the file name. */
function essence(r: CheckResult): unknown {
  return {
    findings: r.findings.map((f) => ({ ...f, file: '' })),
    calls: r.calls.map((c) => ({ range: c.range, extent: c.extent, callee: c.callee, signatures: c.signatures, definition: c.definition, status: c.status, unknownReason: c.unknownReason, baseline: c.baseline, changes: c.changes })),
    overrides: r.overrides,
    callsChecked: r.callsChecked,
    callsUnknown: r.callsUnknown,
    callsUntraced: r.callsUntraced,
    skipped: r.skipped,
  };
}

const LIB = {
  'lib/__init__.py': [
    'class Worker:',
    '    def __init__(self, n):',
    '        self.n = n',
    '    def run(self, k):',
    '        return k',
    '',
    'class Other:',
    '    def run(self, k, j):',
    '        return k',
    '',
    'class Runner:',
    '    def __init__(self, config):',
    '        self.config = config',
    '    def load_model(self, path, *, device):',
    '        return path',
    '    def execute(self, batch):',
    '        return batch',
    '    def helper(self, a, b):',
    '        return a',
    '',
    'def make(x, y):',
    '    return x',
    '',
  ].join('\n'),
};

/** A user class of many methods derived from a target class, as a model-runner subclass is. */
function bigClass(methods: number): string {
  const out = ['from lib import Runner, Worker, Other, make', '', 'LIMIT = 4', '', '', 'class MyRunner(Runner):', '    """A runner."""', '', '    scale: int = 2', ''];
  out.push('    def __init__(self, config):', '        super().__init__(config)', '        self.worker = Worker(1)', '        self.other = Other()', '');
  for (let i = 0; i < methods; i++) {
    out.push(`    def step_${i}(self, batch):`);
    out.push(`        out = self.execute(batch)`);
    if (i % 3 === 0) out.push(`        self.worker.run(out, ${i})`);
    if (i % 3 === 1) out.push(`        self.helper(out)`);
    if (i % 3 === 2) out.push(`        self.load_model("p", device="cpu")`);
    out.push(`        make(out, ${i})`);
    out.push(`        return self.step_${(i + 1) % methods}(out)`, '');
  }
  out.push('', 'class Child(MyRunner):', '    def tail(self):', '        return self.execute(1)', '');
  return out.join('\n');
}

describe('incremental re-checks inside classes', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

  /** `file`: a path inside the target folder makes the file a module of it (its own methods are checked too). */
  async function session(file?: (dir: string) => string): Promise<{ check(text: string): CheckResult; fresh(text: string): Promise<CheckResult> }> {
    const dir = tempTree(LIB);
    dirs.push(dir);
    const name = file ? file(dir) : 'edited.py';
    const engine = await Engine.open({ targets: [dir], incremental: true });
    const freshEngine = await Engine.open({ targets: [dir] });
    return { check: (text) => engine.check(text, name), fresh: async (text) => freshEngine.check(text, name) };
  }

  const steps: Array<[string, (t: string) => string]> = [
    ['as written', (t) => t],
    ['typing a keyword argument into a call in one method', (t) => t.replace('make(out, 4)', 'make(out, 4, z=1)')],
    ['and its value', (t) => t.replace('make(out, 4, z=1)', 'make(out, 4, z=12)')],
    // self.worker.run(out, i) binds to Worker.run(k): one too many; Other.run(k, j) takes it
    ['__init__ assigns another class to the attribute other methods call', (t) => t.replace('self.worker = Worker(1)', 'self.worker = Other()  ')],
    ['and back', (t) => t.replace('self.worker = Other()  ', 'self.worker = Worker(1)')],
    ['a second assignment of the attribute in another method', (t) => t.replace('        make(out, 7)\n', '        make(out, 7)\n        self.worker = Other()\n')],
    ['that assignment removed', (t) => t.replace('        self.worker = Other()\n', '')],
    // self.helper(out) binds to Runner.helper(a, b): missing b, until the class defines its own
    ['the class overrides the method other methods call on self', (t) => t.replace('    scale: int = 2\n', '    scale: int = 2\n\n    def helper(self, a):\n        return a\n')],
    ['the override takes another parameter', (t) => t.replace('    def helper(self, a):', '    def helper(self, a, c):')],
    ['the override removed', (t) => t.replace('\n    def helper(self, a, c):\n        return a\n', '\n')],
    ['a subclass overrides a method another way', (t) => t.replace('    def tail(self):', '    def load_model(self, path):\n        return path\n\n    def tail(self):')],
    ['a method of the target class renamed in a call', (t) => t.replace('self.load_model("p", device="cpu")', 'self.load_modl("p", device="cpu")')],
    ['lines inserted above the class', (t) => t.replace('LIMIT = 4\n', 'LIMIT = 4\n\n\n# a comment\n')],
    ['a line inserted inside a method', (t) => t.replace('        make(out, 10)\n', '        make(out, 10)\n\n')],
    ['the base changes', (t) => t.replace('class MyRunner(Runner):', 'class MyRunner(Worker):')],
    ['and back', (t) => t.replace('class MyRunner(Worker):', 'class MyRunner(Runner):')],
    ['the imported name is rebound', (t) => t.replace('LIMIT = 4\n', 'LIMIT = 4\nWorker = Other\n')],
    ['a decorator on the class', (t) => t.replace('class MyRunner(Runner):', '@make\nclass MyRunner(Runner):')],
    ['a field typed with a class', (t) => t.replace('    scale: int = 2', '    scale: Worker = 2')],
    ['`global` names the attribute holder', (t) => t.replace('LIMIT = 4\n', 'LIMIT = 4\nw = Worker(1)\ndef g():\n    global w\n    w = 1\n')],
    ['a method body broken while typing', (t) => t.replace('make(out, 5)', 'make(out, 5')],
    ['and mended', (t) => t.replace('make(out, 5\n', 'make(out, 5)\n')],
  ];

  for (const [label, file] of [
    ['a script', undefined],
    ['a module of the target (its own methods are checked too)', (dir: string) => path.join(dir, 'mine.py')],
  ] as const) {
    it(`gives what a fresh check gives after edits inside methods of a big class: ${label}`, async () => {
      const s = await session(file);
      let text = bigClass(12);
      const seen: string[] = [];
      for (const [what, edit] of steps) {
        const next = edit(text);
        if (seen.length > 0) assert.notEqual(next, text, `the step "${what}" edits the text`);
        text = next;
        const r = s.check(text);
        assert.deepEqual(essence(r), essence(await s.fresh(text)), `after "${what}"`);
        seen.push(`${what}: ${r.findings.map((f) => `${f.range.start.line}:${f.code}:${f.param ?? ''}`).join(' ')} (re-checked ${r.timing?.unitsChecked}, reused ${r.reused})`);
      }
      console.log(seen.join('\n'));
      // the edits changed the findings as they should: the attribute's class, the override
      const findings = (i: number): string => seen[i].split(': ').slice(1).join(': ');
      assert.notEqual(findings(3), findings(2), 'assigning another class in __init__ changed the findings of other methods');
      assert.notEqual(findings(7), findings(6), 'overriding the method called on self changed the findings');
    });
  }

  it('an edit inside one method re-checks that method only', async () => {
    const s = await session();
    const text = bigClass(30);
    s.check(text);
    const edited = text.replace('make(out, 17)', 'make(out, 17, z=1)');
    const r = s.check(edited);
    assert.equal(r.timing?.unitsChecked, 1, 'only the edited method is checked again');
    assert.deepEqual(essence(r), essence(await s.fresh(edited)));
    // lines inserted above the class: every member is taken over, moved
    const moved = s.check('\n\n' + edited);
    assert.ok((moved.timing?.unitsChecked ?? 99) <= 2, `lines inserted above the class re-check next to nothing (${moved.timing?.unitsChecked})`);
    // and a line inserted inside one method, the method only (the others keep their text)
    const enter = s.check('\n\n' + edited.replace('make(out, 5)\n', 'make(out, 5)\n\n'));
    assert.ok((enter.timing?.unitsChecked ?? 99) <= 2, `a line inserted in a method re-checks next to nothing else (${enter.timing?.unitsChecked})`);
    assert.deepEqual(essence(enter), essence(await s.fresh('\n\n' + edited.replace('make(out, 5)\n', 'make(out, 5)\n\n'))));
    assert.deepEqual(essence(moved), essence(await s.fresh('\n\n' + edited)));
    // a changed attribute assignment in __init__ re-checks the methods of the class
    const reassigned = s.check('\n\n' + edited.replace('self.worker = Worker(1)', 'self.worker = Other()'));
    assert.ok((reassigned.timing?.unitsChecked ?? 0) > 30, `every member of the class is checked again (${reassigned.timing?.unitsChecked})`);
  });
});
