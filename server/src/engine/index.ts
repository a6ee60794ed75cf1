/**
 * The engine's front door: open a target, check files against it. The language server and the
 * CLI are thin adapters over this; nothing here knows about LSP or VS Code.
 */
import * as path from 'path';
import { CancelledError, Checker, type CheckResult, type CrossVersion, drain, patchedNames, releaseRoot, ownedPatches, setattrNames, USER_MODULE } from './check/check';
import { explainAgainstBaseline } from './check/explain';
import { SummaryCache } from './index/cache';
import { deferParser, differing, initParser, parsePython, parsePythonIncremental, parserGeneration, type Node, type Tree } from './parser';
import { Program } from './resolve/program';
import { type ImportSite, importSites, versionOnlyModules } from './resolve/projectImports';
import { movedTo } from './report/moved';
import { notePieces, parseRecovering, recoverRegion } from './check/recover';
import { StatementMemo } from './check/statements';
import { type ClassInfo, hasField, type ModuleSummary, SummaryMemo, summarizeModule } from './index/summary';
import { DirectoryRoot } from './sources/directoryRoot';
import { openUserRoots, Target, TargetError } from './sources/target';
import { openRoots } from './sources/openTargets';
import type { FetchOptions } from './sources/wheelFetch';
import { ownString } from './ownStrings';

export { CancelledError, TargetError };
export type { CheckResult };
export * from './types';
export { defaultCacheDir } from './index/cache';
export { installedBaseline, isRequirementSpec } from './sources/openTargets';
export type { FetchOptions, FetchProgress } from './sources/wheelFetch';

export interface EngineOptions {
  /** Target paths: folders on the import path, or .whl/.zip archives; or requirements (`NAME==VERSION`). */
  targets: string[];
  /** The version the code was written for (same forms as targets), to explain what changed. */
  baseline?: string[];
  /**
   * Folders of the user's own code (a workspace folder, a `src/` layout): user modules imported
   * by absolute name are read from them lazily, like the target, after the target's own modules.
   */
  sourceRoots?: string[];
  /**
   * Whether a check may build the target's full index itself when it needs one (to find names
   * that moved). The CLI says yes; the language server builds it in the background instead.
   */
  indexOnDemand?: boolean;
  /** Folder of the persistent summary cache; none when absent. */
  cacheDir?: string;
  /** Folder holding the wasm files, when they ship beside a bundle. */
  wasmDir?: string;
  /**
   * Re-checks of a file re-use the results of its statements that did not change (an editor's
   * keystroke). The target is then taken as it was when a check began: a file that changes during
   * a check is seen by the next one.
   */
  incremental?: boolean;
  /**
   * The parser is not loaded by `open`: only `Program.buildFullIndexParallel` may then be used,
   * which loads it when the saved index cannot be used (a warm `apidrift index` parses nothing).
   */
  deferParser?: boolean;
  /** How targets named by version are fetched (the index, the cache folder, progress...). */
  fetch?: Partial<FetchOptions>;
  /**
   * Versions of the target's top-level packages, by package name, where the target does not say
   * them itself (a source checkout): version tests on them are then decided (see `packageVersion`).
   */
  targetVersions?: Record<string, string>;
  /** The same for the baseline. */
  baselineVersions?: Record<string, string>;
}

/** What the engine keeps of a recently checked file besides its tree. */
interface FileMemo {
  target: StatementMemo;
  baseline: StatementMemo;
  /** The file's top-level definitions as last summarised (shared by both checks). */
  summary: SummaryMemo;
  /** The text last checked (after setting broken statements aside) and its error-free tree. */
  checked?: { text: string; tree: Tree };
  /** The text as it was then (before broken statements were set aside) and the rows set aside. */
  seen?: { text: string; broken: Array<[number, number]> };
}

/** Where the target sets attributes from outside: on what the engine may place (`self.x`, an annotated parameter), or elsewhere (by name only). */
interface PatchSites {
  placed: Map<string, PlacedPatch[]>;
  elsewhere: Set<string>;
}

/** `root.chain.attr = ...` at a row and column of a target module (see `ownedPatches`). */
interface PlacedPatch {
  module: string;
  row: number;
  column: number;
  root: string;
  chain: string[];
}

export class Engine {
  readonly program: Program;
  readonly checker: Checker;

  /** The baseline's program and checker, when there is a baseline. */
  readonly baseline?: { program: Program; checker: Checker };
  private readonly crossVersion?: CrossVersion;

  readonly cache?: SummaryCache;

  private constructor(readonly target: Target, baselineTarget: Target | undefined, private readonly indexOnDemand: boolean, cacheDir?: string, private readonly incremental = false) {
    this.cache = cacheDir ? new SummaryCache(cacheDir) : undefined;
    this.program = new Program(target, this.cache);
    this.program.snapshots = incremental;
    // an editor's engine (the incremental one) lives long: what it keeps must not keep the texts it read
    this.program.compactSummaries = incremental;
    this.program.indexOnDemand = indexOnDemand;
    this.checker = new Checker(this.program);
    if (baselineTarget) {
      const program = new Program(baselineTarget, this.cache);
      program.snapshots = incremental;
      program.compactSummaries = incremental;
      program.indexOnDemand = indexOnDemand;
      this.baseline = { program, checker: new Checker(program) };
      this.crossVersion = {
        baselineHasModule: (name) => program.findModule(name) !== null,
        baselineReturns: (module, name) => {
          const v = program.resolveMember(module, name);
          return v.kind === 'function' && !v.owner ? v.fn.returns : undefined;
        },
        baselineMethod: (module, qualname, method) => {
          const c = program.classByQualname(module, qualname);
          const mro = c && this.baseline!.checker.callables.mro(c.cls, c.summary);
          for (const e of mro ?? []) {
            if (e.kind !== 'class') return undefined;
            if (!e.cls.members.has(method)) continue;
            const v = program.classMember(e.cls, e.summary, method);
            return v?.kind === 'function' ? v.fn : undefined;
          }
          return undefined;
        },
        baselineHasSource: (name) => {
          const m = program.findModule(name);
          return !!m && !m.compiled && !m.buildFilled && !!m.rel && m.rel.endsWith('.py');
        },
        movedName: (module, name) => this.movedName(module, name),
        baselineHasClass: (module, qualname) => {
          const c = program.classByQualname(module, qualname);
          return !!c && !!this.baseline!.checker.callables.mro(c.cls, c.summary);
        },
        baselineDefines: (module, name) => {
          const v = program.resolveMember(module, name);
          return v.kind === 'class' || v.kind === 'function';
        },
        baselineClassHas: (module, qualname, attr, classLevel) => {
          const c = program.classByQualname(module, qualname);
          const mro = c && this.baseline!.checker.callables.mro(c.cls, c.summary);
          const e = mro?.find((x) => x.kind === 'class' && (x.cls.members.has(attr) || (!classLevel && (x.cls.attrAssigns.has(attr) || hasField(x.cls, attr)))));
          return e?.kind === 'class' ? e.cls.name : undefined;
        },
        targetPatches: (attr, on) => this.targetMayPatch(attr, on),
      };
    }
  }

  /** Opens the targets; throws TargetError with a one-line reason when one cannot be used. */
  static async open(opts: EngineOptions): Promise<Engine> {
    if (opts.deferParser) deferParser(opts.wasmDir);
    else await initParser(opts.wasmDir);
    if (opts.targets.length === 0) throw new TargetError('no target given');
    const user = openUserRoots(opts.sourceRoots ?? []);
    const baseline = opts.baseline && opts.baseline.length > 0 ? new Target(await openRoots(opts.baseline, opts.fetch), user) : undefined;
    const target = new Target(await openRoots(opts.targets, opts.fetch), user);
    for (const [name, version] of Object.entries(opts.targetVersions ?? {})) target.statedVersions.set(name, version);
    for (const [name, version] of Object.entries(opts.baselineVersions ?? {})) baseline?.statedVersions.set(name, version);
    return new Engine(target, baseline, opts.indexOnDemand ?? true, opts.cacheDir, opts.incremental ?? false);
  }

  /**
   * Where a name the baseline's module defined lives in the target now: a def or class of the same
   * name, kind and shape, new in exactly one other target module (see report/moved.ts).
   */
  movedName(module: string, name: string): string | undefined {
    if (!this.baseline) return undefined;
    const was = this.baseline.program.resolveMember(module, name);
    const kind = was.kind === 'function' ? 'def' : was.kind === 'class' ? 'class' : undefined;
    if (!kind) return undefined;
    if (!this.program.hasFullIndex && !this.indexOnDemand) return undefined;
    return movedTo(this.baseline.program, this.program, this.program.buildFullIndex(), module, name, kind);
  }

  /**
   * Checks one file's text. A file inside a target folder is checked as that module (so that its
   * relative imports resolve); any other file is checked as a script.
   */
  check(text: string, file: string, isCancelled?: () => boolean, module?: { name: string; isPackage: boolean }): CheckResult {
    return drain(this.checkSteps(text, file, isCancelled, module));
  }

  /**
   * The same check, and the file's own check against the baseline (its calls as the baseline
   * binds them, before any explanation joins the two): what `diff --uses` reads, in one parse.
   */
  checkWithBaseline(text: string, file: string): { result: CheckResult; baseline?: CheckResult } {
    let baseline: CheckResult | undefined;
    const result = drain(this.checkSteps(text, file, undefined, undefined, (b) => (baseline = b)));
    return { result, baseline };
  }

  /**
   * The same check, pausing between the units of the file (top-level statements, the parts of
   * top-level classes) once it has run for `sliceMs` since the last pause, so that a host serves
   * other requests during a long check. Checks of one engine must not overlap: the host waits for
   * one (or cancels it through `isCancelled`, which is polled at every pause) before the next.
   */
  async checkAsync(text: string, file: string, isCancelled?: () => boolean, sliceMs = 8): Promise<CheckResult> {
    const steps = this.checkSteps(text, file, isCancelled);
    let slice = performance.now();
    let busy = 0;
    for (;;) {
      const r = steps.next();
      if (r.done) {
        busy += performance.now() - slice;
        r.value.timing = { ...(r.value.timing ?? { unitsMs: 0, maxUnitMs: 0, unitsChecked: 0 }), totalMs: busy };
        return r.value;
      }
      if (performance.now() - slice >= sliceMs) {
        busy += performance.now() - slice;
        await new Promise<void>((resolve) => setImmediate(resolve));
        slice = performance.now();
      }
    }
  }

  /** Files whose stepped check is under way, and those to forget once it ends. */
  private readonly checking = new Set<string>();
  private readonly forgetLater = new Set<string>();

  private *checkSteps(text: string, file: string, isCancelled?: () => boolean, module?: { name: string; isPackage: boolean }, baseResult?: (b: CheckResult) => void): Generator<void, CheckResult> {
    this.dropDeadTrees();
    this.program.nextGeneration();
    const mod = module ?? this.moduleNameOf(file);
    const importContext = mod ? undefined : this.userModuleNameOf(file);
    const opts = { file, moduleName: mod?.name, isPackage: mod?.isPackage, importContext, isCancelled };
    const memos = this.memosOf(file);
    // an edit that breaks a statement is set right where it happened, without a parse of the
    // whole damaged text (see recoverRegion); the file's kept tree is then the last checked one
    // When the edit falls in a big top-level statement (a method of a class), the region would be
    // big too, and a probe of it costs a fresh parse of it on every keystroke: the text is then
    // re-parsed incrementally first (a re-parse of damaged text that runs long is abandoned for
    // the region), and only a damaged text is set right. When the statement is most of the file
    // (a file that is one class), it is set right as a whole (one fresh parse; the region would
    // take two); else by region. Each way gives what a fresh check gives.
    const canRegion = this.incremental && !!memos.checked && !!memos.seen;
    const edited = canRegion ? editedStatement(memos.checked!, memos.seen!.text, text) : undefined;
    let raw = edited?.big ? this.parseKept(file, text, Engine.REPARSE_BUDGET_MS) : canRegion ? undefined : this.parseKept(file, text);
    const region = canRegion && (!raw || (raw.rootNode.hasError && !edited?.most)) ? recoverRegion(text, memos.checked!, memos.seen!) : undefined;
    if (region) {
      this.forgetKept(file);
      raw = undefined;
    } else raw ??= this.parseKept(file, text);
    // broken statements are set aside so that the rest of the file is checked as usual
    const { tree, text: checked, broken } = region ?? parseRecovering(text, raw, memos.checked);
    this.checking.add(file);
    try {
      if (this.baseline) this.baseline.program.nextGeneration();
      // what the baseline says enters the target's findings through move detection
      const context = this.baseline && this.incremental ? `${this.baseline.program.contentEpoch()}:${this.baseline.program.hasFullIndex}` : '';
      const summaryMemo = this.incremental ? memos.summary : undefined;
      const projectClasses = this.projectClasses.length > 0 ? this.projectClasses : undefined;
      const projectPending = this.projectPending || undefined;
      // results that looked at the project's classes are as old as those classes
      const versionOnly = importContext && this.projectVersionOnly.has(importContext.name) ? `the project imports ${importContext.name} only under version tests: it is written for one version` : undefined;
      // (a check while they are still being read leaves what depends on the rest unknown, and
      // keeps no statement result that did: see PROJECT_PENDING)
      const project = `${this.projectViewOf(file)}:${this.pendingGeneration}:${versionOnly ?? ''}`;
      const result = yield* this.checker.checkTreeSteps(tree, checked, { ...opts, crossVersion: this.crossVersion, memo: this.incremental ? memos.target : undefined, context: `${context}\n${project}`, summaryMemo, projectClasses, projectPending, projectPatched: this.patchedBesides(file), targetSets: (n) => this.targetPatched().has(n), versionOnly });
      if (this.baseline) {
        const base = yield* this.baseline.checker.checkTreeSteps(tree, checked, { ...opts, memo: this.incremental ? memos.baseline : undefined, context: project, summaryMemo, projectClasses, projectPending, versionOnly });
        baseResult?.({ ...base, findings: [...base.findings], calls: [...base.calls] });
        explainAgainstBaseline(result, base, file, checked);
        const t = result.timing;
        const b = base.timing;
        if (t && b) result.timing = { unitsMs: t.unitsMs + b.unitsMs, maxUnitMs: t.maxUnitMs + b.maxUnitMs, unitsChecked: t.unitsChecked + b.unitsChecked };
      }
      if (!tree.rootNode.hasError) {
        // a file checked here for the first time: its pieces are read now, while no keystroke waits
        // (a huge file's only when a keystroke needs them: its damage is set right by region)
        if (this.incremental && !memos.checked && checked.length <= Engine.NOTED_PIECES_CHARS) notePieces(checked);
        // the next version of the file is re-parsed from this one when it needs setting right
        memos.checked?.tree.delete();
        memos.checked = { text: checked, tree: tree.copy() };
        memos.seen = { text, broken };
      }
      return result;
    } finally {
      this.checking.delete(file);
      if (this.treesGeneration === parserGeneration) {
        releaseRoot(tree);
        if (tree !== raw) tree.delete();
      }
      // else the parser crashed during this check: its trees went with it
      this.dropDeadTrees();
      if (this.forgetLater.delete(file)) this.forget(file);
    }
  }

  /** The parser generation the kept trees belong to. */
  private treesGeneration = parserGeneration;

  /**
   * After a parser crash, the trees kept from before are dead (their memory went with the old
   * wasm instance): they are forgotten, not deleted, and the next parse of each file starts afresh.
   */
  private dropDeadTrees(): void {
    if (this.treesGeneration === parserGeneration) return;
    this.treesGeneration = parserGeneration;
    this.trees.clear();
    for (const m of this.memos.values()) m.checked = m.seen = undefined;
  }

  /** What `addProjectFiles` read (classes, patched names, modules for one version), to hand to another engine checking the same project. */
  projectClassList(): { classes: Array<{ cls: ClassInfo; summary: ModuleSummary }>; patched: string[]; patchedBy: Record<string, string[]>; versionOnly?: string[] } {
    return { classes: this.projectClasses, patched: [...this.projectPatched], patchedBy: Object.fromEntries(this.patchedByFile), ...(this.projectVersionOnly.size ? { versionOnly: [...this.projectVersionOnly] } : {}) };
  }

  /** Takes what another engine's `addProjectFiles` read (in place of reading the files). */
  useProjectClasses(read: { classes: Array<{ cls: ClassInfo; summary: ModuleSummary }>; patched: string[]; patchedBy?: Record<string, string[]>; versionOnly?: string[] }): void {
    this.projectClasses = read.classes;
    this.projectPatched = new Set(read.patched);
    this.patchedByFile = new Map(Object.entries(read.patchedBy ?? {}));
    this.projectVersionOnly = new Set(read.versionOnly ?? []);
    this.noteProjectChange('');
  }

  /** The project's modules written for one version (see `versionOnlyModules`). */
  private projectVersionOnly = new Set<string>();

  /** The classes of every file of the project being checked (see `setProjectFiles`). */
  private projectClasses: Array<{ cls: ClassInfo; summary: ModuleSummary }> = [];
  /** Per project file: its classes, and a key of what dispatch reads of them. */
  private readonly projectFiles = new Map<string, { classes: Array<{ cls: ClassInfo; summary: ModuleSummary }>; shape: string; patched: string[]; module?: string; sites: ImportSite[] }>();
  private targetPatchedNames?: { epoch: number; names: Set<string>; sites: PatchSites };

  /**
   * Attribute names the target's own modules set on objects from outside their class (see
   * `patchedNames`), read once per target content: ahead of need by `readTargetPatchesAsync`, else
   * when a removed or missing attribute is first about to be reported.
   */
  private targetPatched(): Set<string> {
    const epoch = this.program.contentEpoch();
    if (this.targetPatchedNames?.epoch === epoch) return this.targetPatchedNames.names;
    const out = new Set<string>();
    const sites: PatchSites = { placed: new Map(), elsewhere: new Set() };
    for (const name of this.program.allModules()) this.readPatches(name, out, sites);
    this.targetPatchedNames = { epoch, names: out, sites };
    return out;
  }

  private readPatches(module: string, into: Set<string>, sites: PatchSites): void {
    const file = this.program.findModule(module);
    const text = file?.rel ? file.root.readText(file.rel) : undefined;
    if (!text) return;
    // (the names are kept as long as the engine: copied off the file's text, see ownStrings.ts)
    const names = patchedNames(text);
    for (const n of names) into.add(ownString(n));
    const placed = ownedPatches(text);
    const counted = new Set<string>();
    for (const p of placed) {
      counted.add(p.attr);
      let list = sites.placed.get(p.attr);
      if (!list) sites.placed.set(ownString(p.attr), (list = []));
      list.push({ module, row: p.row, column: p.column, root: ownString(p.root), chain: p.chain.map(ownString) });
    }
    // a name set by setattr (or any other way `patchedNames` reads that is no `a.b.name =`) cannot be placed
    const bySetattr = new Set(setattrNames(text));
    for (const n of names) if (!n.includes('.') && (!counted.has(n) || bySetattr.has(n))) sites.elsewhere.add(ownString(n));
  }

  /**
   * Whether the target's own code may set `attr` on an instance of `on` from outside its class
   * (see `patchedNames`): by the name alone, unless every place that sets it certainly sets it on
   * an instance of a class unrelated to `on` (see `setsOnOther`):
   * `self.draft_model_config.max_model_len = n` sets nothing on a scheduler's config.
   */
  private targetMayPatch(attr: string, on?: { cls: ClassInfo; summary: ModuleSummary }): boolean {
    if (!this.targetPatched().has(attr)) return false;
    const sites = this.targetPatchedNames!.sites;
    if (!on || sites.elsewhere.has(attr)) return true;
    const placed = sites.placed.get(attr);
    if (!placed || placed.length === 0) return true;
    const trees = new Map<string, Tree>();
    try {
      return placed.some((p) => !this.setsOnOther(p, on, trees));
    } finally {
      for (const t of trees.values()) t.delete();
    }
  }

  /** What each placed store's root is (see `siteRoot`), read once: the sites are made afresh when the target changes. */
  private readonly siteRoots = new WeakMap<PlacedPatch, { cls: string } | { annotation: string } | null>();

  /**
   * The root of a placed store, read off the target's tree: `self` in a method of a module-level
   * class (the class's name), or a parameter annotated and not bound again, of the function around
   * the store or, where that function neither takes nor binds the name, of a function around it
   * (a closure reads the enclosing function's); undefined when it is neither.
   */
  private siteRoot(p: PlacedPatch, trees: Map<string, Tree>): { cls: string } | { annotation: string } | undefined {
    const known = this.siteRoots.get(p);
    if (known !== undefined) return known ?? undefined;
    const read = (): { cls: string } | { annotation: string } | null => {
      const file = this.program.findModule(p.module);
      if (!file?.rel) return null;
      let tree = trees.get(p.module);
      if (!tree) {
        const text = file.root.readText(file.rel);
        if (!text) return null;
        tree = parsePython(text);
        trees.set(p.module, tree);
      }
      const at = tree.rootNode.descendantForPosition({ row: p.row, column: p.column });
      if (!at || at.type !== 'identifier' || at.text !== p.root) return null;
      let fn: Node | null = at.parent;
      while (fn && fn.type !== 'function_definition') fn = fn.parent;
      if (!fn) return null;
      if (p.root === 'self') {
        // the method around it (a function nested in a method sees the method's `self`)
        const classOf = (f: Node): Node | null | undefined => (f.parent?.type === 'block' ? f.parent.parent : f.parent?.type === 'decorated_definition' && f.parent.parent?.type === 'block' ? f.parent.parent.parent : null);
        let method: Node | null = fn;
        while (method && classOf(method)?.type !== 'class_definition') {
          method = method.parent;
          while (method && method.type !== 'function_definition') method = method.parent;
        }
        const cls = method ? classOf(method) : null;
        const top = cls?.parent?.type === 'decorated_definition' ? cls.parent.parent : cls?.parent;
        const name = cls?.childForFieldName('name')?.text;
        return cls?.type === 'class_definition' && top?.type === 'module' && name ? { cls: name } : null;
      }
      const rebound = new RegExp(`(?<![\\w.])${p.root}[ \\t]*(?::[^=\\n]*)?=(?!=)|\\bfor\\b[^\\n]*\\b${p.root}\\b[^\\n]*\\bin\\b|\\bas\\s+${p.root}\\b|\\b(?:global|nonlocal|del)\\s[^\\n]*\\b${p.root}\\b|${p.root}\\s*:=`);
      for (let f: Node | null = fn; f; ) {
        if (rebound.test(f.childForFieldName('body')?.text ?? '')) return null;
        const param = f.childForFieldName('parameters')?.namedChildren.find((c) => !!c && parameterName(c) === p.root);
        if (param) {
          const annotation = param.type === 'typed_parameter' ? param.childForFieldName('type')?.text : undefined;
          return annotation ? { annotation } : null;
        }
        // a function defined in a class body does not see the class's names: only a function around the class
        f = f.parent;
        while (f && f.type !== 'function_definition') f = f.parent;
      }
      return null;
    };
    const root = read();
    this.siteRoots.set(p, root);
    return root ?? undefined;
  }

  /**
   * A store `root.a.b.attr = ...` of the target certainly sets `attr` on an instance of a class
   * unrelated to `on`: `root` is `self` in a method of a module-level class, or a parameter of the
   * function around it, annotated and not bound again there; each attribute after it holds an
   * instance the engine knows (or one of a class outside the target, which derives from no class
   * of it); and no class the last may be is along `on`'s MRO, nor `on` along its.
   */
  private setsOnOther(p: PlacedPatch, on: { cls: ClassInfo; summary: ModuleSummary }, trees: Map<string, Tree>): boolean {
    const summary = this.program.summary(p.module);
    const root = this.siteRoot(p, trees);
    if (!summary || !root) return false;
    const receivers = this.checker.receivers;
    type Held = Extract<ReturnType<typeof receivers.member>, { kind: 'instance' }>;
    let value: ReturnType<typeof receivers.member> | undefined;
    if ('cls' in root) {
      const bs = summary.bindings.get(root.cls);
      if (!bs || bs.length !== 1 || bs[0].kind !== 'class') return false;
      value = { kind: 'instance', cls: bs[0].cls, summary, declared: false };
    } else value = receivers.annotated(root.annotation, summary);
    for (const a of p.chain) {
      if (value?.kind !== 'instance') return false;
      // what the classes declare an attribute to hold, where a value assigned to it is not followed
      value = receivers.memberAsDeclared(value, a);
    }
    // an instance of a class outside the target (a transformers config): no class of the target
    if (value?.kind === 'external' && !/(^|\.)(Any|object)$/.test(value.qualname)) return true;
    const held: Held[] | undefined = value?.kind === 'instance' ? [value] : value?.kind === 'anyOf' && value.values.every((x) => x.kind === 'instance') ? (value.values as Held[]) : undefined;
    if (!held) return false;
    const callables = this.checker.callables;
    const along = (a: { cls: ClassInfo; summary: ModuleSummary }, b: ClassInfo): boolean | undefined => {
      const mro = callables.mro(a.cls, a.summary);
      if (!mro) return undefined;
      // a class the engine cannot see along the MRO may derive from anything (`object` and the
      // like, which the engine knows by name, do not)
      if (mro.some((e) => e.kind !== 'class' && e.kind !== 'special')) return undefined;
      return mro.some((e) => e.kind === 'class' && e.cls === b);
    };
    for (const h of held) {
      const a = along(h, on.cls);
      const b = along(on, h.cls);
      if (a !== false || b !== false) return false;
    }
    return true;
  }

  /**
   * Reads what `targetPatched` needs in slices of `sliceMs`, for a host with a baseline that would
   * otherwise pay for it (every file of the target) on the keystroke that first needs it (removed
   * attributes need it often). Without a baseline only a module attribute the target lacks needs
   * it, which is rare: it is read then, and not in the background while the user types. Nothing
   * is kept when the target changes meanwhile or `isCancelled` says so.
   */
  async readTargetPatchesAsync(isCancelled?: () => boolean, sliceMs = 8): Promise<void> {
    if (!this.baseline) return;
    const epoch = this.program.contentEpoch();
    if (this.targetPatchedNames?.epoch === epoch) return;
    const out = new Set<string>();
    const sites: PatchSites = { placed: new Map(), elsewhere: new Set() };
    let slice = performance.now();
    for (const name of this.program.allModules()) {
      this.readPatches(name, out, sites);
      if (performance.now() - slice < sliceMs) continue;
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (isCancelled?.() || this.program.contentEpoch() !== epoch) return;
      slice = performance.now();
    }
    if (this.targetPatchedNames?.epoch !== epoch) this.targetPatchedNames = { epoch, names: out, sites };
  }

  /** Attribute names the project's files set on objects from outside (see `patchedNames`). */
  private projectPatched = new Set<string>();
  /** The same, by the file that sets them (files that set none are left out). */
  private patchedByFile = new Map<string, string[]>();
  /** Grows when the project's classes change in a way dispatch can see. */
  private projectEpoch = 0;
  /** The last two changes of the project's files by different files (newest first): see `projectViewOf`. */
  private projectChanges: Array<{ epoch: number; file: string }> = [];

  /**
   * What the check of `file` sees of the project's files, as a key: it changes when another file
   * changes what dispatch or patching read, not when `file` itself does (its own classes and
   * patched names are read from the text being checked, never from the copy on disk). Results
   * of `file` checked under one key hold under the same key.
   */
  projectViewOf(file: string): string {
    const [last, before] = this.projectChanges;
    const other = last?.file === file ? before : last;
    return String(other?.epoch ?? 0);
  }

  private patchedSeen?: { file: string; epoch: number; names: ReadonlySet<string> };

  /** The names the project's files other than `file` patch onto objects. */
  private patchedBesides(file: string): ReadonlySet<string> {
    const own = this.patchedByFile.get(file);
    if (!own) return this.projectPatched;
    if (this.patchedSeen?.file === file && this.patchedSeen.epoch === this.projectEpoch) return this.patchedSeen.names;
    const names = new Set<string>();
    for (const [f, patched] of this.patchedByFile) if (f !== file) for (const n of patched) names.add(n);
    this.patchedSeen = { file, epoch: this.projectEpoch, names };
    return names;
  }

  private noteProjectChange(file: string): void {
    this.projectEpoch++;
    const rest = this.projectChanges.filter((c) => c.file !== file);
    this.projectChanges = [{ epoch: this.projectEpoch, file }, ...rest.slice(0, 1)];
  }

  /**
   * Set while the project's files are still being read (the editor reads the workspace after
   * opening): calls whose result depends on overrides in other files are left unknown meanwhile.
   */
  get projectPending(): boolean {
    return this.pending;
  }

  set projectPending(on: boolean) {
    // a check while the files are read keeps the results that did not wait for them, for after
    // (see `checkSteps`): a new reading starts a new generation, as the results kept before it
    // did not leave calls open for it
    if (on && !this.pending) this.pendingGeneration++;
    this.pending = on;
  }

  private pending = false;
  private pendingGeneration = 0;

  /**
   * The files of a project checked together (a command-line run): their classes are read first,
   * so that a method a class of one file calls on `self` is compared with the overrides of its
   * subclasses in the other files. A file that cannot be parsed adds nothing.
   */
  addProjectFiles(files: Array<{ file: string; text: string }>): void {
    this.setProjectFiles(files);
  }

  /**
   * Adds, replaces or (with no text) removes project files (the editor: the workspace's Python
   * files, as they change on disk). Checks re-run what depended on the project's classes only when
   * what dispatch reads of them changed; the answer says whether it did.
   */
  setProjectFiles(files: Array<{ file: string; text?: string }>): boolean {
    let changed = false;
    for (const { file, text } of files) {
      const before = this.projectFiles.get(file);
      let classes: Array<{ cls: ClassInfo; summary: ModuleSummary }> = [];
      const patched = text === undefined ? [] : patchedNames(text);
      const at = this.userModuleNameOf(file);
      let sites: ImportSite[] = [];
      if (text !== undefined && at) {
        try {
          sites = importSites(text, at, (top) => this.program.packageVersion(top));
        } catch {
          sites = [];
        }
      }
      if (text !== undefined) {
        try {
          const s = summarizeModule(text, USER_MODULE, false, file);
          const add = (c: ClassInfo): void => {
            classes.push({ cls: c, summary: s });
            for (const bs of c.members.values()) for (const b of bs) if (b.kind === 'class') add(b.cls);
          };
          for (const bs of s.bindings.values()) for (const b of bs) if (b.kind === 'class') add(b.cls);
        } catch {
          classes = [];
        }
      }
      if (text === undefined || (classes.length === 0 && patched.length === 0 && sites.length === 0)) {
        if (before) {
          this.projectFiles.delete(file);
          this.noteProjectChange(file);
          changed = true;
        }
        continue;
      }
      const shape = JSON.stringify([classes.map(({ cls }) => [cls.qualname, cls.bases, cls.keywords, cls.decorators, [...cls.members], cls.fields, [...cls.attrAssigns], [...cls.instanceAttrs]]), patched, at?.name, sites]);
      if (before?.shape === shape) continue;
      this.projectFiles.set(file, { classes, shape, patched, module: at?.name, sites });
      this.noteProjectChange(file);
      changed = true;
    }
    if (!changed) return false;
    this.projectClasses = [...this.projectFiles.values()].flatMap((f) => f.classes);
    this.projectPatched = new Set([...this.projectFiles.values()].flatMap((f) => f.patched));
    this.patchedByFile = new Map([...this.projectFiles].filter(([, f]) => f.patched.length > 0).map(([file, f]) => [file, f.patched]));
    this.projectVersionOnly = versionOnlyModules([...this.projectFiles.values()].flatMap((f) => (f.module ? [{ module: f.module, sites: f.sites }] : [])));
    return true;
  }

  /** Statement results of recently checked files, for re-checks after an edit. */
  private readonly memos = new Map<string, FileMemo>();

  private memosOf(file: string): FileMemo {
    let m = this.memos.get(file);
    if (m) this.memos.delete(file);
    else m = { target: new StatementMemo(), baseline: new StatementMemo(), summary: new SummaryMemo() };
    this.memos.set(file, m);
    while (this.memos.size > Engine.KEPT_TREES) this.dropMemo(this.memos.keys().next().value as string);
    return m;
  }

  private dropMemo(file: string): void {
    this.memos.get(file)?.checked?.tree.delete();
    this.memos.delete(file);
  }

  /** The largest text whose pieces are parsed at its first check (see `notePieces`). */
  private static readonly NOTED_PIECES_CHARS = 300_000;

  /** How long the incremental re-parse of a damaged text may run before region recovery is used instead. */
  private static readonly REPARSE_BUDGET_MS = 40;

  /** The last tree of each recently checked file, for incremental re-parsing of the next version. */
  private readonly trees = new Map<string, { text: string; tree: Tree }>();
  private static readonly KEPT_TREES = 16;

  /** Drops the file's kept tree (the last checked tree is the better start for its next parse). */
  private forgetKept(file: string): void {
    this.trees.get(file)?.tree.delete();
    this.trees.delete(file);
  }

  /**
   * Parses a file's text, reusing its previous tree when the engine kept one (what an editor's
   * keystroke costs), and keeps the new tree for next time.
   */
  private parseKept(file: string, text: string): Tree;
  /** With `budgetMs`: undefined (and nothing kept) when an incremental re-parse would take longer. */
  private parseKept(file: string, text: string, budgetMs: number): Tree | undefined;
  private parseKept(file: string, text: string, budgetMs = Infinity): Tree | undefined {
    const previous = this.trees.get(file);
    let tree: Tree | undefined;
    if (previous && previous.text === text) {
      tree = previous.tree;
    } else {
      // a tree with syntax errors is a poor start for the next parse: the last checked text's
      // error-free tree (which differs where broken statements were set aside) is a better one
      const checked = this.memos.get(file)?.checked;
      const incremental = (from: { text: string; tree: Tree }): Tree | undefined => (budgetMs === Infinity ? parsePythonIncremental(text, from) : parsePythonIncremental(text, from, budgetMs));
      if ((!previous || previous.tree.rootNode.hasError) && checked) {
        const copy = checked.tree.copy();
        try {
          tree = incremental({ text: checked.text, tree: copy });
        } finally {
          copy.delete();
        }
      } else {
        tree = previous ? incremental(previous) : parsePython(text);
      }
      previous?.tree.delete();
      if (!tree) {
        this.trees.delete(file);
        return undefined;
      }
    }
    this.trees.delete(file);
    this.trees.set(file, { text, tree });
    while (this.trees.size > Engine.KEPT_TREES) {
      const [oldest, entry] = this.trees.entries().next().value as [string, { tree: Tree }];
      entry.tree.delete();
      this.trees.delete(oldest);
    }
    return tree;
  }

  /**
   * For one-shot hosts (a command-line run): the target files do not change while the engine
   * lives, so each is looked up and identified once rather than once per check.
   */
  targetsFixed(): void {
    this.program.targetFixed = true;
    if (this.baseline) this.baseline.program.targetFixed = true;
  }

  /**
   * For long-lived hosts that watch their targets: re-validate target files at most every
   * `ms` milliseconds (each check re-validates by default); `refresh` forces it.
   */
  revalidateEvery(ms: number): void {
    this.program.revalidateEveryMs = ms;
    if (this.baseline) this.baseline.program.revalidateEveryMs = ms;
  }

  /**
   * Re-validates the target files the checks used (sizes, mtimes, listings) now, for a host that
   * does it in idle time rather than on a keystroke: true when what the targets say may have
   * changed (open files should then be checked again).
   */
  revalidate(): boolean {
    const before = [this.program.contentEpoch(), this.baseline?.program.contentEpoch()];
    this.program.nextGeneration(true, false);
    this.baseline?.program.nextGeneration(true, false);
    return this.program.contentEpoch() !== before[0] || (!!this.baseline && this.baseline.program.contentEpoch() !== before[1]);
  }

  /** The targets changed on disk: the next check re-validates every file it uses. */
  refresh(): void {
    this.program.nextGeneration(true);
    this.baseline?.program.nextGeneration(true);
  }

  /** Drops what the engine keeps for a file (its tree), e.g. when an editor closes it. */
  forget(file: string): void {
    // a check under way still uses the file's tree: it is let go when the check ends
    if (this.checking.has(file)) {
      this.forgetLater.add(file);
      return;
    }
    this.trees.get(file)?.tree.delete();
    this.trees.delete(file);
    this.dropMemo(file);
  }

  /** The dotted module name of a path relative to an import root (`a/b/__init__.py` is `a.b`). */
  static moduleNameOfRelative(rel: string): { name: string; isPackage: boolean } | undefined {
    if (!/\.pyi?$/.test(rel)) return undefined;
    const parts = rel.replace(/\.pyi?$/, '').split(/[\\/]/);
    const isPackage = parts[parts.length - 1] === '__init__';
    if (isPackage) parts.pop();
    if (parts.length === 0 || !parts.every((p) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(p))) return undefined;
    return { name: parts.join('.'), isPackage };
  }

  /** The dotted module name of a file that lies inside one of the target's folders. */
  moduleNameOf(file: string): { name: string; isPackage: boolean } | undefined {
    const abs = path.resolve(file);
    for (const root of this.target.roots) {
      if (!(root instanceof DirectoryRoot)) continue;
      const rel = path.relative(path.resolve(root.dir), abs);
      if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) continue;
      const mod = Engine.moduleNameOfRelative(rel);
      if (mod) return mod;
    }
    return undefined;
  }

  /** The dotted module name of a file that lies inside one of the user's own folders (for its relative imports). */
  userModuleNameOf(file: string): { name: string; isPackage: boolean } | undefined {
    const abs = path.resolve(file);
    // the innermost folder wins (`src/` inside the workspace folder), unless it names the file's
    // package like a top-level package of the target while a folder further out does not: a
    // package under a namespace package (`src/dynamo/vllm/` with no `dynamo/__init__.py`) is
    // `dynamo.vllm` where `src` is on the path, and its relative imports are its own, never the
    // target's `vllm`
    const found: Array<{ mod: { name: string; isPackage: boolean }; length: number }> = [];
    for (const root of this.target.userRoots) {
      if (!(root instanceof DirectoryRoot)) continue;
      const dir = path.resolve(root.dir);
      const rel = path.relative(dir, abs);
      if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) continue;
      const mod = Engine.moduleNameOfRelative(rel);
      if (mod) found.push({ mod, length: dir.length });
    }
    found.sort((a, b) => b.length - a.length);
    return (found.find((f) => !this.target.ownsTopLevel(f.mod.name)) ?? found[0])?.mod;
  }

  /** Writes what the cache learnt (atomically); a no-op without a cache. */
  saveCache(): void {
    this.cache?.save();
  }

  /** Target modules loaded: parsed, or taken from the cache. */
  get modulesRead(): number {
    return this.program.filesRead.size + this.program.fromCache;
  }
}

/** Statements of at least this many rows are costly to parse afresh on every keystroke. */
const BIG_STATEMENT_ROWS = 100;

/**
 * The top-level statement of the last checked text that an edit falls in: whether it is big, and
 * whether it spans most of the file's rows (the rows of `before`, the text the user had, are
 * those of the checked text).
 */
function editedStatement(checked: { text: string; tree: Tree }, before: string, text: string): { big: boolean; most: boolean } | undefined {
  const root = checked.tree.rootNode;
  const rows = root.endPosition.row + 1;
  const at = differing(before, text).start;
  let row = 0;
  for (let i = before.indexOf('\n'); i >= 0 && i < at; i = before.indexOf('\n', i + 1)) row++;
  // the last statement that starts at or before the row, by bisection
  let lo = 0;
  let hi = root.namedChildCount - 1;
  let found: Node | null = null;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = root.namedChild(mid);
    if (c && c.startPosition.row <= row) {
      found = c;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (!found || found.endPosition.row < row) return undefined;
  const span = found.endPosition.row - found.startPosition.row + 1;
  const most = span * 2 > rows;
  return { big: most || span >= BIG_STATEMENT_ROWS, most };
}

/** The name a parameter node binds (`x`, `x: T`, `x=1`, `x: T = 1`, `*x`, `**x`). */
function parameterName(n: Node): string | undefined {
  if (n.type === 'identifier') return n.text;
  const named = n.childForFieldName('name') ?? n.namedChildren[0];
  if (!named) return undefined;
  if (named.type === 'identifier') return named.text;
  if (named.type === 'list_splat_pattern' || named.type === 'dictionary_splat_pattern') return named.namedChildren[0]?.text;
  return undefined;
}
