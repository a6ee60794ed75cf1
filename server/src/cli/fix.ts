/**
 * `check --fix` / `--diff`: which fixes apply (safe ones; unsafe ones too with `--unsafe-fixes`;
 * never a fix with a placeholder), applying edits to a text, and the unified diff of a change.
 */
import { type Finding, type Fix, type TextEdit } from '../engine';
import { fixAllEdits } from '../engine/check/fixes';

/** Whether a fix may be applied without asking: no placeholder, and safe unless unsafe fixes are allowed. */
export function applicable(fix: Fix, unsafe: boolean): boolean {
  if (fix.snippet || /\$\{\d+:/.test(fix.edits.map((e) => e.newText).join(''))) return false;
  return fix.applicability === 'safe' || unsafe;
}

/** One edit per finding that has an applicable fix, none overlapping. */
export function editsToApply(findings: Finding[], unsafe: boolean): { edits: TextEdit[]; fixed: number } {
  let fixed = 0;
  const lists = findings.map((f) => f.fixes.filter((x) => applicable(x, unsafe)));
  const edits = fixAllEdits(lists);
  // count the findings whose chosen fix made it in (fixAllEdits keeps whole fixes or none)
  const taken = new Set(edits);
  for (const fixes of lists) if (fixes.some((x) => x.edits.every((e) => taken.has(e)))) fixed++;
  return { edits, fixed };
}

/** Applies edits (0-based lines, UTF-16 columns, not overlapping) to a text. */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const offset = (p: { line: number; character: number }): number =>
    p.line < lineStarts.length ? Math.min(lineStarts[p.line] + p.character, text.length) : text.length;
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start) || offset(b.range.end) - offset(a.range.end));
  let out = text;
  for (const e of sorted) out = out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end));
  return out;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The shortest edit script between two line lists (Myers), as a list of `=`, `-`, `+` operations. */
function diffLines(a: string[], b: string[]): Array<{ op: '=' | '-' | '+'; line: string }> {
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const v = new Int32Array(2 * max + 2);
  const trace: Int32Array[] = [];
  let done = false;
  for (let d = 0; d <= max && !done; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[max + k - 1] < v[max + k + 1]) ? v[max + k + 1] : v[max + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) x++, y++;
      v[max + k] = x;
      if (x >= n && y >= m) {
        done = true;
        break;
      }
    }
  }
  const ops: Array<{ op: '=' | '-' | '+'; line: string }> = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[max + k - 1] < vd[max + k + 1]) ? k + 1 : k - 1;
    const prevX = vd[max + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) ops.push({ op: '=', line: a[--x] }), y--;
    if (d > 0) {
      if (x === prevX) ops.push({ op: '+', line: b[--y] });
      else ops.push({ op: '-', line: a[--x] });
    }
  }
  return ops.reverse();
}

/** A unified diff (3 lines of context) from `before` to `after`; empty when they are equal. */
export function unifiedDiff(file: string, before: string, after: string): string {
  if (before === after) return '';
  const a = splitLines(before);
  const b = splitLines(after);
  const ops = diffLines(a, b);
  const out: string[] = [`--- a/${file}`, `+++ b/${file}`];
  const CONTEXT = 3;
  let i = 0;
  // positions (0-based) in a and b before each op
  const pos: Array<[number, number]> = [];
  let ai = 0;
  let bi = 0;
  for (const o of ops) {
    pos.push([ai, bi]);
    if (o.op !== '+') ai++;
    if (o.op !== '-') bi++;
  }
  while (i < ops.length) {
    if (ops[i].op === '=') {
      i++;
      continue;
    }
    let start = Math.max(0, i - CONTEXT);
    while (start < i && ops[start].op !== '=') start++;
    let end = i;
    // extend while the next change is within 2 * CONTEXT unchanged lines
    for (;;) {
      while (end < ops.length && ops[end].op !== '=') end++;
      let next = end;
      while (next < ops.length && ops[next].op === '=') next++;
      if (next < ops.length && next - end <= 2 * CONTEXT) end = next;
      else break;
    }
    const stop = Math.min(ops.length, end + CONTEXT);
    const hunk = ops.slice(start, stop);
    const [as, bs] = pos[start];
    const al = hunk.filter((o) => o.op !== '+').length;
    const bl = hunk.filter((o) => o.op !== '-').length;
    out.push(`@@ -${al === 0 ? as : as + 1},${al} +${bl === 0 ? bs : bs + 1},${bl} @@`);
    for (const o of hunk) out.push((o.op === '=' ? ' ' : o.op) + o.line);
    i = stop;
  }
  if (!after.endsWith('\n') && b.length > 0 && out[out.length - 1].startsWith('+')) out.push('\\ No newline at end of file');
  return out.join('\n') + '\n';
}
