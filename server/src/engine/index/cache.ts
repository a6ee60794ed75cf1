/**
 * A persistent cache of module summaries, one file per import root. Entries are keyed by the
 * file's identity (size, mtime, inode; a zip member's CRC; a git blob id) and, when the identity
 * changed, by a hash of its content: a cached summary is never used for other text. Writes go to
 * a temporary file that is renamed into place, so that two processes never leave a torn file; a
 * corrupt or foreign file is ignored and rebuilt.
 */
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { SourceRoot } from '../sources/sourceRoot';
import type { ModuleSummary } from './summary';

/** Bumped whenever summaries change shape or meaning. */
export const CACHE_FORMAT = 'apidrift-summaries-6';

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
    } catch (e) {
      onError(`ignoring corrupt cache file ${this.file}: ${(e as Error).message}`);
    }
  }

  save(onError: (msg: string) => void): void {
    if (!this.dirty) return;
    const data: CacheFile = { format: CACHE_FORMAT, root: this.rootLabel, entries: this.entries };
    const tmp = `${this.file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fs.writeFileSync(tmp, JSON.stringify(data));
      fs.renameSync(tmp, this.file);
      this.dirty = false;
    } catch (e) {
      onError(`could not write cache file ${this.file}: ${(e as Error).message}`);
      try {
        fs.rmSync(tmp, { force: true });
      } catch {
        // nothing to clean
      }
    }
  }
}

/** The full index of a target, saved with the identity of every file it was built from. */
export interface CachedIndex {
  format: string;
  target: string;
  modules: string[];
  signatures: number;
  definitions: Array<[string, Array<{ module: string; kind: 'def' | 'class'; line: number }>]>;
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

  constructor(readonly dir: string) {}

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
    for (const rc of this.roots.values()) rc.save(this.onError);
  }

  private indexFile(targetLabel: string): string {
    const id = createHash('sha1').update(`${CACHE_FORMAT}\0index\0${targetLabel}`).digest('hex').slice(0, 20);
    return path.join(this.dir, `${id}.index.json`);
  }

  loadIndex(targetLabel: string): CachedIndex | undefined {
    try {
      const data = JSON.parse(fs.readFileSync(this.indexFile(targetLabel), 'utf8')) as CachedIndex;
      if (data && data.format === CACHE_FORMAT && data.target === targetLabel && Array.isArray(data.modules) && Array.isArray(data.definitions) && data.versions && typeof data.versions === 'object') {
        if (data.dirs !== undefined && (typeof data.dirs !== 'object' || data.dirs === null)) data.dirs = undefined;
        return data;
      }
      this.onError(`ignoring index cache for ${targetLabel}: written by another version`);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.onError(`ignoring corrupt index cache for ${targetLabel}: ${(e as Error).message}`);
    }
    return undefined;
  }

  saveIndex(index: CachedIndex): void {
    const file = this.indexFile(index.target);
    const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    try {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(tmp, JSON.stringify(index));
      fs.renameSync(tmp, file);
    } catch (e) {
      this.onError(`could not write index cache ${file}: ${(e as Error).message}`);
      fs.rmSync(tmp, { force: true });
    }
  }

  /** Files the cache was loaded from (for reports and tests). */
  get loadedFiles(): string[] {
    return [...this.roots.values()].map((r) => r.loadedFrom).filter((x): x is string => !!x);
  }
}
