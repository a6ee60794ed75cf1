/**
 * Half-typed code: tree-sitter recovers from a syntax error, but an unclosed bracket can swallow
 * the rest of the file into one error. Python code has a second structure that survives such
 * errors: indentation. Each broken statement (from its line to the next line indented no deeper)
 * is set aside: replaced by `pass` and blank lines, so that every other statement parses as it
 * would without it and keeps its exact position. Nothing inside a broken statement is reported.
 */
import { differing, parsePython, parsePythonIncremental, type Node, type Tree } from '../parser';
import { ownString } from '../ownStrings';

const MAX_ROUNDS = 12;

/**
 * Line ends that leave a statement unfinished outside brackets (`x = 1,` and `1.` are complete;
 * `x.` and `f().`, half-typed attributes, are not).
 */
const DANGLING = /(^|[^*])([-+/%@&|^<>=~]|\*\*|(?<![\w)\]}'"])\*)$|\b(and|or|not|in|is|lambda|if|else|await|from|import|as|assert|del|with|for|while|elif|except|class|def|return\s+lambda)$|(?<![\w.])[A-Za-z_][\w.]*\.$|[)\]}'"]\.$/;

function indentOf(line: string): number {
  let n = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 32) n++;
    else if (c === 9) n = n + 8 - (n % 8);
    else break;
  }
  return n;
}

/** Blank, or a comment only. */
function isBlank(line: string): boolean {
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 35) return true; // '#'
    // white space as the pattern \s reads it on a line (no line breaks inside one)
    if (c !== 32 && c !== 9 && c !== 13 && c !== 12 && c !== 11 && !(c > 127 && /\s/.test(line[i]))) return false;
  }
  return true;
}

/** Rows where the innermost syntax errors start (ERROR nodes with no ERROR inside, MISSING nodes). */
function errorRows(root: Node): number[] {
  const rows = new Set<number>();
  const visit = (n: Node): boolean => {
    if (!n.hasError && !n.isMissing) return false;
    let inner = false;
    for (const c of n.children) if (c && visit(c)) inner = true;
    if ((n.isError || n.isMissing) && !inner) rows.add(n.startPosition.row);
    return inner || n.isError || n.isMissing;
  };
  visit(root);
  return [...rows].sort((a, b) => a - b);
}

/** Where a scan of lines stands: a string left open (a triple-quoted one spans lines), and the brackets open. */
interface LineScan {
  quote?: string;
  depth: number;
}

/**
 * Reads one line on from `scan` (strings, comments, brackets), updating it; `closedWithNoneOpen`
 * is told of each closing bracket with none open. Gives the last character of code outside
 * strings (a string counts by its opening quote).
 */
function scanLine(line: string, scan: LineScan, closedWithNoneOpen?: () => void): string {
  let last = -1;
  const n = line.length;
  for (let i = 0; i < n; i++) {
    const c = line.charCodeAt(i);
    if (scan.quote) {
      if (c === 92) i++; // a backslash escapes what follows
      else if (c === scan.quote.charCodeAt(0) && line.startsWith(scan.quote, i)) {
        i += scan.quote.length - 1;
        scan.quote = undefined;
      }
      continue;
    }
    if (c === 35) break; // '#'
    if (c !== 32 && c !== 9 && c !== 13 && c !== 12 && c !== 11) last = i;
    if (c === 34 || c === 39) {
      // a string: triple-quoted ones may span lines
      if (line.charCodeAt(i + 1) === c && line.charCodeAt(i + 2) === c) {
        scan.quote = c === 34 ? '"""' : "'''";
        i += 2;
        continue;
      }
      let j = i + 1;
      while (j < n && line.charCodeAt(j) !== c) j += line.charCodeAt(j) === 92 ? 2 : 1;
      i = j;
      continue;
    }
    if (c === 40 || c === 91 || c === 123) scan.depth++;
    else if (c === 41 || c === 93 || c === 125) {
      if (scan.depth === 0) closedWithNoneOpen?.();
      scan.depth = Math.max(0, scan.depth - 1);
    }
  }
  return last < 0 ? '' : line[last];
}

/**
 * Statements whose brackets are still open when a line indented no deeper than the statement
 * begins (and is no closing bracket): Python would read on, an editor's user has moved on.
 */
function unclosedStatements(lines: string[], overClosed: Set<number>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  const scan: LineScan = { depth: 0 };
  let start = -1;
  let indent = 0;
  for (let row = 0; row < lines.length; row++) {
    const line = lines[row];
    if (!scan.quote && scan.depth > 0 && !isBlank(line) && indentOf(line) <= indent && !/^\s*[)\]}]/.test(line)) {
      out.push([start, row - 1]);
      scan.depth = 0;
    }
    if (!scan.quote && scan.depth === 0 && !isBlank(line)) {
      start = row;
      indent = indentOf(line);
    }
    const depthBefore = scan.depth;
    scanLine(line, scan, () => {
      if (start >= 0) overClosed.add(start);
    });
    // a statement that ends on an operator or a keyword waiting for more
    if (scan.quote || scan.depth !== 0 || start < 0 || isBlank(line)) continue;
    const code = line.replace(/#.*$/, '').trimEnd();
    // (what DANGLING can match ends with an operator, a dot or a keyword)
    if (!/[-+/%@&|^<>=~*.a-z]/.test(code[code.length - 1] ?? '')) continue;
    if (!code.endsWith('\\') && DANGLING.test(code) && !(depthBefore === 0 && /^\s*@/.test(code))) out.push([start, row]);
  }
  return out;
}

/** Whether a triple-quoted string is still open at the end of `lines` (read as `unclosedStatements` reads them). */
function stringOpenAtEnd(lines: string[]): boolean {
  const scan: LineScan = { depth: 0 };
  for (const line of lines) scanLine(line, scan);
  return scan.quote !== undefined;
}

export interface Recovered {
  tree: Tree;
  text: string;
  /** Line ranges [from, to] set aside as broken. */
  broken: Array<[number, number]>;
  /**
   * An error moved up: a statement above the one set aside in the round before (where tree-sitter
   * placed the errors) was set aside next. Where tree-sitter places such errors depends on what
   * follows, so a region recovered alone may then differ from the whole text.
   */
  movedUp?: boolean;
}

/**
 * Parses `text`, setting broken statements aside when it has syntax errors. `raw` is a tree of
 * exactly `text` (an incremental parse kept by the caller); `lastChecked` an error-free tree of a
 * text checked before (of the same file), to re-parse from. Neither is deleted here. With
 * `evenWithoutErrors` the first pass (brackets that indentation says are left open) runs even on a
 * text without errors, as it does on every statement of a whole text that has one elsewhere.
 */
export function parseRecovering(text: string, raw?: Tree, lastChecked?: { text: string; tree: Tree }, evenWithoutErrors = false): Recovered {
  if (raw && !raw.rootNode.hasError && !evenWithoutErrors) return { tree: raw, text, broken: [] };
  // with `raw`, its errors say that the text has some; a fresh tree is made only when needed
  let tree: Tree | undefined;
  if (!raw) {
    tree = parsePython(text);
    if (!tree.rootNode.hasError && !evenWithoutErrors) return { tree, text, broken: [] };
  }
  const lines = text.split('\n');
  const broken: Array<[number, number]> = [];
  const setAside = (from: number, to: number): void => {
    // a block header that lost its colon: keep its body, which is still checkable, under `if True:`
    const header = /^\s*(async\s+)?(def|class|if|elif|while|for|with|try|except|finally|else)\b/.test(lines[from]) && !/:\s*(#.*)?$/.test(lines[from]);
    let bodyStart = from + 1;
    while (bodyStart <= to && isBlank(lines[bodyStart])) bodyStart++;
    if (header && bodyStart <= to && indentOf(lines[bodyStart]) > indentOf(lines[from]) && !/^\s*(elif|else|except|finally)\b/.test(lines[from])) {
      broken.push([from, from]);
      const pad = lines[from].slice(0, lines[from].length - lines[from].trimStart().length);
      lines[from] = `${pad}if True:`;
      return;
    }
    broken.push([from, to]);
    const pad = lines[from].slice(0, lines[from].length - lines[from].trimStart().length);
    lines[from] = `${pad}pass`;
    for (let r = from + 1; r <= to; r++) lines[r] = lines[r].endsWith('\r') ? '\r' : '';
  };
  const code = (r: number): string => lines[r].replace(/#.*$/, '').trimEnd();
  const previous = (r: number, below?: number): number | undefined => {
    for (let q = r - 1; q >= 0; q--) if (!isBlank(lines[q]) && (below === undefined || indentOf(lines[q]) < below)) return q;
    return undefined;
  };
  /** A line that cannot end a statement: an operator or a keyword waiting for more, or a header without its colon. */
  const incomplete = (r: number): boolean => {
    const c = code(r);
    if (/([-+*/%@&|^<>=,.\\([{]|\b(and|or|not|in|is|lambda|if|else|await|from|import|as|assert|del|raise|with|for|while|elif|except|class|def))$/.test(c)) return true;
    return /^\s*(if|elif|while|for|with|def|class|try|except|finally|else|async)\b/.test(c) && !c.endsWith(':');
  };
  /** The statement holding row `row`: lines indented deeper than the line above them continue it. */
  const statementAt = (row: number): [number, number] | undefined => {
    let start = row;
    while (start > 0 && isBlank(lines[start])) start--;
    // a closing bracket belongs to the line that opened it
    while (/^\s*[)\]}]/.test(lines[start])) {
      const p = previous(start, indentOf(lines[start]) + 1);
      if (p === undefined) break;
      start = p;
    }
    for (;;) {
      const p = previous(start, indentOf(lines[start]));
      if (p === undefined || code(p).endsWith(':')) break;
      start = p; // an unexpected indentation: the line continues the statement above
    }
    const q = previous(start);
    if (q !== undefined && incomplete(q) && indentOf(lines[q]) === indentOf(lines[start])) return statementAt(q);
    const indent = indentOf(lines[start]);
    if (/^\s*(else|elif|except|finally)\b/.test(lines[start])) return undefined; // the clause alone cannot be replaced
    let end = start + 1;
    while (end < lines.length && (isBlank(lines[end]) || indentOf(lines[end]) > indent)) end++;
    // a clause (else/elif/except/finally) belongs to its statement
    while (end < lines.length && indentOf(lines[end]) === indent && /^\s*(else|elif|except|finally)\b/.test(lines[end])) {
      end++;
      while (end < lines.length && (isBlank(lines[end]) || indentOf(lines[end]) > indent)) end++;
    }
    return [start, end - 1];
  };
  // 1. unclosed brackets, found by indentation
  const overClosed = new Set<number>();
  for (const [a, b] of unclosedStatements(lines, overClosed)) setAside(a, b);
  for (const row of overClosed) {
    const st = statementAt(row);
    if (st && !broken.some(([a, b]) => st[0] <= b && st[1] >= a)) setAside(st[0], st[1]);
  }
  let current = lines.join('\n');
  const base = lastChecked ?? (raw ? { text, tree: raw } : undefined);
  // a re-parse of the last checked text's tree that comes out without errors is what a fresh
  // parse gives (the usual case while typing: what is unfinished set aside)
  const reparsed = (): Tree | undefined => {
    if (!base) return undefined;
    const copy = base.tree.copy();
    try {
      const t = parsePythonIncremental(current, { text: base.text, tree: copy });
      if (!t.rootNode.hasError) return t;
      t.delete();
    } finally {
      copy.delete();
    }
    return undefined;
  };
  if (broken.length === 0 && raw && !raw.rootNode.hasError) return { tree: raw, text, broken };
  if (broken.length && base) {
    const t = reparsed();
    if (t) {
      tree?.delete();
      return { tree: t, text: current, broken };
    }
  }
  // `tree` is now a fresh parse of `current` or undefined (`current` then has errors)
  if (broken.length && !base) {
    tree?.delete();
    tree = parsePython(current);
  }
  // 2. other errors, one at a time (the first one often causes the others). Where tree-sitter
  // places them in the whole text costs a fresh parse of it (an incremental parse of a damaged text
  // may place them elsewhere): they are looked for in the text's pieces first (see
  // `pieceErrorRows`), each parsed alone and fresh, and remembered by its text, so that a keystroke
  // costs a parse of the piece it touched. Only when no piece gives a statement to set aside is the
  // whole text parsed for its errors. Either way the rows are a matter of the text alone.
  let previousRow = -1;
  let movedUp = false;
  const setAsideFirst = (rows: number[]): boolean => {
    for (const row of rows) {
      if (broken.some(([a, b]) => row >= a && row <= b)) continue;
      let st = statementAt(row);
      if (!st || broken.some(([a, b]) => st![0] >= a && st![0] <= b)) continue;
      // inside a large statement, a block header that lost its colon is the likelier culprit
      for (let r = st[0] + 1; r <= st[1]; r++) {
        if (/^\s*(async\s+)?(def|class|if|elif|while|for|with|try|except|finally|else)\b/.test(lines[r]) && !/:\s*(#.*)?$/.test(lines[r]) && !/[([{,\\]\s*(#.*)?$/.test(lines[r])) {
          st = statementAt(r) ?? st;
          break;
        }
      }
      if (st[0] < previousRow) movedUp = true;
      previousRow = st[0];
      setAside(st[0], st[1]);
      return true;
    }
    return false;
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    if (tree && !tree.rootNode.hasError) break;
    if (!setAsideFirst(pieceErrorRows(lines))) {
      tree ??= parsePython(current);
      if (!tree.rootNode.hasError || !setAsideFirst(errorRows(tree.rootNode))) break;
    }
    current = lines.join('\n');
    tree?.delete();
    tree = undefined;
    const t = reparsed();
    if (t) return { tree: t, text: current, broken, movedUp };
    if (!base) tree = parsePython(current);
  }
  return { tree: tree ?? parsePython(current), text: current, broken, movedUp };
}

/**
 * Parses the pieces of `text` (see `pieceErrorRows`) ahead of need: the first keystroke that
 * breaks a statement of an opened file then parses only the pieces edited since.
 */
export function notePieces(text: string): void {
  pieceErrorRows(text.split('\n'));
}

/** Parsed pieces of text (see `pieceErrorRows`): the rows of their errors, by the text parsed. */
const pieceMemo = new Map<string, number[]>();
let pieceMemoChars = 0;
const PIECE_MEMO_CHARS = 2_000_000;

/** The error rows of `text` parsed alone and fresh (remembered). */
function errorRowsAlone(text: string): number[] {
  let rows = pieceMemo.get(text);
  if (rows) {
    pieceMemo.delete(text);
    pieceMemo.set(ownString(text), rows);
    return rows;
  }
  const t = parsePython(text);
  try {
    rows = t.rootNode.hasError ? errorRows(t.rootNode) : [];
  } finally {
    t.delete();
  }
  // (a piece is cut from the file's text: kept, it must not keep that version of the text, see
  // ownStrings.ts; the same above)
  pieceMemo.set(ownString(text), rows);
  pieceMemoChars += text.length;
  while (pieceMemoChars > PIECE_MEMO_CHARS && pieceMemo.size > 1) {
    const oldest = pieceMemo.keys().next().value as string;
    pieceMemo.delete(oldest);
    pieceMemoChars -= oldest.length;
  }
  return rows;
}

/**
 * Rows that start a logical line at the given indent (a statement, or a decorator, or a clause),
 * read from the text alone: not inside a string or brackets, not after a backslash, not blank or a
 * comment. A line at the indent or less inside brackets ends them (as `unclosedStatements` reads).
 */
function statementStarts(lines: string[], from: number, to: number): Array<{ row: number; indent: number }> {
  const out: Array<{ row: number; indent: number }> = [];
  const scan: LineScan = { depth: 0 };
  let continued = false;
  let statementIndent = 0;
  for (let row = from; row <= to; row++) {
    const line = lines[row];
    if (!scan.quote && !continued && !isBlank(line)) {
      const indent = indentOf(line);
      if (scan.depth === 0 || (indent <= statementIndent && !/^\s*[)\]}]/.test(line))) {
        scan.depth = 0;
        statementIndent = indent;
        out.push({ row, indent });
      }
    }
    const lastCode = scanLine(line, scan);
    continued = !scan.quote && lastCode === '\\';
  }
  return out;
}

const CLAUSE = /^\s*(else|elif|except|finally)\b/;
const BLOCK_HEADER = /^\s*(async\s+)?(def|class)\b.*:\s*(#.*)?$/;

/**
 * The pieces of a run of statements at `indent` (starts given): each statement with its
 * decorators and clauses, as [first row, last row] (the last reaching to the next piece).
 */
function piecesAt(lines: string[], starts: Array<{ row: number; indent: number }>, indent: number, to: number): Array<[number, number]> | undefined {
  const out: Array<[number, number]> = [];
  let decorated = false;
  for (const s of starts) {
    if (s.indent > indent) continue;
    if (s.indent < indent) return undefined;
    const line = lines[s.row];
    if (out.length === 0 || (!decorated && !CLAUSE.test(line))) out.push([s.row, to]);
    decorated = /^\s*@/.test(line);
  }
  for (let i = 0; i + 1 < out.length; i++) out[i][1] = out[i + 1][0] - 1;
  return out;
}

/**
 * The rows where syntax errors start, found piece by piece: the text's top-level statements,
 * and the members of a top-level `def` or `class` whose header is one line (each parsed alone
 * under `class _:`, the header alone with `pass` for a body). A piece that parses alone without
 * errors has none, or only with what surrounds it: the caller parses the whole text when no
 * piece shows an error it can set aside.
 */
function pieceErrorRows(lines: string[]): number[] {
  const last = lines.length - 1;
  const starts = statementStarts(lines, 0, last);
  const top = piecesAt(lines, starts, 0, last);
  if (!top) return [];
  const rows: number[] = [];
  const add = (text: string, offset: number, first: number, end: number): void => {
    for (const r of errorRowsAlone(text)) rows.push(Math.min(end, Math.max(first, r + offset)));
  };
  let k = 0;
  for (const [a, b] of top) {
    while (k < starts.length && starts[k].row < a) k++;
    const inner: Array<{ row: number; indent: number }> = [];
    let header = -1;
    for (let j = k; j < starts.length && starts[j].row <= b; j++) {
      if (header < 0) {
        if (/^\s*@/.test(lines[starts[j].row])) continue;
        header = starts[j].row;
      } else inner.push(starts[j]);
    }
    const members = header >= 0 && BLOCK_HEADER.test(lines[header]) && inner.length > 0 && inner[0].indent > 0 ? piecesAt(lines, inner, inner[0].indent, b) : undefined;
    if (!members || members[0][0] !== inner[0].row) {
      add(lines.slice(a, b + 1).join('\n'), a, a, b);
      continue;
    }
    const pad = ' '.repeat(inner[0].indent);
    add(`${lines.slice(a, members[0][0]).join('\n')}\n${pad}pass`, a, a, members[0][0] - 1);
    for (const [x, y] of members) add(`class _:\n${lines.slice(x, y + 1).join('\n')}`, x - 1, x, y);
  }
  return rows;
}

function rowOf(text: string, index: number): number {
  let row = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) row++;
  return row;
}

/** The index of the last top-level statement of `root` that starts at or before `row` (-1: none), by bisection. */
function statementBefore(root: Node, row: number): number {
  let lo = 0;
  let hi = root.namedChildCount - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = root.namedChild(mid);
    if (c && c.startPosition.row <= row) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/** The offsets where the given rows of `text` begin, in one pass (`text.length` past its last row). */
function rowStarts(text: string, rows: number[]): Map<number, number> {
  const wanted = [...new Set(rows)].sort((a, b) => a - b);
  const out = new Map<number, number>();
  let row = 0;
  let at = 0;
  for (const w of wanted) {
    while (row < w) {
      const nl = text.indexOf('\n', at);
      if (nl < 0) {
        at = text.length;
        row = w;
        break;
      }
      at = nl + 1;
      row++;
    }
    out.set(w, at);
  }
  return out;
}

/**
 * A keystroke that breaks a statement of a large file: tree-sitter's own recovery of the whole
 * text can cost far more than the file's size (an unclosed bracket makes it read the rest of the
 * file as one error, with quadratic effort). Here only damaged regions are looked at: the
 * top-level statements that the edit touches and those set aside as broken last time, each with
 * one neighbour on each side. Each region is set right alone (`parseRecovering` on its text), put
 * back between the unchanged statements, and the result is parsed incrementally from the last
 * checked tree, which re-uses every statement outside the regions.
 *
 * `lastChecked` is the last checked (error-free) text and tree; `seen` the text the user had then
 * and the rows set aside in it (the two texts have the same rows). Returns undefined when every
 * region is sound on its own (the usual path is then cheap), or when one cannot be set right
 * alone (the caller then recovers the whole text). Nothing given is deleted; the returned tree
 * belongs to the caller.
 */
export function recoverRegion(text: string, lastChecked: { text: string; tree: Tree }, seen: { text: string; broken: Array<[number, number]> }): Recovered | undefined {
  const old = seen.text;
  const root = lastChecked.tree.rootNode;
  if (old === text || root.hasError || root.namedChildCount === 0) return undefined;
  const { start, endA, endB } = differing(old, text);
  const editFirst = rowOf(old, start);
  const editLast = rowOf(old, endA);
  const delta = rowOf(text, endB) - editLast;
  const count = root.namedChildCount;
  const isCode = (i: number): boolean => root.namedChild(i)?.type !== 'comment';
  let lastRow: number | undefined;
  /**
   * Old rows [from, to] of the top-level statements over rows a..b, with a statement on each side,
   * and the comments and blank lines after them (a broken statement set aside reaches to the next
   * line of code, as in the whole text).
   */
  const around = (a: number, b: number): [number, number] | undefined => {
    let first = Math.max(0, statementBefore(root, a)) - 1;
    while (first > 0 && !isCode(first)) first--;
    first = Math.max(0, first);
    let last = Math.max(statementBefore(root, b), first) + 1;
    while (last < count - 1 && !isCode(last)) last++;
    last = Math.min(count - 1, last);
    let next = last + 1;
    while (next < count && !isCode(next)) next++;
    const fn = root.namedChild(first);
    const ln = root.namedChild(last);
    const nn = next < count ? root.namedChild(next) : null;
    // only whole, unindented statements can be set right alone
    if (!fn || !ln || fn.startPosition.column !== 0) return undefined;
    // the region ends where the next statement begins, at the left margin of a line of its own
    if (nn && (nn.startPosition.column !== 0 || nn.startPosition.row <= ln.endPosition.row)) return undefined;
    const end = nn ? nn.startPosition.row - 1 : (lastRow ??= rowOf(old, old.length));
    return [Math.min(fn.startPosition.row, a), Math.max(ln.endPosition.row, end, b)];
  };
  // the whole text's first pass sets aside every statement whose brackets indentation says are
  // left open, wherever it is (valid code too: a continuation line indented less than its
  // statement): each such statement is a region as well, so that it is set aside here as there
  const lastEdited = editLast + delta;
  const toOld = (r: number, end: boolean): number => (r < editFirst ? r : r > lastEdited ? r - delta : end ? editLast : editFirst);
  const overClosed = new Set<number>();
  const unclosed = unclosedStatements(text.split('\n'), overClosed);
  const flagged = [...unclosed, ...[...overClosed].map((r): [number, number] => [r, r])].map(([a, b]): [number, number] => [toOld(a, false), toOld(b, true)]);
  const regions: Array<[number, number]> = [];
  for (const [a, b] of [[editFirst, editLast] as [number, number], ...seen.broken, ...flagged]) {
    const r = around(a, b);
    if (!r) return undefined;
    regions.push(r);
  }
  regions.sort((x, y) => x[0] - y[0]);
  const merged: Array<[number, number]> = [];
  for (const r of regions) {
    const m = merged[merged.length - 1];
    if (m && r[0] <= m[1] + 1) m[1] = Math.max(m[1], r[1]);
    else merged.push([...r]);
  }
  // each region in the new text: rows after the edit moved by `delta`
  const newRows = (r: [number, number]): [number, number] => {
    const hasEdit = r[0] <= editFirst && r[1] >= editLast;
    if (!hasEdit && r[0] > editLast) return [r[0] + delta, r[1] + delta];
    if (!hasEdit && r[1] < editFirst) return r;
    if (!hasEdit) return [-1, -1];
    return [r[0], r[1] + delta];
  };
  const spans = merged.map(newRows);
  if (spans.some(([a, b]) => a < 0 || b < a)) return undefined;
  const offsets = rowStarts(text, spans.flatMap(([a, b]) => [a, b + 1]));
  const broken: Array<[number, number]> = [];
  let spliced = '';
  let at = 0;
  const parts = spans.map(([a, b]) => {
    const from = offsets.get(a)!;
    const to = offsets.get(b + 1)!;
    const region = text.slice(from, to);
    const tail = region.endsWith('\n') ? '' : '\n';
    // a line at the left margin after the region ends its last statement, as the next statement
    // would; a region that reaches the end of the file is followed by nothing, as in the whole text
    // (a bracket left open at the end of the file is no statement ended by the next line)
    const atEnd = to >= text.length;
    const sentinel = atEnd ? '' : `${tail}pass\n`;
    return { a, b, from, to, region, tail, atEnd, sentinel };
  });
  // a string left open reads on into the rest of the file: only the whole text can say how
  if (parts.some((p) => stringOpenAtEnd(p.region.split('\n')))) return undefined;
  const probes = parts.map((p) => parsePython(p.region + p.sentinel));
  try {
    // the whole text has errors when a region has: its first pass then runs over every statement
    if (!probes.some((t) => t.rootNode.hasError)) return undefined;
    for (let i = 0; i < parts.length; i++) {
      const { a, b, from, to, region, tail, atEnd, sentinel } = parts[i];
      let fixed = region;
      if (probes[i].rootNode.hasError || unclosed.some(([x, y]) => x <= b && y >= a) || [...overClosed].some((r) => r >= a && r <= b)) {
        const recovered = parseRecovering(region + sentinel, probes[i], undefined, true);
        if (recovered.tree !== probes[i]) recovered.tree.delete();
        const rows = region.split('\n').length - (tail ? 0 : 1);
        // errors that moved up while being set right: the whole text may place them elsewhere
        if (recovered.movedUp) return undefined;
        // the line added after the region must have stayed as it was
        if (!atEnd && (!recovered.text.endsWith(sentinel) || recovered.broken.some(([, y]) => y >= rows))) return undefined;
        fixed = recovered.text.slice(0, recovered.text.length - sentinel.length);
        for (const [x, y] of recovered.broken) broken.push([x + a, y + a]);
      }
      spliced += text.slice(at, from) + fixed;
      at = to;
    }
  } finally {
    for (const t of probes) t.delete();
  }
  spliced += text.slice(at);
  if (spliced.split('\n').length !== text.split('\n').length) return undefined;
  const copy = lastChecked.tree.copy();
  let tree: Tree;
  try {
    tree = parsePythonIncremental(spliced, { text: lastChecked.text, tree: copy });
  } finally {
    copy.delete();
  }
  if (tree.rootNode.hasError) {
    tree.delete();
    return undefined;
  }
  return { tree, text: spliced, broken };
}
