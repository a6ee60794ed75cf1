/** Text edits that fix a call: remove an argument cleanly, insert a missing one. */
import type { Node } from './parser';
import type { Fix, Position, TextEdit } from './types';

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
  return { title: `Remove argument ${param}=`, edits: [edit], preferred: true };
}

/** Chooses a value for a missing parameter: a name in scope equal to it, or an upper-case constant ending in it. */
export function valueFor(param: string, names: ScopeNames): string | undefined {
  if (names.includes(param)) return param;
  const upper = param.toUpperCase();
  return names.find((n) => n === upper || (n.endsWith('_' + upper) && /^[A-Z][A-Z0-9_]*$/.test(n)));
}

/** Inserts `param=value` as the last argument, following the call's layout. */
export function fixInsertArgument(lines: string[], args: Node[], argList: Node, param: string, names: ScopeNames): Fix {
  const value = valueFor(param, names);
  const text = value ? `${param}=${value}` : `${param}=\${1:...}`;
  const title = value ? `Add argument ${param}=${value}` : `Add argument ${param}=...`;
  let edit: TextEdit;
  const open = argList.firstChild;
  if (args.length === 0) {
    edit = { range: { start: endOf(open!), end: endOf(open!) }, newText: text };
  } else {
    const last = args[args.length - 1];
    const e = endOf(last);
    const rest = lines[e.line].slice(e.character);
    const trailingComma = /^\s*,/.exec(rest);
    const multiline = last.startPosition.row > argList.startPosition.row;
    if (multiline) {
      const indent = /^\s*/.exec(lines[last.startPosition.row])![0];
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
  return { title, edits: [edit], snippet: !value, preferred: true };
}
