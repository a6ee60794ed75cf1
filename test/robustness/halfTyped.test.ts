/**
 * Half-typed code: tree-sitter ERROR/MISSING regions. Nothing is reported inside them, and the
 * intact calls around them keep their findings (a broken line must not hide the rest of the file).
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { before, describe, it } from 'node:test';
import { Engine, type Finding } from '../../server/src/engine';
import { parsePython, type Node } from '../../server/src/engine/parser';
import { VLLM, VLLM_TEXT, VLLM_USER } from './util';

const LINES = VLLM_TEXT.split('\n');
/** The user file's imports (everything before `logger = ...`). */
const IMPORTS = VLLM_TEXT.slice(0, VLLM_TEXT.indexOf('logger ='));

let engine: Engine;

function keyOf(f: Finding, lineShift = 0): string {
  return `${f.range.start.line + lineShift}:${f.range.start.character}:${f.code}:${f.param ?? ''}`;
}

function check(text: string): Finding[] {
  return engine.check(text, VLLM_USER).findings;
}

function isStatement(n: Node): boolean {
  return /_statement$|_definition$/.test(n.type);
}

/**
 * The innermost statement of `root` whose rows include `row` (its rows, inclusive). When `row` lies
 * in the header of a compound statement (`def ...:`, `if ...:`, `elif ...:`), `header` gives the rows
 * before its block.
 */
function statementAt(root: Node, row: number): { first: number; last: number; header?: { first: number; last: number } } | undefined {
  let found: { first: number; last: number; header?: { first: number; last: number } } | undefined;
  let n: Node | null = root;
  while (n) {
    let next: Node | null = null;
    for (const c of n.namedChildren) {
      if (c && c.startPosition.row <= row && c.endPosition.row >= row) {
        next = c;
        break;
      }
    }
    if (!next) break;
    const block = next.namedChildren.find((c) => c?.type === 'block');
    if (block && row < block.startPosition.row) {
      return { first: next.startPosition.row, last: next.endPosition.row, header: { first: next.startPosition.row, last: block.startPosition.row - 1 } };
    }
    if (isStatement(next)) found = { first: next.startPosition.row, last: next.endPosition.row };
    n = next;
  }
  return found;
}

/** Brackets opened and not closed in `text` (strings and comments are not looked into: good enough for headers). */
function unbalanced(text: string): boolean {
  let depth = 0;
  for (const ch of text.replace(/#.*$/gm, '').replace(/(["'])(?:\\.|(?!\1).)*\1/g, '')) {
    if ('([{'.includes(ch)) depth++;
    else if (')]}'.includes(ch)) depth--;
  }
  return depth > 0;
}

function hasSyntaxError(text: string): boolean {
  const tree = parsePython(text);
  try {
    return tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}

/** Snippets a user leaves behind while typing; each is one line, inserted as a statement of its own. */
const BROKEN = [
  'Scheduler(vllm_config=cfg,',
  'self.scheduler = Scheduler(vllm_config=self.cfg,',
  'foo(kv_cache_specs=per_layer_specs',
  'x = (((',
  'return [',
  'x = {1: ',
  'def f(:',
  'if x',
  'foo(a,, b)',
  ']',
  'kv_cache_specs=',
  '"unterminated',
  'lambda',
  'for',
  '@',
  'f"{',
  'x.',
  'a b c',
  'x = 1 +',
];

/** Insert before these 1-based lines (statement starts), with that line's indentation. */
const INSERT_BEFORE = [42, 99, 109, 153];

describe('half-typed code', () => {
  before(async () => {
    engine = await Engine.open({ targets: [path.join(VLLM, 'new')] });
  });

  it('the base file has its 3 findings (63, 104, 110)', () => {
    const lines = check(VLLM_TEXT).map((f) => f.range.start.line + 1);
    console.log(`base findings on lines ${lines.join(', ')}`);
    assert.deepEqual(lines, [63, 104, 110]);
  });

  it('reports nothing for an unclosed or broken call, while the intact one is reported', () => {
    const prefix = IMPORTS + 'cfg = k = g = None\n';
    const intact = check(prefix + 'Scheduler(vllm_config=cfg, kv_cache_config=k, structured_output_manager=g)\n');
    assert.deepEqual(intact.map((f) => `${f.code}:${f.param}`), ['missing-argument:block_size'], 'control: the complete call is reported');
    const broken = [
      'Scheduler(vllm_config=cfg,',
      'Scheduler(vllm_config=cfg,\n',
      'Scheduler(vllm_config=cfg,\nx = 1\n',
      'Scheduler(',
      'Scheduler(vllm_config=cfg, kv_cache_config=k, structured_output_manager=g',
      'Scheduler(vllm_config=cfg, kv_cache_config=k, structured_output_manager=g\ny = 2\n',
      'x = Scheduler(vllm_config=cfg, kv_cache_config=)\n',
      'Scheduler(vllm_config=cfg, kv_cache_config=k,, structured_output_manager=g)\n',
      'Scheduler(vllm_config=cfg kv_cache_config=k structured_output_manager=g)\n',
      'Scheduler(vllm_config=cfg, kv_cache_config=k, structured_output_manager=g))\n',
      'SchedulerConfig(max_num_seqs=1,',
      'SchedulerConfig(max_num_seqs=1, max_model_len=\n',
      'def f():\n    return Scheduler(vllm_config=cfg,\n',
      'def f():\n    return Scheduler(vllm_config=cfg,\n\ndef g():\n    pass\n',
    ];
    const reported: string[] = [];
    for (const b of broken) {
      const found = check(prefix + b);
      if (found.length) reported.push(`${JSON.stringify(b)} -> ${found.map((f) => keyOf(f)).join(' ')}`);
    }
    console.log(`${broken.length} broken calls tried, ${reported.length} reported`);
    assert.deepEqual(reported, []);
  });

  it('does not bind a call that Python rejects although tree-sitter accepts it (positional after keyword)', () => {
    // `max_mod)` is a keyword being typed with the closing parenthesis auto-inserted by the editor
    const prefix = IMPORTS + 'cfg = k = g = x = None\n';
    const cases = [
      'SchedulerConfig(max_num_seqs=1, max_mod)',
      'SchedulerConfig(max_num_seqs=1, max_model_len=2, is_encoder_decoder=False, x)',
      'Scheduler(vllm_config=cfg, kv_cache_config=k, structured_output_manager=g, block_size=1, **{"a": 1}, x)',
    ];
    const reported: string[] = [];
    for (const c of cases) {
      const found = check(prefix + c + '\n');
      if (found.length) reported.push(`${c} -> ${found.map((f) => `${f.code}:${f.param}`).join(' ')}`);
    }
    console.log(`${cases.length} syntax-error calls tried, reported: ${JSON.stringify(reported)}`);
    assert.deepEqual(reported, []);
  });

  it('a broken line anywhere keeps every other finding of the file, and none on itself', () => {
    const base = check(VLLM_TEXT);
    const failures: string[] = [];
    let tried = 0;
    for (const at of INSERT_BEFORE) {
      const indent = /^\s*/.exec(LINES[at - 1])![0];
      for (const b of BROKEN) {
        tried++;
        const lines = [...LINES];
        lines.splice(at - 1, 0, indent + b);
        const inserted = at - 1; // 0-based row of the broken line
        const expected = base.map((f) => keyOf(f, f.range.start.line >= inserted ? 1 : 0));
        const got = check(lines.join('\n'));
        const onBroken = got.filter((f) => f.range.start.line <= inserted && f.range.end.line >= inserted);
        const keys = got.map((f) => keyOf(f));
        const lost = expected.filter((k) => !keys.includes(k));
        const extra = keys.filter((k) => !expected.includes(k));
        if (onBroken.length || lost.length || extra.length) {
          failures.push(`line ${at} ${JSON.stringify(b)}: lost [${lost.join(' ')}] extra [${extra.join(' ')}]${onBroken.length ? ' (reported on the broken line)' : ''}`);
        }
      }
    }
    console.log(`${tried} insertions of a broken line (${BROKEN.length} snippets x ${INSERT_BEFORE.length} places), ${failures.length} changed the other findings`);
    for (const f of failures.slice(0, 25)) console.log('  ' + f);
    assert.equal(failures.length, 0, `${failures.length}/${tried} broken lines hid or added findings elsewhere:\n${failures.join('\n')}`);
  });

  it('typing any line again (every prefix of it) never changes findings outside its statement, nor invents any inside a broken one', () => {
    const base = check(VLLM_TEXT);
    const tree = parsePython(VLLM_TEXT);
    const ranges: Array<[number, number]> = [
      [42, 70], // build_engine_config: the SchedulerConfig finding
      [94, 115], // _make_scheduler: kv_cache_specs and block_size
    ];
    let tried = 0;
    let broken = 0;
    const outside: string[] = [];
    const inside: string[] = [];
    try {
      for (const [from, to] of ranges) {
        for (let line = from; line <= to; line++) {
          const row = line - 1;
          const original = LINES[row];
          if (original.includes('"""')) continue; // an unterminated docstring legitimately swallows the file
          const found = statementAt(tree.rootNode, row);
          if (!found) continue;
          const indent = /^\s*/.exec(original)![0].length;
          for (let cut = 0; cut < original.length; cut++) {
            if (cut > 0 && cut < indent) continue;
            const lines = [...LINES];
            lines[row] = original.slice(0, cut);
            const text = lines.join('\n');
            // The statement the edit belongs to (E): a simple statement, or the header of a compound
            // one. When the cut leaves a bracket of a header open, Python cannot tell where the header
            // ends: its body (B) may lose findings, but may not gain any.
            const header = found.header;
            const open = !!header && unbalanced(lines.slice(header.first, row + 1).join('\n'));
            const edited = header ?? found;
            const body = open && header ? { first: header.last + 1, last: found.last } : undefined;
            const within = (f: Finding, r: { first: number; last: number } | undefined): boolean => !!r && f.range.start.line >= r.first && f.range.start.line <= r.last;
            tried++;
            const got = check(text);
            const isBroken = hasSyntaxError(text);
            if (isBroken) broken++;
            const label = `line ${line} cut at ${cut} ${JSON.stringify(lines[row].trim())}`;
            const want = base.filter((f) => !within(f, edited) && !within(f, body)).map((f) => keyOf(f));
            const have = got.filter((f) => !within(f, edited) && !within(f, body)).map((f) => keyOf(f));
            if (want.join('|') !== have.join('|')) outside.push(`${label}: outside its statement expected [${want.join(' ')}] got [${have.join(' ')}]`);
            const baseBody = base.filter((f) => within(f, body)).map((f) => keyOf(f));
            const invented = got.filter((f) => within(f, body) && !baseBody.includes(keyOf(f)));
            if (invented.length) outside.push(`${label}: new findings in the body of an open header: ${invented.map((f) => keyOf(f)).join(' ')}`);
            if (isBroken) {
              // the intact calls nested in a broken statement may keep their findings; the broken
              // statement itself must not produce new ones
              const baseEdited = base.filter((f) => within(f, edited)).map((f) => keyOf(f));
              const inEdited = got.filter((f) => within(f, edited) && !baseEdited.includes(keyOf(f)));
              if (inEdited.length) inside.push(`${label}: new findings inside the broken statement: ${inEdited.map((f) => keyOf(f)).join(' ')}`);
            }
          }
        }
      }
    } finally {
      tree.delete();
    }
    console.log(`${tried} half-typed variants (${broken} with syntax errors): ${outside.length} changed findings outside the edited statement, ${inside.length} invented findings inside a broken statement`);
    for (const f of [...outside.slice(0, 12), ...inside.slice(0, 12)]) console.log('  ' + f);
    assert.equal(inside.length, 0, `new findings inside broken statements:\n${inside.slice(0, 40).join('\n')}`);
    assert.equal(outside.length, 0, `findings elsewhere changed by a half-typed line:\n${outside.slice(0, 40).join('\n')}`);
  });

  it('keeps checking the imports and definitions around a broken class header', () => {
    // tree-sitter turns the whole module into one ERROR node for some breakages: the intact
    // statements inside it are still intact.
    const lines = [...LINES];
    lines.splice(98, 0, '        x = (((');
    const text = lines.join('\n');
    const tree = parsePython(text);
    const rootIsError = tree.rootNode.isError;
    tree.delete();
    const got = check(text);
    console.log(`root is an ERROR node: ${rootIsError}; findings: ${got.map((f) => keyOf(f)).join(' ') || 'none'}`);
    assert.ok(got.some((f) => f.range.start.line + 1 === 63 && f.param === 'is_encoder_decoder'), 'the finding in build_engine_config (line 63), far before the broken line, survives');
    const withBadImport = 'from vllm.config import NoSuchConfig\n' + text;
    const imports = check(withBadImport).filter((f) => f.code === 'unknown-import');
    assert.equal(imports.length, 1, 'an unknown import above a broken line is still reported');
  });
});
