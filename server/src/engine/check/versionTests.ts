/**
 * Version tests decided where the target says its version: `if Version(vllm.__version__) >=
 * Version("0.12"):` holds or fails on a target whose `vllm` is 0.16.0 (an installed tree or a
 * wheel names its version in `*.dist-info/METADATA`; a package may write it as a literal
 * `__version__`). Only the shapes whose meaning is Python's own are decided:
 *
 * - a comparison of two versions: `Version(x)`, `parse(x)`, `version.parse(x)`,
 *   `packaging.version.Version(x)`, `parse_version(x)` of a version string (PEP 440 order);
 * - a comparison of two strings (`vllm.__version__ >= "0.8.3"` compares them as text, as Python
 *   does);
 * - `not`, `and`, `or` and parentheses over those.
 *
 * A version string is a string literal, `pkg.__version__` of a package of the target, a name
 * imported as `from pkg import __version__`, or `importlib.metadata.version("pkg")`; a name the
 * file binds once at module level stands for its value (`vllm_version = parse(vllm.__version__)`,
 * a flag `IS_NEW = vllm_version >= parse("0.12")`). Anything else
 * (a helper such as `vllm_version_is("0.16")`, `.release` tuples, a version of another library)
 * is not decided: the code under it stays code for one version, as before.
 */
import * as pep440 from '@renovatebot/pep440';
import type { Node } from '../parser';
import { stringValue } from '../syntax';

/** What an expression gives: a version (a `Version(...)` of one) or a plain string. */
export type VersionValue = { kind: 'version'; text: string } | { kind: 'str'; text: string };

/** Evaluates the leaves of a version test: what an expression that names a version string gives on the target. */
export type VersionStrings = (expr: Node) => string | undefined;

/** The one value a name is bound to, where the file binds it once (`IS_NEW = Version(v) >= ...`, `vllm_version = parse(v)`). */
export type NameValue = (name: Node) => Node | undefined;

/** How a file binds the names a version string is read through. */
export interface VersionNames {
  /** The top-level package that `import pkg` binds to `name`, when that is all the file binds it to. */
  packageOf(name: string): string | undefined;
  /** What the file imports as `name` with `from module import name2 [as name]`. */
  importOf(name: string): { module: string; name: string } | undefined;
}

/**
 * The version string an expression gives on the target: a string literal, `pkg.__version__`, a
 * name imported as `from pkg import __version__`, or `importlib.metadata.version("pkg")`
 * (`pkg`: a top-level package, whose version `packageVersion` gives).
 */
export function versionString(e: Node, names: VersionNames, packageVersion: (top: string) => string | undefined): string | undefined {
  if (e.type === 'string') return stringValue(e);
  if (e.type === 'attribute' && e.childForFieldName('attribute')?.text === '__version__') {
    const obj = e.childForFieldName('object');
    const top = obj?.type === 'identifier' ? names.packageOf(obj.text) : undefined;
    return top ? packageVersion(top) : undefined;
  }
  if (e.type === 'identifier') {
    const from = names.importOf(e.text);
    return from && from.name === '__version__' && !from.module.includes('.') ? packageVersion(from.module) : undefined;
  }
  if (e.type === 'call') {
    const f = e.childForFieldName('function');
    const args = e.childForFieldName('arguments')?.namedChildren.filter((x) => x && x.type !== 'comment') ?? [];
    if (!f || args.length !== 1 || args[0]!.type !== 'string') return undefined;
    const text = f.text.replace(/\s+/g, '');
    const from = f.type === 'identifier' ? names.importOf(f.text) : undefined;
    const metadata =
      /^(?:importlib\.metadata|importlib_metadata)\.version$/.test(text) ||
      (from !== undefined && from.name === 'version' && /^(?:importlib\.metadata|importlib_metadata)$/.test(from.module)) ||
      (text === 'metadata.version' && names.importOf('metadata')?.module === 'importlib');
    const dist = metadata ? stringValue(args[0]!) : undefined;
    // a distribution's name, as the package it installs is named
    return dist && /^[A-Za-z0-9][\w.-]*$/.test(dist) ? packageVersion(dist.toLowerCase().replace(/[-.]+/g, '_')) : undefined;
  }
  return undefined;
}

/** Callees that make a `packaging` version of a string (the last names of what the file calls). */
const VERSION_MAKERS = /^(?:(?:packaging\.)?version\.)?(?:Version|parse)$|^(?:pkg_resources\.)?parse_version$/;

function inner(n: Node): Node | null {
  let c: Node | null = n;
  while (c?.type === 'parenthesized_expression') c = c.namedChildren.find((x) => x && x.type !== 'comment') ?? null;
  return c;
}

/** The value of `n` as a version or a string, when the target decides it; `depth`: how many names were followed to get here. */
function valueOf(n: Node, strings: VersionStrings, names?: NameValue, depth = 0): VersionValue | undefined {
  const e = inner(n);
  if (!e || depth > 4) return undefined;
  if (e.type === 'identifier' && names) {
    const s = strings(e);
    if (s !== undefined) return { kind: 'str', text: s };
    const bound = names(e);
    return bound ? valueOf(bound, strings, names, depth + 1) : undefined;
  }
  if (e.type === 'call') {
    const callee = e.childForFieldName('function')?.text.replace(/\s+/g, '');
    const args = e.childForFieldName('arguments')?.namedChildren.filter((x) => x && x.type !== 'comment') ?? [];
    if (callee && VERSION_MAKERS.test(callee) && args.length === 1 && args[0]!.type !== 'keyword_argument' && args[0]!.type !== 'list_splat' && args[0]!.type !== 'dictionary_splat') {
      const v = valueOf(args[0]!, strings, names, depth);
      return v?.kind === 'str' && pep440.valid(v.text) !== null ? { kind: 'version', text: v.text } : undefined;
    }
  }
  const s = strings(e);
  return s === undefined ? undefined : { kind: 'str', text: s };
}

const OPERATORS = new Set(['<', '<=', '>', '>=', '==', '!=']);

function compare(a: VersionValue, op: string, b: VersionValue): boolean | undefined {
  // a Version and a str do not order (TypeError); `==` between them is never true, but such a test
  // is more likely a mistake than a choice of version: left undecided
  if (a.kind !== b.kind) return undefined;
  const c = a.kind === 'version' ? pep440.compare(a.text, b.text) : a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
    case '==':
      return c === 0;
    case '!=':
      return c !== 0;
  }
  return undefined;
}

/**
 * Whether condition `cond` holds on the target, when it is a version test the target decides;
 * undefined for any other condition, and for one that a part left undecided may turn.
 */
export function decideVersionTest(cond: Node, strings: VersionStrings, names?: NameValue, depth = 0): boolean | undefined {
  const e = inner(cond);
  if (!e || depth > 4) return undefined;
  if (e.type === 'identifier') {
    // a flag the file sets once from a test (`IS_NEW = Version(v) >= Version("0.12")`)
    const bound = names?.(e);
    return bound ? decideVersionTest(bound, strings, names, depth + 1) : undefined;
  }
  if (e.type === 'not_operator') {
    const arg = e.childForFieldName('argument');
    const v = arg ? decideVersionTest(arg, strings, names, depth) : undefined;
    return v === undefined ? undefined : !v;
  }
  if (e.type === 'boolean_operator') {
    const left = e.childForFieldName('left');
    const right = e.childForFieldName('right');
    const op = e.childForFieldName('operator')?.type ?? e.children.find((c) => c && (c.type === 'and' || c.type === 'or'))?.type;
    const l = left ? decideVersionTest(left, strings, names, depth) : undefined;
    const r = right ? decideVersionTest(right, strings, names, depth) : undefined;
    if (op === 'and') return l === false || r === false ? false : l === true && r === true ? true : undefined;
    if (op === 'or') return l === true || r === true ? true : l === false && r === false ? false : undefined;
    return undefined;
  }
  if (e.type === 'comparison_operator') {
    const operands = e.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment');
    const ops = e.children.filter((c): c is Node => !!c && !c.isNamed && OPERATORS.has(c.type));
    // one comparison, two operands (chains and `in`/`is` are not decided)
    if (operands.length !== 2 || ops.length !== 1 || e.children.filter((c) => c && !c.isNamed).length !== 1) return undefined;
    const a = valueOf(operands[0], strings, names, depth);
    const b = a && valueOf(operands[1], strings, names, depth);
    return a && b ? compare(a, ops[0].type, b) : undefined;
  }
  return undefined;
}
