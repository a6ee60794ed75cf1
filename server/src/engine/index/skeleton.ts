/**
 * Signatures need module and class level statements and function headers, not function bodies.
 * The skeleton of a module keeps every line in place (so line numbers stay true) but empties the
 * bodies of functions whose bodies the summary does not look into, which spares most of the
 * parsing. The raw text of each emptied body is kept for the few facts read off it by pattern.
 *
 * Outside function bodies that are parsed, the skeleton also shortens what no summary reads:
 * comments keep their `#` and lose their text, and a statement that is nothing but a string (a
 * docstring) becomes `""` on its first line, its other lines left empty.
 *
 * Where they are plain, parameter lists (with the return annotation, which no summary reads) and
 * module-level imports are read off the text and blanked out, their line breaks kept: they were
 * half of what remained to parse. A function then reads `def f(<line breaks>):` and an import
 * leaves a `pass` on its first line.
 */
import { type Param, paramsFromText } from '../syntax';

export interface Skeleton {
  text: string;
  /**
   * Parameters of functions whose parameter lists the skeleton blanked out (read off the text, the
   * same as the parser would give), by the 0-based row of the `def` line.
   */
  params: Map<number, Param[]>;
  /** Module-level imports the skeleton read off the text (each is a `pass` in the tree), by row. */
  imports: Map<number, TextImport>;
  /** Return annotations of the functions whose parameter lists were blanked, by `def` row. */
  returns: Map<number, string>;
  /** Original body text of each emptied function, by the 0-based row of its `def` line (built when asked for). */
  bodies: { get(row: number): string | undefined; has(row: number): boolean };
  /** Share of the characters kept, for measurements. */
  kept: number;
}

export interface SkeletonOptions {
  /**
   * Read plain parameter lists and module-level imports off the text and blank them out (the
   * parser then skips them).
   */
  readOffText?: boolean;
}

/**
 * An import statement read off the text: `import a.b as c, d` (no `from`), or `from ..m import x
 * as y, z` (`level` dots, `module` possibly empty) or `from m import *` (`star`).
 */
export interface TextImport {
  from?: { level: number; module: string };
  star?: boolean;
  /** Dotted name (a plain name after `from`) and alias, in order. */
  names: Array<[string, string | undefined]>;
}

const IMPORT_ITEM = /^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:\s+as\s+([A-Za-z_]\w*))?$/;
const FROM_HEAD = /^from\s+(\.*)([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)?\s+import\s/;

/**
 * Reads a plain import statement (its whole logical line); undefined for anything else: strings,
 * backslashes, semicolons, non-ASCII text, spaces inside dotted names, or whatever is not valid.
 */
export function importFromText(src: string): TextImport | undefined {
  if (/[\\;'"]|[^\x00-\x7e]/.test(src)) return undefined;
  const code = src.replace(/#[^\r\n]*/g, '').trim();
  const items = (list: string, dotted: boolean): Array<[string, string | undefined]> | undefined => {
    const out: Array<[string, string | undefined]> = [];
    const parts = list.split(',');
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i].trim();
      if (part === '' && i === parts.length - 1 && i > 0) break; // a trailing comma: only inside parentheses
      const m = IMPORT_ITEM.exec(part);
      if (!m || (!dotted && m[1].includes('.'))) return undefined;
      out.push([m[1], m[2]]);
    }
    return out;
  };
  if (code.startsWith('import')) {
    const m = /^import\s+([^(]*)$/.exec(code);
    if (!m || /[\r\n]|,\s*$/.test(m[1])) return undefined;
    const names = items(m[1], true);
    return names && names.length > 0 ? { names } : undefined;
  }
  const head = FROM_HEAD.exec(code);
  if (!head || (head[1] === '' && head[2] === undefined)) return undefined;
  const from = { level: head[1].length, module: head[2] ?? '' };
  if (from.level === 0 && from.module === '__future__') return undefined; // a statement of its own kind
  let rest = code.slice(head[0].length).trim();
  if (rest === '*') return { from, star: true, names: [] };
  if (rest.startsWith('(')) {
    if (!rest.endsWith(')')) return undefined;
    rest = rest.slice(1, -1);
    if (/[()]/.test(rest)) return undefined;
  } else if (/[()\r\n]|,\s*$/.test(rest)) return undefined;
  const names = items(rest, false);
  return names && names.length > 0 ? { from, names } : undefined;
}

const DEF = /^(async\s+)?def\s+([A-Za-z_]\w*)\s*\(/;
/** `return name` alone on its line (a comment may follow). */
const RETURN_NAME = /^return\s+([A-Za-z_]\w*)\s*(#.*)?\r?$/;
const DEF_NAME = /^(async\s+)?def\s+([A-Za-z_]\w*)/;
/** `return A if ... else B` on one line: A, and B read after the last and after the first `else`. */
function conditionalReturns(line: string): string[] {
  if (!line.startsWith('return')) return [];
  const out: string[] = [];
  for (const re of [/^return\s+([A-Za-z_]\w*)\s+if\s.*\belse\s+([A-Za-z_]\w*)\s*(#.*)?\r?$/, /^return\s+([A-Za-z_]\w*)\s+if\s.*?\belse\s+([A-Za-z_]\w*)/]) {
    const m = re.exec(line);
    if (m) out.push(m[1], m[2]);
  }
  return out;
}
/** A decorator of a pydantic model validator, whose body says whether it can fill in missing fields. */
const VALIDATOR_DECORATOR = /^@.*\b(model_validator|root_validator)\b/;
// eslint-disable-next-line no-control-regex
const NON_ASCII = /[^\x00-\x7f]/;

const SPACE = 32;
const TAB = 9;
const CR = 13;
const FF = 12;
const HASH = 35;
const BACKSLASH = 92;
const DQUOTE = 34;
const SQUOTE = 39;

/** For the scan of logical lines: 1 for blanks, 2 for what can open or close something, 0 for the rest. */
const CHAR_CLASS = new Uint8Array(128);
for (const c of [SPACE, TAB, CR, FF]) CHAR_CLASS[c] = 1;
for (const c of '#"\'\\()[]{}') CHAR_CLASS[c.charCodeAt(0)] = 2;

/** Logical lines of a module, as parallel arrays (rows are 0-based). */
interface Logical {
  count: number;
  start: number[];
  end: number[];
  indent: number[];
  /** Offset of the first character of the first line's code. */
  head: number[];
  /** The logical line is a single string literal (optionally followed by a comment). */
  onlyString: boolean[];
  /** Whole-line comments between logical lines: row and offset of the `#`. */
  commentRows: number[];
  commentAt: number[];
  /** Comments that end a logical line's row outside brackets: row and offset of the `#`. */
  inlineRows: number[];
  inlineAt: number[];
}

/** A string prefix (`r`, `b`, `rb`, `f`, ...) of at most two letters, then a quote: the offset of the quote, or -1. */
function stringStart(text: string, p: number, end: number): number {
  for (let k = 0; k <= 2 && p + k < end; k++) {
    const c = text.charCodeAt(p + k);
    if (c === DQUOTE || c === SQUOTE) return p + k;
    // r R u U b B f F
    if (!(c === 114 || c === 82 || c === 117 || c === 85 || c === 98 || c === 66 || c === 102 || c === 70)) return -1;
  }
  return -1;
}

/**
 * Splits source into logical lines, following brackets, strings and backslash continuations;
 * undefined when a single-quoted string is left open on its line (the file is then left alone).
 */
function logicalLines(text: string, rowStart: number[]): Logical | undefined {
  const rows = rowStart.length;
  const n = text.length;
  const out: Logical = { count: 0, start: [], end: [], indent: [], head: [], onlyString: [], commentRows: [], commentAt: [], inlineRows: [], inlineAt: [] };
  let depth = 0;
  let quote = 0; // the quote character of an open triple-quoted string
  let open = false; // inside a logical line
  /** 0: not a lone string; 1: its string is expected at `docAt`; 2: inside it; 3: after it. */
  let doc = 0;
  let docAt = -1;
  for (let row = 0; row < rows; row++) {
    const end = row + 1 < rows ? rowStart[row + 1] - 1 : n;
    let i = rowStart[row];
    if (!open) {
      let p = i;
      let indent = 0;
      for (; p < end; p++) {
        const c = text.charCodeAt(p);
        if (c === SPACE) indent++;
        else if (c === TAB) indent = indent + 8 - (indent % 8);
        else break;
      }
      if (p === end || (p === end - 1 && text.charCodeAt(p) === CR)) continue;
      if (text.charCodeAt(p) === HASH) {
        out.commentRows.push(row);
        out.commentAt.push(p);
        continue;
      }
      open = true;
      out.start.push(row);
      out.end.push(row);
      out.indent.push(indent);
      out.head.push(p);
      out.onlyString.push(false);
      out.count++;
      i = p;
      docAt = stringStart(text, p, end);
      doc = docAt >= 0 ? 1 : 0;
      if (doc) i = docAt; // the prefix letters are neither brackets, quotes nor comments
    }
    let continued = false;
    while (i < end) {
      const ch = text.charCodeAt(i);
      if (quote) {
        if (ch === BACKSLASH) {
          i += 2;
          continue;
        }
        if (ch === quote && i + 2 < end && text.charCodeAt(i + 1) === quote && text.charCodeAt(i + 2) === quote) {
          i += 3;
          quote = 0;
          if (doc === 2) doc = 3;
          continue;
        }
        i++;
        continue;
      }
      const cls = ch < 128 ? CHAR_CLASS[ch] : 0;
      if (cls === 0) {
        doc = 0;
        i++;
        continue;
      }
      if (cls === 1) {
        i++;
        continue;
      }
      if (ch === HASH) {
        if (depth === 0) {
          out.inlineRows.push(row);
          out.inlineAt.push(i);
        }
        break;
      }
      if (ch === DQUOTE || ch === SQUOTE) {
        if (doc === 1 && i === docAt) doc = 2;
        else doc = 0;
        if (i + 2 < end && text.charCodeAt(i + 1) === ch && text.charCodeAt(i + 2) === ch) {
          quote = ch;
          i += 3;
          continue;
        }
        // a single-line string
        i++;
        while (i < end && text.charCodeAt(i) !== ch) i += text.charCodeAt(i) === BACKSLASH ? 2 : 1;
        if (i >= end) return undefined; // unterminated: leave the file alone
        i++;
        if (doc === 2) doc = 3;
        continue;
      }
      if (!(ch === SPACE || ch === TAB || ch === CR || ch === FF)) doc = 0;
      if (ch === 40 || ch === 91 || ch === 123) depth++;
      else if (ch === 41 || ch === 93 || ch === 125) depth = Math.max(0, depth - 1);
      else if (ch === BACKSLASH && /^\\\s*$/.test(text.slice(i, end))) continued = true;
      i++;
    }
    const k = out.count - 1;
    out.end[k] = row;
    if (!quote && depth === 0 && !continued) {
      out.onlyString[k] = doc === 3;
      open = false;
    }
  }
  return out;
}

/** The index of the first value of sorted `values` that is at least `x`. */
function firstAtOrAfter(values: number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The text of rows `first`..`last`, joined as they are in the source. */
function rowsText(text: string, rowStart: number[], first: number, last: number): string {
  const end = last + 1 < rowStart.length ? rowStart[last + 1] - 1 : text.length;
  return text.slice(rowStart[first], end);
}

/**
 * Bodies the summary parses: decorator factories, module __getattr__, deprecations, `return <first
 * param>`, `return f(<first param>, ...)`.
 * A body whose last statement returns nothing it names (no `return` on its last line at its own
 * level) yields no such fact, whatever it holds. When that last statement is plainly `return X`,
 * the body matters only when X is the first parameter or a function defined at the body's own
 * level (what the summary reads); `returned` is undefined when the layout is not plain, and the
 * decision is then left to looser patterns over every line of the body (`heads`).
 */
function bodyMatters(name: string, header: () => string, heads: () => string[], topHeads: () => string[], bodyHasWarn: boolean, lastReturns: boolean, returned: string | undefined, validator: boolean, classMethod: boolean): boolean {
  if (name === '__getattr__' || bodyHasWarn || validator) return true;
  if (!lastReturns) return false;
  const h0 = header();
  // the parameter a call's first argument goes to: after `cls` in a classmethod
  const first = (classMethod ? /\(\s*[A-Za-z_]\w*\s*(?::[^,()]*)?,\s*\*{0,2}\s*([A-Za-z_]\w*)/ : /\(\s*\*{0,2}\s*([A-Za-z_]\w*)/).exec(h0)?.[1];
  const defined = (n: string): boolean => topHeads().some((h) => DEF_NAME.exec(h)?.[2] === n);
  // `if obj is not None: return ...` at the body's own level decides what the rest returns
  if (first && topHeads().some((h) => new RegExp(`^if\\s+${first}\\s+is\\s+(?:not\\s+)?None\\s*:`).test(h))) return true;
  if (returned !== undefined && !NON_ASCII.test(h0)) {
    if (returned === first) return true;
    if (returned !== '') return defined(returned);
    const last = topHeads().pop() ?? '';
    // `return finish(obj, ...)`: a function that may hand the first parameter back
    if (first && new RegExp(`^return\\s+[A-Za-z_]\\w*\\s*\\(\\s*(?:${first}\\s*[,)]|(?:#.*)?$)`).test(last)) return true;
    // `return a if obj is None else b`: either name may be what the function returns
    return conditionalReturns(last).some((n) => n === first || defined(n));
  }
  for (const h of heads()) {
    if (h.startsWith('def ') || h.startsWith('async def ')) return true;
    // `return finish(` with its arguments on the lines below
    if (first && /^return\s+[A-Za-z_]\w*\s*\(\s*(?:#.*)?$/.test(h)) return true;
    // a return spread over lines (`return obj if obj is not None \`): any mention of the first parameter
    if (first && h.startsWith('return') && new RegExp(`(?<![\\w.])${first}(?!\\w|\\s*[.([])`).test(h)) return true;
  }
  return false;
}

const enum Row {
  Keep = 0,
  /** emptied (only a `\r` stays) */
  Blank = 1,
  /** the first row of an emptied body: its indentation and `...` */
  Dots = 2,
  /** cut after the `#` at `cut[row]` */
  Comment = 3,
  /** the first row of a lone string: up to `cut[row]`, then `""` */
  String = 4,
}

/**
 * The offset of the bracket that closes the `(`, `[` or `{` at `open` (one of its own kind), or -1
 * when another kind closes it, or a triple-quoted string, a backslash or the end of `limit` comes first.
 */
export function closingBracket(text: string, open: number, limit: number): number {
  const closer = text.charCodeAt(open) === 40 ? 41 : text.charCodeAt(open) === 91 ? 93 : 125;
  let depth = 0;
  for (let p = open; p < limit; p++) {
    const c = text.charCodeAt(p);
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) {
      if (--depth === 0) return c === closer ? p : -1;
    } else if (c === DQUOTE || c === SQUOTE) {
      if (text.charCodeAt(p + 1) === c && text.charCodeAt(p + 2) === c) return -1;
      p++;
      while (p < limit && text.charCodeAt(p) !== c) {
        const d = text.charCodeAt(p);
        if (d === BACKSLASH || d === 10 || d === CR) return -1;
        p++;
      }
    } else if (c === HASH) {
      while (p < limit && text.charCodeAt(p) !== 10 && text.charCodeAt(p) !== CR) p++;
    } else if (c === BACKSLASH) return -1;
  }
  return -1;
}

/**
 * The offset of the `:` that ends a `def` header whose parameter list closes at `close` (after a
 * return annotation, if any), or -1 when a string or backslash stands in the way.
 */
function headerColon(text: string, close: number, limit: number): number {
  let depth = 0;
  for (let p = close + 1; p < limit; p++) {
    const c = text.charCodeAt(p);
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) {
      if (--depth < 0) return -1;
    } else if (c === 58 && depth === 0) return p;
    else if (c === DQUOTE || c === SQUOTE || c === BACKSLASH) return -1;
    else if (c === HASH) {
      while (p < limit && text.charCodeAt(p) !== 10 && text.charCodeAt(p) !== CR) p++;
    }
  }
  return -1;
}

export function skeletonize(source: string, options: SkeletonOptions = { readOffText: true }): Skeleton {
  // the parser breaks lines at a lone CR as Python does: so do the rows here (same length, same offsets)
  const text = source.indexOf('\r') >= 0 && /\r(?!\n)/.test(source) ? source.replace(/\r(?!\n)/g, '\n') : source;
  const rowStart = [0];
  for (let p = text.indexOf('\n'); p !== -1; p = text.indexOf('\n', p + 1)) rowStart.push(p + 1);
  const rows = rowStart.length;
  const rowEnd = (r: number): number => (r + 1 < rows ? rowStart[r + 1] - 1 : text.length);
  const ranges = new Map<number, [number, number]>();
  const bodies = {
    get: (row: number): string | undefined => ((r) => (r ? rowsText(text, rowStart, r[0], r[1]) : undefined))(ranges.get(row)),
    has: (row: number): boolean => ranges.has(row),
  };
  const logical = logicalLines(text, rowStart);
  const params = new Map<number, Param[]>();
  const imports = new Map<number, TextImport>();
  const returns = new Map<number, string>();
  if (!logical) return { text, params, imports, returns, bodies, kept: 1 };
  const { count, start, end, indent, head } = logical;
  /**
   * Blanked ranges (offsets from, to) in order, and what each is replaced by besides its line
   * breaks: an import by `pass` before them, a parameter list by `)` after them.
   */
  const blanks: number[] = [];
  const fills: string[] = [];
  /** The imports' ranges, merged with the parameter lists' below. */
  const importBlanks: number[] = [];
  if (options.readOffText) {
    for (let k = 0; k < count; k++) {
      const h = head[k];
      if (indent[k] !== 0 || !(text.startsWith('from', h) || text.startsWith('import', h))) continue;
      const stop = rowEnd(end[k]);
      const read = importFromText(text.slice(h, stop));
      if (!read) continue;
      imports.set(start[k], read);
      importBlanks.push(h, stop);
    }
  }
  const headText = (k: number): string => text.slice(head[k], rowEnd(start[k]));
  /** Offsets of every `warn`, for the rows of a body that hold one. */
  const warns: number[] = [];
  for (let p = text.indexOf('warn'); p !== -1; p = text.indexOf('warn', p + 4)) warns.push(p);
  const mode = new Uint8Array(rows);
  const cut = new Int32Array(rows);
  /** Rows of functions that are parsed whole: their text is read, so it stays as it is. */
  const whole = new Uint8Array(rows);
  for (let k = 0; k < count; k++) {
    const h = head[k];
    if (!(text.startsWith('def', h) || text.startsWith('async', h))) continue;
    let j = k + 1;
    while (j < count && indent[j] > indent[k]) j++;
    const keepWhole = (): void => {
      whole.fill(1, start[k], end[j - 1] + 1);
    };
    const m = DEF.exec(headText(k));
    if (m && options.readOffText) {
      const open = head[k] + m[0].length - 1;
      const close = closingBracket(text, open, rowEnd(end[k]));
      const read = close > open ? paramsFromText(text.slice(open + 1, close)) : undefined;
      // the return annotation goes too (no summary reads it): `def f(<line breaks>):`
      const colon = read ? headerColon(text, close, rowEnd(end[k])) : -1;
      if (read && colon > close) {
        params.set(start[k], read);
        const ret = /^\s*->\s*([^]*?)\s*$/.exec(text.slice(close + 1, colon).replace(/#[^\n]*/g, ''));
        if (ret && ret[1]) returns.set(start[k], ret[1].replace(/\s+/g, ' '));
        blanks.push(open + 1, colon);
        fills.push(')');
      }
    }
    // the header ends with ':' on its last line; code after it means a one-line body
    const lastHeader = rowsText(text, rowStart, end[k], end[k]).replace(/#.*$/, '').trimEnd();
    if (!m || !lastHeader.endsWith(':') || j === k + 1) {
      keepWhole();
      continue;
    }
    const first = start[k + 1];
    const last = end[j - 1];
    const heads = (): string[] => {
      const out: string[] = [];
      for (let q = k + 1; q < j; q++) out.push(headText(q));
      return out;
    };
    // a deprecation is read off the body's first statement, or its second after a docstring: a
    // `warn` in either keeps the body (the rest of the body is never read for it)
    let warn = false;
    let second = k + 2;
    while (second < j && indent[second] !== indent[k + 1]) second++;
    const warnEnd = rowEnd(second < j ? end[second] : last);
    let w = firstAtOrAfter(warns, rowStart[first]);
    for (let r = first; w < warns.length && warns[w] < warnEnd && !warn; ) {
      while (r + 1 < rows && rowStart[r + 1] <= warns[w]) r++;
      warn = /\bwarn\s*\(/.test(rowsText(text, rowStart, r, r));
      while (w < warns.length && warns[w] < rowEnd(r)) w++; // the next row that has one
    }
    // the body's last statement: its last logical line at the body's own indentation
    let lastReturns = true;
    let top = -1;
    for (let q = k + 1; q < j; q++) {
      if (indent[q] < indent[k + 1]) top = -2; // inconsistent indentation: leave the decision to the patterns
      else if (indent[q] === indent[k + 1] && top !== -2) top = q;
    }
    /** The name the last statement returns when it is plainly `return NAME` on one row; '' when it returns no bare name. */
    let returned: string | undefined;
    if (top >= 0) {
      const lastText = rowsText(text, rowStart, start[top], end[top]);
      // an `if` chain whose `else` ends the body may return in every branch (`if x is None: return
      // inner` / `else: return inner(x)`), and a body may end by raising: its returns are read in the tree
      const chain = /^\s*(else\s*:|raise\b)/.test(lastText);
      lastReturns = chain || /\breturn\b/.test(lastText);
      if (!chain && lastReturns && start[top] === end[top] && !lastText.includes(';') && !NON_ASCII.test(lastText)) returned = RETURN_NAME.exec(headText(top))?.[1] ?? '';
    }
    const topHeads = (): string[] => {
      const out: string[] = [];
      for (let q = k + 1; q < j; q++) if (indent[q] === indent[k + 1]) out.push(headText(q));
      return out;
    };
    const header = (): string => rowsText(text, rowStart, start[k], end[k]);
    let validator = false;
    let classMethod = false;
    for (let q = k - 1; q >= 0 && indent[q] === indent[k] && text.charCodeAt(head[q]) === 64 && !validator; q--) {
      const deco = text.slice(head[q], rowEnd(end[q]));
      validator = VALIDATOR_DECORATOR.test(deco);
      classMethod ||= /^@\s*([\w.]+\.)?classmethod\b/.test(deco);
    }
    // a body that hands its `**kwargs` on (`g(**kwargs)`) is read for where they go
    const varkw = /\*\*\s*([A-Za-z_]\w*)/.exec(header())?.[1];
    const passesOn = !!varkw && new RegExp(`\\*\\*\\s*${varkw}\\b`).test(rowsText(text, rowStart, first, last));
    if (passesOn || bodyMatters(m[2], header, heads, topHeads, warn, lastReturns, returned, validator, classMethod)) {
      keepWhole();
      k = j - 1; // functions nested in a body the summary reads stay whole
      continue;
    }
    ranges.set(start[k], [first, last]);
    mode.fill(Row.Blank, first + 1, last + 1);
    mode[first] = Row.Dots;
    k = j - 1;
  }
  // comments lose their text; a `\r` or a line separator inside one leaves it alone
  const plainComment = (from: number, to: number): boolean => {
    for (let p = from; p < to; p++) {
      const c = text.charCodeAt(p);
      if (c === 0x2028 || c === 0x2029 || (c === CR && p !== to - 1)) return false;
    }
    return true;
  };
  for (let q = 0; q < logical.commentRows.length; q++) {
    const r = logical.commentRows[q];
    if (mode[r] === Row.Keep && plainComment(logical.commentAt[q], rowEnd(r))) {
      mode[r] = Row.Comment;
      cut[r] = logical.commentAt[q] + 1;
    }
  }
  for (let q = 0; q < logical.inlineRows.length; q++) {
    const r = logical.inlineRows[q];
    if (mode[r] === Row.Keep && !whole[r] && plainComment(logical.inlineAt[q], rowEnd(r))) {
      mode[r] = Row.Comment;
      cut[r] = logical.inlineAt[q] + 1;
    }
  }
  for (let k = 0; k < count; k++) {
    if (!logical.onlyString[k] || whole[start[k]] || mode[start[k]] === Row.Blank || mode[start[k]] === Row.Dots) continue;
    mode[start[k]] = Row.String;
    cut[start[k]] = head[k];
    if (end[k] > start[k]) mode.fill(Row.Blank, start[k] + 1, end[k] + 1);
  }
  if (importBlanks.length > 0) {
    // both lists are in order: merge them
    const pb = blanks.splice(0);
    const pf = fills.splice(0);
    let a = 0;
    for (let b = 0; b < importBlanks.length; b += 2) {
      while (a < pb.length && pb[a] < importBlanks[b]) {
        blanks.push(pb[a], pb[a + 1]);
        fills.push(pf[a / 2]);
        a += 2;
      }
      blanks.push(importBlanks[b], importBlanks[b + 1]);
      fills.push('pass');
    }
    for (; a < pb.length; a += 2) {
      blanks.push(pb[a], pb[a + 1]);
      fills.push(pf[a / 2]);
    }
  }
  const out: string[] = [];
  // what was read off the text keeps only its line breaks (an import leaves a `pass`)
  let bi = 0;
  const emit = (from: number, to: number): void => {
    while (from < to) {
      while (bi < blanks.length && blanks[bi + 1] <= from) bi += 2;
      if (bi >= blanks.length || blanks[bi] >= to) {
        out.push(text.slice(from, to));
        return;
      }
      const b0 = Math.max(blanks[bi], from);
      const b1 = Math.min(blanks[bi + 1], to);
      if (from < b0) out.push(text.slice(from, b0));
      const fill = fills[bi / 2];
      if (b0 === blanks[bi] && fill === 'pass') out.push(fill);
      for (let p = b0; p < b1; p++) {
        const c = text.charCodeAt(p);
        if (c === 10) out.push('\n');
        else if (c === CR) out.push('\r');
      }
      if (b1 === blanks[bi + 1] && fill === ')') out.push(fill);
      from = b1;
    }
  };
  let run = 0; // start of the rows copied as they are
  for (let r = 0; r < rows; r++) {
    const m = mode[r];
    if (m === Row.Keep) continue;
    const s = rowStart[r];
    const e = rowEnd(r);
    if (run < s) emit(run, s);
    const cr = e > s && text.charCodeAt(e - 1) === CR ? '\r' : '';
    if (m === Row.Blank) out.push(cr);
    else if (m === Row.Dots) {
      let p = s;
      while (p < e && (text.charCodeAt(p) === SPACE || text.charCodeAt(p) === TAB)) p++;
      out.push(text.slice(s, p), '...');
    } else if (m === Row.Comment) {
      emit(s, cut[r]);
      out.push(cr);
    } else out.push(text.slice(s, cut[r]), '""', cr);
    run = e;
  }
  if (run < text.length) emit(run, text.length);
  const skeleton = out.join('');
  return { text: skeleton, params, imports, returns, bodies, kept: skeleton.length / Math.max(text.length, 1) };
}
