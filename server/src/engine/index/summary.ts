/**
 * Module summaries: what a target module binds at module level and in its class bodies, with
 * function signatures and dataclass-style fields. Bodies of functions are not kept, only a few
 * facts about them that decorator analysis needs. Trees are freed as soon as the summary is made.
 */
import { parsePython, type Node } from '../parser';
import { closingBracket, importFromText, skeletonize, type TextImport } from './skeleton';
import { annotationText, argumentNodes, dictUse, dotted, patternCaptures, type Expr, identifiersNamed, LEAF_TYPES, line1, readParams, statements, stringValue, toExpr, type Param } from '../syntax';
import { ownCopy, ownString } from '../ownStrings';

export interface FunctionInfo {
  name: string;
  params: Param[];
  decorators: Expr[];
  line: number;
  /**
   * Decorator analysis: the function returns an inner `(*args, **kwargs)` wrapper (or `(a, b,
   * *args, **kwargs)`, see `forwardedLeading`) whose every call of the decorator's first parameter
   * passes exactly those, unchanged.
   */
  forwardsWrapper: boolean;
  /** The wrapper's plain parameters before `*args`, passed on positionally in the same order (no defaults). */
  forwardedLeading?: string[];
  /**
   * Decorator analysis: called with an object (not None) as its first positional argument, the
   * function returns it on every path, never replacing or patching it (`return obj`, `return
   * _wrap if obj is None else obj`).
   */
  returnsFirstArg: boolean;
  /** Decorator factories: the inner function the body returns. */
  returnedInner?: FunctionInfo;
  /** The inner function is returned only when the first parameter is None (`@deco(key=...)` of a `def deco(obj=None, *, key)`). */
  innerIfFirstNone?: boolean;
  /** The inner function the body returns is bound by its `def` alone, never rebound in the body. */
  innerBoundOnce?: boolean;
  /** A pydantic `mode="wrap"` / `mode="before"` model validator that hands its input on unchanged. */
  passesInput?: boolean;
  /** The first statement warns with DeprecationWarning/FutureWarning: the literal message, if any. */
  deprecation?: string;
  /** The body configures pydantic with `extra="forbid"` (for dataclass_transform decorators). */
  forbidsExtra: boolean;
  /** A `(self, *args, **kwargs)` method whose body hands them unchanged to `super().<same name>(...)`. */
  forwardsToSuper: boolean;
  /** The return annotation's text (whitespace collapsed, comments dropped), if any. */
  returns?: string;
  /** An `async def`: a call gives a coroutine, and `await` gives what the annotation says. */
  isAsync?: true;
  /** Decorators that return their first parameter: the attributes they write on it (`*`: computed names). */
  patchedAttrs?: string[];
  /**
   * Decorator analysis, where `returnsFirstArg` does not hold: called with an object (not None) as
   * its first positional argument, the function hands that same object back on every path, maybe
   * after writing attributes on it (`patched`: names, `*` for computed ones, `$NAME` for a name a
   * `setattr` takes from the variable NAME), appending bases to it (`obj.__bases__ = obj.__bases__ +
   * (X,)`: `bases`), or by returning what functions it names (`through`, looked up where the
   * function is defined) return when given the object first (`return _finish(obj, options)`).
   */
  handsBack?: HandsBack;
  /** `__new__`: every `return` hands back `super().__new__(...)` or `object.__new__(...)` (an instance of the class or a subclass). */
  newBuildsInstance?: boolean;
  /** `__new__`: every `return` hands back `super().__new__(cls, ...)` or `object.__new__(cls)` with the class it was called on, never rebound (so that class's `__init__` runs next). */
  newBuildsOwn?: boolean;
  /** `__new__`: builds an instance of a class it names (`super().__new__(_Custom)`, a name its body does not bind), not of the one it was called on: that class's `__init__` runs next. */
  newBuildsOther?: string;
  /** The body (after a docstring) is `pass` or `...`: a placeholder that something else may give its meaning (see `handedToDecorator`). */
  placeholder?: boolean;
  /** `__new__`: its body (after a docstring) is one `raise`: the class cannot be built (a stub a compiler gives meaning to). */
  newRaises?: boolean;
  /** The function hands its `**kwargs` on to one call on every path that returns (see `keywordsPassedOn`). */
  passesKeywords?: PassesKeywords;
  /** A classmethod without a return annotation that returns what its class builds (see `buildsOwnClass`). */
  buildsCls?: boolean;
  /** A function without a return annotation whose every `return` gives what one call of this dotted name of its module returns (see `returnedCall`). */
  returnsCall?: string;
  /**
   * A plain function whose every `return` gives a dict display with literal keys (or `dict(k=...)`):
   * the keys all of them give, and those only some give (see `returnedDictKeys`).
   */
  returnsDict?: { keys: string[]; maybe: string[] };
}

/**
 * `def f(a, **kwargs): ... g(x=a, **kwargs)`: the keywords a call of f gives that no parameter of f
 * takes reach `g`, the callee named `to` (a name or dotted name of f's module, not a parameter or a
 * local of f), beside the keywords the forwarding call names itself (`keywords`), less the ones the
 * body may take out first (`consumed`: `kwargs.pop("k")`, `del kwargs["k"]`).
 */
export interface PassesKeywords {
  to: Expr;
  /** `super().<name>(**kwargs)` in a method: the method of that name after the method's class along the instance's MRO (`to` is then unused). */
  toSuper?: string;
  keywords: string[];
  consumed: string[];
}

export interface HandsBack {
  patched: string[];
  bases: Expr[];
  through: string[];
}

export interface FieldInfo {
  name: string;
  annotation: string;
  line: number;
  value?: Expr;
}

/**
 * A binding made by a `try:` block that only imports (and sets names to literals), or by a
 * handler of that block that catches ImportError: which of the two runs depends on whether the
 * block's imports succeed against the target (see `Program.valueOfBindings`).
 */
export interface ImportTry {
  /** The line of the `try` statement (or of an `if` that tests availability, see `availabilityTest`): the attempt and its fallbacks share it. */
  line: number;
  role: 'attempt' | 'fallback';
  /** What the block imports, in order: `import a.b` is `{module: 'a.b'}`. */
  imports: Array<{ module: string; name?: string }>;
}

export type Binding = (
  | { kind: 'def'; fn: FunctionInfo; conditional: boolean; line: number }
  | { kind: 'class'; cls: ClassInfo; conditional: boolean; line: number }
  /** `import a.b` (binds `a` to module `a`) and `import a.b as c` (binds `c` to `a.b`). */
  | { kind: 'module'; module: string; conditional: boolean; line: number }
  /** `from m import x` */
  | { kind: 'from'; module: string; name: string; conditional: boolean; line: number }
  | { kind: 'value'; expr: Expr; conditional: boolean; line: number }
  /** Bound, but to nothing the engine can follow (loop targets, unpacking, augmented assignment). */
  | { kind: 'opaque'; conditional: boolean; line: number }
) & { tryImport?: ImportTry };

export interface ClassInfo {
  name: string;
  /** Dotted name: module name plus enclosing classes. */
  qualname: string;
  module: string;
  line: number;
  bases: Expr[];
  keywords: Map<string, Expr>;
  decorators: Expr[];
  members: Map<string, Binding[]>;
  /** Annotated class-level names in order (with or without a value). */
  fields: FieldInfo[];
  /** Names assigned as `self.NAME = ...` in the class's methods. */
  instanceAttrs: Set<string>;
  /**
   * How each instance attribute is assigned in the class's methods, one entry per assignment:
   * `call:<dotted callee>` for `self.x = a.b.C(...)`, `ann:<annotation>` for `self.x: C = ...`,
   * `decl:<annotation>` for `self.x: C` and `self.x: C = None`, `with` and the descriptor of the
   * call beside the `ann:` of `self.x: C = a.b.D(...)` (`withcall:a.b.D`), `value:<a.B.c>` for `self.x = a.B.c`,
   * `self:<a.b>` for `self.x = self.a.b`, `attr:<a.b>:<annotation>` for `self.x = p.a.b` where the
   * method's parameter `p` is annotated, `selfcall:<a.m>` for `self.x = self.a.m(...)`,
   * `attrcall:<a.m>:<annotation>` for `self.x = p.a.m(...)` (what the method called returns),
   * `from:<module>:<name.a.C>` and `import:<module>:<a.C>` for `self.x = name.a.C(...)` where
   * `name` is bound by an import in the method (`from module import name`, `import module as name`),
   * the same descriptors for `self.x = y` where the method binds its local `y` once, to such a call,
   * `none` for `self.x = None`, `lit:builtins.<class>` for a literal, display or comprehension
   * (`self.x = []`, `= {}`, `= ""`, `= 0`), `global:<name>` for a name of the module (`self.x =
   * REGISTRY`), `?` for anything else (other values, augmented assignments,
   * unpacking, loop targets).
   */
  attrAssigns: Map<string, string[]>;
}

export type GetattrInfo =
  | { kind: 'none' }
  /** `lazy`: names served from a `{"Name": "module:attr"}` table, as lazy re-exports. */
  | {
      kind: 'names';
      names: Set<string>;
      line: number;
      lazy?: Map<string, string>;
      /** Names the branch that serves them takes from another module (absolute name), with the deprecation message when it warns first. */
      served?: Map<string, { module: string; attr: string; deprecated?: string }>;
    }
  | { kind: 'opaque'; line: number };

export interface ModuleSummary {
  name: string;
  isPackage: boolean;
  /** The path shown for this module's definitions. */
  file: string;
  bindings: Map<string, Binding[]>;
  /** Absolute module names of `from m import *`, in order. */
  starImports: string[];
  /** `__all__` when it is a literal; 'dynamic' when it is built some other way; null when absent. */
  all: string[] | 'dynamic' | null;
  getattr: GetattrInfo;
  /** The module writes its own namespace through globals(), vars() or sys.modules. */
  dynamic: boolean;
  /** Names bound only under `if TYPE_CHECKING:` (for explanations). */
  typeCheckingOnly: Set<string>;
  /** What `if TYPE_CHECKING:` blocks bind: annotations may name these. */
  typeCheckingBindings?: Map<string, Binding[]>;
  /** The module writes to sys.modules or touches `__path__` / import hooks: submodules may exist without files. */
  registersModules: boolean;
  /** Names whose defaults the module sets after defining them (`P.__new__.__defaults__ = ...`, `f.__kwdefaults__ = ...`). */
  defaultsSet?: string[];
  /** Names the module hands to a decorator (`@overload(f)` above another function). */
  decoratorArgs?: string[];
  /** Names a function of the module declares `global` (it may bind them in the module when it runs). */
  globalsSet?: string[];
  /**
   * Names the module declares with a bare annotation at its top level (`name: C`, also under
   * `if TYPE_CHECKING:`), with the annotation's text; '' when declared twice differently.
   */
  declared?: Map<string, string>;
}

/**
 * The module may serve names it does not bind: it writes its namespace, has a module `__getattr__`
 * the engine cannot read, or puts another module in its place in `sys.modules` (a lazily loading
 * package, whose `if TYPE_CHECKING:` imports say what it serves).
 */
export function loadsLazily(s: ModuleSummary): boolean {
  return s.dynamic || s.getattr.kind === 'opaque' || s.registersModules;
}

const DYNAMIC_NAMESPACE = /\b(globals|vars|locals)\(\)\s*(\[[^\]]*\]\s*=(?!=)|\.(update|setdefault|__setitem__)\s*\()|=\s*(globals|vars)\(\)\s*(#.*)?$|sys\.modules\[__name__\]|\._convert_\(/m;
/**
 * `sys.modules[__name__].NAME` read (not assigned, not a dunder, nothing chained onto it): the
 * module reading one of its own names adds none. Other uses of its own module object (an alias,
 * `setattr`, `.__dict__`) may.
 */
const READS_OWN_MODULE = /\bsys\.modules\[__name__\]\s*\.\s*(?!__)[A-Za-z_]\w*(?!\w)(?!\s*(?:=(?!=)|\.|\[|\(|(?:\*\*|\/\/|>>|<<|[-+*\/%&|^@])=))/g;
/**
 * The module's own entry in `sys.modules` written by its name (`del sys.modules["pkg.reactor"]`,
 * `sys.modules["pkg.reactor"] = obj`, `sys.modules.pop("pkg.reactor")`), as `sys.modules[__name__]`
 * is: the module takes itself out of (or puts something else into) the place importers read it
 * from, so what they get may have any attribute.
 */
function ownEntryNamed(text: string, name: string): string {
  if (!name || !text.includes(name)) return text;
  const quoted = name.replace(/\./g, '\\.');
  return text.replace(new RegExp(`\\bsys\\.modules(?:\\[\\s*(['"])${quoted}\\1\\s*\\]|\\.pop\\(\\s*(['"])${quoted}\\2[^)]*\\))`, 'g'), 'sys.modules[__name__]');
}

/** `if name in globals(): globals()[name] = ...` rebinds a name the module already has: it adds none. */
const REBINDS_GLOBAL = /\b(?:el)?if\s+(\w+)\s+in\s+globals\(\)\s*:[ \t]*(#.*)?\r?\n\s*globals\(\)\[\s*\1\s*\]\s*=(?!=)/g;
/**
 * The module puts entries into sys.modules itself (e.g. a submodule that is an alias), or changes
 * where its submodules are found (`__path__`, import hooks).
 */
const REGISTERS_MODULES = /\bmodules\s*\[[^\]]+\]\s*=(?!=)|\b__path__\b|\bsys\.(meta_path|path_hooks)\b/;

/** Resolves `from ..x import y` against the importing module. */
export function resolveRelative(current: string, isPackage: boolean, level: number, rest: string): string | undefined {
  const parts = current.split('.');
  if (!isPackage) parts.pop();
  for (let i = 1; i < level; i++) {
    if (parts.length === 0) return undefined;
    parts.pop();
  }
  if (rest) parts.push(rest);
  return parts.length ? parts.join('.') : undefined;
}

function isMainGuard(node: Node | null): boolean {
  return !!node && /^__name__==(['"])__main__\1$/.test(node.text.replace(/\s+/g, ''));
}

function isTypeCheckingTest(node: Node | null): boolean {
  if (!node) return false;
  const t = node.text.replace(/\s+/g, '');
  return t === 'TYPE_CHECKING' || t === 'typing.TYPE_CHECKING' || t === 't.TYPE_CHECKING';
}

export function addBinding(map: Map<string, Binding[]>, name: string, b: Binding): void {
  const list = map.get(name);
  if (!list || !b.conditional) map.set(name, [b]);
  else list.push(b);
}

/** Reads the import statements of a module or function body into bindings. */
export function importBindings(
  stmt: Node,
  current: { name: string; isPackage: boolean },
  conditional: boolean,
  onStar: (module: string) => void,
): Array<[string, Binding]> {
  const out: Array<[string, Binding]> = [];
  const line = line1(stmt);
  if (stmt.type === 'import_statement') {
    for (const c of stmt.namedChildren) {
      if (!c) continue;
      if (c.type === 'dotted_name') {
        const full = c.text.replace(/\s+/g, '');
        out.push([full.split('.')[0], { kind: 'module', module: full.split('.')[0], conditional, line }]);
      } else if (c.type === 'aliased_import') {
        const full = c.childForFieldName('name')?.text.replace(/\s+/g, '');
        const alias = c.childForFieldName('alias')?.text;
        if (full && alias) out.push([alias, { kind: 'module', module: full, conditional, line }]);
      }
    }
  } else if (stmt.type === 'import_from_statement') {
    const modNode = stmt.childForFieldName('module_name');
    const module = modNode ? absoluteModule(modNode, current) : undefined;
    if (!module) return out;
    if (stmt.namedChildren.some((c) => c?.type === 'wildcard_import')) {
      onStar(module);
      return out;
    }
    for (const c of stmt.childrenForFieldName('name')) {
      if (!c) continue;
      if (c.type === 'dotted_name') {
        out.push([c.text, { kind: 'from', module, name: c.text, conditional, line }]);
      } else if (c.type === 'aliased_import') {
        const name = c.childForFieldName('name')?.text;
        const alias = c.childForFieldName('alias')?.text;
        if (name && alias) out.push([alias, { kind: 'from', module, name, conditional, line }]);
      }
    }
  }
  return out;
}

/** The same for an import the skeleton read off the text. */
function textImportBindings(imp: TextImport, line: number, current: { name: string; isPackage: boolean }, conditional: boolean, onStar: (module: string) => void): Array<[string, Binding]> {
  const out: Array<[string, Binding]> = [];
  if (!imp.from) {
    for (const [full, alias] of imp.names) {
      if (alias) out.push([alias, { kind: 'module', module: full, conditional, line }]);
      else out.push([full.split('.')[0], { kind: 'module', module: full.split('.')[0], conditional, line }]);
    }
    return out;
  }
  const module = imp.from.level > 0 ? resolveRelative(current.name, current.isPackage, imp.from.level, imp.from.module) : imp.from.module;
  if (!module) return out;
  if (imp.star) {
    onStar(module);
    return out;
  }
  for (const [name, alias] of imp.names) out.push([alias ?? name, { kind: 'from', module, name, conditional, line }]);
  return out;
}

export function absoluteModule(modNode: Node, current: { name: string; isPackage: boolean }): string | undefined {
  if (modNode.type === 'relative_import') {
    let level = 0;
    let rest = '';
    for (const c of modNode.children) {
      if (!c) continue;
      if (c.type === 'import_prefix') level = c.text.replace(/\s+/g, '').length;
      else if (c.type === 'dotted_name') rest = c.text.replace(/\s+/g, '');
    }
    return resolveRelative(current.name, current.isPackage, level, rest);
  }
  return modNode.text.replace(/\s+/g, '');
}

function identifierTargets(node: Node, out: string[]): void {
  if (node.type === 'identifier') out.push(node.text);
  else if (['pattern_list', 'tuple_pattern', 'list_pattern', 'expression_list', 'tuple', 'list', 'parenthesized_expression', 'list_splat_pattern'].includes(node.type)) {
    for (const c of node.namedChildren) if (c) identifierTargets(c, out);
  }
}

function decoratorsOf(node: Node): Expr[] {
  if (node.type !== 'decorated_definition') return [];
  return node.namedChildren
    .filter((c): c is Node => !!c && c.type === 'decorator')
    .map((d) => toExpr(d.namedChildren.find((x) => x && x.type !== 'comment') ?? null));
}

function definitionOf(node: Node): Node | null {
  return node.type === 'decorated_definition' ? node.childForFieldName('definition') : node;
}

export function isOverload(decorators: Expr[]): boolean {
  return decorators.some((d) => {
    const n = dotted(d);
    return n === 'overload' || n === 'typing.overload' || n === 'typing_extensions.overload' || n === 't.overload';
  });
}

// ---- function body facts (decorator analysis, deprecations) ----

/** Every occurrence of identifier `name` inside `body` is the star argument of a call of `fn`. */
function onlyForwarded(body: Node, name: string, star: 'list_splat' | 'dictionary_splat', fn: string): boolean {
  let ok = true;
  let seen = false;
  const visit = (n: Node): void => {
    if (!ok) return;
    if (n.type === 'identifier' && n.text === name) {
      seen = true;
      const parent = n.parent;
      const call = parent?.parent?.parent;
      if (parent?.type !== star || parent.parent?.type !== 'argument_list' || call?.type !== 'call' || call.childForFieldName('function')?.text !== fn) ok = false;
      return;
    }
    for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(body);
  return ok && seen;
}

/** Every call of `fn` in a body passes exactly `args` (argument texts, in order), and nothing else. */
function forwardingCalls(body: Node, fn: string, args: string[]): boolean {
  let ok = true;
  const visit = (n: Node): void => {
    if (!ok) return;
    if (n.type === 'call' && n.childForFieldName('function')?.text === fn) {
      const list = n.childForFieldName('arguments');
      const got = list?.type === 'argument_list' ? list.namedChildren.filter((c): c is Node => !!c && c.type !== 'comment').map((c) => c.text.replace(/\s+/g, '')) : undefined;
      if (!got || got.length !== args.length || got.some((a, i) => a !== args[i])) ok = false;
    }
    for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(body);
  return ok;
}

/** The attributes a body writes on `name` (`name.x = ...`, `setattr(name, "x", ...)`; `*` for a computed name). */
function attributesWritten(body: Node, name: string): string[] {
  const out = new Set<string>();
  const visit = (n: Node): void => {
    if (n.type === 'assignment' || n.type === 'augmented_assignment') {
      const m = /^(\w+)\.(\w+)$/.exec(n.childForFieldName('left')?.text.replace(/\s+/g, '') ?? '');
      if (m && m[1] === name) out.add(m[2]);
    }
    if (n.type === 'call') {
      const f = n.childForFieldName('function')?.text;
      const args = n.childForFieldName('arguments')?.namedChildren ?? [];
      if ((f === 'setattr' || f === 'type.__setattr__') && args[0]?.text === name) {
        const lit = args[1] ? stringValue(args[1]) : undefined;
        out.add(lit ?? (args[1]?.type === 'identifier' ? `$${args[1].text}` : '*'));
      }
    }
    for (const c of n.namedChildren) if (c && c.type !== 'function_definition' && c.type !== 'class_definition') visit(c);
  };
  visit(body);
  return [...out].sort();
}

/**
 * The body rebinds `name`, or patches what calling it does (`name.__init__ = ...`, `setattr(name,
 * ...)`); with `namesOnly`, only whether it rebinds the name.
 */
function patchesOrRebinds(body: Node, name: string, namesOnly = false): boolean {
  let found = false;
  const bindsName = (target: Node | null): void => {
    if (!target) return;
    if (target.type === 'identifier') {
      if (target.text === name) found = true;
      return;
    }
    if (target.type === 'attribute') {
      if (namesOnly) return;
      const t = target.text.replace(/\s+/g, '');
      if (t.startsWith(name + '.') && /^(\w+)\.(__init__|__new__|__call__|__signature__|__defaults__|__kwdefaults__|__code__|__wrapped__|__bases__|__class__|__dict__)$/.test(t)) found = true;
      return;
    }
    if (target.type === 'subscript') return;
    for (const c of target.namedChildren) if (c) bindsName(c);
  };
  const visit = (n: Node): void => {
    if (found) return;
    if (n.type === 'assignment' || n.type === 'augmented_assignment' || n.type === 'for_statement' || n.type === 'for_in_clause') bindsName(n.childForFieldName('left'));
    else if (n.type === 'named_expression') bindsName(n.childForFieldName('name'));
    else if (n.type === 'as_pattern_target' || n.type === 'delete_statement') bindsName(n);
    else if (n.type === 'global_statement' || n.type === 'nonlocal_statement') {
      if (n.namedChildren.some((c) => c?.text === name)) found = true;
    }
    if (n.type === 'call') {
      const f = n.childForFieldName('function')?.text;
      const first = n.childForFieldName('arguments')?.namedChildren[0];
      if (!namesOnly && (f === 'setattr' || f === 'type.__setattr__' || f === 'object.__setattr__') && first?.text === name) found = true;
    }
    for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(body);
  return found;
}

// ---- what a function returns, for decorator analysis ----

/** `x is None` (true), `x is not None` (false) for identifier `x`; undefined for any other test. */
function noneTest(cond: Node | null, name: string): boolean | undefined {
  if (!cond || cond.type !== 'comparison_operator') return undefined;
  const parts = cond.namedChildren.filter((c): c is Node => !!c);
  if (parts.length !== 2 || parts[0].type !== 'identifier' || parts[0].text !== name || parts[1].type !== 'none') return undefined;
  const op = cond.children.filter((c) => c && !c.isNamed).map((c) => c!.text).join(' ');
  return op === 'is' ? true : op === 'is not' ? false : undefined;
}

/** Whether `first is None` holds where a return stands: true, false, or undefined (either). */
type Assumption = boolean | undefined;

interface ReturnSite {
  value: Node | null;
  assume: Assumption;
}

const NESTED_SCOPES = new Set(['function_definition', 'class_definition', 'lambda', 'decorated_definition']);

/** Statements that hold no block (see `returnSites`). */
const SIMPLE_STATEMENTS = new Set(['expression_statement', 'assert_statement', 'delete_statement', 'pass_statement', 'raise_statement', 'global_statement', 'nonlocal_statement', 'import_statement', 'import_from_statement', 'future_import_statement', 'break_statement', 'continue_statement', 'type_alias_statement']);
/** Words without which a statement holds no return, yield or await. */
const RETURN_WORDS = /\b(?:return|yield|await)\b/;

/**
 * The return statements of a body (outside nested functions and classes), each with what is
 * known of `first is None` where it stands; undefined when the body yields (a generator).
 */
function returnSites(body: Node, first: string): ReturnSite[] | undefined {
  const out: ReturnSite[] = [];
  let generator = false;
  const visit = (n: Node, assume: Assumption): void => {
    if (generator) return;
    // a simple statement without these words holds no return, yield or await: not walked
    if (SIMPLE_STATEMENTS.has(n.type) && !RETURN_WORDS.test(n.text)) return;
    if (n.type === 'yield' || n.type === 'await') {
      generator = true;
      return;
    }
    if (n.type === 'return_statement') {
      out.push({ value: n.namedChildren[0] ?? null, assume });
      return;
    }
    if (NESTED_SCOPES.has(n.type) || LEAF_TYPES.has(n.type)) return;
    if (n.type === 'if_statement') {
      const t = noneTest(n.childForFieldName('condition'), first);
      const inside: Assumption = t === undefined ? assume : t;
      const other: Assumption = t === undefined ? assume : !t;
      if (assume !== undefined && t !== undefined && inside !== assume) {
        // a branch that cannot run under what is already known: nothing in it returns
      } else visit(n.childForFieldName('consequence')!, inside);
      for (const alt of n.childrenForFieldName('alternative')) {
        if (!alt) continue;
        if (assume !== undefined && t !== undefined && other !== assume) continue;
        for (const c of alt.namedChildren) if (c) visit(c, other);
      }
      return;
    }
    if (n.type === 'block') {
      visitBlock(statements(n), assume);
      return;
    }
    for (const c of n.namedChildren) if (c) visit(c, assume);
  };
  // after `if first is None: ... return` (no else), the rest of the block runs with the opposite
  const visitBlock = (stmts: Node[], assume: Assumption): void => {
    for (const s of stmts) {
      visit(s, assume);
      if (assume !== undefined || s.type !== 'if_statement' || s.childrenForFieldName('alternative').some((a) => !!a)) continue;
      const t = noneTest(s.childForFieldName('condition'), first);
      const consequence = s.childForFieldName('consequence');
      if (t !== undefined && consequence && endsWithExit(statements(consequence))) assume = !t;
    }
  };
  visitBlock(statements(body), undefined);
  return generator ? undefined : out;
}

/** The name a returned expression evaluates to when `first is None` is `assume`: a bare name, or a branch of `a if first is None else b`. */
function returnedName(value: Node | null, first: string, assume: Assumption, identities?: Set<string>): string | undefined {
  if (!value) return undefined;
  if (value.type === 'identifier') return value.text;
  // `inner(first)` where the nested function `inner` hands back its argument
  if (value.type === 'call' && identities?.size) {
    const fn = value.childForFieldName('function');
    const args = argumentNodes(value.childForFieldName('arguments'));
    if (fn?.type === 'identifier' && identities.has(fn.text) && args?.length === 1 && args[0].type === 'identifier' && args[0].text === first) return first;
    return undefined;
  }
  if (value.type !== 'conditional_expression') return undefined;
  const [a, cond, b] = value.namedChildren;
  if (!a || !cond || !b) return undefined;
  const t = noneTest(cond, first);
  const pick = (n: Node): string | undefined => (n.type === 'identifier' ? n.text : undefined);
  if (t === undefined || assume === undefined) {
    const x = pick(a);
    return x !== undefined && x === pick(b) ? x : undefined;
  }
  return pick(t === assume ? a : b);
}

/**
 * A block cannot run off its end: its last statement returns or raises, or is an `if` with an
 * `else` whose every branch cannot either.
 */
function endsWithExit(stmts: Node[]): boolean {
  const last = stmts[stmts.length - 1];
  if (!last) return false;
  if (last.type === 'return_statement' || last.type === 'raise_statement') return true;
  if (last.type !== 'if_statement') return false;
  const blocks = [last.childForFieldName('consequence')];
  let hasElse = false;
  for (const alt of last.childrenForFieldName('alternative')) {
    if (!alt) continue;
    if (alt.type === 'else_clause') hasElse = true;
    blocks.push(alt.childForFieldName(alt.type === 'else_clause' ? 'body' : 'consequence'));
  }
  return hasElse && blocks.every((b) => !!b && endsWithExit(statements(b)));
}

/** The one name every return reachable under `assume` gives, provided the body cannot run off its end. */
function soleReturned(body: Node, sites: ReturnSite[], first: string, assume: Assumption, identities?: Set<string>): string | undefined {
  if (!endsWithExit(statements(body))) return undefined;
  let name: string | undefined;
  for (const s of sites) {
    if (assume !== undefined && s.assume !== undefined && s.assume !== assume) continue;
    const n = returnedName(s.value, first, assume ?? s.assume, identities);
    if (n === undefined || (name !== undefined && n !== name)) return undefined;
    name = n;
  }
  return name;
}

// ---- pydantic validators that pass their input through ----

/** Methods of a mapping that only read it. */
const READ_METHODS = new Set(['get', 'keys', 'items', 'values', 'copy', '__contains__', '__getitem__']);
/** Builtins that only read their argument. */
const READ_FUNCTIONS = new Set(['isinstance', 'len', 'type', 'hasattr', 'getattr', 'bool', 'repr', 'str', 'id', 'callable']);

/** Every use of `name` in `body` reads it: never rebinds, mutates or hands it to code that could. */
function onlyRead(body: Node, name: string): boolean {
  let ok = true;
  const visit = (n: Node): void => {
    if (!ok) return;
    if (n.type === 'identifier' && n.text === name) {
      ok = readUse(n);
      return;
    }
    for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(body);
  return ok;
}

function readUse(n: Node): boolean {
  const p = n.parent;
  if (!p) return false;
  switch (p.type) {
    case 'return_statement':
    case 'raise_statement':
    case 'comparison_operator':
    case 'not_operator':
    case 'boolean_operator':
      return true;
    case 'if_statement':
    case 'elif_clause':
    case 'while_statement':
      return p.childForFieldName('condition')?.id === n.id;
    case 'for_statement':
    case 'for_in_clause':
      return p.childForFieldName('right')?.id === n.id;
    case 'attribute': {
      const call = p.parent;
      return p.childForFieldName('object')?.id === n.id && call?.type === 'call' && call.childForFieldName('function')?.id === p.id && READ_METHODS.has(p.childForFieldName('attribute')?.text ?? '');
    }
    case 'subscript': {
      if (p.childForFieldName('value')?.id !== n.id) return false;
      const q = p.parent;
      if (q && (q.type === 'assignment' || q.type === 'augmented_assignment') && q.childForFieldName('left')?.id === p.id) return false;
      return q?.type !== 'delete_statement' && q?.type !== 'expression_list';
    }
    case 'argument_list': {
      const call = p.parent;
      const f = call?.childForFieldName('function');
      return call?.type === 'call' && f?.type === 'identifier' && READ_FUNCTIONS.has(f.text);
    }
    default:
      return false;
  }
}

/** The identifiers a statement mentions (outside strings). */
function mentions(n: Node, names: string[]): boolean {
  if (n.type === 'identifier') return names.includes(n.text);
  for (const c of n.namedChildren) if (c && mentions(c, names)) return true;
  return false;
}

function hasReturn(n: Node): boolean {
  if (n.type === 'return_statement' || n.type === 'yield') return true;
  if (NESTED_SCOPES.has(n.type)) return false;
  for (const c of n.namedChildren) if (c && hasReturn(c)) return true;
  return false;
}

/** `handler(value)`, exactly. */
function isHandlerCall(n: Node | null | undefined, handler: string, value: string): boolean {
  if (!n || n.type !== 'call') return false;
  const f = n.childForFieldName('function');
  const args = argumentNodes(n.childForFieldName('arguments'));
  return f?.type === 'identifier' && f.text === handler && args.length === 1 && args[0]?.type === 'identifier' && args[0].text === value;
}

/** The mode of a pydantic model validator among the decorators: 'wrap', 'before', 'other', or undefined when there is none. */
export function validatorMode(decorators: Expr[]): 'wrap' | 'before' | 'other' | undefined {
  let mode: 'wrap' | 'before' | 'other' | undefined;
  for (const d of decorators) {
    if (d.kind !== 'call') continue;
    const n = dotted(d.callee)?.split('.').pop();
    if (n !== 'model_validator' && n !== 'root_validator') continue;
    if (mode) return 'other';
    const m = d.args.find((a) => a.name === 'mode')?.value;
    const pre = d.args.find((a) => a.name === 'pre')?.value;
    if (n === 'model_validator') mode = m?.kind === 'str' && (m.value === 'wrap' || m.value === 'before') ? m.value : 'other';
    else mode = pre?.kind === 'const' && pre.text === 'True' ? 'before' : 'other';
  }
  return mode;
}

/**
 * A `mode="wrap"` validator whose body first calls `handler(<its input>)` unconditionally, before
 * anything touches the input or returns; a `mode="before"` one that returns its input unchanged
 * on every path. Neither can supply a missing field.
 */
function passesInput(def: Node, body: Node, params: Param[], decorators: Expr[]): boolean {
  const mode = validatorMode(decorators);
  if (mode !== 'wrap' && mode !== 'before') return false;
  const names = decorators.map((d) => dotted(d.kind === 'call' ? d.callee : d)?.split('.').pop());
  if (names.includes('staticmethod') || def.children[0]?.type === 'async') return false;
  if (!names.includes('classmethod') && params[0]?.name !== 'cls') return false;
  const [value, handler] = params.slice(1);
  const positional = (p: Param | undefined): boolean => !!p && (p.kind === 'normal' || p.kind === 'posonly');
  if (!positional(value)) return false;
  const stmts = statements(body);
  if (mode === 'wrap') {
    if (!positional(handler)) return false;
    for (const s of stmts) {
      const e = s.type === 'expression_statement' ? s.namedChildren[0] : s.type === 'return_statement' ? s : null;
      const call = e?.type === 'assignment' ? e.childForFieldName('right') : e?.type === 'return_statement' ? e.namedChildren[0] : e;
      if (isHandlerCall(call, handler.name, value.name)) return true;
      if (s.type === 'expression_statement' && s.namedChildren[0]?.type === 'string') continue; // a docstring
      if (mentions(s, [value.name, handler.name]) || hasReturn(s)) return false;
    }
    return false;
  }
  const sites = returnSites(body, value.name);
  if (!sites || soleReturned(body, sites, value.name, undefined) !== value.name) return false;
  return onlyRead(body, value.name);
}

function deprecationOf(stmts: Node[]): string | undefined {
  let i = 0;
  if (stmts[0]?.type === 'expression_statement' && stmts[0].namedChildren[0]?.type === 'string') i = 1;
  const s = stmts[i];
  if (!s || s.type !== 'expression_statement') return undefined;
  const call = s.namedChildren[0];
  if (!call || call.type !== 'call') return undefined;
  const fn = call.childForFieldName('function')?.text.replace(/\s+/g, '');
  if (fn !== 'warnings.warn' && fn !== 'warn' && fn !== '_warnings.warn') return undefined;
  const text = call.childForFieldName('arguments')?.text ?? '';
  if (!/\b(DeprecationWarning|FutureWarning|PendingDeprecationWarning)\b/.test(text)) return undefined;
  if (/PendingDeprecationWarning/.test(text)) return undefined;
  const first = call.childForFieldName('arguments')?.namedChildren[0];
  return (first && stringValue(first)) ?? 'deprecated';
}

/** Which parameter takes a call's first argument: the second in a classmethod (after `cls`), else the first. */
export function firstArgument(decorators: Expr[]): number {
  return decorators.some((d) => dotted(d.kind === 'call' ? d.callee : d)?.split('.').pop() === 'classmethod') ? 1 : 0;
}

/**
 * The keys of the dicts a function body returns, read off its text (the same whether the skeleton
 * emptied the body or not), where each of its `return` statements gives a dict display whose keys
 * are plain string literals, or `dict(k=...)`, and nothing else follows on its line: `keys` every
 * one gives, `maybe` the ones only some give. A body with `yield`, or with a function, class or
 * lambda inside (whose returns are their own), gives none. Triple-quoted strings are set aside first.
 */
const RETURNS_DICT = /\breturn[ \t]+(\{|dict\()/;

function returnedDictKeys(raw: string): { keys: string[]; maybe: string[] } | undefined {
  const text = raw.replace(/"""[\s\S]*?"""|'''[\s\S]*?'''/g, '""');
  if (/\b(yield|def|lambda|class)\b/.test(text)) return undefined;
  // every `return` must open its line (`if x: return {...}` is not read: none is)
  const returns = [...text.matchAll(/(?:^|\n)[ \t]*return\b[ \t]*/g)];
  if (returns.length !== (text.match(/\breturn\b/g) ?? []).length) return undefined;
  let keys: Set<string> | undefined;
  const all = new Set<string>();
  for (const m of returns) {
    const at = m.index! + m[0].length;
    const open = text[at] === '{' ? at : text.startsWith('dict(', at) ? at + 4 : -1;
    if (open < 0) return undefined;
    const close = closingBracket(text, open, text.length);
    if (close < 0 || !/^[ \t]*(#[^\n]*)?(\n|$)/.test(text.slice(close + 1))) return undefined;
    const got: string[] = [];
    for (const entry of topLevelParts(text.slice(open + 1, close))) {
      const k = text[open] === '{' ? /^(["'])([A-Za-z_]\w*)\1\s*:/.exec(entry)?.[2] : /^([A-Za-z_]\w*)\s*=(?!=)/.exec(entry)?.[1];
      if (!k) return undefined;
      got.push(k);
    }
    for (const k of got) all.add(k);
    keys = keys ? new Set([...keys].filter((k) => got.includes(k))) : new Set(got);
  }
  if (!keys) return undefined;
  return { keys: [...keys], maybe: [...all].filter((k) => !keys!.has(k)) };
}

/** The comma-separated parts of a bracket's content at its own level (empty ones left out), trimmed. */
function topLevelParts(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (c === '"' || c === "'") {
      i++;
      while (i < inner.length && inner[i] !== c) i += inner[i] === '\\' ? 2 : 1;
    } else if (c === '#') {
      while (i < inner.length && inner[i] !== '\n') i++;
    } else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if ((c === ',' && depth === 0) || i === inner.length) {
      const part = inner.slice(start, i).replace(/^(\s|#[^\n]*)+/, '').trim();
      if (part) parts.push(part);
      start = i + 1;
    }
  }
  return parts;
}

export function functionInfo(def: Node, decorators: Expr[], withBodyFacts: boolean): FunctionInfo {
  const name = def.childForFieldName('name')?.text ?? '?';
  const params = paramsOf(def);
  const info: FunctionInfo = { name, params, decorators, line: line1(def), forwardsWrapper: false, returnsFirstArg: false, forbidsExtra: false, forwardsToSuper: false };
  const returns = returnsOf(def);
  if (returns) info.returns = returns;
  if (def.children[0]?.type === 'async') info.isAsync = true;
  if (!withBodyFacts) return info;
  // a body the skeleton emptied is `...` in the tree: only its raw text has facts
  const emptied = rawBodies?.has(def.startPosition.row) ?? false;
  const body = emptied ? null : def.childForFieldName('body');
  if (!emptied && !body) return info;
  const va = params.find((p) => p.kind === 'varargs')?.name;
  const vk = params.find((p) => p.kind === 'varkw')?.name;
  if (va && vk && params.length === 3) {
    const text = bodyText(def);
    const call = new RegExp(`\\b(super\\(\\)\\.${name}|type\\.${name}\\(\\s*${params[0].name}\\s*,)\\s*\\(?\\s*\\*${va}\\s*,\\s*\\*\\*${vk}\\s*\\)`);
    const rebinds = new RegExp(`\\b(${va}|${vk})\\s*(=[^=]|\\[|\\.(pop|update|setdefault|clear)\\b)`);
    info.forwardsToSuper = call.test(text) && !rebinds.test(text);
  }
  if (decorators.length > 0) info.forbidsExtra = /\bextra\s*=\s*["']forbid["']/.test(bodyText(def));
  if (name === '__new__') {
    const raw = bodyText(def);
    const returns = [...raw.matchAll(/^[ \t]*return\b(.*)$/gm)].map((m) => m[1].trim());
    const cls = params[0]?.kind === 'normal' || params[0]?.kind === 'posonly' ? params[0].name : undefined;
    if (returns.length > 0 && returns.every((r) => /^(super\(\s*(\w+\s*,\s*\w+\s*)?\)|object)\.__new__\(/.test(r))) info.newBuildsInstance = true;
    // `object.__new__(cls)` with the class it was called on; after `cls = Sub` it builds a Sub,
    // whose own __init__ then runs
    const builds = cls ? new RegExp(`^(super\\(\\s*(\\w+\\s*,\\s*${cls}\\s*)?\\)|object)\\.__new__\\(\\s*${cls}\\s*[,)]`) : undefined;
    if (builds && returns.length > 0 && returns.every((r) => builds.test(r)) && !rebinds(raw, cls!)) info.newBuildsOwn = true;
    if (/^\s*(?:[rRbBuU]{0,2}("""|'''|"|')[\s\S]*?\1\s*)?raise\b[^\n]*\s*$/.test(raw)) info.newRaises = true;
    // `cls = TimeGrouper` before `super().__new__(cls)`: the class built may be another one
    const chosen = cls && rebinds(raw, cls) ? new RegExp(`^[ \\t]*${cls}[ \\t]*=[ \\t]*([A-Za-z_][\\w.]*)[ \\t]*(#.*)?$`, 'm').exec(raw) : undefined;
    if (chosen && chosen[1] !== cls) info.newBuildsOther = chosen[1];
    const other = cls ? new RegExp(`\\.__new__\\(\\s*(?!${cls}\\s*[,)])([A-Za-z_][\\w.]*)\\s*[,)]`).exec(raw) : undefined;
    // (a name the body binds, as a class looked up in a registry, may be the class itself or a
    // subclass: see `newBuildsInstance`)
    if (other && !new RegExp(`(?<![\\w.])${other[1].replace(/\./g, '\\.')}[ \\t]*(?::[^=\\n]*)?=(?!=)`).test(raw)) info.newBuildsOther = other[1];
  }
  if (!returns && def.children[0]?.type !== 'async') {
    // what a function without a return annotation returns, where every `return` says the same
    const raw = bodyText(def);
    const names = params.map((p) => p.name);
    const p0 = params[0];
    const classmethod = decorators.some((d) => d.kind === 'name' && d.name === 'classmethod');
    if (classmethod && p0 && (p0.kind === 'normal' || p0.kind === 'posonly') && buildsOwnClass(raw, names)) info.buildsCls = true;
    else {
      const callee = returnedCall(raw, names);
      if (callee) info.returnsCall = callee;
    }
  }
  // most bodies return no dict display: the comment-free text is made only for those that may
  if (!info.isAsync && RETURNS_DICT.test(rawBodies?.get(def.startPosition.row) ?? body?.text ?? '')) {
    const dict = returnedDictKeys(bodyText(def));
    if (dict) info.returnsDict = dict;
  }
  {
    const raw = bodyText(def);
    if (raw.length < 2000 && /^\s*(?:[rRbBuU]{0,2}("""|'''|"|')[\s\S]*?\1\s*)?(?:pass|\.\.\.)\s*$/.test(raw)) info.placeholder = true;
  }
  if (!body) return info;
  const stmts = statements(body);
  info.deprecation = deprecationOf(stmts);
  const passed = def.children[0]?.type === 'async' ? undefined : keywordsPassedOn(body, stmts, params);
  if (passed) info.passesKeywords = passed;
  // the first argument a call passes: after `cls` in a classmethod (`@Registry.register` hands the class there)
  const p0 = params[firstArgument(decorators)];
  const first = p0 && (p0.kind === 'normal' || p0.kind === 'posonly') ? p0.name : undefined;
  if (passesInput(def, body, params, decorators)) info.passesInput = true;
  const sites = def.children[0]?.type === 'async' ? undefined : returnSites(body, first ?? '');
  if (!sites) return info;
  // nested functions that hand back their argument, called on the first one (`return deco(obj)`)
  const identities = new Map<string, FunctionInfo>();
  if (first) {
    const raw = bodyText(def);
    for (const s of stmts) {
      const d = definitionOf(s);
      const nm = d?.type === 'function_definition' ? d.childForFieldName('name')?.text : undefined;
      if (!d || !nm || !new RegExp(`\\breturn\\s+${nm}\\s*\\(\\s*${first}\\s*\\)`).test(raw) || rebinds(raw, nm)) continue;
      const decos = decoratorsOf(s);
      const fi = decos.length === 0 ? functionInfo(d, decos, true) : undefined;
      if (fi?.returnsFirstArg) identities.set(nm, fi);
    }
  }
  const identityNames = new Set(identities.keys());
  if (first && soleReturned(body, sites, first, false, identityNames) === first && !patchesOrRebinds(body, first)) {
    info.returnsFirstArg = true;
    const patched = new Set(attributesWritten(body, first));
    // what the nested function it calls writes on the object
    for (const fi of identities.values()) for (const a of fi.patchedAttrs ?? []) patched.add(a);
    if (patched.size) info.patchedAttrs = [...patched].sort();
  }
  if (first && !info.returnsFirstArg) {
    const hb = handsBackOf(body, stmts, sites, first, new Set(params.map((p) => p.name)));
    if (hb) info.handsBack = hb;
  }
  let innerName = soleReturned(body, sites, first ?? '', undefined);
  let whenNone = false;
  if (first && (innerName === undefined || innerName === first) && p0.defaultText === 'None') {
    innerName = soleReturned(body, sites, first, true);
    whenNone = true;
  }
  if (innerName === undefined || innerName === first) return info;
  for (const s of stmts) {
    const d = definitionOf(s);
    if (d?.type === 'function_definition' && d.childForFieldName('name')?.text === innerName) {
      info.returnedInner = functionInfo(d, decoratorsOf(s), true);
      if (whenNone) info.innerIfFirstNone = true;
      // the name is bound by that def alone (not wrapped or replaced after it)
      if (!rebinds(body.text, innerName) && stmts.filter((x) => definitionOf(x)?.type === 'function_definition' && definitionOf(x)?.childForFieldName('name')?.text === innerName).length === 1) info.innerBoundOnce = true;
      const ip = info.returnedInner.params;
      const innerBody = d.childForFieldName('body');
      info.forwardsWrapper = false;
      const n = ip.length;
      const lead = ip.slice(0, -2);
      if (
        first &&
        !whenNone &&
        innerBody &&
        n >= 2 &&
        ip[n - 2].kind === 'varargs' &&
        ip[n - 1].kind === 'varkw' &&
        lead.every((p) => p.kind === 'normal' && !p.hasDefault && !rebinds(bodyText(d), p.name))
      ) {
        info.forwardsWrapper =
          onlyForwarded(innerBody, ip[n - 2].name, 'list_splat', first) &&
          onlyForwarded(innerBody, ip[n - 1].name, 'dictionary_splat', first) &&
          forwardingCalls(innerBody, first, [...lead.map((p) => p.name), `*${ip[n - 2].name}`, `**${ip[n - 1].name}`]) &&
          !patchesOrRebinds(body, first);
        if (info.forwardsWrapper && lead.length) info.forwardedLeading = lead.map((p) => p.name);
      }
    }
  }
  return info;
}

/**
 * See `FunctionInfo.passesKeywords`. The body uses its `**kwargs` dict only to read it, to add
 * keys, to take literal keys out (`pop("k")`, `del kwargs["k"]`) and, once, as `**kwargs` in a call
 * that is a statement of the body's own level (`g(**kwargs)`, `x = g(**kwargs)`, `return
 * g(**kwargs)`), which no `return` comes before; the function is no generator. Any other use (the
 * dict passed on as a value, rebound, popped or subscripted by a computed key, a second `**kwargs`)
 * says nothing.
 */
function keywordsPassedOn(body: Node, stmts: Node[], params: Param[]): PassesKeywords | undefined {
  const vk = params.find((p) => p.kind === 'varkw')?.name;
  if (!vk || !body.text.includes(`**${vk}`) || /\byield\b/.test(body.text)) return undefined;
  let forward: Node | undefined;
  const consumed: string[] = [];
  for (const id of identifiersNamed(body, vk)) {
    const use = dictUse(id);
    if (use?.kind === 'splat' && use.call && !forward) {
      forward = use.call;
      continue;
    }
    if (use?.kind !== 'read' && use?.kind !== 'add' && use?.kind !== 'take') return undefined;
    if (use.key === undefined && (use.subscript || use.kind === 'take')) return undefined;
    if (use.kind === 'take') consumed.push(use.key!);
  }
  if (!forward) return undefined;
  const at = stmts.findIndex((s) => s.startIndex <= forward!.startIndex && forward!.endIndex <= s.endIndex);
  if (at < 0) return undefined;
  const top = stmts[at];
  const value = top.type === 'return_statement' ? top.namedChildren.find((c) => c && c.type !== 'comment') : top.type === 'expression_statement' ? top.namedChildren[0] : undefined;
  const call = value?.type === 'assignment' ? value.childForFieldName('right') : value;
  if (call?.id !== forward.id) return undefined;
  for (let i = 0; i < at; i++) if (returnsHere(stmts[i])) return undefined;
  const fn = forward.childForFieldName('function');
  if (!fn) return undefined;
  const sup = /^super\(\s*\)\.([A-Za-z_]\w*)$/.exec(fn.text)?.[1];
  if (sup && rebinds(body.text, 'super')) return undefined;
  if (!sup) {
    if (!/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/.test(fn.text)) return undefined;
    const root = fn.text.split('.')[0];
    if (params.some((p) => p.name === root) || rebinds(body.text, root)) return undefined;
  }
  const keywords: string[] = [];
  for (const a of forward.childForFieldName('arguments')?.namedChildren ?? []) {
    if (a?.type === 'keyword_argument') keywords.push(a.childForFieldName('name')?.text ?? '');
    else if (a?.type === 'dictionary_splat' && a.namedChildren[0]?.text !== vk) return undefined;
  }
  return { to: toExpr(fn), ...(sup ? { toSuper: sup } : {}), keywords, consumed };
}

/** A `return` of the function this statement is in (not of a function or class defined in it). */
function returnsHere(n: Node): boolean {
  if (n.type === 'return_statement') return true;
  if (n.type === 'function_definition' || n.type === 'class_definition' || n.type === 'decorated_definition' || n.type === 'lambda') return false;
  if (!n.text.includes('return')) return false;
  return n.namedChildren.some((c) => !!c && returnsHere(c));
}

/** Attributes whose writing makes a class another kind of object, or every lookup on it another. */
const CLASS_INTERNALS = new Set(['__class__', '__dict__', '__mro__']);
const LOOKUP_HOOKS = new Set(['__getattr__', '__getattribute__']);

/**
 * See `FunctionInfo.handsBack`: every return reachable with `first` not None gives `first`, or a
 * call that hands `first` (positionally first) to a nested function that hands it back, or to a
 * function named outside the body; `first` is never rebound.
 */
function handsBackOf(body: Node, stmts: Node[], sites: ReturnSite[], first: string, params: Set<string>): HandsBack | undefined {
  if (!endsWithExit(stmts)) return undefined;
  const raw = body.text;
  const nested = new Map<string, Node>();
  for (const s of stmts) {
    const d = definitionOf(s);
    const nm = d?.type === 'function_definition' ? d.childForFieldName('name')?.text : undefined;
    if (d && nm) nested.set(nm, s);
  }
  const patched = new Set<string>();
  const bases: Expr[] = [];
  const through = new Set<string>();
  const outside = (g: string): boolean => !nested.has(g) && !rebinds(raw, g);
  let any = false;
  for (const site of sites) {
    if (site.assume === true) continue;
    any = true;
    const v = site.value;
    if (v?.type === 'identifier' && v.text === first) continue;
    if (v?.type !== 'call') return undefined;
    const fn = v.childForFieldName('function');
    const args = argumentNodes(v.childForFieldName('arguments'));
    if (fn?.type !== 'identifier' || !args?.length || args[0].type !== 'identifier' || args[0].text !== first) return undefined;
    const g = fn.text;
    const s = nested.get(g);
    if (!s) {
      if (!outside(g)) return undefined;
      through.add(g);
      continue;
    }
    const d = definitionOf(s)!;
    if (decoratorsOf(s).length > 0 || rebinds(raw, g)) return undefined;
    const fi = functionInfo(d, [], true);
    if (fi.returnsFirstArg) {
      for (const a of fi.patchedAttrs ?? []) patched.add(a);
      continue;
    }
    if (!fi.handsBack || !fi.handsBack.through.every(outside)) return undefined;
    for (const a of fi.handsBack.patched) patched.add(a);
    bases.push(...fi.handsBack.bases);
    for (const t of fi.handsBack.through) through.add(t);
  }
  if (!any || patchesOrRebinds(body, first, true)) return undefined;
  for (const a of attributesWritten(body, first)) {
    if (CLASS_INTERNALS.has(a)) return undefined;
    if (a !== '__bases__') patched.add(LOOKUP_HOOKS.has(a) ? '*' : a);
  }
  const appended = appendedBases(body, first);
  if (!appended) return undefined;
  bases.push(...appended);
  // `setattr(obj, NAME, ...)` names a module constant only where no parameter or local takes the name
  const named = [...patched].map((a) => (a.startsWith('$') && (params.has(a.slice(1)) || rebinds(raw, a.slice(1))) ? '*' : a));
  return { patched: [...new Set(named)].sort(), bases, through: [...through] };
}

/** The bases a body appends to class `name` (`name.__bases__ = name.__bases__ + (X,)`, `+=`); undefined for any other write of them. */
function appendedBases(body: Node, name: string): Expr[] | undefined {
  const out: Expr[] = [];
  let ok = true;
  const own = `${name}.__bases__`;
  const visit = (n: Node): void => {
    if (!ok) return;
    if ((n.type === 'assignment' || n.type === 'augmented_assignment') && n.childForFieldName('left')?.text.replace(/\s+/g, '') === own) {
      let right = n.childForFieldName('right');
      if (n.type === 'assignment') {
        if (right?.type !== 'binary_operator' || right.child(1)?.text !== '+' || right.childForFieldName('left')?.text.replace(/\s+/g, '') !== own) {
          ok = false;
          return;
        }
        right = right.childForFieldName('right');
      } else if (n.child(1)?.text !== '+=') {
        ok = false;
        return;
      }
      if (right?.type !== 'tuple') {
        ok = false;
        return;
      }
      for (const c of right.namedChildren) if (c && c.type !== 'comment') out.push(toExpr(c));
      return;
    }
    for (const c of n.namedChildren) if (c && c.type !== 'function_definition' && c.type !== 'class_definition') visit(c);
  };
  visit(body);
  return ok ? out : undefined;
}

// ---- module-level __getattr__ ----

/** The value of a string expression for one served name: a literal, an f-string or a `+` of known pieces. */
function evalString(n: Node | null | undefined, vars: Map<string, string>): string | undefined {
  if (!n) return undefined;
  if (n.type === 'identifier') return vars.get(n.text);
  if (n.type === 'concatenated_string') {
    let out = '';
    for (const c of n.namedChildren) {
      const v = c ? evalString(c, vars) : undefined;
      if (v === undefined) return undefined;
      out += v;
    }
    return out;
  }
  if (n.type === 'binary_operator' && n.child(1)?.text === '+') {
    const a = evalString(n.childForFieldName('left'), vars);
    const b = evalString(n.childForFieldName('right'), vars);
    return a !== undefined && b !== undefined ? a + b : undefined;
  }
  if (n.type === 'string') {
    let out = '';
    for (const c of n.namedChildren) {
      if (!c || c.type === 'string_start' || c.type === 'string_end') continue;
      if (c.type === 'string_content') out += c.text;
      else if (c.type === 'interpolation') {
        const e = c.namedChildren[0];
        if (!e || c.namedChildren.length !== 1 || e.type !== 'identifier') return undefined;
        const v = vars.get(e.text);
        if (v === undefined) return undefined;
        out += v;
      } else return undefined;
    }
    return out;
  }
  return stringValue(n);
}

/** `import_module(name[, package])` resolved like importlib does; undefined when not literal enough. */
function importedModule(call: Node, vars: Map<string, string>, ctx: Ctx): string | undefined {
  const f = call.childForFieldName('function')?.text.replace(/\s+/g, '');
  const args = argumentNodes(call.childForFieldName('arguments'));
  if (f === '__import__') {
    // only with a non-empty fromlist does __import__ return the submodule itself
    const fromlist = args.find((a) => a.type === 'keyword_argument' && a.childForFieldName('name')?.text === 'fromlist')?.childForFieldName('value');
    if (args.length < 1 || args[0].type === 'keyword_argument' || !fromlist || !/^[[(]\s*\S/.test(fromlist.text)) return undefined;
    const name = evalString(args[0], vars);
    return name && !name.startsWith('.') ? name : undefined;
  }
  if (f !== 'importlib.import_module' && f !== 'import_module') return undefined;
  if (args.length < 1 || args.length > 2 || args.some((a) => a.type === 'keyword_argument' && a.childForFieldName('name')?.text !== 'package')) return undefined;
  const name = evalString(args[0], vars);
  if (!name) return undefined;
  const dots = /^\.*/.exec(name)![0].length;
  if (dots === 0) return name;
  const anchorNode = args[1]?.type === 'keyword_argument' ? args[1].childForFieldName('value') : args[1];
  const anchor = anchorNode?.text === '__name__' ? ctx.module : anchorNode?.text === '__package__' ? (ctx.isPackage ? ctx.module : ctx.module.split('.').slice(0, -1).join('.')) : anchorNode ? stringValue(anchorNode) : undefined;
  if (!anchor) return undefined;
  return resolveRelative(anchor, true, dots, name.slice(dots));
}

/**
 * What one branch of a module `__getattr__` returns for `name`, when it takes it from another
 * module: `from m import x; return x`, or `mod = import_module(...)` / `__import__(..., fromlist=...)`
 * then `return getattr(mod, <arg>)`, each optionally after `v = TABLE[<arg>]` and a
 * `warnings.warn(..., DeprecationWarning)`. Undefined for any other statement.
 */
function servedFrom(body: Node[], arg: string, name: string, table: Map<string, string> | undefined, tableName: string | undefined, ctx: Ctx): { module: string; attr: string; deprecated?: string } | undefined {
  const vars = new Map<string, string>([[arg, name]]);
  const fromImports = new Map<string, [string, string]>();
  const modules = new Map<string, string>();
  let deprecated: string | undefined;
  for (let i = 0; i < body.length; i++) {
    const s = body[i];
    if (s.type === 'import_statement') continue;
    if (s.type === 'import_from_statement') {
      for (const [local, b] of importBindings(s, ctx.imports ?? { name: ctx.module, isPackage: ctx.isPackage }, false, () => undefined)) if (b.kind === 'from') fromImports.set(local, [b.module, b.name]);
      continue;
    }
    if (s.type === 'return_statement') {
      if (i !== body.length - 1) return undefined;
      const v = s.namedChildren[0];
      if (v?.type === 'identifier') {
        const f = fromImports.get(v.text);
        return f ? { module: f[0], attr: f[1], deprecated } : undefined;
      }
      if (v?.type !== 'call' || v.childForFieldName('function')?.text !== 'getattr') return undefined;
      const a = argumentNodes(v.childForFieldName('arguments'));
      if (a.length !== 2 || a[1].type !== 'identifier' || a[1].text !== arg) return undefined;
      const module = a[0].type === 'identifier' ? modules.get(a[0].text) : a[0].type === 'call' ? importedModule(a[0], vars, ctx) : undefined;
      return module ? { module, attr: name, deprecated } : undefined;
    }
    if (s.type !== 'expression_statement') return undefined;
    const e = s.namedChildren[0];
    if (!e) return undefined;
    if (e.type === 'string' && i === 0) continue;
    if (e.type === 'call' && /^(warnings\.)?warn$/.test(e.childForFieldName('function')?.text ?? '')) {
      const text = e.childForFieldName('arguments')?.text ?? '';
      if (!/\b(DeprecationWarning|FutureWarning)\b/.test(text)) return undefined;
      const first = e.childForFieldName('arguments')?.namedChildren[0];
      deprecated = (first && evalString(first, vars)) ?? 'deprecated';
      continue;
    }
    if (e.type !== 'assignment') return undefined;
    const left = e.childForFieldName('left');
    const right = e.childForFieldName('right');
    if (left?.type !== 'identifier' || !right) return undefined;
    if (right.type === 'subscript' && table && right.childForFieldName('value')?.text === tableName && right.childForFieldName('subscript')?.text === arg) {
      const v = table.get(name);
      if (v === undefined) return undefined;
      vars.set(left.text, v);
    } else if (right.type === 'call') {
      const m = importedModule(right, vars, ctx);
      if (!m) return undefined;
      modules.set(left.text, m);
    } else return undefined;
  }
  return undefined;
}

function getattrNames(fn: Node, moduleValues: Map<string, Binding[]>, ctx: Ctx): { names: Set<string>; lazy?: Map<string, string>; served?: Map<string, { module: string; attr: string; deprecated?: string }> } | undefined {
  const params = paramsOf(fn);
  if (params.length !== 1) return undefined;
  const arg = params[0].name;
  const stmts = statements(fn.childForFieldName('body'));
  const names = new Set<string>();
  let lazy: Map<string, string> | undefined;
  let served: Map<string, { module: string; attr: string; deprecated?: string }> | undefined;
  /** The names the branch being read serves, and the table they come from. */
  let branch: { names: string[]; table?: Map<string, string>; tableName?: string } = { names: [] };
  const testNames = (cond: Node | null): boolean => {
    if (!cond) return false;
    if (cond.type === 'boolean_operator' && cond.child(1)?.type === 'or') {
      return testNames(cond.childForFieldName('left')) && testNames(cond.childForFieldName('right'));
    }
    if (cond.type === 'parenthesized_expression') return testNames(cond.namedChildren[0] ?? null);
    if (cond.type !== 'comparison_operator') return false;
    const parts = cond.namedChildren.filter((c): c is Node => !!c);
    if (parts.length !== 2 || parts[0].type !== 'identifier' || parts[0].text !== arg) return false;
    const op = cond.children.find((c) => c && !c.isNamed)?.text;
    const rhs = parts[1];
    if (op === '==') {
      const v = stringValue(rhs);
      if (v === undefined) return false;
      names.add(v);
      branch.names.push(v);
      return true;
    }
    if (op === 'in') {
      // `name in globals()`: the module's own names, which are found before __getattr__ is asked
      if (rhs.type === 'call' && rhs.text.replace(/\s+/g, '') === 'globals()') return true;
      let e = toExpr(rhs);
      if (e.kind === 'name') {
        const b = moduleValues.get(e.name);
        if (!b || b.length !== 1 || b[0].kind !== 'value') return false;
        if (b[0].expr.kind === 'strs' && b[0].expr.map) branch = { ...branch, table: b[0].expr.map, tableName: e.name };
        e = b[0].expr;
      }
      if (e.kind !== 'strs') return false;
      e.values.forEach((v) => names.add(v));
      branch.names.push(...e.values);
      if (e.map && e.map.size === e.values.length && [...e.map.values()].every((v) => /^\.*[\w.]*:\w+$/.test(v))) {
        lazy ??= new Map();
        for (const [k, v] of e.map) lazy.set(k, v);
      }
      return true;
    }
    return false;
  };
  /** After a test: where the names of its branch come from, when the branch says. */
  const readBranch = (body: Node | null): void => {
    const stmts = statements(body);
    for (const n of branch.names) {
      const from = servedFrom(stmts, arg, n, branch.table, branch.tableName, ctx);
      if (from) (served ??= new Map()).set(n, from);
    }
    branch = { names: [] };
  };
  const isRaiseAttributeError = (n: Node | undefined): boolean => !!n && n.type === 'raise_statement' && /^raise\s+AttributeError\b/.test(n.text);
  for (let i = 0; i < stmts.length; i++) {
    const s = stmts[i];
    const last = i === stmts.length - 1;
    if (i === 0 && s.type === 'expression_statement' && s.namedChildren[0]?.type === 'string') continue; // docstring
    if (s.type === 'import_statement' || s.type === 'import_from_statement') continue;
    if (s.type === 'if_statement') {
      branch = { names: [] };
      if (!testNames(s.childForFieldName('condition'))) return undefined;
      readBranch(s.childForFieldName('consequence'));
      for (const alt of s.childrenForFieldName('alternative')) {
        if (!alt) continue;
        if (alt.type === 'elif_clause') {
          if (!testNames(alt.childForFieldName('condition'))) return undefined;
          readBranch(alt.childForFieldName('consequence'));
        } else {
          // `else: raise AttributeError(...)` closes the chain
          const body = statements(alt.childForFieldName('body'));
          if (!(last && body.length === 1 && isRaiseAttributeError(body[0]))) return undefined;
          return { names, lazy, served };
        }
      }
      continue;
    }
    if (last && isRaiseAttributeError(s)) return { names, lazy, served };
    return undefined;
  }
  return undefined;
}

// ---- the summariser ----

interface Ctx {
  module: string;
  isPackage: boolean;
  /** Where relative imports start when that is not the module itself (a user file in the user's folders). */
  imports?: { name: string; isPackage: boolean };
  /** Re-summarising an edited file: what each method of its classes gave last time, by its place and text. */
  methods?: { last: Map<string, MethodFacts>; next: Map<string, MethodFacts> };
}

/** What a method adds to its class's summary. */
interface MethodFacts {
  /** Undefined for an `@overload`. */
  fn?: FunctionInfo;
  /** The instance attributes it names, in order (`*`: computed names). */
  attrs: string[];
  assigns: Map<string, string[]>;
  /** Copied off the text it was made from (see ownStrings.ts): done once it outlives a keystroke. */
  owned?: boolean;
}

/** What is known of a method, copied off the text it was cut from (see ownStrings.ts), once. */
function ownedFacts(f: MethodFacts): MethodFacts {
  return f.owned ? f : { ...ownCopy(f), owned: true };
}

function classInfo(def: Node, decorators: Expr[], ctx: Ctx, outer: string): ClassInfo {
  const name = def.childForFieldName('name')?.text ?? '?';
  const qualname = outer ? `${outer}.${name}` : `${ctx.module}.${name}`;
  const bases: Expr[] = [];
  const keywords = new Map<string, Expr>();
  const sup = def.childForFieldName('superclasses');
  if (sup) {
    for (const a of sup.namedChildren) {
      if (!a || a.type === 'comment') continue;
      if (a.type === 'keyword_argument') {
        const k = a.childForFieldName('name')?.text;
        if (k) keywords.set(k, toExpr(a.childForFieldName('value')));
      } else if (a.type === 'list_splat' || a.type === 'dictionary_splat') {
        bases.push({ kind: 'other', text: a.text });
      } else bases.push(toExpr(a));
    }
  }
  const cls: ClassInfo = { name, qualname, module: ctx.module, line: line1(def), bases, keywords, decorators, members: new Map(), fields: [], instanceAttrs: new Set(), attrAssigns: new Map() };
  const overloads = new Set<string>();
  walkClassBody(def.childForFieldName('body'), cls, ctx, false, overloads);
  // a stub's method given by overloads alone is there, with signatures the engine does not model
  for (const n of overloads) if (!cls.members.has(n)) addBinding(cls.members, n, { kind: 'opaque', conditional: false, line: cls.line });
  return cls;
}

/**
 * The summary of a class defined in a function body (`def make(): class Local(Base): ...`), as a
 * module-level class of `module` would be summarised, its qualified name under `outer`
 * (`m.make.<locals>`). Its bases and decorators are read as names of the module: the caller makes
 * sure no function around it binds them.
 */
export function localClassInfo(node: Node, module: string, isPackage: boolean, imports: { name: string; isPackage: boolean } | undefined, outer: string): ClassInfo | undefined {
  const def = definitionOf(node);
  if (!def || def.type !== 'class_definition') return undefined;
  return classInfo(def, decoratorsOf(node), { module, isPackage, imports }, outer);
}

const selfAttrPatterns = new Map<string, RegExp>();

/** `self.x =` (or `+=`, `-=`, `:`) for a method's first parameter: the attribute names it sets. */
function selfAttrPattern(self: string): RegExp {
  let re = selfAttrPatterns.get(self);
  if (!re) {
    if (selfAttrPatterns.size > 64) selfAttrPatterns.clear();
    re = new RegExp(`\\b${self}\\.(\\w+)\\s*(=[^=]|\\+=|-=|:)`, 'g');
    selfAttrPatterns.set(ownString(self), re);
  }
  return re;
}

/**
 * Reads how a method body assigns `self.NAME` (see `ClassInfo.attrAssigns`). A plain assignment
 * whose whole value is a call of a dotted name, and an annotated one, are described; every other
 * way to bind the attribute (another value, augmented, unpacked, chained, a loop or `with` target)
 * is `?`.
 */
function attrAssignments(raw: string, self: string, params: Param[], out: Map<string, string[]>, names: Set<string>, where: { name: string; isPackage: boolean }): void {
  const add = (name: string, d: string): void => {
    names.add(name);
    const list = out.get(name);
    if (list) list.push(d);
    else out.set(name, [d]);
  };
  // object.__setattr__(self, "name", value) (frozen dataclasses) assigns too
  for (const m of raw.matchAll(/(?:\bsetattr|__setattr__)\(\s*(\w+)\s*,\s*(['"])(\w+)\2/g)) if (m[1] === self) add(m[3], '?');
  const re = new RegExp(`\\b${self}\\.([A-Za-z_]\\w*)\\b(?!\\s*[.(\\[])`, 'g');
  for (const m of raw.matchAll(re)) {
    const at = m.index!;
    let end = at + m[0].length;
    if (at > 0 && raw[at - 1] === '.') continue;
    // `self.x = y = value` (or `= self.a.b = value`) gives every target the value: read what
    // follows the last target
    const chained = /^(?:[ \t]*=(?!=)[ \t]*[A-Za-z_][\w.]*(?=[ \t]*=(?!=)))+/.exec(raw.slice(end, end + 400));
    if (chained) end += chained[0].length;
    const lineStart = raw.lastIndexOf('\n', at - 1) + 1;
    const nl = raw.indexOf('\n', end);
    const lineBefore = raw.slice(lineStart, at);
    const lineAfter = raw.slice(end, nl < 0 ? raw.length : nl);
    const line = lineBefore + m[0] + lineAfter;
    // at the start of a statement, or a later target of a chained assignment (`self.a = self.x = value`)
    const atStart = /^[ \t]*$/.test(lineBefore) || /;[ \t]*$/.test(lineBefore) || /^[ \t]*(?:[A-Za-z_][\w.]*[ \t]*=(?!=)[ \t]*)+$/.test(lineBefore);
    const after = raw.slice(end, end + 400);
    if (atStart) {
      /** A name the method binds, imports or takes as a parameter: not the module's. */
      const local = (head: string): boolean => params.some((p) => p.name === head) || rebinds(raw, head) || new RegExp(`\\bimport\\b[^\\n]*\\b${head}\\b`).test(raw);
      /** `= a.b.C(...)` as the whole value at `from` (an offset of `after`): `call:a.b.C`, or `?`. */
      const callAt = (from: number): string | undefined => callValue(raw, end + from, self, params, local, where);
      /**
       * `= A(...) if c else B(...)` (an arm may be None) as the whole value: each arm's descriptor.
       * On one line after the first arm, or anywhere inside parentheses that hold the whole value
       * (`= (\n A(...)\n if c\n else B(...)\n)`).
       */
      const armsAt = (): string[] | undefined => {
        const eq = /^\s*=(?!=)\s*/.exec(after);
        if (!eq) return undefined;
        let from = end + eq[0].length;
        // inside parentheses, line breaks separate nothing; `stop` is the closing parenthesis
        let stop = -1;
        if (raw[from] === '(') {
          stop = matchParen(raw, from);
          if (stop < 0 || !/^[ \t]*(#[^\n]*)?(\r?\n|$)/.test(raw.slice(stop + 1, stop + 200))) return undefined;
          from = from + 1 + /^\s*/.exec(raw.slice(from + 1))![0].length;
        }
        // outside parentheses a line goes on after a backslash at its end
        const gap = stop < 0 ? /^(?:[ \t]|\\\r?\n)+/ : /^\s+/;
        const arm = (p: number): { d: string; next: number } | undefined => {
          if (/^None\b/.test(raw.slice(p, p + 5))) return { d: 'none', next: p + 4 };
          const c = /^([A-Za-z_][\w.]*)\s*\(/.exec(raw.slice(p, p + 300));
          const close = c ? matchParen(raw, p + c[0].length - 1) : -1;
          if (!c || close < 0) return undefined;
          const head = c[1].split('.')[0];
          if (local(head)) return undefined;
          return { d: `call:${c[1]}`, next: close + 1 };
        };
        const a = arm(from);
        const sp = a ? gap.exec(raw.slice(a.next, a.next + 200)) : null;
        if (!a || !sp || !raw.startsWith('if', a.next + sp[0].length) || !/\s/.test(raw[a.next + sp[0].length + 2] ?? '')) return undefined;
        // the condition, to ` else ` outside brackets (on the same line, unless in parentheses)
        let i = a.next + sp[0].length + 3;
        for (; ; i++) {
          const ch = raw[i];
          if (stop < 0 && ch === '\\' && /^\\\r?\n/.test(raw.slice(i, i + 3))) {
            i = raw.indexOf('\n', i);
            continue;
          }
          if (ch === undefined || (ch === '\n' && stop < 0) || i >= (stop < 0 ? raw.length : stop) || ch === '#' || ch === '"' || ch === "'" || raw.startsWith('lambda', i)) return undefined;
          if (ch === '(' || ch === '[' || ch === '{') {
            const cl = matchParen(raw, i);
            if (cl < 0) return undefined;
            i = cl;
          } else if (/\s/.test(raw[i - 1]) && raw.startsWith('else', i) && /\s/.test(raw[i + 4] ?? '')) break;
        }
        const ws = gap.exec(raw.slice(i + 4, i + 204));
        if (!ws) return undefined;
        const b = arm(i + 4 + ws[0].length);
        if (!b || (a.d === 'none' && b.d === 'none')) return undefined;
        // nothing follows the second arm but the end of the line, or of the parentheses
        if (stop < 0 ? !/^[ \t]*(#[^\n]*)?(\r?\n|$)/.test(raw.slice(b.next, b.next + 200)) : !/^\s*$/.test(raw.slice(b.next, stop))) return undefined;
        return [a.d, b.d];
      };
      const arms = armsAt();
      if (arms) {
        for (const d of arms) add(m[1], d);
        continue;
      }
      const call = callAt(0);
      if (call) {
        add(m[1], call);
        continue;
      }
      // `self.x = None`: a method called on the attribute fails while it holds None, so where such
      // a call runs the attribute holds one of the other values assigned
      if (/^\s*=(?!=)\s*None[ \t]*(#[^\n]*)?(\r?\n|$)/.test(after)) {
        add(m[1], 'none');
        continue;
      }
      // (a backslash at the end of a line goes on with the next: `self.x: C \` then `= C(...)`)
      const ann = /^\s*:\s*((?:[^=\n\\]|\\\r?\n|\\)+?)(?:\s|\\\r?\n)*(=(?!=)|\n|$)/.exec(after);
      if (ann) {
        // a bare declaration (`self.x: C`) or one that assigns None declares what other assignments give
        const declares = ann[2] !== '=' || /^\s*None[ \t]*(#[^\n]*)?(\r?\n|$)/.test(after.slice(ann.index + ann[0].length));
        // an annotation the type checker is told to ignore does not say what the value is
        if (!declares && /#\s*type:\s*ignore\b/.test(lineAfter)) {
          add(m[1], '?');
          continue;
        }
        add(m[1], `${declares ? 'decl' : 'ann'}:${annotationText(ann[1])}`);
        // `self.x: C = D(...)`: what is built, when the engine sees it, must agree with what is declared
        const value = declares ? undefined : callAt(ann.index + ann[0].length - 1);
        if (value && value !== '?') add(m[1], `with${value}`);
        continue;
      }
      // `self.x = self.a.b`, and `self.x = param.a.b` where the parameter is annotated (and the
      // method does not rebind it): the attribute chain read off the instance or the parameter
      const read = chainValue(after, raw, self, params);
      if (read) {
        add(m[1], read);
        continue;
      }
      const chain = /^\s*=(?!=)\s*([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)[ \t]*(#[^\n]*)?(\r?\n|$)/.exec(after);
      if (chain) {
        // `self.x = E.NAME` with a name of the module (not a parameter or a local of the method)
        if (chain[1] !== self && !params.some((p) => p.name === chain[1]) && !rebinds(raw, chain[1]) && !new RegExp(`\\bimport\\b[^\\n]*\\b${chain[1]}\\b`).test(raw)) {
          add(m[1], `value:${chain[1]}${chain[2]}`);
          continue;
        }
      }
      // `self.x = param` where the parameter is annotated (and the method does not rebind it)
      const name = /^\s*=(?!=)\s*([A-Za-z_]\w*)[ \t]*(#[^\n]*)?(\r?\n|$)/.exec(after);
      const param = name && name[1] !== self ? params.find((p) => p.name === name[1] && p.annotation && (p.kind === 'normal' || p.kind === 'kwonly' || p.kind === 'posonly')) : undefined;
      if (param && !rebinds(raw, param.name)) {
        add(m[1], `ann:${param.annotation!.replace(/\s+/g, ' ')}`);
        continue;
      }
      // `self.x = y` where the method binds its local `y` once, to a call: what that call gives
      if (name && name[1] !== self && !params.some((p) => p.name === name[1])) {
        const bound = soleBinding(raw, name[1], at);
        // `saved = self.x` ... `self.x = saved`: the attribute given back a value it held adds no class
        if (bound !== undefined && new RegExp(`^[ \\t]*=[ \\t]*${self}\\.${m[1]}[ \\t]*(#[^\\n]*)?(\\r?\\n|$)`).test(raw.slice(bound))) {
          add(m[1], 'none');
          continue;
        }
        const d = bound === undefined ? undefined : callValue(raw, bound, self, params, local, where) ?? chainValue(raw.slice(bound, bound + 400), raw, self, params);
        if (d && d !== '?') {
          add(m[1], d);
          continue;
        }
      }
      // a literal, a display or a comprehension (`[]`, `{}`, `""`, `0`): a value of a builtin class
      const lit = literalValue(raw, end);
      if (lit) {
        add(m[1], lit);
        continue;
      }
      // `self.x = NAME`, a name of the module (not a parameter, a local or an import of the method)
      if (name && name[1] !== self && !local(name[1])) {
        add(m[1], `global:${name[1]}`);
        continue;
      }
    }
    if (/^\s*(=(?!=)|[-+*/%&|^@]=|\/\/=|\*\*=|<<=|>>=)/.test(after)) add(m[1], '?');
    // a tuple target (`a, self.x = ...`); a line inside brackets (`f(\n self.x, k=v)`) is no statement
    else if (/^\s*[,)\]]/.test(after) && topLevelAssign(line) > lineBefore.length && lineDepth(raw, lineStart) === 0) add(m[1], '?');
    // a loop or `with` target (`for self.x in ...`), not a loop over it (`for r in self.x`)
    else if (/\b(for|as)\s+[(\[]?(?:(?!\bin\b)[\w., ])*$/.test(lineBefore)) add(m[1], '?');
  }
}

/**
 * `= <literal>` (the `=` included) as the whole value at `pos` of a body: `lit:builtins.list` for a
 * list display or comprehension, `lit:builtins.dict` / `lit:builtins.set` for braces, and the
 * builtin class of a string, bytes, number or boolean literal. Undefined for anything else.
 */
function literalValue(raw: string, pos: number): string | undefined {
  const eq = /^[ \t]*=(?!=)[ \t]*/.exec(raw.slice(pos, pos + 200));
  if (!eq) return undefined;
  const from = pos + eq[0].length;
  const head = raw.slice(from, from + 400);
  let cls: string;
  let stop: number;
  const c = raw[from];
  if (c === '[' || c === '{') {
    const close = matchParen(raw, from);
    if (close < 0) return undefined;
    stop = close + 1;
    cls = c === '[' ? 'list' : bracesClass(raw.slice(from + 1, close));
  } else {
    const str = /^([rRuUfFbB]{0,2})("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')/.exec(head);
    const num = /^\d[\d_]*(\.[\d_]*)?([eE][-+]?\d+)?([jJ])?(?![\w.])/.exec(head);
    const bool = /^(True|False)\b/.exec(head);
    if (str) cls = /[bB]/.test(str[1]) ? 'bytes' : 'str';
    else if (num) cls = num[3] ? 'complex' : num[1] || num[2] ? 'float' : 'int';
    else if (bool) cls = 'bool';
    else return undefined;
    stop = from + (str ?? num ?? bool)![0].length;
  }
  return /^[ \t]*(#[^\n]*)?(\r?\n|$)/.test(raw.slice(stop, stop + 200)) ? `lit:builtins.${cls}` : undefined;
}

/** What the text inside braces builds: a dict (empty, `k: v` pairs, `**m`) or a set. */
function bracesClass(inner: string): 'dict' | 'set' {
  if (/^\s*(#[^\n]*\n\s*)*$/.test(inner) || /^\s*\*\*/.test(inner)) return 'dict';
  let depth = 0;
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i];
    if (ch === '(' || ch === '[' || ch === '{') depth++;
    else if (ch === ')' || ch === ']' || ch === '}') depth--;
    else if (ch === '"' || ch === "'") {
      const q = inner.startsWith(ch.repeat(3), i) ? ch.repeat(3) : ch;
      const close = inner.indexOf(q, i + q.length);
      if (close < 0) break;
      i = close + q.length - 1;
    } else if (ch === ':' && depth === 0 && inner[i + 1] !== '=') return 'dict';
    else if (ch === 'l' && depth === 0 && /^lambda\b/.test(inner.slice(i)) && !/\w/.test(inner[i - 1] ?? '')) break;
  }
  return 'set';
}

/**
 * `= self.a.b` or `= p.a.b` (the `=` included) as the whole value at the start of `after`, where the
 * method's parameter `p` is annotated and neither name is rebound in the body `raw`: the attribute
 * chain read off the instance (`self:a.b`) or off the parameter (`attr:a.b:<annotation>`).
 */
function chainValue(after: string, raw: string, self: string, params: Param[]): string | undefined {
  const chain = /^\s*=(?!=)\s*([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)[ \t]*(#[^\n]*)?(\r?\n|$)/.exec(after);
  if (!chain || rebinds(raw, chain[1])) return undefined;
  const path = chain[2].slice(1);
  if (chain[1] === self) return `self:${path}`;
  const from = params.find((p) => p.name === chain[1] && p.annotation && (p.kind === 'normal' || p.kind === 'kwonly' || p.kind === 'posonly'));
  return from ? `attr:${path}:${from.annotation!.replace(/\s+/g, ' ')}` : undefined;
}

/**
 * The value at `pos` of a body (`= a.b.C(...)`, the `=` included) when it is the whole value and a
 * call of a dotted name: `call:a.b.C` for a name of the module, `selfcall:a.m` for
 * `self.a.m(...)`, `attrcall:a.m:<annotation>` for `p.a.m(...)` where the method's parameter `p`
 * is annotated (neither rebound), `ann:C` for `p(...)` with `p: type[C]`; `?` for any other
 * call that is the whole value, undefined for no call.
 */
function callValue(raw: string, pos: number, self: string, params: Param[], local: (head: string) => boolean, where: { name: string; isPackage: boolean }): string | undefined {
  const call = /^\s*=(?!=)\s*([A-Za-z_][\w.]*)\s*\(/.exec(raw.slice(pos, pos + 400));
  if (!call) return undefined;
  const close = matchParen(raw, pos + call[0].length - 1);
  if (close < 0 || !/^[ \t]*(#[^\n]*)?(\r?\n|$)/.test(raw.slice(close + 1, close + 200))) return '?';
  const parts = call[1].split('.');
  const head = parts[0];
  // `self.x = cls_param(...)` with `cls_param: type[C]`: an instance of C or of a subclass,
  // as a parameter annotated `C` holds
  const built = parts.length === 1 ? classOfTypeParam(params, head) : undefined;
  if (built && !rebinds(raw, head)) return `ann:${built}`;
  if (!local(head)) return `call:${call[1]}`;
  // a name the method imports (once, and binds no other way): the import says what it is
  const imported = importedOnce(raw, head, pos, where);
  if (imported?.kind === 'from') return `from:${imported.module}:${[imported.name, ...parts.slice(1)].join('.')}`;
  if (imported?.kind === 'module') return `import:${imported.module}:${parts.slice(1).join('.')}`;
  // a method called on the instance, or on an annotated parameter: what it returns
  if (parts.length < 2 || rebinds(raw, head)) return '?';
  if (head === self) return `selfcall:${parts.slice(1).join('.')}`;
  const p = params.find((q) => q.name === head && q.annotation && (q.kind === 'normal' || q.kind === 'kwonly' || q.kind === 'posonly'));
  return p ? `attrcall:${parts.slice(1).join('.')}:${p.annotation!.replace(/\s+/g, ' ')}` : '?';
}

/**
 * What a body's one import statement that binds `name` binds it to (`from m import name`,
 * `from .m import x as name`, `import a.b as name`, `import name.c`), when that statement comes
 * before offset `use` in the same function and the body binds the name no other way.
 */
function importedOnce(raw: string, name: string, use: number, where: { name: string; isPackage: boolean }): Extract<Binding, { kind: 'from' | 'module' }> | undefined {
  if (!new RegExp(`\\bimport\\b[^\\n]*\\b${name}\\b|\\bimport\\s*\\(`).test(raw)) return undefined;
  let found: { b: Extract<Binding, { kind: 'from' | 'module' }>; at: number; end: number } | undefined;
  for (const m of raw.matchAll(/^[ \t]*(?:from[ \t]+[\w.]+[ \t]+)?import\b/gm)) {
    // the statement: its line, or to its closing parenthesis
    const nl = raw.indexOf('\n', m.index!);
    let end = nl < 0 ? raw.length : nl;
    const open = raw.slice(m.index!, end).indexOf('(');
    if (open >= 0) {
      const close = matchParen(raw, m.index! + open);
      if (close < 0) return undefined;
      end = Math.max(end, close + 1);
    }
    const text = raw.slice(m.index!, end);
    const imp = importFromText(text.trim());
    if (!imp) {
      if (new RegExp(`\\b${name}\\b`).test(text)) return undefined;
      continue;
    }
    for (const [n, b] of textImportBindings(imp, 0, where, false, () => undefined)) {
      if (n !== name) continue;
      if (found || (b.kind !== 'from' && b.kind !== 'module')) return undefined;
      found = { b, at: m.index!, end };
    }
  }
  if (!found || found.at > use || enclosingDef(raw, found.at) !== enclosingDef(raw, use)) return undefined;
  const others = namesBound(raw.slice(0, found.at) + raw.slice(found.end));
  if (others.assigned.has(name) || others.otherwise.has(name)) return undefined;
  return found.b;
}

/**
 * Where a body binds a local name, when it binds it exactly once, by a plain assignment statement
 * (`y = ...`) of the same function as offset `use` (not of a function nested in it, nor the other
 * way round): the offset just after the name; undefined for any other binding (none, several,
 * augmented, unpacked, annotated, a loop or `with` target, a walrus, `del`, `global`).
 */
function soleBinding(raw: string, name: string, use: number): number | undefined {
  if (!bodyNames(raw).assigned.has(name) || bodyNames(raw).otherwise.has(name) || new RegExp(`\\bimport\\s+[^\\n]*\\b${name}\\b|\\b(?:def|class)\\s+${name}\\b`).test(raw)) return undefined;
  // the first statement `name = ...` of the body; with it set aside, nothing else may bind the name
  const plain = new RegExp(`^[ \\t]*${name}[ \\t]*=(?!=)`, 'gm');
  let found: { at: number; line: number; end: number } | undefined;
  for (const m of raw.matchAll(plain)) {
    if (lineDepth(raw, m.index!) !== 0) continue;
    // the statement runs on while brackets are open at the start of the next line
    let end = raw.indexOf('\n', m.index!);
    while (end >= 0 && lineDepth(raw, end + 1) > 0) end = raw.indexOf('\n', end + 1);
    found = { at: m.index! + m[0].indexOf(name) + name.length, line: m.index!, end: end < 0 ? raw.length : end };
    break;
  }
  if (!found || found.at > use || enclosingDef(raw, found.at) !== enclosingDef(raw, use)) return undefined;
  const others = namesBound(raw.slice(0, found.line) + raw.slice(found.end));
  if (others.assigned.has(name) || others.otherwise.has(name)) return undefined;
  return found.at;
}

/** The offset of the innermost `def` (nested in a body) whose block holds offset `at`, or -1 for the body's own. */
function enclosingDef(raw: string, at: number): number {
  const lineStart = raw.lastIndexOf('\n', at - 1) + 1;
  let indent = /^[ \t]*/.exec(raw.slice(lineStart))![0].length;
  let pos = lineStart;
  while (pos > 0) {
    const prev = raw.lastIndexOf('\n', pos - 2) + 1;
    const line = raw.slice(prev, pos - 1);
    pos = prev;
    const ind = /^[ \t]*/.exec(line)![0].length;
    // blank lines, comments and lines inside brackets do not close a block
    if (ind === line.length || line[ind] === '#' || ind >= indent || lineDepth(raw, prev) !== 0) continue;
    indent = ind;
    if (/^(async[ \t]+)?def\b/.test(line.slice(ind))) return prev;
  }
  return -1;
}

/** A body binds a name again: an assignment statement (plain, augmented, unpacking, annotated, chained), a walrus, a loop or `with` target, `del`, `global`. */
function rebinds(raw: string, name: string): boolean {
  const names = bodyNames(raw);
  return names.assigned.has(name) || names.otherwise.has(name);
}

/** The names a body binds: by assignment statements, and in other ways (see `bindsOtherwise`). */
interface BodyNames {
  assigned: Set<string>;
  otherwise: Set<string>;
}

// asked for many names of one body in a row (each attribute assignment of a method)
let bodyNamesMemo: { raw: string; names?: BodyNames; depths?: Map<number, number> } = { raw: '' };

function bodyNames(raw: string): BodyNames {
  if (raw !== bodyNamesMemo.raw) bodyNamesMemo = { raw };
  return (bodyNamesMemo.names ??= namesBound(raw));
}

const NAME_ONLY = /^[A-Za-z_]\w*$/;
/** A target list (`a, (b, *c)`, `self.x, d[i]`): the names it binds itself. */
function targetNames(list: string, to: Set<string>): void {
  for (const item of list.split(',')) {
    const t = item.replace(/^[\s(*]+|[\s)]+$/g, '');
    if (NAME_ONLY.test(t)) to.add(t);
  }
}

/** A target list: names, attributes, subscripts, starred names, in parentheses as a whole (not a call). */
const TARGETS = String.raw`\(?[\w.\[\]*, \t]+?\)?`;
const ASSIGN_STATEMENT = new RegExp(String.raw`^[ \t]*(${TARGETS})[ \t]*(?::[^=\n]*)?(?:=(?!=)|[-+*/%&|^@]=|//=|\*\*=|<<=|>>=)`, 'gm');
/** The same pattern tried at one offset (a line start). */
const ASSIGN_AT = new RegExp(ASSIGN_STATEMENT.source.slice(1), 'y');
const CHAINED = new RegExp(String.raw`^[ \t]*(${TARGETS})[ \t]*=(?!=)`);

/**
 * The matches of ASSIGN_STATEMENT in a body. Each match lies within one line and holds an `=`, so
 * the pattern is tried only at the starts of lines that have one: the same matches, at a tenth of
 * the cost of letting the engine look for line starts (the lazy target list backtracks at each).
 */
function assignStatements(raw: string): RegExpExecArray[] {
  // where a `\r` or a line separator also starts lines, the pattern itself finds them
  if (/[\r\u2028\u2029]/.test(raw)) return [...raw.matchAll(ASSIGN_STATEMENT)];
  const out: RegExpExecArray[] = [];
  let eq = raw.indexOf('=');
  for (let start = 0; eq >= 0; ) {
    const nl = raw.indexOf('\n', start);
    if (eq < (nl < 0 ? raw.length : nl)) {
      ASSIGN_AT.lastIndex = start;
      const m = ASSIGN_AT.exec(raw);
      if (m) out.push(m);
    }
    if (nl < 0) break;
    start = nl + 1;
    if (eq < start) eq = raw.indexOf('=', start);
  }
  return out;
}

function namesBound(raw: string): BodyNames {
  const assigned = new Set<string>();
  for (const m of assignStatements(raw)) {
    // a line `name=value,` inside brackets is a keyword argument, not a statement
    if (/^[ \t]*\w+=(?!=)/.test(m[0]) && lineDepth(raw, m.index!) !== 0) continue;
    targetNames(m[1], assigned);
    // `a = b = value`: each target
    const nl = raw.indexOf('\n', m.index!);
    let rest = raw.slice(m.index! + m[0].length, nl < 0 ? raw.length : nl);
    for (let c = CHAINED.exec(rest); c; c = CHAINED.exec(rest)) {
      targetNames(c[1], assigned);
      rest = rest.slice(c[0].length);
    }
  }
  return { assigned, otherwise: bindsOtherwise(raw) };
}

/**
 * The names a body binds other than by an assignment statement: a walrus, a `for` or `with ... as`
 * target (the name itself, not an attribute or item of it: `for r in self.x` binds r only), `del`,
 * `global`, `nonlocal`, a name a `case` pattern captures, a `type` alias.
 */
function bindsOtherwise(raw: string): Set<string> {
  const out = new Set<string>();
  const itself = /(?<![.\w])([A-Za-z_]\w*)\b(?!\s*[.\[(])/g;
  const targets = (text: string): void => {
    for (const m of text.matchAll(itself)) out.add(m[1]);
  };
  // (looked for only where there is one: the pattern is tried at every letter of the body)
  if (raw.includes(':=')) for (const m of raw.matchAll(/([A-Za-z_]\w*)\s*:=/g)) out.add(m[1]);
  for (const m of raw.matchAll(/\b(?:global|nonlocal)\s+([^\n;]*)/g)) targetNames(m[1], out);
  for (const m of raw.matchAll(/\bdel\s+([^\n;]*)/g)) targets(m[1]);
  for (const m of raw.matchAll(/\bas\s+([(\[]?\s*(?:[A-Za-z_]\w*\s*,\s*)*[A-Za-z_]\w*[^\n:]?)/g)) targets(m[1]);
  // the target of a loop (or comprehension) runs from `for` to its `in`
  for (const m of raw.matchAll(/\bfor\s+((?:(?!\bin\b)[^\n:])*)\bin\b/g)) targets(m[1]);
  // `type X = ...` (3.12)
  for (const m of raw.matchAll(/^[ \t]*type[ \t]+([A-Za-z_]\w*)\b(?=[^\n=]*=)/gm)) out.add(m[1]);
  // a `case` pattern captures its bare names (taken all: class names and keywords too)
  for (const m of raw.matchAll(/^[ \t]*case\b([^\n]*):/gm)) targets(m[1]);
  return out;
}

/** How many brackets are open at the start of a line of a body, from one pass over the body. */
function lineDepth(raw: string, at: number): number {
  if (raw.lastIndexOf('\n', at - 1) + 1 !== at) return bracketDepth(raw, at);
  if (raw !== bodyNamesMemo.raw) bodyNamesMemo = { raw };
  if (!bodyNamesMemo.depths) {
    const depths = new Map<number, number>([[0, 0]]);
    bracketDepth(raw, raw.length, (lineStart, depth) => depths.set(lineStart, depth));
    bodyNamesMemo.depths = depths;
  }
  return bodyNamesMemo.depths.get(at) ?? bracketDepth(raw, at);
}

/**
 * How many brackets are open at an offset of a body (strings and comments skipped); `onLine` is
 * told the depth at each line start on the way (inside a string: the depth from before it).
 */
function bracketDepth(text: string, at: number, onLine?: (lineStart: number, depth: number) => void): number {
  let depth = 0;
  for (let i = 0; i < at; i++) {
    const c = text[i];
    if (c === '\n') onLine?.(i + 1, depth);
    else if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
    else if (c === '"' || c === "'") {
      const q = text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      let close = i + q.length;
      // a single-quoted string ends at its quote or at the end of the line
      for (; close < at; close++) {
        if (text[close] === '\\') close++;
        else if (text.startsWith(q, close) || (q.length === 1 && text[close] === '\n')) break;
      }
      if (onLine) for (let j = text.indexOf('\n', i); j >= 0 && j < close; j = text.indexOf('\n', j + 1)) onLine(j + 1, depth);
      i = close + q.length - 1;
    } else if (c === '#') {
      const nl = text.indexOf('\n', i);
      if (nl < 0) break;
      i = nl - 1;
    }
  }
  return depth;
}

/**
 * `setattr(self, name, ...)` at `at` sets only names the method read off the instance before with
 * `getattr(self, name)` (no default: a missing one raises): `name` is the loop variable of
 * `for name in X` or `for name, v in X.items()` right above, and X is a collection each of whose
 * names the method reads so (`{k: getattr(self, k) for k in X}`), or a dict built so from one
 * (`saved = {k: getattr(self, k) for k in attrs}` ... `for k, v in saved.items(): setattr(self, k, v)`).
 */
function restoresOnly(raw: string, self: string, name: string, at: number): boolean {
  const before = raw.slice(0, at);
  const loops = [...before.matchAll(new RegExp(`\\bfor\\s+${name}\\s*(?:,\\s*\\w+\\s*)?in\\s+(\\w+)(?:\\.(?:items|keys)\\(\\))?\\s*:`, 'g'))];
  const loop = loops.at(-1);
  if (!loop) return false;
  /** Every name of `coll` is read off the instance first (followed through one dict built from another). */
  const readFirst = (coll: string, depth: number): boolean => {
    if (new RegExp(`getattr\\(\\s*${self}\\s*,\\s*(\\w+)\\s*\\)\\s*for\\s+\\1\\s+in\\s+${coll}\\b`).test(before)) return true;
    if (depth > 0) return false;
    const built = new RegExp(`^[ \\t]*${coll}\\s*(?::[^=\\n]*)?=\\s*\\{\\s*(\\w+)\\s*:\\s*getattr\\(\\s*${self}\\s*,\\s*\\1\\s*\\)\\s*for\\s+\\1\\s+in\\s+(\\w+)\\s*\\}`, 'm').exec(raw);
    return !!built && readFirst(built[2], depth + 1);
  };
  return readFirst(loop[1], 0);
}

/**
 * A method writes the instance's attributes by computed names: `setattr(self, ...)` with a name
 * that is not a literal, `self.__dict__`, `vars(self)`, `object.__setattr__(self, name, ...)`.
 * Gives `*` when it may write any name, the names when each computed name is known to be one of
 * a few string literals (see `namesOf`), or undefined when it writes none. Names registered with
 * torch.nn.Module (`self.register_buffer("x", ...)`) count too, `?` for one it cannot tell.
 */
function dynamicAttributes(raw: string, self: string): '*' | string[] | undefined {
  const registers = raw.includes('.register_') || raw.includes('.add_module');
  if (!registers && !raw.includes('setattr') && !raw.includes('__dict__') && !raw.includes('vars(')) return undefined;
  // the instance's namespace written (`self.__dict__.update(...)`, `vars(self)[k] = v`), not only
  // read (`self.__dict__.items()`, `k in vars(self)`)
  for (const m of raw.matchAll(new RegExp(`\\b${self}\\.__dict__|\\bvars\\(\\s*${self}\\s*\\)`, 'g'))) {
    const after = raw.slice(m.index! + m[0].length, m.index! + m[0].length + 12);
    const before = raw.slice(Math.max(0, m.index! - 8), m.index!);
    if (/^\s*\.\s*(items|keys|values|get|copy)\s*\(/.test(after) || /\bin\s+$/.test(before)) continue;
    return '*';
  }
  const names: string[] = [];
  // what torch.nn.Module's __getattr__ serves: `self.register_buffer("name", ...)` and the like
  if (registers) {
    for (const m of raw.matchAll(new RegExp(`\\b${self}\\s*\\.\\s*(?:register_buffer|register_parameter|register_module|add_module)\\s*\\(\\s*(?:(['"])(\\w+)\\1\\s*[,)]|(\\w+)\\s*,)?`, 'g'))) {
      if (m[2]) names.push(m[2]);
      else {
        // a name it cannot tell: `?`, any name may be served (a registered name never hides a method)
        const known = m[3] ? namesOf(raw, m[3], m.index!) : undefined;
        names.push(...(known ?? ['?']));
      }
    }
  }
  for (const m of raw.matchAll(/(?:\bsetattr|__setattr__)\(\s*(\w+)\s*,\s*(['"]?)/g)) {
    if (m[1] !== self || m[2]) continue;
    const name = /^[A-Za-z_]\w*(?=\s*,)/.exec(raw.slice(m.index! + m[0].length, m.index! + m[0].length + 200))?.[0];
    // names the method has read off the instance first (a save and restore): none is new
    if (name && restoresOnly(raw, self, name, m.index!)) continue;
    const known = name ? namesOf(raw, name, m.index!) : undefined;
    if (!known) return '*';
    names.push(...known);
  }
  return names.length ? names : undefined;
}

/**
 * The string literals a name holds at offset `at` of a body, when the code says so: the body of
 * `for name in ("a", "b"):` that holds `at`, or a statement `assert name in S` before `at` in the
 * same block or an enclosing one (S a literal set, tuple or list of strings, or a name the body
 * binds once to one), with no rebinding of the name and no nested definition in between. Python
 * run with `-O` skips assertions; the names are then the ones callers pass, which the code says
 * must be these.
 */
function namesOf(raw: string, name: string, at: number): string[] | undefined {
  const lineStart = (i: number): number => raw.lastIndexOf('\n', i - 1) + 1;
  const indent = (i: number): number => (i === 0 ? 0 : /^[ \t]*/.exec(raw.slice(i))![0].length);
  /** Every line from the one at `from` (excluded) to the one holding `at` is in the block of the first, and binds nothing of interest. */
  const dominated = (from: number, deeper: boolean): boolean => {
    const base = indent(from);
    const nl = raw.indexOf('\n', from);
    if (nl < 0 || nl >= at) return false;
    const between = raw.slice(nl + 1, at);
    for (const line of between.split('\n')) {
      if (!line.trim()) continue;
      const ind = /^[ \t]*/.exec(line)![0].length;
      if (deeper ? ind <= base : ind < base) return false;
      if (/^\s*(async\s+def|def|class)\b|\blambda\b/.test(line)) return false;
    }
    return !rebinds(between, name);
  };
  const literal = (text: string): string[] | undefined => {
    const m = /^\s*[[({]\s*((?:(['"])\w+\2\s*,\s*)*(['"])\w+\3\s*,?)\s*[\])}]\s*$/.exec(text);
    return m ? [...m[1].matchAll(/['"](\w+)['"]/g)].map((x) => x[1]) : undefined;
  };
  const fromText = (text: string): string[] | undefined => {
    const direct = literal(text);
    if (direct) return direct;
    const id = /^\s*([A-Za-z_]\w*)\s*$/.exec(text)?.[1];
    if (!id) return undefined;
    const binds = [...raw.matchAll(new RegExp(`^[ \\t]*${id}\\s*(?::[^=\\n]*)?=(?!=)([^\\n]*)$`, 'gm'))];
    if (binds.length !== 1 || binds[0].index! >= at) return undefined;
    // bound once, by that statement only
    const others = raw.slice(0, binds[0].index) + raw.slice(binds[0].index! + binds[0][0].length);
    return rebinds(others, id) ? undefined : literal(binds[0][1]);
  };
  const before = raw.slice(0, at);
  const loops = [...before.matchAll(new RegExp(`^[ \\t]*(?:async\\s+)?for\\s+${name}\\s+in\\s+([^\\n]*):[ \\t]*$`, 'gm'))];
  const loop = loops[loops.length - 1];
  if (loop) {
    const names = literal(loop[1]);
    if (names && dominated(lineStart(loop.index! + loop[0].length - 1), true)) return names;
  }
  const asserts = [...before.matchAll(new RegExp(`^[ \\t]*assert\\s+${name}\\s+in\\s+([^,\\n]*?)\\s*(?:,|$)`, 'gm'))];
  const a = asserts[asserts.length - 1];
  if (a) {
    const names = fromText(a[1]);
    const start = lineStart(a.index! + a[0].length - 1);
    if (names && dominated(start, false)) return names;
  }
  return undefined;
}

/**
 * The one dotted name whose call every `return` of a body (no `yield`) gives: `return f(...)`,
 * alone on its line once the call closes, or `return name` for a local (no parameter) bound once,
 * by a statement `name = f(...)` of its own, and by nothing else (`llm = vllm.LLM(...)`, then
 * `return llm`). A path that falls off the end gives None, on which a method call fails anyway.
 */
function returnedCallee(raw: string, params: string[]): string | undefined {
  if (/\byield\b/.test(raw)) return undefined;
  const returns = [...raw.matchAll(/^[ \t]*return\b([^\n]*)$/gm)];
  if (returns.length === 0) return undefined;
  /** The call whose bracket opens at `open` closes on its line, with nothing after it. */
  const wholeCall = (open: number): boolean => {
    const close = matchParen(raw, open);
    if (close < 0) return false;
    const nl = raw.indexOf('\n', close);
    return /^\s*(#.*)?$/.test(raw.slice(close + 1, nl < 0 ? raw.length : nl));
  };
  let callee: string | undefined;
  for (const r of returns) {
    const value = r[1];
    const start = r.index! + r[0].length - value.length;
    let name: string;
    const direct = /^\s+([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)\(/.exec(value);
    if (direct) {
      name = direct[1];
      if (!wholeCall(start + direct[0].length - 1)) return undefined;
    } else {
      const id = /^\s+([A-Za-z_]\w*)\s*$/.exec(value)?.[1];
      if (!id || params.includes(id)) return undefined;
      const binds = [...raw.matchAll(new RegExp(`^[ \\t]*${id}\\s*=\\s*([A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*)*)\\(`, 'gm'))];
      if (binds.length !== 1) return undefined;
      const b = binds[0];
      name = b[1];
      if (!wholeCall(b.index! + b[0].length - 1)) return undefined;
      if (rebinds(raw.slice(0, b.index) + raw.slice(b.index! + b[0].length), id)) return undefined;
    }
    if (callee !== undefined && callee !== name) return undefined;
    callee = name;
  }
  return callee;
}

/**
 * An alternative constructor: a classmethod whose every `return` gives `cls(...)` (see
 * `returnedCallee`), `cls` its first parameter and never rebound (`engine_args = cls(**kw)`, then
 * `return engine_args`). Its value is an instance of the class it is called on.
 */
function buildsOwnClass(raw: string, params: string[]): boolean {
  const cls = params[0];
  return returnedCallee(raw, params) === cls && !rebinds(raw, cls);
}

/**
 * What a function returns when every `return` gives a call of one dotted name of its module (see
 * `returnedCallee`): that name, when its first name is none of the parameters and the body does
 * not bind it.
 */
function returnedCall(raw: string, params: string[]): string | undefined {
  const callee = returnedCallee(raw, params);
  const root = callee?.split('.')[0];
  if (!callee || params.includes(root!) || root === 'super' || rebinds(raw, root!)) return undefined;
  return callee;
}

/** The closing bracket of the one opened at `open` (strings on the way skipped), or -1. */
function matchParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length && i < open + 20000; i++) {
    const c = text[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') {
      if (--depth === 0) return i;
    } else if (c === '"' || c === "'") {
      const q = text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
      const close = text.indexOf(q, i + q.length);
      if (close < 0) return -1;
      i = close + q.length - 1;
    } else if (c === '#') {
      const nl = text.indexOf('\n', i);
      if (nl < 0) return -1;
      i = nl;
    }
  }
  return -1;
}

/** Where a line's assignment `=` at bracket depth 0 is (not `==`, `<=`, `!=`, a keyword argument...), or -1. */
/** The class `C` of a parameter annotated `type[C]` (a class the caller passes, C or a subclass). */
function classOfTypeParam(params: Param[], name: string): string | undefined {
  const p = params.find((q) => q.name === name && (q.kind === 'normal' || q.kind === 'kwonly' || q.kind === 'posonly'));
  return p?.annotation ? /^(?:typing\.)?[tT]ype\[\s*([A-Za-z_][\w.]*)\s*\]$/.exec(p.annotation.trim())?.[1] : undefined;
}

function topLevelAssign(line: string): number {
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '(' || c === '[' || c === '{') depth++;
    else if (c === ')' || c === ']' || c === '}') depth--;
    else if (c === '#' || c === '"' || c === "'") return -1;
    else if (c === '=' && depth === 0 && line[i + 1] !== '=' && !'=<>!:+-*/%&|^@'.includes(line[i - 1] ?? '')) return i;
  }
  return -1;
}

function walkClassBody(body: Node | null, cls: ClassInfo, ctx: Ctx, conditional: boolean, overloads: Set<string>): void {
  for (const s of statements(body)) {
    const line = line1(s);
    const def = definitionOf(s);
    if (!def) continue;
    if (def.type === 'function_definition') {
      // a method whose text and place did not change gives what it gave (a keystroke in one
      // method of a big class summarises that method only)
      const key = ctx.methods ? `${s.startPosition.row}:${s.startPosition.column}:${s.text}` : '';
      let facts = ctx.methods?.last.get(key);
      // the method did not change since the last check: what is known of it is kept over many
      // versions of the file from now on (a method being typed in is not copied at each keystroke)
      if (facts) facts = ownedFacts(facts);
      else {
        const decorators = decoratorsOf(s);
        const self = paramsOf(def)[0]?.name;
        const raw = bodyText(def);
        const attrs = new Set<string>();
        const assigns = new Map<string, string[]>();
        if (self && raw.includes(self)) {
          for (const m of raw.matchAll(selfAttrPattern(self))) attrs.add(m[1]);
          attrAssignments(raw, self, paramsOf(def), assigns, attrs, ctx.imports ?? { name: ctx.module, isPackage: ctx.isPackage });
        }
        // `__setstate__` gives an unpickled instance back the attributes it had: no name of its own
        const dynamic = self && def.childForFieldName('name')?.text !== '__setstate__' ? dynamicAttributes(raw, self) : undefined;
        if (dynamic === '*') attrs.add('*');
        // a computed name known to be one of a few: each of them is written, with a value not followed
        else for (const a of dynamic ?? []) {
          attrs.add(a);
          assigns.set(a, [...(assigns.get(a) ?? []), '?']);
        }
        facts = { fn: isOverload(decorators) ? undefined : functionInfo(def, decorators, true), attrs: [...attrs], assigns };
      }
      // (the key too: an old version of a method stays among the keys for a while)
      ctx.methods?.next.set(ownString(key), facts);
      for (const a of facts.attrs) cls.instanceAttrs.add(a);
      for (const [a, list] of facts.assigns) {
        const to = cls.attrAssigns.get(a);
        if (to) to.push(...list);
        else cls.attrAssigns.set(a, [...list]);
      }
      if (!facts.fn) {
        overloads.add(def.childForFieldName('name')?.text ?? '?');
        continue;
      }
      const fn = facts.fn;
      addBinding(cls.members, fn.name, { kind: 'def', fn, conditional, line });
    } else if (def.type === 'class_definition') {
      const inner = classInfo(def, decoratorsOf(s), ctx, cls.qualname);
      addBinding(cls.members, inner.name, { kind: 'class', cls: inner, conditional, line });
    } else if (s.type === 'expression_statement') {
      const a = s.namedChildren[0];
      if (a?.type === 'assignment') {
        const left = a.childForFieldName('left');
        const type = a.childForFieldName('type');
        const right = a.childForFieldName('right');
        if (left?.type === 'identifier' && type) {
          cls.fields.push({ name: left.text, annotation: annotationText(type.text), line, value: right ? toExpr(right) : undefined });
          if (right) addBinding(cls.members, left.text, { kind: 'value', expr: toExpr(right), conditional, line });
        } else if (left) {
          // `A = B = value` binds every target in the chain
          let cur: Node | null = a;
          let value: Node | null = right;
          while (value && value.type === 'assignment') value = value.childForFieldName('right');
          while (cur && cur.type === 'assignment') {
            const l = cur.childForFieldName('left');
            const names: string[] = [];
            if (l) identifierTargets(l, names);
            for (const n of names) {
              const b: Binding = l?.type === 'identifier' && value ? { kind: 'value', expr: toExpr(value), conditional, line } : { kind: 'opaque', conditional, line };
              addBinding(cls.members, n, b);
            }
            const r: Node | null = cur.childForFieldName('right');
            cur = r && r.type === 'assignment' ? r : null;
          }
        }
      }
    } else if (s.type === 'if_statement' || s.type === 'try_statement') {
      for (const block of branchBlocks(s)) walkClassBody(block.node, cls, ctx, true, overloads);
    }
  }
}

interface Branch {
  node: Node | null;
  typeCheckingOnly: boolean;
  /** The `except`/`else`/`finally` clause that holds the block, in a try statement. */
  clause?: Node;
}

/** The blocks of an if/try/with/for statement. */
function branchBlocks(s: Node, script = false): Branch[] {
  const out: Branch[] = [];
  if (s.type === 'if_statement') {
    const cond = s.childForFieldName('condition');
    if (isMainGuard(cond) && !script) return out; // runs only as a script, never on import
    out.push({ node: s.childForFieldName('consequence'), typeCheckingOnly: isTypeCheckingTest(cond) });
    for (const alt of s.childrenForFieldName('alternative')) {
      if (!alt) continue;
      out.push({ node: alt.childForFieldName('consequence') ?? alt.childForFieldName('body'), typeCheckingOnly: false });
    }
  } else if (s.type === 'try_statement') {
    for (const c of s.namedChildren) {
      if (!c) continue;
      if (c.type === 'block') out.push({ node: c, typeCheckingOnly: false });
      else if (['except_clause', 'except_group_clause', 'else_clause', 'finally_clause'].includes(c.type)) {
        const blk = c.namedChildren.find((x) => x?.type === 'block') ?? null;
        out.push({ node: blk, typeCheckingOnly: false, clause: c });
      }
    }
  } else if (s.type === 'with_statement' || s.type === 'for_statement' || s.type === 'while_statement') {
    out.push({ node: s.childForFieldName('body'), typeCheckingOnly: false });
    const alt = s.childForFieldName('alternative');
    if (alt) out.push({ node: alt.childForFieldName('body'), typeCheckingOnly: false });
  } else if (s.type === 'match_statement') {
    for (const c of s.childForFieldName('body')?.namedChildren ?? []) if (c?.type === 'case_clause') out.push({ node: c.childForFieldName('consequence'), typeCheckingOnly: false });
  }
  return out;
}

/** Functions that tell whether a module can be imported, by the module's name: `importlib.util.find_spec("m")`, `is_package_available("m")`. */
const AVAILABILITY_TESTS = /^(find_spec|find_loader|_?is_\w*available\w*|_?\w*_available)$/;

/**
 * An `if` with one `else` (no `elif`) whose condition tests that a module can be imported, by its
 * name alone: `find_spec("m") is not None`, `importlib.util.find_spec("m")`, `is_package_available("m")`,
 * or the negation of one (`positive` false: the `else` branch runs where the module is there).
 */
export function availabilityTest(s: Node): { module: string; positive: boolean } | undefined {
  const alts = s.childrenForFieldName('alternative');
  if (alts.length !== 1 || alts[0]?.type !== 'else_clause') return undefined;
  let cond = s.childForFieldName('condition');
  let positive = true;
  for (;;) {
    if (!cond) return undefined;
    if (cond.type === 'parenthesized_expression') cond = cond.namedChildren.find((c) => c?.type !== 'comment') ?? null;
    else if (cond.type === 'not_operator') {
      positive = !positive;
      cond = cond.childForFieldName('argument');
    } else if (cond.type === 'comparison_operator') {
      // `X is not None` / `X is None`
      const parts = cond.namedChildren.filter((c) => c && c.type !== 'comment');
      const ops = cond.children.filter((c) => c && !c.isNamed).map((c) => c!.text).join(' ');
      if (parts.length !== 2 || parts[1]!.type !== 'none' || (ops !== 'is not' && ops !== 'is')) return undefined;
      if (ops === 'is') positive = !positive;
      cond = parts[0];
    } else break;
  }
  if (cond.type !== 'call') return undefined;
  const fn = cond.childForFieldName('function')?.text.replace(/\s+/g, '').split('.').pop() ?? '';
  const args = cond.childForFieldName('arguments')?.namedChildren.filter((c) => c && c.type !== 'comment') ?? [];
  if (!AVAILABILITY_TESTS.test(fn) || args.length !== 1 || args[0]!.type !== 'string') return undefined;
  const m = /^(['"])([A-Za-z_][\w.]*)\1$/.exec(args[0]!.text);
  return m ? { module: m[2], positive } : undefined;
}

/** Whether an `except` clause catches an ImportError (by that name, a base of it, or bare). */
export function catchesImportError(clause: Node): boolean {
  const block = clause.namedChildren.find((x) => x?.type === 'block');
  const head = clause.text.slice(0, block ? block.startIndex - clause.startIndex : undefined);
  return /^except\s*:/.test(head) || /\b(ImportError|ModuleNotFoundError|Exception|BaseException)\b/.test(head);
}

/**
 * The imports of a module-level `try:` block whose statements are only imports and assignments of
 * literals (`HAS_X = True`): what decides whether its ImportError handlers run. Undefined for any
 * other block, which may fail for other reasons.
 */
function importTry(s: Node, ctx: Ctx): Omit<ImportTry, 'role'> | undefined {
  const imports = importsOfTry(s, ctx.imports ?? { name: ctx.module, isPackage: ctx.isPackage });
  return imports ? { line: line1(s), imports } : undefined;
}

/** What a `try:` block imports, when its statements are only imports and assignments of literals; else undefined. */
export function importsOfTry(s: Node, current: { name: string; isPackage: boolean }): ImportTry['imports'] | undefined {
  const body = s.namedChildren.find((c) => c?.type === 'block');
  if (!body) return undefined;
  const imports: ImportTry['imports'] = [];
  for (const st of statements(body)) {
    if (st.type === 'import_statement') {
      for (const c of st.namedChildren) {
        const dn = c?.type === 'aliased_import' ? c.childForFieldName('name') : c?.type === 'dotted_name' ? c : null;
        if (dn) imports.push({ module: dn.text.replace(/\s+/g, '') });
      }
    } else if (st.type === 'import_from_statement') {
      const modNode = st.childForFieldName('module_name');
      const module = modNode ? absoluteModule(modNode, current) : undefined;
      if (!module) return undefined;
      const names = st.childrenForFieldName('name').map((c) => (c?.type === 'aliased_import' ? c.childForFieldName('name')?.text : c?.text));
      if (names.length === 0) imports.push({ module });
      for (const name of names) if (name) imports.push({ module, name });
    } else if (st.type === 'pass_statement' && rawImports?.has(st.startPosition.row)) {
      const imp = rawImports.get(st.startPosition.row)!;
      if (!imp.from) for (const [full] of imp.names) imports.push({ module: full });
      else {
        const module = imp.from.level > 0 ? resolveRelative(current.name, current.isPackage, imp.from.level, imp.from.module) : imp.from.module;
        if (!module) return undefined;
        if (imp.star) imports.push({ module });
        for (const [name] of imp.names) imports.push({ module, name });
      }
    } else if (st.type === 'expression_statement' && st.namedChildren.length === 1 && st.namedChildren[0]?.type === 'assignment') {
      const a = st.namedChildren[0];
      const right = a.childForFieldName('right');
      if (a.childForFieldName('left')?.type !== 'identifier' || !right || !['true', 'false', 'none', 'integer', 'float', 'string'].includes(right.type)) return undefined;
    } else return undefined;
  }
  return imports.length > 0 ? imports : undefined;
}

/** Original bodies of the functions the skeleton emptied, while a skeleton is summarised. */
let rawBodies: { get(row: number): string | undefined; has(row: number): boolean } | undefined;
/** Parameters the skeleton read off the text (their lists are blank in the tree), by `def` row. */
let rawParams: Map<number, Param[]> | undefined;
/** Module-level imports the skeleton read off the text (each is a `pass` in the tree), by row. */
let rawImports: Map<number, TextImport> | undefined;

/** Return annotations the skeleton read off the text (blanked with the parameter lists), by `def` row. */
let rawReturns: Map<number, string> | undefined;

/** A function's return annotation as the skeleton reads it off the text: whitespace collapsed, comments dropped. */
function returnsOf(def: Node): string | undefined {
  const row = def.startPosition.row;
  if (rawParams?.has(row)) return rawReturns?.get(row);
  const t = def.childForFieldName('return_type')?.text;
  return t ? t.replace(/#[^\n]*/g, '').replace(/\s+/g, ' ').trim() || undefined : undefined;
}

function paramsOf(def: Node): Param[] {
  return rawParams?.get(def.startPosition.row) ?? readParams(def.childForFieldName('parameters'));
}

/** The text of a function's body: the original one when the skeleton emptied it. */
function bodyText(def: Node): string {
  // whole-line comments are dropped: where a body ends among them is a matter of parser taste
  const text = rawBodies?.get(def.startPosition.row) ?? def.childForFieldName('body')?.text ?? '';
  return text.includes('#') ? text.replace(/^[ \t]*#.*$/gm, '') : text;
}

/**
 * Summarises a target module. By default only its skeleton is parsed (function bodies the
 * summary does not need are emptied first); `full` parses everything, for comparison.
 */
export function summarizeModule(text: string, name: string, isPackage: boolean, file: string, full = false): ModuleSummary {
  let sk = full ? undefined : skeletonize(text);
  let tree = parsePython(sk ? sk.text : text);
  if (sk && (sk.params.size > 0 || sk.imports.size > 0) && tree.rootNode.hasError) {
    // where the parser recovers from errors, what was read off the text could change how: parse as before
    tree.delete();
    sk = skeletonize(text, { readOffText: false });
    tree = parsePython(sk.text);
  }
  rawBodies = sk?.bodies;
  rawParams = sk?.params;
  rawReturns = sk?.returns;
  rawImports = sk?.imports;
  try {
    return summarizeTree(tree.rootNode, text, name, isPackage, file);
  } finally {
    rawBodies = undefined;
    rawParams = undefined;
    rawReturns = undefined;
    rawImports = undefined;
    tree.delete();
  }
}

/**
 * What the top-level definitions and imports of a file bound in its last summary, by row and
 * text, for re-summarising an edited file: a `def`, `class` or import whose text and row are
 * unchanged binds the same (function summaries are taken over as they are, class summaries
 * copied, since class objects key caches of what their bases resolve to).
 */
export class SummaryMemo {
  parts = new Map<string, Array<[string, Binding]>>();
  methods = new Map<string, MethodFacts>();
}

function copyBinding(b: Binding): Binding {
  return b.kind === 'class' ? structuredClone(b) : b;
}

/** Gives the name of each `:=` in `n` that binds in the scope `n` is in (not inside a def, class or lambda, nor in the blocks of compound statements, which are walked as statements). */
function bindWalrus(n: Node, to: (name: string) => void): void {
  for (const c of n.namedChildren) {
    if (!c || LEAF_TYPES.has(c.type) || c.type === 'block' || c.type === 'lambda' || c.type === 'function_definition' || c.type === 'class_definition' || c.type === 'decorated_definition') continue;
    if (c.type === 'named_expression') {
      const nm = c.childForFieldName('name');
      if (nm) to(nm.text);
    }
    bindWalrus(c, to);
  }
}

/**
 * The summary of a parsed module. `script`: the file as it runs as a script (its own check), with
 * what its top-level `if __name__ == "__main__":` block binds; an importer never sees that.
 */
export function summarizeTree(root: Node, text: string, name: string, isPackage: boolean, file: string, memo?: SummaryMemo, imports?: { name: string; isPackage: boolean }, script = false): ModuleSummary {
  const ctx: Ctx = { module: name, isPackage, imports, methods: memo ? { last: memo.methods, next: new Map() } : undefined };
  const parts = memo ? new Map<string, Array<[string, Binding]>>() : undefined;
  /** The bindings of the top-level definition being summarised, for the memo. */
  let recording: Array<[string, Binding]> | undefined;
  const summary: ModuleSummary = {
    name,
    isPackage,
    file,
    bindings: new Map(),
    starImports: [],
    all: null,
    getattr: { kind: 'none' },
    // the pattern is tried only on text that has one of its fixed parts
    dynamic: (text.includes('globals()') || text.includes('vars()') || text.includes('locals()') || text.includes('sys.modules') || text.includes('._convert_(')) && DYNAMIC_NAMESPACE.test(ownEntryNamed(text, name).replace(REBINDS_GLOBAL, '').replace(READS_OWN_MODULE, '')),
    typeCheckingOnly: new Set(),
    registersModules: REGISTERS_MODULES.test(text),
  };
  const defaultsSet = text.includes('defaults__') ? [...new Set([...text.matchAll(/(?<![\w.])([A-Za-z_]\w*)(?:\.__new__|\.__init__)?\.__(?:kw)?defaults__[ \t]*=(?!=)/g)].map((m) => m[1]))] : [];
  if (defaultsSet.length > 0) summary.defaultsSet = defaultsSet;
  const decoratorArgs = text.includes('@') ? [...new Set([...text.matchAll(/^[ \t]*@[ \t]*[A-Za-z_][\w.]*[ \t]*\([ \t]*([A-Za-z_][\w.]*)[ \t]*[,)]/gm)].map((m) => m[1].slice(m[1].lastIndexOf('.') + 1)))] : [];
  if (decoratorArgs.length > 0) summary.decoratorArgs = decoratorArgs;
  const globalsSet = text.includes('global') ? [...new Set([...text.matchAll(/^[ \t]+global[ \t]+([A-Za-z_][\w \t,]*)/gm)].flatMap((m) => m[1].split(',').map((x) => x.trim()).filter(Boolean)))] : [];
  if (globalsSet.length > 0) summary.globalsSet = globalsSet;
  const getattrDefs: Node[] = [];
  const overloads: Array<{ name: string; line: number; typeChecking: boolean }> = [];
  const walrus = text.includes(':=');

  const walk = (stmts: Node[], conditional: boolean, typeChecking: boolean, top = false, tryImport?: ImportTry): void => {
    const bind = (n: string, b: Binding): void => {
      if (tryImport) b.tryImport = tryImport;
      if (typeChecking) {
        summary.typeCheckingOnly.add(n);
        addBinding((summary.typeCheckingBindings ??= new Map()), n, b);
      }
      else addBinding(summary.bindings, n, b);
      recording?.push([n, b]);
    };
    for (const s of stmts) {
      const line = line1(s);
      const def = definitionOf(s);
      if (!def) continue;
      let key: string | undefined;
      if (top && memo && parts && (def.type === 'function_definition' || def.type === 'class_definition' || def.type === 'import_statement' || def.type === 'import_from_statement')) {
        key = `${name}\0${isPackage}\0${imports?.name ?? ''}\0${imports?.isPackage ?? ''}\0${line}\0${s.text}`;
        const known = memo.parts.get(key);
        if (known) {
          for (const [n, b] of known) bind(n, copyBinding(b));
          parts.set(key, known);
          continue;
        }
        if (!s.hasError) recording = [];
      }
      try {
        summarizeStatement(s, def, line, conditional, typeChecking, bind, top);
        // `(x := ...)` anywhere in a statement of this level (a comprehension's too, PEP 572)
        // binds x here; a function's or a lambda's binds in that function
        if (walrus && def.type !== 'function_definition' && def.type !== 'class_definition') bindWalrus(s, (n) => bind(n, { kind: 'opaque', conditional: true, line }));
      } finally {
        if (key !== undefined && recording) parts!.set(key, recording);
        recording = undefined;
      }
    }
  };
  /** `top`: the statement is one of the module's top level. */
  const summarizeStatement = (s: Node, def: Node, line: number, conditional: boolean, typeChecking: boolean, bind: (n: string, b: Binding) => void, top: boolean): void => {
    {
      if (def.type === 'function_definition') {
        const decorators = decoratorsOf(s);
        if (isOverload(decorators)) {
          overloads.push({ name: def.childForFieldName('name')?.text ?? '?', line, typeChecking });
          return;
        }
        const fn = functionInfo(def, decorators, true);
        bind(fn.name, { kind: 'def', fn, conditional, line });
        if (fn.name === '__getattr__' && !typeChecking) {
          getattrDefs.push(def);
          recording = undefined; // read from its node at the end: never taken over
        }
      } else if (def.type === 'class_definition') {
        const cls = classInfo(def, decoratorsOf(s), ctx, '');
        bind(cls.name, { kind: 'class', cls, conditional, line });
        if (cls.decorators.some((d) => /(^|\.)global_enum$/.test(dotted(d) ?? ''))) {
          // enum.global_enum copies the members into the module's namespace
          for (const [member, bs] of cls.members) if (bs.some((b) => b.kind === 'value')) bind(member, { kind: 'opaque', conditional, line });
        }
      } else if (s.type === 'type_alias_statement') {
        const left = s.childForFieldName('left');
        const id = left?.type === 'identifier' ? left : left?.namedChildren.find((c) => c?.type === 'identifier');
        if (id) bind(id.text, { kind: 'opaque', conditional, line });
      } else if (s.type === 'import_statement' || s.type === 'import_from_statement') {
        const onStar = (m: string): void => {
          recording = undefined; // a star import is not a binding: never taken over
          if (!typeChecking) summary.starImports.push(m);
        };
        for (const [n, b] of importBindings(s, ctx.imports ?? { name: ctx.module, isPackage: ctx.isPackage }, conditional, onStar)) bind(n, b);
      } else if (s.type === 'pass_statement') {
        const imp = rawImports?.get(line - 1);
        if (imp) for (const [n, b] of textImportBindings(imp, line, ctx.imports ?? { name: ctx.module, isPackage: ctx.isPackage }, conditional, (m) => (typeChecking ? undefined : summary.starImports.push(m)))) bind(n, b);
      } else if (s.type === 'expression_statement') {
        const e = s.namedChildren[0];
        if (!e) return;
        if (e.type === 'assignment') {
          let a: Node | null = e;
          const right = lastRight(e);
          while (a && a.type === 'assignment') {
            const left = a.childForFieldName('left');
            if (left?.type === 'identifier') {
              const type = a.childForFieldName('type');
              if (type && !a.childForFieldName('right')) {
                // a bare annotation binds nothing; it declares what the name holds
                const text = type.text;
                const was = (summary.declared ??= new Map()).get(left.text);
                summary.declared.set(left.text, was === undefined || was === text ? text : '');
              } else {
                bind(left.text, { kind: 'value', expr: toExpr(right), conditional, line });
                if (left.text === '__all__' && !typeChecking) {
                  const v = toExpr(right);
                  summary.all = v.kind === 'strs' ? v.values : 'dynamic';
                }
              }
            } else if (left) {
              const names: string[] = [];
              identifierTargets(left, names);
              for (const n of names) bind(n, { kind: 'opaque', conditional, line });
            }
            const r = a.childForFieldName('right');
            a = r && r.type === 'assignment' ? r : null;
          }
        } else if (e.type === 'augmented_assignment') {
          const left = e.childForFieldName('left');
          if (left?.type === 'identifier') {
            if (left.text === '__all__' && !typeChecking) {
              const v = toExpr(e.childForFieldName('right'));
              if (Array.isArray(summary.all) && v.kind === 'strs') summary.all = [...summary.all, ...v.values];
              else summary.all = 'dynamic';
            }
            if (!summary.bindings.has(left.text)) bind(left.text, { kind: 'opaque', conditional, line });
          }
        } else if (e.type === 'call' && /^__all__\s*\.\s*(extend|append|remove|\+=)/.test(e.text)) {
          summary.all = 'dynamic';
        } else if (e.type === 'call' && /^(exec|eval)$/.test(e.childForFieldName('function')?.text ?? '')) {
          summary.dynamic = true;
        }
      } else if (s.type === 'if_statement' || s.type === 'try_statement' || s.type === 'with_statement' || s.type === 'for_statement' || s.type === 'while_statement' || s.type === 'match_statement') {
        if (s.type === 'match_statement') {
          // what a case pattern captures is bound where that case matches
          const names: string[] = [];
          for (const c of s.childForFieldName('body')?.namedChildren ?? []) {
            if (c?.type === 'case_clause') for (const p of c.namedChildren) if (p?.type === 'case_pattern') patternCaptures(p, names);
          }
          for (const n of names) bind(n, { kind: 'opaque', conditional: true, line });
        }
        if (s.type === 'for_statement') {
          const names: string[] = [];
          const left = s.childForFieldName('left');
          if (left) identifierTargets(left, names);
          for (const n of names) bind(n, { kind: 'opaque', conditional: true, line });
        }
        if (s.type === 'with_statement') {
          for (const item of s.descendantsOfType('as_pattern_target')) {
            const names: string[] = [];
            if (item) identifierTargets(item.namedChildren[0] ?? item, names);
            for (const n of names) bind(n, { kind: 'opaque', conditional: false, line });
          }
        }
        // a try block of imports and its ImportError handlers bind one or the other
        const plan = s.type === 'try_statement' ? importTry(s, ctx) : undefined;
        const attempt: ImportTry | undefined = plan && { ...plan, role: 'attempt' };
        const fallback: ImportTry | undefined = plan && { ...plan, role: 'fallback' };
        // so do the branches of `if find_spec("m") is not None: ... else: ...`: the first runs
        // where `m` can be imported, the other where it cannot
        const available = s.type === 'if_statement' ? availabilityTest(s) : undefined;
        const branches = branchBlocks(s, script && top);
        for (const [i, b] of branches.entries()) {
          const mark = available ? { line, imports: [{ module: available.module }], role: (i === 0) === available.positive ? ('attempt' as const) : ('fallback' as const) } : !b.clause ? attempt : b.clause.type === 'except_clause' && catchesImportError(b.clause) ? fallback : undefined;
          walk(statements(b.node), true, typeChecking || b.typeCheckingOnly, false, mark);
        }
      }
    }
  };
  walk(statements(root), false, false, true);
  if (memo && parts) memo.parts = parts;
  if (memo && ctx.methods) {
    // methods of classes taken over whole were not walked: what is known of them is kept (a few thousand at most)
    const { last, next } = ctx.methods;
    // (an old version of a method being typed in is among them: copied off its text, once)
    if (last.size + next.size < 4000) for (const [k, v] of last) if (!next.has(k)) next.set(k, ownedFacts(v));
    memo.methods = next;
  }

  // A name bound only under TYPE_CHECKING but also elsewhere is a runtime name.
  for (const n of summary.typeCheckingOnly) if (summary.bindings.has(n)) summary.typeCheckingOnly.delete(n);

  if (getattrDefs.length > 0) {
    const d = getattrDefs[getattrDefs.length - 1];
    const found = getattrDefs.length === 1 ? getattrNames(d, summary.bindings, ctx) : undefined;
    summary.getattr = found ? { kind: 'names', names: found.names, lazy: found.lazy, line: line1(d), ...(found.served ? { served: found.served } : {}) } : { kind: 'opaque', line: line1(d) };
  }
  // a stub's function given by overloads alone is there, with signatures the engine does not model
  for (const o of overloads) if (!o.typeChecking && !summary.bindings.has(o.name)) addBinding(summary.bindings, o.name, { kind: 'opaque', conditional: false, line: o.line });
  // `__getattr__ = make_getattr(__name__)`, `from ._migration import __getattr__`: a module
  // __getattr__ bound otherwise than by a def, which may serve any name
  const bound = summary.bindings.get('__getattr__')?.find((b) => b.kind !== 'def');
  if (bound) summary.getattr = { kind: 'opaque', line: bound.line };
  return summary;
}

function lastRight(a: Node): Node | null {
  let r = a.childForFieldName('right');
  while (r && r.type === 'assignment') r = r.childForFieldName('right');
  return r;
}

/**
 * Whether a class-level field makes an attribute: `x: InitVar[T]` with no default is a parameter of
 * the dataclass's `__init__` only (its `__post_init__` gets it), never an attribute.
 */
export function givesAttribute(f: { annotation: string; value?: unknown }): boolean {
  return f.value !== undefined || !/^(?:dataclasses\.)?InitVar\b/.test(f.annotation);
}

/** Whether the class declares `attr` as a field that makes an attribute. */
export function hasField(cls: ClassInfo, attr: string): boolean {
  return cls.fields.some((f) => f.name === attr && givesAttribute(f));
}
