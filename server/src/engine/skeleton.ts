/**
 * Signatures need module and class level statements and function headers, not function bodies.
 * The skeleton of a module keeps every line in place (so line numbers stay true) but empties the
 * bodies of functions whose bodies the summary does not look into, which spares most of the
 * parsing. The raw text of each emptied body is kept for the few facts read off it by pattern.
 */

export interface Skeleton {
  text: string;
  /** Original body text of each emptied function, by the 0-based row of its `def` line (built when asked for). */
  bodies: { get(row: number): string | undefined };
  /** Share of the characters kept, for measurements. */
  kept: number;
}

interface Logical {
  start: number;
  end: number;
  indent: number;
  /** The first line's code, without indentation. */
  head: string;
}

/** Splits source into logical lines, following brackets, strings and backslash continuations. */
function logicalLines(lines: string[]): Logical[] | undefined {
  const out: Logical[] = [];
  let depth = 0;
  let quote: string | undefined; // open triple-quoted string
  let current: Logical | undefined;
  for (let row = 0; row < lines.length; row++) {
    const line = lines[row];
    let i = 0;
    if (!current && !quote && depth === 0) {
      const m = /^[ \t]*/.exec(line)![0];
      const rest = line.slice(m.length);
      if (rest === '' || rest === '\r' || rest.startsWith('#')) continue;
      let indent = 0;
      for (const ch of m) indent = ch === '\t' ? indent + 8 - (indent % 8) : indent + 1;
      current = { start: row, end: row, indent, head: rest };
      i = m.length;
    }
    let continued = false;
    while (i < line.length) {
      const ch = line[i];
      if (quote) {
        if (ch === '\\') {
          i += 2;
          continue;
        }
        if (line.startsWith(quote, i)) {
          i += quote.length;
          quote = undefined;
          continue;
        }
        i++;
        continue;
      }
      if (ch === '#') break;
      if (ch === '"' || ch === "'") {
        const triple = line.startsWith(ch.repeat(3), i);
        if (triple) {
          quote = ch.repeat(3);
          i += 3;
          continue;
        }
        // a single-line string
        i++;
        while (i < line.length && line[i] !== ch) i += line[i] === '\\' ? 2 : 1;
        if (i >= line.length) return undefined; // unterminated: leave the file alone
        i++;
        continue;
      }
      if (ch === '(' || ch === '[' || ch === '{') depth++;
      else if (ch === ')' || ch === ']' || ch === '}') depth = Math.max(0, depth - 1);
      else if (ch === '\\' && /^\\\s*$/.test(line.slice(i))) continued = true;
      i++;
    }
    if (current) current.end = row;
    if (current && !quote && depth === 0 && !continued) {
      out.push(current);
      current = undefined;
    }
  }
  if (current) out.push(current);
  return out;
}

const DEF = /^(async\s+)?def\s+([A-Za-z_]\w*)\s*\(/;

/** Bodies the summary parses: decorator factories, module __getattr__, deprecations, `return <first param>`. */
function bodyMatters(name: string, header: string, heads: string[], bodyHasWarn: boolean): boolean {
  if (name === '__getattr__' || bodyHasWarn) return true;
  const first = /\(\s*\*{0,2}\s*([A-Za-z_]\w*)/.exec(header)?.[1];
  for (const h of heads) {
    if (h.startsWith('def ') || h.startsWith('async def ')) return true;
    if (first && h.startsWith('return') && new RegExp(`^return\\s+${first}\\s*(#.*)?\\r?$`).test(h)) return true;
  }
  return false;
}

export function skeletonize(text: string): Skeleton {
  const original = text.split('\n');
  const lines = original.slice();
  const logical = logicalLines(lines);
  const ranges = new Map<number, [number, number]>();
  const bodies = { get: (row: number): string | undefined => ((r) => (r ? original.slice(r[0], r[1] + 1).join('\n') : undefined))(ranges.get(row)) };
  if (!logical) return { text, bodies, kept: 1 };
  const blank = new Uint8Array(lines.length);
  for (let k = 0; k < logical.length; k++) {
    const l = logical[k];
    if (!(l.head.startsWith('def') || l.head.startsWith('async'))) continue;
    const m = DEF.exec(l.head);
    if (!m) continue;
    // the header ends with ':' on its last line; code after it means a one-line body
    const lastHeader = lines[l.end].replace(/#.*$/, '').trimEnd();
    if (!lastHeader.endsWith(':')) continue;
    let j = k + 1;
    while (j < logical.length && logical[j].indent > l.indent) j++;
    if (j === k + 1) continue;
    const first = logical[k + 1].start;
    const last = logical[j - 1].end;
    const heads: string[] = [];
    let warn = false;
    for (let q = k + 1; q < j; q++) heads.push(logical[q].head);
    for (let r = first; r <= last && !warn; r++) if (lines[r].includes('warn')) warn = /\bwarn\s*\(/.test(lines[r]);
    const header = l.start === l.end ? lines[l.start] : lines.slice(l.start, l.end + 1).join('\n');
    if (bodyMatters(m[2], header, heads, warn)) {
      k = j - 1; // functions nested in a body the summary reads stay whole
      continue;
    }
    ranges.set(l.start, [first, last]);
    for (let r = first + 1; r <= last; r++) blank[r] = 1;
    const indent = /^[ \t]*/.exec(lines[first])![0];
    lines[first] = `${indent}...`;
    k = j - 1;
  }
  let kept = 0;
  for (let r = 0; r < lines.length; r++) {
    if (blank[r]) lines[r] = lines[r].endsWith('\r') ? '\r' : '';
    kept += lines[r].length + 1;
  }
  return { text: lines.join('\n'), bodies, kept: kept / Math.max(text.length, 1) };
}
