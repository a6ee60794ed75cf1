/** Small helpers over tree-sitter-python nodes, shared by the module summariser and the checker. */
import type { Node } from './parser';

/** An annotation's text as one line: line continuations and runs of white space become one space. */
export function annotationText(text: string): string {
  return text.replace(/\\\r?\n/g, ' ').replace(/\s+/g, ' ').trim();
}

/** A Python expression, reduced to what name resolution needs. */
export type Expr =
  | { kind: 'name'; name: string }
  | { kind: 'attr'; base: Expr; attr: string }
  | { kind: 'call'; callee: Expr; args: ArgExpr[] }
  /** `args`: the texts of the subscript's elements when they are a few plain names (type arguments of a base class). */
  | { kind: 'subscript'; base: Expr; args?: string[] }
  | { kind: 'cond'; alts: Expr[] }
  | { kind: 'str'; value: string }
  /** A list, tuple or set of string literals, or the string keys of a dict literal (with its string values in `map`). */
  | { kind: 'strs'; values: string[]; map?: Map<string, string> }
  | { kind: 'const'; text: string }
  /**
   * What an import binds, wherever the expression is read: a base of a class defined in a function
   * that imports the name itself (`from lib.x import Base` in the function's body). `name`: `from
   * module import name`; else `import module` (the module itself).
   */
  | { kind: 'imported'; module: string; name?: string }
  | { kind: 'other'; text: string };

export interface ArgExpr {
  name?: string;
  star?: '*' | '**';
  value: Expr;
  text: string;
}

export type ParamKind = 'posonly' | 'normal' | 'varargs' | 'kwonly' | 'varkw';

export interface Param {
  name: string;
  kind: ParamKind;
  hasDefault: boolean;
  /** Preset by a functools.partial keyword: a keyword may override it, a positional argument may not fill it. */
  preset?: boolean;
  annotation?: string;
  defaultText?: string;
}

const MAX_TEXT = 120;

export function clip(text: string, max = MAX_TEXT): string {
  const one = text.replace(/\s+/g, ' ');
  return one.length > max ? one.slice(0, max - 1) + '…' : one;
}

/** The value of a plain string literal, or undefined for f-strings and concatenations. */
export function stringValue(node: Node): string | undefined {
  if (node.type === 'concatenated_string') {
    let out = '';
    for (const c of node.namedChildren) {
      if (!c) continue;
      const v = stringValue(c);
      if (v === undefined) return undefined;
      out += v;
    }
    return out;
  }
  if (node.type !== 'string') return undefined;
  let out = '';
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (c.type === 'interpolation') return undefined;
    if (c.type === 'string_content') out += c.text;
  }
  return out;
}

export function toExpr(node: Node | null, depth = 0): Expr {
  if (!node) return { kind: 'other', text: '' };
  if (depth > 100) return { kind: 'other', text: '…' }; // deeper than any name chain the engine follows
  switch (node.type) {
    case 'identifier':
      return { kind: 'name', name: node.text };
    case 'attribute': {
      const obj = node.childForFieldName('object');
      const attr = node.childForFieldName('attribute');
      if (!obj || !attr) return { kind: 'other', text: clip(node.text) };
      return { kind: 'attr', base: toExpr(obj, depth + 1), attr: attr.text };
    }
    case 'call': {
      const fn = node.childForFieldName('function');
      const argList = node.childForFieldName('arguments');
      const args: ArgExpr[] = [];
      if (argList && argList.type === 'argument_list') {
        for (const a of argumentNodes(argList)) args.push(argExpr(a, depth + 1));
      }
      return { kind: 'call', callee: toExpr(fn, depth + 1), args };
    }
    case 'subscript': {
      const base = toExpr(node.childForFieldName('value'), depth + 1);
      const items = node.childrenForFieldName('subscript').filter((c): c is Node => !!c && c.type !== 'comment');
      const names = items.length > 0 && items.length <= 4 && items.every((c) => c.type === 'identifier' || c.type === 'attribute' || (c.type === 'string' && c.text.length <= 80));
      return names ? { kind: 'subscript', base, args: items.map((c) => (c.type === 'string' ? c.text.slice(1, -1) : c.text.replace(/\s+/g, ''))) } : { kind: 'subscript', base };
    }
    case 'conditional_expression': {
      const parts = node.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment');
      if (parts.length === 3) return { kind: 'cond', alts: [toExpr(parts[0], depth + 1), toExpr(parts[2], depth + 1)] };
      return { kind: 'other', text: clip(node.text) };
    }
    case 'parenthesized_expression': {
      const inner = node.namedChildren.find((c) => c && c.type !== 'comment');
      return inner ? toExpr(inner, depth + 1) : { kind: 'other', text: clip(node.text) };
    }
    case 'string':
    case 'concatenated_string': {
      const v = stringValue(node);
      return v === undefined ? { kind: 'other', text: clip(node.text) } : { kind: 'str', value: v };
    }
    case 'list':
    case 'tuple':
    case 'set': {
      const values: string[] = [];
      for (const c of node.namedChildren) {
        if (!c || c.type === 'comment') continue;
        const v = stringValue(c);
        if (v === undefined) return { kind: 'other', text: clip(node.text) };
        values.push(v);
      }
      return { kind: 'strs', values };
    }
    case 'dictionary': {
      const values: string[] = [];
      const map = new Map<string, string>();
      for (const c of node.namedChildren) {
        if (!c || c.type === 'comment') continue;
        if (c.type !== 'pair') return { kind: 'other', text: clip(node.text) };
        const k = c.childForFieldName('key');
        const v = k ? stringValue(k) : undefined;
        if (v === undefined) return { kind: 'other', text: clip(node.text) };
        values.push(v);
        const val = c.childForFieldName('value');
        const sv = val ? stringValue(val) : undefined;
        if (sv !== undefined) map.set(v, sv);
      }
      return { kind: 'strs', values, map };
    }
    case 'true':
    case 'false':
    case 'none':
    case 'integer':
    case 'float':
      return { kind: 'const', text: node.text };
    default:
      return { kind: 'other', text: clip(node.text) };
  }
}

export function argExpr(a: Node, depth = 0): ArgExpr {
  const text = clip(a.text, 200);
  if (a.type === 'keyword_argument') {
    const name = a.childForFieldName('name');
    return { name: name?.text, value: toExpr(a.childForFieldName('value'), depth), text };
  }
  if (a.type === 'list_splat') return { star: '*', value: toExpr(a.namedChildren[0] ?? null, depth), text };
  if (a.type === 'dictionary_splat') return { star: '**', value: toExpr(a.namedChildren[0] ?? null, depth), text };
  return { value: toExpr(a, depth), text };
}

/** Dotted form of a name or attribute chain (`a.b.c`), or undefined. */
export function dotted(e: Expr): string | undefined {
  if (e.kind === 'name') return e.name;
  if (e.kind === 'attr') {
    const b = dotted(e.base);
    return b === undefined ? undefined : `${b}.${e.attr}`;
  }
  return undefined;
}

/** The parameters of a `parameters` or `lambda_parameters` node, in order, with their kinds. */
export function readParams(node: Node | null): Param[] {
  const params: Param[] = [];
  if (!node) return params;
  let afterStar = false;
  const children = node.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment');
  const hasSlash = children.some((c) => c.type === 'positional_separator');
  let beforeSlash = hasSlash;
  for (const c of children) {
    let name: string | undefined;
    let kind: ParamKind = afterStar ? 'kwonly' : beforeSlash ? 'posonly' : 'normal';
    let hasDefault = false;
    let annotation: string | undefined;
    let defaultText: string | undefined;
    switch (c.type) {
      case 'positional_separator':
        beforeSlash = false;
        continue;
      case 'keyword_separator':
        afterStar = true;
        continue;
      case 'identifier':
        name = c.text;
        break;
      case 'typed_parameter': {
        const inner = c.namedChildren.find((x) => x && x.type !== 'comment' && x.type !== 'type') ?? null;
        annotation = c.childForFieldName('type')?.text;
        if (inner?.type === 'list_splat_pattern') {
          name = inner.namedChildren[0]?.text;
          kind = 'varargs';
          afterStar = true;
        } else if (inner?.type === 'dictionary_splat_pattern') {
          name = inner.namedChildren[0]?.text;
          kind = 'varkw';
        } else {
          name = inner?.text;
        }
        break;
      }
      case 'default_parameter':
      case 'typed_default_parameter':
        name = c.childForFieldName('name')?.text;
        annotation = c.childForFieldName('type')?.text;
        hasDefault = true;
        defaultText = c.childForFieldName('value')?.text;
        break;
      case 'list_splat_pattern':
        name = c.namedChildren[0]?.text;
        kind = 'varargs';
        afterStar = true;
        break;
      case 'dictionary_splat_pattern':
        name = c.namedChildren[0]?.text;
        kind = 'varkw';
        break;
      default:
        continue;
    }
    if (!name) continue;
    params.push({ name, kind, hasDefault, annotation: annotation && clip(annotationText(annotation), 60), defaultText: defaultText && clip(defaultText, 40) });
  }
  return params;
}

/** Renders parameters in Python syntax: `(a, /, b=1, *args, c, **kw)`. */
export function formatParams(params: Param[]): string {
  const out: string[] = [];
  let slashDone = false;
  let starDone = false;
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (!slashDone && p.kind !== 'posonly' && i > 0 && params[i - 1].kind === 'posonly') {
      out.push('/');
      slashDone = true;
    }
    if (p.kind === 'kwonly' && !starDone) {
      out.push('*');
      starDone = true;
    }
    if (p.kind === 'varargs') starDone = true;
    let s = p.kind === 'varargs' ? `*${p.name}` : p.kind === 'varkw' ? `**${p.name}` : p.name;
    if (p.annotation) s += `: ${p.annotation}`;
    if (p.hasDefault) s += p.annotation ? ` = ${p.defaultText ?? '...'}` : `=${p.defaultText ?? '...'}`;
    out.push(s);
  }
  if (!slashDone && params.length > 0 && params[params.length - 1].kind === 'posonly') out.push('/');
  return `(${out.join(', ')})`;
}

/**
 * The arguments in an argument list (of a call, or a class's bases): comments skipped, and line
 * continuations, which tree-sitter gives as children of the list (`f(\` then `x)` on the next line).
 */
export function argumentNodes(list: Node | null | undefined): Node[] {
  return list ? list.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment' && c.type !== 'line_continuation') : [];
}

/** Statements of a block or module, comments skipped. */
export function statements(node: Node | null): Node[] {
  if (!node) return [];
  return node.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment');
}

export function line1(node: Node): number {
  return node.startPosition.row + 1;
}

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The parameters of a `def` read straight off the text between its parentheses, with the same
 * result as `readParams` on the parsed `parameters` node; undefined for any layout this reader
 * does not take on (comments inside brackets, f-strings, triple-quoted strings, backslashes,
 * non-ASCII text, anything that is not plainly a parameter list): the parser then reads it.
 */
export function paramsFromText(src: string): Param[] | undefined {
  if (src.includes('lambda')) return undefined; // its parameters' commas are not the list's
  const pieces: string[] = [];
  let depth = 0;
  let from = 0;
  let kept = ''; // the current piece's text with top-level comments cut out
  const n = src.length;
  for (let p = 0; p < n; p++) {
    const c = src.charCodeAt(p);
    if (c > 0x7e || c === 92 /* \ */) return undefined;
    if (c === 34 || c === 39) {
      // a one-line string without prefix letters that would make it an f-string
      let q = p - 1;
      while (q >= 0 && /[A-Za-z]/.test(src[q])) q--;
      if (/[fF]/.test(src.slice(q + 1, p))) return undefined;
      if (src.charCodeAt(p + 1) === c && src.charCodeAt(p + 2) === c) return undefined;
      let e = p + 1;
      while (e < n && src.charCodeAt(e) !== c) {
        const d = src.charCodeAt(e);
        if (d === 10 || d === 13 || d === 92) return undefined;
        e++;
      }
      if (e >= n) return undefined;
      p = e;
      continue;
    }
    if (c === 35 /* # */) {
      if (depth > 0) return undefined;
      let e = p;
      while (e < n && src.charCodeAt(e) !== 10 && src.charCodeAt(e) !== 13) e++;
      kept += src.slice(from, p);
      from = e;
      p = e - 1;
      continue;
    }
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) {
      if (--depth < 0) return undefined;
    } else if (c === 44 /* , */ && depth === 0) {
      pieces.push(kept + src.slice(from, p));
      kept = '';
      from = p + 1;
    }
  }
  if (depth !== 0) return undefined;
  pieces.push(kept + src.slice(from));
  const last = pieces.length - 1;
  const params: Param[] = [];
  const hasSlash = pieces.some((x) => x.trim() === '/');
  let beforeSlash = hasSlash;
  let afterStar = false;
  for (let i = 0; i <= last; i++) {
    const piece = pieces[i].trim();
    if (piece === '') {
      if (i === last && i > 0) break; // a trailing comma
      if (i === 0 && last === 0) break; // no parameters at all
      return undefined;
    }
    if (piece === '/') {
      beforeSlash = false;
      continue;
    }
    if (piece === '*') {
      afterStar = true;
      continue;
    }
    // top level of the piece: the first `=` that is an assignment, and a `:` before it
    let eq = -1;
    let colon = -1;
    let d = 0;
    for (let p = 0; p < piece.length && eq < 0; p++) {
      const c = piece.charCodeAt(p);
      if (c === 34 || c === 39) {
        p = piece.indexOf(piece[p], p + 1);
        if (p < 0) return undefined;
      } else if (c === 40 || c === 91 || c === 123) d++;
      else if (c === 41 || c === 93 || c === 125) d--;
      else if (d === 0 && c === 58 /* : */) {
        if (piece.charCodeAt(p + 1) === 61) return undefined; // `:=`
        if (colon < 0) colon = p;
      } else if (d === 0 && c === 61 /* = */) {
        const before = piece.charCodeAt(p - 1);
        if (piece.charCodeAt(p + 1) === 61) p++; // `==`
        else if (before !== 33 && before !== 60 && before !== 62 && before !== 61) eq = p; // not `!=`, `<=`, `>=`
      }
    }
    const headEnd = colon >= 0 ? colon : eq >= 0 ? eq : piece.length;
    let head = piece.slice(0, headEnd).trim();
    let kind: ParamKind = afterStar ? 'kwonly' : beforeSlash ? 'posonly' : 'normal';
    if (head.startsWith('**')) {
      kind = 'varkw';
      head = head.slice(2).trim();
    } else if (head.startsWith('*')) {
      kind = 'varargs';
      afterStar = true;
      head = head.slice(1).trim();
    }
    if (!PARAM_NAME.test(head)) return undefined;
    const annotation = colon >= 0 ? piece.slice(colon + 1, eq >= 0 ? eq : piece.length).trim() : undefined;
    const defaultText = eq >= 0 ? piece.slice(eq + 1).trim() : undefined;
    if (annotation === '' || defaultText === '') return undefined;
    if (defaultText !== undefined && kind !== 'normal' && kind !== 'posonly' && kind !== 'kwonly') return undefined;
    params.push({ name: head, kind, hasDefault: eq >= 0, annotation: annotation && clip(annotationText(annotation), 60), defaultText: defaultText && clip(defaultText, 40) });
  }
  return params;
}

/** Named nodes that never have named children (so hold no call, statement or scope): walkers need not look inside. */
export const LEAF_TYPES = new Set(['identifier', 'integer', 'float', 'true', 'false', 'none', 'comment', 'string_start', 'string_content', 'string_end', 'escape_sequence', 'escape_interpolation', 'ellipsis', 'type_conversion', 'line_continuation', 'keyword_separator', 'positional_separator']);

/** Every identifier named `name` under `node` (names only: what they refer to is the caller's question). */
export function identifiersNamed(node: Node, name: string): Node[] {
  const out: Node[] = [];
  const walk = (n: Node): void => {
    if (n.type === 'identifier') {
      if (n.text === name) out.push(n);
      return;
    }
    for (const c of n.namedChildren) if (c) walk(c);
  };
  walk(node);
  return out;
}

const DICT_READS = new Set(['get', 'items', 'keys', 'values', 'copy']);

/**
 * What one occurrence of a dict's name does to the dict: `splat` (`**d`, with the call it is an
 * argument of, if it is one), `read` (`d.get(...)`, `.items()`, `.keys()`, `.values()`, `.copy()`,
 * `d[k]`, `k in d`), `add` (`d.setdefault(...)`, `d.update(...)`, `d[k] = v`), `take` (`d.pop(k)`,
 * `del d[k]`), each with the key where it is a string literal (`subscript` for `d[...]`); `name`
 * where the identifier is no reference to the dict (a keyword's or an attribute's name); undefined
 * for any other use (the dict handed on as a value, rebound, a method not called).
 */
export type DictUse = { kind: 'splat'; call?: Node } | { kind: 'read' | 'add' | 'take'; key?: string; subscript?: boolean } | { kind: 'name' };

export function dictUse(id: Node): DictUse | undefined {
  const p = id.parent;
  if (!p) return undefined;
  if (p.type === 'dictionary_splat') return p.parent?.type === 'argument_list' && p.parent.parent?.type === 'call' ? { kind: 'splat', call: p.parent.parent } : { kind: 'splat' };
  if (p.type === 'keyword_argument') return p.childForFieldName('name')?.id === id.id ? { kind: 'name' } : undefined;
  if (p.type === 'attribute') {
    if (p.childForFieldName('attribute')?.id === id.id) return { kind: 'name' };
    const call = p.parent;
    if (call?.type !== 'call' || call.childForFieldName('function')?.id !== p.id) return undefined;
    const m = p.childForFieldName('attribute')?.text ?? '';
    if (DICT_READS.has(m)) return { kind: 'read' };
    if (m === 'setdefault' || m === 'update') return { kind: 'add' };
    if (m !== 'pop') return undefined;
    const first = argumentNodes(call.childForFieldName('arguments'))[0];
    return { kind: 'take', key: first?.type === 'string' ? stringValue(first) : undefined };
  }
  if (p.type === 'subscript' && p.childForFieldName('value')?.id === id.id) {
    const keys = p.childrenForFieldName('subscript');
    const key = keys.length === 1 && keys[0]?.type === 'string' ? stringValue(keys[0]) : undefined;
    // `del d["k"]`, `del d["k"], x`; `d["k"] = v`, `d["k"], x = ...`, `d["k"] += 1`, `for d["k"] in ...`
    const up = p.parent?.type === 'expression_list' || p.parent?.type === 'pattern_list' ? p.parent.parent : p.parent;
    if (up?.type === 'delete_statement') return { kind: 'take', key, subscript: true };
    const stored = (up?.type === 'assignment' || up?.type === 'augmented_assignment' || up?.type === 'for_statement') && up.childForFieldName('left')?.startIndex === (p.parent === up ? p : p.parent!).startIndex;
    return { kind: stored ? 'add' : 'read', key, subscript: true };
  }
  if (p.type === 'comparison_operator' && p.namedChildren[p.namedChildren.length - 1]?.id === id.id && /\bin\s*$/.test(p.text.slice(0, id.startIndex - p.startIndex))) return { kind: 'read' };
  return undefined;
}

/**
 * The names a `case` pattern captures (binds when it matches): a bare name (`case x:`, `[x, *_]`,
 * `{"k": x}`, `C(a=x)`), a star (`*rest`, `**kw`) and `as x`. A class name (`C(...)`), a keyword
 * of a class pattern and a dotted value (`Color.RED`) capture nothing; nor does `_`.
 */
export function patternCaptures(node: Node, out: string[]): void {
  for (const c of node.namedChildren) {
    if (!c) continue;
    if (c.type === 'dotted_name') {
      const only = c.namedChildren.length === 1 ? c.namedChildren[0] : null;
      if (only?.type === 'identifier' && (node.type === 'case_pattern' || node.type === 'keyword_pattern') && only.text !== '_') out.push(only.text);
    } else if (c.type === 'identifier') {
      if ((node.type === 'splat_pattern' || node.type === 'as_pattern') && c.text !== '_') out.push(c.text);
    } else patternCaptures(c, out);
  }
}
