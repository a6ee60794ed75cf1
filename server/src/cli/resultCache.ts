/**
 * The check-results cache of `apidrift check`: what checking each input gave, kept on disk, so that
 * a run over unchanged inputs replays the results instead of checking again, and a run after an
 * edit checks again only the inputs whose results may have changed.
 *
 * One file per run's options (targets, baseline, the versions stated for them, user folders,
 * current folder, --list-calls, the code of apidrift itself), in the summary cache's folder. A file holds:
 *   - the fingerprints of what every check may read: the whole of each target and baseline root
 *     (a folder: the identity of each folder walked and of each Python and build file, and of a
 *     `__pycache__` folder the names in it but compiled files; an archive: its members' CRCs),
 *     and what the engine is told of the project (the summaries of the project's files that
 *     hold classes, and the names they patch);
 *   - the modules of the user's own folders that the checks looked up (and those they looked up
 *     and did not find), each with what was found: where, the hash of its text, its package
 *     folders' listings and its root's build facts. These are the run's, not each input's (a
 *     class hierarchy read in one check is remembered for the next), so a change in any of them
 *     makes every input be checked again;
 *   - per input: the hash of its text, the config that applies to it, and its result.
 * A result is replayed only when every fingerprint and every user-module record still holds and
 * the input's text and config are the same. A fingerprint taken while a file of a root was
 * changed within the last two seconds (a change within the file system's time resolution could
 * keep a file's identity) is not saved, nor are results when a user module the checks read was
 * changed since the run began, or came or went during it. Results with notes (an input skipped or read in part by
 * reason of the file itself), runs with unreadable target modules, fixing and `--no-cache` are
 * never cached. The file is written to a temporary file renamed into place; a corrupt or foreign
 * file is ignored (reported once) and a file that cannot be written is reported once: the cache
 * never changes a result.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import type { Engine } from '../engine';
import type { ConfigFinder } from '../engine/config/pyproject';
import { deserialize, serialize, serializeSummary } from '../engine/index/cache';
import type { ModuleSummary } from '../engine/index/summary';
import { outerBuildFiles, readBuildFacts } from '../engine/sources/buildFiles';
import { DirectoryRoot } from '../engine/sources/directoryRoot';
import { GitRoot } from '../engine/sources/gitRoot';
import type { SourceRoot } from '../engine/sources/sourceRoot';
import type { Target } from '../engine/sources/target';
import type { Checked, Input, Lookups } from './parallel';
import { lookupList, readSource } from './parallel';

/** Bumped whenever the file changes shape or meaning. */
export const RESULTS_FORMAT = 'apidrift-results-1';

/** A file changed this recently may change again without its identity changing (coarse timestamps). */
const RACY_MS = 2000;
/** Results files not used for this long are removed (a file in use is touched once a day). */
const UNUSED_MS = 90 * 24 * 60 * 60 * 1000;
const TOUCH_MS = 24 * 60 * 60 * 1000;

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/** What the last `check` run did with its inputs (for tests and reports). */
export const resultCacheCounts = { replayed: 0, checked: 0 };

function identity(st: fs.Stats): string {
  return `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
}

/**
 * A folder root: the identity of every folder a module search may enter (names without a dot)
 * and of every file a check may read there (Python files, build files; every file of the top
 * folder). A folder's identity changes when entries are added, removed or renamed.
 */
function folderLines(dir: string, out: string[], newest: { ms: number }): void {
  const chain = new Set<string>();
  const note = (st: fs.Stats): void => {
    newest.ms = Math.max(newest.ms, st.mtimeMs, st.ctimeMs);
  };
  const visit = (abs: string, rel: string): void => {
    const st = fs.statSync(abs);
    const key = `${st.dev}:${st.ino}`;
    if (chain.has(key)) {
      out.push(`${rel}/\tcycle`);
      return;
    }
    chain.add(key);
    const entries = fs.readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    if (path.basename(abs) === '__pycache__') {
      // written whenever Python runs: only the names a module search could find there count
      out.push(`${rel}/\t${entries.filter((e) => !/\.pyc$/.test(e.name)).map((e) => e.name).join('/')}`);
    } else {
      note(st);
      out.push(`${rel}/\t${identity(st)}`);
    }
    for (const e of entries) {
      const childAbs = path.join(abs, e.name);
      const childRel = rel ? `${rel}/${e.name}` : e.name;
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        const s = fs.statSync(childAbs, { throwIfNoEntry: false });
        if (!s) {
          out.push(`${childRel}\tdangling`);
          continue;
        }
        isDir = s.isDirectory();
        isFile = s.isFile();
      }
      if (isDir) {
        if (!e.name.includes('.')) visit(childAbs, childRel);
      } else if (isFile && (rel === '' || /\.(pyi?|cmake)$/.test(e.name) || e.name === 'CMakeLists.txt')) {
        const s = fs.statSync(childAbs);
        note(s);
        out.push(`${childRel}\t${identity(s)}`);
      }
    }
    chain.delete(key);
  };
  visit(dir, '');
}

/** Any other root but a git revision (archives, fetched wheels): its listing and its files' versions (CRCs). */
function listedLines(root: SourceRoot, out: string[]): boolean {
  let ok = true;
  const visit = (rel: string, depth: number): void => {
    const names = root.listDir(rel);
    if (!names || depth > 64) return;
    const sorted = [...names].sort();
    out.push(`${rel}/\t${sorted.join('/')}`);
    for (const n of sorted) {
      const child = rel ? `${rel}/${n}` : n;
      if (root.isDir(child)) {
        if (!n.includes('.')) visit(child, depth + 1);
      } else {
        const v = root.fileVersion(child);
        if (v === undefined) ok = false;
        out.push(`${child}\t${v}`);
      }
    }
  };
  visit('', 0);
  return ok;
}

/**
 * The fingerprint of a program's roots, or undefined when one cannot be taken (a git revision,
 * whose `.gitignore` may lie outside its import root; a folder that cannot be read). `racy`: a
 * file changed too recently for its identity to be trusted.
 */
export function rootsFingerprint(roots: readonly SourceRoot[]): { fp: string; racy: boolean } | undefined {
  const out: string[] = [];
  const newest = { ms: 0 };
  const started = Date.now();
  try {
    for (const root of roots) {
      out.push(`root\t${root.label}`);
      if (root instanceof DirectoryRoot) folderLines(root.dir, out, newest);
      else if (root instanceof GitRoot) return undefined;
      else if (!listedLines(root, out)) return undefined;
    }
  } catch {
    return undefined;
  }
  return { fp: sha1(out.join('\n')), racy: newest.ms > started - RACY_MS };
}

/** What the engine is told of the project: the summaries of its files that hold classes, and the names they patch. */
export function projectFingerprint(engine: Engine): string {
  const { classes, patched, patchedBy } = engine.projectClassList();
  const seen = new Set<ModuleSummary>();
  const parts: string[] = [];
  for (const { cls, summary } of classes) {
    if (!seen.has(summary)) {
      seen.add(summary);
      parts.push(serializeSummary(summary));
    }
    parts.push(cls.qualname);
  }
  parts.push(JSON.stringify(patched), JSON.stringify(Object.entries(patchedBy).sort()));
  return sha1(parts.join('\n'));
}

/** The identity of the code that checks (the bundle, or the compiled engine's files). */
function codeIdentity(): string {
  const dir = path.basename(__dirname) === 'cli' ? path.dirname(__dirname) : __dirname;
  const out: string[] = [];
  const visit = (d: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(d, e.name);
      if (e.isDirectory() && depth < 4 && e.name !== 'node_modules') visit(p, depth + 1);
      else if (e.isFile() && /\.(js|wasm)$/.test(e.name)) {
        try {
          out.push(`${p}\t${identity(fs.statSync(p))}`);
        } catch {
          // gone
        }
      }
    }
  };
  visit(dir, 0);
  return sha1(out.join('\n'));
}

/** Where a lookup of a user module led, as a string to compare; 'T' when the target has it (its fingerprint covers it). */
class UserDeps {
  private readonly rootFacts = new Map<SourceRoot, string>();
  private readonly memo = new Map<Target, Map<string, string>>();
  /**
   * The latest change (mtime, ctime) of a user file or folder read here: one changed since the run
   * began may have been read by a check in another state than the one recorded.
   */
  newest = 0;

  private noteChange(root: SourceRoot, rel: string): void {
    if (!(root instanceof DirectoryRoot)) return;
    try {
      const st = fs.statSync(rel ? path.join(root.dir, rel) : root.dir, { throwIfNoEntry: false });
      if (st) this.newest = Math.max(this.newest, st.mtimeMs, st.ctimeMs);
    } catch {
      // unreadable: its state is what was recorded
    }
  }

  /** What a root's build files and top folder say (read by checks of its modules). */
  private factsOf(root: SourceRoot): string {
    let f = this.rootFacts.get(root);
    if (f === undefined) {
      let facts: string;
      for (const rel of ['.gitignore', 'setup.py', 'pyproject.toml', 'CMakeLists.txt']) this.noteChange(root, rel);
      try {
        const outer = outerBuildFiles(root);
        const b = readBuildFacts(root, outer?.read);
        const gitignore = root.readText('.gitignore');
        const installed = (root.listDir('') ?? []).filter((e) => /\.(dist-info|egg-info)$/.test(e)).sort();
        facts = JSON.stringify([[...b.extensions].sort(), [...b.copied].sort(), [...b.written].sort(), b.files, gitignore === undefined ? '-' : sha1(gitignore), installed]);
      } catch (e) {
        facts = `!${(e as Error).message}`;
      }
      this.rootFacts.set(root, (f = facts));
    }
    return f;
  }

  dep(target: Target, name: string): string {
    let memo = this.memo.get(target);
    if (!memo) this.memo.set(target, (memo = new Map()));
    let d = memo.get(name);
    if (d !== undefined) return d;
    const f = target.findModule(name);
    if (!f) d = '-';
    else if (!target.isUser(f)) d = 'T';
    else {
      const parts = [f.root.label, f.rel ?? '', String(f.isPackage), String(f.compiled), String(!!f.buildFilled)];
      for (const p of f.packageDirs) this.noteChange(p.root, p.rel);
      if (f.rel) this.noteChange(f.root, f.rel);
      for (const p of f.packageDirs) parts.push(`${p.root.label}\0${p.rel}\0${[...(p.root.listDir(p.rel) ?? [])].sort().join('/')}`);
      if (f.rel) {
        try {
          const text = f.root.readText(f.rel);
          parts.push(text === undefined ? '?' : sha1(text));
        } catch (e) {
          parts.push(`!${(e as Error).message}`);
        }
      }
      parts.push(this.factsOf(f.root));
      d = sha1(parts.join('\n'));
    }
    memo.set(name, d);
    return d;
  }
}

interface Stored {
  format: string;
  key: string;
  fp: string;
  /** Per program ('target', 'baseline'): module name -> where its lookup led. */
  deps: Record<string, Record<string, string>>;
  /** file -> [text hash, config and module key, result] */
  entries: Record<string, [string, string, Checked]>;
}

export interface ResultCacheOptions {
  cacheDir: string;
  listCalls: boolean;
  onError: (msg: string) => void;
}

/** The results cache of one run; undefined from `open` when the run cannot use one. */
export class ResultCache {
  private readonly deps = new UserDeps();
  private stored: Stored['entries'] = {};
  private storedDeps: Stored['deps'] = {};
  private readonly fresh: Stored['entries'] = {};
  /** A result was added in this run. */
  private dirty = false;
  /** When the run's fingerprints were taken. */
  private readonly started = Date.now();
  /** Per input file, the hash of its text read to look it up, and its config key. */
  private readonly looked = new Map<string, { hash: string; key: string }>();

  private constructor(
    private readonly engine: Engine,
    private readonly file: string,
    private readonly key: string,
    private readonly fp: string,
    private readonly racy: boolean,
    private readonly opts: ResultCacheOptions,
  ) {}

  /** Opens the run's results file and keeps what still holds; undefined when results cannot be cached. */
  static open(engine: Engine, opts: ResultCacheOptions): ResultCache | undefined {
    const target = rootsFingerprint(engine.program.target.roots);
    const baseline = engine.baseline ? rootsFingerprint(engine.baseline.program.target.roots) : { fp: '', racy: false };
    if (!target || !baseline) return undefined;
    const key = JSON.stringify({
      format: RESULTS_FORMAT,
      code: codeIdentity(),
      targets: engine.program.target.roots.map((r) => r.label),
      baseline: engine.baseline?.program.target.roots.map((r) => r.label) ?? [],
      user: engine.program.target.userRoots.map((r) => r.label),
      // the versions the user states decide version tests
      versions: [...engine.program.target.statedVersions],
      baselineVersions: [...(engine.baseline?.program.target.statedVersions ?? [])],
      cwd: process.cwd(),
      listCalls: opts.listCalls,
    });
    const fp = sha1([target.fp, baseline.fp, projectFingerprint(engine)].join('\n'));
    const file = path.join(opts.cacheDir, `${sha1(key).slice(0, 20)}.results.json`);
    const rc = new ResultCache(engine, file, key, fp, target.racy || baseline.racy, opts);
    rc.load();
    return rc;
  }

  private programs(): Array<[string, Target]> {
    const out: Array<[string, Target]> = [['target', this.engine.program.target]];
    if (this.engine.baseline) out.push(['baseline', this.engine.baseline.program.target]);
    return out;
  }

  private load(): void {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch {
      return; // none yet
    }
    let data: Stored;
    try {
      data = deserialize(text) as Stored;
    } catch (e) {
      this.opts.onError(`ignoring corrupt results cache ${this.file}: ${(e as Error).message}`);
      return;
    }
    if (!data || typeof data !== 'object' || data.format !== RESULTS_FORMAT || data.key !== this.key || typeof data.entries !== 'object' || data.entries === null || typeof data.deps !== 'object' || data.deps === null) {
      this.opts.onError(`ignoring results cache ${this.file}: written by another version or for another run`);
      return;
    }
    touch(this.file);
    if (data.fp !== this.fp) return; // the targets or the project changed: every input is checked again
    for (const [which, target] of this.programs()) {
      const deps = data.deps[which];
      if (deps === undefined) continue;
      if (typeof deps !== 'object' || deps === null) return;
      for (const [name, d] of Object.entries(deps)) if (this.deps.dep(target, name) !== d) return; // a user module changed
    }
    this.stored = data.entries;
    this.storedDeps = data.deps;
  }

  /** The cached result of an input, or undefined (it is to be checked). */
  lookup(input: Input, configs: ConfigFinder): Checked | undefined {
    if (input.zip) return undefined;
    const text = readSource(input.file, () => undefined);
    if (text === undefined) return undefined;
    let key: string;
    try {
      key = JSON.stringify([configs.forPath(input.file) ?? null, input.module ?? null]);
    } catch {
      return undefined; // a config error: the check reports it
    }
    const hash = sha1(text);
    this.looked.set(input.file, { hash, key });
    const e = this.stored[input.file];
    if (!Array.isArray(e) || e.length !== 3 || e[0] !== hash || e[1] !== key || !validRecord(e[2])) return undefined;
    this.fresh[input.file] = e;
    return e[2];
  }

  /** Keeps the result of an input checked in this run (when it is one to keep). */
  store(input: Input, rec: Checked): void {
    const seen = this.looked.get(input.file);
    if (!seen || rec.hash !== seen.hash || rec.fatal !== undefined || rec.notes.length > 0 || !rec.outcome || rec.outcome.fixedText !== undefined || rec.uses) return;
    const { before: _b, fixedText: _f, ...outcome } = rec.outcome;
    this.fresh[input.file] = [seen.hash, seen.key, { notes: [], outcome }];
    this.dirty = true;
  }

  /**
   * Writes the results of this run's inputs, with the user modules every check of this run and of
   * the runs whose results it replayed looked up (`lookups`: those other threads made).
   */
  save(lookups: Lookups | undefined, cacheDisabled: boolean): void {
    if (this.racy || cacheDisabled || !lookups) return;
    const deps: Stored['deps'] = {};
    for (const [which, target] of this.programs()) {
      const names = new Set<string>(Object.keys(this.storedDeps[which] ?? {}));
      for (const entry of [...lookupList(target), ...(which === 'target' ? lookups.target : lookups.baseline)]) {
        const absent = entry.endsWith('\0-');
        const name = absent ? entry.slice(0, -2) : entry;
        // a module that came or went during the run: what the checks saw of it is not what is recorded
        if ((this.deps.dep(target, name) === '-') !== absent) return;
        names.add(name);
      }
      const out: Record<string, string> = {};
      for (const n of [...names].sort()) {
        const d = this.deps.dep(target, n);
        if (d !== 'T') out[n] = d;
      }
      deps[which] = out;
    }
    // a user module changed during the run (or just before it): what the checks read of it is not sure
    if (this.deps.newest > this.started - RACY_MS) return;
    // a run that only replayed, over the same inputs, leaves the file as it is
    const sameEntries = !this.dirty && Object.keys(this.fresh).length === Object.keys(this.stored).length;
    if (sameEntries && JSON.stringify(deps) === JSON.stringify(this.storedDeps)) return;
    const data: Stored = { format: RESULTS_FORMAT, key: this.key, fp: this.fp, deps, entries: this.fresh };
    const tmp = `${this.file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fs.writeFileSync(tmp, serialize(data));
      fs.renameSync(tmp, this.file);
    } catch (e) {
      this.opts.onError(`could not write results cache ${this.file}: ${(e as Error).message} (going on without it)`);
      try {
        fs.rmSync(tmp, { force: true });
      } catch {
        // nothing to clean
      }
      return;
    }
    removeUnused(path.dirname(this.file));
  }
}

function validRecord(r: unknown): r is Checked {
  const rec = r as Checked;
  const o = rec?.outcome;
  return (
    !!o &&
    Array.isArray(rec.notes) &&
    rec.notes.length === 0 &&
    Array.isArray(o.findings) &&
    Array.isArray(o.skipped) &&
    typeof o.fixed === 'number' &&
    typeof o.callsChecked === 'number' &&
    typeof o.callsUnknown === 'number' &&
    typeof o.callsUntraced === 'number' &&
    (o.calls === undefined || Array.isArray(o.calls))
  );
}

function touch(file: string): void {
  try {
    const now = Date.now();
    if (now - fs.statSync(file).mtimeMs > TOUCH_MS) fs.utimesSync(file, new Date(now), new Date(now));
  } catch {
    // read-only cache
  }
}

/** Removes results files unused for 90 days (never throws). */
function removeUnused(dir: string): void {
  try {
    const now = Date.now();
    for (const name of fs.readdirSync(dir)) {
      if (!/^[0-9a-f]{20}\.results\.json$/.test(name)) continue;
      const p = path.join(dir, name);
      try {
        const st = fs.lstatSync(p);
        if (st.isFile() && now - st.mtimeMs > UNUSED_MS) fs.rmSync(p, { force: true });
      } catch {
        // gone already
      }
    }
  } catch {
    // no folder
  }
}
