/**
 * From a resolved value to the signature(s) a call must bind to: functions with their
 * decorators, bound and unbound methods, and class construction along the MRO with the
 * synthesised `__init__` of dataclasses, pydantic, msgspec structs, NamedTuples and enums.
 */
import type { Program, Value } from './program';
import { known } from './program';
import { ALLOWED_AFTER_OWNER, ENUM_BASES, isBuiltinException, SIMPLE_EXCEPTIONS, TRANSPARENT_CLASS_DECORATORS, TRANSPARENT_FUNCTION_DECORATORS } from './specials';
import type { ClassInfo, FieldInfo, FunctionInfo, ModuleSummary, PassesKeywords } from '../index/summary';
import { firstArgument } from '../index/summary';
import { type ArgExpr, dotted, type Expr, formatParams, type Param } from '../syntax';
import type { SourceLocation } from '../types';

export type BindErrorKind = 'missing-argument' | 'unexpected-keyword' | 'too-many-positional' | 'multiple-values' | 'positional-only-as-keyword';

export interface Sig {
  params: Param[];
  /** Short name for messages, e.g. `Scheduler` or `Scheduler.schedule`. */
  name: string;
  /** Dotted qualified name of the callee in the target. */
  qualname: string;
  definition: SourceLocation | null;
  /** How the signature arises, for explanations. */
  origin: string;
  /** The error kinds this signature may report; all when absent. */
  reports?: Set<BindErrorKind>;
  /** Keywords accepted although no parameter names them. */
  ignoredKeywords?: Set<string>;
  /** functools.partial: positional arguments already bound to the first positional parameters. */
  boundPositional?: number;
  /** The callee is marked deprecated: the library's message. */
  deprecated?: string;
  /** A def that hands its `**kwargs` on to another callable (see `PassesKeywords`), with the module that names it. */
  passesKeywords?: PassesKeywords & { summary: ModuleSummary; varkw: string; owner?: ClassInfo };
}

export type CallSpec =
  | { kind: 'known'; qualname: string; alternatives: Sig[][] }
  | { kind: 'unknown'; reason: string };

export type Access = 'plain' | 'class' | 'instance';

const unknown = (reason: string): CallSpec => ({ kind: 'unknown', reason });

export function sigText(sig: Sig): string {
  let params = sig.params;
  for (let n = sig.boundPositional ?? 0; n > 0; n--) {
    const i = params.findIndex((p) => p.kind === 'posonly' || p.kind === 'normal');
    if (i < 0) break;
    params = params.filter((_, j) => j !== i);
  }
  return `${sig.name}${formatParams(params)}`;
}

export function exprText(e: Expr | undefined): string {
  if (!e) return '...';
  switch (e.kind) {
    case 'name':
      return e.name;
    case 'attr':
      return dotted(e) ?? '...';
    case 'str':
      return JSON.stringify(e.value);
    case 'const':
    case 'other':
      return e.text;
    case 'strs':
      return '[...]';
    case 'call':
      return `${exprText(e.callee)}(...)`;
    default:
      return '...';
  }
}

export type Entry =
  | { kind: 'class'; cls: ClassInfo; summary: ModuleSummary }
  | { kind: 'special'; name: string }
  | { kind: 'external'; qualname: string }
  /** `alternatives`: a base that is one of these values (a name a conditional import binds). */
  | { kind: 'unknown'; reason: string; alternatives?: Value[] };

export function sameEntry(a: Entry, b: Entry): boolean {
  if (a === b) return true;
  if (a.kind === 'class' && b.kind === 'class') return a.cls === b.cls;
  if (a.kind === 'special' && b.kind === 'special') return a.name === b.name;
  if (a.kind === 'external' && b.kind === 'external') return a.qualname === b.qualname;
  return false;
}

interface DataclassDeco {
  flavor: 'stdlib' | 'pydantic' | 'attrs';
  /** attrs: annotated names are fields (otherwise only `attr.ib()` assignments are). */
  autoAttribs?: boolean;
  kwOnly: boolean;
  init: boolean;
  forbidExtra: boolean;
}

/** What a decorator that hands its object back does to it: attributes it may write, bases it appends. */
export interface HandBack {
  patched: Set<string>;
  bases: Value[];
}

/** Attributes whose writing changes how a class is constructed. */
const CONSTRUCTION_ATTRS = new Set(['*', '__init__', '__new__', '__signature__']);
/** Attributes whose writing changes how a function is called. */
const SIGNATURE_ATTRS = new Set(['*', '__signature__', '__wrapped__', '__code__', '__defaults__', '__kwdefaults__', '__call__']);

type DecoratorKind = { kind: 'dataclass'; deco: DataclassDeco } | { kind: 'transparent' } | { kind: 'unknown'; reason: string };

function callKeyword(d: Expr, name: string): Expr | undefined {
  if (d.kind !== 'call') return undefined;
  return d.args.find((a) => a.name === name)?.value;
}

function isTrue(e: Expr | undefined): boolean {
  return !!e && e.kind === 'const' && e.text === 'True';
}
function isFalse(e: Expr | undefined): boolean {
  return !!e && e.kind === 'const' && e.text === 'False';
}

export class Callables {
  private readonly mroCache = new WeakMap<ClassInfo, Entry[] | null>();

  constructor(readonly program: Program) {}

  // ---- values to call specs ----

  specOf(v: Value, access: Access = 'plain', depth = 0): CallSpec {
    if (depth > 20) return unknown('too deep');
    // a stub says what type checkers are to assume; what runs beside it (a compiled module, or
    // Python source) decides what a call takes, and stubs fall behind it (pandas' and SciPy's do)
    const home = v.kind === 'function' || v.kind === 'class' ? v.summary.name : undefined;
    const stub = home === undefined ? null : this.program.stubBeside(home);
    // (a function the source defines with the very parameters the stub gives binds as the stub says)
    const agrees = stub === 'source' && v.kind === 'function' && this.program.sourceDefines(home!, v.fn.name, v.fn.params.map((p) => p.name));
    if (stub && !agrees) return unknown(`${home} is read from a stub, and the ${stub === 'compiled' ? 'compiled module' : 'source'} beside it decides what the call takes`);
    // defaults set after the definition (`P.__new__.__defaults__ = (None,) * 7`, `f.__kwdefaults__ = {...}`)
    const named = v.kind === 'function' && !v.owner ? [v.summary.name, v.fn.name] : v.kind === 'class' ? [v.summary.name, v.cls.name] : v.kind === 'namedtuple' ? [v.qualname.slice(0, v.qualname.lastIndexOf('.')), v.qualname.slice(v.qualname.lastIndexOf('.') + 1)] : undefined;
    if (named && this.program.defaultsRewritten(named[0], named[1])) return unknown(`${named[0]} sets the defaults of ${named[1]} after its definition (__defaults__)`);
    // a placeholder (`def f(): pass`) registered with a decorator (`@overload(f)` above its
    // implementation for a compiler): its calls are that decorator's to give a meaning
    if (v.kind === 'function' && !v.owner && v.fn.placeholder && this.program.handedToDecorator(v.summary.name, v.fn.name)) return unknown(`${v.fn.name} is a placeholder that ${v.summary.name} registers with a decorator, which gives its calls their meaning`);
    switch (v.kind) {
      case 'function':
        return this.functionSpec(v.fn, v.summary, v.owner, access, v.classAttr);
      case 'class':
        return this.constructorSpec(v.cls, v.summary);
      case 'anyOf': {
        const specs = v.values.map((x) => this.specOf(x, access, depth + 1));
        const bad = specs.find((s) => s.kind === 'unknown');
        if (bad) return bad;
        const known = specs as Array<Extract<CallSpec, { kind: 'known' }>>;
        return { kind: 'known', qualname: known[0].qualname, alternatives: known.flatMap((s) => s.alternatives) };
      }
      case 'partial':
        return this.partialSpec(this.specOf(v.base, access, depth + 1), v.args);
      case 'namedtuple': {
        const first = v.fields.length - v.defaults.length;
        const params: Param[] = v.fields.map((f, i) => ({ name: f, kind: 'normal' as const, hasDefault: i >= first, defaultText: i >= first ? v.defaults[i - first] : undefined }));
        return this.single({ params, name: v.qualname.split('.').pop()!, qualname: v.qualname, definition: v.line ? { file: v.file, line: v.line } : null, origin: 'collections.namedtuple fields' });
      }
      case 'missing':
        return unknown(`${v.module} has no ${v.name}`);
      case 'special':
        return unknown(`${v.name} is modelled only as a base or decorator`);
      case 'external':
        return unknown(`${v.qualname} is outside the target`);
      case 'module':
        return unknown('a module is not callable');
      case 'instance':
        return unknown(`calling an instance of ${v.cls.name} goes through __call__`);
      case 'unknown':
        return unknown(v.reason);
    }
  }

  private single(sig: Sig): CallSpec {
    return { kind: 'known', qualname: sig.qualname, alternatives: [[sig]] };
  }

  /**
   * `functools.partial(f, *a, **k)(...)` calls `f(*a, ...call args, **{**k, **call kwargs})`: the
   * partial's positional arguments come first, and its keywords are preset (a call keyword
   * overrides them, a positional argument reaching them is "multiple values").
   */
  private partialSpec(spec: CallSpec, args: ArgExpr[]): CallSpec {
    if (spec.kind === 'unknown') return spec;
    if (args.some((a) => a.star)) return unknown('functools.partial with star arguments');
    const positional = args.filter((a) => !a.name).length;
    const keywords = new Map(args.filter((a) => a.name).map((a) => [a.name!, a]));
    const alternatives: Sig[][] = [];
    for (const conj of spec.alternatives) {
      const out: Sig[] = [];
      for (const sig of conj) {
        const slots = sig.params.filter((p) => p.kind === 'posonly' || p.kind === 'normal').length;
        if (positional > slots && !sig.params.some((p) => p.kind === 'varargs')) return unknown('functools.partial with more positional arguments than the callable takes');
        const params = sig.params.map((p) => {
          const k = keywords.get(p.name);
          if (!k || p.kind === 'posonly') return p;
          const text = k.value.kind === 'const' || k.value.kind === 'other' ? k.value.text : exprText(k.value);
          return { ...p, hasDefault: true, defaultText: text, preset: true };
        });
        out.push({ ...sig, params, boundPositional: (sig.boundPositional ?? 0) + positional, origin: `functools.partial of ${sig.origin}` });
      }
      alternatives.push(out);
    }
    return { kind: 'known', qualname: spec.qualname, alternatives };
  }

  // ---- functions ----

  /** The effect of a function decorator on the call signature. */
  private functionDecorator(d: Expr, summary: ModuleSummary, decorated?: FunctionInfo): 'static' | 'classmethod' | 'transparent' | { unknown: string } | { inner: FunctionInfo; by: string } {
    const isCall = d.kind === 'call';
    const callee = this.program.evalExpr(isCall ? d.callee : d, summary);
    if (callee.kind === 'special') {
      if (callee.name === 'builtins.staticmethod' && !isCall) return 'static';
      if (callee.name === 'builtins.classmethod' && !isCall) return 'classmethod';
      if (TRANSPARENT_FUNCTION_DECORATORS.has(callee.name)) return 'transparent';
      return { unknown: `decorator ${callee.name} changes how the function is called` };
    }
    if (callee.kind === 'function') {
      const fn = appliedDecorator(d, callee.fn);
      const eff = fn && this.handBackEffect(fn, callee.summary);
      if (eff && eff.bases.length === 0 && ![...eff.patched].some((a) => SIGNATURE_ATTRS.has(a))) return 'transparent';
      // a wrapper that takes a few plain parameters before *args binds like the function it wraps
      // when those are the function's own first parameters, by name and kind, without defaults
      const lead = fn?.forwardedLeading;
      if (fn?.forwardsWrapper && (!lead || (decorated && lead.every((name, i) => decorated.params[i]?.name === name && decorated.params[i].kind === 'normal' && !decorated.params[i].hasDefault)))) return 'transparent';
      // a decorator that hands back a function of its own, with a signature of its own (no *args
      // or **kwargs it would hand on): calls bind to that function, which is what the name holds
      const inner = fn?.returnedInner;
      if (fn && inner && fn.innerBoundOnce && !fn.innerIfFirstNone && !inner.params.some((p) => p.kind === 'varargs' || p.kind === 'varkw') && inner.decorators.every((x) => this.functionDecorator(x, callee.summary) === 'transparent')) {
        return { inner, by: callee.fn.name };
      }
      return { unknown: `decorator ${callee.fn.name} may change the signature` };
    }
    if (callee.kind === 'external' && /^builtins\.(staticmethod|classmethod)$/.test(callee.qualname)) return callee.qualname.endsWith('staticmethod') ? 'static' : 'classmethod';
    return { unknown: `decorator ${dotted(isCall ? d.callee : d) ?? '?'} is not one the engine can see through` };
  }

  functionSpec(fn: FunctionInfo, summary: ModuleSummary, owner: ClassInfo | undefined, access: Access, classAttr?: boolean): CallSpec {
    let binding: 'none' | 'first' = (owner || classAttr) && access === 'instance' ? 'first' : 'none';
    let replaced: { inner: FunctionInfo; by: string } | undefined;
    for (const d of fn.decorators) {
      const k = this.functionDecorator(d, summary, fn);
      if (k === 'static') binding = 'none';
      else if (k === 'classmethod') binding = owner ? 'first' : 'none';
      else if (typeof k === 'object' && 'inner' in k) {
        // the name holds the decorator's own function: one such decorator, applied last (written first)
        if (replaced || d !== fn.decorators[0]) return unknown(`decorator ${k.by} replaces the function, under another decorator`);
        replaced = k;
      } else if (k !== 'transparent') return unknown(k.unknown);
    }
    if (owner && ['__init_subclass__', '__class_getitem__'].includes(fn.name)) binding = 'first';
    let params = replaced ? replaced.inner.params : fn.params;
    if (binding === 'first') {
      if (params.length === 0) return unknown('method without a self parameter');
      if (params[0].kind === 'varargs') params = params;
      else if (params[0].kind === 'posonly' || params[0].kind === 'normal') params = params.slice(1);
      else return unknown('method without a positional self parameter');
    }
    const qualname = owner ? `${owner.qualname}.${fn.name}` : `${summary.name}.${fn.name}`;
    const name = owner ? `${owner.name}.${fn.name}` : fn.name;
    const deprecated = this.deprecationOf(fn.decorators, summary) ?? fn.deprecation;
    const varkw = params.find((p) => p.kind === 'varkw')?.name;
    const passesKeywords = !replaced && fn.passesKeywords && varkw ? { ...fn.passesKeywords, summary, varkw, ...(owner ? { owner } : {}) } : undefined;
    return this.single({ params, name, qualname, definition: { file: summary.file, line: fn.line }, origin: replaced ? `the function decorator ${replaced.by} hands back` : 'def', deprecated, ...(passesKeywords ? { passesKeywords } : {}) });
  }

  /** The message of a `@deprecated("...")` decorator (warnings / typing_extensions), if any. */
  deprecationOf(decorators: Expr[], summary: ModuleSummary): string | undefined {
    for (const d of decorators) {
      if (d.kind !== 'call') continue;
      const v = this.program.evalExpr(d.callee, summary);
      if (v.kind === 'special' && v.name === 'warnings.deprecated') {
        const first = d.args[0];
        return first && first.value.kind === 'str' ? first.value.value : 'deprecated';
      }
    }
    return undefined;
  }

  // ---- classes ----

  private entryOf(v: Value): Entry {
    const k = v.kind === 'external' ? known(v) : v;
    if (k.kind === 'class') return { kind: 'class', cls: k.cls, summary: k.summary };
    if (k.kind === 'special') return { kind: 'special', name: k.name };
    if (k.kind === 'external') return { kind: 'external', qualname: k.qualname };
    if (k.kind === 'unknown') return { kind: 'unknown', reason: k.reason };
    if (k.kind === 'anyOf') return { kind: 'unknown', reason: 'a base that is one of several classes', alternatives: k.values };
    return { kind: 'unknown', reason: `a base of kind ${k.kind}` };
  }

  /**
   * Whether class `c` may derive from the class `same` recognises: its MRO holds it or
   * cannot be worked out. A base that is one of several values (a conditional import) may lead to
   * it only if one of them may: a class whose MRO may hold it, or a value the engine cannot see
   * (a module it cannot read may be the user's own); `object` and the like never do.
   */
  mayDerive(c: ClassInfo, summary: ModuleSummary, same: (x: ClassInfo) => boolean, depth = 0): boolean {
    const mro = this.mro(c, summary);
    if (!mro || depth > 8) return true;
    return mro.some((e) => {
      if (e.kind === 'class') return same(e.cls);
      if (e.kind !== 'unknown') return false;
      return !e.alternatives || e.alternatives.some((a) => (a.kind === 'class' ? this.mayDerive(a.cls, a.summary, same, depth + 1) : a.kind !== 'special'));
    });
  }

  /** C3 linearisation over the classes the engine can see; null when inconsistent. */
  mro(cls: ClassInfo, summary: ModuleSummary, depth = 0): Entry[] | null {
    if (this.mroCache.has(cls)) return this.mroCache.get(cls)!;
    if (depth > 40) return null;
    this.mroCache.set(cls, null); // guards against cycles
    const self: Entry = { kind: 'class', cls, summary };
    const bases = cls.bases.map((b) => this.entryOf(this.program.evalExpr(b, summary)));
    // a decorator that hands the class back may have appended bases (`cls.__bases__ += (X,)`)
    for (const d of cls.decorators) {
      for (const b of this.classDecoratorEffect(d, summary)?.bases ?? []) {
        const e = this.entryOf(b);
        if (!bases.some((x) => sameEntry(x, e))) bases.push(e);
      }
    }
    let result: Entry[] | null;
    if (bases.length === 0) result = [self, { kind: 'special', name: 'object' }];
    else {
      const seqs: Entry[][] = [];
      let ok = true;
      for (const b of bases) {
        if (b.kind === 'class') {
          const m = this.mro(b.cls, b.summary, depth + 1);
          if (!m) {
            ok = false;
            break;
          }
          seqs.push([...m]);
        } else if (b.kind === 'special' && b.name === 'object') seqs.push([b]);
        // A class the engine cannot see still ends in object: `object` must never be placed
        // before it (the mistake that makes a checker miss an unseen base's constructor).
        else seqs.push([b, { kind: 'special', name: 'object' }]);
      }
      seqs.push([...bases]);
      result = ok ? c3merge(seqs) : null;
      if (result) result.unshift(self);
    }
    this.mroCache.set(cls, result);
    return result;
  }

  classDecorator(d: Expr, summary: ModuleSummary): DecoratorKind {
    const isCall = d.kind === 'call';
    const callee = this.program.evalExpr(isCall ? d.callee : d, summary);
    if (callee.kind === 'special') {
      if (callee.name === 'dataclasses.dataclass') {
        return { kind: 'dataclass', deco: { flavor: 'stdlib', kwOnly: isTrue(callKeyword(d, 'kw_only')), init: !isFalse(callKeyword(d, 'init')), forbidExtra: false } };
      }
      if (callee.name === 'pydantic.dataclasses.dataclass') {
        const cfg = callKeyword(d, 'config');
        const forbid = !!cfg && /\bextra\b\W*forbid/.test(exprSource(cfg));
        return { kind: 'dataclass', deco: { flavor: 'pydantic', kwOnly: isTrue(callKeyword(d, 'kw_only')), init: !isFalse(callKeyword(d, 'init')), forbidExtra: forbid } };
      }
      if (callee.name === 'attr.s' || callee.name === 'attr.define') {
        const auto = callee.name === 'attr.define' ? !isFalse(callKeyword(d, 'auto_attribs')) : isTrue(callKeyword(d, 'auto_attribs'));
        return { kind: 'dataclass', deco: { flavor: 'attrs', autoAttribs: auto, kwOnly: isTrue(callKeyword(d, 'kw_only')), init: !isFalse(callKeyword(d, 'init')), forbidExtra: false } };
      }
      if (TRANSPARENT_CLASS_DECORATORS.has(callee.name)) return { kind: 'transparent' };
      return { kind: 'unknown', reason: `class decorator ${callee.name}` };
    }
    if (callee.kind === 'function') {
      const fn = callee.fn;
      const transform = fn.decorators.some((x) => {
        const v = this.program.evalExpr(x.kind === 'call' ? x.callee : x, callee.summary);
        return v.kind === 'special' && v.name === 'typing.dataclass_transform';
      });
      if (transform) {
        // A dataclass_transform decorator: fields become parameters. Unknown keywords are an
        // error only when its body forbids extra keys and the use does not pass its own `extra`.
        const overridesExtra = isCall && d.args.some((a) => /\bextra\b/.test(a.text));
        return { kind: 'dataclass', deco: { flavor: 'pydantic', kwOnly: isTrue(callKeyword(d, 'kw_only')), init: true, forbidExtra: fn.forbidsExtra && !overridesExtra } };
      }
      // a decorator that hands the class back (`returnsFirstArg` ones included: they never write these)
      const eff = this.classDecoratorEffect(d, summary);
      const writes = eff && [...eff.patched].find((a) => CONSTRUCTION_ATTRS.has(a));
      if (eff && !writes) return { kind: 'transparent' };
      if (writes && writes !== '*') return { kind: 'unknown', reason: `class decorator ${fn.name} sets the class's ${writes}` };
      return { kind: 'unknown', reason: `class decorator ${fn.name} may replace the constructor` };
    }
    return { kind: 'unknown', reason: `class decorator ${dotted(isCall ? d.callee : d) ?? '?'} is not one the engine can see through` };
  }

  private readonly effectMemo = new WeakMap<Expr, { generation: number; effect: HandBack | undefined }>();

  /** What a class decorator does to the class, when it hands the class back (see `handBackEffect`). */
  classDecoratorEffect(d: Expr, summary: ModuleSummary): HandBack | undefined {
    const hit = this.effectMemo.get(d);
    if (hit && hit.generation === this.program.currentGeneration) return hit.effect;
    const callee = this.program.evalExpr(d.kind === 'call' ? d.callee : d, summary);
    const fn = callee.kind === 'function' ? appliedDecorator(d, callee.fn) : undefined;
    const effect = fn && callee.kind === 'function' ? this.handBackEffect(fn, callee.summary) : undefined;
    this.effectMemo.set(d, { generation: this.program.currentGeneration, effect });
    return effect;
  }

  /**
   * What a function given an object first does to it, when it hands the object back (itself, or
   * through the functions its `return` calls with it): the attributes it may write on it and the
   * bases it appends; undefined when it may return anything else.
   */
  handBackEffect(fn: FunctionInfo, summary: ModuleSummary, depth = 0): HandBack | undefined {
    if (fn.returnsFirstArg) return { patched: patchedNames(fn.patchedAttrs ?? [], summary), bases: [] };
    const hb = fn.handsBack;
    if (!hb || depth > 4) return undefined;
    const out: HandBack = { patched: patchedNames(hb.patched, summary), bases: hb.bases.map((b) => this.program.evalExpr(b, summary)) };
    for (const name of hb.through) {
      const v = this.program.evalExpr({ kind: 'name', name }, summary);
      if (v.kind !== 'function' || v.owner || v.fn.decorators.length > 0) return undefined;
      const e = this.handBackEffect(v.fn, v.summary, depth + 1);
      if (!e) return undefined;
      for (const a of e.patched) out.patched.add(a);
      out.bases.push(...e.bases);
    }
    return out;
  }

  /** Why a metaclass makes construction unknown, or undefined when it leaves it to __new__/__init__. */
  private metaclassProblem(mv: Value): string | undefined {
    if (mv.kind === 'special' && ['abc.ABCMeta', 'builtins.type', 'enum.EnumMeta'].includes(mv.name)) return undefined;
    if (mv.kind === 'external' && mv.qualname === 'builtins.type') return undefined;
    if (mv.kind === 'anyOf') return mv.values.map((v) => this.metaclassProblem(v)).find((x) => x);
    if (mv.kind === 'class') {
      const call = this.program.classMember(mv.cls, mv.summary, '__call__');
      if (call === undefined) return undefined;
      return `the metaclass ${mv.cls.name} defines __call__`;
    }
    return 'the metaclass of $ is not visible';
  }

  private readonly ctorMemo = new WeakMap<ClassInfo, { generation: number; spec: CallSpec }>();

  /** The constructor of a class (remembered for the program's current generation). */
  constructorSpec(cls: ClassInfo, summary: ModuleSummary): CallSpec {
    const hit = this.ctorMemo.get(cls);
    if (hit && hit.generation === this.program.currentGeneration) return hit.spec;
    const spec = this.constructorSpecUncached(cls, summary);
    this.ctorMemo.set(cls, { generation: this.program.currentGeneration, spec });
    return spec;
  }

  private constructorSpecUncached(cls: ClassInfo, summary: ModuleSummary): CallSpec {
    const mro = this.mro(cls, summary);
    if (!mro) return unknown(`the class hierarchy of ${cls.name} cannot be linearised`);
    const qualname = cls.qualname;
    // The metaclass's __call__ governs construction.
    for (const e of mro) {
      if (e.kind !== 'class') continue;
      const meta = e.cls.keywords.get('metaclass');
      if (!meta) continue;
      const mv = this.program.evalExpr(meta, e.summary);
      if (mv.kind === 'class') {
        const call = this.program.classMember(mv.cls, mv.summary, '__call__');
        if (call) {
          // the metaclass's __call__ governs; a (*args, **kwargs) one hands over to __new__/__init__
          const spec = this.specOf(call, 'instance');
          if (spec.kind === 'unknown') return spec;
          const sigs = spec.alternatives.flat();
          if (sigs.every(isTransparentVar)) {
            if (call.kind === 'function' && call.fn.forwardsToSuper) continue;
            return unknown(`the metaclass ${mv.cls.name}.__call__ takes anything and may not construct`);
          }
          return { kind: 'known', qualname, alternatives: spec.alternatives.map((a) => a.map((x) => ({ ...x, name: cls.name, qualname, origin: `the metaclass ${mv.cls.name}.__call__` }))) };
        }
      }
      const why = this.metaclassProblem(mv);
      if (why) return unknown(why.replace('$', e.cls.name));
    }
    if (mro.some((e) => e.kind === 'special' && ENUM_BASES.has(e.name))) {
      return this.single({
        params: [
          { name: 'value', kind: 'normal', hasDefault: false },
          { name: 'args', kind: 'varargs', hasDefault: false },
          { name: 'kwargs', kind: 'varkw', hasDefault: false },
        ],
        name: cls.name,
        qualname,
        definition: { file: summary.file, line: cls.line },
        origin: 'Enum value lookup',
        reports: new Set(['missing-argument']),
      });
    }
    if (mro.some((e) => e.kind === 'special' && e.name === 'typing.TypedDict')) return unknown('a TypedDict call is a dict call');
    if (cls.bases.some((b) => {
      const v = this.program.evalExpr(b, summary);
      return v.kind === 'special' && v.name === 'typing.Protocol';
    })) return unknown('a Protocol class');

    let init: Sig[] | undefined;
    let newSigs: Sig[] | undefined; // undefined: not found yet; []: found, and it accepts what __init__ accepts
    let newForwardsAnything = false; // a (cls, *args, **kwargs) __new__ whose own checks are unknown
    let newBuildsOwn = true; // __new__ builds an instance of the class called (so its __init__ runs next)
    let stopped = false;
    for (let i = 0; i < mro.length; i++) {
      const e = mro[i];
      if (e.kind === 'special') {
        if (e.name === 'object') break;
        if (['typing.Generic', 'typing.Protocol', 'abc.ABC'].includes(e.name)) continue;
        if (stopped) {
          if (ALLOWED_AFTER_OWNER.has(e.name)) continue;
          return unknown(`${e.name} comes after the constructor but may change construction`);
        }
        if (e.name === 'msgspec.Struct') {
          init ??= [this.structSig(cls, mro.slice(0, i), summary)];
          newSigs ??= [];
          stopped = true;
          continue;
        }
        if (e.name === 'pydantic.BaseModel') {
          init ??= [this.modelSig(cls, mro.slice(0, i), summary)];
          newSigs ??= [];
          stopped = true;
          continue;
        }
        if (e.name === 'typing.NamedTuple') {
          stopped = true;
          continue;
        }
        if (ALLOWED_AFTER_OWNER.has(e.name) && init) {
          newSigs ??= [];
          stopped = true;
          continue;
        }
        return unknown(`${e.name} in the bases of ${cls.name} is not modelled`);
      }
      if (e.kind === 'external') {
        if (!stopped && !init && SIMPLE_EXCEPTIONS.has(e.qualname)) {
          // BaseException: any positional arguments, no keywords
          init = [{ params: [{ name: 'args', kind: 'varargs', hasDefault: false }], name: cls.name, qualname, definition: { file: summary.file, line: cls.line }, origin: `${e.qualname.slice(9)}'s constructor`, reports: new Set(['unexpected-keyword']) }];
          newSigs ??= [];
          stopped = true;
          continue;
        }
        if ((stopped || init) && (isBuiltinException(e.qualname) || ALLOWED_AFTER_OWNER.has(e.qualname))) {
          newSigs ??= [];
          stopped = true;
          continue;
        }
        // list, dict, set: __new__ ignores the arguments, so an __init__ found before them decides
        if (!stopped && init && !newSigs && PERMISSIVE_NEW.has(e.qualname)) {
          newSigs = [];
          stopped = true;
          continue;
        }
        // tuple, str, int...: __init__ is object's, so a __new__ found before them decides
        if (!stopped && !init && newSigs && newSigs.length > 0 && OBJECT_INIT.has(e.qualname)) {
          stopped = true;
          continue;
        }
        return unknown(`the base ${e.qualname} is outside the target`);
      }
      if (e.kind === 'unknown') return unknown(`a base of ${cls.name} cannot be resolved (${e.reason})`);
      // a class the engine can see
      if (stopped) continue;
      const c = e.cls;
      let deco: DataclassDeco | undefined;
      for (const d of c.decorators) {
        const k = this.classDecorator(d, e.summary);
        if (k.kind === 'unknown') return unknown(k.reason);
        if (k.kind === 'dataclass') deco = k.deco;
      }
      const isNamedTuple = c.bases.some((b) => {
        const v = this.program.evalExpr(b, e.summary);
        return v.kind === 'special' && v.name === 'typing.NamedTuple';
      });
      if (!newSigs && isNamedTuple) {
        newSigs = [this.namedTupleSig(c, e.summary)];
      }
      const ownInit = c.members.get('__init__');
      if (!init) {
        if (ownInit) {
          const spec = this.specOf(this.program.classMember(c, e.summary, '__init__')!, 'instance');
          if (spec.kind === 'unknown') return spec;
          init = spec.alternatives.flat().map((s) => ({ ...s, name: cls.name, qualname }));
          if (spec.alternatives.some((a) => a.length !== 1)) return unknown('__init__ defined in an unusual way');
        } else if (deco && deco.init) {
          const sig = this.dataclassSig(cls, mro.slice(i), summary, deco);
          if (!sig) return unknown('dataclass fields the engine cannot follow');
          init = [sig];
        }
      }
      if (!newSigs && c.members.has('__new__')) {
        const nv = this.program.classMember(c, e.summary, '__new__')!;
        // a class that cannot be built in Python (`__new__` only raises) stands for what a compiler
        // handles (`cuda.grid(1)` in a kernel): what its calls take is not Python's to say
        if (nv.kind === 'function' && nv.fn.newRaises) return unknown(`${c.name}.__new__ only raises: the class is not built by Python, and its calls are for a compiler`);
        const spec = this.specOf(nv, 'plain');
        if (spec.kind === 'unknown') return spec;
        if (spec.alternatives.some((a) => a.length !== 1)) return unknown('__new__ defined in an unusual way');
        const sigs = spec.alternatives.flat().map((s) => ({ ...s, name: cls.name, qualname, params: s.params.slice(1) }));
        // an instance of another class (`super().__new__(_Custom)`) gets that class's __init__:
        // behind a __new__ that takes anything, nothing is left to check (one with a signature of
        // its own is checked alone, below)
        if (nv.kind === 'function' && nv.fn.newBuildsOther && sigs.every(isTransparentVar)) return unknown(`${c.name}.__new__ may build a ${nv.fn.newBuildsOther}, whose own __init__ then takes the arguments`);
        newSigs = sigs.every(isTransparentVar) ? [] : sigs;
        newForwardsAnything = newSigs.length === 0;
        newBuildsOwn = nv.kind === 'function' && !!nv.fn.newBuildsOwn;
      }
      if (init && newSigs) stopped = true;
    }
    const initAlts = init ?? [];
    const newAlts = newSigs ?? [];
    if (initAlts.length === 0 && newForwardsAnything) return unknown('a (*args, **kwargs) __new__ and no __init__');
    if (initAlts.length === 0 && newAlts.length === 0) {
      // a stub that declares no constructor, over a source that may build the class its own way
      const stub = mro.find((e): e is Extract<Entry, { kind: 'class' }> => e.kind === 'class' && this.program.stubWithSource(e.summary.name));
      if (stub) return unknown(`the stub of ${stub.summary.name} declares no constructor for ${stub.cls.name}; the source beside it decides`);
      return this.single({ params: [], name: cls.name, qualname, definition: { file: summary.file, line: cls.line }, origin: 'no __init__ or __new__ anywhere in the class hierarchy' });
    }
    const initReal = initAlts.filter((s) => !isTransparentVar(s));
    const alternatives: Sig[][] = [];
    if (newAlts.length === 0) {
      if (initReal.length < initAlts.length) return unknown('a (*args, **kwargs) __init__');
      for (const s of initAlts) alternatives.push([s]);
    } else if (initAlts.length === 0 || initReal.length < initAlts.length || !newBuildsOwn) {
      // a __new__ that may build another class (`cls = Sub; return object.__new__(cls)`): the
      // __init__ that runs next is that class's, so only __new__ is known to take the arguments
      for (const n of newAlts) alternatives.push([n]);
    } else {
      for (const s of initAlts) for (const n of newAlts) alternatives.push([n, s]);
    }
    const classDeprecation = this.deprecationOf(cls.decorators, summary);
    if (classDeprecation !== undefined) for (const a of alternatives) for (const x of a) x.deprecated = classDeprecation;
    return { kind: 'known', qualname, alternatives };
  }

  private fieldDefaults(f: FieldInfo, flavor: 'stdlib' | 'pydantic' | 'msgspec' | 'attrs'): { init: boolean; hasDefault: boolean; kwOnly?: boolean; alias?: string; defaultText?: string } {
    const v = f.value;
    if (!v) return { init: true, hasDefault: false };
    if (v.kind === 'call') {
      const callee = dotted(v.callee)?.split('.').pop();
      if (callee === 'field' || callee === 'Field' || callee === 'ib' || callee === 'attrib') {
        let init = true;
        let hasDefault = false;
        let kwOnly: boolean | undefined;
        let alias: string | undefined;
        let defaultText: string | undefined;
        const first = v.args[0];
        if (first && !first.name && !first.star && ((flavor === 'pydantic' && callee === 'Field') || (flavor === 'attrs' && (callee === 'ib' || callee === 'attrib')))) {
          if (!(first.value.kind === 'other' && first.value.text === '...')) {
            hasDefault = true;
            defaultText = first.text;
          }
        }
        for (const a of v.args) {
          if (a.star) return { init: true, hasDefault: true };
          if (a.name === 'init' && isFalse(a.value)) init = false;
          if (a.name === 'default' || a.name === 'default_factory' || a.name === 'factory') {
            hasDefault = true;
            defaultText = a.name === 'default' ? a.value.kind === 'other' || a.value.kind === 'const' ? a.value.text : exprText(a.value) : `<factory>`;
          }
          if (a.name === 'kw_only') kwOnly = isTrue(a.value) ? true : isFalse(a.value) ? false : undefined;
          if (a.name === 'alias' && (flavor === 'pydantic' || flavor === 'attrs') && a.value.kind === 'str') alias = a.value.value;
        }
        return { init, hasDefault, kwOnly, alias, defaultText };
      }
    }
    return { init: true, hasDefault: true, defaultText: exprText(v) };
  }

  /** `fromOwner`: the MRO from the class whose dataclass decorator synthesises `__init__`. */
  private dataclassSig(cls: ClassInfo, fromOwner: Entry[], summary: ModuleSummary, own: DataclassDeco): Sig | undefined {
    interface F { name: string; annotation: string; hasDefault: boolean; kwOnly: boolean; init: boolean; defaultText?: string }
    const fields = new Map<string, F>();
    const ignored = new Set<string>();
    // Fields come from every dataclass in the MRO, base classes first.
    for (let i = fromOwner.length - 1; i >= 0; i--) {
      const e = fromOwner[i];
      if (e.kind !== 'class') continue;
      let deco: DataclassDeco | undefined;
      for (const d of e.cls.decorators) {
        const k = this.classDecorator(d, e.summary);
        if (k.kind === 'dataclass') deco = k.deco;
      }
      if (!deco) continue;
      let afterSentinel = false;
      const classFields: FieldInfo[] =
        deco.flavor === 'attrs' && !deco.autoAttribs
          ? [...e.cls.members.entries()].flatMap(([n, bs]) => {
              const b = bs[bs.length - 1];
              return b.kind === 'value' && b.expr.kind === 'call' && /(^|\.)(ib|attrib|field)$/.test(dotted(b.expr.callee) ?? '') ? [{ name: n, annotation: '', line: b.line, value: b.expr }] : [];
            })
          : e.cls.fields;
      for (const f of classFields) {
        const ann = f.annotation;
        if (/^(typing\.|t\.)?ClassVar\b/.test(ann)) continue;
        if (/^(dataclasses\.)?KW_ONLY$/.test(ann)) {
          afterSentinel = true;
          continue;
        }
        const d = this.fieldDefaults(f, deco.flavor);
        const kwOnly = d.kwOnly ?? (deco.kwOnly || afterSentinel);
        // attrs strips one leading underscore from the init name
        const name = d.alias ?? (deco.flavor === 'attrs' ? f.name.replace(/^_(?!_)/, '') : f.name);
        if (d.alias) ignored.add(f.name);
        if (!d.init && deco.flavor === 'pydantic') ignored.add(f.name);
        const prev = fields.get(name);
        const next: F = { name, annotation: ann, hasDefault: d.hasDefault, kwOnly, init: d.init, defaultText: d.defaultText };
        if (prev) Object.assign(prev, next);
        else fields.set(name, next);
      }
    }
    const all = [...fields.values()].filter((f) => f.init);
    const params: Param[] = [
      ...all.filter((f) => !f.kwOnly).map((f) => ({ name: f.name, kind: 'normal' as const, hasDefault: f.hasDefault, annotation: f.annotation, defaultText: f.defaultText })),
      ...all.filter((f) => f.kwOnly).map((f) => ({ name: f.name, kind: 'kwonly' as const, hasDefault: f.hasDefault, annotation: f.annotation, defaultText: f.defaultText })),
    ];
    const reports = own.flavor === 'pydantic' && !own.forbidExtra ? new Set<BindErrorKind>(['missing-argument', 'too-many-positional', 'multiple-values', 'positional-only-as-keyword']) : undefined;
    return {
      params,
      name: cls.name,
      qualname: cls.qualname,
      definition: { file: summary.file, line: cls.line },
      origin: own.flavor === 'pydantic' ? 'pydantic dataclass fields' : own.flavor === 'attrs' ? 'attrs fields' : 'dataclass fields',
      reports,
      ignoredKeywords: ignored.size ? ignored : undefined,
    };
  }

  /**
   * pydantic BaseModel at run time: `__init__(self, /, **data)`. Positional arguments always fail;
   * missing required fields are reported only when nothing can fill them in before validation
   * (no before/wrap validators, no alias generator, literal aliases); unknown keys only with a
   * literal `extra="forbid"`.
   */
  private modelSig(cls: ClassInfo, before: Entry[], summary: ModuleSummary): Sig {
    const reports = new Set<BindErrorKind>(['too-many-positional']);
    const fields = new Map<string, Param>();
    let canMiss = true;
    let extra: string | undefined;
    for (let i = before.length - 1; i >= 0; i--) {
      const e = before[i];
      if (e.kind !== 'class') {
        canMiss = false;
        continue;
      }
      const c = e.cls;
      const cfgText = [...(c.members.get('model_config') ?? []), ...(c.members.get('Config') ?? [])]
        .map((b) => (b.kind === 'value' ? exprSource(b.expr) : b.kind === 'class' ? [...b.cls.members.entries()].map(([k, v]) => `${k}=${v.map((x) => (x.kind === 'value' ? exprText(x.expr) : '')).join('')}`).join(',') : '?'))
        .join(',');
      const kw = c.keywords.get('extra');
      const m = /\bextra\W+(\w+)/.exec(cfgText);
      if (kw && kw.kind === 'str') extra = kw.value;
      else if (m) extra = m[1];
      if (/alias_generator|validation_alias|populate_by_name|validate_by_name/.test(cfgText) || cfgText.includes('?')) canMiss = false;
      for (const bs of c.members.values()) {
        for (const b of bs) {
          if (b.kind !== 'def') continue;
          for (const d of b.fn.decorators) {
            const t = exprSource(d);
            // a before/wrap validator may fill in missing fields, unless it provably hands its input on unchanged
            if (/(^|\.)(model_validator|root_validator)\b/.test(t) && (/mode\W+(before|wrap)/.test(t) || /pre\s*=\s*True/.test(t) || !/mode|pre/.test(t)) && !b.fn.passesInput) canMiss = false;
          }
        }
      }
      for (const f of c.fields) {
        if (/^(typing\.|t\.)?ClassVar\b/.test(f.annotation) || f.name.startsWith('_')) continue;
        const d = this.fieldDefaults(f, 'pydantic');
        if (f.value?.kind === 'call' && f.value.args.some((a) => a.name === 'validation_alias' || (a.name === 'alias' && a.value.kind !== 'str'))) canMiss = false;
        fields.set(d.alias ?? f.name, { name: d.alias ?? f.name, kind: 'kwonly', hasDefault: d.hasDefault, annotation: f.annotation, defaultText: d.defaultText });
      }
    }
    if (canMiss) reports.add('missing-argument');
    const forbid = extra === 'forbid';
    if (forbid) reports.add('unexpected-keyword');
    const params: Param[] = [...fields.values()];
    if (!forbid) params.push({ name: 'data', kind: 'varkw', hasDefault: false });
    return { params, name: cls.name, qualname: cls.qualname, definition: { file: summary.file, line: cls.line }, origin: 'pydantic BaseModel fields', reports };
  }

  private structSig(cls: ClassInfo, before: Entry[], summary: ModuleSummary): Sig {
    const fields = new Map<string, { name: string; annotation: string; hasDefault: boolean; kwOnly: boolean; defaultText?: string }>();
    for (let i = before.length - 1; i >= 0; i--) {
      const e = before[i];
      if (e.kind !== 'class') continue;
      const m = this.mro(e.cls, e.summary);
      if (!m || !m.some((x) => x.kind === 'special' && x.name === 'msgspec.Struct')) continue;
      const kwOnly = isTrue(e.cls.keywords.get('kw_only'));
      for (const f of e.cls.fields) {
        if (/^(typing\.|t\.)?ClassVar\b/.test(f.annotation) && !fields.has(f.name)) continue;
        const d = this.fieldDefaults(f, 'msgspec');
        const prev = fields.get(f.name);
        const next = { name: f.name, annotation: f.annotation, hasDefault: d.hasDefault, kwOnly, defaultText: d.defaultText };
        if (prev) Object.assign(prev, next);
        else fields.set(f.name, next);
      }
    }
    const all = [...fields.values()];
    const params: Param[] = [
      ...all.filter((f) => !f.kwOnly).map((f) => ({ name: f.name, kind: 'normal' as const, hasDefault: f.hasDefault, annotation: f.annotation, defaultText: f.defaultText })),
      ...all.filter((f) => f.kwOnly).map((f) => ({ name: f.name, kind: 'kwonly' as const, hasDefault: f.hasDefault, annotation: f.annotation, defaultText: f.defaultText })),
    ];
    return { params, name: cls.name, qualname: cls.qualname, definition: { file: summary.file, line: cls.line }, origin: 'msgspec.Struct fields' };
  }

  private namedTupleSig(c: ClassInfo, summary: ModuleSummary): Sig {
    const params: Param[] = c.fields
      .filter((f) => !/^(typing\.|t\.)?ClassVar\b/.test(f.annotation))
      .map((f) => ({ name: f.name, kind: 'normal' as const, hasDefault: f.value !== undefined, annotation: f.annotation, defaultText: f.value ? exprText(f.value) : undefined }));
    return { params, name: c.name, qualname: c.qualname, definition: { file: summary.file, line: c.line }, origin: 'NamedTuple fields' };
  }

  /**
   * `C(...)` certainly returns an instance of exactly C: no class in its MRO has a `__new__` of its
   * own that could return something else, and its construction is understood, or at least what
   * decides the returned object is (the metaclass, the bases, decorators that hand the class back).
   */
  buildsPlainInstance(cls: ClassInfo, summary: ModuleSummary): boolean {
    const known = this.constructorSpec(cls, summary).kind === 'known';
    const mro = this.mro(cls, summary);
    if (!mro) return false;
    for (const e of mro) {
      if (e.kind !== 'class') {
        // where the constructor's signature is not known, only bases known to leave the
        // construction to type.__call__, object.__new__ and __init__
        if (known) continue;
        const name = e.kind === 'special' ? e.name : e.kind === 'external' ? e.qualname : undefined;
        if (name === 'object' || (name !== undefined && name !== 'typing.Protocol' && ALLOWED_AFTER_OWNER.has(name))) continue;
        return false;
      }
      if (e.cls.members.has('__new__') || e.cls.instanceAttrs.has('*')) return false;
      if (known) continue;
      // what the call returns does not depend on `__init__`: a decorator that hands the class back
      // having replaced its `__init__` leaves `C(...)` an instance of C
      const meta = e.cls.keywords.get('metaclass');
      if (meta && this.metaclassProblem(this.program.evalExpr(meta, e.summary))) return false;
      for (const d of e.cls.decorators) {
        if (this.classDecorator(d, e.summary).kind !== 'unknown') continue;
        const eff = this.classDecoratorEffect(d, e.summary);
        if (!eff || eff.patched.has('*') || eff.patched.has('__new__')) return false;
      }
    }
    return true;
  }

  /** The next `name` after `start` in a class's MRO (for `super().name(...)`). */
  /** `decorated` says why a class's decorators may change `name` on it (by default any decorator may). */
  superMember(mro: Entry[], start: number, name: string, decorated?: (cls: ClassInfo, summary: ModuleSummary) => string | undefined): Value | undefined {
    for (let i = start; i < mro.length; i++) {
      const e = mro[i];
      if (e.kind === 'special') {
        if (['object', 'typing.Generic', 'typing.Protocol', 'abc.ABC'].includes(e.name)) continue;
        return { kind: 'unknown', reason: `${e.name} in the MRO` };
      }
      if (e.kind !== 'class') return { kind: 'unknown', reason: 'an unresolvable class in the MRO' };
      if (e.cls.decorators.length > 0) {
        const why = decorated ? decorated(e.cls, e.summary) : 'a decorated class in the MRO';
        if (why) return { kind: 'unknown', reason: why };
      }
      if (e.cls.members.has(name)) return this.program.classMember(e.cls, e.summary, name);
    }
    return undefined;
  }
}

/** Attribute names a decorator writes, with `$NAME` read from the module's string constant NAME (`*` when it is not one). */
function patchedNames(names: string[], summary: ModuleSummary): Set<string> {
  return new Set(
    names.map((a) => {
      if (!a.startsWith('$')) return a;
      const bs = summary.bindings.get(a.slice(1));
      const b = bs?.length === 1 ? bs[0] : undefined;
      return b?.kind === 'value' && b.expr.kind === 'str' ? b.expr.value : '*';
    }),
  );
}

/**
 * The function a decorator expression applies to the decorated object: the decorator itself
 * (`@deco`, called with the object alone), or the inner function its call returns
 * (`@deco(...)`); undefined when that call shape is not one the analysis covers. The applied
 * function must accept the object alone.
 */
function appliedDecorator(d: Expr, fn: FunctionInfo): FunctionInfo | undefined {
  let applied: FunctionInfo | undefined = fn;
  if (d.kind === 'call') {
    applied = fn.returnedInner;
    if (fn.innerIfFirstNone) {
      // `deco(obj=None, *, key=...)` returns the inner function only when called without `obj`
      const first = fn.params[firstArgument(fn.decorators)];
      if (d.args.some((a) => !a.name || a.star || a.name === first?.name)) return undefined;
    }
  }
  if (!applied) return undefined;
  const rest = applied.params.slice(firstArgument(applied.decorators) + 1);
  if (!rest.every((p) => p.hasDefault || p.kind === 'varargs' || p.kind === 'varkw')) return undefined;
  return applied;
}

const PERMISSIVE_NEW = new Set(['builtins.list', 'builtins.dict', 'builtins.set', 'builtins.bytearray']);
const OBJECT_INIT = new Set(['builtins.tuple', 'builtins.str', 'builtins.int', 'builtins.bytes', 'builtins.float', 'builtins.frozenset', 'builtins.complex']);

function isTransparentVar(s: Sig): boolean {
  return s.params.length === 2 && s.params[0].kind === 'varargs' && s.params[1].kind === 'varkw';
}

function exprSource(e: Expr): string {
  if (e.kind === 'call') return `${exprText(e.callee)}(${e.args.map((a) => a.text).join(', ')})`;
  return exprText(e);
}

function c3merge(seqs: Entry[][]): Entry[] | null {
  const out: Entry[] = [];
  const lists = seqs.map((s) => [...s]).filter((s) => s.length);
  for (let guard = 0; guard < 10000; guard++) {
    const nonEmpty = lists.filter((s) => s.length);
    if (nonEmpty.length === 0) return out;
    let head: Entry | undefined;
    for (const s of nonEmpty) {
      const cand = s[0];
      if (!nonEmpty.some((t) => t.slice(1).some((x) => sameEntry(x, cand)))) {
        head = cand;
        break;
      }
    }
    if (!head) return null;
    out.push(head);
    for (const s of nonEmpty) if (sameEntry(s[0], head)) s.shift();
    lists.splice(0, lists.length, ...nonEmpty);
  }
  return null;
}
