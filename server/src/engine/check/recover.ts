/**
 * Half-typed code: tree-sitter recovers from a syntax error, but an unclosed bracket can swallow
 * the rest of the file into one error. Python code has a second structure that survives such
 * errors: indentation. Each broken statement (from its line to the next line indented no deeper)
 * is set aside: replaced by `pass` and blank lines, so that every other statement parses as it
 * would without it and keeps its exact position. Nothing inside a broken statement is reported.
 */
import { parsePython, parsePythonIncremental, type Node, type Tree } from '../parser';

const MAX_ROUNDS = 12;

/**
 * Line ends that leave a statement unfinished outside brackets (`x = 1,` and `1.` are complete;
 * `x.` and `f().`, half-typed attributes, are not).
 */
const DANGLING = /(^|[^*])([-+/%@&|^<>=~]|\*\*|(?<![\w)\]}'"])\*)$|\b(and|or|not|in|is|lambda|if|else|await|from|import|as|assert|del|with|for|while|elif|except|class|def|return\s+lambda)$|(?<![\w.])[A-Za-z_][\w.]*\.$|[)\]}'"]\.$/;

function indentOf(line: string): number {
  let n = 0;
  for (const ch of line) {
    if (ch === ' ') n++;
    else if (ch === '\t') n = n + 8 - (n % 8);
    else break;
  }
  return n;
}

function isBlank(line: string): boolean {
  return /^\s*(#.*)?$/.test(line);
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

/**
 * Statements whose brackets are still open when a line indented no deeper than the statement
 * begins (and is no closing bracket): Python would read on, an editor's user has moved on.
 */
function unclosedStatements(lines: string[], overClosed: Set<number>): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  let depth = 0;
  let quote: string | undefined;
  let start = -1;
  let indent = 0;
  for (let row = 0; row < lines.length; row++) {
    const line = lines[row];
    if (!quote && depth > 0 && !isBlank(line) && indentOf(line) <= indent && !/^\s*[)\]}]/.test(line)) {
      out.push([start, row - 1]);
      depth = 0;
    }
    if (!quote && depth === 0 && !isBlank(line)) {
      start = row;
      indent = indentOf(line);
    }
    const depthBefore = depth;
    for (let i = 0; i < line.length; i++) {
      const ch = line[i];
      if (quote) {
        if (ch === '\\') i++;
        else if (line.startsWith(quote, i)) {
          i += quote.length - 1;
          quote = undefined;
        }
        continue;
      }
      if (ch === '#') break;
      if (ch === '"' || ch === "'") {
        if (line.startsWith(ch.repeat(3), i)) {
          quote = ch.repeat(3);
          i += 2;
          continue;
        }
        let j = i + 1;
        while (j < line.length && line[j] !== ch) j += line[j] === '\\' ? 2 : 1;
        i = j;
        continue;
      }
      if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') {
        if (depth === 0 && start >= 0) overClosed.add(start);
        depth = Math.max(0, depth - 1);
      }
    }
    // a statement that ends on an operator or a keyword waiting for more
    const code = line.replace(/#.*$/, '').trimEnd();
    if (!quote && depth === 0 && start >= 0 && !isBlank(line) && !code.endsWith('\\') && DANGLING.test(code) && !(depthBefore === 0 && /^\s*@/.test(code))) out.push([start, row]);
  }
  return out;
}

export interface Recovered {
  tree: Tree;
  text: string;
  /** Line ranges [from, to] set aside as broken. */
  broken: Array<[number, number]>;
}

/**
 * Parses `text`, setting broken statements aside when it has syntax errors. `raw` is a tree of
 * exactly `text` (an incremental parse kept by the caller); `lastChecked` an error-free tree of a
 * text checked before (of the same file), to re-parse from. Neither is deleted here.
 */
export function parseRecovering(text: string, raw?: Tree, lastChecked?: { text: string; tree: Tree }): Recovered {
  if (raw && !raw.rootNode.hasError) return { tree: raw, text, broken: [] };
  // with `raw`, its errors say that the text has some; a fresh tree is made only when needed
  let tree: Tree | undefined;
  if (!raw) {
    tree = parsePython(text);
    if (!tree.rootNode.hasError) return { tree, text, broken: [] };
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
  if (broken.length && base) {
    // the usual case while typing: setting aside what is unfinished is enough, and re-parsing the
    // last checked text's tree gives what a fresh parse would (where no error remains)
    const copy = base.tree.copy();
    try {
      const t = parsePythonIncremental(current, { text: base.text, tree: copy });
      if (!t.rootNode.hasError) return { tree: t, text: current, broken };
      t.delete();
    } finally {
      copy.delete();
    }
  }
  if (broken.length || !tree) {
    tree?.delete();
    tree = parsePython(current);
  }
  // 2. other errors, where tree-sitter places them
  for (let round = 0; round < MAX_ROUNDS && tree.rootNode.hasError; round++) {
    const rows = errorRows(tree.rootNode).filter((r) => !broken.some(([a, b]) => r >= a && r <= b));
    if (rows.length === 0) break;
    // one error at a time: the first one often causes the others
    let changed = false;
    for (const row of rows) {
      let st = statementAt(row);
      if (!st || broken.some(([a, b]) => st![0] >= a && st![0] <= b)) continue;
      // inside a large statement, a block header that lost its colon is the likelier culprit
      for (let r = st[0] + 1; r <= st[1]; r++) {
        if (/^\s*(async\s+)?(def|class|if|elif|while|for|with|try|except|finally|else)\b/.test(lines[r]) && !/:\s*(#.*)?$/.test(lines[r]) && !/[([{,\\]\s*(#.*)?$/.test(lines[r])) {
          st = statementAt(r) ?? st;
          break;
        }
      }
      setAside(st[0], st[1]);
      changed = true;
      break;
    }
    if (!changed) break;
    current = lines.join('\n');
    tree.delete();
    // as above: a re-parse of the last checked tree that comes out without errors is what a
    // fresh parse gives (the usual case while typing: one statement set aside)
    if (base) {
      const copy = base.tree.copy();
      try {
        const t = parsePythonIncremental(current, { text: base.text, tree: copy });
        if (!t.rootNode.hasError) return { tree: t, text: current, broken };
        t.delete();
      } finally {
        copy.delete();
      }
    }
    tree = parsePython(current);
  }
  return { tree, text: current, broken };
}
