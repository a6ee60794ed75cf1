/**
 * A persistent cache of module summaries, one file per import root. Entries are keyed by the
 * file's identity (size, mtime, ctime, inode; a zip member's CRC; a git blob id) and, when the
 * identity changed, by a hash of its content: a cached summary is never used for other text.
 * Writes go to a temporary file that is renamed into place, so that two processes never leave a
 * torn file; a corrupt or foreign file is ignored and rebuilt. A cache folder that cannot be used
 * (a file in its place, no permission, a full disk) is reported once and the run goes on without
 * the cache: a cache problem never changes a result. Temporary files that an interrupted write
 * left are removed when the cache is next written.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { SourceRoot } from '../sources/sourceRoot';
import type { ModuleSummary } from './summary';

/** Bumped whenever summaries change shape or meaning. */
export const CACHE_FORMAT = 'apidrift-summaries-9';

interface Entry {
  /** file identity */
  v: string;
  /** content hash */
  h: string;
  /** the summary, serialised (revived only when used) */
  s: string;
}

interface CacheFile {
  format: string;
  root: string;
  entries: Record<string, Entry>;
}

/** JSON with Maps and Sets. */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Map) return { $map: [...value.entries()] };
  if (value instanceof Set) return { $set: [...value] };
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object') {
    const o = value as { $map?: Array<[unknown, unknown]>; $set?: unknown[] };
    if (o.$map) return new Map(o.$map);
    if (o.$set) return new Set(o.$set);
  }
  return value;
}

/** A summary as the cache stores it. */
/** JSON of any value that may hold Maps and Sets (summaries, their parts). */
export function serialize(value: unknown): string {
  return JSON.stringify(value, replacer) ?? '';
}

export function serializeSummary(summary: ModuleSummary): string {
  return serialize(summary);
}

export function hashText(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** The default folder: `$XDG_CACHE_HOME/apidrift`, else `~/.cache/apidrift`. */
export function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'apidrift');
}

class RootCache {
  entries: Record<string, Entry> = {};
  dirty = false;
  loadedFrom?: string;

  constructor(readonly file: string, readonly rootLabel: string) {}

  load(onError: (msg: string) => void): void {
    let raw: string;
    try {
      raw = fs.readFileSync(this.file, 'utf8');
    } catch {
      return; // no cache yet
    }
    try {
      const data = JSON.parse(raw) as CacheFile;
      if (!data || data.format !== CACHE_FORMAT || data.root !== this.rootLabel || typeof data.entries !== 'object' || data.entries === null) {
        onError(`ignoring cache file ${this.file}: written by another version or for another target`);
        return;
      }
      this.entries = data.entries;
      this.loadedFrom = this.file;
      touch(this.file);
    } catch (e) {
      onError(`ignoring corrupt cache file ${this.file}: ${(e as Error).message}`);
    }
  }

  save(onError: (msg: string) => void): boolean {
    if (!this.dirty) return true;
    const data: CacheFile = { format: CACHE_FORMAT, root: this.rootLabel, entries: this.entries };
    if (!writeAtomically(this.file, () => JSON.stringify(data), (m) => onError(`could not write cache file ${this.file}: ${m}`))) return false;
    this.dirty = false;
    return true;
  }
}

/** Writes `text` to a temporary file renamed into place; false (reported) when it cannot. Never throws. */
function writeAtomically(file: string, text: () => string, onError: (msg: string) => void): boolean {
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(tmp, text());
    fs.renameSync(tmp, file);
    return true;
  } catch (e) {
    onError((e as Error).message);
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // nothing to clean, or nowhere to clean it
    }
    return false;
  }
}

/** Temporary files older than this were left by an interrupted write (a live one takes seconds). */
const STALE_TMP_MS = 60 * 60 * 1000;

/** Cache files not used for this long are evicted (a file in use is touched once a day). */
const UNUSED_MS = 90 * 24 * 60 * 60 * 1000;
const TOUCH_MS = 24 * 60 * 60 * 1000;

/** Marks a cache file as used (for eviction); never throws. */
function touch(file: string): void {
  try {
    const now = Date.now();
    if (now - fs.statSync(file).mtimeMs > TOUCH_MS) fs.utimesSync(file, new Date(now), new Date(now));
  } catch {
    // read-only cache: it is only never evicted
  }
}

/** The full index of a target, saved with the identity of every file it was built from. */
export interface CachedIndex {
  format: string;
  target: string;
  modules: string[];
  signatures: number;
  definitions: Array<[string, Array<{ module: string; kind: 'def' | 'class'; line: number }>]>;
  /** Every class: module, qualified name, names its bases mention, methods it defines. */
  classes?: Array<[string, string, string[], string[]]>;
  /** root label + '\0' + rel -> file identity */
  versions: Record<string, string>;
  /**
   * root label + '\0' + rel + '/' -> identity of every folder listed to find the modules, when
   * every root can tell one (a folder's identity changes when entries are added or removed).
   */
  dirs?: Record<string, string>;
}

export class SummaryCache {
  private readonly roots = new Map<SourceRoot, RootCache>();
  onError: (msg: string) => void = () => undefined;
  /** Set after a write failed: the cache folder is unusable and nothing more is written this run. */
  disabled = false;
  private cleaned = false;

  constructor(readonly dir: string) {}

  /** Reports a write failure once and stops writing. */
  private writeFailed(msg: string): void {
    if (!this.disabled) this.onError(`${msg} (going on without writing the cache)`);
    this.disabled = true;
  }

  /**
   * Removes the temporary files interrupted writes left behind, and cache files unused for 90
   * days (once per run, never throws).
   */
  private cleanTemporaryFiles(): void {
    if (this.cleaned) return;
    this.cleaned = true;
    try {
      const now = Date.now();
      for (const name of fs.readdirSync(this.dir)) {
        const tmp = name.endsWith('.tmp');
        if (!tmp && !/^[0-9a-f]{20}(\.index)?\.json$/.test(name)) continue; // only files this cache names
        const p = path.join(this.dir, name);
        try {
          const st = fs.lstatSync(p);
          if (st.isFile() && now - st.mtimeMs > (tmp ? STALE_TMP_MS : UNUSED_MS)) fs.rmSync(p, { force: true });
        } catch {
          // gone already, or not ours to remove
        }
      }
    } catch {
      // no folder yet, or not a folder: nothing to clean
    }
  }

  private rootCache(root: SourceRoot): RootCache {
    let rc = this.roots.get(root);
    if (!rc) {
      const id = createHash('sha1').update(`${CACHE_FORMAT}\0${root.label}`).digest('hex').slice(0, 20);
      rc = new RootCache(path.join(this.dir, `${id}.json`), root.label);
      rc.load(this.onError);
      this.roots.set(root, rc);
    }
    return rc;
  }

  /**
   * A cached summary for a file, or undefined. `text` is read only when the identity changed.
   */
  get(root: SourceRoot, rel: string, version: string | undefined, readText: () => string | undefined): { summary?: ModuleSummary; text?: string; hash?: string } {
    const rc = this.rootCache(root);
    const e = rc.entries[rel];
    if (e && version !== undefined && e.v === version) return { summary: this.revive(e) };
    const text = readText();
    if (text === undefined) return {};
    const hash = hashText(text);
    if (e && e.h === hash) {
      if (version !== undefined) {
        e.v = version;
        rc.dirty = true;
      }
      return { summary: this.revive(e), text, hash };
    }
    return { text, hash };
  }

  put(root: SourceRoot, rel: string, version: string | undefined, hash: string, summary: ModuleSummary): void {
    this.putSerialized(root, rel, version, hash, serializeSummary(summary));
  }

  /** The same with a summary already serialised by `serializeSummary` (e.g. on another thread). */
  putSerialized(root: SourceRoot, rel: string, version: string | undefined, hash: string, serialized: string): void {
    const rc = this.rootCache(root);
    rc.entries[rel] = { v: version ?? '', h: hash, s: serialized };
    rc.dirty = true;
  }

  private revive(e: Entry): ModuleSummary | undefined {
    try {
      return JSON.parse(e.s, reviver) as ModuleSummary;
    } catch {
      return undefined;
    }
  }

  save(): void {
    if (this.disabled) return;
    this.cleanTemporaryFiles();
    for (const rc of this.roots.values()) {
      if (!rc.save((m) => this.writeFailed(m))) return;
    }
  }

  private indexFile(targetLabel: string): string {
    const id = createHash('sha1').update(`${CACHE_FORMAT}\0index\0${targetLabel}`).digest('hex').slice(0, 20);
    return path.join(this.dir, `${id}.index.json`);
  }

  loadIndex(targetLabel: string): CachedIndex | undefined {
    try {
      const data = JSON.parse(fs.readFileSync(this.indexFile(targetLabel), 'utf8')) as CachedIndex;
      if (data && data.format === CACHE_FORMAT && data.target === targetLabel && Array.isArray(data.modules) && Array.isArray(data.definitions) && data.versions && typeof data.versions === 'object') {
        touch(this.indexFile(targetLabel));
        if (data.dirs !== undefined && (typeof data.dirs !== 'object' || data.dirs === null)) data.dirs = undefined;
        return data;
      }
      this.onError(`ignoring index cache for ${targetLabel}: written by another version`);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // none saved (ENOTDIR: the cache folder is no folder, which a write will report)
      if (code !== 'ENOENT' && code !== 'ENOTDIR') this.onError(`ignoring corrupt index cache for ${targetLabel}: ${(e as Error).message}`);
    }
    return undefined;
  }

  saveIndex(index: CachedIndex): void {
    if (this.disabled) return;
    this.cleanTemporaryFiles();
    const file = this.indexFile(index.target);
    writeAtomically(file, () => JSON.stringify(index), (m) => this.writeFailed(`could not write index cache ${file}: ${m}`));
  }

  /** Files the cache was loaded from (for reports and tests). */
  get loadedFiles(): string[] {
    return [...this.roots.values()].map((r) => r.loadedFrom).filter((x): x is string => !!x);
  }
}
