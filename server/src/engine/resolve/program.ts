/**
 * The program: a target's modules, summarised lazily, and name resolution across them
 * (imports, re-exports, star imports, aliases, module `__getattr__`).
 */
import * as fs from 'fs';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { CACHE_FORMAT, hashText, serializeSummary, type SummaryCache } from '../index/cache';
import { EMPTY_MODULE_INDEX, type ModuleIndex, moduleIndexOf } from '../index/indexEntries';
import type { IndexJob, IndexRequest, IndexResult } from '../index/indexWorker';
import { initParser, wasmFolder } from '../parser';
import { COMPILED, type ModuleFile, type Target } from '../sources/target';
import { BUILD_FILES, type BuildFacts, outerBuildFiles, readBuildFacts } from '../sources/buildFiles';
import { type Binding, type ClassInfo, type FunctionInfo, type ImportTry, loadsLazily, type ModuleSummary, resolveRelative, summarizeModule } from '../index/summary';
import { BUILTIN_NAMES, canonical, isKnown } from './specials';
import * as pep440 from '@renovatebot/pep440';
import { normalizeProject } from '../sources/requirement';
import type { ArgExpr, Expr } from '../syntax';
import { ownCopy } from '../ownStrings';

/** The module name a checked file is summarised under (it has no module name of its own). */
export const USER_FILE_MODULE = '__apidrift_user__';

export type Value =
  | { kind: 'module'; name: string }
  | { kind: 'class'; cls: ClassInfo; summary: ModuleSummary }
  /**
   * An instance of exactly this class (`x = C(...)`), or with `declared` of this class or any
   * subclass of it (an annotation, `self`, or a `__new__` that may hand back a registered
   * replacement: `registry`, which like `self` stands for subclasses only, where an annotation's
   * value may be of any class with the right methods).
   */
  | { kind: 'instance'; cls: ClassInfo; summary: ModuleSummary; declared?: boolean; self?: boolean; registry?: boolean }
  /**
   * `classAttr`: a function of a module stored as a class attribute (`class A: f = g`): read
   * through an instance it is bound as a method, its first parameter taking the instance.
   */
  | { kind: 'function'; fn: FunctionInfo; summary: ModuleSummary; owner?: ClassInfo; classAttr?: true }
  /** A library object known by name (see specials.ts). */
  | { kind: 'special'; name: string }
  /**
   * Something outside the target, by dotted name. `args`: the type arguments of the annotation
   * that named it (`list[C]`), to be read in `summary`, for the elements of containers.
   */
  | { kind: 'external'; qualname: string; args?: string[]; summary?: ModuleSummary }
  | { kind: 'partial'; base: Value; args: ArgExpr[] }
  /** `defaults`: the source text of the defaults of the rightmost fields. */
  | { kind: 'namedtuple'; fields: string[]; defaults: string[]; qualname: string; file: string; line: number }
  | { kind: 'anyOf'; values: Value[] }
  /**
   * `outside`: the trail left the target (a compiled module, a package that is not there);
   * `target`: the value certainly comes from the target (a method call on it is untraced).
   */
  | { kind: 'unknown'; reason: string; outside?: boolean; target?: boolean; absent?: boolean }
  /** The module certainly lacks the name. */
  | { kind: 'missing'; module: string; name: string };

/** A value's kind in words, for reasons ("a function", "an external value"). */
export function kindInWords(kind: Value['kind']): string {
  switch (kind) {
    case 'anyOf':
      return 'one of several values';
    case 'external':
      return 'an external value (from outside the target)';
    case 'instance':
      return 'an instance';
    case 'namedtuple':
      return 'a named tuple class';
    case 'partial':
      return 'a functools.partial object';
    case 'special':
      return 'a special form';
    case 'unknown':
      return 'an unknown value';
    default:
      return `a ${kind}`;
  }
}

const MAX_DEPTH = 40;
/** More possible values than this for one name, and it is not followed. */
const MAX_ALTERNATIVES = 256;

/** Modules generated at build time (protocol buffers) are absent from source checkouts. */
export const GENERATED = /_pb2(_grpc)?$/;

/** Code that adds an importer to `sys.meta_path` (reading the list is no write). */
const META_PATH_WRITE = /\bsys\.meta_path\s*(?:\.\s*(?:append|insert|extend)\s*\(|\+=|=(?!=)|\[[^\]]*\]\s*=(?!=))/;

/** How many modules `importLoads` reads at most before it gives up (unknown). */
const IMPORT_SCAN_LIMIT = 400;

/**
 * The absolute names of the modules the import statements of a text name, at any depth (inside
 * functions, under conditions): `import a.b as c, d` names `a.b` and `d`; `from a import b, c`
 * names `a`, `a.b` and `a.c` (any of which may be a submodule); relative imports are resolved
 * against `module`. Lines inside strings that look like imports count too (an answer that names
 * too many modules only makes the caller less sure).
 */
export function importedNames(text: string, module: string, isPackage: boolean): string[] {
  const out: string[] = [];
  const flat = text.replace(/\\\r?\n/g, ' ');
  for (const m of flat.matchAll(/^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]*(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]*))/gm)) {
    if (m[4] !== undefined) {
      for (const item of m[4].split(',')) {
        const name = item.trim().split(/\s+as\s+/)[0].trim();
        if (/^[\w.]+$/.test(name)) out.push(name);
      }
      continue;
    }
    const dots = m[1].length;
    const base = dots ? resolveRelative(module, isPackage, dots, m[2]) : m[2];
    if (!base) continue;
    out.push(base);
    for (const item of m[3].replace(/[()]/g, ' ').split(',')) {
      const name = item.trim().split(/\s+as\s+/)[0].trim();
      if (/^\w+$/.test(name)) out.push(`${base}.${name}`);
    }
  }
  return out;
}

/** Attributes every module has without binding them. */
const MODULE_DUNDERS = new Set(['__name__', '__doc__', '__file__', '__spec__', '__loader__', '__package__', '__dict__', '__builtins__', '__cached__', '__annotations__']);

interface CachedModule {
  version: string | undefined;
  summary: ModuleSummary | null;
  generation: number;
}

/** Where a module-level def or class is defined, for finding names that moved. */
export interface IndexEntry {
  module: string;
  kind: 'def' | 'class';
  line: number;
}

export interface FullIndex {
  modules: string[];
  /** Functions, classes and methods summarised. */
  signatures: number;
  /** Loaded from the persistent cache rather than built. */
  fromCache?: boolean;
  /** Module-level definitions by name. */
  definitions: Map<string, IndexEntry[]>;
  /** Every class: module, qualified name, names its bases mention, methods it defines. */
  classes: ClassRecord[];
  /** Classes by each name their bases mention (built when first asked for). */
  byBaseName?: Map<string, ClassRecord[]>;
  ms: number;
  /** Modules that could not be read or summarised (reported through `onError`); such an index is not saved. */
  failed?: number;
}

export interface ClassRecord {
  module: string;
  qualname: string;
  bases: string[];
  methods: string[];
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The index worker's script: beside the bundle, or in the compiled engine's index folder. */
function workerScript(): string {
  const bundled = path.join(__dirname, 'indexWorker.js');
  return fs.existsSync(bundled) ? bundled : path.join(__dirname, '..', 'index', 'indexWorker.js');
}

/** Where a module lookup led, as a string to compare. */
function moduleIdentity(file: ModuleFile | null): string {
  if (!file) return '-';
  return [file.root.label, file.rel ?? '', file.isPackage, file.compiled, ...file.packageDirs.map((d) => `${d.root.label}\0${d.rel}`)].join('\n');
}

export class Program {
  private fullIndex?: FullIndex;
  private readonly modules = new Map<string, CachedModule>();
  private readonly overlays = new Map<string, ModuleSummary>();
  private generation = 0;
  /** Distinct target files summarised since the last reset of the counter. */
  readonly filesRead = new Set<string>();
  /** Called with a module name each time a target file is read and summarised. */
  onRead?: (name: string, file: string) => void;
  /** Called when a target module cannot be read or parsed. */
  onError?: (name: string, error: unknown) => void;

  /** Summaries taken from the persistent cache instead of being parsed. */
  fromCache = 0;
  /** The files of those summaries. */
  readonly cachedFiles = new Set<string>();
  /**
   * Where the full index comes from when one is needed and none is built (e.g. another thread
   * builds it once for several programs over the same target); undefined: it is built here.
   */
  indexProvider?: () => FullIndex | undefined;
  /** Where summaries come from before a target file is parsed here (another thread that parsed it); undefined: nowhere. */
  summaryProvider?: (name: string) => ModuleSummary | undefined;
  /** Summaries taken from `summaryProvider`. */
  provided = 0;
  /** When set, the full index's builder keeps here each module's summary serialised (to hand to other threads). */
  keepSerialized?: Map<string, string>;

  constructor(readonly target: Target, readonly cache?: SummaryCache) {}

  /** Every module name the target has (packages, modules and stubs), found by walking its roots. */
  allModules(): string[] {
    return this.listModules().modules;
  }

  /**
   * The module names, with the identity of every folder listed to find them (taken before it is
   * listed), or no folder identities when some root cannot tell them (archives, git revisions).
   */
  private listModules(): { modules: string[]; dirs: Record<string, string> | undefined } {
    const names = new Set<string>();
    let dirs: Record<string, string> | undefined = {};
    for (const root of this.target.roots) {
      // folders being walked, by real path: a symlink back to one of them is a cycle, not a package
      const walking = new Set<string>();
      const walk = (rel: string, prefix: string, depth: number): void => {
        if (depth > 16) return;
        const real = root.realDir?.(rel);
        if (real !== undefined) {
          if (walking.has(real)) return;
          walking.add(real);
        }
        try {
          walkEntries(rel, prefix, depth);
        } finally {
          if (real !== undefined) walking.delete(real);
        }
      };
      const walkEntries = (rel: string, prefix: string, depth: number): void => {
        if (dirs) {
          const v = root.fileVersion(rel);
          if (v === undefined) dirs = undefined;
          else dirs[`${root.label}\0${rel}/`] = v;
        }
        for (const e of root.listDir(rel) ?? []) {
          const child = rel ? `${rel}/${e}` : e;
          const m = /^(.*)\.pyi?$/.exec(e);
          if (m && IDENT.test(m[1]) && m[1] !== '__init__') names.add(prefix + m[1]);
          else if (IDENT.test(e) && e !== '__pycache__' && root.isDir(child)) {
            names.add(prefix + e);
            walk(child, `${prefix}${e}.`, depth + 1);
          }
        }
      };
      walk('', '', 0);
    }
    return { modules: [...names].filter((n) => this.target.findModule(n)).sort(), dirs };
  }

  /** Summarises every module of the target (once; `invalidateIndex` drops it). */
  buildFullIndex(onProgress?: (done: number, total: number) => void): FullIndex {
    if (this.fullIndex) return this.fullIndex;
    const given = this.indexProvider?.();
    if (given) return (this.fullIndex = given);
    const steps = this.indexSteps(onProgress);
    let r = steps.next();
    while (!r.done) r = steps.next();
    return r.value;
  }

  /**
   * The same on several threads: this one and `threads - 1` workers. The workers start first
   * (each loads its parser while this thread lists and reads the files) and are fed batches as
   * files are read; this thread summarises the batches they have no room for. A worker answers
   * with each module's index entries, plus the summary serialised for the cache when there is one,
   * and as an object only when the program keeps summaries (not with `releaseAfterIndex`).
   * Falls back to one thread for small targets or when workers cannot start.
   */
  async buildFullIndexParallel(threads: number, onProgress?: (done: number, total: number) => void): Promise<FullIndex> {
    if (this.fullIndex) return this.fullIndex;
    const started = performance.now();
    const saved = this.savedIndex(started, onProgress);
    if (saved) return saved;
    // nothing saved: this is parsing work (the parser is loaded only now when the caller deferred it)
    await initParser(wasmFolder);
    if (threads < 2) return this.buildFullIndex(onProgress);
    const workers: Worker[] = [];
    const stop = (): Promise<unknown> => Promise.all(workers.splice(0).map((w) => w.terminate()));
    try {
      for (let t = 1; t < threads; t++) workers.push(new Worker(workerScript(), { workerData: { wasmDir: wasmFolder } }));
    } catch (e) {
      this.onError?.('(index workers)', e);
      await stop();
      return this.buildFullIndex(onProgress);
    }
    const { modules, dirs } = this.listModules();
    if (modules.length < 200) {
      await stop();
      return this.finishIndex(started, modules, dirs, new Array(modules.length), undefined, onProgress);
    }
    const results: Array<ModuleIndex | undefined> = new Array(modules.length);
    const versions: Record<string, string> = {};
    const keep = !this.releaseAfterIndex;
    const cache = this.cache;
    interface Job extends IndexJob {
      at: number;
      root: ModuleFile['root'];
      rel: string;
      version: string | undefined;
      hash?: string;
    }
    const queue: Job[][] = [];
    const BATCH = 16;
    let total = 0;
    let done = 0;
    let failure: unknown;
    let finished!: () => void;
    const allDone = new Promise<void>((resolve) => (finished = resolve));
    let reading = true;
    /** The batches each worker was given and has not answered yet, in order. */
    const given = new Map<Worker, Job[][]>(workers.map((w) => [w, []]));
    const progress = (n: number): void => {
      done += n;
      onProgress?.(done, total);
      if (!reading && done === total) finished();
    };
    const dispatch = (): void => {
      if (failure !== undefined) return;
      for (const w of workers) {
        const mine = given.get(w)!;
        while (queue.length > 0 && mine.length < 2) {
          const batch = queue.shift()!;
          mine.push(batch);
          const req: IndexRequest = { jobs: batch.map(({ name, isPackage, file, text }) => ({ name, isPackage, file, text })), serialized: !!cache || !!this.keepSerialized, summary: keep };
          w.postMessage(req);
        }
      }
    };
    const record = (j: Job, index: ModuleIndex, serialized: string | undefined, summary: ModuleSummary | undefined): void => {
      results[j.at] = index;
      this.filesRead.add(j.file);
      if (cache && serialized !== undefined) cache.putSerialized(j.root, j.rel, j.version, j.hash ?? hashText(j.text), serialized);
      if (serialized !== undefined) this.keepSerialized?.set(j.name, serialized);
      if (keep && summary) this.modules.set(j.name, { version: j.version, summary, generation: this.generation });
    };
    /** Summarises a batch on this thread (a failure is left for `finishIndex` to report). */
    const here = (batch: Job[]): void => {
      for (const j of batch) {
        let s: ModuleSummary;
        try {
          s = summarizeModule(j.text, j.name, j.isPackage, j.file);
        } catch {
          continue;
        }
        record(j, moduleIndexOf(s), cache || this.keepSerialized ? serializeSummary(s) : undefined, s);
      }
      progress(batch.length);
    };
    for (const w of workers) {
      w.on('message', (out: IndexResult[]) => {
        if (failure !== undefined) return; // its batches were taken back
        const batch = given.get(w)!.shift()!;
        out.forEach((r, k) => {
          if (r.index) record(batch[k], r.index, r.serialized, r.summary); // else summarised again in finishIndex, which reports the failure
        });
        dispatch();
        progress(batch.length);
      });
      const fail = (e: unknown): void => {
        if (failure !== undefined) return;
        failure = e;
        // what the workers were given is summarised here
        for (const b of given.values()) queue.push(...b.splice(0));
        finished();
      };
      w.on('error', fail);
      w.on('exit', (code) => {
        if (given.get(w)!.length > 0) fail(new Error(`an index worker stopped (exit code ${code})`));
      });
    }
    const yieldNow = (): Promise<unknown> => new Promise((resolve) => setImmediate(resolve));
    let batch: Job[] = [];
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      queue.push(batch);
      total += batch.length;
      batch = [];
      dispatch();
      if (queue.length > 0) here(queue.shift()!); // the workers are busy: take one batch
      await yieldNow(); // let the workers' answers in
    };
    let i = 0;
    for (; i < modules.length; i++) {
      const name = modules[i];
      const file = this.target.findModule(name);
      if (!file || !file.rel) {
        results[i] = EMPTY_MODULE_INDEX;
        continue;
      }
      const rel = file.rel;
      const root = file.root;
      const version = root.fileVersion(rel);
      versions[`${root.label}\0${rel}`] = version ?? '';
      if (this.overlays.has(name) || this.modules.has(name)) continue; // summarised in finishIndex
      let hit: ReturnType<SummaryCache['get']> | undefined;
      let text: string | undefined;
      try {
        hit = cache?.get(root, rel, version, () => root.readText(rel));
        if (hit?.summary && hit.summary.name === name) {
          results[i] = moduleIndexOf(hit.summary);
          if (keep) this.modules.set(name, { version, summary: hit.summary, generation: this.generation });
          this.fromCache++;
          this.cachedFiles.add(hit.summary.file);
          continue;
        }
        text = hit ? hit.text : root.readText(rel);
      } catch {
        continue; // a damaged file: read again and reported in finishIndex
      }
      if (text === undefined) continue; // reported in finishIndex
      batch.push({ at: i, name, isPackage: file.isPackage, file: root.displayPath(rel), text, root, rel, version, hash: hit?.hash });
      if (batch.length === BATCH) await flush();
    }
    await flush();
    reading = false;
    while (queue.length > 0) {
      here(queue.shift()!);
      dispatch();
      await yieldNow();
    }
    if (done < total && failure === undefined) await allDone;
    if (failure !== undefined) {
      this.onError?.('(index workers)', failure);
      for (const b of queue.splice(0)) here(b);
    }
    await stop();
    return this.finishIndex(started, modules, dirs, results, versions, onProgress);
  }

  /** The same, yielding to the event loop every few modules so that requests are still served. */
  async buildFullIndexAsync(onProgress?: (done: number, total: number) => void, isCancelled?: () => boolean): Promise<FullIndex | undefined> {
    if (this.fullIndex) return this.fullIndex;
    const steps = this.indexSteps(onProgress);
    let r = steps.next();
    while (!r.done) {
      await new Promise((resolve) => setImmediate(resolve));
      if (isCancelled?.()) return undefined;
      r = steps.next();
    }
    return r.value;
  }

  /** Every module file's identity, to tell whether a saved index still describes the target. */
  private fileVersions(modules: string[]): Record<string, string> {
    const versions: Record<string, string> = {};
    for (const m of modules) {
      const f = this.target.findModule(m);
      if (f?.rel) versions[`${f.root.label}\0${f.rel}`] = f.root.fileVersion(f.rel) ?? '';
    }
    return versions;
  }

  /** Whether every `root label \0 rel` of `versions` still has the identity saved for it. */
  private versionsMatch(versions: Record<string, string>): boolean {
    const roots = new Map<string, Target['roots'][number]>();
    for (const r of this.target.roots) if (!roots.has(r.label)) roots.set(r.label, r);
    for (const key in versions) {
      const cut = key.indexOf('\0');
      const root = roots.get(key.slice(0, cut));
      if (!root) return false;
      let rel = key.slice(cut + 1);
      if (rel.endsWith('/')) rel = rel.slice(0, -1);
      if ((root.fileVersion(rel) ?? '') !== versions[key]) return false;
    }
    return true;
  }

  /**
   * The saved index, when it still describes the target. When the folders listed to find the
   * modules are unchanged, so are the modules and their files, and only the files' identities
   * are checked; otherwise the roots are walked again.
   */
  private savedIndex(started: number, onProgress?: (done: number, total: number) => void): FullIndex | undefined {
    if (!this.cache) return undefined;
    const saved = this.cache.loadIndex(this.target.label);
    if (!saved) return undefined;
    let modules: string[] | undefined;
    if (saved.dirs && Object.keys(saved.dirs).length > 0 && this.versionsMatch(saved.dirs)) {
      if (!this.versionsMatch(saved.versions)) return undefined;
      modules = saved.modules;
    } else {
      const now = this.allModules();
      if (saved.modules.length !== now.length || !saved.modules.every((m, i) => m === now[i])) return undefined;
      const versions = this.fileVersions(now);
      const keys = Object.keys(versions);
      if (keys.length !== Object.keys(saved.versions).length || !keys.every((k) => saved.versions[k] === versions[k])) return undefined;
      modules = now;
    }
    onProgress?.(modules.length, modules.length);
    const classes = (saved.classes ?? []).map(([module, qualname, bases, methods]) => ({ module, qualname, bases, methods }));
    this.fullIndex = { modules, definitions: new Map(saved.definitions), classes, signatures: saved.signatures, ms: performance.now() - started, fromCache: true };
    return this.fullIndex;
  }

  /**
   * Gathers the index from each module's entries; modules without entries are summarised here
   * (failures are reported through `onError`). Saves the index with the identities it was built from.
   */
  private finishIndex(
    started: number,
    modules: string[],
    dirs: Record<string, string> | undefined,
    results: Array<ModuleIndex | undefined>,
    versions: Record<string, string> | undefined,
    onProgress?: (done: number, total: number) => void,
    failed = 0,
  ): FullIndex {
    const definitions = new Map<string, IndexEntry[]>();
    const classes: ClassRecord[] = [];
    let signatures = 0;
    for (let i = 0; i < modules.length; i++) {
      const name = modules[i];
      let entries = results[i];
      if (!entries) {
        const wasLoaded = this.modules.has(name);
        const s = this.summary(name);
        if (!wasLoaded && this.releaseAfterIndex) this.modules.delete(name); // the index keeps names, not summaries
        if (!s && this.target.findModule(name)?.rel) failed++;
        entries = s ? moduleIndexOf(s) : EMPTY_MODULE_INDEX;
      }
      signatures += entries.signatures;
      for (const [qualname, bases, methods] of entries.classes ?? []) classes.push({ module: name, qualname, bases, methods });
      for (const [n, kind, line] of entries.defs) {
        const list = definitions.get(n);
        if (list) list.push({ module: name, kind, line });
        else definitions.set(n, [{ module: name, kind, line }]);
      }
    }
    onProgress?.(modules.length, modules.length);
    this.fullIndex = { modules, definitions, classes, signatures, ms: performance.now() - started, failed };
    // an index that misses modules would be served as complete next time: it is not saved
    if (this.cache && failed === 0) {
      const entries = [...definitions.entries()];
      const saved = classes.map((c): [string, string, string[], string[]] => [c.module, c.qualname, c.bases, c.methods]);
      this.cache.saveIndex({ format: CACHE_FORMAT, target: this.target.label, modules, signatures, definitions: entries, classes: saved, versions: versions ?? this.fileVersions(modules), ...(dirs ? { dirs } : {}) });
    }
    return this.fullIndex;
  }

  private *indexSteps(onProgress?: (done: number, total: number) => void): Generator<void, FullIndex, void> {
    const started = performance.now();
    const saved = this.savedIndex(started, onProgress);
    if (saved) return saved;
    const { modules, dirs } = this.listModules();
    const results: ModuleIndex[] = new Array(modules.length);
    let failed = 0;
    for (let i = 0; i < modules.length; i++) {
      const name = modules[i];
      const wasLoaded = this.modules.has(name);
      const s = this.summary(name);
      if (!wasLoaded && this.releaseAfterIndex) this.modules.delete(name); // the index keeps names, not summaries
      if (!s && this.target.findModule(name)?.rel) failed++;
      results[i] = s ? moduleIndexOf(s) : EMPTY_MODULE_INDEX;
      if (i % 16 === 15) {
        onProgress?.(i + 1, modules.length);
        yield;
      }
    }
    return this.finishIndex(started, modules, dirs, results, undefined, onProgress, failed);
  }

  get hasFullIndex(): boolean {
    return !!this.fullIndex;
  }

  /** Questions that need the full index may build it (the CLI); otherwise they wait for it. */
  indexOnDemand = false;
  /** Told when a question needed the full index and it was not there (a host may build it in the background). */
  onIndexWanted?: () => void;

  /** The full index when it is built (nothing is built here). */
  get index(): FullIndex | undefined {
    return this.fullIndex;
  }

  /**
   * Classes of the target that may derive from a class of this simple name, directly or not: the
   * closure over the names their bases mention (an over-estimate: same names in other modules,
   * names inside calls). Undefined without a full index.
   */
  possibleSubclasses(name: string): ClassRecord[] | undefined {
    if (!this.fullIndex && this.indexOnDemand) this.buildFullIndex();
    if (!this.fullIndex) this.onIndexWanted?.();
    const index = this.fullIndex;
    if (!index) return undefined;
    if (!index.byBaseName) {
      const by = new Map<string, ClassRecord[]>();
      for (const c of index.classes) {
        for (const b of c.bases) {
          const list = by.get(b);
          if (list) list.push(c);
          else by.set(b, [c]);
        }
      }
      index.byBaseName = by;
    }
    const out = new Set<ClassRecord>();
    const names = [name];
    const seen = new Set(names);
    while (names.length) {
      const n = names.pop()!;
      for (const c of index.byBaseName.get(n) ?? []) {
        if (out.has(c)) continue;
        out.add(c);
        const simple = c.qualname.slice(c.qualname.lastIndexOf('.') + 1);
        if (!seen.has(simple)) {
          seen.add(simple);
          names.push(simple);
        }
      }
    }
    return [...out];
  }

  /** A class of a module by its qualified name (module-level or nested), when the module defines it. */
  classByQualname(module: string, qualname: string): { cls: ClassInfo; summary: ModuleSummary } | undefined {
    const s = this.summary(module);
    if (!s || !qualname.startsWith(module + '.')) return undefined;
    const parts = qualname.slice(module.length + 1).split('.');
    let found: ClassInfo | undefined;
    for (const b of s.bindings.get(parts[0]) ?? []) if (b.kind === 'class' && b.cls.qualname === `${module}.${parts[0]}`) found = b.cls;
    for (let i = 1; found && i < parts.length; i++) {
      const inner: ClassInfo | undefined = (found.members.get(parts[i]) ?? []).map((b) => (b.kind === 'class' ? b.cls : undefined)).find((c) => c?.qualname === qualname.split('.').slice(0, module.split('.').length + i + 1).join('.'));
      found = inner;
    }
    return found ? { cls: found, summary: s } : undefined;
  }

  invalidateIndex(): void {
    this.fullIndex = undefined;
  }

  /**
   * Starts a new check. Target files are re-validated (size, mtime) once per generation; with
   * `revalidateEveryMs` a generation lasts that long unless `force` is given (a server that
   * watches its targets re-validates when told or when idle, not on every keystroke). `changed`
   * says the targets are known to have changed (every result derived from them is then stale).
   */
  nextGeneration(force = false, changed = force): void {
    const now = Date.now();
    if (!force && this.revalidateEveryMs > 0 && now - this.generationStarted < this.revalidateEveryMs) return;
    // what this generation saw, for the next `contentEpoch` to compare (once a generation, not once a check)
    if (this.snapshots && this.epochGeneration === this.generation) this.recordSnapshot();
    this.generation++;
    this.generationStarted = now;
    this.memo.clear();
    this.namedImports.clear();
    this.opened.clear();
    this.stubKinds.clear();
    this.besideStubs.clear();
    this.versions.clear();
    if (!this.targetFixed) this.target.invalidate();
    if (changed) this.forcedSinceSnapshot = true;
  }

  /** Keep a snapshot of what each generation saw, so that `contentEpoch` can tell what changed. */
  snapshots = false;

  /**
   * A number that changes whenever what the target says may have changed: a forced refresh, or a
   * re-validation that found a module file with another identity, a module found elsewhere (or
   * no longer found), or a package folder listed differently. Results derived from the target
   * within one epoch stay true (the language server reuses per-statement results on that basis).
   * Comparing is done once per generation, and only when asked.
   */
  contentEpoch(): number {
    if (this.epochGeneration === this.generation) return this.epoch;
    this.epochGeneration = this.generation;
    if (this.forcedSinceSnapshot || !this.snapshot || !this.matchesSnapshot(this.snapshot)) this.epoch++;
    this.forcedSinceSnapshot = false;
    this.snapshot = undefined;
    return this.epoch;
  }

  /** Records what this generation has seen of the target, for the next `contentEpoch` to compare. */
  private recordSnapshot(): void {
    if (this.epochGeneration !== this.generation) this.contentEpoch();
    const lookups = new Map<string, string>();
    for (const [name, file] of this.target.lookups()) lookups.set(name, moduleIdentity(file));
    const versions = new Map<string, string | undefined>();
    for (const [name, m] of this.modules) versions.set(name, m.version);
    const listings = new Map<string, string>();
    for (const [key, entry] of this.listed) listings.set(key, entry.listing);
    this.snapshot = { lookups, versions, listings };
  }

  private matchesSnapshot(s: { lookups: Map<string, string>; versions: Map<string, string | undefined>; listings: Map<string, string> }): boolean {
    for (const [name, identity] of s.lookups) if (moduleIdentity(this.target.findModule(name)) !== identity) return false;
    for (const [name, version] of s.versions) {
      const file = this.target.findModule(name);
      const now = file?.rel ? file.root.fileVersion(file.rel) : undefined;
      if (now !== version) return false;
    }
    for (const [key, listing] of s.listings) {
      const entry = this.listed.get(key);
      if (!entry || (entry.root.listDir(entry.rel) ?? []).join('/') !== listing) return false;
    }
    return true;
  }

  private epoch = 0;
  private epochGeneration = -1;
  private forcedSinceSnapshot = false;
  private snapshot?: { lookups: Map<string, string>; versions: Map<string, string | undefined>; listings: Map<string, string> };
  /** Package folders whose listing decided something (placeholder packages). */
  private readonly listed = new Map<string, { root: ModuleFile['root']; rel: string; listing: string }>();

  /**
   * Drop the summaries that only the full index needed once it is built (they come back from
   * the persistent cache or the source when a check needs them): a long-lived server stays small.
   */
  releaseAfterIndex = false;
  /**
   * Summaries made here are copied off the module's text before they are kept (an editor's engine
   * keeps them for hours; a command's would pay for the copy and gain little): see ownStrings.ts.
   */
  compactSummaries = false;

  /**
   * The target files do not change while this program lives (a command-line run, which writes
   * its fixes only at the end): module lookups and file identities are taken once, not once per
   * check. Each check still starts with no resolutions made (the file checked is an overlay).
   */
  targetFixed = false;

  /** How long a generation lasts (0: each check re-validates). */
  revalidateEveryMs = 0;
  private generationStarted = 0;
  /** Resolutions of target names, valid for one generation. */
  private readonly memo = new Map<string, Value>();

  get currentGeneration(): number {
    return this.generation;
  }

  setOverlay(summary: ModuleSummary): void {
    this.overlays.set(summary.name, summary);
  }

  removeOverlay(name: string): void {
    this.overlays.delete(name);
  }

  findModule(name: string): ModuleFile | null {
    return this.target.findModule(name);
  }

  private readonly versions = new Map<string, string | undefined>();

  /**
   * The version of the target's top-level package `top`: the one the user states for it, else
   * where the target says it: the `*.dist-info/METADATA` beside it (an installed tree, a wheel),
   * a git revision that is a version tag of the package's project (`git:vllm@v0.16.0`), else a literal `__version__`
   * that the package binds (through `from ._version import __version__` and the like). A source
   * checkout whose version the build writes says nothing; nor does a placeholder (`0.0.0`, `dev`).
   */
  packageVersion(top: string): string | undefined {
    const stated = this.target.statedVersions.get(top);
    if (stated !== undefined) return stated;
    if (this.versions.has(top)) return this.versions.get(top);
    let version: string | undefined;
    const file = this.target.findModule(top);
    if (file && file.isPackage && !file.compiled && !this.target.isUser(file)) {
      version = distInfoVersion(file, top) ?? file.packageDirs[0]?.root.taggedVersion?.(top) ?? this.literalVersion(top, '__version__', 0);
      if (version !== undefined && (pep440.valid(version) === null || /^[0.]+$/.test(pep440.explain(version)?.release.join('.') ?? '0'))) version = undefined;
    }
    this.versions.set(top, version);
    return version;
  }

  /** The string a module binds to `name`, following `from m import name`: one answer, or undefined. */
  private literalVersion(module: string, name: string, depth: number): string | undefined {
    if (depth > 4) return undefined;
    const bs = this.summary(module)?.bindings.get(name);
    if (!bs) return undefined;
    const found = new Set<string>();
    for (const b of bs) {
      if (b.kind === 'value' && b.expr.kind === 'str') found.add(b.expr.value);
      else if (b.kind === 'from') {
        // `try: from ._version import __version__` / `except ImportError: __version__ = "dev"`:
        // the attempt where its module is there
        const v = this.target.findModule(b.module) ? this.literalVersion(b.module, b.name, depth + 1) : undefined;
        if (v !== undefined) found.add(v);
        else if (!b.tryImport) return undefined;
      } else if (b.kind !== 'value' || !b.tryImport) return undefined;
    }
    const valid = [...found].filter((v) => pep440.valid(v) !== null);
    return valid.length === 1 ? valid[0] : undefined;
  }

  /** A package that holds nothing but an `__init__.py` binding nothing: a placeholder filled at build time. */
  isPlaceholderPackage(file: ModuleFile): boolean {
    if (!file.isPackage) return false;
    const s = file.rel ? this.summary(file.name) : null;
    if (s && (s.bindings.size > 0 || s.starImports.length > 0)) return false;
    return file.packageDirs.every(({ root, rel }) => {
      const entries = root.listDir(rel) ?? [];
      this.listed.set(`${root.label}\0${rel}`, { root, rel, listing: entries.join('/') });
      return entries.every((e) => e === '__init__.py' || e === '__init__.pyi' || e === '__pycache__');
    });
  }

  /** The module is the user's own (found in a folder of user code), not the target's. */
  isUserModule(name: string): boolean {
    return this.target.userRoots.length > 0 && !this.overlays.has(name) && this.target.isUser(this.target.findModule(name));
  }

  /** Files of the user's own modules summarised so far (the paths their definitions carry). */
  private readonly userFiles = new Set<string>();

  isUserFile(file: string): boolean {
    return this.userFiles.has(file);
  }

  /** A dotted name defined in a module of the user's own code. */
  isUserQualname(qualname: string): boolean {
    if (this.target.userRoots.length === 0) return false;
    const parts = qualname.split('.');
    for (let i = parts.length - 1; i >= 1; i--) {
      const m = parts.slice(0, i).join('.');
      if (this.target.findModule(m)) return this.isUserModule(m);
    }
    return false;
  }

  private readonly buildFacts = new Map<ModuleFile['root'], { versions: string; facts: BuildFacts }>();

  /** What the build files of a root say (re-read when one of them changes). */
  private buildFactsOf(root: ModuleFile['root']): BuildFacts {
    // a src layout: the build files sit in the folder above `src`
    const outer = outerBuildFiles(root);
    const versions = BUILD_FILES.map((f) => root.fileVersion(f) ?? '-').join('\0') + (outer ? `\0${outer.versions()}` : '');
    const hit = this.buildFacts.get(root);
    if (hit && hit.versions === versions) return hit.facts;
    const facts = readBuildFacts(root, outer?.read);
    this.buildFacts.set(root, { versions, facts });
    return facts;
  }

  /**
   * Why a module that the target's source lacks may be created by its build, or undefined: a
   * compiled extension or a folder the build files copy modules into, or (with `placeholders`,
   * for module paths) a package folder that version control keeps with a placeholder file
   * (`.gitkeep`, `.gitignore`): its contents come from elsewhere.
   */
  buildCreated(name: string, placeholders = true): string | undefined {
    const parts = name.split('.');
    const top = this.target.findModule(parts[0]);
    if (!top || top.compiled) return undefined;
    const facts = this.buildFactsOf(top.root);
    if (facts.extensions.has(name)) return `${name} is an extension module the build compiles (${facts.files.join(', ')})`;
    if (facts.written.has(name)) return `${name} is a file the build writes (${facts.files.join(', ')})`;
    for (let i = parts.length; i >= 2; i--) {
      const p = parts.slice(0, i).join('.');
      if (facts.copied.has(p)) return `the build copies modules into ${p} (${facts.files.join(', ')})`;
    }
    const parent = parts.length > 1 ? this.target.findModule(parts.slice(0, -1).join('.')) : null;
    // a Cython source beside: the build compiles it into a module of that name
    const last = parts[parts.length - 1];
    for (const { root, rel } of parent?.isPackage ? parent.packageDirs : []) {
      if ((root.listDir(rel) ?? []).includes(`${last}.pyx`)) return `${name} is a Cython module the build compiles (${last}.pyx)`;
    }
    if (placeholders && parent?.isPackage) {
      for (const { root, rel } of parent.packageDirs) {
        const entries = root.listDir(rel) ?? [];
        this.listed.set(`${root.label}\0${rel}`, { root, rel, listing: entries.join('/') });
        const keep = entries.find((e) => e === '.gitkeep' || e === '.keep' || e === '.gitignore');
        if (keep) return `${parent.name} holds a ${keep}: it is filled by something other than its source`;
      }
    }
    return undefined;
  }

  /**
   * Whether the tree that holds a top-level module says what its build adds: it has build files,
   * or it is an installed tree (install metadata beside the package, where compiled modules are
   * files). A bare copy of a package's source may lack compiled extensions without saying so.
   */
  knowsBuildProducts(topLevel: string): boolean {
    const top = this.target.findModule(topLevel);
    if (!top || top.compiled) return false;
    if (this.buildFactsOf(top.root).files.length > 0) return true;
    return (top.root.listDir('') ?? []).some((e) => /\.(dist-info|egg-info)$/.test(e));
  }

  inTarget(moduleName: string): boolean {
    return this.overlays.has(moduleName) || this.target.findModule(moduleName) !== null;
  }

  /** The summary of a module, or null when the target lacks it or it has no source. */
  summary(name: string): ModuleSummary | null {
    const overlay = this.overlays.get(name);
    if (overlay) return overlay;
    const file = this.target.findModule(name);
    if (!file || !file.rel) return null;
    const cached = this.modules.get(name);
    if (cached && (cached.generation === this.generation || this.targetFixed)) return cached.summary;
    const version = file.root.fileVersion(file.rel);
    if (cached && cached.version === version && version !== undefined) {
      cached.generation = this.generation;
      return cached.summary;
    }
    let summary: ModuleSummary | null = null;
    const user = this.target.isUser(file);
    try {
      const root = file.root;
      const rel = file.rel;
      const hit = this.cache?.get(root, rel, version, () => root.readText(rel));
      if (hit?.summary && hit.summary.name === name) {
        summary = hit.summary;
        this.fromCache++;
        this.cachedFiles.add(summary.file);
      } else if (this.summaryProvider && (summary = this.summaryProvider(name) ?? null)?.name === name) {
        this.filesRead.add(summary!.file); // read by another thread
        this.provided++;
      } else {
        summary = null;
        const text = hit ? hit.text : root.readText(rel);
        if (text === undefined && !user) this.onError?.(name, new Error(`${root.displayPath(rel)} cannot be read`));
        if (text !== undefined) {
          summary = summarizeModule(text, name, file.isPackage, root.displayPath(rel));
          // kept for long: its names must not keep the module's text (see ownStrings.ts)
          if (this.compactSummaries) summary = ownCopy(summary);
          this.filesRead.add(summary.file);
          this.onRead?.(name, summary.file);
          if (this.cache) this.cache.put(root, rel, version, hit?.hash ?? hashText(text), summary);
        }
      }
    } catch (e) {
      // the user's own modules are followed where they can be; the target must be read in full
      if (!user) this.onError?.(name, e);
      summary = null;
    }
    if (user && summary) this.userFiles.add(summary.file);
    this.modules.set(name, { version, summary, generation: this.generation });
    return summary;
  }

  /**
   * The target's summary of a module, for a check of that module's own file with the text it has
   * on disk (a project checked against itself): the file is then not summarised a second time.
   * The summary of the skeleton equals the summary of the whole tree (see the skeleton tests).
   * Undefined when the file checked is not that file, or its text is not the one summarised.
   */
  summaryOfText(name: string, isPackage: boolean, file: string, text: string): ModuleSummary | undefined {
    if (this.overlays.has(name)) return undefined;
    const f = this.target.findModule(name);
    if (!f || !f.rel || f.compiled || f.isPackage !== isPackage || this.target.isUser(f)) return undefined;
    const root = f.root;
    const rel = f.rel;
    const shown = root.displayPath(rel);
    // the file named as the command line was given it (relative to where it runs) is that file too
    if (shown !== file && !(path.isAbsolute(shown) && path.resolve(file) === shown)) return undefined;
    const s = this.summary(name);
    const version = this.modules.get(name)?.version;
    if (!s || version === undefined || s.name !== name || s.isPackage !== isPackage || s.file !== shown) return undefined;
    try {
      // the text summarised is the one on disk when the file's identity is still the same after reading it
      if (root.readText(rel) !== text || root.fileVersion(rel) !== version) return undefined;
    } catch {
      return undefined;
    }
    // its definitions are shown where the check shows the file
    return s.file === file ? s : { ...s, file };
  }

  /** `module.name` as Python's import system and attribute access would see it. */
  resolveMember(module: string, name: string, depth = 0): Value {
    if (this.overlays.size > 0 && this.overlays.has(module)) return this.resolveMemberUncached(module, name, depth);
    const key = `${module}\0${name}`;
    const hit = this.memo.get(key);
    if (hit) return hit;
    const v = this.resolveMemberUncached(module, name, depth);
    this.memo.set(key, v);
    return v;
  }

  private resolveMemberUncached(module: string, name: string, depth: number): Value {
    if (depth > MAX_DEPTH) return { kind: 'unknown', reason: 'import cycle' };
    const file = this.overlays.has(module) ? null : this.target.findModule(module);
    if (!this.overlays.has(module)) {
      if (!file) return known({ kind: 'external', qualname: `${module}.${name}` });
      if (file.compiled) return { kind: 'unknown', reason: `${module} is a compiled module`, outside: true };
    }
    const summary = this.summary(module);
    if (!summary && file && file.rel) return { kind: 'unknown', reason: `${module} could not be read` };
    const bindings = summary?.bindings.get(name);
    if (bindings && summary) return this.valueOfBindings(bindings, summary, depth);
    if (MODULE_DUNDERS.has(name) || (name === '__path__' && (file?.isPackage || summary?.isPackage))) return { kind: 'unknown', reason: `${name} is set on every module` };
    if ((file?.isPackage || summary?.isPackage) && this.target.findModule(`${module}.${name}`)) return { kind: 'module', name: `${module}.${name}` };
    if (file && file.isPackage && !file.rel) return { kind: 'unknown', reason: `${module} is a namespace package: other portions may provide ${name}` };
    if (GENERATED.test(name)) return { kind: 'unknown', reason: `${name} looks generated at build time` };
    if (file && this.isPlaceholderPackage(file)) return { kind: 'unknown', reason: `${module} is an empty package, filled at build time` };
    if (file?.isPackage) {
      const built = this.buildCreated(`${module}.${name}`, false);
      if (built) return { kind: 'unknown', reason: built, outside: true };
    }
    if (summary) {
      // of the star imports that give the name, the last one binds it last
      for (const star of [...summary.starImports].reverse()) {
        const r = this.starMember(star, name, depth + 1);
        if (r.kind !== 'missing') return r;
      }
      if (loadsLazily(summary)) {
        // a lazily loading package (`__getattr__ = attach(__name__, {...})`, or one that puts a lazy
        // module in its place in sys.modules) that imports the names it serves under TYPE_CHECKING,
        // for type checkers: what they see is what it serves
        const declared = summary.typeCheckingBindings?.get(name);
        if (declared && declared.every((b) => b.kind === 'from' || b.kind === 'module')) return this.valueOfBindings(declared, summary, depth);
      }
      if (summary.dynamic) return { kind: 'unknown', reason: `${module} writes its namespace dynamically` };
      if (summary.getattr.kind === 'opaque') return { kind: 'unknown', reason: `${module} has a module __getattr__` };
      if (summary.getattr.kind === 'names' && summary.getattr.names.has(name)) {
        // a branch that returns the name of another module (a lazy or deprecated re-export)
        const from = summary.getattr.served?.get(name);
        if (from) return this.resolveMember(from.module, from.attr, depth + 1);
        const target = summary.getattr.lazy?.get(name);
        if (target) {
          // a lazy re-export: {"Name": ".module:attr"}
          const [mod, attr] = target.split(':');
          const dots = /^\.*/.exec(mod)![0].length;
          const abs = dots ? resolveRelative(module, true, dots, mod.slice(dots)) : mod;
          if (abs) return this.resolveMember(abs, attr, depth + 1);
        }
        return { kind: 'unknown', reason: `${module}.${name} is served by the module's __getattr__` };
      }
    }
    // `name: T` at the top level, and set elsewhere (a function's `global name`, a generated stub)
    if (summary?.declared?.has(name)) return { kind: 'unknown', reason: `${module} declares ${name} and sets it elsewhere` };
    // a function of the module declares it `global`: it binds the name in the module when it runs
    if (summary?.globalsSet?.includes(name)) return { kind: 'unknown', reason: `a function of ${module} binds ${name} in the module (global) when it runs` };
    // a stub describes the module for type checkers; the source beside it is what runs, and may
    // define what the stub leaves out (private helpers, metadata, names its __getattr__ serves)
    if (file && this.stubWithSource(module) && new RegExp(`\\b${name}\\b|^(def\\s+__getattr__\\b|__getattr__\\s*=)`, 'm').test(this.sourceBesideStub(module) ?? '')) {
      return { kind: 'unknown', reason: `the stub of ${module} leaves ${name} out; the source beside it has it` };
    }
    // a name a decorator of the target that looks in sys.modules may copy into the module from a
    // class of the module it decorates (`@_Backend.export` copies `FigureCanvas`, `show`...;
    // `@enum.global_enum` the members): an attribute that class has or inherits
    const copied = summary ? this.copiedByDecorator(summary, name) : undefined;
    if (copied) return { kind: 'unknown', reason: copied };
    // a stub of a compiled module: what runs is the compiled code (built from the Cython source
    // beside it, where there is one), which may define what the stub leaves out
    const compiled = file ? this.compiledBesideStub(file) : undefined;
    if (compiled !== undefined && (compiled === null || new RegExp(`\\b${name}\\b`).test(compiled))) {
      return { kind: 'unknown', reason: `the stub of ${module} leaves ${name} out; the compiled module beside it may define it` };
    }
    const opened = summary ? this.openedNamespace(summary) : undefined;
    if (opened) return { kind: 'unknown', reason: opened };
    return { kind: 'missing', module, name };
  }

  /** The text of a target module on disk: undefined where it has no file, null where that cannot be read. */
  moduleText(module: string): string | null | undefined {
    const file = this.target.findModule(module);
    if (!file?.rel) return undefined;
    try {
      return file.root.readText(file.rel);
    } catch {
      return null;
    }
  }

  /** What `openedNamespace` found, by module, for this generation. */
  private readonly opened = new Map<string, string | null>();

  /**
   * Why names a module does not bind may be there all the same, from what its code does on import
   * (undefined when nothing says so):
   * - it installs an import hook (adds to `sys.meta_path`), which may serve any submodule of it
   *   (`from setuptools.extern import packaging`, served from a vendored copy);
   * - a call at its top level hands its own name to a function of the target that looks it up in
   *   `sys.modules` (`enable_attribute_deprecations(__name__)`, which gives the module a
   *   `__getattr__` by changing its class). A function outside the target
   *   (`logging.getLogger(__name__)`) is not taken for one.
   */
  private openedNamespace(summary: ModuleSummary): string | undefined {
    const module = summary.name;
    const known = this.opened.get(module);
    if (known !== undefined) return known ?? undefined;
    let found: string | null = null;
    const text = this.overlays.has(module) ? undefined : this.moduleText(module);
    this.opened.set(module, null); // (against a cycle through the callee's module)
    if (text?.includes('sys.meta_path') && META_PATH_WRITE.test(text)) found = `${module} installs an import hook (sys.meta_path), which may serve it`;
    for (const m of !found && text?.includes('__name__') ? text.matchAll(/^([A-Za-z_][\w.]*)[ \t]*\([ \t]*__name__[ \t]*[,)]/gm) : []) {
      const [head, ...rest] = m[1].split('.');
      let v = this.resolveGlobal(summary, head);
      for (const a of rest) v = this.attribute(v, a, 1);
      if (v.kind !== 'function' || !this.looksUpModules(v.fn, v.summary)) continue;
      found = `${module} hands itself to ${m[1]}, which may change its namespace`;
      break;
    }
    // a module of its own that its import runs and that installs an import hook, or any module its
    // import runs that reaches it through sys.modules by its name (`sys.modules["tlz"]` in a
    // helper `tlz` imports)
    const named = !found && text ? this.importsNamed(module) : [];
    for (const n of named === 'unknown' ? [] : named) {
      if (n === module || !this.target.findModule(n)?.rel) continue;
      const other = this.moduleText(n);
      if (!other?.includes('sys.')) continue;
      // (a hook of another package's, as a compatibility library installs for its own names, serves that package)
      if (n.startsWith(`${module}.`) && META_PATH_WRITE.test(other)) found = `${module} loads ${n}, which installs an import hook (sys.meta_path)`;
      else if (new RegExp(`\\bsys\\.modules\\[\\s*(['"])${module.replace(/\./g, '\\.')}\\1\\s*\\]`).test(other)) found = `${module} loads ${n}, which reaches ${module} through sys.modules`;
      if (found) break;
    }
    this.opened.set(module, found);
    return found ?? undefined;
  }

  /** Why `name` may be copied into the module by a decorator of one of its classes (see `resolveMember`), if it may. */
  private copiedByDecorator(summary: ModuleSummary, name: string): string | undefined {
    for (const bs of summary.bindings.values()) {
      for (const b of bs) {
        if (b.kind !== 'class' || b.cls.decorators.length === 0) continue;
        for (const d of b.cls.decorators) {
          const v = this.evalExpr(d.kind === 'call' ? d.callee : d, summary);
          if (v.kind !== 'function' || !this.looksUpModules(v.fn, v.summary)) continue;
          if (this.classMember(b.cls, summary, name) !== undefined) return `a decorator of ${b.cls.name} that looks in sys.modules may copy its ${name} into ${summary.name}`;
        }
      }
    }
    return undefined;
  }

  /** The body of a function of the target mentions `sys.modules`. */
  private looksUpModules(fn: FunctionInfo, summary: ModuleSummary): boolean {
    const text = this.moduleText(summary.name);
    if (text === null) return true; // it cannot be read: it may
    if (!text?.includes('sys.modules')) return false;
    const lines = text.split('\n');
    const start = fn.line - 1;
    const indent = /^[ \t]*/.exec(lines[start] ?? '')![0].length;
    for (let i = start + 1; i < lines.length; i++) {
      const line = lines[i];
      const ind = /^[ \t]*/.exec(line)![0].length;
      // (a line that closes the brackets of a signature written over several lines goes on with it)
      if (ind < line.length && line[ind] !== '#' && ind <= indent && !/^[)\]}]/.test(line.slice(ind))) break;
      if (line.includes('sys.modules')) return true;
    }
    return false;
  }

  /** The module is read from a stub (`.pyi`) that has its Python source beside it. */
  stubWithSource(module: string): boolean {
    const file = this.target.findModule(module);
    return !!file?.rel?.endsWith('.pyi') && file.root.isFile(file.rel.slice(0, -1));
  }

  /**
   * The module sets the defaults of `name` (a function, or the `__new__` or `__init__` of a class,
   * as a namedtuple is given defaults) after defining it: `name.__defaults__ = ...`.
   */
  defaultsRewritten(module: string, name: string): boolean {
    return !!this.summary(module)?.defaultsSet?.includes(name);
  }

  /**
   * The module hands `name` to a decorator (`@overload(name)` above another function): a
   * placeholder so registered is given its meaning by what it is registered with (a compiler's
   * overloads), not by its own body.
   */
  handedToDecorator(module: string, name: string): boolean {
    return !!this.summary(module)?.decoratorArgs?.includes(name);
  }

  private readonly stubKinds = new Map<string, 'compiled' | 'source' | null>();

  /**
   * What runs where the module is read from a stub (`m.pyi`): a compiled module beside it (`m.*.so`,
   * `m.pyd`), or Python source (`m.py`); null for a module read from its source.
   */
  stubBeside(module: string): 'compiled' | 'source' | null {
    let known = this.stubKinds.get(module);
    if (known === undefined) {
      const file = this.target.findModule(module);
      known = file && this.compiledBesideStub(file) !== undefined ? 'compiled' : this.stubWithSource(module) ? 'source' : null;
      this.stubKinds.set(module, known);
    }
    return known;
  }

  /**
   * For a module read from a stub (`m.pyi`) that has a compiled module beside it (`m.*.so`,
   * `m.pyd`): the text of the Cython source it was built from (`m.pyx`), or null without one;
   * undefined for any other module.
   */
  private compiledBesideStub(file: ModuleFile, depth = 0): string | null | undefined {
    const rel = file.rel;
    if (!rel?.endsWith('.pyi') || depth > 8) return undefined;
    const compiledIn = (dir: string, base: string): boolean => !!file.root.listDir(dir)?.some((e) => e.startsWith(`${base}.`) && e.split('.')[0] === base && COMPILED.test(e));
    const slash = rel.lastIndexOf('/');
    const dir = slash < 0 ? '' : rel.slice(0, slash);
    if (file.isPackage) {
      // `pkg/__init__.pyi` without `__init__.py`: Python passes the folder over and loads the
      // extension module `pkg.*.so` beside it, which the stub package describes
      if (file.root.isFile(rel.slice(0, -1))) return undefined;
      const up = dir.lastIndexOf('/');
      return compiledIn(up < 0 ? '' : dir.slice(0, up), dir.slice(up + 1)) ? null : undefined;
    }
    const base = rel.slice(slash + 1, -4);
    if (!compiledIn(dir, base)) {
      // a stub module of such a stub package describes a submodule the extension module makes
      const dot = file.name.lastIndexOf('.');
      const parent = dot < 0 ? undefined : this.target.findModule(file.name.slice(0, dot));
      return parent?.isPackage && this.compiledBesideStub(parent, depth + 1) !== undefined ? null : undefined;
    }
    try {
      const pyx = `${rel.slice(0, -4)}.pyx`;
      return file.root.isFile(pyx) ? file.root.readText(pyx) : null;
    } catch {
      return null;
    }
  }

  /**
   * The source beside the stub of `module` has a `def name(...)` whose parameters have these names,
   * in this order (its signature may differ in defaults and annotations, which a binding does not
   * read; one with other names, or none, does not count).
   */
  sourceDefines(module: string, name: string, params: string[]): boolean {
    if (!this.besideStubs.has(module)) this.besideStubs.set(module, this.sourceBesideStub(module));
    const text = this.besideStubs.get(module);
    if (!text) return false;
    const want = params.join(',');
    for (const m of text.matchAll(new RegExp(`\\bdef[ \\t]+${name}[ \\t]*\\(`, 'g'))) {
      // the parameter list up to its closing bracket, split at the commas of its own level
      let depth = 1;
      let i = m.index! + m[0].length;
      const parts: string[] = [];
      let part = '';
      for (; i < text.length && depth > 0; i++) {
        const ch = text[i];
        if (ch === '(' || ch === '[' || ch === '{') depth++;
        else if (ch === ')' || ch === ']' || ch === '}') depth--;
        if (depth === 0) break;
        if (ch === ',' && depth === 1) {
          parts.push(part);
          part = '';
        } else part += ch;
      }
      parts.push(part);
      const names = parts
        .map((x) => x.replace(/#.*$/gm, '').trim())
        .filter((x) => x && x !== '/' && x !== '*')
        .map((x) => /^\**\s*([A-Za-z_]\w*)/.exec(x)?.[1] ?? '?');
      if (names.join(',') === want) return true;
    }
    return false;
  }

  /** The source beside each stub `sourceDefines` read, for this generation. */
  private readonly besideStubs = new Map<string, string | undefined>();

  private sourceBesideStub(module: string): string | undefined {
    const file = this.target.findModule(module);
    try {
      return file?.rel ? file.root.readText(file.rel.slice(0, -1)) : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * A name the module does not bind but serves from its `__getattr__` after a deprecation
   * warning: where it comes from now, and the library's message.
   */
  deprecatedGetattr(module: string, name: string): { module: string; attr: string; message: string } | undefined {
    const s = this.summary(module);
    if (!s || s.bindings.has(name) || s.getattr.kind !== 'names' || !s.getattr.names.has(name)) return undefined;
    const from = s.getattr.served?.get(name);
    if (!from || from.deprecated === undefined) return undefined;
    if (this.target.findModule(`${module}.${name}`) && s.isPackage) return undefined; // a submodule is found first
    if (s.dynamic || s.starImports.some((m) => this.starMember(m, name, 1).kind !== 'missing')) return undefined;
    return { module: from.module, attr: from.attr, message: from.deprecated };
  }

  private starMember(module: string, name: string, depth: number): Value {
    const file = this.target.findModule(module);
    if (!file) return { kind: 'unknown', reason: `star import from ${module}, which is outside the target`, outside: true };
    if (file.compiled) return { kind: 'unknown', reason: `star import from compiled ${module}`, outside: true };
    const s = this.summary(module);
    if (!s) return { kind: 'unknown', reason: `star import from unreadable ${module}` };
    if (s.all === 'dynamic') return { kind: 'unknown', reason: `${module}.__all__ is computed` };
    if (Array.isArray(s.all)) {
      if (!s.all.includes(name)) return { kind: 'missing', module, name };
    } else if (name.startsWith('_')) return { kind: 'missing', module, name };
    const r = this.resolveMember(module, name, depth);
    // `from m import *` without __all__ takes the submodules of m that are attributes of m by
    // then: those m binds, and those its import loaded (the import system sets `m.sub` when it
    // loads `m.sub`), not the others
    if (!Array.isArray(s.all) && r.kind === 'module' && !s.bindings.has(name)) {
      const loaded = this.importLoads(module, r.name);
      if (loaded === 'unknown') return { kind: 'unknown', reason: `whether the import of ${module} loads ${r.name} is not known` };
      if (!loaded) return { kind: 'missing', module, name };
    }
    return r;
  }

  /** The modules each target module's text names in its imports (see `importLoads`), for this generation. */
  private readonly namedImports = new Map<string, string[] | 'unknown'>();

  /**
   * Whether importing `module` loads `sub` (one of its submodules), which the import system then
   * binds as an attribute of `module`: an import of `sub` (or of a module inside it) in the code of
   * `module`, or of a module that code imports, and so on. Every import statement of a text counts,
   * inside functions too, and any text that names `sub` in an import: an answer of no is certain,
   * one of yes may not be. Code that imports by computed names leaves it unknown.
   */
  private importLoads(module: string, sub: string): boolean | 'unknown' {
    const seen = new Set<string>([module]);
    const queue = [module];
    for (let i = 0; i < queue.length; i++) {
      if (i >= IMPORT_SCAN_LIMIT) return 'unknown';
      const names = this.importsNamed(queue[i]);
      if (names === 'unknown') return 'unknown';
      for (const n of names) {
        if (n === sub || n.startsWith(`${sub}.`)) return true;
        // importing a.b.c runs a, then a.b, then a.b.c
        const parts = n.split('.');
        for (let k = 1; k <= parts.length; k++) {
          const m = parts.slice(0, k).join('.');
          if (seen.has(m)) continue;
          seen.add(m);
          if (this.target.findModule(m)?.rel) queue.push(m);
        }
      }
    }
    return false;
  }

  /**
   * The absolute names of the modules a target module's import statements name (`import a.b`:
   * `a.b`; `from a import b`: `a` and `a.b`, which may be a submodule), read from its text;
   * `unknown` for a module being edited (its text on disk may be old), one that cannot be read,
   * or one that imports by computed names.
   */
  private importsNamed(module: string): string[] | 'unknown' {
    let names = this.namedImports.get(module);
    if (names !== undefined) return names;
    names = 'unknown';
    const text = this.overlays.has(module) ? undefined : this.moduleText(module);
    if (typeof text === 'string' && !/\b(?:import_module|__import__|import_submodules|walk_packages|iter_modules)\s*\(/.test(text)) names = importedNames(text, module, !!this.target.findModule(module)?.isPackage);
    this.namedImports.set(module, names);
    return names;
  }

  /** Module-level names being resolved (against self-reference). */
  private readonly resolving = new Set<string>();

  valueOfBindings(bindings: Binding[], summary: ModuleSummary, depth: number): Value {
    // in the user's code only: the target's own fallbacks stand for the environments it supports
    // (a module of its own may fail to import there for want of an optional dependency)
    const live = bindings.length > 1 && bindings.some((b) => b.tryImport) && (summary.name === USER_FILE_MODULE || this.isUserModule(summary.name)) ? this.afterImportTries(bindings, depth) : bindings;
    const values = live.map((b) => this.valueOfBinding(b, summary, depth));
    return anyOf(values);
  }

  /**
   * `try: from m import X` / `except ImportError: X = fallback` in the user's code, most often
   * written for the versions of the target that lack `X`: against the target, the handler runs
   * only when an import of the block fails. When every import of the block succeeds, the
   * handler's bindings are dropped; when one certainly fails, the block's bindings of the names
   * the handler binds are (the handler's come after them). Otherwise both stay possible.
   */
  private afterImportTries(bindings: Binding[], depth: number): Binding[] {
    let out = bindings;
    const tries = new Map<number, ImportTry>();
    for (const b of bindings) if (b.tryImport) tries.set(b.tryImport.line, b.tryImport);
    for (const [line, t] of tries) {
      const has = (role: ImportTry['role']): boolean => out.some((b) => b.tryImport?.line === line && b.tryImport.role === role);
      if (!has('fallback')) continue;
      const outcome = this.importsOutcome(t.imports, depth);
      if (outcome === 'succeeds') out = out.filter((b) => !(b.tryImport?.line === line && b.tryImport.role === 'fallback'));
      else if (outcome === 'fails') out = out.filter((b) => !(b.tryImport?.line === line && b.tryImport.role === 'attempt'));
    }
    return out.length > 0 ? out : bindings;
  }

  /** Whether imports all succeed against the target, one of them certainly fails, or it cannot be told. */
  importsOutcome(imports: ImportTry['imports'], depth = 0): 'succeeds' | 'fails' | 'unknown' {
    let all = true;
    for (const imp of imports) {
      const o = this.importOutcome(imp.module, imp.name, depth);
      if (o === 'fails') return 'fails';
      if (o !== 'succeeds') all = false;
    }
    return all ? 'succeeds' : 'unknown';
  }

  private importOutcome(module: string, name: string | undefined, depth: number): 'succeeds' | 'fails' | 'unknown' {
    const top = module.split('.')[0];
    // the target's own modules only: whatever else may be installed is not known here
    if (!this.inTarget(top) || this.isUserModule(top) || this.overlays.has(module)) return 'unknown';
    const m = this.moduleOutcome(module);
    if (m !== 'succeeds' || name === undefined) return m;
    if (this.target.findModule(`${module}.${name}`)) return 'succeeds';
    const v = this.resolveMember(module, name, depth + 1);
    if (v.kind === 'missing') return 'fails';
    // bound on every path through the module (a name bound only under a condition may be absent)
    const s = this.summary(module);
    if (v.kind === 'unknown' || !s || !(s.bindings.get(name) ?? []).some((b) => !b.conditional)) return 'unknown';
    return 'succeeds';
  }

  /**
   * Whether submodule `part` of the package `parent`, which the target lacks, is certainly absent
   * where the package is installed: the package is a regular one (source, not a placeholder the
   * build fills), the build creates no such module (a compiled extension, a generated one), and
   * the package neither binds the name itself nor writes its namespace or touches `__path__`,
   * `sys.modules` or import hooks (the import system looks submodules up through those, never
   * through the package's attributes or its module `__getattr__`).
   */
  absentSubmodule(parent: ModuleFile, part: string): boolean {
    if (!parent.rel || GENERATED.test(part) || this.buildCreated(`${parent.name}.${part}`)) return false;
    if (!parent.isPackage) {
      // a plain module (`vllm/utils.py`) is no package: `import vllm.utils.x` fails ("is not a
      // package") unless it makes itself one (`__path__`) or registers modules
      if (!parent.rel.endsWith('.py') || parent.compiled) return false;
      const ms = this.summary(parent.name);
      // a module `__getattr__` that may answer any name may answer `__path__` too (`return
      // getattr(dask_ml, name)`): the import system then finds submodules there
      return !!ms && !ms.registersModules && ms.getattr.kind !== 'opaque';
    }
    if (this.isPlaceholderPackage(parent)) return false;
    const ps = this.summary(parent.name);
    // (a package whose import runs code that may change it, as an import hook of its own, may have it)
    return !!ps && !ps.bindings.has(part) && !ps.dynamic && !ps.registersModules && !this.openedNamespace(ps) && this.stubBeside(parent.name) !== 'compiled';
  }

  /** Whether `import module` succeeds against the target (see `checkModulePath` for the same rules as findings). */
  private moduleOutcome(module: string): 'succeeds' | 'fails' | 'unknown' {
    if (this.target.findModule(module)) return 'succeeds';
    const parts = module.split('.');
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i + 1).join('.');
      if (this.target.findModule(prefix)) continue;
      const parent = this.target.findModule(parts.slice(0, i).join('.'));
      if (!parent || !this.absentSubmodule(parent, parts[i])) return 'unknown';
      const ps = this.summary(parent.name)!;
      // only a last component may be a compiled extension that a bare copy of the source lacks
      // (a package above it would hold source): as the findings on imports read it
      if (parent.isPackage && i === parts.length - 1 && (ps.getattr.kind !== 'none' || ps.starImports.length > 0) && !this.knowsBuildProducts(parts[0])) return 'unknown';
      return 'fails';
    }
    return 'unknown';
  }

  valueOfBinding(b: Binding, summary: ModuleSummary, depth: number): Value {
    switch (b.kind) {
      case 'def':
        return known({ kind: 'function', fn: b.fn, summary }, `${summary.name}.${b.fn.name}`);
      case 'class':
        return known({ kind: 'class', cls: b.cls, summary }, b.cls.qualname);
      case 'module':
        return this.inTarget(b.module) || this.target.hasTopLevel(b.module) ? this.moduleValue(b.module) : known({ kind: 'external', qualname: b.module });
      case 'from': {
        // `from pkg import sub` in pkg's own code, before pkg has bound `sub`: the import system
        // loads the submodule (the binding itself is what binds the name in pkg)
        if (b.module === summary.name && summary.isPackage && this.target.findModule(`${b.module}.${b.name}`)) return { kind: 'module', name: `${b.module}.${b.name}` };
        const r = this.resolveMember(b.module, b.name, depth + 1);
        return r;
      }
      case 'value':
        return this.evalExpr(b.expr, summary, depth + 1);
      case 'opaque':
        return { kind: 'unknown', reason: 'bound by a statement the engine does not follow' };
    }
  }

  private moduleValue(name: string): Value {
    return this.target.findModule(name) || this.overlays.has(name) ? { kind: 'module', name } : { kind: 'missing', module: name.split('.').slice(0, -1).join('.'), name: name.split('.').pop()! };
  }

  /** A name as seen by code at module level of `summary` (globals, then builtins). */
  resolveGlobal(summary: ModuleSummary, name: string, depth = 0): Value {
    const b = summary.bindings.get(name);
    if (b) {
      // `x = x.y`, or `a = b` and `b = a` under conditions: a value that refers to itself is not
      // followed (each round would multiply the alternatives)
      const key = `${summary.name}\0${name}`;
      if (this.resolving.has(key)) return { kind: 'unknown', reason: `${name} refers to itself` };
      this.resolving.add(key);
      try {
        return this.valueOfBindings(b, summary, depth);
      } finally {
        this.resolving.delete(key);
      }
    }
    if (summary.typeCheckingOnly.has(name)) return { kind: 'unknown', reason: `${name} is bound only under TYPE_CHECKING` };
    // of the star imports that give the name, the last one binds it last
    for (const star of [...summary.starImports].reverse()) {
      const r = this.starMember(star, name, depth + 1);
      // a compiled module's star import does not shadow a builtin
      if (r.kind === 'unknown' && r.outside && BUILTIN_NAMES.has(name)) continue;
      if (r.kind !== 'missing') return r;
    }
    // dynamic namespaces may bind any name, but not (in practice) shadow a builtin
    if ((summary.dynamic || summary.getattr.kind !== 'none') && !BUILTIN_NAMES.has(name)) return { kind: 'unknown', reason: `${summary.name} has dynamic globals` };
    return known({ kind: 'external', qualname: `builtins.${name}` });
  }

  evalExpr(e: Expr, summary: ModuleSummary, depth = 0): Value {
    if (depth > MAX_DEPTH) return { kind: 'unknown', reason: 'alias chain too deep' };
    switch (e.kind) {
      case 'name':
        return this.resolveGlobal(summary, e.name, depth);
      case 'attr':
        return this.attribute(this.evalExpr(e.base, summary, depth + 1), e.attr, depth + 1);
      case 'subscript':
        return this.evalExpr(e.base, summary, depth + 1);
      case 'cond':
        return anyOf(e.alts.map((a) => this.evalExpr(a, summary, depth + 1)));
      case 'imported':
        return this.valueOfBinding(e.name === undefined ? { kind: 'module', module: e.module, conditional: false, line: 0 } : { kind: 'from', module: e.module, name: e.name, conditional: false, line: 0 }, summary, depth);
      case 'call': {
        const callee = this.evalExpr(e.callee, summary, depth + 1);
        if (callee.kind === 'special' && callee.name === 'functools.partial' && e.args.length > 0 && !e.args[0].name && !e.args[0].star) {
          return { kind: 'partial', base: this.evalExpr(e.args[0].value, summary, depth + 1), args: e.args.slice(1) };
        }
        if (callee.kind === 'special' && callee.name === 'collections.namedtuple') return namedtupleValue(e.args, summary);
        return { kind: 'unknown', reason: 'the value of a call' };
      }
      default:
        return { kind: 'unknown', reason: 'an expression the engine does not evaluate' };
    }
  }

  /** `value.attr` for modules, classes (their own and inherited members) and external objects. */
  attribute(v: Value, attr: string, depth = 0): Value {
    switch (v.kind) {
      case 'module':
        return this.resolveMember(v.name, attr, depth);
      case 'external':
        return known({ kind: 'external', qualname: `${v.qualname}.${attr}` });
      case 'class': {
        const m = this.classMember(v.cls, v.summary, attr, depth);
        return m ?? { kind: 'unknown', reason: `${v.cls.name}.${attr} is not defined in a class the engine can see` };
      }
      case 'instance': {
        // instance attributes set in methods, __getattr__ or descriptors may shadow a class member
        if (v.cls.instanceAttrs.has(attr)) return { kind: 'unknown', reason: `${attr} is also set on instances` };
        const hook = this.classMember(v.cls, v.summary, '__getattr__', depth) ?? this.classMember(v.cls, v.summary, '__getattribute__', depth);
        if (hook) return { kind: 'unknown', reason: `${v.cls.name} customises attribute access` };
        const m = this.classMember(v.cls, v.summary, attr, depth);
        if (!m || m.kind !== 'function') return { kind: 'unknown', reason: `${v.cls.name}.${attr} is not a method the engine can see` };
        if (this.instanceAttrsAlongBases(v.cls, v.summary, attr)) return { kind: 'unknown', reason: `${attr} is also set on instances` };
        return m;
      }
      case 'anyOf':
        return anyOf(v.values.map((x) => this.attribute(x, attr, depth + 1)));
      case 'missing':
        return v;
      case 'unknown':
        return v;
      default:
        return { kind: 'unknown', reason: `attribute of ${kindInWords(v.kind)}` };
    }
  }

  /** Some class along the bases assigns `self.attr` in a method. */
  private instanceAttrsAlongBases(cls: ClassInfo, summary: ModuleSummary, attr: string, depth = 0): boolean {
    if (cls.instanceAttrs.has(attr) || cls.instanceAttrs.has('*') || depth > MAX_DEPTH) return true;
    for (const base of cls.bases) {
      const bv = this.evalExpr(base, summary, depth + 1);
      if (bv.kind === 'class' && this.instanceAttrsAlongBases(bv.cls, bv.summary, attr, depth + 1)) return true;
    }
    return false;
  }

  /** A member looked up on a class along its bases (first definition wins); undefined when unsure. */
  classMember(cls: ClassInfo, summary: ModuleSummary, attr: string, depth = 0): Value | undefined {
    const seen = new Set<ClassInfo>();
    const visit = (c: ClassInfo, s: ModuleSummary, d: number): Value | undefined => {
      if (seen.has(c) || d > MAX_DEPTH) return { kind: 'unknown', reason: 'class hierarchy too deep' };
      seen.add(c);
      const b = c.members.get(attr);
      if (b) {
        return anyOf(
          b.map((x) => {
            if (x.kind === 'def') return known({ kind: 'function', fn: x.fn, summary: s, owner: c }, `${c.qualname}.${x.fn.name}`);
            if (x.kind === 'class') return known({ kind: 'class', cls: x.cls, summary: s }, x.cls.qualname);
            if (x.kind === 'value') return asClassAttribute(this.evalExpr(x.expr, s, d + 1));
            return { kind: 'unknown', reason: 'class attribute bound dynamically' } as Value;
          }),
        );
      }
      for (const base of c.bases) {
        const bv = this.evalExpr(base, s, d + 1);
        if (bv.kind === 'class') {
          const r = visit(bv.cls, bv.summary, d + 1);
          if (r) return r;
        } else if (!(bv.kind === 'special' && bv.name === 'object')) {
          return { kind: 'unknown', reason: 'a base class the engine cannot see' };
        }
      }
      return undefined;
    };
    return visit(cls, summary, depth);
  }
}

/** A value stored as a class attribute: a plain function of a module is then a method (see `classAttr`). */
function asClassAttribute(v: Value): Value {
  if (v.kind === 'function' && !v.owner) return { ...v, classAttr: true };
  if (v.kind === 'anyOf' && v.values.some((x) => x.kind === 'function' && !x.owner)) return { kind: 'anyOf', values: v.values.map(asClassAttribute) };
  return v;
}

/** Maps a value to its special form when its qualified name is one the engine knows. */
export function known(v: Value, qualname?: string): Value {
  const q = qualname ?? (v.kind === 'external' ? v.qualname : undefined);
  if (q && isKnown(q)) return { kind: 'special', name: canonical(q) };
  return v;
}

export function anyOf(values: Value[]): Value {
  if (values.length === 1) return values[0];
  const flat: Value[] = [];
  for (const v of values) {
    if (v.kind === 'anyOf') for (const x of v.values) flat.push(x);
    else flat.push(v);
  }
  if (flat.length > MAX_ALTERNATIVES) return { kind: 'unknown', reason: 'too many possible values' };
  return { kind: 'anyOf', values: flat };
}

function namedtupleValue(args: ArgExpr[], summary: ModuleSummary): Value {
  const [nameArg, fieldsArg] = args;
  if (!nameArg || !fieldsArg || nameArg.name || fieldsArg.name || nameArg.star || fieldsArg.star) return { kind: 'unknown', reason: 'namedtuple with non-literal arguments' };
  let fields: string[];
  if (fieldsArg.value.kind === 'str') fields = fieldsArg.value.value.replace(/,/g, ' ').split(/\s+/).filter(Boolean);
  else if (fieldsArg.value.kind === 'strs') fields = fieldsArg.value.values;
  else return { kind: 'unknown', reason: 'namedtuple fields are not a literal' };
  let defaults: string[] = [];
  for (const a of args.slice(2)) {
    if (a.star) return { kind: 'unknown', reason: 'namedtuple with ** arguments' };
    if (a.name === 'rename') return { kind: 'unknown', reason: 'namedtuple with rename' };
    if (a.name === 'defaults') {
      if (a.value.kind === 'strs') defaults = a.value.values.map((v) => JSON.stringify(v));
      else {
        const m = /^\s*[([]\s*(.*?)\s*,?\s*[)\]]\s*$/s.exec(a.value.kind === 'other' || a.value.kind === 'const' ? a.value.text : '');
        if (!m || /[([{'"]/.test(m[1])) return { kind: 'unknown', reason: 'namedtuple defaults are not a literal' };
        defaults = m[1] ? m[1].split(',').map((x) => x.trim()).filter(Boolean) : [];
      }
    }
  }
  if (defaults.length > fields.length) return { kind: 'unknown', reason: 'namedtuple with more defaults than fields' };
  if (!fields.every((f) => /^[A-Za-z][A-Za-z0-9_]*$/.test(f))) return { kind: 'unknown', reason: 'namedtuple field names need renaming' };
  const name = nameArg.value.kind === 'str' ? nameArg.value.value : 'namedtuple';
  return { kind: 'namedtuple', fields, defaults, qualname: `${summary.name}.${name}`, file: summary.file, line: 0 };
}

/** The version in the `*.dist-info` beside package `top` (its `METADATA`, else the folder's name) whose distribution has the package's name. */
function distInfoVersion(file: ModuleFile, top: string): string | undefined {
  const dir = file.packageDirs[0];
  if (!dir) return undefined;
  const parent = dir.rel.includes('/') ? dir.rel.slice(0, dir.rel.lastIndexOf('/')) : '';
  for (const e of dir.root.listDir(parent) ?? []) {
    const m = /^(.+)-([^-]+)\.dist-info$/.exec(e);
    if (!m || normalizeProject(m[1]) !== normalizeProject(top)) continue;
    const meta = dir.root.readText(parent ? `${parent}/${e}/METADATA` : `${e}/METADATA`);
    const v = meta ? /^Version:\s*(\S+)\s*$/m.exec(meta)?.[1] : undefined;
    return v ?? m[2];
  }
  return undefined;
}
