/**
 * Suppression comments: `# apidrift: ignore` (all codes) or `# apidrift: ignore[code, ...]` on the
 * line a finding starts on; `# type: ignore` (all codes) or `# type: ignore[mypy-code, ...]`, which
 * silences only the apidrift codes that the given mypy codes stand for, and the same for
 * `# pyright: ignore[rule, ...]` and `# ty: ignore[rule, ...]`; `# apidrift: ignore-file`
 * on a line of its own silences the whole file. An `# apidrift: ignore` comment that silences
 * nothing is reported as an `unused-ignore` hint, with a fix that removes it. (The type checkers'
 * comments are not: they are there for a type checker.)
 */
import type { Finding, FindingCode, Range } from '../types';

const SUPPRESS = /#\s*((?:type|pyright|ty):\s*ignore|apidrift:\s*ignore)(?![\w-])(\[([^\]]*)\])?/;
const IGNORE_FILE = /^\s*#\s*apidrift:\s*ignore-file\s*$/;

/** The apidrift codes each mypy error code stands for (codes absent here silence nothing). */
export const MYPY_CODES: Readonly<Record<string, readonly FindingCode[]>> = {
  'call-arg': ['missing-argument', 'unexpected-keyword', 'too-many-positional', 'positional-only-as-keyword'],
  'attr-defined': ['unknown-import', 'unknown-attribute'],
  'import-not-found': ['unknown-module'],
  import: ['unknown-module'],
  override: ['changed-override'],
  misc: ['unpack-mismatch'],
  deprecated: ['deprecated'],
};

/** The apidrift codes each pyright rule stands for (`# pyright: ignore[reportCallIssue]`). */
export const PYRIGHT_CODES: Readonly<Record<string, readonly FindingCode[]>> = {
  reportCallIssue: ['missing-argument', 'unexpected-keyword', 'too-many-positional', 'multiple-values', 'positional-only-as-keyword'],
  reportAttributeAccessIssue: ['unknown-import', 'unknown-attribute'],
  reportMissingImports: ['unknown-module'],
  reportMissingModuleSource: ['unknown-module'],
  reportIncompatibleMethodOverride: ['changed-override'],
  reportDeprecated: ['deprecated'],
};

/** The apidrift codes each ty rule stands for (`# ty: ignore[missing-argument]`). */
export const TY_CODES: Readonly<Record<string, readonly FindingCode[]>> = {
  'missing-argument': ['missing-argument'],
  'unknown-argument': ['unexpected-keyword'],
  'too-many-positional-arguments': ['too-many-positional'],
  'parameter-already-assigned': ['multiple-values'],
  'positional-only-parameter-as-kwarg': ['positional-only-as-keyword'],
  'unresolved-attribute': ['unknown-attribute'],
  'unresolved-import': ['unknown-import', 'unknown-module'],
  'invalid-method-override': ['changed-override'],
  deprecated: ['deprecated'],
};

function codesOf(list: string): string[] {
  return list
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
}

/** Whether a line's suppression comment silences `code`. */
let lastLine: string | undefined;
let lastMatch: RegExpExecArray | null = null;

export function suppressed(line: string, code: string): boolean {
  // findings come line by line: a long line with thousands of them is searched once
  if (line !== lastLine) {
    lastLine = line;
    lastMatch = SUPPRESS.exec(line);
  }
  const m = lastMatch;
  if (!m) return false;
  if (m[3] === undefined) return true;
  const codes = codesOf(m[3]);
  const table = m[1].startsWith('type') ? MYPY_CODES : m[1].startsWith('pyright') ? PYRIGHT_CODES : m[1].startsWith('ty') ? TY_CODES : undefined;
  if (table) return codes.some((c) => (table[c] ?? []).includes(code as FindingCode));
  return codes.includes(code);
}

/** The file asks not to be checked: a line that is only `# apidrift: ignore-file`. */
export function ignoresFile(lines: string[], isComment: (line: number, character: number) => boolean): boolean {
  return lines.some((l, i) => IGNORE_FILE.test(l) && isComment(i, l.indexOf('#')));
}

/**
 * The findings that no comment silences, followed by an `unused-ignore` hint for each
 * `# apidrift: ignore` comment (or code in its list) that silenced nothing.
 */
export function applySuppressions(findings: Finding[], lines: string[], file: string, isComment: (line: number, character: number) => boolean): Finding[] {
  if (ignoresFile(lines, isComment)) return [];
  const kept: Finding[] = [];
  const used = new Map<number, Set<string>>();
  for (const f of findings) {
    const line = f.range.start.line;
    if (suppressed(lines[line] ?? '', f.code)) {
      if (!used.has(line)) used.set(line, new Set());
      used.get(line)!.add(f.code);
    } else kept.push(f);
  }
  lines.forEach((text, line) => {
    if (!text.includes('apidrift')) return;
    const m = SUPPRESS.exec(text);
    if (!m || !m[1].startsWith('apidrift') || !isComment(line, m.index)) return;
    const silenced = used.get(line) ?? new Set<string>();
    const range: Range = { start: { line, character: m.index }, end: { line, character: m.index + m[0].length } };
    const base = { file, range, severity: 'hint' as const, code: 'unused-ignore' as const, callee: null, param: null, definition: null };
    if (m[3] === undefined || codesOf(m[3]).every((c) => !silenced.has(c))) {
      if (silenced.size > 0) return;
      // remove the comment with the blanks before it (the whole line when the comment is all it holds)
      const before = text.slice(0, m.index);
      const whole = /^\s*$/.test(before) && text.slice(m.index + m[0].length).trim() === '' && line + 1 < lines.length;
      const start = whole ? { line, character: 0 } : { line, character: before.replace(/\s+$/, '').length };
      const end = whole ? { line: line + 1, character: 0 } : { line, character: m.index + m[0].length };
      kept.push({ ...base, message: 'Unused suppression: nothing on this line is reported', fixes: [{ title: 'Remove the unused suppression', edits: [{ range: { start, end }, newText: '' }], preferred: true, applicability: 'safe' }] });
      return;
    }
    const unused = codesOf(m[3]).filter((c) => !silenced.has(c));
    if (unused.length === 0) return;
    const keep = codesOf(m[3]).filter((c) => silenced.has(c));
    const listStart = m.index + m[0].indexOf('[');
    kept.push({
      ...base,
      message: `Unused code${unused.length === 1 ? '' : 's'} in suppression: ${unused.join(', ')}`,
      fixes: [{ title: `Remove ${unused.join(', ')} from the suppression`, edits: [{ range: { start: { line, character: listStart }, end: range.end }, newText: `[${keep.join(', ')}]` }], preferred: true, applicability: 'safe' }],
    });
  });
  return kept;
}
