/**
 * Per-statement reuse for re-checks of an edited file. A top-level statement's findings depend on
 * its own text, on the module-level names it mentions (and, through their bindings, on the names
 * those mention), on the file's module-wide facts (star imports, `__all__`, module `__getattr__`)
 * and on the target. When none of these changed since the last check of the same file, the
 * statement's results are taken over, moved to where the statement is now, instead of checking
 * it again: a keystroke costs the statements it touched.
 */
import { hashText, serialize } from '../index/cache';
import { ownString } from '../ownStrings';
import type { OverrideInfo } from './check';
import type { Binding, FunctionInfo, ModuleSummary } from '../index/summary';
import type { CallInfo, Finding, Position, Range } from '../types';

/** What checking one top-level statement produced, with rows relative to the statement's first row. */
export interface StatementResult {
  findings: Finding[];
  calls: CallInfo[];
  callsChecked: number;
  callsUnknown: number;
  callsUntraced: number;
  overrides: OverrideInfo[];
  tooDeep: boolean;
}

export interface Entry {
  /** Where the statement starts and ends on its first and last rows, and whether it ends the file. */
  shape: string;
  /** Fingerprint of each name the result depended on, as it was. */
  deps: Array<[string, string]>;
  /** Rows (relative to the statement's first) where the result used the module-level names visible there, and those names. */
  namesAt?: Array<[number, string]>;
  /** The fingerprints leave the lines of bindings out (the result names no definition of the file itself). */
  lineFree?: boolean;
  result: StatementResult;
  /**
   * The module-level bindings (see `NameFingerprints.state`) and the row under which the entry was
   * last found valid: while both hold, so do its dependencies, unchecked.
   */
  valid?: { state: string; row: number };
  /** The findings and calls as last moved to a row, handed out again while the statement stays on that row. */
  moved?: { row: number; findings: Finding[]; calls: CallInfo[] };
  /** The result and dependencies are copied off the text they were cut from (see `ownEntry`). */
  owned?: boolean;
}

/** The reusable statement results of one file, for one checker (target or baseline). */
export class StatementMemo {
  private global = '';
  private entries = new Map<string, Entry>();
  private next = new Map<string, Entry>();

  /** Starts a check; a change of the module-wide facts or of the target drops everything. */
  begin(global: string): void {
    if (global !== this.global) this.entries.clear();
    this.global = global;
    this.next = new Map();
  }

  lookup(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  store(key: string, entry: Entry): void {
    this.next.set(key, entry);
  }

  /** Ends a check: only the statements of this version are kept. */
  end(): void {
    this.entries = this.next;
    this.next = new Map();
  }

  /**
   * Ends a check that did not complete (cancelled by a newer version): what it stored joins what
   * was there. Every entry is still validated against its dependencies when used.
   */
  keepBoth(): void {
    for (const [k, v] of this.next) this.entries.set(k, v);
    this.next = new Map();
  }

  get size(): number {
    return this.entries.size;
  }
}

export type { Entry as StatementEntry };

const IDENTIFIER = /[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Mn}\p{Mc}\p{Nd}\p{Pc}]*/gu;
/** The same words in a text of ASCII only (the classes above hold no other ASCII characters). */
const IDENTIFIER_ASCII = /[A-Za-z_][A-Za-z0-9_]*/g;
const NON_ASCII = /[^\x00-\x7f]/;

/** Every identifier-like word of a text (a superset of the names it uses). */
export function wordsOf(text: string): Set<string> {
  return new Set(text.match(NON_ASCII.test(text) ? IDENTIFIER : IDENTIFIER_ASCII) ?? []);
}

/**
 * The words of a statement's text that may name a module-level binding, for what its result
 * depends on: every identifier-like word (see `wordsOf`) but those that occur only as attribute
 * names (after a `.`: `self.config`, `x.results`) and, in a function statement, those the
 * function binds itself (`local`) that occur only in its body or as its parameters' names
 * (`inside`: a word at a relative position there). Python never looks either up in the
 * module: an attribute name is looked up on its object, and a name a function binds is local to
 * it everywhere in it (unless declared `global` or read in a class body: the caller passes no
 * `local` then).
 */
export function dependencyWords(text: string, local?: { names: ReadonlySet<string>; inside(at: number): boolean }): Set<string> {
  const re = new RegExp(NON_ASCII.test(text) ? IDENTIFIER : IDENTIFIER_ASCII);
  re.lastIndex = 0;
  const out = new Set<string>();
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const w = m[0];
    if (out.has(w)) continue;
    let i = m.index - 1;
    while (i >= 0 && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i--;
    // after a `.`: an attribute's name, looked up on its object (or the last part of a number, `1.e5`)
    if (i >= 0 && text.charCodeAt(i) === 46) continue;
    if (local && local.names.has(w) && local.inside(m.index)) continue;
    out.add(w);
  }
  return out;
}

/** Fields of a summary that name what they describe (a parameter, a method, an attribute), or say what it is: never a reference to a module-level name. */
const NAMING_FIELDS = new Set(['kind', 'qualname', 'module', 'attr', 'line', 'instanceAttrs']);

/**
 * The words of a binding that may refer to other module-level names, for the names a statement
 * depends on through it (see `NameFingerprints.closure`): those of its expressions, annotations
 * and descriptors (`Base`, `Cfg`, `lib` of `call:lib.C`), not the names of a def's parameters, of
 * a class's methods, fields and attributes, nor the modules and names an import binds (`config`
 * of `from vllm.config import X` is no name of the file), nor the summary's own field names. A
 * binding's content is still compared whole (its fingerprint): these words only say which other
 * names it reaches. A name a method binds, an attribute it sets, or the last part of an imported
 * module's name may then be bound at module level without re-checking every statement of a class.
 */
function referenceWords(b: Binding): Set<string> {
  const out = new Set<string>();
  referencesInto(b, out);
  return out;
}

/** The words `referenceWords` gives of a function's summary, by the object (taken over as it is while the function's text does not change). */
const functionWords = new WeakMap<FunctionInfo, Set<string>>();

function referencesInto(v: unknown, out: Set<string>): void {
  if (typeof v === 'string') {
    for (const w of dependencyWords(v)) out.add(w);
    return;
  }
  if (!v || typeof v !== 'object') return;
  if (Array.isArray(v)) {
    for (const x of v) referencesInto(x, out);
    return;
  }
  // the keys of maps name members, attributes and keywords
  if (v instanceof Map) {
    for (const x of v.values()) referencesInto(x, out);
    return;
  }
  if (v instanceof Set) {
    for (const x of v) referencesInto(x, out);
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) {
    if (NAMING_FIELDS.has(k)) continue;
    // `name` is a reference in a name expression only (elsewhere a parameter's, a function's, a field's name)
    if (k === 'name' && o.kind !== 'name') continue;
    const x = o[k];
    if (k === 'fn' && x && typeof x === 'object') {
      let w = functionWords.get(x as FunctionInfo);
      if (!w) {
        w = new Set();
        referencesInto(x, w);
        functionWords.set(x as FunctionInfo, w);
      }
      for (const y of w) out.add(y);
      continue;
    }
    referencesInto(x, out);
  }
}

export const fingerprintOf = serialize;

/** The module-wide facts of a file's summary: everything but its bindings. */
export function moduleFacts(s: ModuleSummary): string {
  return fingerprintOf({ ...s, bindings: undefined });
}

const LINE = /"line":\d+/g;

/** The text of a function's facts, by the object, with and without lines. */
const functionTexts = [new WeakMap<FunctionInfo, string>(), new WeakMap<FunctionInfo, string>()];

function functionText(fn: FunctionInfo, lineFree: boolean): string {
  const memo = functionTexts[lineFree ? 1 : 0];
  let t = memo.get(fn);
  if (t === undefined) {
    t = lineFree ? functionText(fn, false).replace(LINE, '') : fingerprintOf(fn);
    memo.set(fn, t);
  }
  return t;
}

/**
 * A binding's content as text (JSON-like; without the lines of bindings and definitions when
 * `lineFree`). A class's is made of its members': a keystroke in one method of a big class makes
 * a new summary of the class, but the facts of every other method are taken over as the same
 * objects (see the summary's method memo), so only the edited method is written out again.
 */
function bindingText(b: Binding, lineFree: boolean): string {
  const at = lineFree ? '' : `"line":${b.line},`;
  if (b.kind === 'def') return `{"kind":"def",${at}"conditional":${b.conditional},"fn":${functionText(b.fn, lineFree)}}`;
  if (b.kind !== 'class') return lineFree ? fingerprintOf(b).replace(LINE, '') : fingerprintOf(b);
  const cls = b.cls;
  const rest = fingerprintOf({ ...cls, members: undefined });
  const parts = [`{"kind":"class",${at}"conditional":${b.conditional},"cls":${lineFree ? rest.replace(LINE, '') : rest},"members":[`];
  for (const [name, bs] of cls.members) parts.push(`[${JSON.stringify(name)},[${bs.map((m) => bindingText(m, lineFree)).join(',')}]]`);
  parts.push(']}');
  return parts.join('');
}

/** A fingerprint kept short: long ones (a big class's summary) are compared by their hash. */
function short(fp: string): string {
  return fp.length > 200 ? `#${hashText(fp)}` : fp;
}

/**
 * Fingerprints of module-level names for one check: a name's bindings, where a binding made by
 * the statement itself counts by its place in the statement only (its content is the statement's
 * own text), so that moving a statement does not change what it depends on.
 */
export class NameFingerprints {
  /** Bindings are never changed once made, and those of unchanged statements are taken over between checks. */
  private static readonly json = new WeakMap<Binding, string>();
  private static readonly words = new WeakMap<Binding, Set<string>>();

  constructor(private readonly bindings: Map<string, Binding[]>) {}

  private jsonOf(b: Binding): string {
    let j = NameFingerprints.json.get(b);
    if (j === undefined) {
      j = bindingText(b, false);
      NameFingerprints.json.set(b, j);
    }
    return j;
  }

  private wordsOfBinding(b: Binding): Set<string> {
    let w = NameFingerprints.words.get(b);
    if (!w) {
      w = referenceWords(b);
      NameFingerprints.words.set(b, w);
    }
    return w;
  }

  /** The state of each bindings map (the checks against the target and the baseline share the file's summary). */
  private static readonly states = new WeakMap<Map<string, Binding[]>, string>();

  /**
   * All module-level bindings, names and lines included, as one short key. Every fingerprint of
   * a name for a statement at given rows is a function of them: a result found valid under a
   * state and a row is valid under the same state at the same row.
   */
  state(): string {
    let state = NameFingerprints.states.get(this.bindings);
    if (state === undefined) {
      const parts: string[] = [];
      for (const [name, bs] of this.bindings) {
        parts.push(name);
        for (const b of bs) parts.push(this.jsonOf(b));
      }
      state = hashText(parts.join('\n'));
      NameFingerprints.states.set(this.bindings, state);
    }
    return state;
  }

  /** A name's fingerprint when none of its bindings lies in the statement asking (most names). */
  private readonly outside = new Map<string, string>();

  /** `first`, `last`: the statement's 1-based lines. */
  fingerprint(name: string, first: number, last: number): string {
    const bs = this.bindings.get(name);
    if (!bs) return '';
    if (!bs.some((b) => b.line >= first && b.line <= last)) {
      let fp = this.outside.get(name);
      if (fp === undefined) {
        fp = short(bs.map((b) => this.jsonOf(b)).join('\n'));
        this.outside.set(name, fp);
      }
      return fp;
    }
    return short(bs.map((b) => (b.line >= first && b.line <= last ? `@${b.line - first}:${b.kind}` : this.jsonOf(b))).join('\n'));
  }

  private static readonly lineFreeJson = new WeakMap<Binding, string>();

  private lineFreeOf(b: Binding): string {
    let j = NameFingerprints.lineFreeJson.get(b);
    if (j === undefined) {
      j = bindingText(b, true);
      NameFingerprints.lineFreeJson.set(b, j);
    }
    return j;
  }

  private readonly outsideLineFree = new Map<string, string>();

  /**
   * A name's fingerprint without the lines of its bindings, for a result that names no
   * definition of the file itself: lines then matter only as the identities of classes, which
   * lines inserted or removed elsewhere keep (so that Enter above a statement, or in another
   * method of its class, leaves it unchanged).
   */
  fingerprintLineFree(name: string, first: number, last: number): string {
    const bs = this.bindings.get(name);
    if (!bs) return '';
    if (!bs.some((b) => b.line >= first && b.line <= last)) {
      let fp = this.outsideLineFree.get(name);
      if (fp === undefined) {
        fp = short('L' + bs.map((b) => this.lineFreeOf(b)).join('\n'));
        this.outsideLineFree.set(name, fp);
      }
      return fp;
    }
    return short('L' + bs.map((b) => (b.line >= first && b.line <= last ? `@${b.line - first}:${b.kind}` : this.lineFreeOf(b))).join('\n'));
  }

  /** The names a statement's result may depend on: its words, and the words of the bindings they reach. */
  closure(words: Set<string>, first: number, last: number): Set<string> {
    const out = new Set<string>();
    const todo = [...words];
    while (todo.length > 0) {
      const n = todo.pop()!;
      if (out.has(n)) continue;
      out.add(n);
      for (const b of this.bindings.get(n) ?? []) {
        if (b.line >= first && b.line <= last) continue;
        for (const w of this.wordsOfBinding(b)) if (!out.has(w)) todo.push(w);
      }
    }
    return out;
  }
}

function movePos(p: Position, delta: number): Position {
  return { line: p.line + delta, character: p.character };
}

export function moveRange(r: Range, delta: number): Range {
  return { start: movePos(r.start, delta), end: movePos(r.end, delta) };
}

function moveFinding(f: Finding, delta: number): Finding {
  const out: Finding = {
    ...f,
    range: moveRange(f.range, delta),
    fixes: f.fixes.map((x) => ({ ...x, edits: x.edits.map((e) => ({ ...e, range: moveRange(e.range, delta) })) })),
  };
  if (f.call) out.call = moveRange(f.call, delta);
  if (f.tags) out.tags = [...f.tags];
  return out;
}

function moveCall(c: CallInfo, delta: number): CallInfo {
  return { ...c, range: moveRange(c.range, delta), extent: moveRange(c.extent, delta) };
}

/**
 * An entry that outlived a keystroke (its statement did not change) is kept over many versions of
 * the file from then on: its result and dependencies are copied off the text they were cut from,
 * once (see ownStrings.ts). The entry of a statement being typed in is replaced at each keystroke
 * and never copied.
 */
export function ownEntry(e: Entry): void {
  if (e.owned) return;
  e.result = ownResult(e.result);
  e.deps = e.deps.map(([n, f]) => [ownString(n), f]);
  e.moved = undefined;
  e.owned = true;
}

/**
 * The same result, with what may be cut from the file's text copied (see ownStrings.ts). What
 * comes from the target and is large (a call's signatures and parameters, where a definition
 * lies) is shared as it is: copying it would cost more than a keystroke's check saves.
 */
function ownResult(r: StatementResult): StatementResult {
  return { ...r, findings: r.findings.map((f) => ownDeep(f) as Finding), calls: r.calls.map((c) => ownDeep(c) as CallInfo), overrides: r.overrides.map((o) => ownDeep(o) as OverrideInfo) };
}

/** Fields of findings, calls and overrides that hold what the target says (never cut from the checked file). */
const TARGET_FIELDS = new Set(['signatures', 'params', 'definition', 'baseline']);

/** A copy of plain data (objects, arrays) whose strings are copies, but for the target's fields (shared); maps, sets and other objects are shared. */
function ownDeep(v: unknown, top = true): unknown {
  if (typeof v === 'string') return ownString(v);
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => ownDeep(x, false));
  if (Object.getPrototypeOf(v) !== Object.prototype) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = top && TARGET_FIELDS.has(k) ? x : ownDeep(x, false);
  return out;
}

/**
 * A result with every position moved by `delta` rows.
 * With `entry`, the moved findings and calls are remembered in it and handed out again for the
 * same row: a keystroke then copies nothing for the statements it did not move. Nothing changes
 * them in place: a baseline explanation replaces a finding, and sets a call's explanation afresh
 * on each check.
 */
export function moveResult(r: StatementResult, delta: number, entry?: Entry): StatementResult {
  let moved = entry?.moved;
  if (!moved || moved.row !== delta) {
    moved = { row: delta, findings: r.findings.map((f) => moveFinding(f, delta)), calls: r.calls.map((c) => moveCall(c, delta)) };
    if (entry) entry.moved = moved;
  }
  return {
    findings: moved.findings,
    calls: moved.calls,
    callsChecked: r.callsChecked,
    callsUnknown: r.callsUnknown,
    callsUntraced: r.callsUntraced,
    overrides: r.overrides.map((o) => ({ ...o, range: moveRange(o.range, delta) })),
    tooDeep: r.tooDeep,
  };
}
