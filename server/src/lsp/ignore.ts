/**
 * "Ignore" code actions for a finding: an `# apidrift: ignore[code]` comment on its line (merged
 * into an apidrift ignore comment already there), or `# apidrift: ignore-file` for the whole file.
 */
import type { TextEdit } from 'vscode-languageserver/node';
import type { Finding } from '../engine';

const APIDRIFT_IGNORE = /#\s*apidrift:\s*ignore(?![\w-])(\[([^\]]*)\])?/;
const TYPE_IGNORE = /#\s*type:\s*ignore(?![\w-])/;

/** The edit that silences `code` on `line`, or undefined when a comment cannot go there safely. */
export function ignoreLineEdit(lines: string[], line: number, code: string): TextEdit | undefined {
  const text = lines[line];
  if (text === undefined) return undefined;
  const m = APIDRIFT_IGNORE.exec(text);
  if (m) {
    if (m[1] === undefined) return undefined; // already ignores every code
    const codes = m[2].split(',').map((c) => c.trim()).filter((c) => c !== '');
    if (codes.includes(code)) return undefined;
    const start = m.index + m[0].indexOf('[');
    return { range: { start: { line, character: start }, end: { line, character: m.index + m[0].length } }, newText: `[${[...codes, code].join(', ')}]` };
  }
  // the first ignore comment of a line is the one read: an apidrift one after `# type: ignore` would do nothing
  if (TYPE_IGNORE.test(text)) return undefined;
  const body = text.replace(/\s+$/, '');
  // a comment cannot follow a line continuation, nor go inside a string that goes on to the next line
  if (body.endsWith('\\') || (body.split('"""').length - 1) % 2 === 1 || (body.split("'''").length - 1) % 2 === 1) return undefined;
  return { range: { start: { line, character: body.length }, end: { line, character: text.length } }, newText: `  # apidrift: ignore[${code}]` };
}

/** The edit that silences the whole file: a comment line at its top (after a shebang and an encoding line). */
export function ignoreFileEdit(lines: string[]): TextEdit {
  let at = 0;
  while (at < Math.min(lines.length, 2) && (lines[at].startsWith('#!') || /^[ \t\f]*#.*?coding[:=]/.test(lines[at]))) at++;
  return { range: { start: { line: at, character: 0 }, end: { line: at, character: 0 } }, newText: '# apidrift: ignore-file\n' };
}

/** Whether an ignore action makes sense for the finding (a comment never silences unused-ignore or not-checked). */
export function ignorable(f: Finding): boolean {
  return f.code !== 'unused-ignore';
}
