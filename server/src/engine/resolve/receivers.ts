/**
 * Receivers: what class a value has, and how sure the engine is of it. A method call `r.m(...)`
 * binds to the first `m` in `type(r).__mro__`; statically the class comes in two grades:
 *
 * - exact: `C(...)` built a plain instance of C (no `__new__` of its own, no metaclass call).
 * - declared: an annotation, a return annotation, `self` in a method: the runtime class is C or
 *   any subclass of it, so the call may land on an override (see `dispatch`).
 *
 * Anything else is unknown, with the reason. Instance attributes (`self.x`) follow from how the
 * classes of the MRO assign them: every assignment must agree on one class.
 */
import { type ClassInfo, type FunctionInfo, givesAttribute, hasField, type ModuleSummary } from '../index/summary';
import { dotted, type Expr } from '../syntax';
import { type HandBack, sameEntry, type Callables } from './callables';
import { baseNames } from '../index/indexEntries';
import { ENUM_BASES, notNnModuleMember } from './specials';
import { type ClassRecord, kindInWords, USER_FILE_MODULE, type Program, type Value } from './program';

export type Instance = Extract<Value, { kind: 'instance' }>;
type Unknown = Extract<Value, { kind: 'unknown' }>;

const TRANSPARENT_BASES = new Set(['object', 'typing.Generic', 'abc.ABC']);
const PROPERTY = new Set(['builtins.property', 'functools.cached_property']);

/** A dotted name as an expression (`a.b.C`), or undefined for anything else. */
export function dottedExpr(text: string): Expr | undefined {
  if (!/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/.test(text)) return undefined;
  const parts = text.split('.');
  let e: Expr = { kind: 'name', name: parts[0] };
  for (const p of parts.slice(1)) e = { kind: 'attr', base: e, attr: p };
  return e;
}

/** An annotation's text without the quotes and the `Optional[...]` around it. */
function unwrapOuter(text: string): string {
  let t = text.trim();
  const q = /^(['"])(.*)\1$/s.exec(t);
  if (q) t = q[2].trim();
  const opt = /^(?:typing\.|t\.)?Optional\[(.*)\]$/s.exec(t);
  return opt ? opt[1].trim() : t;
}

/**
 * pydantic's `SkipValidation[T]` and `InstanceOf[T]` are `Annotated[T, ...]` (pydantic documents
 * them so): what they annotate holds a T.
 */
const ANNOTATED_LIKE = /^(?:pydantic\.|pydantic\.functional_validators\.)?(?:SkipValidation|InstanceOf)$/;
const ANNOTATED_LIKE_OF = new RegExp(`${ANNOTATED_LIKE.source.slice(0, -1)}\\[(.*)\\]$`, 's');

/**
 * The class an annotation names, unwrapped from quotes, `Optional[...]` and `X | None` (a None
 * receiver fails before any binding); undefined for unions of classes, callables, `type[...]`,
 * containers and anything not a plain dotted name.
 */
export function annotatedName(text: string): string | undefined {
  let t = text;
  for (let i = 0; i < 4; i++) {
    t = unwrapOuter(t);
    const parts = splitTopLevel(t, '|').filter((p) => p !== 'None');
    if (parts.length !== 1) return undefined;
    t = parts[0];
    // a generic alias builds (and annotates) instances of its origin class
    const generic = /^([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\[.*\]$/s.exec(t);
    if (generic && !/^(?:typing\.|t\.)?(Optional|Union|Annotated|Callable|Type|ClassVar|Final|Literal)$|^type$/.test(generic[1]) && !ANNOTATED_LIKE.test(generic[1])) t = generic[1];
    const annotated = /^(?:typing\.|t\.|typing_extensions\.)?Annotated\[(.*)\]$/s.exec(t) ?? ANNOTATED_LIKE_OF.exec(t);
    if (annotated) t = splitTopLevel(annotated[1], ',')[0];
    const u = /^(?:typing\.|t\.)?Union\[(.*)\]$/s.exec(t);
    if (u) {
      const alts = splitTopLevel(u[1], ',').filter((p) => p !== 'None');
      if (alts.length !== 1) return undefined;
      t = alts[0];
    }
  }
  return /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/.test(t) ? t : undefined;
}

/**
 * The classes a union annotation names (`A | B`, `Union[A, B]`, `Optional[A | B]`, quoted or not),
 * without `None` (a None receiver fails before any binding); undefined unless there are two or more.
 */
export function unionAlternatives(text: string): string[] | undefined {
  const t = unwrapOuter(text);
  let alts = splitTopLevel(t, '|');
  if (alts.length === 1) {
    const u = /^(?:typing\.|t\.)?Union\[(.*)\]$/s.exec(t);
    if (u) alts = splitTopLevel(u[1], ',');
  }
  alts = alts.map((a) => a.trim()).filter((a) => a !== 'None' && a !== '');
  return alts.length >= 2 ? alts : undefined;
}

/** Containers whose type argument is the type of their elements. */
const SEQUENCES = new Set(['list', 'set', 'frozenset', 'List', 'Set', 'FrozenSet', 'Sequence', 'MutableSequence', 'Iterable', 'Iterator', 'Collection', 'AbstractSet', 'MutableSet', 'deque', 'Deque', 'Generator', 'AsyncIterator', 'AsyncIterable']);
/** Mappings: keys are the first type argument, values the second. */
const MAPPINGS = new Set(['dict', 'Dict', 'Mapping', 'MutableMapping', 'defaultdict', 'DefaultDict', 'OrderedDict']);

/** The type arguments of an annotation (`dict[str, C]` gives `str` and `C`), after unwrapping as `annotatedName` does. */
export function typeArguments(text: string): string[] | undefined {
  const t = unwrapOuter(text);
  const parts = splitTopLevel(t, '|').filter((p) => p !== 'None');
  if (parts.length !== 1) return undefined;
  const g = /^[A-Za-z_][\w.]*\[(.*)\]$/s.exec(parts[0]);
  if (!g) return undefined;
  const args = splitTopLevel(g[1], ',').filter((a) => a !== '');
  return args.length ? args : undefined;
}

function splitTopLevel(t: string, sep: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < t.length; i++) {
    const c = t[i];
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === sep && depth === 0) {
      out.push(t.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(t.slice(start).trim());
  return out;
}

const unknown = (reason: string): Unknown => ({ kind: 'unknown', reason });

/** Per target module summary: the names its functions declare `global` ('*': unknown). */
const reboundGlobals = new WeakMap<ModuleSummary, Set<string> | '*'>();

export class Receivers {
  /** Instance attributes being read through an attribute chain (against self-reference). */
  private readonly reading = new Set<string>();

  constructor(
    private readonly program: Program,
    private readonly callables: Callables,
  ) {}

  /** An instance (declared) of the class an annotation names in a module; unknown otherwise. */
  annotated(text: string, summary: ModuleSummary, owner?: ClassInfo): Value {
    const name = annotatedName(text);
    if (!name) {
      // a union of classes of the target: an instance of one of them (or of a subclass), each checked in turn
      const alts = unionAlternatives(text);
      if (alts && alts.length <= MAX_UNION) {
        const values = alts.map((a) => this.annotated(a, summary, owner));
        if (values.every((v) => v.kind === 'instance')) return agree(values);
      }
      return unknown(`the annotation ${text} names no single class`);
    }
    if (owner && (name === 'Self' || name === 'typing.Self' || name === 'typing_extensions.Self' || name === owner.name)) {
      const own = name === owner.name ? this.program.evalExpr(dottedExpr(name)!, summary) : undefined;
      if (!own || (own.kind === 'class' && own.cls === owner)) return { kind: 'instance', cls: owner, summary, declared: true };
    }
    const bound = this.typeVarBound(name, summary);
    if (bound) return bound.text === text ? unknown('a TypeVar bound to itself') : this.annotated(bound.text, bound.summary, owner);
    const v = this.annotationValue(name, summary);
    // builtins and classes outside the target: calls on them are not calls into the target
    if (v.kind === 'special' || v.kind === 'external') {
      const qualname = v.kind === 'special' ? v.name : v.qualname;
      const args = typeArguments(text);
      return args ? { kind: 'external', qualname, args, summary } : { kind: 'external', qualname };
    }
    if (v.kind !== 'class') return unknown(`the annotation ${text} is not a class the engine can see`);
    if (this.isInterface(v.cls, v.summary)) return { kind: 'unknown', reason: `${v.cls.name} is a Protocol: any class with the right methods may stand for it`, target: true };
    return { kind: 'instance', cls: v.cls, summary: v.summary, declared: true };
  }

  /**
   * A dotted name in an annotation: names imported under `if TYPE_CHECKING:` count there, also when
   * the module binds the name at run time only to a placeholder that names no class
   * (`else: VllmConfig = None`, `= object`, `= Any`).
   */
  private annotationValue(name: string, summary: ModuleSummary): Value {
    const parts = name.split('.');
    const tc = summary.typeCheckingBindings?.get(parts[0]);
    const runtime = summary.bindings.get(parts[0]);
    if (!tc || (runtime && !runtime.every((b) => b.kind === 'value' && isPlaceholder(b.expr)))) return this.program.evalExpr(dottedExpr(name)!, summary);
    let v = this.program.valueOfBindings(tc, summary, 0);
    for (const p of parts.slice(1)) v = this.program.attribute(v, p);
    return v;
  }

  /**
   * An element of a container whose annotation gave its type arguments: `how` is `iter` (a `for`
   * loop over it), `item` (`c[i]`, `c.get(k)`), `values` (a loop over `c.values()`) or `keys` (a
   * mapping's key, as `for k, v in c.items()` gives it).
   */
  element(v: Value, how: 'iter' | 'item' | 'values' | 'keys'): Value | undefined {
    if (v.kind !== 'external' || !v.args || !v.summary) return undefined;
    const name = v.qualname.replace(/^(builtins|typing|collections\.abc|collections|typing_extensions)\./, '');
    let arg: string | undefined;
    if (how === 'keys') arg = MAPPINGS.has(name) && v.args.length === 2 ? v.args[0] : undefined;
    else if (SEQUENCES.has(name)) arg = how === 'values' ? undefined : v.args.length === 1 ? v.args[0] : undefined;
    else if (name === 'tuple') arg = v.args.length === 2 && v.args[1] === '...' && how !== 'values' ? v.args[0] : undefined;
    else if (MAPPINGS.has(name)) arg = v.args.length === 2 ? (how === 'iter' ? v.args[0] : v.args[1]) : undefined;
    if (!arg) return undefined;
    const r = this.annotated(arg, v.summary);
    return r.kind === 'instance' || r.kind === 'external' ? r : undefined;
  }

  /** `T = TypeVar("T", bound=C)`: a value annotated T is an instance of C or of a subclass. */
  private typeVarBound(name: string, summary: ModuleSummary): { text: string; summary: ModuleSummary } | undefined {
    if (name.includes('.')) return undefined;
    const bs = summary.bindings.get(name);
    if (!bs || bs.length !== 1 || bs[0].kind !== 'value' || bs[0].expr.kind !== 'call') return undefined;
    const call = bs[0].expr;
    const callee = this.program.evalExpr(call.callee, summary);
    if (!((callee.kind === 'special' || callee.kind === 'external') && /(^|\.)TypeVar$/.test(callee.kind === 'special' ? callee.name : callee.qualname))) return undefined;
    const b = call.args.find((a) => a.name === 'bound')?.value;
    if (!b) return undefined;
    const text = b.kind === 'str' ? b.value : b.kind === 'name' || b.kind === 'attr' ? dotted(b) : undefined;
    return text ? { text, summary } : undefined;
  }

  /**
   * What a module binds `name` to, when that is one unconditional `name = C(...)` at its top level
   * (followed through `from` imports) that no function of the module rebinds (`global name`): an
   * instance of the class the call builds. A name the module's `__getattr__` serves and a bare
   * annotation declares (`name: C`) is a declared instance of C.
   */
  moduleInstance(where: string | ModuleSummary, name: string, depth = 0): Instance | undefined {
    if (depth > 8) return undefined;
    // a module of the target by name (the user's own folders are not read for this), or a summary at hand
    const s = typeof where !== 'string' ? where : this.program.isUserModule(where.split('.')[0]) ? undefined : this.program.summary(where);
    const bs = s?.bindings.get(name);
    if (s && !bs && !s.dynamic && s.getattr.kind === 'names' && s.getattr.names.has(name) && s.declared?.get(name)) {
      // served by the module's `__getattr__` and declared `name: C` (often under TYPE_CHECKING): an
      // instance of C or of a subclass, as the declaration says
      const v = this.annotated(s.declared.get(name)!, s);
      return v.kind === 'instance' ? v : undefined;
    }
    if (!s || !bs || bs.length !== 1 || bs[0].conditional || s.dynamic) return undefined;
    const b = bs[0];
    if (b.kind === 'from') return this.moduleInstance(b.module, b.name, depth + 1);
    if (b.kind !== 'value' || b.expr.kind !== 'call') return undefined;
    if (s.name !== USER_FILE_MODULE && this.reboundByFunction(s.name, s, name)) return undefined;
    const r = this.callResult(this.program.evalExpr(b.expr.callee, s));
    return r.kind === 'instance' ? r : undefined;
  }

  /**
   * Whether a function of target module `module` rebinds its global `name` (`global name`), read
   * from the module's file once per summary (a summary stands for one content of the file).
   */
  private reboundByFunction(module: string, summary: ModuleSummary, name: string): boolean {
    let known = reboundGlobals.get(summary);
    if (!known) {
      const file = this.program.findModule(module);
      const text = file?.rel ? file.root.readText(file.rel) : undefined;
      // names after `global` (no text: every name counts as rebound)
      known = text === undefined ? '*' : new Set([...text.matchAll(/\bglobal[ \t]+(\w+(?:[ \t]*,[ \t]*\w+)*)/g)].flatMap((m) => m[1].split(',').map((x) => x.trim())));
      reboundGlobals.set(summary, known);
    }
    return known === '*' || known.has(name);
  }

  /** Functions whose returned call is being followed (against cycles). */
  private readonly returning = new Set<FunctionInfo>();

  /** The value a call returns, from what is called: an exact instance of a class, or the function's return annotation. */
  callResult(callee: Value): Value {
    if (callee.kind === 'class') {
      if (this.callables.buildsPlainInstance(callee.cls, callee.summary)) return { kind: 'instance', cls: callee.cls, summary: callee.summary };
      // a `__new__` that hands back what `object.__new__` builds, maybe for a subclass (a registry
      // of replacements): an instance of the class or of a subclass
      if (this.callables.constructorSpec(callee.cls, callee.summary).kind === 'known' && this.newBuildsInstance(callee.cls, callee.summary)) {
        return { kind: 'instance', cls: callee.cls, summary: callee.summary, declared: true, registry: true };
      }
      return unknown(`${callee.cls.name}(...) may not build a plain instance`);
    }
    if (callee.kind === 'function') {
      const fn = callee.fn;
      if (!fn.returns && !(fn.buildsCls && callee.owner) && !fn.returnsCall) return unknown(`${fn.name}() has no return annotation`);
      if (fn.decorators.length > 0 && !this.transparentDecorators(fn, callee.summary)) return unknown(`${fn.name}() is decorated`);
      if (!fn.returns && fn.returnsCall) {
        // what the one call every `return` gives returns (`return vllm.LLM(...)`), read where the function is defined
        if (this.returning.has(fn) || this.returning.size > 8) return unknown(`${fn.name}() returns what a call returns, through a chain the engine does not follow`);
        this.returning.add(fn);
        try {
          const e = dottedExpr(fn.returnsCall);
          const r = e ? this.callResult(this.program.evalExpr(e, callee.summary)) : unknown(`${fn.name}() has no return annotation`);
          return r.kind === 'unknown' ? unknown(`${fn.name}() has no return annotation, and what it returns is not known: ${r.reason}`) : r;
        } finally {
          this.returning.delete(fn);
        }
      }
      if (!fn.returns) {
        // an alternative constructor that returns `cls(...)`: what the class (or the subclass it
        // is called on) builds
        const built = this.callResult({ kind: 'class', cls: callee.owner!, summary: callee.summary });
        return built.kind === 'instance' ? { ...built, declared: true, registry: true } : built;
      }
      const v = this.annotated(fn.returns, callee.summary, callee.owner);
      // a method that says it returns an instance of its own class (`from_config(cls, ...) ->
      // "Engine"`, an alternative constructor) hands back one its class built: of that class or of
      // a subclass, never an object of another class that only has the same methods
      if (v.kind === 'instance' && callee.owner && (v.cls === callee.owner || (v.cls.qualname === callee.owner.qualname && v.cls.line === callee.owner.line))) return { ...v, registry: true };
      return v;
    }
    if (callee.kind === 'anyOf') {
      const rs = callee.values.map((v) => this.callResult(v));
      return agree(rs);
    }
    // what a function outside the target returns is outside the target too
    if (callee.kind === 'external' || callee.kind === 'special') return { kind: 'external', qualname: `${callee.kind === 'external' ? callee.qualname : callee.name}()` };
    return unknown('the value of a call');
  }

  /**
   * What a class decorator does to the class when it hands it back (see `Callables.handBackEffect`):
   * a function, a factory's inner function, or a method of a module-level instance
   * (`@REGISTRY.register(...)`); undefined when it may return anything else.
   */
  private decoratorEffect(d: Expr, summary: ModuleSummary): HandBack | undefined {
    const callee = d.kind === 'call' ? d.callee : d;
    const v = this.program.evalExpr(callee, summary);
    if (v.kind === 'function') return this.callables.classDecoratorEffect(d, summary);
    if (callee.kind !== 'attr' || callee.base.kind !== 'name') return undefined;
    const inst = this.moduleInstance(summary, callee.base.name);
    const m = inst ? this.member(inst, callee.attr) : undefined;
    if (m?.kind !== 'function') return undefined;
    const fn = d.kind === 'call' ? m.fn.returnedInner : m.fn;
    return fn && this.callables.handBackEffect(fn, m.summary);
  }

  /** Every `__new__` along the MRO returns `super().__new__(...)` / `object.__new__(...)`, and no class writes attributes by computed names. */
  private newBuildsInstance(cls: ClassInfo, summary: ModuleSummary): boolean {
    const mro = this.callables.mro(cls, summary);
    if (!mro) return false;
    for (const e of mro) {
      if (e.kind !== 'class') continue;
      if (e.cls.instanceAttrs.has('*')) return false;
      for (const b of e.cls.members.get('__new__') ?? []) if (b.kind !== 'def' || !b.fn.newBuildsInstance) return false;
    }
    return true;
  }

  private transparentDecorators(fn: FunctionInfo, summary: ModuleSummary): boolean {
    return fn.decorators.every((d) => {
      const v = this.program.evalExpr(d.kind === 'call' ? d.callee : d, summary);
      return v.kind === 'special' && /^(builtins\.(staticmethod|classmethod)|abc\.abstractmethod|functools\.(cache|lru_cache)|typing\.override)$/.test(v.name);
    });
  }

  /**
   * `E.NAME` on an enum class: the member, an instance of exactly E (a class with members cannot
   * be subclassed). NAME must be assigned once in E's own body to a literal, a tuple, `auto()` or
   * another member; a descriptor (function, property...), a dunder, a sunder, a private name or
   * one under `_ignore_` is not a member.
   */
  enumMember(cls: ClassInfo, summary: ModuleSummary, attr: string, depth = 0): Instance | undefined {
    const m = this.enumAttribute(cls, summary, attr, depth);
    return m?.kind === 'instance' ? m : undefined;
  }

  /**
   * `E.NAME` where E is an enum and NAME a value its body assigns: the member (see `enumMember`),
   * or unknown when the engine cannot tell whether the value became a member; undefined when E is
   * no enum or NAME no value of its body.
   */
  enumAttribute(cls: ClassInfo, summary: ModuleSummary, attr: string, depth = 0): Instance | Unknown | undefined {
    const bs = cls.members.get(attr);
    if (depth > 4 || !bs || !bs.some((b) => b.kind === 'value')) return undefined;
    const mro = this.callables.mro(cls, summary);
    if (!mro || !mro.some((e) => e.kind === 'special' && ENUM_BASES.has(e.name))) return undefined;
    const open = unknown(`${cls.name}.${attr} may be a member of the enum ${cls.name}`);
    if (/^__.*__$|^_.*_$|^__/.test(attr) || cls.members.has('_ignore_') || cls.keywords.size > 0) return open;
    if (bs.length !== 1 || bs[0].kind !== 'value' || bs[0].conditional) return open;
    const e = bs[0].expr;
    let member = false;
    if (e.kind === 'const' || e.kind === 'str' || e.kind === 'strs') member = true;
    else if (e.kind === 'other') member = /^[-+(\['"\d]/.test(e.text) && !/\blambda\b/.test(e.text);
    else if (e.kind === 'call' && e.args.length === 0) {
      const callee = this.program.evalExpr(e.callee, summary);
      member = callee.kind === 'special' ? callee.name === 'enum.auto' : callee.kind === 'external' && callee.qualname === 'enum.auto';
    } else if (e.kind === 'name' && e.name !== attr) member = !!this.enumMember(cls, summary, e.name, depth + 1);
    return member ? { kind: 'instance', cls, summary } : open;
  }

  /** The class is a Protocol (an interface any class may satisfy without deriving from it). */
  isInterface(cls: ClassInfo, summary: ModuleSummary): boolean {
    // PEP 544: a protocol class names Protocol (or Protocol[...]) among its own bases
    return cls.bases.some((b) => {
      const v = this.program.evalExpr(b.kind === 'subscript' ? b.base : b, summary);
      return v.kind === 'special' && v.name === 'typing.Protocol';
    });
  }

  /**
   * The classes of the MRO of `cls` the engine sees, up to where attribute `attr` is looked up,
   * and the first base it cannot see into; unknown when a class of the MRO may change the lookup
   * (custom attribute access or dynamic attributes for `instance` lookups, a class decorator that
   * may patch `attr`, a base the engine cannot see at all).
   */
  /**
   * Why the class decorators of `cls` may change what `attr` is on it (undefined: they cannot). A
   * decorator that may patch or replace the class may change any of its methods; a registry that
   * hands the class back (maybe after writing some attributes on it) changes those attributes only.
   */
  decoratorChanges(cls: ClassInfo, summary: ModuleSummary, attr: string): string | undefined {
    return this.decoratorChange(cls, summary, attr)?.reason;
  }

  /** As `decoratorChanges`, saying whether the decorator is one the engine cannot see into (`unseen`) or one seen to set the name. */
  private decoratorChange(cls: ClassInfo, summary: ModuleSummary, attr: string): { reason: string; unseen: boolean } | undefined {
    for (const d of cls.decorators) {
      const eff = this.decoratorEffect(d, summary);
      if (!eff) {
        const k = this.callables.classDecorator(d, summary);
        if (k.kind === 'unknown') return { reason: `${cls.name} is decorated: ${k.reason}`, unseen: true };
      } else if (eff.patched.has(attr) || eff.patched.has('*')) return { reason: `the decorator of ${cls.name} sets its ${attr}`, unseen: false };
    }
    return undefined;
  }

  /**
   * The classes of an MRO the engine sees, for looking up `attr`. For an instance's attribute, a
   * class decorator the engine cannot see into is taken as a class that may take the decorated
   * class's place, as a base the engine cannot see that comes right before it (`decorated` says
   * why): it may define or wrap anything, but what the class's own methods store on the instance is
   * still what they store (see `member`).
   */
  private walkMro(cls: ClassInfo, summary: ModuleSummary, attr: string, instance: boolean): Unknown | { classes: Array<{ cls: ClassInfo; summary: ModuleSummary }>; opaque?: string; seenBeforeOpaque: number; decorated?: string } {
    const mro = this.callables.mro(cls, summary);
    if (!mro) return unknown(`the MRO of ${cls.name} cannot be worked out`);
    const classes: Array<{ cls: ClassInfo; summary: ModuleSummary }> = [];
    let opaque: string | undefined;
    /** How many classes the engine sees come before the first base it cannot see into. */
    let seenBeforeOpaque = -1;
    let decorated: string | undefined;
    for (const e of mro) {
      // an instance of a metaclass is a class: its own MRO comes first (`cls.__new__` in a
      // metaclass's method is the class's __new__, not the metaclass's)
      if (instance && ((e.kind === 'external' && e.qualname === 'builtins.type') || (e.kind === 'special' && (e.name === 'builtins.type' || e.name === 'abc.ABCMeta')))) return unknown(`${cls.name} is a metaclass: its instances are classes, whose own attributes come first`);
      if (e.kind === 'class') {
        if (instance && e.cls.members.has('__getattribute__')) return unknown(`${e.cls.name} customises attribute access`);
        if (instance && e.cls.instanceAttrs.has('*')) return unknown(`${e.cls.name} sets attributes dynamically`);
        const changed = this.decoratorChange(e.cls, e.summary, attr);
        if (changed && (!instance || !changed.unseen)) return unknown(changed.reason);
        if (changed) {
          if (opaque === undefined) seenBeforeOpaque = classes.length;
          opaque ??= `what the decorator of ${e.cls.name} puts in its place`;
          decorated ??= changed.reason;
        }
        classes.push({ cls: e.cls, summary: e.summary });
      } else if (e.kind === 'special' && (TRANSPARENT_BASES.has(e.name) || e.name === 'typing.Protocol')) {
        continue;
      } else if (e.kind === 'special' && e.name === 'torch.nn.Module' && notNnModuleMember(attr)) {
        // not one of its own: at most what an instance registered, which its __getattr__ serves
        // (see `member`)
        continue;
      } else if (e.kind === 'special' && e.name === 'msgspec.Struct' && !attr.startsWith('__') && !mro.some((x) => x.kind === 'class' && x.cls.keywords.has('dict'))) {
        // msgspec.Struct's own names are all dunders, and its instances have slots (no attribute
        // but the fields) unless a class asks for a `__dict__` (`dict=True`)
        continue;
      } else {
        if (opaque === undefined) seenBeforeOpaque = classes.length;
        opaque ??= e.kind === 'unknown' ? 'a base class the engine cannot see' : `the base ${e.kind === 'special' ? e.name : e.kind === 'external' ? e.qualname : '?'}`;
        // an unseen class in the MRO may define or assign anything
        if (e.kind === 'unknown') return unknown(`${cls.name} has ${opaque}`);
      }
    }
    return { classes, opaque, seenBeforeOpaque, decorated };
  }

  /**
   * `cls.attr` where `cls` is a class or any subclass of it (the first parameter of a classmethod):
   * a method as the class defines it along its MRO (called through the class, see `dispatch` for
   * the subclasses), or unknown.
   */
  classMember(cls: ClassInfo, summary: ModuleSummary, attr: string): Value {
    const walk = this.walkMro(cls, summary, attr, false);
    if ('kind' in walk) return walk;
    const { classes, opaque, seenBeforeOpaque } = walk;
    // a metaclass's own attributes and descriptors come into a lookup on the class
    for (const c of classes) {
      const meta = c.cls.keywords.get('metaclass');
      const mv = meta ? this.program.evalExpr(meta, c.summary) : undefined;
      if (mv && !(mv.kind === 'special' && /^abc\.ABCMeta$/.test(mv.name))) return unknown(`${c.cls.name} has a metaclass`);
    }
    const ownerAt = classes.findIndex((c) => c.cls.members.has(attr));
    const owner = ownerAt >= 0 ? classes[ownerAt] : undefined;
    if (!owner) {
      if (opaque) return { kind: 'external', qualname: `${opaque.replace(/^the base /, '')}.${attr}` };
      const why = unknown(`no class along the MRO of ${cls.name} defines ${attr}`);
      // every class of the MRO is seen, and none defines it, sets it through `cls.x = ...` or declares it
      return classes.some((c) => c.cls.attrAssigns.has(attr) || c.cls.instanceAttrs.has('*') || c.cls.fields.some((f) => f.name === attr)) ? why : { ...why, absent: true };
    }
    if (opaque && seenBeforeOpaque >= 0 && seenBeforeOpaque <= ownerAt) return unknown(`${cls.name}.${attr} may come from ${opaque}, which comes first in the MRO`);
    const binds = owner.cls.members.get(attr)!;
    if (!binds.every((b) => b.kind === 'def')) return unknown(`${owner.cls.name}.${attr} is a class attribute`);
    if (binds.some((b) => b.kind === 'def' && this.isProperty(b.fn, owner.summary))) return unknown(`${owner.cls.name}.${attr} is a property`);
    const m = this.program.classMember(owner.cls, owner.summary, attr);
    if (m && (m.kind === 'function' || (m.kind === 'anyOf' && m.values.every((v) => v.kind === 'function')))) return m;
    return unknown(`${owner.cls.name}.${attr} is not a method the engine can see`);
  }

  /**
   * What `inst(...)` calls: the `__call__` its class defines along the MRO (a special method is
   * looked up on the class, never on the instance), called as a method; where that lookup reaches
   * torch.nn.Module first, whose `__call__` hands its arguments on to `self.forward`, the
   * instance's `forward`.
   */
  instanceCall(inst: Instance): { value: Value; method: string } {
    const mro = this.callables.mro(inst.cls, inst.summary);
    for (const e of mro ?? []) {
      if (e.kind === 'class') {
        const changed = this.decoratorChanges(e.cls, e.summary, '__call__');
        if (changed) return { value: unknown(changed), method: '__call__' };
        if (e.cls.members.has('__call__')) return { value: this.classMember(inst.cls, inst.summary, '__call__'), method: '__call__' };
        continue;
      }
      if (e.kind === 'special' && e.name === 'torch.nn.Module') return { value: this.member(inst, 'forward'), method: 'forward' };
      if (e.kind === 'special' && TRANSPARENT_BASES.has(e.name) && e.name !== 'object') continue;
      break;
    }
    return { value: unknown(`calling an instance of ${inst.cls.name} goes through a __call__ the engine cannot see`), method: '__call__' };
  }

  /**
   * What the classes along `inst`'s MRO declare `attr` to hold, read as a type checker reads it: a
   * class-level field's annotation, `self.attr: C` in a method, or an annotated parameter stored
   * as it is. Only when every declaration names a class (of the target or from outside it) and
   * nothing of that name is a method or a class attribute; undefined otherwise. For a question
   * `member` leaves open because a value assigned there is not followed (`self.hf_config =
   * hf_config`, a local bound twice, beside `hf_config: PretrainedConfig = field(init=False)`).
   */
  declaredMember(inst: Instance, attr: string): Value | undefined {
    const walk = this.walkMro(inst.cls, inst.summary, attr, true);
    if ('kind' in walk || walk.decorated) return undefined;
    const found: Value[] = [];
    for (const c of walk.classes) {
      if (c.cls.members.has(attr) && !hasField(c.cls, attr)) return undefined;
      for (const f of c.cls.fields) if (f.name === attr && givesAttribute(f) && !/^(typing\.|t\.)?ClassVar\b/.test(f.annotation)) found.push(this.annotatedIn(f.annotation, c.cls, c.summary, inst));
      for (const d of c.cls.attrAssigns.get(attr) ?? []) if (d.startsWith('ann:') || d.startsWith('decl:')) found.push(this.annotatedIn(d.slice(d.indexOf(':') + 1), c.cls, c.summary, inst));
    }
    if (found.length === 0 || !found.every((v) => v.kind === 'instance' || v.kind === 'external')) return undefined;
    const v = agree(found);
    return v.kind === 'instance' || v.kind === 'external' ? v : undefined;
  }

  /**
   * `inst.attr` on an instance of a known class: a method (as the class defines it), the class of
   * an instance attribute when every assignment along the MRO agrees on it, or unknown.
   */
  member(inst: Instance, attr: string, depth = 0): Value {
    const v = this.memberOf(inst, attr, depth);
    if (v.kind !== 'unknown' || !this.trustDeclared || v.absent) return v;
    return this.declaredMember(inst, attr) ?? v;
  }

  /** Set while `memberAsDeclared` runs. */
  private trustDeclared = false;

  /**
   * `member`, where each attribute along the way whose assigned values are not followed holds what
   * its classes declare (see `declaredMember`): a type checker's reading, for where the target's own
   * code may set an attribute (see `Engine.setsOnOther`), not for binding calls.
   */
  memberAsDeclared(inst: Instance, attr: string): Value {
    const was = this.trustDeclared;
    this.trustDeclared = true;
    try {
      return this.member(inst, attr);
    } finally {
      this.trustDeclared = was;
    }
  }

  private memberOf(inst: Instance, attr: string, depth: number): Value {
    if (depth > 8) return unknown('attribute chain too long');
    const walk = this.walkMro(inst.cls, inst.summary, attr, true);
    if ('kind' in walk) return walk;
    const { classes, opaque, seenBeforeOpaque } = walk;
    // instance attributes shadow methods and class attributes (non-data descriptors)
    const assigned = classes.some((c) => c.cls.attrAssigns.has(attr));
    const ownerAt = classes.findIndex((c) => c.cls.members.has(attr));
    const owner = ownerAt >= 0 ? classes[ownerAt] : undefined;
    // under a decorator the engine cannot see into, only what the methods assign (no method, class
    // attribute or field of that name: a decorator may wrap those, or make fields it converts)
    if (walk.decorated && (!assigned || owner || classes.some((c) => hasField(c.cls, attr)))) return unknown(walk.decorated);
    // a class outside the target that comes first in the MRO may define the name itself
    if (owner && opaque && seenBeforeOpaque >= 0 && seenBeforeOpaque <= ownerAt) return unknown(`${inst.cls.name}.${attr} may come from ${opaque}, which comes first in the MRO`);
    if (!assigned && owner) {
      const binds = owner.cls.members.get(attr)!;
      if (binds.every((b) => b.kind === 'def')) {
        const prop = binds.find((b) => b.kind === 'def' && this.isProperty(b.fn, owner.summary));
        if (prop && prop.kind === 'def') {
          if (binds.length !== 1 || !prop.fn.returns) return unknown(`${owner.cls.name}.${attr} is a property`);
          return this.annotated(prop.fn.returns, owner.summary, owner.cls);
        }
      }
      if (classes.some((c) => hasField(c.cls, attr))) return this.fieldValue(classes, attr, inst);
      const m = this.program.classMember(owner.cls, owner.summary, attr);
      if (!m) return unknown(`${inst.cls.name}.${attr} is not defined`);
      if (m.kind === 'function' || (m.kind === 'anyOf' && m.values.every((v) => v.kind === 'function'))) return m;
      return unknown(`${owner.cls.name}.${attr} is a class attribute`);
    }
    if (opaque && !owner && !assigned && !classes.some((c) => hasField(c.cls, attr))) {
      // nothing in the target defines it: it comes from a class outside the target (or nowhere)
      return { kind: 'external', qualname: `${opaque.replace(/^the base /, '')}.${attr}` };
    }
    if (!assigned) {
      const v = present(this.fieldValue(classes, attr, inst));
      // every class of the MRO is seen, and none defines, assigns or serves (`__getattr__`) it
      if (v.kind === 'unknown' && !owner && !opaque && !classes.some((c) => hasField(c.cls, attr) || c.cls.members.has('__getattr__') || c.cls.instanceAttrs.has('?'))) return { ...v, absent: true };
      return v;
    }
    if (owner && owner.cls.members.get(attr)!.some((b) => b.kind === 'def')) return unknown(`${attr} is a method that instances also assign`);
    const results: Value[] = [];
    const loose: Value[] = [];
    for (const c of classes) {
      for (const d of c.cls.attrAssigns.get(attr) ?? []) {
        if (d === 'none') continue;
        if (/^with(call|selfcall|attrcall):/.test(d)) {
          // the value of an annotated assignment: the annotation stands for it unless the class it builds is known
          const built = this.assignedValue(d.slice(4), c.cls, c.summary, inst);
          if (built.kind === 'instance' || isInstanceUnion(built)) results.push(built);
          continue;
        }
        const v = this.assignedValue(d, c.cls, c.summary, inst);
        // a declaration that names no class the engine sees (`self.x: nn.Module | None = None`,
        // a union) says less than the values the MRO assigns: those decide, when there are any
        if (d.startsWith('decl:') && v.kind !== 'instance') loose.push(v);
        else results.push(v);
      }
      for (const f of c.cls.fields) {
        if (f.name !== attr || !givesAttribute(f)) continue;
        const v = this.annotatedIn(f.annotation, c.cls, c.summary, inst);
        // in the body of a plain class (no base or decorator makes its annotations constructor
        // fields), `x: A | B` with no value only declares the attribute: one that names no class
        // the engine sees says less than what the MRO assigns, as such a declaration in a method does
        if (f.value === undefined && v.kind !== 'instance' && !isInstanceUnion(v) && !opaque && this.plainClasses(classes)) loose.push(v);
        else results.push(v);
      }
      const cv = c.cls.members.get(attr);
      if (cv && !hasField(c.cls, attr) && !cv.every((b) => b.kind === 'value' && b.expr.kind === 'const' && b.expr.text === 'None')) results.push(unknown(`${c.cls.name}.${attr} is also a class attribute`));
    }
    if (results.length === 0) results.push(...loose);
    // a declaration of a builtin class (`self.params: dict[str, Any] | None = None`) says more
    // than values the engine cannot follow (`self.params = args.get("params")`)
    else if (loose.length > 0 && loose.every((v) => v.kind === 'external' && v.qualname.startsWith('builtins.')) && !results.some((v) => v.kind !== 'unknown')) results.splice(0, results.length, ...loose);
    // only None is ever assigned: nothing is known of the class a call on it would need
    if (results.length === 0) return unknown(`only None is assigned to ${attr}`);
    // the attribute is assigned: a name missing further along what is assigned to it
    // (`self.x = self.a.b` where a's class lacks b) says nothing of whether it is there
    return present(agree(results));
  }

  /**
   * An annotation written in class `owner`, read for an instance of `inst.cls` (the owner or a
   * subclass): a type parameter of the owner (`info: _I` in `class Builder(Generic[_I])`) stands
   * for the type argument a subclass gives it (`class LlavaBuilder(Builder[LlavaInfo])`).
   */
  private annotatedIn(text: string, owner: ClassInfo, summary: ModuleSummary, inst: Instance): Value {
    if (/^[A-Za-z_]\w*$/.test(text) && inst.cls !== owner) {
      const arg = this.typeArgument(text, owner, summary, inst.cls, inst.summary, 0);
      if (arg) return this.annotated(arg.text, arg.summary);
    }
    return this.annotated(text, summary, owner);
  }

  /** Whether a name of a module is bound to `TypeVar(...)`. */
  private isTypeVar(name: string, summary: ModuleSummary): boolean {
    const bs = summary.bindings.get(name);
    if (!bs || bs.length !== 1 || bs[0].kind !== 'value' || bs[0].expr.kind !== 'call') return false;
    const callee = this.program.evalExpr(bs[0].expr.callee, summary);
    return (callee.kind === 'special' || callee.kind === 'external') && /(^|\.)TypeVar$/.test(callee.kind === 'special' ? callee.name : callee.qualname);
  }

  /** A class's type parameters, in order: those of `Generic[...]` among its bases, else the TypeVars its subscripted bases mention. */
  private typeParams(cls: ClassInfo, summary: ModuleSummary): string[] | undefined {
    const out: string[] = [];
    for (const b of cls.bases) {
      if (b.kind !== 'subscript') continue;
      const v = this.program.evalExpr(b.base, summary);
      if (v.kind === 'special' && (v.name === 'typing.Generic' || v.name === 'typing.Protocol')) {
        if (!b.args) return undefined;
        return b.args.every((a) => this.isTypeVar(a, summary)) ? b.args : undefined;
      }
      if (!b.args) continue;
      for (const a of b.args) if (!out.includes(a) && this.isTypeVar(a, summary)) out.push(a);
    }
    return out;
  }

  /**
   * The type argument that class `concrete` (through its bases, at any depth) gives to type
   * parameter `name` of class `owner`: the text and the module it is written in.
   */
  private typeArgument(name: string, owner: ClassInfo, ownerSummary: ModuleSummary, concrete: ClassInfo, concreteSummary: ModuleSummary, depth: number): { text: string; summary: ModuleSummary } | undefined {
    if (depth > 4 || !this.isTypeVar(name, ownerSummary)) return undefined;
    const params = this.typeParams(owner, ownerSummary);
    const at = params ? params.indexOf(name) : -1;
    if (!params || at < 0) return undefined;
    const mro = this.callables.mro(concrete, concreteSummary);
    if (!mro) return undefined;
    for (const e of mro) {
      if (e.kind !== 'class' || e.cls === owner) continue;
      for (const b of e.cls.bases) {
        if (b.kind !== 'subscript' || !b.args) continue;
        const v = this.program.evalExpr(b.base, e.summary);
        if (v.kind !== 'class' || v.cls !== owner) continue;
        // the subscript must give every parameter, else the positions are not known
        if (b.args.length !== params.length) return undefined;
        const arg = b.args[at];
        // a type parameter handed on (`class Mid(Builder[_J], Generic[_J])`): what a subclass gives Mid
        if (this.isTypeVar(arg, e.summary)) return e.cls === concrete ? undefined : this.typeArgument(arg, e.cls, e.summary, concrete, concreteSummary, depth + 1);
        return { text: arg, summary: e.summary };
      }
    }
    return undefined;
  }

  /** Whether every decorator of the classes of an MRO is seen to hand its class back (none makes its annotations constructor fields, as a dataclass's, attrs' or pydantic's do). */
  private plainClasses(classes: Array<{ cls: ClassInfo; summary: ModuleSummary }>): boolean {
    return classes.every((c) => c.cls.decorators.every((d) => this.decoratorEffect(d, c.summary) !== undefined || this.callables.classDecorator(d, c.summary).kind === 'transparent'));
  }

  /** Annotated class-level fields (dataclasses, pydantic, msgspec, NamedTuple, plain annotations). */
  private fieldValue(classes: Array<{ cls: ClassInfo; summary: ModuleSummary }>, attr: string, inst: Instance): Value {
    const results: Value[] = [];
    for (const c of classes) for (const f of c.cls.fields) if (f.name === attr && givesAttribute(f)) results.push(/^(typing\.|t\.)?ClassVar\b/.test(f.annotation) ? unknown('a ClassVar') : this.annotatedIn(f.annotation, c.cls, c.summary, inst));
    if (results.length === 0) return unknown(`no class along the MRO defines or assigns ${attr}`);
    return agree(results);
  }

  private isProperty(fn: FunctionInfo, summary: ModuleSummary): boolean {
    return fn.decorators.some((d) => {
      const v = this.program.evalExpr(d.kind === 'call' ? d.callee : d, summary);
      return (v.kind === 'special' && PROPERTY.has(v.name)) || (d.kind === 'attr' && /^(setter|getter|deleter)$/.test(d.attr));
    });
  }

  /** One `self.x = ...` of a class's methods, as `ClassInfo.attrAssigns` describes it. */
  private assignedValue(d: string, cls: ClassInfo, summary: ModuleSummary, inst: Instance): Value {
    if (d.startsWith('ann:') || d.startsWith('decl:')) return this.annotatedIn(d.slice(d.indexOf(':') + 1), cls, summary, inst);
    // `self.x = []`: a value of a builtin class, nothing of the target's
    if (d.startsWith('lit:')) return { kind: 'external', qualname: d.slice(4) };
    if (d.startsWith('global:')) {
      // `self.x = REGISTRY`, a name of the class's module bound once to `C(...)` there or where it imports it from
      const name = d.slice(7);
      const bs = summary.bindings.get(name);
      const b = bs?.length === 1 ? bs[0] : undefined;
      const inst = !b || b.conditional ? undefined : b.kind === 'from' ? this.moduleInstance(b.module, b.name) : b.kind === 'value' ? this.moduleInstance(summary.name, name) : undefined;
      return inst ?? unknown(`${cls.name} assigns the attribute ${name}, a value the engine does not follow`);
    }
    const chain = /^(self|attr|selfcall|attrcall):/.exec(d);
    if (chain) {
      // an attribute chain read off the instance itself, or off an annotated parameter; with
      // `call`, the last name is a method called there, and the value is what it returns
      const from = chain[1];
      const rest = d.slice(from.length + 1);
      const cut = from.startsWith('attr') ? rest.indexOf(':') : rest.length;
      const path = rest.slice(0, cut).split('.');
      const called = from.endsWith('call') ? path.pop()! : undefined;
      let v: Value = from.startsWith('self') ? inst : this.annotatedIn(rest.slice(cut + 1), cls, summary, inst);
      for (const a of called === undefined ? path : [...path, called]) {
        if (v.kind !== 'instance') return v.kind === 'unknown' ? v : unknown(`${cls.name} assigns the attribute from ${kindInWords(v.kind)}`);
        const key = `${v.cls.module}:${v.cls.qualname}:${v.cls.line}:${a}`;
        // `self.x = self.x.parent`: a value that depends on itself is not followed
        if (this.reading.has(key)) return unknown(`${cls.name} assigns the attribute from itself`);
        this.reading.add(key);
        try {
          if (a !== called) {
            v = this.member(v, a);
            continue;
          }
          const method = this.member(v, a);
          if (method.kind !== 'function' && !(method.kind === 'anyOf' && method.values.every((x) => x.kind === 'function'))) {
            return method.kind === 'unknown' ? method : unknown(`${cls.name} assigns the attribute what ${a}() returns, which is not a method the engine sees`);
          }
          // where the receiver may be a subclass, an override may return another class
          const returned = (f: Value): string | undefined => {
            const r = this.callResult(f);
            return r.kind === 'instance' ? `${r.cls.module}:${r.cls.qualname}:${r.cls.line}` : undefined;
          };
          const expected = returned(method);
          if (expected === undefined) return unknown(`${cls.name} assigns the attribute what ${a}() returns, whose class is not known`);
          const why = v.declared ? this.dispatch(v.cls, v.summary, a, expected, returned, [], !this.program.isUserModule(v.summary.name) && v.summary.name !== USER_FILE_MODULE) : undefined;
          if (why) return unknown(why.replace(/binds the call differently$/, `returns another class`));
          v = this.callResult(method);
        } finally {
          this.reading.delete(key);
        }
      }
      return v;
    }
    if (d.startsWith('value:')) {
      // `self.x = E.NAME`: a member of an enum
      const path = d.slice(6);
      const at = path.lastIndexOf('.');
      const owner = this.program.evalExpr(dottedExpr(path.slice(0, at))!, summary);
      const m = owner.kind === 'class' ? this.enumMember(owner.cls, owner.summary, path.slice(at + 1)) : undefined;
      return m ?? unknown(`${cls.name} assigns the attribute a value the engine does not follow`);
    }
    const imported = /^(from|import):([^:]*):(.*)$/.exec(d);
    if (imported) {
      // a call of a name the method imports
      const [, how, module, path] = imported;
      const parts = path === '' ? [] : path.split('.');
      let v = this.program.valueOfBinding(how === 'from' ? { kind: 'from', module, name: parts.shift()!, conditional: false, line: 0 } : { kind: 'module', module, conditional: false, line: 0 }, summary, 0);
      for (const a of parts) v = this.program.attribute(v, a);
      return this.callResult(v);
    }
    if (d.startsWith('call:')) {
      const e = dottedExpr(d.slice(5));
      if (!e) return unknown('an assignment the engine does not follow');
      return this.callResult(this.program.evalExpr(e, summary));
    }
    return unknown(`${cls.name} assigns the attribute in a way the engine does not follow`);
  }

  /**
   * Virtual dispatch: for a receiver whose runtime class may be any subclass of `cls`, whether
   * every override of `method` that the engine knows of (the target's subclasses, from its full
   * index, and the user's classes given) binds the call the same way. `bindKey` says how a method
   * value binds the call (undefined: cannot tell). Returns the reason to stay unknown, or undefined.
   * An annotation is not enforced: the user's code may store there an object of its own class that
   * only has the method (duck typing: a plug-in's builder kept where the library annotates its
   * base class), so unless the receiver is `self` (`annotated` false), the user's classes that
   * define the method count too, subclasses or not.
   */
  dispatch(
    cls: ClassInfo,
    summary: ModuleSummary,
    method: string,
    expected: string,
    bindKey: (v: Value) => string | undefined,
    userClasses: Array<{ cls: ClassInfo; summary: ModuleSummary }>,
    inTarget: boolean,
    annotated = true,
  ): string | undefined {
    if (this.isInterface(cls, summary)) return `${cls.name} is a Protocol`;
    const candidates: Array<{ cls: ClassInfo; summary: ModuleSummary }> = [];
    for (const u of userClasses) if (u.cls !== cls && u.cls.members.has(method)) candidates.push(u);
    if (inTarget) {
      const subs = this.targetSubclasses(cls, 'overrides in its subclasses are unknown', (r) => r.methods.includes(method) && r.qualname !== cls.qualname);
      if (typeof subs === 'string') return subs;
      candidates.push(...subs);
    }
    // the user's classes that may derive from it by the names their bases mention (their modules
    // may be ones the engine cannot resolve): an over-estimate, as for the target's
    const byName = this.derivedByName(cls, userClasses);
    for (const c of candidates) {
      if (c.cls === cls) continue;
      const userByName = userClasses.includes(c) && byName.has(c.cls.name);
      const derives = userByName || this.callables.mayDerive(c.cls, c.summary, (x) => x === cls || (x.qualname === cls.qualname && x.line === cls.line));
      if (!derives && !(annotated && userClasses.includes(c))) continue;
      const own = c.cls.members.get(method);
      if (!own) continue;
      const v = this.program.classMember(c.cls, c.summary, method);
      if (!v) continue;
      const key = bindKey(v);
      if (key === undefined || key !== expected) {
        return derives ? `${shownName(c.cls)}.${method} overrides it and binds the call differently` : `it may hold a ${shownName(c.cls)} (annotations are not enforced), whose ${method} binds the call differently`;
      }
    }
    return undefined;
  }
  /**
   * Whether a known subclass of `cls` (the target's, from its full index, when `inTarget`) may
   * give its instances attribute `attr` (defines, assigns or declares it, serves any name, or
   * writes computed names); true too when the subclasses cannot be known.
   */
  subclassMayHave(cls: ClassInfo, summary: ModuleSummary, attr: string, inTarget: boolean): boolean {
    if (!inTarget) return false;
    const subs = this.targetSubclasses(cls, 'its subclasses are unknown', (r) => r.qualname !== cls.qualname);
    if (typeof subs === 'string') return true;
    return subs.some(({ cls: c }) => c.members.has(attr) || c.attrAssigns.has(attr) || hasField(c, attr) || c.instanceAttrs.has('*') || c.instanceAttrs.has('?') || c.members.has('__getattr__') || c.members.has('__getattribute__'));
  }

  /**
   * `super().method(...)` in a method of `cls`: super() follows the MRO of the instance's class,
   * so in a subclass that mixes in other bases the class after `cls` may be another one. The call
   * is checked only when, in every known subclass (the target's, from its full index, and the
   * user's classes given) whose MRO differs after `cls`, the method found binds the call the
   * same way. Returns the reason to stay unknown, or undefined.
   */
  superDispatch(
    cls: ClassInfo,
    summary: ModuleSummary,
    method: string,
    expected: string,
    bindKey: (v: Value) => string | undefined,
    userClasses: Array<{ cls: ClassInfo; summary: ModuleSummary }>,
    inTarget: boolean,
  ): string | undefined {
    const isCls = (e: { kind: string; cls?: ClassInfo }): boolean => e.kind === 'class' && (e.cls === cls || (e.cls!.qualname === cls.qualname && e.cls!.line === cls.line && e.cls!.module === cls.module));
    const own = this.callables.mro(cls, summary);
    const at = own ? own.findIndex(isCls) : -1;
    if (!own || at < 0) return `the MRO of ${cls.name} cannot be worked out`;
    const tail = own.slice(at + 1);
    const candidates: Array<{ cls: ClassInfo; summary: ModuleSummary; byName?: boolean }> = [];
    const byName = this.derivedByName(cls, userClasses);
    for (const u of userClasses) if (u.cls !== cls) candidates.push({ ...u, byName: byName.has(u.cls.name) });
    if (inTarget) {
      const subs = this.targetSubclasses(cls, 'its subclasses are unknown', (r) => !(r.qualname === cls.qualname && r.module === cls.module));
      if (typeof subs === 'string') return subs;
      candidates.push(...subs);
    }
    for (const c of candidates) {
      if (c.cls === cls) continue;
      const mro = this.callables.mro(c.cls, c.summary);
      if (!mro) {
        if (c.byName) return `the MRO of ${c.cls.name}, which may derive from ${cls.name}, cannot be worked out`;
        continue;
      }
      const i = mro.findIndex(isCls);
      if (i < 0) continue;
      const rest = mro.slice(i + 1);
      if (rest.length === tail.length && rest.every((e, k) => sameEntry(e, tail[k]))) continue;
      const v = this.callables.superMember(mro, i + 1, method, (k, ks) => this.decoratorChanges(k, ks, method));
      const key = v ? bindKey(v) : 'nothing';
      if (key === undefined || key !== expected) return `in ${shownName(c.cls)}, super() after ${cls.name} reaches another ${method}`;
    }
    return undefined;
  }

  /**
   * The target's classes that may derive from `cls` (by the names their bases mention, from the
   * full index) and that `keep` keeps, read; or the reason they cannot be known.
   */
  private targetSubclasses(cls: ClassInfo, unknownWhat: string, keep: (r: ClassRecord) => boolean): Array<{ cls: ClassInfo; summary: ModuleSummary }> | string {
    const subs = this.program.possibleSubclasses(cls.name);
    if (!subs) return `the target is not indexed yet, so ${unknownWhat}`;
    const out: Array<{ cls: ClassInfo; summary: ModuleSummary }> = [];
    for (const r of subs) {
      if (!keep(r)) continue;
      const found = this.program.classByQualname(r.module, r.qualname);
      if (!found) return `${r.qualname} cannot be read`;
      out.push(found);
    }
    return out;
  }

  /** The names of the user's classes that may derive from `cls` by the names their bases mention (an over-estimate). */
  private derivedByName(cls: ClassInfo, userClasses: Array<{ cls: ClassInfo; summary: ModuleSummary }>): Set<string> {
    const byName = new Set([cls.name]);
    for (let grew = true; grew; ) {
      grew = false;
      for (const u of userClasses) {
        if (byName.has(u.cls.name)) continue;
        const names = new Set<string>();
        for (const b of u.cls.bases) baseNames(b, names);
        if ([...names].some((n) => byName.has(n))) {
          byName.add(u.cls.name);
          grew = true;
        }
      }
    }
    return byName;
  }
}

/** A class as a reason names it: its dotted name, without the module name the checked file is given. */
function shownName(cls: ClassInfo): string {
  return cls.module === USER_FILE_MODULE ? cls.qualname.slice(cls.module.length + 1) : cls.qualname;
}

/**
 * A value as found for an attribute that is there: an unknown that says a name is absent (found
 * on the way to the value, along another class) loses that word, which belongs to that lookup.
 */
function present(v: Value): Value {
  if (v.kind !== 'unknown' || !v.absent) return v;
  const { absent: _absent, ...rest } = v;
  return rest;
}

/** One class from several sources, when they all name the same one (exact only when all are exact). */
export function agree(values: Value[]): Value {
  if (values.length === 0) return unknown('nothing assigns it');
  if (values.every((v) => v.kind === 'external')) {
    const first = values[0] as Extract<Value, { kind: 'external' }>;
    const same = values.every((v) => v.kind === 'external' && v.qualname === first.qualname && JSON.stringify(v.args) === JSON.stringify(first.args) && v.summary === first.summary);
    return same ? first : { kind: 'external', qualname: first.qualname };
  }
  // one instance per class, declared when any source declares it
  const classes: Instance[] = [];
  for (const v0 of values) {
    const vs = isInstanceUnion(v0) ? v0.values : [v0];
    for (const v of vs) {
      if (v.kind !== 'instance') return v.kind === 'unknown' ? v : unknown(`it may be ${kindInWords(v.kind)}`);
      const at = classes.findIndex((c) => c.cls === v.cls || (c.cls.qualname === v.cls.qualname && c.cls.line === v.cls.line && c.summary.file === v.summary.file));
      // a replacement a registry hands back is a subclass; an annotation's value may be any class
      const registry = (x: Instance): boolean => !x.declared || !!x.registry;
      if (at < 0) classes.push({ kind: 'instance', cls: v.cls, summary: v.summary, declared: !!v.declared, ...(v.declared && v.registry ? { registry: true } : {}) });
      else if (v.declared) {
        const c = classes[at];
        classes[at] = { kind: 'instance', cls: c.cls, summary: c.summary, declared: true, ...(registry(c) && registry(v) ? { registry: true } : {}) };
      }
    }
  }
  if (classes.length === 1) return classes[0];
  if (classes.length > MAX_UNION) return unknown(`assigned instances of ${classes.length} classes`);
  // instances of several classes: a call on it is checked against each (see isInstanceUnion)
  return { kind: 'anyOf', values: classes };
}

/** The most classes a value may hold that a call on it is still checked against, each in turn. */
const MAX_UNION = 4;

/** A value that is an instance of one of several classes (from assignments that disagree). */
export function isInstanceUnion(v: Value): v is { kind: 'anyOf'; values: Instance[] } {
  return v.kind === 'anyOf' && v.values.length > 0 && v.values.every((x) => x.kind === 'instance');
}

/** A run-time stand-in for a name imported only for type checking: `None`, `object`, `Any`. */
function isPlaceholder(e: Expr): boolean {
  return (e.kind === 'const' && e.text === 'None') || (e.kind === 'name' && /^(object|Any)$/.test(e.name)) || (e.kind === 'attr' && dotted(e) === 'typing.Any');
}
