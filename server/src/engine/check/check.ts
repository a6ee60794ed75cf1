/**
 * Checks one Python file against a target: its imports of target modules and every call whose
 * callee it can trace into the target. Produces findings with their fixes, and what it knows
 * about each checked call (for hovers).
 */
import { bindCall, type BindError, type CallArg } from './bind';
import { type Access, Callables, type CallSpec, type Entry, type Sig, sigText } from '../resolve/callables';
import { fixInsertArgument, fixRemoveArgument, type ScopeNames } from './fixes';
import type { Node, Tree } from '../parser';
import { parseRecovering } from './recover';
import { type Program, USER_FILE_MODULE, type Value } from '../resolve/program';
import { agree, type Instance, isInstanceUnion, Receivers } from '../resolve/receivers';
import { absoluteModule, type Binding, catchesImportError, type FunctionInfo, hasField, importBindings, importsOfTry, loadsLazily, localClassInfo, summarizeTree, type ModuleSummary, type ClassInfo, type SummaryMemo } from '../index/summary';
import { annotationText, argumentNodes, dictUse, type Expr, identifiersNamed, LEAF_TYPES, patternCaptures, stringValue } from '../syntax';
import type { CallInfo, Finding, Range, SourceLocation } from '../types';
import type { Param, ParamKind } from '../syntax';
import { fixMoveImport } from './fixes';
import { dependencyWords, fingerprintOf, moduleFacts, moveResult, NameFingerprints, ownEntry, type StatementMemo, type StatementResult } from './statements';
import { applySuppressions } from './suppress';
import { decideVersionTest, type VersionNames, versionString } from './versionTests';
import { notNnModuleMember } from '../resolve/specials';
import { LibrarySites } from './librarySites';
import { argExpr, dotted, readParams } from '../syntax';
import { ownString } from '../ownStrings';

/**
 * Expressions, whose parts bind no name of the enclosing function except through `:=` (a walk for
 * the function's locals passes over them in a file without one).
 */
const EXPRESSION_TYPES = new Set(['call', 'argument_list', 'keyword_argument', 'attribute', 'subscript', 'slice', 'binary_operator', 'boolean_operator', 'comparison_operator', 'not_operator', 'unary_operator', 'parenthesized_expression', 'conditional_expression', 'await', 'list', 'tuple', 'set', 'dictionary', 'pair', 'string', 'concatenated_string', 'interpolation', 'list_splat', 'dictionary_splat', 'expression_list', 'yield']);

export const USER_MODULE = USER_FILE_MODULE;

/** Why a call that depends on overrides in the project's other files is unknown while they are read. */
export const PROJECT_PENDING = "the project's other files are still being read for overrides";

export interface CheckOptions {
  /** Path of the file, as shown in findings. */
  file: string;
  /** The file's dotted module name when it lies inside an import root (for relative imports). */
  moduleName?: string;
  isPackage?: boolean;
  /**
   * A user file inside one of the user's own folders: its module name there, so that its relative
   * imports resolve (it is still checked as the user's code, not as a module of the target).
   */
  importContext?: { name: string; isPackage: boolean };
  /** Polled during the check; a true answer aborts it with CancelledError. */
  isCancelled?: () => boolean;
  /** With a baseline: what the version the code was written for had. */
  crossVersion?: CrossVersion;
  /** Results of the previous check of the same file, reused statement by statement where still true. */
  memo?: StatementMemo;
  /** Anything else the results depend on (the baseline's state), as a string to compare. */
  context?: string;
  /** The file's top-level definitions as last summarised, to take over where unchanged. */
  summaryMemo?: SummaryMemo;
  /**
   * The classes of the project's other files (a command-line run over a whole project): their
   * overrides count for virtual dispatch, as the file's own classes do.
   */
  projectClasses?: Array<{ cls: ClassInfo; summary: ModuleSummary }>;
  /** The project's files are still being read: a call that depends on overrides elsewhere stays unknown. */
  projectPending?: boolean;
  /** Attribute names the project's other files set on objects from outside (`C.m = f`, `setattr(C, "m", f)`). */
  projectPatched?: ReadonlySet<string>;
  /** Whether a target module sets `owner.name` from outside (`type_api.NULLTYPE = NULLTYPE`), `owner` the last name of what it is set on. */
  targetSets?(ownerDotName: string): boolean;
  /** Why the whole file is written for one version (the project imports it only under version tests), if it is. */
  versionOnly?: string;
}

/** Questions about the baseline (and moves within the target) that import checks ask. */
export interface CrossVersion {
  /** The baseline has this module. */
  baselineHasModule(name: string): boolean;
  /** The baseline has the module as Python source (a `.py` file or a package's `__init__.py`): no build makes it. */
  baselineHasSource(name: string): boolean;
  /** The return annotation of the baseline's module-level function `module.name`, if it has one. */
  baselineReturns?(module: string, name: string): string | undefined;
  /** The def that the baseline's class `qualname` (of `module`) finds along its MRO for `method`, if it is one. */
  baselineMethod?(module: string, qualname: string, method: string): FunctionInfo | undefined;
  /** The baseline's `module.name` is a def or class, and the target defines it, uniquely, in this other module. */
  movedName(module: string, name: string): string | undefined;
  /** The class of the baseline's MRO of class `qualname` (of `module`) that defines, assigns or declares `attr` (with `classLevel`: defines it in its body), by name. */
  baselineClassHas?(module: string, qualname: string, attr: string, classLevel?: boolean): string | undefined;
  /** The baseline has class `qualname` of `module`, with its MRO worked out. */
  baselineHasClass?(module: string, qualname: string): boolean;
  /** The baseline's `module.name` is a def or class (through the names a lazily loading package declares for type checkers too). */
  baselineDefines?(module: string, name: string): boolean;
  /** The target's own code sets an attribute of this name on objects from outside their class (see `patchedNames`). */
  targetPatches?(attr: string, on?: { cls: ClassInfo; summary: ModuleSummary }): boolean;
}

/** A method of a user class that overrides a target class's method. */
export interface OverrideInfo {
  /** The method's name in the user's class. */
  range: Range;
  method: string;
  /** The overridden method, dotted. */
  base: string;
  params: Param[];
  /** The override's own parameters (to tell whether it already fits a changed signature). */
  own?: Param[];
  definition: SourceLocation | null;
  /** With a baseline: the baseline's class of the overridden method is known, and neither it nor its bases had the method (it is new in the target). */
  newInTarget?: boolean;
  /**
   * Not an override: `done` marks a user class (at `range`, its name) whose abstract methods were
   * looked for, `missing` an abstract method of the target that nothing along its MRO implements.
   */
  abstract?: 'done' | 'missing';
  /** Not an override in this version: no class after the user's along its MRO (every one of them seen) defines the method (`base` is empty). */
  overridesNothing?: boolean;
  /** With `overridesNothing`: the one method new in a target class of the MRO with the same parameters, by name (`Model.embed_input_ids`). */
  renamedTo?: string;
  /** Not a method of a class of the user's: a function put in the class's place of the method (`C.m = f`). */
  patch?: boolean;
  /**
   * With a baseline, for a base method whose signature changed (or that is new): every call of
   * the method the target makes by name either never runs on this class's instances or binds to
   * this override as it stands (see `LibrarySites`). Why, in words.
   */
  unreached?: string;
  /**
   * With `unreached`: target methods that reach the override only when called on its instances;
   * `unreached` holds only while the user's file calls none of them (asked of the file's whole text
   * when the findings are explained).
   */
  unlessCalled?: string[];
}

export interface CheckResult {
  findings: Finding[];
  calls: CallInfo[];
  callsChecked: number;
  callsUnknown: number;
  /** Calls whose receiver comes from the target but whose class could not be followed. */
  callsUntraced: number;
  overrides: OverrideInfo[];
  /** Parts of the file left unchecked, and why. */
  skipped: string[];
  /** Units (top-level statements, class headers and class body statements) whose results were taken over from the previous check of the file. */
  reused?: number;
  timing?: CheckTiming;
}

/**
 * Attribute names a text sets on objects other than `self` and `cls` (`Scheduler.step = step`,
 * `setattr(obj, "step", f)`): a method a class lacks may be given to it so (a compatibility patch).
 * Each is also given as `Owner.name`, with the last name of what it is set on.
 */
export function patchedNames(text: string, byLine?: Map<string, string[]>): string[] {
  const out = new Set<string>();
  // an assignment's target is on one line: with `byLine`, each line is read once (a keystroke changes one or two)
  for (const line of text.split('\n')) if (line.includes('=')) for (const n of patchedOnLine(line, byLine)) out.add(n);
  for (const n of setattrNames(text)) out.add(n);
  return [...out].sort();
}

/**
 * Attribute names a text sets by `setattr(obj, "name", ...)`; where `obj` is a dotted name, also
 * as `Owner.name` with its last name (as `patchedNames` gives `Owner.name =`).
 */
export function setattrNames(text: string): string[] {
  if (!text.includes('setattr')) return [];
  const out: string[] = [];
  for (const m of text.matchAll(/\bsetattr\s*\(\s*([^,()]+?)\s*,\s*["']([A-Za-z_]\w*)["']/g)) {
    out.push(m[2]);
    if (/^[A-Za-z_][\w.]*$/.test(m[1]) && !/^(self|cls)$/.test(m[1])) out.push(`${m[1].slice(m[1].lastIndexOf('.') + 1)}.${m[2]}`);
  }
  return out;
}

/**
 * Where a text sets an attribute from outside on something the engine may place: `self.x.name =`
 * (what `self.x` holds is known from the class around it) or `p.a.name =` (from the annotation of
 * a parameter `p` of the function around it). By row and column of the root name, the root, the
 * chain of attributes after it and the attribute set.
 */
export function ownedPatches(text: string): Array<{ row: number; column: number; root: string; chain: string[]; attr: string }> {
  const out: Array<{ row: number; column: number; root: string; chain: string[]; attr: string }> = [];
  const lines = text.split('\n');
  for (let row = 0; row < lines.length; row++) {
    const line = lines[row];
    if (!line.includes('=')) continue;
    for (const m of line.matchAll(/(?<![\w.])([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)*)\.([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)/g)) {
      const chain = m[2] ? m[2].slice(1).split('.') : [];
      // `self.x = ...` sets the class's own attribute: no patch
      if (chain.length === 0 && /^(self|cls)$/.test(m[1])) continue;
      out.push({ row, column: m.index!, root: m[1], chain, attr: m[3] });
    }
  }
  return out;
}

/** What `patchedNames` found on the lines of recently checked files. */
const patchedLines = new Map<string, string[]>();
const PATCHED_LINES_KEPT = 20_000;

function patchedOnLine(line: string, byLine?: Map<string, string[]>): string[] {
  let names = byLine?.get(line);
  if (names === undefined) {
    names = [];
    // each name alone, and with the last name of what it is set on (`Layer.__init__`)
    for (const m of line.matchAll(/(?<![\w.])([A-Za-z_][\w.]*)\.([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)/g)) if (!/^(self|cls)$/.test(m[1])) names.push(m[2], `${m[1].slice(m[1].lastIndexOf('.') + 1)}.${m[2]}`);
    if (byLine) {
      if (byLine.size >= PATCHED_LINES_KEPT) byLine.clear();
      // kept across checks: a line cut from a file's text must not keep that version of the text
      // (each keystroke makes a new line, see ownStrings.ts)
      names = names.map(ownString);
      byLine.set(ownString(line), names);
    }
  }
  return names;
}

/**
 * `a` and `b` lie in different branches of one `if` statement inside `fn` (its body, an `elif`,
 * its `else`), with no loop around that statement in `fn`: one run of `fn` takes only one of them.
 */
function otherBranch(a: Node, b: Node, fn: Node): boolean {
  const inside = (n: Node, outer: Node): boolean => n.startIndex >= outer.startIndex && n.endIndex <= outer.endIndex;
  let common: Node | null = a.parent;
  // the innermost statement around both
  while (common && common.id !== fn.id && !inside(b, common)) common = common.parent;
  if (!common || common.id === fn.id || common.type !== 'if_statement') return false;
  const branches = common.namedChildren.filter((c): c is Node => !!c && (c.type === 'block' || c.type === 'elif_clause' || c.type === 'else_clause'));
  const ia = branches.findIndex((c) => inside(a, c));
  const ib = branches.findIndex((c) => inside(b, c));
  if (ia < 0 || ib < 0 || ia === ib) return false;
  for (let q = common.parent; q && q.id !== fn.id; q = q.parent) if (q.type === 'for_statement' || q.type === 'while_statement') return false;
  return true;
}

/** Node types that hold targets of an assignment, a loop or `with ... as` inside them. */
const TARGET_HOLDERS = new Set(['pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'parenthesized_expression', 'list_splat_pattern', 'as_pattern_target', 'expression_list']);

/** An attribute written, not read: a target of an assignment, a `for` loop or comprehension, or `with ... as`. */
function isStoreTarget(node: Node): boolean {
  let n = node;
  while (n.parent && TARGET_HOLDERS.has(n.parent.type)) {
    if (n.parent.type === 'as_pattern_target') return true;
    n = n.parent;
  }
  const p = n.parent;
  if (!p) return false;
  if (p.type === 'assignment' || p.type === 'augmented_assignment' || p.type === 'for_statement' || p.type === 'for_in_clause') return p.childForFieldName('left')?.id === n.id;
  return p.type === 'delete_statement';
}

export class CancelledError extends Error {
  constructor() {
    super('check cancelled');
  }
}

type LocalBinding =
  | Binding
  /** `name = value`, or `name: annotation = value` (the annotation is left out on a line marked `# type: ignore`) */
  | { kind: 'assigned'; value: Node; annotation?: string }
  /** A parameter: its annotation's text, and whether it is the first one of its function. */
  | { kind: 'param'; annotation?: string; first: boolean }
  /** `with value as name` */
  | { kind: 'with'; value: Node }
  /** `class name(...):` in the function's body */
  | { kind: 'localClass'; node: Node }
  /**
   * `for name in iter`; `how` says which element of `iter` (`values`: of a mapping; otherwise what
   * iterating it gives), `via` the builtin whose call unpacks it (`for i, x in enumerate(xs)`, `for
   * a, b in zip(xs, ys)`), which must be that builtin where the loop runs
   */
  | { kind: 'for'; iter: Node; how?: 'iter' | 'values' | 'keys'; via?: string };

interface Scope {
  kind: 'module' | 'function' | 'class';
  node: Node;
  parent?: Scope;
  /** function scopes: local names and what binds them (imports, `x = value`, or null for anything else) */
  locals: Map<string, Array<LocalBinding | null>>;
  globals: Set<string>;
  /** class scopes: the summarised class when it is a module-level class */
  cls?: ClassInfo;
  /** a comprehension's own scope (its `for` targets): a function scope that is no def */
  comprehension?: boolean;
}

export { suppressed } from './suppress';

function rangeOf(n: Node): Range {
  return { start: { line: n.startPosition.row, character: n.startPosition.column }, end: { line: n.endPosition.row, character: n.endPosition.column } };
}

/** Deeper than this, a tree is not walked (CPython rejects far shallower nesting). */
const MAX_VISIT_DEPTH = 1500;

const HANDLES_IMPORT_ERROR = /^(ImportError|ModuleNotFoundError|Exception|BaseException)$/;
const HANDLES_ATTRIBUTE_ERROR = /^(AttributeError|Exception|BaseException)$/;

/** The last names of the errors an except clause catches (`except (a.B, C) as e:` gives B, C); undefined for a bare `except:`. */
function caughtNames(clause: Node): string[] | undefined {
  const caught = clause.namedChildren.filter((x) => x && x.type !== 'block' && x.type !== 'comment');
  if (caught.length === 0) return undefined;
  return caught.flatMap((x) => x!.text.replace(/\bas\s+\w+$/, '').replace(/[()\s]/g, '').split(',')).map((x) => x.split('.').pop() ?? '');
}

/** The innermost `try` body that contains `n` catches one of the errors matched by `re`. */
function guardedBy(n: Node, re: RegExp): boolean {
  for (let p: Node | null = n.parent, child: Node = n; p; child = p, p = p.parent) {
    if (p.type === 'try_statement' && p.childForFieldName('body')?.id === child.id) {
      for (const c of p.namedChildren) {
        if (!c || (c.type !== 'except_clause' && c.type !== 'except_group_clause')) continue;
        const names = caughtNames(c);
        if (!names || names.some((x) => re.test(x))) return true;
      }
    }
    // a test that expects the body to fail: `with pytest.raises(E):`, `with self.assertRaises(E):`
    if (p.type === 'with_statement' && p.childForFieldName('body')?.id === child.id) {
      const items = p.namedChildren.find((c) => c?.type === 'with_clause')?.text ?? '';
      const m = /\b(?:raises|assertRaises|assertRaisesRegex)\s*\(\s*(\([^()]*\)|[\w.]+)/.exec(items);
      if (m && expects(m[1], re)) return true;
    }
    if ((p.type === 'if_statement' || p.type === 'elif_clause' || p.type === 'conditional_expression') && /\bhasattr\s*\(|\bgetattr\s*\(/.test(p.childForFieldName('condition')?.text ?? p.text.split('\n')[0])) {
      if (re === HANDLES_ATTRIBUTE_ERROR) return true;
    }
    // the callable form: `raises(E, lambda: f(...))`, `self.assertRaises(E, lambda: ...)`
    if (p.type === 'lambda' && p.childForFieldName('body')?.id === child.id && p.parent?.type === 'argument_list' && p.parent.parent?.type === 'call') {
      const call = p.parent.parent;
      const fn = call.childForFieldName('function')?.text ?? '';
      const first = p.parent.namedChildren.find((c) => c && c.type !== 'comment');
      if (/(?:^|\.)(?:raises|assertRaises|assertRaisesRegex)$/.test(fn) && first && first.id !== p.id && expects(first.text, re)) return true;
    }
    if (p.type === 'function_definition') return expectedToFail(p, re); // guards do not cross function definitions
  }
  return false;
}

/** The errors a `raises(...)` names (`E`, `(E, F)`, `m.E`) include one that `re` stands for. */
function expects(errors: string, re: RegExp): boolean {
  const expected = re === HANDLES_TYPE_ERROR ? EXPECTS_BINDING_ERROR : re;
  return errors.replace(/[()\s]/g, '').split(',').some((x) => expected.test(x.split('.').pop() ?? ''));
}

/**
 * A test function marked to fail (`@pytest.mark.xfail`, `@unittest.expectedFailure`, a runner's
 * own `@XFAIL`): its failure is what it expects, unless the mark names the errors it expects
 * (`raises=ValueError`) and `re` stands for none of them.
 */
function expectedToFail(def: Node, re: RegExp): boolean {
  const decorated = def.parent?.type === 'decorated_definition' ? def.parent : undefined;
  if (!decorated) return false;
  for (const d of decorated.namedChildren) {
    if (d?.type !== 'decorator') continue;
    let text = d.text.replace(/^@\s*/, '');
    // a mark bound to a name first (`unhashable = pytest.mark.xfail(reason=...)`, then `@unhashable`)
    if (/^[A-Za-z_]\w*$/.test(text)) {
      const alias = new RegExp(`^[ \\t]*${text}[ \\t]*=[ \\t]*([\\w.]+(?:\\(.*)?)$`, 'm').exec(def.tree.rootNode.text);
      if (alias) text = alias[1];
    }
    const head = /^[\w.]+/.exec(text)?.[0] ?? '';
    if (!/(?:^|\.)(?:xfail|XFAIL|expectedFailure)$/.test(head)) continue;
    const raises = /\braises\s*=\s*(\([^()]*\)|[\w.]+)/.exec(text.slice(head.length));
    if (!raises || expects(raises[1], re)) return true;
  }
  return false;
}

/** The text of an annotation node as one line (see `annotationText`). */
function annotationOrNone(n: Node | null): string | undefined {
  return n ? annotationText(n.text) : undefined;
}

/** How many arguments come first by position, before any keyword or star. */
function leadingPositional(args: CallArg[]): number {
  const at = args.findIndex((a) => a.kind !== 'positional');
  return at < 0 ? args.length : at;
}

/**
 * The code around `n` tests for attribute `attr`: `hasattr(x, "attr")` or `getattr(x, "attr",
 * ...)`, in any form (`hasattr(x, "a") and x.a`, `if not hasattr(x, "a"): return` above). It
 * knows the attribute may be missing. The test counts where it comes before `n` in the function
 * that holds `n` (or the module), or anywhere in the class that holds that function: another
 * method may call this one only where its test found the attribute.
 */
function attributeTested(n: Node, attr: string): boolean {
  const test = new RegExp(`\\b(?:hasattr|getattr)\\s*\\([^()]*,\\s*(['"])${attr}\\1`);
  let scope: Node = n;
  while (scope.parent && scope.type !== 'function_definition') scope = scope.parent;
  const lines = scope.text.split('\n').slice(0, n.startPosition.row - scope.startPosition.row + 1).join('\n');
  if (test.test(lines)) return true;
  for (let p = scope.parent; p; p = p.parent) if (p.type === 'class_definition') return test.test(p.text);
  return false;
}

/** Bases that give a class no methods of public names: a method absent from the rest of the MRO is absent. */
const QUIET_BASES = new Set(['object', 'abc.ABC', 'typing.Generic']);

/** What a call that does not bind raises: TypeError, or a pydantic ValidationError (a ValueError) for a model. */
const HANDLES_TYPE_ERROR = /^(TypeError|ValidationError)$/;

/** A call of a callable made by a function it is handed to (see `forwardedCall`). */
interface Forward {
  /** the callable's node */
  fn: Node;
  /** the arguments before the ones passed on (the callable's is the last of them) */
  skip: number;
  /** keywords are passed on too */
  keywords: boolean;
  /** `functools.partial(f, ...)`: more arguments may come when it is called, so none is missing yet */
  partial: boolean;
  /** the arguments, where they are not the call's own (`Thread(target=f, args=(...))`; no fix edits them) */
  args?: { args: CallArg[]; nodes: Node[] };
}

/** Classes whose instances call `target` with `args` and `kwargs` when they run. */
const TARGET_RUNNERS = new Set(['threading.Thread', 'multiprocessing.Process', 'multiprocessing.context.Process', 'multiprocessing.process.BaseProcess']);

/**
 * Functions that call their first argument with the rest: `asyncio.to_thread(func, /, *args,
 * **kwargs)`; `functools.partial(func, /, *args, **keywords)` when what it makes is called.
 */
const FORWARDERS = new Set(['asyncio.to_thread', 'asyncio.threads.to_thread', 'functools.partial']);
/** What gives an asyncio event loop, whose `run_in_executor(executor, func, *args)` calls `func(*args)`. */
const LOOP_GETTERS = new Set(['asyncio.get_running_loop', 'asyncio.get_event_loop', 'asyncio.new_event_loop', 'asyncio.events.get_running_loop', 'asyncio.events.get_event_loop', 'asyncio.events.new_event_loop']);
/** `concurrent.futures` executors, whose `submit(fn, /, *args, **kwargs)` calls `fn(*args, **kwargs)`. */
const EXECUTORS = new Set([
  'concurrent.futures.ThreadPoolExecutor',
  'concurrent.futures.ProcessPoolExecutor',
  'concurrent.futures.thread.ThreadPoolExecutor',
  'concurrent.futures.process.ProcessPoolExecutor',
]);

/** Words without which no condition of a file tests a signature (see `SIGNATURE_TEST`). */
const SIGNATURE_WORDS = /\b(signature|getfullargspec|getargspec|co_varnames|__dataclass_fields__|model_fields|__fields__)\b|\bfields\s*\(/;

/**
 * A condition that reads a signature, or the fields a class's constructor takes:
 * `inspect.signature(f).parameters`, `getfullargspec(f).args`, `f.__code__.co_varnames`,
 * `C.__dataclass_fields__`, `dataclasses.fields(C)`, `C.model_fields`.
 */
const SIGNATURE_TEST = /\b(signature|getfullargspec|getargspec|fields)\s*\(|\bco_varnames\b|\b__dataclass_fields__\b|\bmodel_fields\b|\.__fields__\b/;
/** A test that expects one of these from its body expects a call there not to bind. */
const EXPECTS_BINDING_ERROR = /^(TypeError|ValidationError|ValueError|Exception|BaseException)$/;
const HANDLES_VALUE_ERROR = /^(ValueError|Exception|BaseException)$/;

/** An annotation written over several lines, on one: `tuple[\n    A,\n    B,\n]` as `tuple[A, B]`. */
function oneLine(annotation: string): string {
  return annotation.replace(/\s+/g, ' ').replace(/([[(]) /g, '$1').replace(/,? ([\])])/g, '$1');
}

/** The number of elements of a fixed-length tuple annotation (`tuple[A, B]`, `Tuple[A, B]`); undefined for any other. */
export function fixedTupleLength(annotation: string): number | undefined {
  const m = /^(?:typing\.)?(?:tuple|Tuple)\[(.*)\]$/s.exec(annotation.trim());
  if (!m) return undefined;
  const inner = m[1].trim();
  if (inner === '()') return 0;
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i++) {
    const c = inner[i];
    if (c === '[' || c === '(' || c === '{') depth++;
    else if (c === ']' || c === ')' || c === '}') depth--;
    else if (c === '"' || c === "'") return undefined; // a string annotation inside: not read
    else if (c === ',' && depth === 0) {
      parts.push(inner.slice(start, i).trim());
      start = i + 1;
    }
  }
  parts.push(inner.slice(start).trim());
  if (parts[parts.length - 1] === '') parts.pop(); // `tuple[int,]`
  if (parts.length === 0 || parts.some((x) => x === '' || x === '...')) return undefined;
  return parts.length;
}

/** Names that speak of a version: `__version__`, `version_info`, `vllm_version_is`, `Version(...)`. */
const MENTIONS_VERSION = /version/i;

/** A value that compares versions: `version.parse(v) >= version.parse("0.11.2")`, `vllm_version_is("0.16")`, `is_available(min_version="0.22")`. */
const VERSION_COMPARED = /^(?=.*version)(?:.*(?:[<>!=]=|[<>])|.*\b(?:is|has)_\w*\(|.*\w*version_is\w*\(|.*\w_(?:ge|gt|le|lt|eq|at_least|or_newer|or_older)\w*\()/i;

/**
 * Names the file uses as version flags, sorted: each assignment of the name gives it a comparison
 * of versions or a plain True, False or None, and one at least a comparison (`is_new_api =
 * version.parse(v) >= ...`; `needs_patch = v == version.parse("0.7.3")` with `needs_patch =
 * False` in an except).
 */
export function versionFlagsOf(text: string): string[] {
  // the target's check and the baseline's read the same text, and so do the conditions of one check
  if (text === flagsMemo.text) return flagsMemo.flags;
  const values = new Map<string, string[]>();
  for (const m of text.matchAll(/^[ \t]*(?:self\.)?([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)(.*)$/gm)) {
    const list = values.get(m[1]);
    if (list) list.push(m[2]);
    else values.set(m[1], [m[2]]);
  }
  const out: string[] = [];
  for (const [name, rhs] of values) {
    const compared = rhs.filter((v) => VERSION_COMPARED.test(v));
    if (compared.length > 0 && rhs.every((v) => VERSION_COMPARED.test(v) || /^\s*(True|False|None)\s*(#.*)?$/.test(v))) out.push(name);
  }
  flagsMemo.text = text;
  flagsMemo.flags = out.sort();
  return flagsMemo.flags;
}

/** The last text `versionFlagsOf` read, and its answer. */
const flagsMemo: { text: string; flags: string[] } = { text: '', flags: [] };

/** The last text `versionChosen` read, and its answer: the same text gives the same tree and summary. */
const chosenMemo: { text: string; chosen: string[] } = { text: '', chosen: [] };

/** Per parsed tree: the names of `versionFlagsOf` its text. */
const versionFlags = new WeakMap<object, Set<string>>();

/**
 * A condition that tests a version: it names one (`vllm_version_is("0.16.0")`, `torch.__version__
 * >= "2"`), or it reads a name the file assigns from one (`is_new_api = version.parse(v) >= ...`,
 * then `if is_new_api:`).
 */
function testsVersion(cond: Node): boolean {
  const text = cond.text;
  // a name that speaks of a version (`vllm.__version__`, `version.parse`, `is_new_version`); the
  // word inside a string is data (`command == "version"`, `hasattr(args, "version")`)
  if (MENTIONS_VERSION.test(text) && MENTIONS_VERSION.test(withoutStrings(text))) return true;
  const names = text.match(/[A-Za-z_]\w*/g);
  if (!names) return false;
  let flags = versionFlags.get(cond.tree);
  if (!flags) versionFlags.set(cond.tree, (flags = new Set(versionFlagsOf(cond.tree.rootNode.text))));
  return names.some((name) => flags.has(name));
}

/** A condition's text with the contents of its string literals left out. */
function withoutStrings(text: string): string {
  return text.replace(/(["'])(?:\\.|(?!\1)[^\\\n])*\1/g, '""');
}

/**
 * A condition that compares versions, for an early return: a version flag (negated or not), or a
 * comparison of versions. A name that merely speaks of one (`if self.metrics_for_version is
 * None: return`) is not enough here.
 */
function comparesVersion(cond: Node): boolean {
  const text = cond.text.replace(/^\(?\s*not\s+/, '').replace(/^\((.*)\)$/s, '$1').trim();
  if (/^[A-Za-z_]\w*$/.test(text) || /^self\.[A-Za-z_]\w*$/.test(text)) return testsVersion(cond);
  return VERSION_COMPARED.test(text.replace(/\s+/g, ' '));
}

/** Scopes an isinstance test does not reach across (see `FileCheck.narrowed`). */
const NARROWING_STOPS = new Set(['function_definition', 'class_definition', 'lambda', 'list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);

/**
 * `isinstance(name, C)` (with `negated`: `not isinstance(name, C)`), `C` a name or a dotted name
 * (one class, not a tuple): `C` as written; undefined for any other condition.
 */
function isinstanceOf(cond: Node | null | undefined, name: string, negated: boolean): string | undefined {
  while (cond?.type === 'parenthesized_expression') cond = cond.namedChildren.find((c) => c && c.type !== 'comment');
  if (negated) {
    if (cond?.type !== 'not_operator') return undefined;
    return isinstanceOf(cond.childForFieldName('argument'), name, false);
  }
  if (cond?.type !== 'call' || cond.childForFieldName('function')?.text !== 'isinstance') return undefined;
  const args = cond.childForFieldName('arguments')?.namedChildren.filter((c) => c && c.type !== 'comment') ?? [];
  if (args.length !== 2 || args[0]!.type !== 'identifier' || args[0]!.text !== name) return undefined;
  const cls = args[1]!;
  return cls.type === 'identifier' || (cls.type === 'attribute' && /^[A-Za-z_][\w.]*$/.test(cls.text)) ? cls.text : undefined;
}

/**
 * Whether a statement may bind `name`: an assignment (of it, or of a tuple or list that holds
 * it), a loop, `with` or `except` target, a walrus, `del`, an import, a def or class, `global`.
 * Read from its text, erring towards yes (a keyword argument of that name counts too).
 */
function bindsName(st: Node, name: string): boolean {
  if (st.type === 'expression_statement' || st.type === 'assert_statement' || st.type === 'return_statement' || st.type === 'raise_statement') {
    // a call or a test that only reads it: no target, no walrus
    const e = st.namedChildren.find((c) => c && c.type !== 'comment');
    if (e && e.type !== 'assignment' && e.type !== 'augmented_assignment' && !st.text.includes(':=')) return false;
  }
  return bindsInText(st.text, name);
}

/** Whether code may bind `name` (see `bindsName`), from its text alone. */
function bindsInText(text: string, name: string): boolean {
  const x = `(?<![\\w.])${name}(?!\\w)`;
  if (!new RegExp(x).test(text)) return false;
  if (text.includes(':=')) return true;
  return new RegExp(
    [
      `${x}\\s*(?:[-+*/%&|^@]|//|\\*\\*|<<|>>)?=(?!=)`, // x = / x += / f(x=...)
      `${x}\\s*[,)\\]][^=\\n]*[^=!<>]=(?!=)`, // x, y = ... / (x, y) = ...
      `\\bas\\s*\\(?[^:\\n]*${x}`, // with ... as x / except E as x
      `\\bfor\\b[^\\n]*${x}[^\\n]*\\bin\\b`, // for x in / for a, x in
      `\\b(?:del|import|global|nonlocal)\\b[^\\n]*${x}`,
      `\\b(?:def|class)\\s+${name}\\b`,
      `(?:^|\\n)[ \\t]*type[ \\t]+${name}\\b`, // type X = ... (3.12)
      `(?:^|\\n)[ \\t]*case\\b[^\\n]*${x}`, // case x: / case [x, *_]: / case C(a=x):
    ].join('|'),
  ).test(text);
}

/**
 * `fn` binds `name` by one import statement and in no other way its text shows (nested functions,
 * classes and lambdas included).
 */
function importedOnce(fn: Node, name: string): boolean {
  const x = `(?<![\\w.])${name}(?!\\w)`;
  const text = fn.text;
  // the import binds it once: what binds it besides must not be in the text (imports aside)
  const others = text
    .split('\n')
    .filter((l) => !/^\s*(from\s+\S+\s+)?import\b/.test(l))
    .join('\n');
  if (bindsInText(others, name)) return false;
  return (text.match(new RegExp(`\\bimport\\b[^\\n]*${x}`, 'g')) ?? []).length === 1;
}

/** `e` with the names in `imported` replaced by what their imports bind. */
function withImported(e: Expr, imported: ReadonlyMap<string, Expr>): Expr {
  switch (e.kind) {
    case 'name':
      return imported.get(e.name) ?? e;
    case 'attr':
      return { ...e, base: withImported(e.base, imported) };
    case 'subscript':
      return { ...e, base: withImported(e.base, imported) };
    case 'call':
      return { ...e, callee: withImported(e.callee, imported), args: e.args.map((a) => ({ ...a, value: withImported(a.value, imported) })) };
    case 'cond':
      return { ...e, alts: e.alts.map((a) => withImported(a, imported)) };
    default:
      return e;
  }
}

/**
 * The value of a name that function `fn` binds exactly once, by a plain assignment of its own
 * (`is_new = Version(vllm.__version__) >= Version("0.12")`), neither a parameter nor declared
 * global or nonlocal, and bound by nothing else in it (nested functions, classes and lambdas
 * included: a text that may bind it twice is left alone); else undefined.
 */
function localValueOf(fn: Node, name: string): Node | undefined {
  const x = `(?<![\\w.])${name}(?!\\w)`;
  if (new RegExp(`\\b${name}\\b`).test(fn.childForFieldName('parameters')?.text ?? '')) return undefined;
  const text = fn.text;
  const plain = [...text.matchAll(new RegExp(`${x}[ \\t]*(?::[^=\\n]*)?=(?!=)`, 'g'))];
  if (plain.length !== 1) return undefined;
  const at = plain[0].index!;
  // nothing else in the text binds it (the assignment's line left out)
  const from = text.lastIndexOf('\n', at) + 1;
  const to = text.indexOf('\n', at);
  if (bindsInText(text.slice(0, from) + (to < 0 ? '' : text.slice(to)), name)) return undefined;
  const ident = fn.descendantForIndex(fn.startIndex + at);
  const a = ident?.parent;
  if (ident?.type !== 'identifier' || ident.text !== name || a?.type !== 'assignment' || a.childForFieldName('left')?.id !== ident.id || a.parent?.type !== 'expression_statement') return undefined;
  for (let p: Node | null = a.parent; p && p.id !== fn.id; p = p.parent) if (p.type === 'function_definition' || p.type === 'class_definition' || p.type === 'lambda') return undefined;
  return a.childForFieldName('right') ?? undefined;
}

/** Statements that leave a function. */
const FUNCTION_EXITS = new Set(['return_statement', 'raise_statement']);
/** Statements that leave the rest of a block: a function's, or a loop body's (`continue`, `break`). */
const BLOCK_EXITS = new Set([...FUNCTION_EXITS, 'continue_statement', 'break_statement']);

/** `if <test>: return` (or raise; with `exits`, any of those), with no other branch: the code after it runs only where the test failed. Its test. */
function earlyExit(st: Node | null, exits: ReadonlySet<string> = FUNCTION_EXITS): Node | undefined {
  if (st?.type !== 'if_statement' || st.namedChildren.some((c) => c?.type === 'elif_clause' || c?.type === 'else_clause')) return undefined;
  const body = st.childForFieldName('consequence');
  const last = body?.namedChildren.filter((c) => c && c.type !== 'comment').at(-1);
  return last && exits.has(last.type) ? st.childForFieldName('condition') ?? undefined : undefined;
}

/**
 * `n` runs in a branch chosen by a version test (`if vllm_version_is("0.16.0"):`, `if
 * torch.__version__ >= "2":`, `if sys.version_info >= (3, 12):`, `a if ... version ... else b`,
 * `if is_new_api:` where `is_new_api` was assigned from a version), or after a function returned
 * early on one (`if not needs_patch: return`): such code is written for one version only, the
 * installed one or another, and which branch runs on the target cannot be told from its source
 * unless the target says its version (see `versionState`). A branch of an if/elif chain is
 * version-tested when any condition of the chain is; the test reaches into functions and classes
 * defined there.
 *
 * Whether `n` runs under such tests: `runs` when none is above it, or
 * each one above it holds on the target as `decide` says (the branch it is in is the one taken);
 * `dead` when one decides against it; `tested` when one is left undecided.
 */
function versionState(n: Node, decide?: (cond: Node) => boolean | undefined): 'runs' | 'dead' | 'tested' {
  // where the early exits on a version test of a function body are, asked for each call below
  // them: remembered per tree
  let exits = earlyExits.get(n.tree);
  if (!exits) earlyExits.set(n.tree, (exits = new Map()));
  let dead = false;
  for (let p: Node | null = n.parent, child: Node = n; p; child = p, p = p.parent) {
    if (p.type === 'if_statement') {
      const cond = p.childForFieldName('condition');
      if (!cond || cond.id === child.id) continue;
      const elifs = p.namedChildren.filter((c) => c?.type === 'elif_clause');
      const tests = [cond, ...elifs.map((c) => c!.childForFieldName('condition'))];
      if (!tests.some((t) => t && testsVersion(t))) continue;
      // the branch `child` is: the `if` block (0), an elif (1..), or the else (all tests failed)
      const at = child.type === 'elif_clause' ? 1 + elifs.findIndex((c) => c!.id === child.id) : child.type === 'else_clause' ? tests.length : 0;
      const taken = decide ? branchTaken(tests, at, decide) : undefined;
      if (taken === undefined) return 'tested';
      if (!taken) dead = true;
    } else if (p.type === 'conditional_expression') {
      const parts = p.namedChildren.filter((c) => c && c.type !== 'comment');
      const cond = parts[1];
      if (!cond || cond.id === child.id || !testsVersion(cond)) continue;
      const holds = decide?.(cond);
      if (holds === undefined) return 'tested';
      if (holds !== (parts[0]?.id === child.id)) dead = true;
    } else if (p.type === 'block' && p.parent?.type === 'function_definition') {
      // the statements of a function body before this one: an early return on a version test
      let list = exits.get(p.id);
      if (list === undefined) {
        list = [];
        for (const st of p.namedChildren) {
          const cond = st && earlyExit(st);
          if (cond && comparesVersion(cond)) list.push({ at: st!.startIndex, cond });
        }
        exits.set(p.id, list);
      }
      for (const e of list) {
        if (e.at >= child.startIndex) break;
        const fires = decide?.(e.cond);
        if (fires === undefined) return 'tested';
        if (fires) dead = true;
      }
    }
  }
  return dead ? 'dead' : 'runs';
}

/** Whether branch `at` of an if/elif chain with conditions `tests` (`at` = tests.length: the else) is the one taken, as far as `decide` tells. */
function branchTaken(tests: Array<Node | null>, at: number, decide: (cond: Node) => boolean | undefined): boolean | undefined {
  for (let i = 0; i < at; i++) {
    const t = tests[i];
    const v = t ? decide(t) : undefined;
    if (v === undefined) return undefined;
    if (v) return false; // an earlier branch is taken
  }
  if (at >= tests.length) return true;
  const t = tests[at];
  return t ? decide(t) : undefined;
}

/** Per parsed tree: the early exits on a version test of each function body (by node id), in order (see `versionState`). */
const earlyExits = new WeakMap<object, Map<number, Array<{ at: number; cond: Node }>>>();

/**
 * `n` (an attribute of `object`) is read in the handler of `try: ... except AttributeError:` whose
 * block reads an attribute of the same object: the handler is the fallback for a version where
 * that read fails (`try: f = pp.common.f` / `except AttributeError: f = pp.f`).
 */
function inAttributeFallback(n: Node, object: string): boolean {
  for (let p: Node | null = n.parent; p; p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'class_definition') return false;
    if ((p.type !== 'except_clause' && p.type !== 'except_group_clause') || p.parent?.type !== 'try_statement') continue;
    if (!caughtNames(p)?.includes('AttributeError')) continue;
    const body = p.parent.childForFieldName('body')?.text ?? '';
    if (new RegExp(`(?<![\\w.])${object.replace(/\./g, '\\.')}\\.\\w`).test(body)) return true;
  }
  return false;
}

/**
 * `n` runs in the handler of a `try` that catches ImportError (`try: from new.place import f`
 * / `except ImportError: from old.place import f`): a fallback for another version, reached only
 * when the code above it failed to import.
 */
function inImportFallback(n: Node): boolean {
  for (let p: Node | null = n.parent; p; p = p.parent) {
    if ((p.type !== 'except_clause' && p.type !== 'except_group_clause') || p.parent?.type !== 'try_statement') continue;
    if (caughtNames(p)?.some((x) => /^(ImportError|ModuleNotFoundError)$/.test(x))) return true;
  }
  return false;
}

/**
 * The callees that the handler `clause` may call again as a fallback: it catches a TypeError (or
 * any exception), and its `try` block is short and calls them in its own simple statements
 * (`try: f(new=1)` / `except TypeError: f()`, where the first call does not bind on some
 * version). A longer block may fail for other reasons: its handler is error handling.
 */
function retryCallees(clause: Node): Set<string> | undefined {
  if (clause.parent?.type !== 'try_statement') return undefined;
  const names = caughtNames(clause);
  const typeError = !!names?.includes('TypeError');
  if (!typeError && names && !names.some((x) => /^(Exception|BaseException)$/.test(x))) return undefined;
  const block = clause.parent.childForFieldName('body')?.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment') ?? [];
  if (block.length > (typeError ? 3 : 1)) return undefined;
  const out = new Set<string>();
  for (const st of block) {
    if (st.type !== 'expression_statement' && st.type !== 'return_statement') continue;
    for (const c of st.descendantsOfType('call')) {
      const f = c?.childForFieldName('function')?.text;
      if (f) out.add(f);
    }
  }
  return out.size > 0 ? out : undefined;
}

/**
 * Code written for one version only: under a version test, or an ImportError fallback. With
 * `decide` (what the target's version makes of a version test, see `decideVersionTest`), a branch
 * the target's version takes is ordinary code, and one it does not take never runs.
 */
export function otherVersionCode(n: Node, decide?: (cond: Node) => boolean | undefined): string | undefined {
  const state = versionState(n, decide);
  if (state === 'dead') return "it runs only on other versions: a version test above it fails on the target's version";
  if (state === 'tested') return 'it runs under a version test: which branch runs depends on the version installed';
  if (inImportFallback(n)) return 'it runs in an except ImportError handler: a fallback for another version';
  return undefined;
}

/** The import sits under an `if` that tests whether the module is available. */
function availabilityTested(n: Node, module: string): boolean {
  for (let p: Node | null = n.parent; p; p = p.parent) {
    if (p.type === 'if_statement' || p.type === 'elif_clause') {
      const cond = p.childForFieldName('condition')?.text ?? '';
      if (cond.includes(`"${module}"`) || cond.includes(`'${module}'`) || /find_spec|find_loader|is_available|_has_module/.test(cond)) return true;
    }
    if (p.type === 'function_definition') break;
  }
  return false;
}

/**
 * The names (`flag`) that the `if` and `elif` statements around `n` test, where `n` runs only if
 * the flag is true: in the branch of `if flag:` (or `if flag and ...:`), or in the `else` of `if
 * not flag:`. A function or class boundary ends the search.
 */
function flagGuarding(n: Node): string[] {
  const flags: string[] = [];
  for (let c: Node = n, p = n.parent; p; c = p, p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'class_definition') break;
    if (p.type !== 'if_statement' && p.type !== 'elif_clause') continue;
    const cond = (p.childForFieldName('condition')?.text ?? '').replace(/\s+/g, ' ').trim();
    if (p.childForFieldName('consequence')?.id === c.id) {
      const m = /^\(?\s*([A-Za-z_]\w*)\s*\)?(?:\s+and\b.*)?$/.exec(cond);
      if (m && !/^(not|True|False|None)$/.test(m[1])) flags.push(m[1]);
    } else if (p.type === 'if_statement' && c.type === 'else_clause') {
      const m = /^not\s+\(?\s*([A-Za-z_]\w*)\s*\)?$/.exec(cond);
      if (m) flags.push(m[1]);
    }
  }
  return flags;
}

/**
 * A statement after which the rest of its block never runs: `return`, `raise`, `continue`,
 * `break`, and an `if` each of whose branches ends with one, or whose condition is the constant
 * `True` and whose first branch ends with one (`if True: return 42`, as tests write to make the
 * code after it unreachable).
 */
function alwaysLeaves(st: Node): boolean {
  if (st.type === 'return_statement' || st.type === 'raise_statement' || st.type === 'continue_statement' || st.type === 'break_statement') return true;
  if (st.type !== 'if_statement') return false;
  const ends = (block: Node | null | undefined): boolean => {
    const last = block?.namedChildren.filter((c) => c && c.type !== 'comment').pop();
    return !!last && alwaysLeaves(last);
  };
  if (!ends(st.childForFieldName('consequence'))) return false;
  if (/^(True|1)$/.test(st.childForFieldName('condition')?.text ?? '')) return true;
  const others = st.namedChildren.filter((c): c is Node => !!c && (c.type === 'elif_clause' || c.type === 'else_clause'));
  if (!others.some((c) => c.type === 'else_clause')) return false;
  return others.every((c) => ends(c.type === 'elif_clause' ? c.childForFieldName('consequence') : c.childForFieldName('body')));
}

/** The body of class scope `s` binds `name` (a method, a class-level value, an import, a nested class). */
function classBinds(s: Scope, name: string): boolean {
  if (s.cls) return s.cls.members.has(name);
  const body = s.node.childForFieldName('body');
  return !!body && bindsInText(body.text, name);
}

/**
 * `path` (`pip.commands`) is a module an `import` statement before `n` loads (`import
 * pip.commands.freeze`), in the body of a `try:` around `n` that handles ImportError: where that
 * import fails, the handler runs and `n` does not; where `n` runs, the import loaded the module.
 */
function importedBeforeInTry(n: Node, path: string): boolean {
  for (let c: Node = n, p = n.parent; p; c = p, p = p.parent) {
    if (p.type === 'function_definition' || p.type === 'class_definition') return false;
    if (p.type !== 'try_statement' || p.childForFieldName('body')?.id !== c.id) continue;
    if (!p.namedChildren.some((h) => h?.type === 'except_clause' && catchesImportError(h))) continue;
    const before = c.text.slice(0, n.startIndex - c.startIndex);
    for (const m of before.matchAll(/^[ \t]*import[ \t]+([\w. \t,]+)/gm)) {
      if (m[1].split(',').some((x) => ((d) => d === path || d.startsWith(`${path}.`))(x.trim().split(/\s+/)[0]))) return true;
    }
  }
  return false;
}

/** The indentation of a line, in characters. */
function indentOf(line: string): number {
  return /^[ \t]*/.exec(line)![0].length;
}

/** A line that holds no code (blank, or a comment). */
function noCode(line: string): boolean {
  const t = line.trim();
  return t === '' || t.startsWith('#');
}

/**
 * The module text sets `flag = True` in a `try:` body after an import of `inside` (the module, a
 * module inside it, or a name of it), and `flag = False` in that `try`'s `except ImportError` (or
 * `ModuleNotFoundError`) handler: the flag records whether that import succeeded. `module` is the
 * dotted name of the text's module (for its relative imports), `isPackage` whether it is a package.
 */
function flagRecordsImport(text: string, flag: string, inside: string, module: string, isPackage: boolean): boolean {
  if (!text.includes(flag)) return false;
  const lines = text.split('\n');
  const setTrue = new RegExp(`^[ \\t]*${flag}[ \\t]*=[ \\t]*True[ \\t]*(#.*)?$`);
  const setFalse = new RegExp(`^[ \\t]*${flag}[ \\t]*=[ \\t]*False[ \\t]*(#.*)?$`);
  const resolve = (dots: string, rest: string): string => {
    if (!dots) return rest;
    const parts = module.split('.');
    const keep = parts.length - dots.length + (isPackage ? 1 : 0);
    if (keep < 0) return '';
    return [...parts.slice(0, keep), ...(rest ? [rest] : [])].join('.');
  };
  const within = (m: string): boolean => m === inside || m.startsWith(`${inside}.`);
  const importsInside = (body: string[]): boolean =>
    body.some((l) => {
      const from = /^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?[ \t]*([\w, \t]+)/.exec(l);
      if (from) {
        const base = resolve(from[1], from[2]);
        return !!base && (within(base) || from[3].split(',').some((x) => within(`${base}.${x.trim().split(/\s+/)[0]}`)));
      }
      const imp = /^[ \t]*import[ \t]+([\w.]+)/.exec(l);
      return !!imp && within(imp[1]);
    });
  for (let i = 0; i < lines.length; i++) {
    if (!setTrue.test(lines[i])) continue;
    const ind = indentOf(lines[i]);
    let t = i - 1;
    while (t >= 0 && (noCode(lines[t]) || indentOf(lines[t]) >= ind)) t--;
    if (t < 0 || !/^[ \t]*try[ \t]*:[ \t]*(#.*)?$/.test(lines[t])) continue;
    const tryInd = indentOf(lines[t]);
    if (!importsInside(lines.slice(t + 1, i))) continue;
    // the clauses after the body, at the try's indentation: one of them handles ImportError and sets the flag false
    let h = i + 1;
    while (h < lines.length) {
      while (h < lines.length && (noCode(lines[h]) || indentOf(lines[h]) > tryInd)) h++;
      if (h >= lines.length || indentOf(lines[h]) !== tryInd || !/^[ \t]*except\b/.test(lines[h])) break;
      const handler = /\b(ImportError|ModuleNotFoundError)\b/.test(lines[h]);
      let e = h + 1;
      let sets = false;
      while (e < lines.length && (noCode(lines[e]) || indentOf(lines[e]) > tryInd)) {
        if (setFalse.test(lines[e])) sets = true;
        e++;
      }
      if (handler && sets) return true;
      h = e;
    }
  }
  return false;
}

/** Inside an annotation: of a parameter, of a function's return, or of an annotated assignment. */
function inAnnotation(n: Node): boolean {
  for (let p: Node | null = n.parent; p; p = p.parent) {
    if (p.type === 'type') return true;
    if (p.type === 'block' || p.type === 'module' || p.type.endsWith('_statement') || p.type === 'function_definition' || p.type === 'class_definition') return false;
  }
  return false;
}

function underTypeChecking(n: Node): boolean {
  for (let p: Node | null = n.parent, child: Node = n; p; child = p, p = p.parent) {
    if (p.type === 'if_statement' && p.childForFieldName('consequence')?.id === child.id) {
      const t = p.childForFieldName('condition')?.text.replace(/\s+/g, '');
      if (t === 'TYPE_CHECKING' || t === 'typing.TYPE_CHECKING' || t === 't.TYPE_CHECKING') return true;
    }
  }
  return false;
}

/**
 * A comprehension's scope: its `for` targets are its own names, which hide the enclosing ones
 * inside it (`{config.name: config for config in configs}` beside a module named `config`). A
 * plain target over an iterable that names none of the targets is an element of that iterable.
 */
function comprehensionScope(node: Node, parent: Scope): Scope {
  const scope: Scope = { kind: 'function', node, parent, locals: new Map(), globals: new Set(), comprehension: true };
  const clauses = node.namedChildren.filter((c): c is Node => c?.type === 'for_in_clause');
  const names: string[] = [];
  for (const c of clauses) identifierTargets(c.childForFieldName('left'), names);
  for (const c of clauses) {
    const left = c.childForFieldName('left');
    const right = c.childForFieldName('right');
    const own: string[] = [];
    identifierTargets(left, own);
    const plain = left?.type === 'identifier' && !!right && !names.some((n) => new RegExp(`\\b${n}\\b`).test(right.text));
    for (const n of own) {
      const b: LocalBinding | null = plain && right ? { kind: 'for', iter: right } : null;
      const list = scope.locals.get(n);
      if (list) list.push(b);
      else scope.locals.set(n, [b]);
    }
  }
  return scope;
}

function identifierTargets(node: Node | null, out: string[]): void {
  if (!node) return;
  if (node.type === 'identifier') out.push(node.text);
  else if (['pattern_list', 'tuple_pattern', 'list_pattern', 'expression_list', 'tuple', 'list', 'parenthesized_expression', 'list_splat_pattern', 'as_pattern_target'].includes(node.type)) {
    for (const c of node.namedChildren) identifierTargets(c, out);
  }
}

export class Checker {
  readonly callables: Callables;
  readonly receivers: Receivers;
  /** The target's calls of methods by name, for overrides whose base changed. */
  readonly librarySites: LibrarySites;

  constructor(readonly program: Program) {
    this.callables = new Callables(program);
    this.receivers = new Receivers(program, this.callables);
    this.librarySites = new LibrarySites(program);
  }

  /** `raw`: a parse of exactly `text` that the caller keeps (and deletes) itself. */
  check(text: string, opts: CheckOptions, raw?: Tree): CheckResult {
    // broken statements are set aside so that the rest of the file is checked as usual
    const { tree, text: checked } = parseRecovering(text, raw);
    try {
      return this.checkTree(tree, checked, opts);
    } finally {
      if (tree !== raw) tree.delete();
    }
  }

  /** Checks a tree already set right by `parseRecovering`, of exactly `text`. */
  checkTree(tree: Tree, text: string, opts: CheckOptions): CheckResult {
    return drain(this.checkTreeSteps(tree, text, opts));
  }

  /**
   * The same check in steps: it pauses (yields) after each unit of the file (a top-level
   * statement, or the header or one body statement of a top-level class), so that a host may
   * serve other requests between them. While paused, the file is no overlay of the program.
   */
  checkTreeSteps(tree: Tree, text: string, opts: CheckOptions): Generator<void, CheckResult> {
    // one root object per tree: the checks of both versions share the children it has listed
    let shared = roots.get(tree);
    if (!shared || shared.text !== text) {
      shared = { root: tree.rootNode, text, lines: text.split(/\r\n|\r|\n/), summaries: new Map() };
      roots.set(tree, shared);
    }
    return new FileCheck(this, shared, opts).stepwise();
  }
}

/** Runs a stepped check to its end at once. */
export function drain<T>(steps: Generator<void, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/** How long the parts of a check took (for a host that decides how soon to re-check after an edit). */
export interface CheckTiming {
  /** Time spent checking units (statements, class members) that were not taken over. */
  unitsMs: number;
  /** The slowest of those units: what an edit inside one unit costs. */
  maxUnitMs: number;
  /** Units checked (not taken over from the previous check). */
  unitsChecked: number;
  /** The whole check, without its pauses (set by a stepped check's host). */
  totalMs?: number;
}

/**
 * What the checks of one tree share (against the target and against the baseline): its root
 * object with the children it has listed, its text split into rows, and the file's summary (which
 * depends on the tree, the module name and the file alone; each program keys its caches on it
 * separately).
 */
interface SharedTree {
  root: Node;
  text: string;
  lines: string[];
  /** Offsets where the rows start (a row ends at `\r\n`, `\r` or `\n`, as in `lines`), once asked for. */
  rowStarts?: number[];
  summaries: Map<string, ModuleSummary>;
}

function rowStartsOf(shared: SharedTree): number[] {
  if (shared.rowStarts) return shared.rowStarts;
  const t = shared.text;
  const out = [0];
  if (!t.includes('\r')) {
    // the common case, found by the native search
    for (let i = t.indexOf('\n'); i >= 0; i = t.indexOf('\n', i + 1)) out.push(i + 1);
    return (shared.rowStarts = out);
  }
  for (let i = 0; i < t.length; i++) {
    const c = t.charCodeAt(i);
    if (c === 13) {
      if (t.charCodeAt(i + 1) === 10) i++;
      out.push(i + 1);
    } else if (c === 10) out.push(i + 1);
  }
  return (shared.rowStarts = out);
}

const roots = new WeakMap<Tree, SharedTree>();

/** What the units of one check share when they are taken over from a memo. */
interface MemoContext {
  memo: StatementMemo;
  names: NameFingerprints;
  /** Offsets where the rows start, and the text. */
  rows: number[];
  all: string;
}

interface ClassParts {
  def: Node;
  body: Node;
  /** The last row of the header (decorators, name, bases). */
  headerEnd: number;
}

/**
 * A top-level class (decorated or not) whose body statements each start on a row after its
 * header: checked by parts. Others are checked whole.
 */
function classParts(c: Node): ClassParts | undefined {
  const def = c.type === 'decorated_definition' ? c.childForFieldName('definition') : c;
  if (!def || def.type !== 'class_definition') return undefined;
  const body = def.childForFieldName('body');
  if (!body || body.type !== 'block') return undefined;
  let headerEnd = c.startPosition.row;
  for (const x of def.namedChildren) {
    if (!x || x.id === body.id || x.type === 'comment') continue;
    // anything after the body would be visited out of order
    if (x.startPosition.row > body.startPosition.row || (x.startPosition.row === body.startPosition.row && x.startPosition.column > body.startPosition.column)) return undefined;
    headerEnd = Math.max(headerEnd, x.endPosition.row);
  }
  for (const st of body.namedChildren) if (st && st.type !== 'comment' && st.startPosition.row <= headerEnd) return undefined;
  return { def, body, headerEnd };
}

/** Lets go of what the checks of a tree shared once they are done. */
export function releaseRoot(tree: Tree): void {
  roots.delete(tree);
}

class FileCheck {
  private readonly program: Program;
  private readonly summary: ModuleSummary;
  private readonly moduleName: string;
  /** The module relative imports start from (none for a script). */
  private readonly imports?: { name: string; isPackage: boolean };
  private readonly findings: Finding[] = [];
  private readonly calls: CallInfo[] = [];
  private callsChecked = 0;
  private callsUnknown = 0;
  private callsUntraced = 0;
  private readonly overrides: OverrideInfo[] = [];
  private readonly lines: string[];
  private steps = 0;

  private readonly root: Node;

  /** Whether the text has a `:=`, a `nonlocal` anywhere (see `functionScope`). */
  private hasWalrus: boolean | undefined;
  private hasNonlocal: boolean | undefined;

  constructor(private readonly checker: Checker, private readonly shared: SharedTree, private readonly opts: CheckOptions) {
    this.program = checker.program;
    this.root = shared.root;
    this.moduleName = opts.moduleName ?? USER_MODULE;
    this.imports = opts.moduleName ? { name: opts.moduleName, isPackage: !!opts.isPackage } : opts.importContext;
    const key = `${this.moduleName}\0${!!opts.isPackage}\0${opts.file}\0${opts.moduleName ? '' : (opts.importContext?.name ?? '')}`;
    let summary = shared.summaries.get(key);
    if (!summary) {
      // a target module checked as it is on disk: the target's summary of it serves
      // the file is checked as it runs as a script: what its `__main__` block binds is its own
      // (an importer never sees it, so the target's summary of a module with such a block does not serve)
      const script = /^if[ \t(]+__name__[ \t]*==[ \t]*(['"])__main__\1/m.test(shared.text);
      const same = opts.moduleName && !opts.summaryMemo && !this.root.hasError && !script ? this.program.summaryOfText(opts.moduleName, !!opts.isPackage, opts.file, shared.text) : undefined;
      summary = same ?? summarizeTree(this.root, shared.text, this.moduleName, !!opts.isPackage, opts.file, opts.summaryMemo, opts.moduleName ? undefined : opts.importContext, script);
      shared.summaries.set(key, summary);
    }
    this.summary = summary;
    this.lines = shared.lines;
  }

  *stepwise(): Generator<void, CheckResult> {
    this.program.setOverlay(this.summary);
    const memo = this.opts.memo;
    try {
      const moduleScope: Scope = { kind: 'module', node: this.root, locals: new Map(), globals: new Set() };
      // units are reused only from trees without syntax errors, where each parses on its own text
      const ctx = memo && !this.root.hasError ? this.memoContext(memo) : undefined;
      this.tick();
      for (const c of this.root.namedChildren) {
        // a comment gives nothing (and shares its row with the statement it ends)
        if (!c || c.type === 'comment') continue;
        const parts = c.hasError ? undefined : classParts(c);
        if (!parts) {
          const start = c.startPosition;
          const end = c.endPosition;
          this.unit(ctx, '', start.row, end.row, `${start.column}:${end.row - start.row}:${end.column}:${end.row >= this.lines.length - 1}`, () => this.visit(c, moduleScope, 1), undefined, c);
          yield* this.pause();
          continue;
        }
        yield* this.visitClassParts(ctx, c, parts, moduleScope);
      }
      ctx?.memo.end();
    } catch (e) {
      memo?.keepBoth();
      throw e;
    } finally {
      this.program.removeOverlay(this.moduleName);
    }
    const findings = applySuppressions(this.findings, this.lines, this.opts.file, (row, column) => this.root.descendantForPosition({ row, column })?.type === 'comment');
    findings.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
    const skipped = this.tooDeep ? [`parts nested deeper than ${MAX_VISIT_DEPTH} levels were not checked`] : [];
    return {
      findings,
      calls: this.calls,
      callsChecked: this.callsChecked,
      callsUnknown: this.callsUnknown,
      callsUntraced: this.callsUntraced,
      overrides: this.overrides,
      skipped,
      ...(memo ? { reused: this.reused } : {}),
      timing: { unitsMs: this.unitsMs, maxUnitMs: this.maxUnitMs, unitsChecked: this.unitsChecked },
    };
  }

  /** A pause between units: while paused the file is no overlay (others may use the program); a cancelled check stops here. */
  private *pause(): Generator<void, void> {
    this.program.removeOverlay(this.moduleName);
    yield;
    this.program.setOverlay(this.summary);
    if (this.opts.isCancelled?.()) throw new CancelledError();
  }

  private tick(): void {
    if (++this.steps % 256 === 0 && this.opts.isCancelled?.()) throw new CancelledError();
  }

  // ---- traversal ----

  /** Set when a result used the whole set of module-level names (for the names a fix proposes). */
  /** Rows where a result used the module-level names visible there (the names a fix may propose). */
  private namesAt: number[] = [];
  /** Set when a result looked at every class of the file (overrides, for virtual dispatch). */
  private usedFileClasses = false;
  private reused = 0;

  /** What every statement's result depends on besides its own text and the names it mentions. */
  private moduleWide(): string {
    return [
      moduleFacts(this.summary),
      this.program.contentEpoch(),
      this.program.hasFullIndex,
      this.opts.moduleName ?? '',
      !!this.opts.isPackage,
      !!this.opts.crossVersion,
      this.opts.context ?? '',
      // a file inside the target is also an overlay that other target modules may import from
      this.opts.moduleName ? fingerprintOf(this.summary.bindings) : '',
      // `global x` anywhere in the file changes what a module-level `x = C(...)` is taken for
      (this.shared.text.match(/\bglobal\s[^\n]*/g) ?? []).join('\n'),
      // names the file patches onto classes decide whether a method the target lost is reported
      // (and how often it does: see `setOnlyAfter`), and whether a call may reach a replacement
      this.patchedCounts(),
      this.testedModules().join(' '),
      this.testedAttributes().join(' '),
      // names assigned from a version decide which conditions are version tests
      versionFlagsOf(this.shared.text).join(' '),
      this.versionChosen().join(' '),
    ].join('\n');
  }

  private patchedHere?: string[];
  private testedHere?: string[];

  /**
   * Modules whose availability the file tests somewhere (`importlib.util.find_spec("a.b")`): an
   * import of one, even in another function, runs where the test said it is there.
   */
  private testedModules(): string[] {
    return (this.testedHere ??= [...new Set([...this.shared.text.matchAll(/\b(?:find_spec|find_loader)\s*\(\s*["']([\w.]+)["']/g)].map((m) => m[1]))].sort());
  }

  private patched(): string[] {
    return (this.patchedHere ??= [...this.patchCounts().keys()].sort());
  }

  private patchCountsHere?: Map<string, number>;

  /** How many times the file sets each name `patchedNames` reads (read once a check: `patched` and `moduleWide` both use it). */
  private patchCounts(): Map<string, number> {
    if (this.patchCountsHere) return this.patchCountsHere;
    const counts = new Map<string, number>();
    for (const line of this.shared.text.split('\n')) if (line.includes('=')) for (const n of patchedOnLine(line, patchedLines)) counts.set(n, (counts.get(n) ?? 0) + 1);
    for (const n of setattrNames(this.shared.text)) counts.set(n, (counts.get(n) ?? 0) + 1);
    return (this.patchCountsHere = counts);
  }

  private testedAttributesHere?: string[];

  /**
   * The read `node` of `owner.attr` saves the original before the file replaces it (`orig =
   * mod.f` then `mod.f = mine` in one function): every place the file sets it comes after the read,
   * in the function that holds the read. The read then runs before any of them (the project's
   * set of such names holds this file's too, so it does not say otherwise).
   */
  private savedBeforeSet(node: Node, set: string): boolean {
    let fn: Node | null = node.parent;
    while (fn && fn.type !== 'function_definition') fn = fn.parent;
    if (!fn) return false;
    const [owner, attr] = set.split('.');
    const text = this.shared.text;
    const re = new RegExp(`(?<![\\w.])(?:[A-Za-z_][\\w.]*\\.)?${owner}\\.${attr}[ \\t]*(?::[^=\\n]*)?=(?!=)`, 'g');
    let any = false;
    for (const m of text.matchAll(re)) {
      any = true;
      if (m.index! < node.endIndex || m.index! >= fn.endIndex) return false;
    }
    return any;
  }

  /**
   * Every place the file sets `.attr` on something (`a.b.attr = ...`) is in the function around
   * `node`, and each comes after it or in another branch of an `if` than it (with no loop around
   * that `if` in the function), and nothing sets it by `setattr`: the first time the read runs,
   * nothing of this file has set the attribute yet (`x = cfg.attr` ... `cfg.attr = y`).
   */
  private setOnlyAfter(node: Node, attr: string): boolean {
    let fn: Node | null = node.parent;
    while (fn && fn.type !== 'function_definition') fn = fn.parent;
    if (!fn) return false;
    const text = this.shared.text;
    if (new RegExp(`\\bsetattr\\s*\\([^,()]*,\\s*(['"])${attr}\\1`).test(text)) return false;
    let any = false;
    // the stores `patchedNames` reads (not `self.x = ...`): how many there are is part of what a
    // reused result depends on (see `moduleWide`)
    for (const m of text.matchAll(new RegExp(`(?<![\\w.])([A-Za-z_][\\w.]*)\\.${attr}[ \\t]*(?::[^=\\n]*)?=(?!=)`, 'g'))) {
      if (/^(self|cls)$/.test(m[1])) continue;
      any = true;
      if (m.index! < fn.startIndex || m.index! >= fn.endIndex) return false;
      if (m.index! >= node.endIndex) continue;
      const store = fn.descendantForIndex(m.index!);
      if (!store || !otherBranch(store, node, fn)) return false;
    }
    return any;
  }

  /** `patchCounts` as text, for `moduleWide`. */
  private patchedCounts(): string {
    return [...this.patchCounts()].map(([n, c]) => `${n}:${c}`).sort().join(' ');
  }

  /**
   * `m.x` in a function that also reads `m.y`, an attribute of the same module the code tests for
   * where this read sits (see `attributeTested`): the function is written for the version of the
   * module that has `y`, and `x` with it (`envs.PROFILER_DIR` tested, `envs.PROFILER_WITH_STACK`
   * read beside it).
   */
  private siblingTested(node: Node, attr: string): boolean {
    const object = node.childForFieldName('object')?.text;
    if (!object || !/^[\w.]+$/.test(object)) return false;
    let scope: Node = node;
    while (scope.parent && scope.type !== 'function_definition') scope = scope.parent;
    if (scope.type !== 'function_definition') return false;
    const escaped = object.replace(/\./g, '\\.');
    const tested = this.testedAttributes();
    for (const m of scope.text.matchAll(new RegExp(`(?<![\\w.])${escaped}\\.(\\w+)`, 'g'))) {
      if (m[1] !== attr && tested.includes(m[1]) && attributeTested(node, m[1])) return true;
    }
    return false;
  }

  /** Attribute names whose presence the file tests somewhere (see `attributeTested`): a reused result depends on them. */
  private testedAttributes(): string[] {
    return (this.testedAttributesHere ??= [...new Set([...this.shared.text.matchAll(/\b(?:hasattr|getattr)\s*\([^()]*?,\s*(['"])(\w+)\1/g)].map((m) => m[2]))].sort());
  }

  private unitsMs = 0;
  private maxUnitMs = 0;
  private unitsChecked = 0;

  private memoContext(memo: StatementMemo): MemoContext {
    memo.begin(this.moduleWide());
    return { memo, names: new NameFingerprints(this.summary.bindings), rows: rowStartsOf(this.shared), all: this.shared.text };
  }

  /**
   * A top-level class unit by unit: its header (decorators, name, bases), then each statement of
   * its body (a method, a field, a nested class), each reused on its own, so that an edit inside
   * one method re-checks that method only. Visits what visiting the class statement whole does.
   */
  private *visitClassParts(ctx: MemoContext | undefined, c: Node, parts: ClassParts, scope: Scope): Generator<void, void> {
    const { def, body, headerEnd } = parts;
    const defDepth = def === c ? 1 : 2;
    const start = c.startPosition;
    const name = def.childForFieldName('name')?.text ?? '';
    const b = this.summary.bindings.get(name);
    const hit = b?.find((x) => x.kind === 'class' && x.cls.line === def.startPosition.row + 1);
    const cls = hit && hit.kind === 'class' ? hit.cls : undefined;
    // what ABCMeta would refuse depends on the whole class: looked at on every check, outside the units
    const nameNode = def.childForFieldName('name');
    if (cls && nameNode && !this.opts.moduleName) this.recordAbstracts(nameNode, cls);
    this.unit(ctx, 'class header', start.row, headerEnd, `${start.column}:${headerEnd - start.row}`, () => {
      if (def !== c) {
        this.tick();
        for (const x of c.namedChildren) if (x && x.id !== def.id) this.visit(x, scope, 2);
      }
      this.tick();
      for (const x of def.namedChildren) if (x && x.id !== body.id) this.visit(x, scope, defDepth + 1);
    });
    yield* this.pause();
    // classes of one name are told apart by their order (members of each see their own class)
    const which = hit && b ? b.indexOf(hit) : -1;
    const inner: Scope = { kind: 'class', node: def, parent: scope, locals: new Map(), globals: new Set(), cls };
    const lastRow = this.lines.length - 1;
    for (const st of body.namedChildren) {
      if (!st || st.type === 'comment') continue;
      const s0 = st.startPosition;
      const s1 = st.endPosition;
      this.unit(
        ctx,
        `class body ${name}#${which}`,
        s0.row,
        s1.row,
        `${s0.column}:${s1.row - s0.row}:${s1.column}:${s1.row >= lastRow}`,
        () => {
          if (cls && !this.opts.moduleName) this.recordOverrides(def, cls, st);
          this.visit(st, inner, defDepth + 2);
        },
        { name },
        st,
      );
      yield* this.pause();
    }
  }

  /**
   * One unit of the file (a top-level statement, a class header or a statement of a class body),
   * its results taken over from the previous check when its text (its whole rows), its place on
   * them, the module-level names it mentions (followed through their bindings) and, in a class
   * body, the class's summary did not change; else visited. `kind` tells units of equal text apart.
   */
  private unit(ctx: MemoContext | undefined, kind: string, startRow: number, endRow: number, shape: string, visit: () => void, owner?: { name: string }, node?: Node): void {
    if (!ctx) {
      this.timed(visit);
      return;
    }
    const { memo, names, rows, all } = ctx;
    // the text of its whole lines (comments after it count; a slice of the file, not a copy)
    const text = all.slice(rows[startRow], endRow + 1 < rows.length ? rows[endRow + 1] : all.length);
    const key = kind ? `${kind}\0${text}` : text;
    const first = startRow + 1;
    const last = endRow + 1;
    // without the lines of the bindings, unless the results point at lines of this file (which
    // would move apart from the unit)
    const fp = (n: string, lineFree: boolean | undefined): string => (lineFree ? names.fingerprintLineFree(n, first, last) : names.fingerprint(n, first, last));
    const hit = memo.lookup(key);
    const state = names.state();
    if (
      hit &&
      hit.shape === shape &&
      ((hit.valid?.state === state && hit.valid.row === startRow) ||
        (hit.deps.every(([n, f]) => fp(n, hit.lineFree) === f) && (hit.namesAt === undefined || hit.namesAt.every(([rel, list]) => this.moduleNamesAt(startRow + rel).join(',') === list))))
    ) {
      hit.valid = { state, row: startRow };
      ownEntry(hit);
      memo.store(key, hit);
      this.adopt(moveResult(hit.result, startRow, hit));
      this.reused++;
      return;
    }
    const mark = { findings: this.findings.length, calls: this.calls.length, checked: this.callsChecked, unknown: this.callsUnknown, untraced: this.callsUntraced, overrides: this.overrides.length };
    const tooDeep = this.tooDeep;
    this.tooDeep = false;
    this.namesAt = [];
    this.usedFileClasses = false;
    this.unitScopes.clear();
    this.unitScopesKept = !!node;
    try {
      this.timed(visit);
    } finally {
      this.unitScopesKept = false;
    }
    const result: StatementResult = {
      findings: this.findings.slice(mark.findings),
      calls: this.calls.slice(mark.calls),
      callsChecked: this.callsChecked - mark.checked,
      callsUnknown: this.callsUnknown - mark.unknown,
      callsUntraced: this.callsUntraced - mark.untraced,
      overrides: this.overrides.slice(mark.overrides),
      tooDeep: this.tooDeep,
    };
    this.tooDeep ||= tooDeep;
    const words = dependencyWords(text, node && this.ownNames(node, rows[startRow]));
    if (owner) words.add(owner.name);
    // virtual dispatch looked at every class of the file: the result depends on all of them
    if (this.usedFileClasses) for (const [n, bs] of this.summary.bindings) if (bs.some((b) => b.kind === 'class')) words.add(n);
    const lineFree = !this.pointsIntoFile(result);
    const deps: Array<[string, string]> = [...names.closure(words, first, last)].map((n) => [n, fp(n, lineFree)]);
    const namesAt = this.namesAt.length ? [...new Set(this.namesAt)].map((r): [number, string] => [r - startRow, this.moduleNamesAt(r).join(',')]) : undefined;
    // a result that waited for the project's other files is not kept: it is checked again once they are read
    if (this.opts.projectPending && result.calls.some((c) => c.unknownReason === PROJECT_PENDING)) return;
    // (copied off this version's text once it outlives a keystroke: see ownEntry)
    memo.store(key, { shape, deps, lineFree, namesAt, valid: { state, row: startRow }, result: moveResult(result, -startRow) });
  }

  /** The scopes of the functions the unit being visited defines, by node id (see `ownNames`): kept only while a unit whose result is kept is visited. */
  private readonly unitScopes = new Map<number, Scope>();
  private unitScopesKept = false;

  /**
   * For a unit that is a function definition: the names the function binds itself (its
   * parameters, its assignments, imports, loops, ...), and where in the unit's text (`at`: the
   * index where that text starts) an occurrence of one is the function's own: inside its body, or
   * a parameter's name. Undefined where a name the function binds may still be read from the
   * module: under a `global` declaration (of the function or of one inside it), or in a class body
   * inside it (which reads a name it binds itself from the module until it has bound it).
   */
  private ownNames(node: Node, at: number): { names: ReadonlySet<string>; inside(i: number): boolean } | undefined {
    const def = node.type === 'decorated_definition' ? node.childForFieldName('definition') : node;
    if (def?.type !== 'function_definition') return undefined;
    const scope = this.unitScopes.get(def.id);
    const body = def.childForFieldName('body');
    if (!scope || !body || scope.globals.size > 0) return undefined;
    if (body.descendantsOfType(['global_statement', 'class_definition']).length > 0) return undefined;
    const names = new Set<string>();
    for (const [n, list] of scope.locals) if (list.length > 0) names.add(n);
    const from = body.startIndex - at;
    const to = body.endIndex - at;
    const params = new Set<number>();
    for (const p of def.childForFieldName('parameters')?.namedChildren ?? []) {
      if (!p || p.type === 'comment') continue;
      const id = p.type === 'identifier' ? p : p.childForFieldName('name') ?? p.namedChildren.find((x) => x?.type === 'identifier') ?? p.namedChildren[0]?.namedChildren[0];
      if (id?.type === 'identifier') params.add(id.startIndex - at);
    }
    return { names, inside: (i) => (i >= from && i < to) || params.has(i) };
  }

  private timed(visit: () => void): void {
    const t0 = performance.now();
    visit();
    const ms = performance.now() - t0;
    this.unitsMs += ms;
    if (ms > this.maxUnitMs) this.maxUnitMs = ms;
    this.unitsChecked++;
  }

  /** A result that names a definition in this file (whose line would not follow a moved unit). */
  private pointsIntoFile(r: StatementResult): boolean {
    const file = this.summary.file;
    return r.findings.some((f) => f.definition?.file === file) || r.calls.some((c) => c.definition?.file === file) || r.overrides.some((o) => o.definition?.file === file);
  }

  private adopt(r: StatementResult): void {
    this.findings.push(...r.findings);
    this.calls.push(...r.calls);
    this.callsChecked += r.callsChecked;
    this.callsUnknown += r.callsUnknown;
    this.callsUntraced += r.callsUntraced;
    this.overrides.push(...r.overrides);
    this.tooDeep ||= r.tooDeep;
  }

  /** Set while visiting the inside of an ERROR or MISSING node: nothing there is reported. */
  private inError = false;
  /** Some part of the file was nested too deeply to be looked at. */
  private tooDeep = false;

  private visit(node: Node, scope: Scope, depth = 0): void {
    if (LEAF_TYPES.has(node.type)) return;
    this.tick();
    // Python itself refuses such depths; deeper parts of a tree are not looked at
    if (depth > MAX_VISIT_DEPTH) {
      this.tooDeep = true;
      return;
    }
    const wasInError = this.inError;
    // a MISSING node is a token: a leaf, not walked into
    if (node.type === 'ERROR') this.inError = true;
    try {
      this.visitNode(node, scope, depth);
    } finally {
      this.inError = wasInError;
    }
  }

  /**
   * The truth of an `if` condition that is a name (or `not` a name) the enclosing function binds
   * exactly once, to `True` or `False`, before the test; undefined for anything else.
   */
  private constantCondition(cond: Node | null, scope: Scope): boolean | undefined {
    let n: Node | null = cond;
    let negate = false;
    while (n?.type === 'parenthesized_expression') n = n.namedChildren[0];
    if (n?.type === 'not_operator') {
      negate = true;
      n = n.childForFieldName('argument');
      while (n?.type === 'parenthesized_expression') n = n.namedChildren[0];
    }
    if (!cond || n?.type !== 'identifier' || scope.kind !== 'function' || scope.globals.has(n.text)) return undefined;
    const list = scope.locals.get(n.text);
    const only = list?.length === 1 ? list[0] : undefined;
    if (!only || only.kind !== 'assigned' || (only.value.type !== 'true' && only.value.type !== 'false') || only.value.startIndex > cond.startIndex) return undefined;
    return (only.value.type === 'true') !== negate;
  }

  private visitNode(node: Node, scope: Scope, depth: number): void {
    let inner = scope;
    switch (node.type) {
      case 'function_definition':
      case 'lambda':
        inner = this.functionScope(node, scope);
        if (node.type === 'function_definition' && this.unitScopesKept) this.unitScopes.set(node.id, inner);
        break;
      case 'list_comprehension':
      case 'set_comprehension':
      case 'dictionary_comprehension':
      case 'generator_expression':
        inner = comprehensionScope(node, scope);
        break;
      case 'class_definition': {
        const name = node.childForFieldName('name')?.text;
        let cls: ClassInfo | undefined;
        if (scope.kind === 'module' && name) {
          const b = this.summary.bindings.get(name);
          const hit = b?.find((x) => x.kind === 'class' && x.cls.line === node.startPosition.row + 1);
          if (hit && hit.kind === 'class') cls = hit.cls;
        } else if (scope.kind === 'function' && !scope.comprehension && name) cls = this.localClass(node, scope);
        inner = { kind: 'class', node, parent: scope, locals: new Map(), globals: new Set(), cls };
        if (cls && !this.opts.moduleName) {
          this.recordOverrides(node, cls);
          const nameNode = node.childForFieldName('name');
          if (nameNode) this.recordAbstracts(nameNode, cls);
        }
        break;
      }
      case 'import_statement':
      case 'import_from_statement':
        this.checkImport(node);
        return;
      case 'call':
        this.checkCall(node, scope);
        break;
      case 'attribute':
        if (!this.opts.moduleName) this.recordPatchOverride(node, scope);
        this.checkAttribute(node, scope);
        break;
    }
    if (node.type === 'function_definition' || node.type === 'lambda' || node.type === 'class_definition') {
      // a body defined in a handler runs when it is called, not as the handler's fallback
      const retries = this.retries;
      if (retries.length > 0) this.retries = [];
      try {
        for (const c of node.namedChildren) {
          if (!c) continue;
          // defaults, decorators, bases and annotations are evaluated in the enclosing scope
          const body = c.type === 'block' || (node.type === 'lambda' && c.id === node.childForFieldName('body')?.id);
          this.visit(c, body ? inner : scope, depth + 1);
        }
      } finally {
        this.retries = retries;
      }
      return;
    }
    const retry = node.type === 'except_clause' ? retryCallees(node) : undefined;
    if (retry) this.retries.push(retry);
    // `if not flag:` where the function binds `flag` once, to True or False, before it: the
    // branch that cannot run is not checked (`yearfirst = True` ... `if not yearfirst: ...`)
    const truth = node.type === 'if_statement' ? this.constantCondition(node.childForFieldName('condition'), scope) : undefined;
    try {
      for (const c of node.namedChildren) {
        if (!c) continue;
        if (truth === false && c.id === node.childForFieldName('consequence')?.id) continue;
        if (truth === true && (c.type === 'elif_clause' || c.type === 'else_clause')) continue;
        this.visit(c, inner, depth + 1);
        // what follows, in a block, a statement that always leaves it never runs
        if (node.type === 'block' && alwaysLeaves(c)) break;
      }
    } finally {
      if (retry) this.retries.pop();
    }
  }

  /** The callees that the handlers being visited may call again as fallbacks (see `retryCallees`). */
  private retries: Array<Set<string>> = [];

  /** Methods of a user class that override a method of a target class (compared across versions). */
  /**
   * The abstract methods of the target that nothing along a user class's MRO implements (ABCMeta
   * refuses to build such a class), recorded for comparing versions. Only where ABCMeta is its
   * metaclass, never for a Protocol or a decorated class, and only methods defined before any base
   * the engine cannot see (a base after the definer cannot implement it: the lookup stops first).
   */
  private recordAbstracts(nameNode: Node, cls: ClassInfo): void {
    if (cls.decorators.length > 0) return;
    const mro = this.checker.callables.mro(cls, this.summary);
    if (!mro) return;
    let abc = false;
    /** Where the first base the engine cannot see stands: it may implement what comes after it. */
    let unseen = mro.length;
    for (let i = 0; i < mro.length; i++) {
      const e = mro[i];
      if (e.kind === 'special') {
        if (e.name === 'abc.ABC') abc = true;
        else if (e.name !== 'object' && e.name !== 'typing.Generic') unseen = Math.min(unseen, i);
        continue;
      }
      if (e.kind !== 'class') {
        unseen = Math.min(unseen, i);
        continue;
      }
      const meta = e.cls.keywords.get('metaclass');
      if (meta) {
        const mv = this.program.evalExpr(meta, e.summary);
        if (!(mv.kind === 'special' && mv.name === 'abc.ABCMeta')) return;
        abc = true;
      }
    }
    if (!abc) return;
    const range = rangeOf(nameNode);
    this.overrides.push({ range, method: '', base: '', params: [], definition: null, abstract: 'done' });
    const seen = new Set<string>();
    for (const e of mro.slice(0, unseen)) {
      if (e.kind !== 'class') continue;
      for (const [name, bs] of e.cls.members) {
        if (seen.has(name)) continue;
        seen.add(name);
        const last = bs[bs.length - 1];
        if (last.kind !== 'def' || this.isUser(e.summary) || !this.isAbstract(last.fn, e.summary)) continue;
        this.overrides.push({ range, method: name, base: `${e.cls.qualname}.${name}`, params: last.fn.params, definition: { file: e.summary.file, line: last.fn.line }, abstract: 'missing' });
      }
    }
  }

  private isAbstract(fn: FunctionInfo, summary: ModuleSummary): boolean {
    return fn.decorators.some((d) => {
      const v = this.program.evalExpr(d.kind === 'call' ? d.callee : d, summary);
      return v.kind === 'special' && v.name === 'abc.abstractmethod';
    });
  }

  private recordOverrides(classNode: Node, cls: ClassInfo, only?: Node): void {
    // a class written for another version of the library: what it overrides there is another matter
    if (this.opts.crossVersion && this.otherVersion(classNode)) return;
    const mro = this.checker.callables.mro(cls, this.summary);
    if (!mro) return;
    // with a base of the target, a method that nothing after the class along the MRO defines, sets
    // or declares overrides nothing: every class there undecorated and without the name, and every
    // base outside the target one whose names are known (torch.nn.Module's)
    const targetBase = mro.some((e) => e.kind === 'class' && !this.isUser(e.summary));
    const absent = (method: string): boolean =>
      targetBase &&
      !method.startsWith('__') &&
      mro.slice(1).every((e) =>
        e.kind === 'class'
          ? e.cls.decorators.length === 0 && !e.cls.members.has(method) && !e.cls.attrAssigns.has(method) && !hasField(e.cls, method)
          : e.kind === 'special' && (QUIET_BASES.has(e.name) || (e.name === 'torch.nn.Module' && notNnModuleMember(method))),
      );
    for (const st of only ? [only] : classNode.childForFieldName('body')?.namedChildren ?? []) {
      const def = st?.type === 'decorated_definition' ? st.childForFieldName('definition') : st;
      if (!def || def.type !== 'function_definition') continue;
      const nameNode = def.childForFieldName('name');
      const method = nameNode?.text;
      if (!nameNode || !method || method === '__init__' || method === '__new__' || method === '__init_subclass__') continue;
      if (absent(method)) {
        // compared with the baseline, where it may have overridden a method the target dropped
        const renamedTo = this.opts.crossVersion ? this.newTwin(mro, method) : undefined;
        this.overrides.push({ range: rangeOf(nameNode), method, base: '', params: [], definition: null, overridesNothing: true, ...(renamedTo ? { renamedTo } : {}) });
        continue;
      }
      const base = this.checker.callables.superMember(mro, 1, method, (c, s) => this.checker.receivers.decoratorChanges(c, s, method));
      if (!base || base.kind !== 'function' || this.isUser(base.summary) || !base.owner) continue;
      const own = cls.members.get(method)?.find((b) => b.kind === 'def');
      const cv = this.opts.crossVersion;
      const newInTarget = !!cv?.baselineHasClass?.(base.owner.module, base.owner.qualname) && !cv.baselineClassHas?.(base.owner.module, base.owner.qualname, method, true);
      const unreached = own?.kind === 'def' ? this.unreachedOverride(mro, method, own.fn, base.fn.params, base.owner, newInTarget) : undefined;
      this.overrides.push({
        range: rangeOf(nameNode),
        method,
        base: `${base.owner.qualname}.${method}`,
        params: base.fn.params,
        own: own?.kind === 'def' ? own.fn.params : undefined,
        definition: { file: base.summary.file, line: base.fn.line },
        ...(newInTarget ? { newInTarget: true } : {}),
        ...(unreached ? { unreached: unreached.why, ...(unreached.unlessCalled.length ? { unlessCalled: unreached.unlessCalled } : {}) } : {}),
      });
    }
  }

  /**
   * `C.m = f`, a function of the user's put in place of a method of a target class (a patch): the
   * library calls it as it calls `C.m`, so it is compared with the method's signature in both
   * versions as an override is (see `explainAgainstBaseline`). Only a plain or static method (or a
   * function of a target module, `mod.f = g`) replaced by an undecorated function; the target's
   * calls of `m` by name count for it only when each binds to the function (any of them may run
   * it, whatever the receiver).
   */
  private recordPatchOverride(node: Node, scope: Scope): void {
    const parent = node.parent;
    if (parent?.type !== 'assignment' || parent.childForFieldName('left')?.id !== node.id) return;
    const right = parent.childForFieldName('right');
    const obj = node.childForFieldName('object');
    const nameNode = node.childForFieldName('attribute');
    if (!right || right.type !== 'identifier' || !obj || !nameNode) return;
    // a patch for another version of the library (its file, or its branch, runs only there)
    if (this.otherVersion(node)) return;
    const method = nameNode.text;
    const value = this.resolveName(right.text, scope);
    const fn: { fn: FunctionInfo } | undefined =
      value?.kind === 'function' ? (this.isUser(value.summary) && value.fn.decorators.length === 0 && !value.owner ? value : undefined) : this.localFunction(right.text, node);
    if (!fn) return;
    const target = this.valueOfExpr(obj, scope);
    if (target?.kind === 'module' && !this.program.isUserModule(target.name.split('.')[0])) {
      // `mod.f = g`: a function of a target module replaced (calls through the module, and the
      // module's own calls, run g; the target's calls of it are not read: they may be bare names)
      const was = this.program.resolveMember(target.name, method);
      if (was.kind !== 'function' || was.owner || this.isUser(was.summary) || was.fn.decorators.length > 0) return;
      this.overrides.push({ range: rangeOf(nameNode), method, base: `${target.name}.${method}`, params: was.fn.params, own: fn.fn.params, definition: { file: was.summary.file, line: was.fn.line }, patch: true });
      return;
    }
    if (target?.kind !== 'class' || this.isUser(target.summary)) return;
    const mro = this.checker.callables.mro(target.cls, target.summary);
    if (!mro) return;
    const base = this.checker.callables.superMember(mro, 0, method, (c, summary) => this.checker.receivers.decoratorChanges(c, summary, method));
    if (!base || base.kind !== 'function' || this.isUser(base.summary) || !base.owner) return;
    const decorated = (re: RegExp): boolean => base.fn.decorators.some((d) => re.test(dotted(d) ?? ''));
    if (decorated(/^(builtins\.)?classmethod$|(^|\.)property$/)) return;
    // a static method replaced by a function takes what the method took (no instance first); the
    // target's calls of it are not weighed then
    const isStatic = decorated(/^(builtins\.)?staticmethod$/);
    const unreached = isStatic ? undefined : this.unreachedOverride(mro, method, fn.fn, base.fn.params, base.owner, false, true);
    this.overrides.push({
      range: rangeOf(nameNode),
      method,
      base: `${base.owner.qualname}.${method}`,
      params: base.fn.params,
      own: fn.fn.params,
      definition: { file: base.summary.file, line: base.fn.line },
      patch: true,
      ...(unreached ? { unreached: unreached.why, ...(unreached.unlessCalled.length ? { unlessCalled: unreached.unlessCalled } : {}) } : {}),
    });
  }

  /**
   * `def name(...)` written directly in the body of the function around `at`, undecorated, and
   * the only thing that binds `name` there (a patch defined where it is applied): its parameters.
   */
  private localFunction(name: string, at: Node): { fn: FunctionInfo } | undefined {
    let fnNode: Node | null = at.parent;
    while (fnNode && fnNode.type !== 'function_definition') fnNode = fnNode.parent;
    const body = fnNode?.childForFieldName('body');
    if (!body) return undefined;
    const defs = body.namedChildren.filter((c): c is Node => !!c && c.type === 'function_definition' && c.childForFieldName('name')?.text === name);
    if (defs.length !== 1) return undefined;
    // bound nowhere else in the function (an assignment, a loop, an import, a nested class)
    const rebound = new RegExp(`(^|[^\\w.])${name}\\s*(:[^=\\n]*)?=(?!=)|\\bfor\\s+${name}\\b|\\bas\\s+${name}\\b|\\bimport\\b[^\\n]*\\b${name}\\b|\\b(class|def)\\s+${name}\\b`, 'g');
    if ([...body.text.matchAll(rebound)].length !== 1) return undefined;
    return { fn: { name, params: readParams(defs[0].childForFieldName('parameters')), decorators: [], line: defs[0].startPosition.row + 1 } as unknown as FunctionInfo };
  }

  /**
   * With a baseline, for an override (`own`, in the class whose MRO is `mro`) of a target method
   * whose parameters differ from the baseline's (or that is new in the target): why no call the
   * target makes of the method by name passes this override arguments it does not take, or
   * undefined when one may, or when the target makes none by name (it may call it another way).
   * Each call found is either not run on this class's instances (`C.m(...)` on a class of its
   * module, `super().m(...)`, `self.m(...)` in a method `k` of a class this one does not resolve
   * `k` to) or binds to the override as it stands, without star arguments and without a
   * positional argument that now reaches another parameter of the base than in the baseline.
   */
  private unreachedOverride(mro: Entry[], method: string, own: FunctionInfo, targetParams: Param[], owner: ClassInfo, newInTarget: boolean, patch = false): { why: string; unlessCalled: string[] } | undefined {
    const cv = this.opts.crossVersion;
    if (!cv?.baselineMethod) return undefined;
    const was = newInTarget ? undefined : cv.baselineMethod(owner.module, owner.qualname, method);
    const shape = (ps: Param[]): string => ps.map((p) => `${p.kind}:${p.name}:${p.hasDefault}`).join(',');
    if (!newInTarget && (!was || shape(was.params) === shape(targetParams))) return undefined;
    // a special method is called by the language (`__post_init__` by a dataclass's `__init__`)
    if (/^__\w+__$/.test(method)) return undefined;
    // a base outside the target may call the method itself (torch.nn.Module's `__call__` calls `forward`)
    if (mro.some((e) => e.kind !== 'class' && !(e.kind === 'special' && (QUIET_BASES.has(e.name) || (e.name === 'torch.nn.Module' && notNnModuleMember(method)))))) return undefined;
    const { sites, incomplete } = this.checker.librarySites.sites(method);
    if (sites.length === 0 || incomplete) return undefined;
    const isStatic = own.decorators.some((d) => /^(builtins\.)?staticmethod$/.test(dotted(d) ?? ''));
    const ownParams = isStatic ? own.params : own.params.slice(1);
    const sig = { params: ownParams, name: method, qualname: method, definition: null, origin: '' } as Sig;
    const slots = (ps: Param[]): string[] => ps.filter((p) => p.kind === 'posonly' || p.kind === 'normal').map((p) => p.name);
    const targetSlots = slots(targetParams).slice(isStatic ? 0 : 1);
    const wasSlots = was ? slots(was.params).slice(isStatic ? 0 : 1) : targetSlots;
    const targetNames = new Set(targetParams.map((p) => p.name));
    /** Whether `name` resolves, along `mro`, to the class `owner`'s (undefined where a base the engine cannot see comes first). */
    const resolves = (name: string, owner: string): boolean | undefined => {
      for (const e of mro) {
        if (e.kind === 'class') {
          if (e.cls.qualname === owner) return true;
          if (e.cls.members.has(name)) return false;
        } else if (e.kind === 'special') {
          if (QUIET_BASES.has(e.name) || (e.name === 'torch.nn.Module' && notNnModuleMember(name))) continue;
          return e.name === 'torch.nn.Module' ? false : undefined;
        } else return undefined;
      }
      // the class is not along this one's MRO: its `self` is never an instance of this one
      return false;
    };
    const outsideMayCall = (name: string): boolean => mro.some((e) => e.kind !== 'class' && !(e.kind === 'special' && (QUIET_BASES.has(e.name) || (e.name === 'torch.nn.Module' && notNnModuleMember(name)))));
    /**
     * Whether the target's method `name` (which this class resolves to the target's) may run on
     * this class's instances: this file calls a method of that name, or a call of it in the target
     * may (a `self.name(...)` counts only in a method that may run itself, followed a few levels).
     */
    // (whether the user's file calls such a method is asked when the findings are explained, of
    // the whole text as it is then: see `OverrideInfo.unlessCalled`)
    const unlessCalled = new Set<string>();
    const mayRun = (name: string, depth: number, seen: Set<string>): boolean => {
      if (depth > 3 || seen.has(name) || /^__\w+__$/.test(name) || outsideMayCall(name)) return true;
      unlessCalled.add(name);
      const calls = this.checker.librarySites.sites(name);
      if (calls.incomplete || calls.sites.length === 0) return true;
      seen.add(name);
      for (const site of calls.sites) {
        // `C.name(obj)` runs the library's method on whatever obj is
        if (site.receiver === 'class' || site.receiver === 'other') return true;
        const r = resolves(site.method!, site.owner!);
        if (r === false) continue;
        if (site.receiver === 'super' || r === undefined || mayRun(site.method!, depth + 1, seen)) return true;
      }
      return false;
    };
    let reached = 0;
    for (const site of sites) {
      // a patch is what every call of the method runs (on the class, through super(), on self)
      if (!patch && (site.receiver === 'class' || site.receiver === 'super')) continue;
      if (!patch && site.receiver === 'self') {
        const r = resolves(site.method!, site.owner!);
        if (r === false) continue;
        // the method around the call never runs on this class's instances either
        if (r === true && !mayRun(site.method!, 1, new Set([method]))) continue;
      }
      reached++;
      if (site.args.some((a) => a.kind === 'star' || a.kind === 'dstar')) return undefined;
      if (bindCall(sig, site.args).length > 0) return undefined;
      // a positional argument that now lands on another parameter of the base than before binds,
      // with a value meant for another parameter
      const positional = site.args.filter((a) => a.kind === 'positional').length;
      for (let i = 0; i < positional && i < wasSlots.length && i < targetSlots.length; i++) {
        if (wasSlots[i] !== targetSlots[i] && targetNames.has(wasSlots[i])) return undefined;
      }
    }
    const n = sites.length;
    return {
      why:
        reached === 0
          ? `none of the target's ${n} call${n === 1 ? '' : 's'} of ${method}() runs on this class's instances`
          : `the target's calls of ${method}() that may run on this class's instances (${reached} of ${n}) bind to this override as it stands`,
      unlessCalled: [...unlessCalled].sort(),
    };
  }

  /**
   * For a method the target's classes along `mro` no longer define while the baseline's did: the
   * one method, among those the target's classes define and their baseline namesakes lacked, with
   * the same parameters by kind and name, some besides `self` (a rename), as `Class.method`.
   */
  private newTwin(mro: Entry[], method: string): string | undefined {
    const cv = this.opts.crossVersion;
    if (!cv?.baselineMethod || !cv.baselineClassHas) return undefined;
    const targets = mro.slice(1).filter((e): e is Extract<Entry, { kind: 'class' }> => e.kind === 'class' && !this.isUser(e.summary));
    const was = targets.map((e) => cv.baselineMethod!(e.cls.module, e.cls.qualname, method)).find((f) => f);
    // parameters besides self or cls say something; none at all would match any such method
    if (!was || was.params.filter((p, i) => i > 0 || !/^(self|cls)$/.test(p.name)).length === 0) return undefined;
    const shape = (ps: Param[]): string => ps.map((p) => `${p.kind}:${p.name}`).join(',');
    const found: string[] = [];
    for (const e of targets) {
      for (const [name, bs] of e.cls.members) {
        const d = bs.find((b) => b.kind === 'def');
        if (d?.kind !== 'def' || name.startsWith('__') || cv.baselineClassHas(e.cls.module, e.cls.qualname, name, true)) continue;
        if (shape(d.fn.params) === shape(was.params)) found.push(`${e.cls.name}.${name}`);
      }
    }
    return found.length === 1 ? found[0] : undefined;
  }

  private functionScope(node: Node, parent: Scope): Scope {
    const scope: Scope = { kind: 'function', node, parent, locals: new Map(), globals: new Set() };
    /** Names bound while a block of imports is walked, and names whose bindings are dropped (see `try_statement` below). */
    let recording: Set<string> | undefined;
    let dropping: Set<string> | undefined;
    const add = (name: string, b: LocalBinding | null): void => {
      if (dropping?.has(name)) return;
      recording?.add(name);
      const list = scope.locals.get(name);
      if (list) list.push(b);
      else scope.locals.set(name, [b]);
    };
    const params = node.childForFieldName('parameters');
    if (params) {
      // the first parameter of a method binds the instance (or the class), unless the method is
      // a static one: then it is a parameter like any other
      const deco = node.parent?.type === 'decorated_definition' ? node.parent : undefined;
      let first = !deco?.namedChildren.some((d) => d?.type === 'decorator' && /^@\s*(builtins\s*\.\s*)?staticmethod\s*$/.test(d.text));
      for (const p of params.namedChildren) {
        if (!p || p.type === 'comment') continue;
        const id = p.type === 'identifier' ? p : p.childForFieldName('name') ?? p.namedChildren.find((x) => x?.type === 'identifier') ?? p.namedChildren[0]?.namedChildren[0];
        const plain = p.type === 'identifier' || p.type === 'typed_parameter' || p.type === 'default_parameter' || p.type === 'typed_default_parameter';
        if (id?.type === 'identifier') add(id.text, plain && node.type === 'function_definition' ? { kind: 'param', annotation: annotationOrNone(p.childForFieldName('type')), first } : null);
        first = false;
      }
    }
    const current = this.imports ?? { name: this.moduleName, isPackage: !!this.opts.isPackage };
    const walrus = (this.hasWalrus ??= this.shared.text.includes(':='));
    const walk = (n: Node, skip?: (c: Node) => boolean): void => {
      for (const c of n.namedChildren) {
        if (!c || LEAF_TYPES.has(c.type) || skip?.(c)) continue;
        switch (c.type) {
          case 'try_statement': {
            // a block of imports decided against the target (see `Program.valueOfBindings` for the
            // module's own names)
            const imports = this.opts.moduleName ? undefined : importsOfTry(c, current);
            const outcome = imports ? this.program.importsOutcome(imports) : 'unknown';
            if (outcome !== 'unknown') {
              // the part that runs against the target binds last: the block when its imports
              // succeed (its ImportError handlers never run), the handlers when one fails; the
              // other part's bindings of the names it binds are dropped
              const handler = (x: Node): boolean => x.type === 'except_clause' && catchesImportError(x);
              // what each walk skips: all but the block, all but the handlers
              const onlyBlock = (x: Node): boolean => x.type !== 'block';
              const onlyHandlers = (x: Node): boolean => !handler(x);
              const was = { recording, dropping };
              recording = new Set();
              walk(c, outcome === 'succeeds' ? onlyBlock : onlyHandlers);
              dropping = new Set([...(was.dropping ?? []), ...recording]);
              recording = was.recording;
              walk(c, outcome === 'succeeds' ? onlyHandlers : onlyBlock);
              dropping = was.dropping;
              walk(c, (x) => x.type === 'block' || handler(x));
              continue;
            }
            break;
          }
          case 'function_definition':
          case 'class_definition': {
            const name = c.childForFieldName('name')?.text;
            // a class is followed where it is built (see `localClass`); a def is not
            if (name) add(name, c.type === 'class_definition' && !dropping ? { kind: 'localClass', node: c } : null);
            // their bodies are other scopes, but `nonlocal x` in a function inside binds this x
            // (or one further out: either way not a value this walk can tell)
            if ((this.hasNonlocal ??= /\bnonlocal\b/.test(this.shared.text))) {
              for (const st of c.descendantsOfType('nonlocal_statement')) for (const id of st?.namedChildren ?? []) if (id?.type === 'identifier') add(id.text, null);
            }
            continue;
          }
          case 'list_comprehension':
          case 'set_comprehension':
          case 'dictionary_comprehension':
          case 'generator_expression':
            // a comprehension is a scope of its own, but its `:=` binds in the function (PEP 572)
            if (walrus) for (const w of c.descendantsOfType('named_expression')) {
              const nm = w?.childForFieldName('name');
              if (nm) add(nm.text, null);
            }
            continue;
          case 'lambda':
            continue;
          case 'import_statement':
          case 'import_from_statement':
            if (!this.imports && c.type === 'import_from_statement' && c.childForFieldName('module_name')?.type === 'relative_import') {
              for (const n2 of c.childrenForFieldName('name')) if (n2) add((n2.childForFieldName('alias') ?? n2.childForFieldName('name') ?? n2).text, null);
              continue;
            }
            for (const [name, b] of importBindings(c, current, false, () => undefined)) add(name, b);
            continue;
          case 'type_alias_statement': {
            // `type X = ...` (3.12) binds X to the alias
            const left = c.childForFieldName('left');
            const id = left?.namedChildren[0]?.type === 'generic_type' ? left.namedChildren[0].namedChildren[0] : left?.namedChildren[0];
            if (id?.type === 'identifier') add(id.text, null);
            continue;
          }
          case 'global_statement':
            for (const id of c.namedChildren) if (id?.type === 'identifier') scope.globals.add(id.text);
            continue;
          case 'nonlocal_statement':
            for (const id of c.namedChildren) if (id?.type === 'identifier') add(id.text, null);
            continue;
          case 'assignment': {
            const left = c.childForFieldName('left');
            let right = c.childForFieldName('right');
            // `x = y = value` gives every target the value (the inner assignment binds y in its turn)
            while (right?.type === 'assignment' && !right.childForFieldName('type')) right = right.childForFieldName('right');
            if (left?.type === 'identifier' && right && right.type !== 'assignment') {
              const type = c.childForFieldName('type');
              const after = c.parent?.nextSibling;
              const ignored = !!after && after.type === 'comment' && after.startPosition.row === c.endPosition.row && /type:\s*ignore\b/.test(after.text);
              add(left.text, { kind: 'assigned', value: right, ...(type && !ignored ? { annotation: annotationText(type.text) } : {}) });
              break;
            }
            const names: string[] = [];
            identifierTargets(left, names);
            for (const x of names) add(x, null);
            break;
          }
          case 'for_statement': {
            const left = c.childForFieldName('left');
            const right = c.childForFieldName('right');
            if (left?.type === 'identifier' && right) {
              add(left.text, { kind: 'for', iter: right });
              break;
            }
            const per = left && right ? unpackedLoop(left, right) : undefined;
            if (per) {
              per.forEach(([target, b]) => {
                if (target.type === 'identifier') add(target.text, b);
                else {
                  const names: string[] = [];
                  identifierTargets(target, names);
                  for (const x of names) add(x, null);
                }
              });
              break;
            }
            const names: string[] = [];
            identifierTargets(left, names);
            for (const x of names) add(x, null);
            break;
          }
          case 'augmented_assignment':
          case 'for_in_clause': {
            const names: string[] = [];
            identifierTargets(c.childForFieldName('left'), names);
            for (const x of names) add(x, null);
            break;
          }
          case 'named_expression': {
            const nm = c.childForFieldName('name');
            const value = c.childForFieldName('value');
            if (nm) add(nm.text, value ? { kind: 'assigned', value } : null);
            break;
          }
          case 'as_pattern': {
            const target = c.childForFieldName('alias');
            const value = c.namedChildren[0];
            if (c.parent?.type === 'with_item' && target?.namedChildren.length === 1 && target.namedChildren[0]?.type === 'identifier' && value) {
              add(target.namedChildren[0].text, { kind: 'with', value });
              continue;
            }
            const names: string[] = [];
            identifierTargets(c.childForFieldName('alias'), names);
            for (const x of names) add(x, null);
            break;
          }
          case 'except_clause': {
            const alias = c.childForFieldName('alias') ?? c.namedChildren.find((x) => x?.type === 'as_pattern')?.childForFieldName('alias');
            if (alias?.type === 'identifier') add(alias.text, null);
            break;
          }
          case 'case_clause': {
            const names: string[] = [];
            for (const p of c.namedChildren) if (p?.type === 'case_pattern') patternCaptures(p, names);
            for (const x of names) add(x, null);
            break;
          }
          case 'with_item':
          case 'as_pattern_target': {
            const names: string[] = [];
            identifierTargets(c, names);
            if (c.type === 'as_pattern_target') for (const x of names) add(x, null);
            break;
          }
        }
        // an expression binds a name of the function only through `:=` (comprehensions and
        // lambdas, which have scopes of their own, are passed over above)
        if (walrus || !EXPRESSION_TYPES.has(c.type)) walk(c);
      }
    };
    // a def's body is taken from its children, whose node objects the visit walks next: what this
    // walk reads of them (their children) is then not read from the tree again
    const body = node.type === 'function_definition' ? node.namedChildren.find((c) => c?.type === 'block') : node.childForFieldName('body');
    if (body) walk(body);
    return scope;
  }

  // ---- names in user code ----

  /** Code written for one version: the whole file (see `versionOnly`), a function the file chooses by version (see `versionChosen`), or the code around `n` (see `otherVersionCode`). */
  private otherVersion(n: Node): string | undefined {
    if (this.opts.versionOnly) return this.opts.versionOnly;
    const chosen = this.versionChosen();
    if (chosen.length > 0) {
      let top: Node = n;
      while (top.parent && top.parent.type !== 'module') top = top.parent;
      const def = top.type === 'decorated_definition' ? top.childForFieldName('definition') : top;
      const name = def?.type === 'function_definition' ? def.childForFieldName('name')?.text : undefined;
      if (name && chosen.includes(name)) {
        const state = this.chosenState(name);
        if (state === 'dead') return `${name} is used only on other versions: every version test that chooses it fails on the target's version`;
        if (state === 'tested') return `${name} is used only under version tests: it is written for one version`;
      }
    }
    return otherVersionCode(n, this.decideVersion);
  }

  /** Per function the file chooses by version (see `versionChosen`): whether a use of it runs on the target. */
  private readonly chosenStates = new Map<string, 'runs' | 'dead' | 'tested'>();

  /**
   * Where the target's version decides the tests that choose a function: `runs` when one of its
   * uses sits on a branch the target takes (the function runs there, as any code), `dead` when
   * every use sits on a branch it does not, else `tested`.
   */
  private chosenState(name: string): 'runs' | 'dead' | 'tested' {
    let state = this.chosenStates.get(name);
    if (state) return state;
    const text = this.shared.text;
    let dead = true;
    state = 'tested';
    for (const m of text.matchAll(new RegExp(`(?<![\\w.])${name}\\b`, 'g'))) {
      if (/\bdef\s+$/.test(text.slice(text.lastIndexOf('\n', m.index! - 1) + 1, m.index!))) continue;
      const at = this.root.descendantForIndex(m.index!);
      const here = at ? versionState(at, this.decideVersion) : 'tested';
      if (here === 'runs') {
        state = 'runs';
        break;
      }
      if (here !== 'dead') dead = false;
    }
    if (state !== 'runs' && dead) state = 'dead';
    this.chosenStates.set(name, state);
    return state;
  }

  /** What the target's version makes of a version test (see `decideVersionTest`), remembered per condition. */
  private readonly decided = new Map<number, boolean | undefined>();
  private readonly decideVersion = (cond: Node): boolean | undefined => {
    if (this.decided.has(cond.id)) return this.decided.get(cond.id);
    const v = decideVersionTest(cond, (e) => versionString(e, this.versionNames, (top) => this.program.packageVersion(top)), (n) => this.moduleValueOf(n));
    this.decided.set(cond.id, v);
    return v;
  };

  /**
   * The value node of a name the module binds once, unconditionally, by a plain assignment at its
   * top level (`vllm_version = parse(vllm.__version__)`), read where no function around `at`
   * binds the name itself and no function declares it global.
   */
  private moduleValueOf(at: Node): Node | undefined {
    const name = at.text;
    for (let p: Node | null = at.parent; p; p = p.parent) {
      if (p.type === 'function_definition' && bindsInText(p.text, name)) return localValueOf(p, name);
      if ((p.type === 'class_definition' || p.type === 'lambda') && bindsInText(p.text, name)) return undefined;
    }
    const bs = this.summary.bindings.get(name);
    if (!bs || bs.length !== 1 || bs[0].kind !== 'value' || bs[0].conditional) return undefined;
    if (new RegExp(`\\bglobal\\s[^\\n]*\\b${name}\\b`).test(this.shared.text)) return undefined;
    for (let p: Node | null = at.parent; p; p = p.parent) {
      if ((p.type === 'function_definition' || p.type === 'lambda') && new RegExp(`\\b${name}\\b`).test(p.childForFieldName('parameters')?.text ?? '')) return undefined;
    }
    const row = bs[0].line - 1;
    for (const st of this.root.namedChildren) {
      if (!st || st.startPosition.row !== row) continue;
      const a = st.type === 'expression_statement' ? st.namedChildren[0] : null;
      const left = a?.type === 'assignment' ? a.childForFieldName('left') : null;
      return left?.type === 'identifier' && left.text === name ? (a!.childForFieldName('right') ?? undefined) : undefined;
    }
    return undefined;
  }

  /**
   * How the file binds the names of a version string (see `versionString`): a package imported
   * at module level, or by `import pkg` anywhere in the file; what it imports with `from`.
   */
  private readonly versionNames: VersionNames = {
    packageOf: (name) => {
      const bs = this.summary.bindings.get(name);
      // `import vllm` and `import vllm.distributed` both bind `vllm` to the package
      const first = bs?.[0];
      if (bs) return first?.kind === 'module' && !first.module.includes('.') && bs.every((b) => b.kind === 'module' && b.module === first.module) ? first.module : undefined;
      return new RegExp(`^[ \\t]*import[ \\t]+${name}[ \\t]*(#.*)?$`, 'm').test(this.shared.text) ? name : undefined;
    },
    importOf: (name) => {
      const bs = this.summary.bindings.get(name);
      return bs?.length === 1 && bs[0].kind === 'from' ? { module: bs[0].module, name: bs[0].name } : undefined;
    },
  };

  /**
   * `n` sits in a branch that a test of a signature chooses (`if "block_size" in
   * inspect.signature(Scheduler.__init__).parameters:`, or through a name bound to the signature
   * or to its parameters): such code is written for the versions where the test holds. The test
   * is evaluated against the target: a branch that does not run there gives a reason, and so does
   * a test the engine cannot evaluate; the branch that runs is checked as any code.
   */
  private signatureChosen(n: Node, scope: Scope): string | undefined {
    // most files test no signature: their text says so once
    if (this.testsSignatures === undefined) this.testsSignatures = SIGNATURE_WORDS.test(this.shared.text);
    if (!this.testsSignatures) return undefined;
    for (let p: Node | null = n.parent, child: Node = n; p && p.type !== 'function_definition' && p.type !== 'class_definition'; child = p, p = p.parent) {
      let tests: Array<Node | null>;
      let at: number;
      if (p.type === 'block') {
        // after `if <test>: return` (or raise) with no other branch, the rest runs where the test failed
        for (const st of p.namedChildren) {
          if (!st || st.startIndex >= child.startIndex) break;
          const cond = earlyExit(st);
          const v = cond ? this.signatureTest(cond, scope) : undefined;
          // `if "x" not in sig.parameters: raise ...` refuses what it cannot tell; a return chooses
          if (v === 'unknown' && st.childForFieldName('consequence')?.namedChildren.filter((c) => c && c.type !== 'comment').at(-1)?.type === 'return_statement') return 'it runs after an early return on a test of a signature that the engine cannot evaluate: it is written for the versions where the test fails';
          if (v === true) return 'it runs only where a test of a signature fails, which it does not in the target: it is written for another version';
        }
        continue;
      }
      if (p.type === 'if_statement') {
        const clauses = p.namedChildren.filter((c): c is Node => !!c && (c.type === 'elif_clause' || c.type === 'else_clause'));
        tests = [p.childForFieldName('condition'), ...clauses.map((c) => (c.type === 'elif_clause' ? c.childForFieldName('condition') : null))];
        if (child.id === p.childForFieldName('consequence')?.id) at = 0;
        else {
          at = clauses.findIndex((c) => c.id === child.id) + 1;
          if (at === 0) continue; // the condition itself
        }
      } else if (p.type === 'conditional_expression') {
        const parts = p.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment');
        if (parts.length !== 3 || child.id === parts[1].id) continue;
        tests = [parts[1], null];
        at = child.id === parts[0].id ? 0 : 1;
      } else continue;
      const values = tests.map((t) => (t ? this.signatureTest(t, scope) : undefined));
      if (values.every((v) => v === undefined)) continue;
      if (values.includes('unknown')) return 'it runs under a test of a signature that the engine cannot evaluate: it is written for the versions where the test holds';
      // the branch runs when its own test holds (or it has none) and no earlier test of the chain held
      const own = values[at];
      if (own === false || values.slice(0, at).some((v) => v === true)) return 'it runs only where a test of a signature holds, which it does not in the target: it is written for another version';
    }
    return undefined;
  }

  /** A test of a signature evaluated against the target; undefined when the condition is no such test. */
  private signatureTest(cond: Node, scope: Scope): boolean | 'unknown' | undefined {
    let t: Node = cond;
    let negate = false;
    for (;;) {
      if (t.type === 'parenthesized_expression' && t.namedChildren.length === 1) t = t.namedChildren[0]!;
      else if (t.type === 'not_operator' && t.childForFieldName('argument')) {
        negate = !negate;
        t = t.childForFieldName('argument')!;
      } else break;
    }
    const speaks = SIGNATURE_TEST.test(cond.text);
    if (t.type === 'boolean_operator') {
      // `ready and "tags" in sig.parameters`: decided when a test of a signature decides it
      const left = t.childForFieldName('left');
      const right = t.childForFieldName('right');
      const op = left && right ? t.text.slice(left.endIndex - t.startIndex, right.startIndex - t.startIndex).trim() : '';
      if (!left || !right || (op !== 'and' && op !== 'or')) return speaks ? 'unknown' : undefined;
      const vs = [this.signatureTest(left, scope), this.signatureTest(right, scope)];
      const decides = op === 'and' ? false : true;
      let v: boolean | 'unknown' | undefined;
      if (vs.includes(decides)) v = decides;
      else if (vs.includes('unknown')) v = 'unknown';
      else if (vs.every((x) => x === !decides)) v = !decides;
      else v = undefined; // the other operand decides, as in any condition
      return typeof v === 'boolean' ? v !== negate : v;
    }
    if (t.type === 'identifier') {
      // a name bound once to such a test (`has_block_size = "block_size" in sig.parameters`)
      const b = this.boundOnce(t.text, scope);
      if (b && 'node' in b && b.node.type === 'comparison_operator') {
        const v = this.signatureTest(b.node, b.scope);
        return typeof v === 'boolean' ? v !== negate : v;
      }
      return this.signatureFlag(t.text) ? 'unknown' : undefined;
    }
    if (t.type !== 'comparison_operator' || t.namedChildren.length !== 2) return speaks ? 'unknown' : undefined;
    const [left, right] = t.namedChildren as Node[];
    const op = t.text.slice(left.endIndex - t.startIndex, right.startIndex - t.startIndex).replace(/\s+/g, ' ').trim();
    const name = /^(['"])([A-Za-z_]\w*)\1$/.exec(left.text)?.[2];
    if (!name || (op !== 'in' && op !== 'not in')) return speaks ? 'unknown' : undefined;
    const params = this.signatureParams(right, scope);
    // `"x" in sig.parameters` where the file binds `sig` to a signature in a way not followed here
    const holder = /^([A-Za-z_]\w*)\.(parameters|args|kwonlyargs)\b/.exec(right.text)?.[1];
    if (params === undefined) return speaks || (holder && this.signatureFlag(holder)) ? 'unknown' : undefined;
    if (params === 'unknown') return 'unknown';
    return params.includes(name) !== (op === 'not in') !== negate;
  }

  /** A name the file binds to a test of a signature at some line (`HAS_X = "x" in signature(f).parameters`). */
  private signatureFlag(name: string): boolean {
    const re = new RegExp(`^[ \\t]*(?:self\\.)?${name}[ \\t]*(?::[^=\\n]*)?=(?!=)(.*)$`, 'gm');
    for (const m of this.shared.text.matchAll(re)) if (SIGNATURE_TEST.test(m[1])) return true;
    return false;
  }

  /**
   * The parameter names that `inspect.signature(f).parameters` (or `inspect.getfullargspec(f).args`,
   * `.kwonlyargs`) holds against the target, possibly through names bound once to the signature or
   * to its parameters; 'unknown' when `f` cannot be told; undefined when `e` is none of these.
   */
  private signatureParams(e: Node, scope: Scope, depth = 0): string[] | 'unknown' | undefined {
    if (depth > 4) return undefined;
    if (e.type === 'identifier') {
      const b = this.boundOnce(e.text, scope);
      return b && 'node' in b ? this.signatureParams(b.node, b.scope, depth + 1) : undefined;
    }
    if (e.type === 'call') {
      // `set(sig.parameters)`, `list(...)`, `sig.parameters.keys()`: the same names
      const fn = e.childForFieldName('function');
      const args = argumentNodes(e.childForFieldName('arguments'));
      if (fn?.type === 'identifier' && /^(set|frozenset|list|tuple)$/.test(fn.text) && args.length === 1) return this.signatureParams(args[0], scope, depth + 1);
      if (fn?.type === 'attribute' && fn.childForFieldName('attribute')?.text === 'keys' && args.length === 0) return this.signatureParams(fn.childForFieldName('object')!, scope, depth + 1);
      return undefined;
    }
    if (e.type !== 'attribute') return undefined;
    const attr = e.childForFieldName('attribute')?.text;
    let obj = e.childForFieldName('object');
    let objScope = scope;
    if (!attr || !obj || !['parameters', 'args', 'kwonlyargs'].includes(attr)) return undefined;
    if (obj.type === 'identifier') {
      const b = this.boundOnce(obj.text, scope);
      if (!b || !('node' in b)) return undefined;
      obj = b.node;
      objScope = b.scope;
    }
    if (obj.type !== 'call') return undefined;
    const fn = obj.childForFieldName('function')?.text ?? '';
    if (attr === 'parameters' ? !/^(inspect\.)?signature$/.test(fn) : !/^(inspect\.)?getfullargspec$/.test(fn)) return undefined;
    const args = argumentNodes(obj.childForFieldName('arguments'));
    if (args.length !== 1 || args[0].type === 'keyword_argument' || args[0].type === 'list_splat' || args[0].type === 'dictionary_splat') return 'unknown';
    // `C.__init__` of a class whose `__init__` the engine builds (a dataclass's): the constructor's
    const direct = this.valueOfExpr(args[0], objScope);
    const init = direct?.kind !== 'function' && args[0].type === 'attribute' && args[0].childForFieldName('attribute')?.text === '__init__' ? args[0].childForFieldName('object') : null;
    const owner = init ? this.valueOfExpr(init, objScope) : undefined;
    const v = owner?.kind === 'class' ? owner : direct;
    // a callable from outside the target: no test of the target's versions
    if (v?.kind === 'external') return undefined;
    if (!v || (v.kind !== 'function' && v.kind !== 'class')) return 'unknown';
    const spec = this.checker.callables.specOf(v, 'class');
    if (spec.kind !== 'known') return 'unknown';
    const kinds: ParamKind[] = attr === 'parameters' ? ['posonly', 'normal', 'varargs', 'kwonly', 'varkw'] : attr === 'args' ? ['posonly', 'normal'] : ['kwonly'];
    const lists = spec.alternatives.map((a) => a[a.length - 1].params.filter((p) => kinds.includes(p.kind)).map((p) => p.name));
    // every alternative the engine sees must give the same names
    const key = (l: string[]): string => [...l].sort().join(',');
    return lists.length > 0 && lists.every((l) => key(l) === key(lists[0])) ? lists[0] : 'unknown';
  }

  /** Whether the file's text may test a signature anywhere (see `signatureChosen`). */
  private testsSignatures?: boolean;

  private versionChosenHere?: string[];

  /**
   * Functions of the module that it uses only in code chosen by a version test (`patched =
   * for_v11 if version.parse(v) >= version.parse("0.11") else for_v10`): each is written for one
   * version. A name used nowhere else in the file, and not listed in `__all__`; sorted.
   */
  private versionChosen(): string[] {
    if (this.versionChosenHere) return this.versionChosenHere;
    const text = this.shared.text;
    if (text === chosenMemo.text) return (this.versionChosenHere = chosenMemo.chosen);
    const out: string[] = [];
    // the branches of the if statements and conditional expressions whose test speaks of a
    // version, by chain: a chain with an `else` covers every version
    const branches: Array<{ chain: number; at: number; start: number; end: number }> = [];
    const complete: boolean[] = [];
    const sizes: number[] = [];
    const seen = new Set<number>();
    if (/version/i.test(text)) {
      for (const m of text.matchAll(/\bif\b[^\n]*version/gi)) {
        let n: Node | null = this.root.descendantForIndex(m.index!);
        while (n && n.type !== 'if_statement' && n.type !== 'conditional_expression' && n.type !== 'module' && n.type !== 'block') n = n.parent;
        if (!n || (n.type !== 'if_statement' && n.type !== 'conditional_expression') || seen.has(n.startIndex)) continue;
        seen.add(n.startIndex);
        // the chain's tests must speak of a version (not only a string that says "version")
        const tests = n.type === 'if_statement' ? [n.childForFieldName('condition'), ...n.namedChildren.filter((c) => c?.type === 'elif_clause').map((c) => c!.childForFieldName('condition'))] : [n.namedChildren.filter((c) => c && c.type !== 'comment')[1]];
        if (!tests.some((t) => t && testsVersion(t))) continue;
        const chain = complete.length;
        const parts: Array<Node | null | undefined> = [];
        if (n.type === 'if_statement') {
          // its branches, not its tests (a helper a test calls runs whatever the version)
          parts.push(n.childForFieldName('consequence'));
          for (const c of n.namedChildren) if (c?.type === 'elif_clause') parts.push(c.childForFieldName('consequence'));
          const other = n.namedChildren.find((c) => c?.type === 'else_clause');
          if (other) parts.push(other.childForFieldName('body'));
          complete.push(!!other);
        } else {
          const kids = n.namedChildren.filter((c) => c && c.type !== 'comment');
          parts.push(kids[0], kids[2]);
          complete.push(true);
        }
        sizes.push(parts.length);
        parts.forEach((b, at) => b && branches.push({ chain, at, start: b.startIndex, end: b.endIndex }));
      }
    }
    if (branches.length > 0) {
      // functions of the module named in those branches, then each of them used nowhere else,
      // and not in every branch of a chain that covers every version
      const named = new Set(branches.flatMap((b) => text.slice(b.start, b.end).match(/[A-Za-z_]\w*/g) ?? []));
      const all = this.summary.all;
      for (const [name, bs] of this.summary.bindings) {
        if (!named.has(name) || bs.length !== 1 || bs[0].kind !== 'def' || (Array.isArray(all) && all.includes(name))) continue;
        let uses = 0;
        let inside = true;
        const hit = new Map<number, Set<number>>();
        for (const m of text.matchAll(new RegExp(`(?<![\\w.])${name}\\b`, 'g'))) {
          const at = m.index!;
          // the def itself
          if (/\bdef\s+$/.test(text.slice(text.lastIndexOf('\n', at - 1) + 1, at))) continue;
          uses++;
          const within = branches.filter((b) => at >= b.start && at < b.end);
          if (within.length === 0) {
            inside = false;
            break;
          }
          for (const b of within) hit.set(b.chain, (hit.get(b.chain) ?? new Set()).add(b.at));
        }
        const everywhere = [...hit].some(([chain, ats]) => complete[chain] && ats.size === sizes[chain]);
        if (uses > 0 && inside && !everywhere) out.push(name);
      }
    }
    chosenMemo.text = text;
    chosenMemo.chosen = out.sort();
    return (this.versionChosenHere = chosenMemo.chosen);
  }

  /**
   * The callee's first name (`f` of `f(...)`, `E` of `E.m(...)` and `E().m(...)`) is a name of the module that only
   * code under a version test binds (`if is_available(min_version="0.22"): from lib import E`): the
   * call is written for the version that branch is for, like the code in it. Why, or undefined.
   */
  private boundForOneVersion(fn: Node, scope: Scope): string | undefined {
    let head: Node | null = fn;
    while (head && (head.type === 'attribute' || head.type === 'call')) head = head.childForFieldName(head.type === 'call' ? 'function' : 'object');
    if (head?.type !== 'identifier') return undefined;
    const name = head.text;
    for (let s: Scope | undefined = scope; s && s.kind !== 'module'; s = s.parent) {
      if (s.kind === 'function' && !s.globals.has(name) && s.locals.has(name)) return undefined;
      if (s.kind === 'function' && s.globals.has(name)) break;
    }
    const bs = this.summary.bindings.get(name);
    if (!bs || bs.length === 0) return undefined;
    let dead = true;
    for (const b of bs) {
      const state = this.bindingState(b);
      // bound where no version test (or only tests the target passes) stands above it
      if (state === 'runs' || state === undefined) return undefined;
      if (state !== 'dead') dead = false;
    }
    if (dead) return `${name} is bound only under version tests that fail on the target's version: the call is written for other versions`;
    return `${name} is bound only under a version test: the call is written for the version that branch is for`;
  }

  /** The statement of the file that makes a module-level binding (at its line's first word). */
  private bindingNode(b: Binding): Node | undefined {
    const row = b.line - 1;
    const text = this.lines[row];
    if (text === undefined) return undefined;
    const column = text.length - text.trimStart().length;
    return this.root.descendantForPosition({ row, column }) ?? undefined;
  }

  /** Whether a module-level binding runs on the target (see `versionState`); undefined when its statement is not found. */
  private bindingState(b: Binding): 'runs' | 'dead' | 'tested' | undefined {
    const at = this.bindingNode(b);
    return at ? versionState(at, this.decideVersion) : undefined;
  }

  /**
   * A module-level name bound in several places, some under version tests that the target's
   * version decides against: those bindings never run on the target, and the name holds what the
   * others bind (`if V >= "0.12": from a import f` / `else: from b import f`). The bindings that
   * run, when that drops some (and leaves any); else undefined.
   */
  private liveBindings(bs: Binding[]): Binding[] | undefined {
    if (bs.length < 2 || !/version/i.test(this.shared.text)) return undefined;
    const live = bs.filter((b) => this.bindingState(b) !== 'dead');
    return live.length > 0 && live.length < bs.length ? live : undefined;
  }

  /** What a name refers to at a point of the user's code; undefined when it is not traceable into the target. */
  /**
   * What `resolveName` gave each name in each scope, looked up with no assigned value being
   * followed (a value found while one is, may be cut short by `followOnce`: those are not kept).
   */
  private readonly resolved = new WeakMap<Scope, Map<string, Value | undefined>>();

  private resolveName(name: string, scope: Scope): Value | undefined {
    if (this.following.size > 0) return this.resolveNameUncached(name, scope);
    let memo = this.resolved.get(scope);
    if (!memo) this.resolved.set(scope, (memo = new Map()));
    if (memo.has(name)) return memo.get(name);
    const v = this.resolveNameUncached(name, scope);
    memo.set(name, v);
    return v;
  }

  private resolveNameUncached(name: string, scope: Scope): Value | undefined {
    let s: Scope | undefined = scope;
    while (s && s.kind !== 'module') {
      // names bound in class bodies are not followed, and are invisible to nested functions; code
      // that runs in the body itself (a method's decorators and defaults, a class-level value)
      // sees them first: `@locale.setter` after the property `locale` is not the module `locale`
      if (s.kind === 'class' && s === scope && classBinds(s, name)) return undefined;
      if (s.kind === 'function') {
        if (s.globals.has(name)) break;
        const list = s.locals.get(name);
        if (list) {
          if (list.length === 1 && list[0]) {
            const b = list[0];
            if (b.kind === 'assigned') return this.assignedLocal(b, s);
            if (b.kind === 'param') return this.parameterValue(b, s);
            if (b.kind === 'with') return this.enteredValue(b.value, s);
            if (b.kind === 'for') return this.forValue(b, s);
            if (b.kind === 'localClass') {
              const cls = this.localClass(b.node, s);
              return cls ? { kind: 'class', cls, summary: this.summary } : undefined;
            }
          }
          if (list.some((b) => b === null || b.kind === 'localClass')) return undefined;
          if (list.some((b) => b!.kind === 'assigned' || b!.kind === 'param' || b!.kind === 'with' || b!.kind === 'for')) {
            // bound in several places: where it is read it holds one of their values, so a call on
            // it is followed when each of them is an instance of a class the engine knows
            const values: Value[] = [];
            for (const b of list as LocalBinding[]) {
              // `x = None` then `x = C()`: a method called on None fails anyway
              if (b.kind === 'assigned' && b.value.type === 'none') continue;
              const v = b.kind === 'assigned' ? this.assignedLocal(b, s) : b.kind === 'param' ? this.parameterValue(b, s) : b.kind === 'with' ? this.enteredValue(b.value, s) : b.kind === 'for' ? this.forValue(b, s) : undefined;
              if (!v || !(v.kind === 'instance' || isInstanceUnion(v))) return undefined;
              values.push(v);
            }
            if (values.length === 0) return undefined;
            const v = agree(values);
            return v.kind === 'instance' || isInstanceUnion(v) ? v : undefined;
          }
          const values = (list as Binding[]).map((b) => this.program.valueOfBinding(b, this.summary, 0));
          // `from m import REGISTRY` inside the function: as at module level (below)
          const only = list.length === 1 ? (list[0] as Binding) : undefined;
          if (values.length === 1 && values[0].kind === 'unknown' && only?.kind === 'from' && !this.patched().includes(only.name) && !this.opts.projectPatched?.has(only.name)) {
            const inst = this.checker.receivers.moduleInstance(only.module, only.name);
            if (inst) return inst;
          }
          return values.length === 1 ? values[0] : { kind: 'anyOf', values };
        }
      }
      s = s.parent;
    }
    const all = this.summary.bindings.get(name);
    if (!all) return undefined;
    const live = this.liveBindings(all);
    if (live && live.length > 1) return this.program.valueOfBindings(live, this.summary, 0);
    const bs = live ?? all;
    // `x = C(...)` at module level, bound once and never declared global in a function
    if (bs.length === 1 && bs[0].kind === 'value' && bs[0].expr.kind === 'call' && !new RegExp(`\\bglobal\\s[^\\n]*\\b${name}\\b`).test(this.shared.text)) {
      const r = this.checker.receivers.callResult(this.program.evalExpr(bs[0].expr.callee, this.summary));
      if (r.kind === 'instance') return r;
    }
    const v = live ? this.program.valueOfBindings(live, this.summary, 0) : this.program.resolveGlobal(this.summary, name);
    const b = bs.length === 1 ? bs[0] : undefined;
    // `from m import REGISTRY` where m binds it once to `C(...)`: an instance of C (unless this file
    // or the project sets that name from outside)
    if (v.kind === 'unknown' && b?.kind === 'from' && !this.patched().includes(b.name) && !this.opts.projectPatched?.has(b.name)) {
      const inst = this.checker.receivers.moduleInstance(b.module, b.name);
      if (inst) return inst;
    }
    // `from m import X` where X moved to another module (reported on the import): its uses are
    // checked against where it lives now, which is what they meet once the import is set right
    // the same where the whole module is gone (it was Python source in the baseline, so no build
    // makes it: the import is reported) and its names moved together
    if (b?.kind === 'from' && !this.opts.moduleName && (v.kind === 'missing' || (v.kind !== 'class' && v.kind !== 'function' && !this.program.findModule(b.module) && this.opts.crossVersion?.baselineHasSource(b.module)))) {
      const to = this.opts.crossVersion?.movedName(b.module, b.name);
      if (to) return this.program.resolveMember(to, b.name);
    }
    return v;
  }

  /**
   * The module-level class whose classmethod (or `__new__`, `__init_subclass__`,
   * `__class_getitem__`) binds `name` as its first parameter: `name` holds that class or a subclass.
   */
  private clsParameter(name: string, scope: Scope): ClassInfo | undefined {
    let s: Scope | undefined = scope;
    while (s && s.kind !== 'module') {
      const list = s.kind === 'function' ? s.locals.get(name) : undefined;
      if (s.kind === 'function' && s.globals.has(name)) return undefined;
      if (list) {
        const b = list.length === 1 ? list[0] : null;
        if (!b || b.kind !== 'param' || !b.first) return undefined;
        const m = this.methodOf(s);
        if (!m) return undefined;
        const fname = s.node.childForFieldName('name')?.text;
        const implicit = fname === '__new__' || fname === '__init_subclass__' || fname === '__class_getitem__';
        const classmethod = m.decorators.some((d) => /^(classmethod|builtins\.classmethod)$/.test(d));
        // another decorator may change what the first parameter is
        return (implicit && m.decorators.length === 0) || (classmethod && m.decorators.length === 1) ? m.cls : undefined;
      }
      s = s.parent;
    }
    return undefined;
  }

  /** A parameter annotated `type[C]` (bound once): C or a subclass of it; undefined for anything else. */
  private typeParameter(name: string, scope: Scope): { cls: ClassInfo; summary: ModuleSummary } | { untraced: string } | undefined {
    let s: Scope | undefined = scope;
    while (s && s.kind !== 'module') {
      if (s.kind === 'function' && s.globals.has(name)) return undefined;
      const list = s.kind === 'function' ? s.locals.get(name) : undefined;
      if (list) {
        const b = list.length === 1 ? list[0] : null;
        if (!b || b.kind !== 'param' || !b.annotation || (b.first && this.methodOf(s))) return undefined;
        const inner = classOfType(b.annotation);
        if (!inner) return undefined;
        const v = this.checker.receivers.annotated(inner, this.summary);
        if (v.kind === 'instance') return { cls: v.cls, summary: v.summary };
        return v.kind === 'unknown' && v.target ? { untraced: v.reason } : undefined;
      }
      s = s.parent;
    }
    return undefined;
  }

  /**
   * A class defined in a function body, summarised as a module-level class is, so that `self` in
   * its methods, `super()` and what it overrides are followed: only when no function around it
   * binds a name its bases, keywords or decorators start from (a local `Base = pick()` or a
   * parameter would make the module's name the wrong one), and not inside another class.
   */
  private localClass(node: Node, scope: Scope): ClassInfo | undefined {
    const outer = node.parent?.type === 'decorated_definition' ? node.parent : node;
    const roots = new Set<string>();
    const read = (n: Node | null | undefined): void => {
      if (!n) return;
      if (n.type === 'identifier') roots.add(n.text);
      else for (const c of n.namedChildren) read(c);
    };
    read(node.childForFieldName('superclasses'));
    if (outer !== node) for (const d of outer.namedChildren) if (d?.type === 'decorator') read(d);
    const names: string[] = [];
    /** roots the functions around bind by one import of their own, before the class */
    const imported = new Map<string, Expr>();
    for (let s: Scope | undefined = scope; s && s.kind !== 'module'; s = s.parent) {
      if (s.kind === 'class') return undefined;
      if (s.comprehension) continue;
      names.push(s.node.childForFieldName('name')?.text ?? '<lambda>');
      for (const r of roots) {
        if (imported.has(r)) continue;
        const only = s.locals.get(r);
        const b = only?.length === 1 ? only[0] : undefined;
        if (b && (b.kind === 'from' || b.kind === 'module') && !s.globals.has(r) && b.line - 1 < node.startPosition.row && importedOnce(s.node, r)) {
          imported.set(r, b.kind === 'from' ? { kind: 'imported', module: b.module, name: b.name } : { kind: 'imported', module: b.module });
          continue;
        }
        if (s.locals.has(r) || s.globals.has(r) || bindsInText(s.node.text, r)) return undefined;
      }
    }
    const info = localClassInfo(outer, this.moduleName, !!this.opts.isPackage, this.imports, `${this.moduleName}.${names.reverse().join('.<locals>.')}.<locals>`);
    if (info && imported.size > 0) {
      info.bases = info.bases.map((b) => withImported(b, imported));
      info.decorators = info.decorators.map((d) => withImported(d, imported));
      for (const [k, v] of info.keywords) info.keywords.set(k, withImported(v, imported));
    }
    return info;
  }

  /** The class whose method a function scope is (module-level, or defined in a function body), and the function's decorators' names. */
  private methodOf(fnScope: Scope): { cls: ClassInfo; decorators: string[] } | undefined {
    const clsScope = fnScope.parent;
    if (!clsScope || clsScope.kind !== 'class' || !clsScope.cls || fnScope.node.type !== 'function_definition') return undefined;
    const deco = fnScope.node.parent?.type === 'decorated_definition' ? fnScope.node.parent : undefined;
    const decorators = deco ? deco.namedChildren.filter((c) => c?.type === 'decorator').map((c) => c!.text.replace(/^@\s*/, '').replace(/\s+/g, '')) : [];
    return { cls: clsScope.cls, decorators };
  }

  /**
   * A local's assigned value: what the value is when it is an instance the engine follows, else
   * what the local's annotation declares (`cfg: VllmConfig = get_config()`: a VllmConfig or a
   * subclass, as for a parameter annotated so).
   */
  private assignedLocal(b: { value: Node; annotation?: string }, fnScope: Scope): Value | undefined {
    const p = this.partialOf(b.value, fnScope);
    if (p) return p;
    const v = this.instanceFrom(b.value, fnScope);
    if ((v && (v.kind === 'instance' || isInstanceUnion(v))) || !b.annotation) return v;
    return this.parameterValue({ annotation: b.annotation, first: false }, fnScope) ?? v;
  }

  /**
   * `functools.partial(f, ...)` of a plain function or a class (not a method taken off an instance,
   * whose own first parameter the partial does not bind): called, it calls `f` with its arguments
   * first (see `Callables.partialSpec`).
   */
  private partialOf(value: Node, scope: Scope): Value | undefined {
    if (value.type !== 'call') return undefined;
    const callee = value.childForFieldName('function');
    const list = value.childForFieldName('arguments');
    if (!callee || !list || list.type !== 'argument_list' || (callee.type !== 'identifier' && callee.type !== 'attribute')) return undefined;
    const nodes = argumentNodes(list);
    const first = nodes[0];
    if (!first || (first.type !== 'identifier' && first.type !== 'attribute')) return undefined;
    // `f = partial(f, ...)`, or names bound from each other: what depends on itself is not followed
    return this.followOnce(value, () => {
      if (this.stdQualname(callee, scope) !== 'functools.partial') return undefined;
      const base = this.valueOfExpr(first, scope);
      if (!base || !((base.kind === 'function' && !base.owner && !base.classAttr) || base.kind === 'class')) return undefined;
      return { kind: 'partial', base, args: nodes.slice(1).map((n) => argExpr(n)) };
    });
  }

  /**
   * A parameter: `self` of a method of a module-level class is an instance of that class or of a
   * subclass (declared); a parameter annotated with a class is an instance of it or of a subclass.
   */
  private parameterValue(b: { annotation?: string; first: boolean }, fnScope: Scope): Value | undefined {
    if (b.first) {
      const m = this.methodOf(fnScope);
      if (m) {
        if (m.decorators.some((d) => /^(staticmethod|classmethod|builtins\.(staticmethod|classmethod))$/.test(d))) return undefined;
        const name = fnScope.node.childForFieldName('name')?.text;
        if (name === '__new__' || name === '__init_subclass__' || name === '__class_getitem__') return undefined;
        // `self` is an instance of the class or of a subclass: no annotation that may be broken says so
        return { kind: 'instance', cls: m.cls, summary: this.summary, declared: true, self: true };
      }
    }
    if (!b.annotation) return undefined;
    const v = this.checker.receivers.annotated(b.annotation, this.summary);
    return v.kind === 'instance' || isInstanceUnion(v) || (v.kind === 'unknown' && v.target) ? v : undefined;
  }

  /** A loop target's value (see `LocalBinding`): unpacked through a builtin only where the name is that builtin. */
  private forValue(b: { iter: Node; how?: 'iter' | 'values' | 'keys'; via?: string }, scope: Scope): Value | undefined {
    if (b.via && !this.isBuiltinHere(b.via, scope)) return undefined;
    return this.loopValue(b.iter, scope, b.how);
  }

  /** Whether `name` is the builtin where `scope` reads it: no scope around it (a class body's too, to be safe), nor the module, nor a star import binds it. */
  private isBuiltinHere(name: string, scope: Scope): boolean {
    for (let s: Scope | undefined = scope; s; s = s.parent) if (s.locals.has(name)) return false;
    return !this.summary.bindings.has(name) && this.summary.starImports.length === 0;
  }

  /** `for x in c` / `for x in c.values()` / `for x in c.keys()` / `for x in f()`: an element of a container whose annotation says what it holds. */
  private loopValue(iter: Node, scope: Scope, given?: 'iter' | 'values' | 'keys'): Value | undefined {
    let how: 'iter' | 'values' | 'keys' = given ?? 'iter';
    let over = iter;
    if (!given && iter.type === 'call' && (iter.childForFieldName('arguments')?.namedChildren.length ?? 1) === 0) {
      const fn = iter.childForFieldName('function');
      const m = fn?.type === 'attribute' ? fn.childForFieldName('attribute')?.text : undefined;
      const obj = fn?.childForFieldName('object');
      // `c.values()` / `c.keys()`; any other call gives the container itself (`for x in f()`)
      if (obj && (m === 'values' || m === 'keys')) {
        how = m === 'values' ? 'values' : 'iter';
        over = obj;
      }
    }
    const c = this.valueOfExpr(over, scope);
    return c ? this.checker.receivers.element(c, how) : undefined;
  }

  /** `with value as name`: the object `__enter__` returns, when it returns the instance itself. */
  private enteredValue(value: Node, scope: Scope): Value | undefined {
    const inst = this.instanceFrom(value, scope);
    if (!inst || inst.kind !== 'instance') return undefined;
    const enter = this.checker.receivers.member(inst, '__enter__');
    if (enter.kind !== 'function') return undefined;
    if (enter.fn.returnsFirstArg) return inst;
    if (!enter.fn.returns) return undefined;
    const r = this.checker.receivers.annotated(enter.fn.returns, enter.summary, enter.owner);
    return r.kind === 'instance' && r.cls === inst.cls ? inst : undefined;
  }

  /**
   * `x = C(...)` binds x to an instance of exactly C when C is a class built the usual way;
   * `x = f(...)` to an instance of the class f's return annotation names (or a subclass).
   */
  private instanceFrom(value: Node, scope: Scope): Value | undefined {
    if (value.type === 'conditional_expression' || value.type === 'parenthesized_expression') {
      // `a if c else b` is one of the two; `(a)` is a
      const parts = value.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment');
      const arms = value.type === 'conditional_expression' ? [parts[0], parts[2]] : parts.length === 1 ? [parts[0]] : [];
      if (arms.length === 0 || arms.some((a) => !a)) return undefined;
      const values: Value[] = [];
      for (const a of arms) {
        // `x = C() if c else None`: a method called on None fails anyway
        if (a.type === 'none' && arms.length === 2) continue;
        const v = this.instanceFrom(a, scope);
        if (!v || !(v.kind === 'instance' || isInstanceUnion(v))) return undefined;
        values.push(v);
      }
      if (values.length === 0) return undefined;
      const v = agree(values);
      return v.kind === 'instance' || isInstanceUnion(v) ? v : undefined;
    }
    // `x = items[0]`: an item of a container of the target's instances
    if (value.type === 'subscript') {
      const v = this.followOnce(value, () => this.valueOfExpr(value, scope));
      return v && (v.kind === 'instance' || isInstanceUnion(v) || (v.kind === 'external' && v.args)) ? v : undefined;
    }
    // `x = d.get(k)`: an item of a mapping of the target's instances (or None)
    if (isMappingGet(value)) {
      const v = this.followOnce(value, () => this.valueOfExpr(value, scope));
      if (v && (v.kind === 'instance' || isInstanceUnion(v) || (v.kind === 'external' && v.args))) return v;
    }
    // `x = y` and `x = a.b.c` take the value of what they name
    const fn = value.type === 'call' ? value.childForFieldName('function') : value.type === 'identifier' || value.type === 'attribute' ? value : null;
    if (!fn || (fn.type !== 'identifier' && fn.type !== 'attribute')) return undefined;
    const c = this.followOnce(value, () => this.valueOfExpr(fn, scope));
    if (!c) return undefined;
    if (value.type !== 'call') {
      // a method taken off an instance is bound: it is not followed as a plain function
      if (c.kind === 'instance' || c.kind === 'module' || c.kind === 'class' || (c.kind === 'function' && !c.owner) || c.kind === 'external') return c;
      return undefined;
    }
    if (c.kind === 'class' && this.isUser(c.summary)) {
      // a user class: an instance of it when it builds one the usual way
      return this.checker.callables.buildsPlainInstance(c.cls, c.summary) ? { kind: 'instance', cls: c.cls, summary: c.summary } : undefined;
    }
    const r = this.checker.receivers.callResult(c);
    // a container of the target's instances (`-> list[RequestOutput]`): its items are followed
    return r.kind === 'instance' || (r.kind === 'external' && r.args) ? r : undefined;
  }

  /** Assigned values whose class is being looked up (against self-reference). */
  private readonly following = new Set<number>();

  /** `look()` for an assigned value, unless it is being looked up already: `x = x.f()`, or `a = b(); b = a()` in loops, depend on themselves and are not followed. */
  private followOnce(value: Node, look: () => Value | undefined): Value | undefined {
    if (this.following.has(value.id)) return undefined;
    this.following.add(value.id);
    try {
      return look();
    } finally {
      this.following.delete(value.id);
    }
  }

  private valueOfExpr(node: Node, scope: Scope): Value | undefined {
    if (node.type === 'identifier') return this.nameValue(node, scope);
    if (node.type === 'attribute') {
      const obj = node.childForFieldName('object');
      const attr = node.childForFieldName('attribute');
      if (!obj || !attr) return undefined;
      const base = this.valueOfExpr(obj, scope);
      if (!base) return undefined;
      if (base.kind === 'instance') return this.checker.receivers.member(base, attr.text);
      if (isInstanceUnion(base)) return agree(base.values.map((b) => this.checker.receivers.member(b, attr.text)));
      // a member of an enum is an instance of the enum
      if (base.kind === 'class') return this.checker.receivers.enumAttribute(base.cls, base.summary, attr.text) ?? this.program.attribute(base, attr.text);
      return this.program.attribute(base, attr.text);
    }
    if (node.type === 'subscript') {
      const inner = node.childForFieldName('value');
      const c = inner ? this.valueOfExpr(inner, scope) : undefined;
      return c && node.childrenForFieldName('subscript').length === 1 && node.childForFieldName('subscript')?.type !== 'slice' ? this.checker.receivers.element(c, 'item') : undefined;
    }
    if (isMappingGet(node)) {
      const obj = node.childForFieldName('function')!.childForFieldName('object');
      const c = obj ? this.valueOfExpr(obj, scope) : undefined;
      if (c?.kind === 'external' && c.args) return this.checker.receivers.element(c, 'item');
    }
    if (node.type === 'call' || node.type === 'parenthesized_expression') {
      if (node.type === 'parenthesized_expression') {
        const inner = node.namedChildren.filter((c) => c && c.type !== 'comment');
        return inner.length === 1 && inner[0] ? this.valueOfExpr(inner[0], scope) : undefined;
      }
      return this.instanceFrom(node, scope);
    }
    return undefined;
  }

  /** The names the file passes to isinstance as the tested object (see `narrowed`). */
  private testedNames?: Set<string>;

  /** The value of a name where `id` reads it: narrowed by an isinstance test above it (see `narrowed`), else what its bindings give. */
  private nameValue(id: Node, scope: Scope): Value | undefined {
    return this.narrowed(id, scope) ?? this.resolveName(id.text, scope);
  }

  /**
   * A class that an isinstance test proves the name read at `id` holds, within the function (or
   * module) that reads it: `assert isinstance(x, C)` or `if not isinstance(x, C): raise` (or
   * return, continue, break) above it in its block or a block around it, or `if isinstance(x, C):`
   * around it. Nothing between the test and the read may bind the name again (a loop crossed on
   * the way must not bind it anywhere). The name then holds a C or an instance of a subclass, as
   * a parameter annotated C does. `C` is a name or dotted name of the module's, not a local.
   */
  private narrowed(id: Node, scope: Scope): Value | undefined {
    const name = id.text;
    // only names the file tests at all are looked for
    this.testedNames ??= new Set([...this.shared.text.matchAll(/\bisinstance\s*\(\s*([A-Za-z_]\w*)\s*,/g)].map((m) => m[1]));
    if (!this.testedNames.has(name)) return undefined;
    const binds = (st: Node): boolean => bindsName(st, name);
    const tested = (cond: Node | null | undefined, negated: boolean): Value | undefined => {
      const cls = isinstanceOf(cond, name, negated);
      if (!cls) return undefined;
      // the class's name is read at module level: a local of that name is not followed
      for (let s: Scope | undefined = scope; s && s.kind !== 'module'; s = s.parent) if (s.locals.has(cls.split('.')[0])) return undefined;
      const v = this.parameterValue({ annotation: cls, first: false }, scope);
      return v?.kind === 'instance' ? v : undefined;
    };
    for (let child: Node = id, p = id.parent; p; child = p, p = p.parent) {
      if (NARROWING_STOPS.has(p.type)) return undefined;
      // a loop runs its body again after what follows the read; a statement's header (`for x
      // in`, `with ... as x`, `except E as x`), a try body before its handler and a condition
      // before its branch run before the read
      if (p.type === 'for_statement' || p.type === 'while_statement' ? binds(p) : p.type !== 'block' && p.type !== 'module' && bindsInText(p.text.slice(0, child.startIndex - p.startIndex), name)) return undefined;
      if (p.type === 'if_statement' && child.id === p.childForFieldName('consequence')?.id) {
        const v = tested(p.childForFieldName('condition'), false);
        if (v) return v;
      }
      if (p.type !== 'block' && p.type !== 'module') continue;
      // the simple statement holding the read may bind the name before it (a walrus): not followed
      if (child.type !== 'block' && child.text.includes(':=') && bindsInText(child.text, name)) return undefined;
      for (let st = child.previousNamedSibling; st; st = st.previousNamedSibling) {
        if (st.type === 'assert_statement') {
          const v = tested(st.namedChildren.find((c) => c && c.type !== 'comment'), false);
          if (v) return v;
        }
        if (st.type === 'if_statement') {
          const cond = earlyExit(st, BLOCK_EXITS);
          const v = cond && !binds(st.childForFieldName('consequence')!) ? tested(cond, true) : undefined;
          if (v) return v;
        }
        if (binds(st)) return undefined;
      }
    }
    return undefined;
  }

  /**
   * The one place a name is bound (read from `scope`): the expression a local is assigned, entered
   * (`with E as name`) or iterated over (`for name in E`), with the local's scope; or the value of
   * a module-level `name = E`. Undefined for a name bound several ways, a parameter or an import.
   */
  private boundOnce(name: string, scope: Scope): { node: Node; scope: Scope } | { expr: Expr } | undefined {
    let s: Scope | undefined = scope;
    while (s && s.kind !== 'module') {
      const at: Scope = s;
      s = at.parent;
      if (at.kind !== 'function') continue;
      if (at.globals.has(name)) break;
      const list = at.locals.get(name);
      if (!list) continue;
      const b = list.length === 1 ? list[0] : null;
      if (!b) return undefined;
      if (b.kind === 'assigned' || b.kind === 'with') return { node: b.value, scope: at };
      if (b.kind === 'for') return { node: b.iter, scope: at };
      return undefined;
    }
    const bs = this.summary.bindings.get(name);
    return bs?.length === 1 && bs[0].kind === 'value' ? { expr: bs[0].expr } : undefined;
  }

  /** `fromTarget` for a module-level value: a chain of attributes, calls and subscripts that starts at a name bound to the target. */
  private exprFromTarget(e: Expr, depth: number): boolean {
    if (depth > 20) return false;
    switch (e.kind) {
      case 'name':
        return this.targetish(this.program.resolveGlobal(this.summary, e.name));
      case 'attr': {
        // a target function or class read off a module of the user's that imports it
        const base = e.base.kind === 'name' ? this.program.resolveGlobal(this.summary, e.base.name) : undefined;
        if (base?.kind === 'module' && this.program.isUserModule(base.name)) return this.targetish(this.program.evalExpr(e, this.summary));
        return this.exprFromTarget(e.base, depth + 1);
      }
      case 'subscript':
        return this.exprFromTarget(e.base, depth + 1);
      case 'call':
        return this.exprFromTarget(e.callee, depth + 1);
      default:
        return false;
    }
  }

  /**
   * Whether an expression's value comes from the target: a chain that starts at a name bound to
   * a target module, class, function or instance, or at `self` of a class derived from a target
   * class. A method call on such a receiver that cannot be followed is counted as untraced.
   */
  private fromTarget(node: Node, scope: Scope, depth = 0): boolean {
    if (depth > 20) return false;
    switch (node.type) {
      case 'identifier': {
        const v = this.nameValue(node, scope);
        if (v && this.targetish(v)) return true;
        // a name bound once to what a target call returns (`logger = logging.getLogger(...)`, no
        // return annotation): its value comes from the target though its class is not known
        const b = this.boundOnce(node.text, scope);
        if (!b) return false;
        return 'node' in b ? this.fromTarget(b.node, b.scope, depth + 1) : this.exprFromTarget(b.expr, depth + 1);
      }
      case 'attribute':
      case 'subscript': {
        const inner = node.childForFieldName(node.type === 'attribute' ? 'object' : 'value');
        if (!inner) return false;
        // what is read off a value known to come from outside the target (a tensor) is not the
        // target's; an item of a container whose items' class is not known (`dict[str, T]`) may be
        const v = this.valueOfExpr(inner, scope);
        // a target function or class read off a module of the user's that imports it
        if (node.type === 'attribute' && v?.kind === 'module' && this.program.isUserModule(v.name)) return this.targetish(this.valueOfExpr(node, scope));
        // read off an instance of the target's (`self.llm.llm_engine.model_executor` where
        // `self.llm` is an `LLM`), whatever holds it
        if (v?.kind === 'instance' && this.targetish(v)) return true;
        return (v?.kind !== 'external' || !!v.args) && this.fromTarget(inner, scope, depth + 1);
      }
      case 'call': {
        const fn = node.childForFieldName('function');
        return !!fn && fn.type !== 'identifier' ? this.fromTarget(fn, scope, depth + 1) : !!fn && this.targetish(this.resolveName(fn.text, scope));
      }
      case 'parenthesized_expression': {
        const inner = node.namedChildren.find((c) => c && c.type !== 'comment');
        return !!inner && this.fromTarget(inner, scope, depth + 1);
      }
    }
    return false;
  }

  private targetish(v: Value | undefined): boolean {
    if (!v) return false;
    switch (v.kind) {
      case 'module':
        // a module of the user's own folders is read to follow its classes: it is not the target
        return this.program.inTarget(v.name) && !this.program.findModule(v.name)?.compiled && !this.program.isUserModule(v.name);
      case 'class':
      case 'instance': {
        if (!this.isUser(v.summary)) return true;
        const mro = this.checker.callables.mro(v.cls, v.summary);
        return !!mro && mro.some((e) => e.kind === 'class' && !this.isUser(e.summary));
      }
      case 'function':
        return !this.isUser(v.summary);
      case 'anyOf':
        return v.values.some((x) => this.targetish(x));
      case 'unknown':
        return !!v.target;
      default:
        return false;
    }
  }

  /** A signature defined in the user's code: the checked file, or a module of the user's folders. */
  private definedByUser(sig: Sig): boolean {
    if (!sig.definition) return sig.qualname.startsWith(USER_MODULE + '.') || this.program.isUserQualname(sig.qualname);
    return sig.definition.file === this.summary.file || this.program.isUserFile(sig.definition.file);
  }

  /** The file checked is a stub (`.pyi`): type checkers read it, Python never runs it. */
  private get isStub(): boolean {
    return /\.pyi$/i.test(this.opts.file);
  }

  /** A summary of the user's code: the checked file, or a module of the user's own folders. */
  private isUser(s: ModuleSummary): boolean {
    return s.name === USER_MODULE || this.program.isUserModule(s.name);
  }

  // ---- imports ----

  private checkImport(node: Node): void {
    // (a stub is read by type checkers only, as an import under `if TYPE_CHECKING:` is: never run)
    if (this.inError || node.hasError || underTypeChecking(node) || this.isStub) return;
    // an import under a version test is for the version it tests
    const elsewhere = !!this.otherVersion(node);
    let guarded = elsewhere || guardedBy(node, HANDLES_IMPORT_ERROR);
    // `with contextlib.suppress(ImportError):` guards its body as `try: ... except ImportError:` does
    for (let p: Node | null = node.parent; p && !guarded && p.type !== 'function_definition' && p.type !== 'class_definition'; p = p.parent) {
      if (p.type !== 'with_statement') continue;
      const items = p.namedChildren.find((c) => c?.type === 'with_clause')?.text ?? '';
      guarded = /(^|[\s,(.])suppress\s*\(([^)]*\b)?(ImportError|ModuleNotFoundError|Exception|BaseException)\b/.test(items);
    }
    if (node.type === 'import_statement') {
      for (const c of node.namedChildren) {
        if (!c) continue;
        const dn = c.type === 'aliased_import' ? c.childForFieldName('name') : c.type === 'dotted_name' ? c : null;
        if (!dn) continue;
        this.checkModulePath(dn.text.replace(/\s+/g, ''), dn, guarded);
      }
      return;
    }
    const modNode = node.childForFieldName('module_name');
    if (!modNode) return;
    if (modNode.type === 'relative_import' && !this.imports) return;
    const module = absoluteModule(modNode, this.imports ?? { name: this.moduleName, isPackage: !!this.opts.isPackage });
    if (!module) return;
    const imported = node.childrenForFieldName('name').map((c) => (c?.type === 'aliased_import' ? c.childForFieldName('name')?.text : c?.text)).filter((x): x is string => !!x);
    /** A guarded import that certainly fails, of a name nothing else binds and that is used (see `unboundAfterFailedImport`): reported. */
    const unboundUse = (c: Node, nameNode: Node): boolean => {
      if (!guarded || elsewhere) return false;
      const name = nameNode.text;
      const unbound = this.unboundAfterFailedImport(node, module, name, c.type === 'aliased_import' ? (c.childForFieldName('alias')?.text ?? name) : name);
      if (!unbound) return false;
      const s = this.program.summary(module);
      this.findings.push({ file: this.opts.file, range: rangeOf(nameNode), severity: 'error', code: 'unknown-import', message: unbound, callee: `${module}.${name}`, param: null, fixes: [], definition: s ? { file: s.file, line: 1 } : null });
      return true;
    };
    if (!this.checkModulePath(module, modNode, guarded, imported)) {
      for (const c of node.childrenForFieldName('name')) {
        const nameNode = c?.type === 'aliased_import' ? c.childForFieldName('name') : c;
        if (c && nameNode) unboundUse(c, nameNode);
      }
      return;
    }
    if (node.namedChildren.some((c) => c?.type === 'wildcard_import')) return;
    for (const c of node.childrenForFieldName('name')) {
      if (!c) continue;
      const nameNode = c.type === 'aliased_import' ? c.childForFieldName('name') : c;
      if (!nameNode) continue;
      const name = nameNode.text;
      const v = this.program.resolveMember(module, name);
      if (unboundUse(c, nameNode)) continue;
      if ((v.kind === 'missing' || this.droppedFromLazy(module, name)) && !guarded) {
        const s = this.program.summary(module);
        const moved = this.opts.crossVersion?.movedName(module, name);
        this.findings.push({
          file: this.opts.file,
          range: rangeOf(nameNode),
          severity: 'error',
          code: 'unknown-import',
          message: `cannot import name '${name}' from '${module}': ` + (v.kind === 'missing' ? `the target's ${module} does not define or re-export it` : `the target's ${module} loads its names lazily and no longer names it, while the baseline's served it`) + (moved ? `; \`${name}\` moved from \`${module}\` to \`${moved}\`` : ''),
          callee: `${module}.${name}`,
          param: null,
          fixes: moved ? [fixMoveImport(this.lines, node, nameNode, moved)] : [],
          definition: s ? { file: s.file, line: 1 } : null,
          change: moved ? `\`${name}\` moved from \`${module}\` to \`${moved}\`` : undefined,
        });
      } else if (v.kind !== 'missing' && !this.opts.moduleName && !elsewhere) {
        // served by the module's __getattr__ after a DeprecationWarning: import it from where it
        // lives now (not said of an import written for another version: a fallback, or a branch
        // a version test chooses, does not run where the new place is there)
        const dep = this.program.deprecatedGetattr(module, name);
        if (!dep) continue;
        const to = this.program.resolveMember(dep.module, dep.attr).kind === 'missing' ? undefined : dep.module;
        const s = this.program.summary(module);
        this.findings.push({
          file: this.opts.file,
          range: rangeOf(nameNode),
          severity: 'hint',
          code: 'deprecated',
          message: `importing ${name} from ${module} is deprecated in the target: ${dep.message.replace(/[.\s]+$/, '')}` + (to ? `; import it from \`${to}\`` : ''),
          callee: `${module}.${name}`,
          param: null,
          fixes: to && dep.attr === name ? [fixMoveImport(this.lines, node, nameNode, to)] : [],
          definition: s && s.getattr.kind !== 'none' ? { file: s.file, line: s.getattr.line } : null,
          tags: ['deprecated'],
          change: `\`${name}\` moved from \`${module}\` to \`${dep.module}\``,
        });
      }
    }
  }

  /**
   * `try: from m import name` / `except ImportError: pass` at module level, where the import
   * certainly fails against the target: the handler binds nothing in its place, so `bound` (the
   * name, or its alias) is unbound, and a use of it that runs there raises NameError. Why, or
   * undefined. The block must import only (a flag it sets may guard the uses), every handler of
   * the try must be `pass`, nothing else in the module may bind the name, and the use must not be
   * guarded against NameError nor be code for another version.
   */
  private unboundAfterFailedImport(node: Node, module: string, name: string, bound: string): string | undefined {
    if (this.opts.moduleName) return undefined;
    const block = node.parent;
    const tryNode = block?.parent;
    if (block?.type !== 'block' || tryNode?.type !== 'try_statement' || tryNode.parent?.type !== 'module' || tryNode.childForFieldName('body')?.id !== block.id) return undefined;
    if (!block.namedChildren.every((c) => !c || c.type === 'comment' || c.type === 'import_statement' || c.type === 'import_from_statement')) return undefined;
    for (const c of tryNode.namedChildren) {
      if (!c || c.id === block.id || c.type === 'comment') continue;
      if (c.type !== 'except_clause') return undefined;
      const body = c.namedChildren.find((x) => x?.type === 'block');
      if (!body || !body.namedChildren.every((x) => !x || x.type === 'comment' || x.type === 'pass_statement')) return undefined;
    }
    if ((this.summary.bindings.get(bound) ?? []).length !== 1 || this.summary.typeCheckingOnly.has(bound)) return undefined;
    if (this.program.importsOutcome([{ module, name }]) !== 'fails') return undefined;
    const text = this.shared.text;
    for (const m of text.matchAll(new RegExp(`(?<![\\w.])${bound}\\b`, 'g'))) {
      if (m.index! >= tryNode.startIndex && m.index! < tryNode.endIndex) continue;
      const use = this.root.descendantForIndex(m.index!);
      if (!use || use.type !== 'identifier' || use.parent?.type === 'keyword_argument' || (use.parent?.type === 'attribute' && use.parent.childForFieldName('attribute')?.id === use.id)) continue;
      if (underTypeChecking(use) || inAnnotation(use) || this.otherVersion(use) || guardedBy(use, /^(NameError|ImportError|ModuleNotFoundError|Exception|BaseException)$/)) continue;
      // a function (or class, lambda) around the use that binds the name itself: its own name
      let shadowed = false;
      for (let p: Node | null = use.parent; p && !shadowed; p = p.parent) {
        if (p.type !== 'function_definition' && p.type !== 'lambda' && p.type !== 'class_definition') continue;
        shadowed = bindsInText(p.text, bound) || new RegExp(`\\b${bound}\\b`).test(p.childForFieldName('parameters')?.text ?? '');
      }
      if (shadowed) continue;
      // a string annotation or a comment names it without using it
      if (use.parent?.type === 'string' || use.parent?.type === 'comment') continue;
      const line = use.startPosition.row + 1;
      return `the import of '${name}' from '${module}' fails on the target, and the except ImportError handler binds nothing in its place: '${bound}' is unbound where line ${line} uses it (NameError)`;
    }
    return undefined;
  }

  /**
   * With a baseline: `name`, which the baseline's `module` served (a def or class), is left out by
   * the target's `module`, a package that loads names lazily (a module `__getattr__`, or a lazy
   * module put in its place) and declares what it serves under TYPE_CHECKING. Its declarations no
   * longer import the name, its text does not name it at all (no table it serves from holds it),
   * and no other module of the target defines it under that name either (else it may be served
   * from there).
   */
  private droppedFromLazy(module: string, name: string): boolean {
    const cv = this.opts.crossVersion;
    if (!cv?.baselineDefines) return false;
    const s = this.program.summary(module);
    if (!s || !s.typeCheckingBindings || s.typeCheckingBindings.has(name) || s.bindings.has(name)) return false;
    if (!loadsLazily(s)) return false;
    if (s.starImports.length > 0 || this.program.target.findModule(`${module}.${name}`)) return false;
    const file = this.program.target.findModule(module);
    const text = file?.rel ? file.root.readText(file.rel) : undefined;
    if (text === undefined || new RegExp(`\\b${name}\\b`).test(text)) return false;
    if (!cv.baselineDefines(module, name)) return false;
    return !cv.movedName(module, name);
  }

  /**
   * `n` runs only where an import of something inside `missing` succeeded: it sits under a flag that
   * records such an import (`try: from lib.cext import Row; HAS_CEXT = True` / `except ImportError:
   * HAS_CEXT = False`, then `if HAS_CEXT: from lib.cext import getter`), set in this file or in the
   * module the file imports the flag from. Where the module is missing, the flag is false and the
   * branch never runs.
   */
  private importFlagged(n: Node, missing: string): boolean {
    for (const flag of flagGuarding(n)) {
      const own = this.imports ?? { name: this.moduleName, isPackage: !!this.opts.isPackage };
      if (flagRecordsImport(this.shared.text, flag, missing, own.name, own.isPackage)) return true;
      const b = this.summary.bindings.get(flag);
      const from = b?.find((x) => x.kind === 'from');
      if (!from || from.kind !== 'from') continue;
      // a module without a file, or one that cannot be read, is not known to record the import
      const text = this.program.moduleText(from.module);
      if (typeof text === 'string' && flagRecordsImport(text, from.name, missing, from.module, !!this.program.target.findModule(from.module)?.isPackage)) return true;
    }
    return false;
  }

  /** Reports the first missing submodule of a dotted path inside the target; true when the module exists. */
  private checkModulePath(module: string, node: Node, guarded: boolean, imported: string[] = []): boolean {
    const parts = module.split('.');
    // the user's own modules are read to follow their classes, not checked as the target is
    if (this.program.isUserModule(parts[0])) return false;
    if (!this.program.findModule(parts[0])) {
      // a whole top-level module that the baseline has and the target lacks
      if (!guarded && this.opts.crossVersion?.baselineHasModule(parts[0]) && !availabilityTested(node, parts[0]) && !this.importFlagged(node, parts[0])) {
        this.findings.push({
          file: this.opts.file,
          range: rangeOf(node),
          severity: 'error',
          code: 'unknown-module',
          message: `No module named '${parts[0]}': the baseline has it, the target does not` + this.whereNamesWent(module, imported),
          callee: parts[0],
          param: null,
          fixes: [],
          definition: null,
          change: `module \`${parts[0]}\` was removed`,
        });
      }
      return false;
    }
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i + 1).join('.');
      if (this.program.findModule(prefix)) continue;
      const parent = this.program.findModule(parts.slice(0, i).join('.'));
      if (!parent || guarded || !this.program.absentSubmodule(parent, parts[i])) return false;
      if (availabilityTested(node, prefix) || this.testedModules().some((m) => m === prefix || m.startsWith(`${prefix}.`)) || this.importFlagged(node, prefix)) return false;
      const ps = this.program.summary(parent.name)!;
      // A last component may be a compiled extension that a bare copy of the source lacks: without
      // build files or install metadata to say, a package that serves names at run time is left
      // alone, unless the baseline had the module as Python source (it was removed, not built).
      const leaf = i === parts.length - 1;
      if (parent.isPackage && leaf && (ps.getattr.kind !== 'none' || ps.starImports.length) && !this.program.knowsBuildProducts(parts[0]) && !this.opts.crossVersion?.baselineHasSource(prefix)) return false;
      this.findings.push({
        file: this.opts.file,
        range: rangeOf(node),
        severity: 'error',
        code: 'unknown-module',
        message:
          (parent.isPackage ? `No module named '${prefix}': the target's package ${parent.name} has no submodule ${parts[i]}` : `No module named '${prefix}': the target's ${parent.name} is a module, not a package: it has no submodule ${parts[i]}`) +
          (i < parts.length - 1 ? ` (so ${module} cannot be imported)` : '') +
          (this.opts.crossVersion?.baselineHasModule(prefix) ? ' (the baseline has it)' : '') +
          this.whereNamesWent(module, imported),
        change: this.opts.crossVersion?.baselineHasModule(prefix) ? `module \`${prefix}\` was removed` : undefined,
        callee: prefix,
        param: null,
        fixes: [],
        definition: ps ? { file: ps.file, line: 1 } : null,
      });
      return false;
    }
    return true;
  }

  /** With a baseline: where the names imported from a removed module live in the target now. */
  private whereNamesWent(module: string, names: string[]): string {
    const cv = this.opts.crossVersion;
    if (!cv || names.length === 0) return '';
    const places = new Set(names.map((n) => cv.movedName(module, n)));
    if (places.size !== 1) return '';
    const [to] = [...places];
    return to ? `; its names now live in \`${to}\`` : '';
  }

  // ---- attribute access on modules ----

  private checkAttribute(node: Node, scope: Scope): void {
    // written, not read: a target of an assignment in any form (`m.x = v`, `a, m.x = ...`, `(m.x) =
    // v` in a chain), of a loop or of `with ... as`, or deleted
    if (isStoreTarget(node)) return;
    const parent = node.parent;
    const obj = node.childForFieldName('object');
    const attr = node.childForFieldName('attribute');
    if (obj?.type === 'call' && obj.childForFieldName('function')?.text === 'super' && attr && !this.inError && !node.hasError && !(parent?.type === 'call' && parent.childForFieldName('function')?.id === node.id)) {
      // `super().m` read, not called (a call is checked as a call)
      const context = this.superContext(obj, scope);
      if (context && !this.checker.callables.superMember(context.mro, 1, attr.text, (c, summary) => this.checker.receivers.decoratorChanges(c, summary, attr.text))) this.removedSuperMember(obj, attr.text, context.cls, context.mro);
      return;
    }
    if (!obj || !attr || (obj.type !== 'identifier' && obj.type !== 'attribute')) return;
    if (this.inError || node.hasError) return;
    const base = this.valueOfExpr(obj, scope);
    if (base?.kind === 'instance') {
      this.removedAttributeRead(node, attr, base);
      return;
    }
    if (base && isInstanceUnion(base)) {
      // an attribute that holds one of several classes, none of which has the name
      const parent = node.parent;
      if ((parent?.type === 'call' && parent.childForFieldName('function')?.id === node.id) || isStoreTarget(node) || !this.opts.crossVersion?.baselineClassHas) return;
      if (!base.values.every((b) => ((m) => m.kind === 'unknown' && m.absent)(this.checker.receivers.member(b, attr.text)))) return;
      const one = this.absentFromAll(base.values, attr.text);
      if (one) this.removedMember(node, attr, one.inst, attr.text, false);
      return;
    }
    if (base?.kind === 'class') {
      this.removedClassAttribute(node, attr, base.cls, base.summary);
      return;
    }
    if (!base || base.kind !== 'module' || this.program.isUserModule(base.name.split('.')[0])) return;
    const v = this.program.resolveMember(base.name, attr.text);
    if (v.kind !== 'missing') {
      // `mod.name` served by the module's __getattr__ after a DeprecationWarning
      const dep = this.opts.moduleName || this.otherVersion(node) ? undefined : this.program.deprecatedGetattr(base.name, attr.text);
      if (!dep) return;
      const to = this.program.resolveMember(dep.module, dep.attr).kind === 'missing' ? undefined : dep.module;
      const ds = this.program.summary(base.name);
      this.findings.push({
        file: this.opts.file,
        range: rangeOf(attr),
        severity: 'hint',
        code: 'deprecated',
        message: `${base.name}.${attr.text} is deprecated in the target: ${dep.message.replace(/[.\s]+$/, '')}` + (to ? `; it lives in \`${to}\`` : ''),
        callee: `${base.name}.${attr.text}`,
        param: null,
        fixes: [],
        definition: ds && ds.getattr.kind !== 'none' ? { file: ds.file, line: ds.getattr.line } : null,
        tags: ['deprecated'],
        change: `\`${attr.text}\` moved from \`${base.name}\` to \`${dep.module}\``,
      });
      return;
    }
    if (guardedBy(node, HANDLES_ATTRIBUTE_ERROR) || this.otherVersion(node) || attributeTested(node, attr.text) || this.siblingTested(node, attr.text) || inAttributeFallback(node, obj.text) || importedBeforeInTry(node, `${obj.text}.${attr.text}`)) return;
    const s = this.program.summary(base.name);
    // a name the module binds for type checkers only (`if TYPE_CHECKING: Alias = ...`), read where
    // only they look: an annotation (which `from __future__ import annotations`, Python 3.14 and
    // type checkers do not evaluate at run time) or a TYPE_CHECKING block of this file
    if (s?.typeCheckingBindings?.has(attr.text) && (inAnnotation(node) || underTypeChecking(node) || this.isStub)) return;
    // a name another module sets on it from outside (`type_api.NULLTYPE = NULLTYPE` in the module
    // that defines NULLTYPE): in the target, in the project or in this file
    const set = `${base.name.slice(base.name.lastIndexOf('.') + 1)}.${attr.text}`;
    const saved = this.patched().includes(set) && this.savedBeforeSet(node, set);
    if (!saved && (this.patched().includes(set) || this.opts.projectPatched?.has(set))) return;
    if (this.opts.targetSets?.(set)) return;
    this.findings.push({
      file: this.opts.file,
      range: rangeOf(attr),
      severity: 'error',
      code: 'unknown-attribute',
      message: `module '${base.name}' has no attribute '${attr.text}' in the target` + ((m) => (m ? `; \`${attr.text}\` moved from \`${base.name}\` to \`${m}\`` : ''))(this.opts.crossVersion?.movedName(base.name, attr.text)),
      callee: `${base.name}.${attr.text}`,
      param: null,
      fixes: [],
      definition: s ? { file: s.file, line: 1 } : null,
    });
  }

  // ---- calls ----

  private calleeSpec(fn: Node, scope: Scope): Resolved | { untraced: string; absent?: { inst: Instance; attr: string } } | undefined {
    // super().name(...) inside a method of a module-level class
    if (fn.type === 'attribute') {
      const obj = fn.childForFieldName('object');
      const attr = fn.childForFieldName('attribute')?.text;
      if (obj?.type === 'call' && obj.childForFieldName('function')?.text === 'super' && attr) {
        // super() follows the MRO of the instance's class: checkCall asks the class's known
        // subclasses whether they reach the same method
        return this.superSpec(obj, attr, scope);
      }
      if (!obj || !attr) return undefined;
      const own = obj.type === 'identifier' ? this.clsParameter(obj.text, scope) : undefined;
      const owner = own ? { cls: own, summary: this.summary } : obj.type === 'identifier' ? this.typeParameter(obj.text, scope) : undefined;
      if (owner && 'untraced' in owner) return owner;
      if (owner) {
        // `cls.m(...)` in a classmethod, `b.m(...)` with `b: type[C]`: the class or a subclass, `m` looked up on the class
        const v = this.checker.receivers.classMember(owner.cls, owner.summary, attr);
        if (v.kind === 'unknown') return this.targetish({ kind: 'class', ...owner }) ? { untraced: v.reason } : undefined;
        return { spec: this.checker.callables.specOf(v, 'class'), value: v, classReceiver: owner, method: attr };
      }
      const base = this.valueOfExpr(obj, scope);
      if (!base || base.kind === 'unknown') return this.fromTarget(obj, scope) ? { untraced: base?.kind === 'unknown' ? base.reason : `the class of ${clip(obj.text)} is not known` } : undefined;
      if (base.kind === 'instance') {
        const v = this.checker.receivers.member(base, attr);
        // the user's own classes that derive from nothing in the target are not audited
        if (v.kind === 'unknown') return this.targetish(base) ? { untraced: v.reason, absent: v.absent ? { inst: base, attr } : undefined } : undefined;
        if (v.kind === 'instance') return this.instanceCallSpec(v);
        if (isInstanceUnion(v)) return this.unionCallSpec(v.values);
        return { spec: this.checker.callables.specOf(v, 'instance'), value: v, receiver: base, method: attr };
      }
      if (isInstanceUnion(base)) {
        // an instance of one of several classes: the call is checked against each class's method
        const members = base.values.map((b) => this.checker.receivers.member(b, attr));
        const bad = members.find((m) => m.kind !== 'function');
        // none of the classes it may hold has the method: whichever it holds, the call fails
        const absent = members.every((m) => m.kind === 'unknown' && m.absent) ? this.absentFromAll(base.values, attr) : undefined;
        if (bad) return this.targetish(base) ? { untraced: bad.kind === 'unknown' ? bad.reason : `${attr} is not a method of every class it may hold`, absent } : undefined;
        const value: Value = { kind: 'anyOf', values: members };
        return { spec: this.checker.callables.specOf(value, 'instance'), value, receivers: base.values, method: attr };
      }
      const v = this.program.attribute(base, attr);
      const access: Access = base.kind === 'class' ? 'class' : 'plain';
      if (v.kind === 'missing') return undefined; // reported as unknown-attribute
      return { spec: this.checker.callables.specOf(v, access), value: v };
    }
    if (fn.type === 'identifier') {
      const v = this.resolveName(fn.text, scope);
      if (!v || v.kind === 'external' || v.kind === 'missing' || v.kind === 'special') return undefined;
      if (v.kind === 'instance') return this.instanceCallSpec(v);
      if (isInstanceUnion(v)) return this.unionCallSpec(v.values);
      return { spec: this.checker.callables.specOf(v, 'plain'), value: v };
    }
    if (fn.type === 'subscript') {
      // C[int](...) binds like C(...)
      const inner = fn.childForFieldName('value');
      if (!inner) return undefined;
      const v = this.valueOfExpr(inner, scope);
      if (!v || v.kind !== 'class') return undefined;
      return { spec: this.checker.callables.specOf(v, 'plain'), value: v };
    }
    return undefined;
  }

  /**
   * `obj(...)` on a value that holds an instance of one of several classes: checked against the
   * method each class's `__call__` runs, as a method call on a receiver of several classes is, when
   * that is the same method name for all of them.
   */
  private unionCallSpec(insts: Instance[]): Resolved | { untraced: string } | undefined {
    const calls = insts.map((i) => this.checker.receivers.instanceCall(i));
    const union: Value = { kind: 'anyOf', values: insts };
    const bad = calls.find((c) => c.value.kind !== 'function');
    if (bad) return this.targetish(union) ? { untraced: bad.value.kind === 'unknown' ? bad.value.reason : 'calling it may run something other than a method' } : undefined;
    if (calls.some((c) => c.method !== calls[0].method)) return this.targetish(union) ? { untraced: 'calling it runs __call__ for some of the classes it may hold and forward for others' } : undefined;
    const value: Value = { kind: 'anyOf', values: calls.map((c) => c.value) };
    return { spec: this.checker.callables.specOf(value, 'instance'), value, receivers: insts, method: calls[0].method };
  }

  /** `obj(...)` on an instance: the method that `__call__` runs (see `Receivers.instanceCall`), as a method call on it. */
  private instanceCallSpec(inst: Instance): Resolved | { untraced: string } | undefined {
    const { value, method } = this.checker.receivers.instanceCall(inst);
    if (value.kind === 'unknown') return this.targetish(inst) ? { untraced: value.reason } : undefined;
    return { spec: this.checker.callables.specOf(value, 'instance'), value, receiver: inst, method };
  }

  /**
   * `r.x` read (not called: `r.x(...)` is a call, see `removedMember`) on an instance whose class
   * the target no longer gives `x` while the baseline's did: an AttributeError, reported as a
   * removed method is, under the same conditions.
   */
  private removedAttributeRead(node: Node, attrNode: Node, inst: Instance): void {
    const parent = node.parent;
    if (parent?.type === 'call' && parent.childForFieldName('function')?.id === node.id) return;
    if (isStoreTarget(node)) return;
    if (!this.opts.crossVersion?.baselineClassHas || this.opts.moduleName) return;
    const attr = attrNode.text;
    const v = this.checker.receivers.member(inst, attr);
    if (v.kind !== 'unknown' || !v.absent) return;
    // the library may set it from outside (`layer.weight_loader = ...` in a loader)
    if (this.opts.crossVersion.targetPatches?.(attr, inst) !== false) return;
    // a subclass the value may be may set it on its instances
    if (inst.declared && this.checker.receivers.subclassMayHave(inst.cls, inst.summary, attr, !this.isUser(inst.summary))) return;
    this.removedMember(node, attrNode, inst, attr, false);
  }

  /**
   * Of instances of several classes, none of which has `attr` (see `Receivers.member`): the one to
   * report the removed attribute on, when nothing may give it to any of them (the target setting
   * it from outside, a subclass a declared one may be); undefined otherwise.
   */
  private absentFromAll(insts: Instance[], attr: string): { inst: Instance; attr: string } | undefined {
    for (const inst of insts) {
      if (this.opts.crossVersion?.targetPatches?.(attr, inst) !== false) return undefined;
      if (inst.declared && this.checker.receivers.subclassMayHave(inst.cls, inst.summary, attr, !this.isUser(inst.summary))) return undefined;
    }
    // one whose class the baseline gave it (through a class of the target along its MRO)
    const cv = this.opts.crossVersion;
    const had = insts.find((inst) => this.checker.callables.mro(inst.cls, inst.summary)?.some((e) => e.kind === 'class' && !this.isUser(e.summary) && !!cv?.baselineClassHas?.(e.cls.module, e.cls.qualname, attr)));
    return had ? { inst: had, attr } : undefined;
  }

  /**
   * `C.x` or `C.m(...)` on a class of the target whose MRO (every class of it seen, no metaclass
   * but ABCMeta) no longer defines, assigns or declares `x`, while the baseline's class had it: an
   * AttributeError, reported as a removed method of an instance is, under the same conditions.
   */
  private removedClassAttribute(node: Node, attrNode: Node, cls: ClassInfo, summary: ModuleSummary): void {
    if (!this.opts.crossVersion?.baselineClassHas || this.opts.moduleName || isStoreTarget(node)) return;
    const attr = attrNode.text;
    // what every class gets from its metaclass (`type`, `ABCMeta`)
    if (attr.startsWith('__') || attr === 'mro' || attr === 'register') return;
    const v = this.checker.receivers.classMember(cls, summary, attr);
    if (v.kind !== 'unknown' || !v.absent) return;
    if (this.opts.crossVersion.targetPatches?.(attr, { cls, summary }) !== false) return;
    const parent = node.parent;
    const called = parent?.type === 'call' && parent.childForFieldName('function')?.id === node.id;
    this.removedMember(called ? parent : node, attrNode, { kind: 'instance', cls, summary, declared: false }, attr, called, true);
  }

  /**
   * `r.m(...)` where every class of r's MRO is seen in the target and none defines, assigns or
   * serves `m`, while the baseline's class had it: the method was removed, and the call raises
   * AttributeError. Reported only with a baseline (the evidence that the code relied on it), never
   * under a version test or an AttributeError / hasattr guard, never when this file or the
   * project sets such an attribute from outside (a compatibility patch), and, when r may be a
   * subclass, only if no known subclass defines it. Returns whether it was reported. A read that
   * is no call (`called` false) adds nothing to the calls.
   */
  private removedMember(call: Node, nameNode: Node, inst: Instance, attr: string, called = true, onClass = false): boolean {
    const cv = this.opts.crossVersion;
    if (!cv?.baselineClassHas || this.opts.moduleName) return false;
    if (this.otherVersion(call) || guardedBy(call, HANDLES_ATTRIBUTE_ERROR) || attributeTested(call, attr)) return false;
    // (a name this file sets only after the read, in the same function, gives it nothing back)
    if ((this.patched().includes(attr) && !this.setOnlyAfter(call, attr)) || this.opts.projectPatched?.has(attr)) return false;
    const mro = this.checker.callables.mro(inst.cls, inst.summary);
    if (!mro) return false;
    let had: { cls: ClassInfo; summary: ModuleSummary; definer: string } | undefined;
    for (const e of mro) {
      // on a class object, only what the baseline's class itself held (not what its instances set)
      const definer = e.kind === 'class' && !this.isUser(e.summary) ? cv.baselineClassHas(e.cls.module, e.cls.qualname, attr, onClass) : undefined;
      if (e.kind === 'class' && definer) {
        had = { cls: e.cls, summary: e.summary, definer };
        break;
      }
    }
    if (!had) return false;
    // a subclass the value may be (or, for an annotation, a class of the user's with the method) may define it
    if (inst.declared && this.checker.receivers.dispatch(inst.cls, inst.summary, attr, '', () => undefined, this.fileClasses(), !this.isUser(inst.summary), !inst.self && !inst.registry)) return false;
    // a class of the user's that sets it on its instances (`self.m = ...`) may be the one at run time,
    // if it may stand for the declared class
    if (inst.declared && this.fileClasses().some((c) => c.cls.attrAssigns.has(attr) && this.mayStandFor(c, inst.cls, inst.summary, attr, !inst.self && !inst.registry))) return false;
    if (called) {
      this.callsChecked++;
      this.calls.push({ range: rangeOf(nameNode), extent: rangeOf(call), callee: `${had.cls.qualname}.${attr}`, signatures: [], definition: null });
    }
    // a dataclass field that became `InitVar[...]`: the class still names it, for its constructor
    const initOnly = mro.find((e): e is Extract<typeof e, { kind: 'class' }> => e.kind === 'class' && e.cls.fields.some((f) => f.name === attr && /^(?:dataclasses\.)?InitVar\b/.test(f.annotation)))?.cls;
    this.findings.push({
      file: this.opts.file,
      range: rangeOf(nameNode),
      severity: 'error',
      code: 'unknown-attribute',
      message: `${onClass ? 'type object ' : ''}'${inst.cls.name}'${onClass ? '' : ' object'} has no attribute '${attr}' in the target: no class along its MRO defines it, while the baseline's ${had.definer} has it${initOnly ? ` (${initOnly.name}.${attr} is an init-only field now: the constructor takes it, instances do not keep it)` : ''}`,
      change: initOnly ? `\`${had.definer}.${attr}\` became an init-only field (\`InitVar\`)` : `\`${had.definer}.${attr}\` was removed`,
      callee: `${had.cls.qualname}.${attr}`,
      param: null,
      fixes: [],
      definition: { file: had.summary.file, line: had.cls.line },
      call: rangeOf(call),
    });
    return true;
  }

  /**
   * Whether an instance of the user's class `c` may be where the code declares a `cls`: `c` may
   * derive from it (its MRO holds `cls` or cannot be worked out), or it may stand for it by duck
   * typing, which takes more than `attr` alone: `c` has another public name (a method, a class
   * attribute, a field or an attribute its methods set) that a class of `cls`'s MRO has too. A
   * class that shares nothing else with `cls` (a builder that copies one setting of a config onto
   * itself under the same name) is not taken for it. Without `annotated` (`self`, an instance a
   * registry may replace) only a subclass may be what the value holds.
   */
  private mayStandFor(c: { cls: ClassInfo; summary: ModuleSummary }, cls: ClassInfo, summary: ModuleSummary, attr: string, annotated: boolean): boolean {
    if (c.cls === cls) return true;
    const same = (x: ClassInfo): boolean => x === cls || (x.qualname === cls.qualname && x.line === cls.line && x.module === cls.module);
    if (this.checker.callables.mayDerive(c.cls, c.summary, same)) return true;
    if (!annotated) return false;
    const mine = this.checker.callables.mro(c.cls, c.summary)!;
    const theirs = this.checker.callables.mro(cls, summary);
    if (!theirs) return true;
    const names = new Set<string>();
    for (const e of theirs) {
      if (e.kind !== 'class') continue;
      for (const n of e.cls.members.keys()) names.add(n);
      for (const n of e.cls.attrAssigns.keys()) names.add(n);
      for (const f of e.cls.fields) names.add(f.name);
    }
    const shared = (n: string): boolean => n !== attr && !n.startsWith('_') && names.has(n);
    for (const e of mine) {
      if (e.kind !== 'class' || !this.isUser(e.summary)) continue;
      if ([...e.cls.members.keys()].some(shared) || [...e.cls.attrAssigns.keys()].some(shared) || e.cls.fields.some((f) => shared(f.name))) return true;
    }
    return false;
  }

  /** Counts a call whose binding was decided and records it; gives the signature its messages name. */
  private checkedCall(call: Node, nameNode: Node, spec: Extract<CallSpec, { kind: 'known' }>, positional?: number): Sig {
    this.callsChecked++;
    return this.recordCall(call, nameNode, spec, positional !== undefined ? { positional } : {});
  }

  /** Records a call of a known signature (with `extra`: its status, its positional count); gives the signature its messages name. */
  private recordCall(call: Node, nameNode: Node, spec: Extract<CallSpec, { kind: 'known' }>, extra: Partial<CallInfo>): Sig {
    const first = spec.alternatives[0][spec.alternatives[0].length - 1];
    this.calls.push({
      range: rangeOf(nameNode),
      extent: rangeOf(call),
      callee: spec.qualname,
      signatures: spec.alternatives.map((a) => a.map(sigText).join(' and ')),
      definition: first.definition,
      params: spec.alternatives.map((a) => a[a.length - 1].params),
      ...extra,
    });
    return first;
  }

  /**
   * A call on a receiver that holds an instance of one of several classes, none of whose methods
   * binds it (each in its own way): one finding that says what each says.
   */
  private noneBinds(call: Node, nameNode: Node, spec: Extract<CallSpec, { kind: 'known' }>, results: Outcome): void {
    const first = this.checkedCall(call, nameNode, spec);
    // each alternative in its own words (its messages name its method)
    const said = results.map((r) => r[0].error.message);
    this.findings.push({
      file: this.opts.file,
      range: rangeOf(nameNode),
      severity: 'error',
      code: results[0][0].error.kind,
      message: `no class the receiver may hold takes this call (${said.join('; ')})`,
      callee: spec.qualname,
      param: results[0][0].error.param,
      fixes: [],
      definition: first.definition,
      call: rangeOf(call),
    });
  }

  private unknownCall(call: Node, nameNode: Node, callee: string, reason: string): void {
    this.callsUnknown++;
    this.calls.push({ range: rangeOf(nameNode), extent: rangeOf(call), callee, signatures: [], definition: null, status: 'unknown', unknownReason: reason });
  }

  /** The classes of the checked file (module-level and nested), for overrides of its own subclasses. */
  private fileClasses(): Array<{ cls: ClassInfo; summary: ModuleSummary }> {
    this.usedFileClasses = true;
    if (this.ownClasses) return this.ownClasses;
    const out: Array<{ cls: ClassInfo; summary: ModuleSummary }> = [];
    const add = (c: ClassInfo): void => {
      out.push({ cls: c, summary: this.summary });
      for (const bs of c.members.values()) for (const b of bs) if (b.kind === 'class') add(b.cls);
    };
    for (const bs of this.summary.bindings.values()) for (const b of bs) if (b.kind === 'class') add(b.cls);
    for (const c of this.opts.projectClasses ?? []) if (c.summary.file !== this.summary.file) out.push(c);
    return (this.ownClasses = out);
  }

  private ownClasses?: Array<{ cls: ClassInfo; summary: ModuleSummary }>;

  /** The class `super()` is written in (a method of it, or a function in one) and its MRO; undefined elsewhere. */
  private superContext(superCall: Node, scope: Scope): { cls: ClassInfo; mro: Entry[] } | undefined {
    const args = argumentNodes(superCall.childForFieldName('arguments'));
    let fnScope: Scope | undefined = scope;
    while (fnScope && (fnScope.kind !== 'function' || fnScope.comprehension)) fnScope = fnScope.parent;
    const clsScope = fnScope?.parent;
    if (!fnScope || !clsScope || clsScope.kind !== 'class' || !clsScope.cls) return undefined;
    if (args.length !== 0 && !(args.length === 2 && args[0]?.text === clsScope.cls.name)) return undefined;
    const mro = this.checker.callables.mro(clsScope.cls, this.summary);
    return mro ? { cls: clsScope.cls, mro } : undefined;
  }

  private superSpec(superCall: Node, attr: string, scope: Scope): Resolved | undefined {
    const context = this.superContext(superCall, scope);
    if (!context) return undefined;
    const { cls, mro } = context;
    const v = this.checker.callables.superMember(mro, 1, attr, (c, summary) => this.checker.receivers.decoratorChanges(c, summary, attr));
    if (!v) {
      this.removedSuperMember(superCall, attr, cls, mro);
      return undefined;
    }
    // __new__ is a static method: super().__new__(cls, ...) passes cls explicitly
    return { spec: this.checker.callables.specOf(v, attr === '__new__' ? 'class' : 'instance'), value: v, superOf: { cls, method: attr } };
  }

  /**
   * `super().m` where no class after `cls` along its MRO defines `m` (every one of them seen; see
   * `superMember`), while one of the baseline's did: `super()` looks only in the classes' own
   * namespaces, so this raises AttributeError. Reported as a removed method is, under the same
   * conditions, and only when no class of the file or the project derives from `cls` with other
   * bases too (its MRO after `cls` may hold another class).
   */
  private removedSuperMember(superCall: Node, attr: string, cls: ClassInfo, mro: Entry[]): void {
    const cv = this.opts.crossVersion;
    if (!cv?.baselineClassHas || this.opts.moduleName || attr.startsWith('__')) return;
    const read = superCall.parent;
    const nameNode = read?.type === 'attribute' ? read.childForFieldName('attribute') : null;
    if (!read || !nameNode) return;
    const called = read.parent?.type === 'call' && read.parent.childForFieldName('function')?.id === read.id ? read.parent : undefined;
    const at = called ?? read;
    if (this.otherVersion(at) || guardedBy(at, HANDLES_ATTRIBUTE_ERROR) || attributeTested(at, attr)) return;
    if (this.patched().includes(attr) || this.opts.projectPatched?.has(attr)) return;
    const after = mro.slice(1).filter((e): e is Extract<Entry, { kind: 'class' }> => e.kind === 'class');
    if (after.some((e) => hasField(e.cls, attr))) return;
    let had: { cls: ClassInfo; summary: ModuleSummary; definer: string } | undefined;
    for (const e of after) {
      const definer = this.isUser(e.summary) ? undefined : cv.baselineClassHas(e.cls.module, e.cls.qualname, attr, true);
      if (definer) {
        had = { cls: e.cls, summary: e.summary, definer };
        break;
      }
    }
    if (!had || cv.targetPatches?.(attr, { cls: had.cls, summary: had.summary }) !== false) return;
    const classes = [...this.fileClasses(), ...(this.opts.projectClasses ?? [])];
    const mixes = classes.some((c) => c.cls !== cls && c.cls.bases.length > 1 && this.checker.callables.mro(c.cls, c.summary)?.some((e) => e.kind === 'class' && e.cls.qualname === cls.qualname) !== false);
    if (mixes) return;
    if (called) {
      this.callsChecked++;
      this.calls.push({ range: rangeOf(nameNode), extent: rangeOf(called), callee: `${had.cls.qualname}.${attr}`, signatures: [], definition: null });
    }
    this.findings.push({
      file: this.opts.file,
      range: rangeOf(nameNode),
      severity: 'error',
      code: 'unknown-attribute',
      message: `'super' object has no attribute '${attr}' in the target: no class after ${cls.name} along its MRO defines it, while the baseline's ${had.definer} has it`,
      change: `\`${had.definer}.${attr}\` was removed`,
      callee: `${had.cls.qualname}.${attr}`,
      param: null,
      fixes: [],
      definition: { file: had.summary.file, line: had.cls.line },
    });
  }

  /** The arguments of a call (`skip`: the first ones are not the callee's; their indices stay those of the call). */
  private callArgs(call: Node, scope?: Scope, skip = 0): { args: CallArg[]; nodes: Node[] } | undefined {
    const list = call.childForFieldName('arguments');
    if (!list) return undefined;
    if (list.type === 'generator_expression') return { args: [{ kind: 'positional', index: 0 }], nodes: [list] };
    const nodes = argumentNodes(list);
    // `f(a=1, x)` and `f(**k, x)` are syntax errors in Python although tree-sitter accepts them
    let sawKeyword = false;
    for (const n of nodes) {
      if (n.type === 'keyword_argument' || n.type === 'dictionary_splat') sawKeyword = true;
      else if (sawKeyword && n.type !== 'list_splat') return undefined;
    }
    const args: CallArg[] = [];
    nodes.forEach((n, index) => {
      if (index < skip) return;
      if (n.type === 'keyword_argument') {
        args.push({ kind: 'keyword', name: n.childForFieldName('name')?.text, index });
      } else if (n.type === 'list_splat') {
        const inner = n.namedChildren[0];
        if (inner && (inner.type === 'tuple' || inner.type === 'list') && !inner.namedChildren.some((x) => x?.type === 'list_splat')) {
          for (const x of inner.namedChildren) if (x && x.type !== 'comment') args.push({ kind: 'positional', index });
        } else args.push({ kind: 'star', index });
      } else if (n.type === 'dictionary_splat') {
        const inner = n.namedChildren[0];
        const keys = !inner ? undefined : scope ? (inner.type === 'identifier' ? this.localDictKeys(inner.text, scope) : this.builtKeys(inner, scope)) : literalKeys(inner) ? { keys: literalKeys(inner)!, maybe: [] } : undefined;
        if (keys) {
          for (const k of keys.keys) args.push({ kind: 'keyword', name: k, index });
          for (const k of keys.maybe) args.push({ kind: 'maybeKeyword', name: k, index });
        } else args.push({ kind: 'dstar', index });
      } else {
        args.push({ kind: 'positional', index });
      }
    });
    return { args, nodes };
  }

  /**
   * The keys of a dict an expression gives: a display with literal keys, or a call of a plain
   * function of the user's own code whose every `return` gives such a display (see
   * `FunctionInfo.returnsDict`). Not a method: a subclass may override it.
   */
  private builtKeys(value: Node, scope: Scope): { keys: string[]; maybe: string[] } | undefined {
    const literal = literalKeys(value);
    if (literal) return { keys: literal, maybe: [] };
    if (value.type !== 'call') return undefined;
    const fn = value.childForFieldName('function');
    if (!fn || (fn.type !== 'identifier' && fn.type !== 'attribute')) return undefined;
    const v = this.valueOfExpr(fn, scope);
    if (v?.kind !== 'function' || v.owner || v.classAttr || !this.isUser(v.summary) || v.fn.decorators.length > 0) return undefined;
    return v.fn.returnsDict;
  }

  /**
   * `f(**opts)` where `opts` is a local of the enclosing function bound once to a dict display with
   * literal keys, to `dict(k=...)` or to a call `builtKeys` reads, and only read besides (`**opts`, `opts["k"]`, `opts.get(...)`,
   * `"k" in opts`): its keys. A key a literal subscript sets or takes out (`opts["k"] = v`, `del
   * opts["k"]`, `opts.pop("k")`) may be there or not: it is among the `maybe` keys. A dict the
   * function changes otherwise, hands on as a value, or binds again (or that a nested function
   * binds) gives none.
   */
  private localDictKeys(name: string, scope: Scope): { keys: string[]; maybe: string[] } | undefined {
    let s: Scope | undefined = scope;
    while (s && (s.kind !== 'function' || (s.comprehension && !s.locals.has(name)))) s = s.parent;
    if (!s || s.globals.has(name)) return undefined;
    const list = s.locals.get(name);
    const b = list?.length === 1 ? list[0] : undefined;
    if (!b || b.kind !== 'assigned') return undefined;
    const built = this.builtKeys(b.value, s);
    if (!built) return undefined;
    const keys = new Set(built.keys);
    // keys a subscript with a literal sets (`opts["k"] = v`, maybe under a condition) or takes
    // (`del opts["k"]`, `opts.pop("k")`): each may be there or not when the call is made
    const maybe = new Set<string>(built.maybe);
    for (const id of identifiersNamed(s.node, name)) {
      // the binding itself
      if (id.parent?.type === 'assignment' && id.parent.childForFieldName('left')?.id === id.id && id.parent.childForFieldName('right')?.id === b.value.id) continue;
      const use = dictUse(id);
      if (use?.kind === 'splat' || use?.kind === 'read' || use?.kind === 'name') continue;
      if ((use?.kind === 'add' && use.subscript) || use?.kind === 'take') {
        if (use.key === undefined) return undefined;
        maybe.add(use.key);
        keys.delete(use.key);
        continue;
      }
      return undefined;
    }
    return { keys: [...keys], maybe: [...maybe] };
  }

  /**
   * `from m import f` at module level, unconditionally, above every place the file sets `m.f` (or
   * any `x.f`) from outside, and no other file of the project sets it: the name `f` holds the
   * function the import found, which the later replacement of the module's attribute does not
   * change (`orig = f` style: a file that saves the original before it patches the module). Code
   * of the file that runs before the import stands above it, so a replacement below it runs after.
   */
  private importedBeforeReplaced(fn: Node, scope: Scope, v: Value, replaced: string): boolean {
    if (fn.type !== 'identifier' || v.kind !== 'function' || v.owner || this.opts.projectPatched?.has(replaced)) return false;
    for (let s: Scope | undefined = scope; s && s.kind !== 'module'; s = s.parent) if (s.locals.has(fn.text) || s.globals.has(fn.text)) return false;
    const bs = this.summary.bindings.get(fn.text);
    const b = bs?.length === 1 ? bs[0] : undefined;
    if (b?.kind !== 'from' || b.conditional || b.tryImport || b.name !== replaced) return false;
    const text = this.shared.text;
    // a function that rebinds the module's name (`global f`) may put anything there
    if (new RegExp(`\\bglobal\\b[^\\n]*\\b${fn.text}\\b`).test(text)) return false;
    const lineAt = (index: number): number => {
      let line = 1;
      for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) line++;
      return line;
    };
    const sets = new RegExp(`(?<![\\w.])[A-Za-z_][\\w.]*\\.${replaced}[ \\t]*(?::[^=\\n]*)?=(?!=)|\\bsetattr\\s*\\([^,()]+,\\s*["']${replaced}["']`, 'g');
    for (const m of text.matchAll(sets)) if (lineAt(m.index!) <= b.line) return false;
    return true;
  }

  /** Why a call of `v` may reach a replacement set from outside (see `replacedFromOutside`), unless the name was imported before it was replaced. */
  private replacementReached(fn: Node, scope: Scope, v: Value, qualname: string): string | undefined {
    const replaced = this.replacedFromOutside(v, qualname);
    return replaced && !this.importedBeforeReplaced(fn, scope, v, replaced) ? `the file or the project sets ${replaced} from outside: the call may reach the replacement` : undefined;
  }

  /**
   * The file or the project sets the callee from outside (`C.__init__ = mine`, `mod.f = g`,
   * `vllm.lora.request.LoRARequest = Patched`): the call may reach the replacement, whose
   * parameters may be others. What it sets, or undefined.
   */
  private replacedFromOutside(v: Value, qualname: string): string | undefined {
    // each class a receiver may hold has its own method: any of them replaced may be reached
    const namesOf = (x: Value): string[] => (x.kind === 'class' ? [x.cls.name, `${x.cls.name}.__init__`, `${x.cls.name}.__new__`] : x.kind === 'function' && x.owner ? [`${x.owner.name}.${x.fn.name}`] : x.kind === 'anyOf' ? [...x.values.flatMap(namesOf), qualname.slice(qualname.lastIndexOf('.') + 1)] : [qualname.slice(qualname.lastIndexOf('.') + 1)]);
    return namesOf(v).find((n) => this.patched().includes(n) || !!this.opts.projectPatched?.has(n));
  }

  /**
   * `a, b = f(...)` where `f` is a function of the target whose return annotation is a tuple of
   * another fixed length, while the baseline's `f` was annotated with as many elements as are
   * unpacked: a ValueError. An annotation alone is not enough (real libraries have tuple
   * annotations that their functions do not keep); the change between the versions is. A method
   * counts on a receiver whose method is decided (`r.m(...)`, `self.m(...)`); where the receiver
   * may be a subclass, every override the engine knows of must be annotated with the same length
   * (virtual dispatch, as for binding). Calls of an instance (`__call__`, which hooks may wrap),
   * of a class's method, through super() or on a receiver of several classes are left alone, and
   * so are starred targets, code that catches ValueError and code for other versions.
   */
  private checkUnpack(call: Node, resolved: Resolved, qualname: string): void {
    // `a, b = f(...)`, or `a, b = await f(...)` of an `async def` (whose annotation says what the await gives)
    const awaited = call.parent?.type === 'await' ? call.parent : undefined;
    const parent = (awaited ?? call).parent;
    if (!parent || parent.type !== 'assignment' || parent.childForFieldName('right')?.id !== (awaited ?? call).id) return;
    const left = parent.childForFieldName('left');
    if (!left || (left.type !== 'pattern_list' && left.type !== 'tuple_pattern' && left.type !== 'list_pattern')) return;
    const targets = left.namedChildren.filter((t): t is Node => !!t && t.type !== 'comment');
    if (targets.some((t) => t.type === 'list_splat_pattern')) return;
    const v = resolved.value;
    if (v.kind !== 'function' || resolved.receivers || resolved.classReceiver || resolved.superOf) return;
    if (!!v.fn.isAsync !== !!awaited) return;
    const inst = resolved.receiver;
    if (!v.owner !== !inst) return;
    // `r.m(...)` itself, not `r(...)` running a method
    const callee = call.childForFieldName('function');
    if (inst ? callee?.type !== 'attribute' || callee.childForFieldName('attribute')?.text !== v.fn.name : resolved.method) return;
    const returned = v.fn.returns ? fixedTupleLength(v.fn.returns) : undefined;
    if (returned === undefined || returned === targets.length) return;
    const cv = this.opts.crossVersion;
    const was = v.owner ? cv?.baselineMethod?.(v.summary.name, v.owner.qualname, v.fn.name)?.returns : cv?.baselineReturns?.(v.summary.name, v.fn.name);
    if (!was || fixedTupleLength(was) !== targets.length) return;
    if (guardedBy(call, HANDLES_VALUE_ERROR) || this.otherVersion(call)) return;
    if (inst?.declared) {
      const length = (x: Value): string | undefined => (x.kind === 'function' && x.fn.returns ? String(fixedTupleLength(x.fn.returns)) : undefined);
      if (this.checker.receivers.dispatch(inst.cls, inst.summary, v.fn.name, String(returned), length, this.fileClasses(), !this.isUser(inst.summary), !inst.self && !inst.registry)) return;
    }
    const name = qualname.slice(qualname.lastIndexOf('.') + 1);
    this.findings.push({
      file: this.opts.file,
      range: rangeOf(left),
      severity: 'error',
      code: 'unpack-mismatch',
      message: `${name}() returns ${returned} values in the target (-> ${oneLine(v.fn.returns!)}), and this unpacks ${targets.length} as the baseline's did (-> ${oneLine(was)}): ValueError: ${returned > targets.length ? `too many values to unpack (expected ${targets.length})` : `not enough values to unpack (expected ${targets.length}, got ${returned})`}`,
      change: `\`${name}\` returns ${returned} values instead of ${targets.length}`,
      callee: qualname,
      param: null,
      fixes: [],
      definition: { file: v.summary.file, line: v.fn.line },
      call: rangeOf(parent),
    });
  }

  /**
   * A callable handed to a function of the standard library that calls it with the arguments after
   * it: `asyncio.to_thread(f, *args, **kwargs)`, `loop.run_in_executor(executor, f, *args)` on the
   * loop `asyncio.get_running_loop()` (or `get_event_loop()`, `new_event_loop()`) gives, and
   * `executor.submit(f, *args, **kwargs)` on a `concurrent.futures` executor built where it is
   * bound. The call of `f` is checked as if written `f(*args, **kwargs)`. The callable must be
   * passed positionally, in its place, with nothing unpacked before it.
   */
  private forwardedCall(call: Node, fn: Node, scope: Scope): Forward | undefined {
    const list = call.childForFieldName('arguments');
    if (!list || list.type !== 'argument_list') return undefined;
    let skip = 1;
    let keywords = true;
    let partial = false;
    const attr = fn.type === 'attribute' ? fn.childForFieldName('attribute')?.text : undefined;
    const obj = fn.type === 'attribute' ? fn.childForFieldName('object') : undefined;
    if (attr === 'run_in_executor' && obj && this.builtBy(obj, scope, LOOP_GETTERS)) {
      skip = 2;
      keywords = false;
    } else if (attr === 'submit' && obj && this.builtBy(obj, scope, EXECUTORS)) {
      skip = 1;
    } else if (fn.type === 'identifier' || attr === 'to_thread' || attr === 'partial' || attr === 'Thread' || attr === 'Process') {
      const q = this.stdQualname(fn, scope);
      if (q && TARGET_RUNNERS.has(q)) return this.targetRun(list);
      if (!q || !FORWARDERS.has(q)) return undefined;
      partial = q === 'functools.partial';
    } else return undefined;
    const nodes = argumentNodes(list);
    if (nodes.length < skip || nodes.slice(0, skip).some((n) => n.type === 'keyword_argument' || n.type === 'list_splat' || n.type === 'dictionary_splat')) return undefined;
    // run_in_executor passes no keywords: a call that gives it some fails on its own
    if (!keywords && nodes.some((n) => n.type === 'keyword_argument' || n.type === 'dictionary_splat')) return undefined;
    const callee = nodes[skip - 1];
    if (callee.type !== 'identifier' && callee.type !== 'attribute') return undefined;
    return { fn: callee, skip, keywords, partial };
  }

  /**
   * `Thread(target=f, args=(a, b), kwargs={"k": v})` (or a `Process`): its `run()` calls `f(a, b,
   * k=v)`. Only with `target=` given by keyword, `args=` a tuple or list display without `*` and
   * `kwargs=` a dict display with literal keys (either may be left out); nothing unpacked into the
   * constructor's own arguments.
   */
  private targetRun(list: Node): Forward | undefined {
    const nodes = argumentNodes(list);
    if (nodes.some((n) => n.type !== 'keyword_argument')) return undefined;
    const given = (k: string): Node | undefined => nodes.find((n) => n.childForFieldName('name')?.text === k)?.childForFieldName('value') ?? undefined;
    const fn = given('target');
    if (!fn || (fn.type !== 'identifier' && fn.type !== 'attribute')) return undefined;
    const args: CallArg[] = [];
    const argNodes: Node[] = [];
    const positional = given('args');
    if (positional) {
      if (positional.type !== 'tuple' && positional.type !== 'list' && positional.type !== 'parenthesized_expression') return undefined;
      const items = positional.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment');
      // `args=(x)` is no tuple: x itself, unpacked by run()
      if (positional.type === 'parenthesized_expression' || items.some((c) => c.type === 'list_splat' || c.type === 'parenthesized_list_splat')) return undefined;
      for (const c of items) {
        args.push({ kind: 'positional', index: argNodes.length });
        argNodes.push(c);
      }
    }
    const keywords = given('kwargs');
    if (keywords) {
      if (keywords.type !== 'dictionary' || !literalKeys(keywords)) return undefined;
      for (const pair of keywords.namedChildren) {
        if (!pair || pair.type !== 'pair') continue;
        args.push({ kind: 'keyword', name: stringValue(pair.childForFieldName('key')!)!, index: argNodes.length });
        argNodes.push(pair);
      }
    }
    return { fn, skip: 0, keywords: false, partial: false, args: { args, nodes: argNodes } };
  }

  /** The qualified name of a function of a library outside the target (or of the standard library as the target) that `node` names. */
  private stdQualname(node: Node, scope: Scope): string | undefined {
    const v = this.valueOfExpr(node, scope);
    if (!v) return undefined;
    if (v.kind === 'external') return v.qualname;
    if (v.kind === 'special') return v.name;
    if (v.kind === 'function' && !v.owner) return `${v.summary.name}.${v.fn.name}`;
    return undefined;
  }

  /**
   * `obj` is the value of a call of one of `makers` (by qualified name): the call itself, or a name
   * of the function bound once to it (`loop = asyncio.get_running_loop()`, `with
   * ThreadPoolExecutor() as ex`).
   */
  private builtBy(obj: Node, scope: Scope, makers: ReadonlySet<string>): boolean {
    let value: Node | undefined = obj;
    let at = scope;
    if (obj.type === 'identifier') {
      const b = this.boundOnce(obj.text, scope);
      if (!b || !('node' in b)) return false;
      value = b.node;
      at = b.scope;
    }
    if (value?.type !== 'call') return false;
    const callee = value.childForFieldName('function');
    return !!callee && makers.has(this.stdQualname(callee, at) ?? '');
  }

  private checkCall(call: Node, scope: Scope, forward?: Forward): void {
    const callFn = call.childForFieldName('function');
    if (!callFn || this.inError || call.hasError) return;
    if (!forward) {
      const fwd = this.forwardedCall(call, callFn, scope);
      if (fwd) this.checkCall(call, scope, fwd);
    }
    const fn = forward?.fn ?? callFn;
    const resolved = this.calleeSpec(fn, scope);
    if (!resolved) return;
    const nameNode = fn.type === 'attribute' ? fn.childForFieldName('attribute') ?? fn : fn.type === 'subscript' ? fn.childForFieldName('value') ?? fn : fn;
    if ('untraced' in resolved) {
      if (resolved.absent && this.removedMember(call, nameNode, resolved.absent.inst, resolved.absent.attr)) return;
      this.callsUntraced++;
      this.calls.push({ range: rangeOf(nameNode), extent: rangeOf(call), callee: fn.text, signatures: [], definition: null, status: 'untraced', unknownReason: resolved.untraced });
      return;
    }
    const { spec } = resolved;
    if (spec.kind === 'unknown') {
      if (!isTargetValue(resolved.value, (x) => this.isUser(x))) return;
      this.unknownCall(call, nameNode, fn.text, spec.reason);
      return;
    }
    // the user's own definitions are not checked (a user class that inherits a target __init__ is)
    if (!this.opts.moduleName && spec.alternatives.every((a) => a.every((s) => this.definedByUser(s)))) {
      // ... but a keyword it hands on with **kwargs to the target's callable, which refuses it, is
      // that callable's error (not counted: the call itself is no call into the target)
      if (spec.alternatives.length === 1 && spec.alternatives[0].length === 1 && spec.alternatives[0][0].passesKeywords && !this.otherVersion(call) && !guardedBy(call, HANDLES_TYPE_ERROR)) {
        const parsed = forward?.args ?? this.callArgs(call, scope, forward?.skip);
        if (parsed && bindAlternatives(spec, parsed.args)[0].length === 0) this.checkPassedOn(call, spec, parsed, resolved, true);
      }
      return;
    }
    const parsed = forward?.args ?? this.callArgs(call, scope, forward?.skip);
    if (!parsed) return;
    const bound = bindAlternatives(spec, parsed.args);
    // what a partial lacks, the call of it may give
    const results = forward?.partial ? bound.map((r) => r.filter((x) => x.error.kind !== 'missing-argument')) : bound;
    const expected = outcomeKey(results);
    if (resolved.receivers) {
      // each class the receiver may hold must bind the call the same way
      const keys = new Set(results.map((r) => outcomeKey([r])));
      // ... or none may bind it at all: whichever it holds, the call raises TypeError
      if (keys.size > 1 && results.every((r) => r.length > 0) && resolved.receivers.every((r) => !r.declared) && !this.otherVersion(call) && !this.boundForOneVersion(fn, scope) && !guardedBy(call, HANDLES_TYPE_ERROR)) {
        const replaced = this.replacementReached(fn, scope, resolved.value, spec.qualname);
        if (replaced) this.unknownCall(call, nameNode, spec.qualname, replaced);
        else if (this.opts.projectPending) this.unknownCall(call, nameNode, spec.qualname, PROJECT_PENDING);
        else this.noneBinds(call, nameNode, spec, results);
        return;
      }
      if (keys.size > 1) {
        this.unknownCall(call, nameNode, spec.qualname, `it may hold an instance of ${resolved.receivers.map((r) => r.cls.name).join(' or ')}, whose ${resolved.method} bind the call differently`);
        return;
      }
    }
    const receivers = resolved.receivers ?? (resolved.receiver ? [resolved.receiver] : []);
    /** How a method another class may supply binds this call (undefined: cannot tell). */
    const bindKey = (access: Access) => (v: Value): string | undefined => {
      const s2 = this.checker.callables.specOf(v, access);
      return s2.kind === 'known' ? outcomeKey(bindAlternatives(s2, parsed.args)) : undefined;
    };
    if (this.opts.projectPending && (resolved.superOf || receivers.some((r) => r.declared))) {
      // overrides in the project's other files are not known yet
      this.unknownCall(call, nameNode, spec.qualname, PROJECT_PENDING);
      return;
    }
    if (resolved.classReceiver && resolved.method) {
      // the class may be a subclass: every override must bind the call the same way
      if (this.opts.projectPending) {
        this.unknownCall(call, nameNode, spec.qualname, PROJECT_PENDING);
        return;
      }
      const why = this.checker.receivers.dispatch(resolved.classReceiver.cls, resolved.classReceiver.summary, resolved.method, expected, bindKey('class'), this.fileClasses(), !this.isUser(resolved.classReceiver.summary));
      if (why) {
        this.unknownCall(call, nameNode, spec.qualname, why);
        return;
      }
    }
    for (const receiver of receivers) {
      if (!receiver.declared || !resolved.method) continue;
      // the runtime class may be a subclass: every override must bind the call the same way
      const why = this.checker.receivers.dispatch(
        receiver.cls,
        receiver.summary,
        resolved.method,
        expected,
        bindKey('instance'),
        this.fileClasses(),
        !this.isUser(receiver.summary),
        !receiver.self && !receiver.registry,
      );
      if (why) {
        this.unknownCall(call, nameNode, spec.qualname, why);
        return;
      }
    }
    if (resolved.superOf) {
      // in a subclass that mixes in other bases, super() may reach another class's method
      const why = this.checker.receivers.superDispatch(
        resolved.superOf.cls,
        this.summary,
        resolved.superOf.method,
        expected,
        bindKey(resolved.superOf.method === '__new__' ? 'class' : 'instance'),
        this.fileClasses(),
        !this.isUser(this.summary),
      );
      if (why) {
        this.unknownCall(call, nameNode, spec.qualname, why);
        return;
      }
    }
    // code written for another version, or made to fail softly, is no break of this one
    const otherVersion =
      this.otherVersion(call) ??
      this.boundForOneVersion(fn, scope) ??
      this.signatureChosen(call, scope) ??
      (this.retries.some((r) => r.has(fn.text)) ? 'it runs where the same call in the try block failed: a fallback for a version where that call does not bind' : undefined);
    if (otherVersion) {
      this.unknownCall(call, nameNode, spec.qualname, otherVersion);
      return;
    }
    const replaced = this.replacementReached(fn, scope, resolved.value, spec.qualname);
    if (replaced) {
      this.unknownCall(call, nameNode, spec.qualname, replaced);
      return;
    }
    if (guardedBy(call, HANDLES_TYPE_ERROR)) {
      this.unknownCall(call, nameNode, spec.qualname, 'it runs where a TypeError (or ValidationError) is caught or expected, the error of a call that does not bind');
      return;
    }
    // a call that binds only if its unpacked arguments fill a required parameter is not decided
    let passedOn = false;
    if (results.some((r) => r.length === 0)) {
      const open = openByUnpacking(spec, parsed.args);
      if (open) {
        const before = this.findings.length;
        this.checkPassedOn(call, spec, parsed, resolved);
        passedOn = true;
        if (this.findings.length === before) {
          // its signature is known: what the other version's check says of it is still explained
          this.callsUnknown++;
          this.recordCall(call, nameNode, spec, { status: 'unknown', unknownReason: open });
          return;
        }
      }
    }
    const first = this.checkedCall(call, nameNode, spec, spec.alternatives.some((a) => a.some((x) => x.boundPositional)) ? 0 : leadingPositional(parsed.args));
    if (!forward) this.checkUnpack(call, resolved, spec.qualname);
    const deprecated = spec.alternatives.every((a) => a.some((x) => x.deprecated !== undefined)) ? spec.alternatives[0].find((x) => x.deprecated !== undefined)?.deprecated : undefined;
    if (deprecated !== undefined && !this.opts.moduleName) {
      this.findings.push({
        file: this.opts.file,
        range: rangeOf(nameNode),
        severity: 'hint',
        code: 'deprecated',
        message: `${first.name} is deprecated in the target: ${deprecated}`,
        callee: spec.qualname,
        param: null,
        fixes: [],
        definition: first.definition,
        tags: ['deprecated'],
        call: rangeOf(call),
      });
    }
    if (results.some((r) => r.length === 0)) {
      if (!passedOn) this.checkPassedOn(call, spec, parsed, resolved);
      return;
    }
    const common = commonErrors(results);
    const hasStars = parsed.args.some((a) => a.kind === 'star' || a.kind === 'dstar');
    // the missing arguments of one signature make one finding, as Python names them in one TypeError
    const missing = new Map<Sig, Array<{ sig: Sig; error: BindError }>>();
    for (const e of common) if (e.error.kind === 'missing-argument' && e.error.param) missing.set(e.sig, [...(missing.get(e.sig) ?? []), e]);
    for (const { sig, error } of common) {
      const group = error.kind === 'missing-argument' && error.param ? missing.get(sig) : undefined;
      if (group && group[0].error !== error) continue;
      const argNode = error.argIndex !== undefined ? parsed.nodes[error.argIndex] : undefined;
      const range = rangeOf(argNode ?? nameNode);
      const fixes = [];
      // a key of a dict handed in with ** is not an argument the fix could take out alone
      if (error.kind === 'unexpected-keyword' && argNode?.type === 'keyword_argument' && !forward?.args) {
        fixes.push(fixRemoveArgument(this.lines, parsed.nodes, error.argIndex!, call.childForFieldName('arguments')!, error.param!));
      }
      if (group && !hasStars && (forward?.keywords ?? true)) {
        // positional-only parameters cannot be passed by keyword: those get no fix
        const names = group.map((g) => g.error.param!);
        if (names.every((n) => sig.params.find((x) => x.name === n)?.kind !== 'posonly')) {
          fixes.push(fixInsertArgument(this.lines, parsed.nodes, call.childForFieldName('arguments')!, names, this.scopeNames(scope, call)));
        }
      }
      this.findings.push({
        file: this.opts.file,
        range,
        severity: 'error',
        code: error.kind,
        message: `${group && group.length > 1 ? missingMessage(group.map((g) => g.error)) : error.message}. Target signature: ${sigText(sig)}`,
        callee: sig.qualname,
        param: error.param,
        fixes,
        definition: sig.definition,
        signature: sigText(sig),
        call: rangeOf(call),
      });
    }
  }

  /**
   * `f(..., k=v)` that binds, `k` landing in f's `**kwargs` because no parameter of f takes it,
   * where f hands its `**kwargs` on to another callable of the target (see `PassesKeywords`),
   * which has no parameter `k` and no `**kwargs` of its own (or hands them on again, followed a few
   * steps): the call raises TypeError there. Only for a callee of one signature.
   */
  private checkPassedOn(call: Node, spec: Extract<CallSpec, { kind: 'known' }>, parsed: { args: CallArg[]; nodes: Node[] }, resolved: Resolved, byUser = false): void {
    if (spec.alternatives.length !== 1 || spec.alternatives[0].length !== 1) return;
    const sig = spec.alternatives[0][0];
    if (!sig.passesKeywords) return;
    // the class of the instance, exactly (super() follows its MRO): the class called, or a receiver built by a known class
    const v = resolved.value;
    const r = resolved.receiver;
    const exact = v.kind === 'class' && !r && !resolved.classReceiver && this.checker.callables.buildsPlainInstance(v.cls, v.summary);
    const runtime = exact ? { cls: v.cls, summary: v.summary } : r && !r.declared ? { cls: r.cls, summary: r.summary } : undefined;
    parsed.args.forEach((a) => {
      if (a.kind !== 'keyword' || !a.name || sig.params.some((p) => p.name === a.name && p.kind !== 'varkw')) return;
      const refused = this.refusedWhenPassedOn(sig, a.name, 0, runtime);
      // from the user's own function: only where the target's callable refuses it
      if (!refused || (byUser && this.definedByUser(refused.sig))) return;
      const argNode = parsed.nodes[a.index];
      const via = [sig, ...refused.via].map((x) => `${x.name}()`).join(' to ');
      // with a baseline whose class of that name had the field or attribute: it was removed
      const dot = refused.sig.qualname.lastIndexOf('.');
      const had = dot > 0 ? this.opts.crossVersion?.baselineClassHas?.(refused.sig.qualname.slice(0, dot), refused.sig.qualname, a.name) : undefined;
      this.findings.push({
        file: this.opts.file,
        range: rangeOf(argNode),
        severity: 'error',
        code: 'unexpected-keyword',
        message: `${refused.sig.name}() got an unexpected keyword argument '${a.name}': ${via} pass${refused.via.length ? '' : 'es'} it on with **${sig.passesKeywords!.varkw} to ${refused.sig.name}(), which takes no such parameter${had ? ` (\`${had}.${a.name}\` was removed)` : ''}. Target signature: ${sigText(refused.sig)}`,
        callee: refused.sig.qualname,
        param: a.name,
        fixes: argNode.type === 'keyword_argument' ? [fixRemoveArgument(this.lines, parsed.nodes, a.index, call.childForFieldName('arguments')!, a.name)] : [],
        definition: refused.sig.definition,
        signature: sigText(refused.sig),
        call: rangeOf(call),
        ...(had ? { change: `\`${had}.${a.name}\` was removed` } : {}),
      });
    });
  }

  /** The signature that refuses keyword `k` handed on by `sig`'s `**kwargs`, and the ones that hand it on between; undefined when it may be taken. */
  private refusedWhenPassedOn(sig: Sig, k: string, depth: number, runtime?: { cls: ClassInfo; summary: ModuleSummary }): { sig: Sig; via: Sig[] } | undefined {
    const pk = sig.passesKeywords;
    if (!pk || depth > 3 || pk.consumed.includes(k) || pk.keywords.includes(k)) return undefined;
    // super() goes on with the same instance; a class called anew builds an instance of exactly that class
    let inner: CallSpec | undefined;
    let after: { cls: ClassInfo; summary: ModuleSummary } | undefined;
    if (pk.toSuper) {
      inner = this.superMethodSpec(pk.toSuper, pk.owner, runtime);
      after = runtime;
    } else {
      const callee = this.program.evalExpr(pk.to, pk.summary);
      inner = this.checker.callables.specOf(callee);
      after = callee.kind === 'class' && this.checker.callables.buildsPlainInstance(callee.cls, callee.summary) ? { cls: callee.cls, summary: callee.summary } : undefined;
    }
    if (!inner) return undefined;
    if (inner.kind !== 'known' || inner.alternatives.length !== 1 || inner.alternatives[0].length !== 1) return undefined;
    const next = inner.alternatives[0][0];
    if (next.ignoredKeywords?.has(k) || (next.reports && !next.reports.has('unexpected-keyword')) || next.boundPositional) return undefined;
    if (next.params.some((p) => p.name === k && p.kind !== 'varkw')) return undefined;
    if (!next.params.some((p) => p.kind === 'varkw')) return { sig: next, via: [] };
    const further = this.refusedWhenPassedOn(next, k, depth + 1, after);
    return further ? { sig: further.sig, via: [next, ...further.via] } : undefined;
  }

  /**
   * What `super().method(...)` in a method of `owner` calls on an instance of exactly `runtime`:
   * the next class after `owner` along `runtime`'s MRO that defines `method` in its body, when
   * every class before it is seen and none is built by a decorator or declares fields (a generated
   * `__init__`); undefined otherwise.
   */
  private superMethodSpec(method: string, owner: ClassInfo | undefined, runtime: { cls: ClassInfo; summary: ModuleSummary } | undefined): CallSpec | undefined {
    if (!owner || !runtime) return undefined;
    const mro = this.checker.callables.mro(runtime.cls, runtime.summary);
    const at = mro?.findIndex((e) => e.kind === 'class' && e.cls === owner) ?? -1;
    if (!mro || at < 0) return undefined;
    for (const e of mro.slice(at + 1)) {
      if (e.kind !== 'class' || e.cls.decorators.length > 0 || e.cls.fields.length > 0 || e.cls.keywords.has('metaclass')) return undefined;
      if (!e.cls.members.has(method)) continue;
      const v = this.program.classMember(e.cls, e.summary, method);
      return v?.kind === 'function' ? this.checker.callables.functionSpec(v.fn, v.summary, e.cls, 'instance') : undefined;
    }
    return undefined;
  }

  /** Names visible at a call, in the order a fix should prefer them. */
  private scopeNames(scope: Scope, at: Node): ScopeNames {
    this.namesAt.push(at.startPosition.row);
    const names: string[] = [];
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      if (s.kind === 'function') names.push(...s.locals.keys());
    }
    names.push(...this.moduleNamesAt(at.startPosition.row));
    return names;
  }

  /** The module-level names visible at a row: bound above it, or defs and classes. */
  private moduleNamesAt(row: number): string[] {
    let names = this.namesOfRow.get(row);
    if (names) return names;
    names = [];
    for (const [name, bs] of this.summary.bindings) {
      if (bs.some((b) => b.line <= row + 1 || b.kind === 'def' || b.kind === 'class')) names.push(name);
    }
    this.namesOfRow.set(row, names);
    return names;
  }

  private readonly namesOfRow = new Map<number, string[]>();
}

/** Python's own words for several missing arguments: "f() missing 2 required positional arguments: 'a' and 'b'". */
function missingMessage(errors: BindError[]): string {
  const first = errors[0].message;
  const name = first.slice(0, first.indexOf(' missing 1 required '));
  const list = (names: string[]): string => {
    const q = names.map((n) => `'${n}'`);
    return q.length <= 2 ? q.join(' and ') : `${q.slice(0, -1).join(', ')}, and ${q[q.length - 1]}`;
  };
  const kinds = ['positional argument', 'keyword-only argument'].map((what) => {
    const names = errors.filter((e) => e.message.endsWith(` ${what}: '${e.param}'`)).map((e) => e.param!);
    return names.length === 0 ? '' : `${names.length} required ${what}${names.length > 1 ? 's' : ''}: ${list(names)}`;
  });
  return `${name} missing ${kinds.filter((k) => k).join(', and ')}`;
}

/** `C` of an annotation `type[C]` (also `Type[C]`, quoted, or with `| None` / `Optional`), else undefined. */
function classOfType(text: string): string | undefined {
  let t = text.trim();
  const q = /^(['"])(.*)\1$/s.exec(t);
  if (q) t = q[2].trim();
  const opt = /^(?:typing\.)?Optional\[(.*)\]$/s.exec(t);
  if (opt) t = opt[1].trim();
  const none = /^(.*?)\s*\|\s*None$|^None\s*\|\s*(.*)$/s.exec(t);
  if (none) t = (none[1] ?? none[2]).trim();
  const m = /^(?:type|Type|typing\.Type)\[\s*([A-Za-z_][\w.]*)\s*\]$/s.exec(t);
  return m ? m[1] : undefined;
}

type Resolved = { spec: CallSpec; value: Value; receiver?: Instance; receivers?: Instance[]; classReceiver?: { cls: ClassInfo; summary: ModuleSummary }; method?: string; superOf?: { cls: ClassInfo; method: string } };

type Outcome = Array<Array<{ sig: Sig; error: BindError }>>;

/** Binds a call to each alternative (every signature of an alternative must bind). */
function bindAlternatives(spec: Extract<CallSpec, { kind: 'known' }>, args: CallArg[]): Outcome {
  return spec.alternatives.map((conj) => {
    const errs: Array<{ sig: Sig; error: BindError }> = [];
    const seen = new Set<string>();
    for (const sig of conj) {
      for (const error of bindCall(sig, args)) {
        const key = `${error.kind}:${error.param}:${error.argIndex}`;
        if (seen.has(key)) continue;
        seen.add(key);
        errs.push({ sig, error });
      }
    }
    return errs;
  });
}

/**
 * Why a call that binds to some alternative is not decided: every alternative that binds does so
 * only if unpacked arguments (`*args`, `**kwargs` of unknown content, a key a dict may hold) fill
 * a required parameter. Undefined when one binds whatever they hold.
 */
function openByUnpacking(spec: Extract<CallSpec, { kind: 'known' }>, args: CallArg[]): string | undefined {
  let first: string | undefined;
  for (const conj of spec.alternatives) {
    const open = new Set<string>();
    let fails = false;
    for (const sig of conj) if (bindCall(sig, args, open).length > 0) fails = true;
    if (fails) continue;
    if (open.size === 0) return undefined;
    first ??= [...open][0];
  }
  return first === undefined ? undefined : `whether it binds depends on what the unpacked arguments hold: only they may give the required \`${first}\``;
}

/**
 * With several possible definitions, what fails against every one of them (too-many-positional
 * is matched by kind alone and reported where every alternative has overflowed).
 */
function commonErrors(results: Outcome): Array<{ sig: Sig; error: BindError }> {
  const key = (x: { error: BindError }): string => (x.error.kind === 'too-many-positional' ? x.error.kind : `${x.error.kind}:${x.error.param}:${x.error.argIndex}`);
  const sets = results.map((r) => new Set(r.map(key)));
  return results[0]
    .filter((x) => sets.every((set) => set.has(key(x))))
    .map((x) => {
      if (x.error.kind !== 'too-many-positional') return x;
      const furthest = Math.max(...results.map((r) => r.find((y) => y.error.kind === 'too-many-positional')!.error.argIndex ?? 0));
      return { ...x, error: { ...x.error, argIndex: furthest } };
    });
}

/** How a call binds, as a string to compare: empty when it binds, else its errors. */
function outcomeKey(results: Outcome): string {
  if (results.some((r) => r.length === 0)) return '';
  return commonErrors(results)
    .map((x) => `${x.error.kind}:${x.error.param ?? ''}`)
    .sort()
    .join('|');
}

function clip(text: string): string {
  const t = text.replace(/\s+/g, ' ');
  return t.length > 40 ? t.slice(0, 37) + '...' : t;
}

/**
 * Whether a callee's trail reached definitions in the target (so that an unknown binding counts
 * as an unknown call in the statistics). A trail that ends in a value the engine does not model,
 * outside the target, or in a compiled module is no checkable call at all.
 */
function isTargetValue(v: Value, isUser: (s: ModuleSummary) => boolean): boolean {
  switch (v.kind) {
    case 'function':
    case 'class':
      return !isUser(v.summary);
    case 'partial':
      return isTargetValue(v.base, isUser);
    case 'anyOf':
      return v.values.every((x) => isTargetValue(x, isUser));
    case 'namedtuple':
      return !v.qualname.startsWith(USER_MODULE + '.');
    default:
      return false;
  }
}

function literalKeys(n: Node): string[] | undefined {
  if (n.type === 'dictionary') {
    const keys: string[] = [];
    for (const p of n.namedChildren) {
      if (!p || p.type === 'comment') continue;
      if (p.type !== 'pair') return undefined;
      const k = p.childForFieldName('key');
      const v = k ? stringValue(k) : undefined;
      if (v === undefined) return undefined;
      keys.push(v);
    }
    return keys;
  }
  if (n.type === 'call' && n.childForFieldName('function')?.text === 'dict') {
    const args = argumentNodes(n.childForFieldName('arguments'));
    if (!args.every((a) => a?.type === 'keyword_argument')) return undefined;
    return args.map((a) => a!.childForFieldName('name')!.text);
  }
  return undefined;
}

/**
 * `d.get(k)` or `d.get(k, None)`: an item of the mapping, or None (a method called on None fails
 * anyway). With another default the value may be that default instead: not an item.
 */
function isMappingGet(node: Node): boolean {
  if (node.type !== 'call') return false;
  const fn = node.childForFieldName('function');
  if (fn?.type !== 'attribute' || fn.childForFieldName('attribute')?.text !== 'get') return false;
  const args = node.childForFieldName('arguments');
  if (!args || args.type !== 'argument_list') return false;
  const list = argumentNodes(args);
  // a keyword, `*args` or `**kwargs` may pass a default
  if (list.some((a) => a.type === 'keyword_argument' || a.type === 'list_splat' || a.type === 'dictionary_splat')) return false;
  return list.length === 1 || (list.length === 2 && list[1].type === 'none');
}

/**
 * The targets of `for a, b in ...` that take an element of a container: `for i, x in
 * enumerate(xs)` (x an element of xs), `for a, b in zip(xs, ys)` (one of each), `for k, v in
 * d.items()` (a key and a value of d). Each target with its binding (null: not followed).
 */
function unpackedLoop(left: Node, right: Node): Array<[Node, LocalBinding | null]> | undefined {
  if ((left.type !== 'pattern_list' && left.type !== 'tuple_pattern') || right.type !== 'call') return undefined;
  const targets = left.namedChildren.filter((x): x is Node => !!x && x.type !== 'comment');
  const fn = right.childForFieldName('function');
  const argList = right.childForFieldName('arguments');
  if (!fn || !argList || argList.type !== 'argument_list') return undefined;
  const args = argumentNodes(argList);
  if (args.some((a) => a.type === 'keyword_argument' || a.type === 'list_splat' || a.type === 'dictionary_splat' || a.type === 'parenthesized_list_splat')) return undefined;
  if (targets.some((t) => t.type === 'list_splat_pattern')) return undefined;
  if (fn.type === 'identifier' && fn.text === 'enumerate' && args.length === 1 && targets.length === 2) return [[targets[0], null], [targets[1], { kind: 'for', iter: args[0], via: 'enumerate' }]];
  if (fn.type === 'identifier' && fn.text === 'zip' && args.length > 0 && args.length === targets.length) return targets.map((t, i): [Node, LocalBinding] => [t, { kind: 'for', iter: args[i], via: 'zip' }]);
  const obj = fn.type === 'attribute' ? fn.childForFieldName('object') : null;
  if (obj && fn.childForFieldName('attribute')?.text === 'items' && args.length === 0 && targets.length === 2) return [[targets[0], { kind: 'for', iter: obj, how: 'keys' }], [targets[1], { kind: 'for', iter: obj, how: 'values' }]];
  return undefined;
}

