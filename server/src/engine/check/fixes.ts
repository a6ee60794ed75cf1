/** Text edits that fix a call: remove an argument cleanly, insert a missing one. */
import type { Node } from '../parser';
import type { Fix, Position, TextEdit } from '../types';

/** Names visible at the call site, in preference order. */
export type ScopeNames = string[];

function pos(line: number, character: number): Position {
  return { line, character };
}

function startOf(n: Node): Position {
  return pos(n.startPosition.row, n.startPosition.column);
}

function endOf(n: Node): Position {
  return pos(n.endPosition.row, n.endPosition.column);
}

/** Removes argument `index` of a call; a line that holds only that argument goes as a whole. */
export function fixRemoveArgument(lines: string[], args: Node[], index: number, argList: Node, param: string): Fix {
  const arg = args[index];
  const s = startOf(arg);
  const e = endOf(arg);
  const before = lines[s.line].slice(0, s.character);
  const after = lines[e.line].slice(e.character);
  let edit: TextEdit;
  if (/^\s*$/.test(before) && /^\s*,?\s*(#.*)?$/.test(after) && s.line > argList.startPosition.row && e.line < lines.length - 1) {
    // the argument has its own line(s): remove them, with the comma
    edit = { range: { start: pos(s.line, 0), end: pos(e.line + 1, 0) }, newText: '' };
  } else if (index + 1 < args.length) {
    edit = { range: { start: s, end: startOf(args[index + 1]) }, newText: '' };
  } else if (index > 0) {
    edit = { range: { start: endOf(args[index - 1]), end: e }, newText: '' };
  } else {
    const close = argList.lastChild;
    edit = { range: { start: s, end: close && close.type === ')' ? startOf(close) : e }, newText: '' };
  }
  return { title: `Remove argument ${param}=`, edits: [edit], preferred: true, applicability: 'unsafe' };
}

/** Chooses a value for a missing parameter: a name in scope equal to it, or an upper-case constant ending in it. */
export function valueFor(param: string, names: ScopeNames): string | undefined {
  if (names.includes(param)) return param;
  const upper = param.toUpperCase();
  return names.find((n) => n === upper || (n.endsWith('_' + upper) && /^[A-Z][A-Z0-9_]*$/.test(n)));
}

/**
 * Inserts `param=value` (for several missing parameters, each in turn) after the last argument,
 * following the call's layout; values not found in scope are snippet placeholders.
 */
export function fixInsertArgument(lines: string[], args: Node[], argList: Node, param: string | string[], names: ScopeNames): Fix {
  const params = Array.isArray(param) ? param : [param];
  let tabstop = 0;
  const parts = params.map((p) => {
    const value = valueFor(p, names);
    return { shown: `${p}=${value ?? '...'}`, text: value ? `${p}=${value}` : `${p}=\${${++tabstop}:...}` };
  });
  const title = `Add argument${params.length > 1 ? 's' : ''} ${parts.map((x) => x.shown).join(', ')}`;
  const snippet = tabstop > 0;
  const multiline = args.length > 0 && args[args.length - 1].startPosition.row > argList.startPosition.row;
  const indent = multiline ? /^\s*/.exec(lines[args[args.length - 1].startPosition.row])![0] : '';
  const text = parts.map((x) => x.text).join(multiline ? `,\n${indent}` : ', ');
  let edit: TextEdit;
  const open = argList.firstChild;
  if (args.length === 0) {
    edit = { range: { start: endOf(open!), end: endOf(open!) }, newText: text };
  } else {
    const last = args[args.length - 1];
    const e = endOf(last);
    const rest = lines[e.line].slice(e.character);
    const trailingComma = /^\s*,/.exec(rest);
    if (multiline) {
      if (trailingComma) {
        const at = pos(e.line, e.character + trailingComma[0].length);
        edit = { range: { start: at, end: at }, newText: `\n${indent}${text},` };
      } else {
        edit = { range: { start: e, end: e }, newText: `,\n${indent}${text}` };
      }
    } else {
      edit = { range: { start: e, end: e }, newText: `, ${text}` };
    }
  }
  return { title, edits: [edit], snippet, preferred: true, applicability: 'unsafe' };
}

/** Renames a keyword argument that starts at `at`: `old=value` becomes `new=value`. */
export function fixRenameKeyword(at: Position, from: string, to: string): Fix {
  return { title: `Rename keyword ${from}= to ${to}=`, edits: [{ range: { start: at, end: pos(at.line, at.character + from.length) }, newText: to }], preferred: true, applicability: 'safe' };
}

/**
 * Rewrites `from old import name` for a name that moved: the module path changes when the name is
 * the only one imported; otherwise the name leaves the list (with its comma) and a new import line
 * for it follows the statement, with the same indentation. Comments and formatting stay.
 */
export function fixMoveImport(lines: string[], stmt: Node, nameNode: Node, to: string): Fix {
  const names = stmt.childrenForFieldName('name').filter((n): n is Node => !!n);
  const element = names.find((n) => n.id === nameNode.id || n.namedChildren.some((c) => c?.id === nameNode.id)) ?? nameNode;
  const moduleNode = stmt.childForFieldName('module_name')!;
  const title = `Import ${nameNode.text} from ${to}`;
  if (names.length === 1) {
    return { title, edits: [{ range: { start: startOf(moduleNode), end: endOf(moduleNode) }, newText: to }], preferred: true, applicability: 'safe' };
  }
  const index = names.indexOf(element);
  const remove = fixRemoveArgument(lines, names, index, stmt, element.text).edits[0];
  const indent = /^\s*/.exec(lines[stmt.startPosition.row])![0];
  const endRow = stmt.endPosition.row;
  const newLine = `${indent}from ${to} import ${element.text}`;
  const insert: TextEdit =
    endRow + 1 < lines.length
      ? { range: { start: pos(endRow + 1, 0), end: pos(endRow + 1, 0) }, newText: newLine + '\n' }
      : { range: { start: pos(endRow, lines[endRow].length), end: pos(endRow, lines[endRow].length) }, newText: '\n' + newLine };
  return { title, edits: [remove, insert], preferred: true, applicability: 'safe' };
}

function before(a: Position, b: Position): boolean {
  return a.line < b.line || (a.line === b.line && a.character < b.character);
}

/**
 * One edit for a whole file: the preferred fix of each finding, skipping fixes that need the
 * user's input (placeholders) and any whose edits touch text another chosen fix already edits.
 */
export function fixAllEdits(fixLists: Fix[][]): TextEdit[] {
  const chosen: TextEdit[] = [];
  const empty = (e: TextEdit): boolean => samePos(e.range.start, e.range.end);
  const conflict = (a: TextEdit, b: TextEdit): boolean =>
    (before(a.range.start, b.range.end) && before(b.range.start, a.range.end)) || (samePos(a.range.start, b.range.start) && (empty(a) || empty(b)));
  const overlaps = (e: TextEdit): boolean => chosen.some((c) => conflict(e, c));
  for (const fixes of fixLists) {
    const fix = fixes.find((f) => f.preferred && !f.snippet) ?? fixes.find((f) => !f.snippet);
    if (!fix || fix.edits.some(overlaps)) continue;
    chosen.push(...fix.edits);
  }
  return chosen;
}

function samePos(a: Position, b: Position): boolean {
  return a.line === b.line && a.character === b.character;
}
