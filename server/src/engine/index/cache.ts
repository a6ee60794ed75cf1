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
export const CACHE_FORMAT = 'apidrift-summaries-40';

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

/** A value from `serialize`'s text (Maps and Sets revived); throws on text that is no JSON. */
export function deserialize(text: string): unknown {
  return JSON.parse(text, reviver);
}

/** A summary from `serializeSummary`'s text; undefined when it is not one. */
export function reviveSummary(text: string): ModuleSummary | undefined {
  try {
    return JSON.parse(text, reviver) as ModuleSummary;
  } catch {
    return undefined;
  }
}

export function hashText(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

/** The default folder: `$XDG_CACHE_HOME/apidrift`, else `~/.cache/apidrift`. */
export function defaultCacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'apidrift');
}

/**
 * One entry: the file identity `v` and content hash `h`, with the serialised summary in the cache
 * file (`at`, `len`: bytes after its header), or, put in this run, in the run's pending file
 * (`pending`), or in memory (`s`) when that file cannot be written.
 */
interface Entry {
  v: string;
  h: string;
  s?: string;
  at?: number;
  len?: number;
  pending?: boolean;
}

/**
 * A cache file: a first line that lists every entry (identity, hash and where its summary lies),
 * then the summaries, one a line: `{"format":..,"root":..,"index":{rel:[v,h,at,len]},` newline
 * `"bodies":[` ... `]}` (the whole is JSON). Only the first line is read when the file is
 * loaded; a summary is read from the file when it is used, so that loading costs what a check
 * uses, not the size of the target. The summaries a run adds wait in a temporary file beside it
 * until the cache is saved, not in memory.
 */
const MAX_HEADER = 256 * 1024 * 1024;

interface FileIdentity {
  ino: number;
  size: number;
  mtimeMs: number;
}

function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

/** The first line of a cache file (its index) and where its summaries start. Throws on a corrupt file. */
function readHeader(fd: number): { header: { format?: unknown; root?: unknown; index?: unknown }; bodyStart: number } {
  const chunks: Buffer[] = [];
  let pos = 0;
  for (;;) {
    const buf = Buffer.allocUnsafe(pos === 0 ? 64 * 1024 : 1024 * 1024);
    const n = fs.readSync(fd, buf, 0, buf.length, pos);
    if (n === 0) throw new Error('no index line');
    const chunk = buf.subarray(0, n);
    const nl = chunk.indexOf(10);
    if (nl >= 0) {
      chunks.push(chunk.subarray(0, nl));
      const line = Buffer.concat(chunks).toString('utf8').trimEnd();
      if (!line.endsWith(',')) throw new Error('malformed index line');
      return { header: JSON.parse(line.slice(0, -1) + '}'), bodyStart: pos + nl + 1 };
    }
    chunks.push(chunk);
    pos += n;
    if (pos > MAX_HEADER) throw new Error('index line too long');
  }
}

/**
 * `len` bytes at `pos` of an open file, or undefined when the file is shorter; read into `into`
 * when it is large enough (a save copies every summary through one buffer).
 */
function readAt(fd: number, pos: number, len: number, into?: { buf: Buffer }): Buffer | undefined {
  let buf: Buffer;
  if (into) {
    if (into.buf.length < len) into.buf = Buffer.allocUnsafe(Math.max(len, into.buf.length * 2));
    buf = into.buf;
  } else buf = Buffer.allocUnsafe(len);
  let got = 0;
  while (got < len) {
    const n = fs.readSync(fd, buf, got, len - got, pos + got);
    if (n === 0) return undefined;
    got += n;
  }
  return buf.subarray(0, len);
}

class RootCache {
  entries = new Map<string, Entry>();
  dirty = false;
  loadedFrom?: string;
  /** The file the entries with offsets lie in, as it was when loaded. */
  private source?: { identity: FileIdentity; bodyStart: number };
  /** The file was replaced (by another process) since: its offsets no longer hold. */
  private stale = false;
  /** The temporary file that holds the summaries put in this run, and its length. */
  private pending?: { file: string; fd: number; size: number };

  constructor(readonly file: string, readonly rootLabel: string) {}

  load(onError: (msg: string) => void): void {
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch {
      return; // no cache yet
    }
    try {
      const read = this.readIndex(fd, onError);
      if (!read) return;
      this.entries = read.entries;
      this.source = read.source;
      this.loadedFrom = this.file;
      touch(this.file);
    } finally {
      fs.closeSync(fd);
    }
  }

  /** The entries a cache file lists (with their offsets), or undefined (reported) when it is not one of ours. */
  private readIndex(fd: number, onError: (msg: string) => void): { entries: Map<string, Entry>; source: { identity: FileIdentity; bodyStart: number } } | undefined {
    try {
      const st = fs.fstatSync(fd);
      const { header, bodyStart } = readHeader(fd);
      if (!header || header.format !== CACHE_FORMAT || header.root !== this.rootLabel || typeof header.index !== 'object' || header.index === null) {
        onError(`ignoring cache file ${this.file}: written by another version or for another target`);
        return undefined;
      }
      const entries = new Map<string, Entry>();
      for (const [rel, e] of Object.entries(header.index as Record<string, unknown>)) {
        if (!Array.isArray(e) || e.length !== 4) continue;
        const [v, h, at, len] = e as unknown[];
        if (typeof v !== 'string' || typeof h !== 'string' || typeof at !== 'number' || typeof len !== 'number' || at < 0 || len <= 0 || bodyStart + at + len > st.size) continue;
        entries.set(rel, { v, h, at, len });
      }
      return { entries, source: { identity: { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs }, bodyStart } };
    } catch (e) {
      onError(`ignoring corrupt cache file ${this.file}: ${(e as Error).message}`);
      return undefined;
    }
  }

  /** Adds (or replaces) an entry; its summary goes to the pending file, or stays in memory when that cannot be written. */
  put(rel: string, v: string, h: string, serialized: string): void {
    this.dirty = true;
    const body = Buffer.from(serialized);
    try {
      if (!this.pending) {
        const file = `${this.file}.${process.pid}.${Math.random().toString(36).slice(2)}.pending.tmp`;
        fs.mkdirSync(path.dirname(file), { recursive: true });
        this.pending = { file, fd: fs.openSync(file, 'w+'), size: 0 };
        pendingFiles.add(file);
      }
      const p = this.pending;
      if (fs.writeSync(p.fd, body, 0, body.length, p.size) !== body.length) throw new Error('short write');
      this.entries.set(rel, { v, h, at: p.size, len: body.length, pending: true });
      p.size += body.length;
    } catch {
      this.entries.set(rel, { v, h, s: serialized });
    }
  }

  /** The serialised summary of an entry; undefined when it cannot be read. */
  text(e: Entry): string | undefined {
    if (e.s !== undefined) return e.s;
    return this.bytes(e)?.toString('utf8');
  }

  private bytes(e: Entry, sourceFd?: number, into?: { buf: Buffer }): Buffer | undefined {
    if (e.s !== undefined) return Buffer.from(e.s);
    if (e.at === undefined || e.len === undefined) return undefined;
    if (e.pending) {
      try {
        return this.pending ? readAt(this.pending.fd, e.at, e.len, into) : undefined;
      } catch {
        return undefined;
      }
    }
    if (this.stale || !this.source) return undefined;
    if (sourceFd !== undefined) return readAt(sourceFd, this.source.bodyStart + e.at, e.len, into);
    let fd: number | undefined;
    try {
      fd = fs.openSync(this.file, 'r');
      if (!sameFile(fs.fstatSync(fd), this.source.identity)) {
        this.stale = true; // replaced by another process: its entries are read no more
        return undefined;
      }
      return readAt(fd, this.source.bodyStart + e.at, e.len);
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  }

  /**
   * Writes the entries (with those another process saved meanwhile that this one lacks), one
   * summary at a time, then reads its summaries from the new file.
   */
  save(onError: (msg: string) => void): boolean {
    if (!this.dirty) return true;
    const tmp = `${this.file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    let fd: number | undefined;
    let sourceFd: number | undefined;
    let theirsFd: number | undefined;
    try {
      // the file this run loaded, when it is still in place
      try {
        sourceFd = fs.openSync(this.file, 'r');
        const st = fs.fstatSync(sourceFd);
        if (this.source && !sameFile(st, this.source.identity)) {
          // replaced by another process: its entries that this run lacks are kept
          theirsFd = sourceFd;
          sourceFd = undefined;
          this.stale = true;
        } else if (!this.source) {
          theirsFd = sourceFd;
          sourceFd = undefined;
        }
      } catch {
        sourceFd = undefined;
      }
      const theirs = theirsFd !== undefined ? this.readIndex(theirsFd, () => undefined) : undefined;
      /** Every entry to write, with where its summary comes from. */
      const scratch = { buf: Buffer.allocUnsafe(256 * 1024) };
      const plan: Array<{ rel: string; e: Entry; read: () => Buffer | undefined }> = [];
      const planned = new Set<string>();
      for (const [rel, e] of this.entries) {
        // a summary that lay in the file another process replaced is gone with it: theirs is
        // taken instead when they have one, else it is summarised again next time
        if (e.s === undefined && !e.pending && sourceFd === undefined) continue;
        plan.push({ rel, e, read: () => this.bytes(e, sourceFd, scratch) });
        planned.add(rel);
      }
      if (theirs) {
        const tfd = theirsFd!;
        for (const [rel, e] of theirs.entries) if (!planned.has(rel)) plan.push({ rel, e, read: () => readAt(tfd, theirs.source.bodyStart + e.at!, e.len!, scratch) });
      }
      // the index first: every summary's length is known without reading it
      const index: Record<string, [string, string, number, number]> = {};
      const prefix = '"bodies":[\n';
      let at = Buffer.byteLength(prefix);
      let first = true;
      const kept: typeof plan = [];
      for (const x of plan) {
        const len = x.e.s !== undefined ? Buffer.byteLength(x.e.s) : x.e.len;
        if (!len) continue;
        if (!first) at += 2;
        first = false;
        index[x.rel] = [x.e.v, x.e.h, at, len];
        at += len;
        kept.push(x);
      }
      fs.mkdirSync(path.dirname(this.file), { recursive: true });
      fd = fs.openSync(tmp, 'w');
      const head = `${JSON.stringify({ format: CACHE_FORMAT, root: this.rootLabel, index }).slice(0, -1)},\n`;
      fs.writeSync(fd, head + prefix);
      let n = 0;
      for (const x of kept) {
        const body = x.read();
        if (!body || body.length !== index[x.rel][3]) throw new Error(`the summary of ${x.rel} could not be read back`);
        if (n++ > 0) fs.writeSync(fd, ',\n');
        fs.writeSync(fd, body);
      }
      fs.writeSync(fd, '\n]}\n');
      const st = fs.fstatSync(fd);
      fs.closeSync(fd);
      fd = undefined;
      fs.renameSync(tmp, this.file);
      // from now on the summaries are read from the file just written
      const entries = new Map<string, Entry>();
      for (const x of kept) {
        const [v, h, off, len] = index[x.rel];
        entries.set(x.rel, { v, h, at: off, len });
      }
      this.entries = entries;
      this.source = { identity: { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs }, bodyStart: Buffer.byteLength(head) };
      this.stale = false;
      this.dirty = false;
      this.dropPending();
      return true;
    } catch (e) {
      onError(`could not write cache file ${this.file}: ${(e as Error).message}`);
      try {
        if (fd !== undefined) fs.closeSync(fd);
        fs.rmSync(tmp, { force: true });
      } catch {
        // nothing to clean, or nowhere to clean it
      }
      return false;
    } finally {
      if (sourceFd !== undefined) fs.closeSync(sourceFd);
      if (theirsFd !== undefined) fs.closeSync(theirsFd);
    }
  }

  /** Removes the pending file (its summaries are in the cache file now, or given up). */
  dropPending(): void {
    if (!this.pending) return;
    try {
      fs.closeSync(this.pending.fd);
      fs.rmSync(this.pending.file, { force: true });
    } catch {
      // gone already
    }
    pendingFiles.delete(this.pending.file);
    this.pending = undefined;
  }
}

/** Pending files of this process, removed when it exits without saving them. */
const pendingFiles = new Set<string>();
process.once('exit', () => {
  for (const f of pendingFiles) {
    try {
      fs.rmSync(f, { force: true });
    } catch {
      // gone already
    }
  }
});

/** Writes a text to a temporary file renamed into place; false (reported) when it cannot. Never throws. */
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
    const e = rc.entries.get(rel);
    if (e && version !== undefined && e.v === version) {
      const summary = this.revive(rc, e);
      if (summary) return { summary };
    }
    const text = readText();
    if (text === undefined) return {};
    const hash = hashText(text);
    if (e && e.h === hash) {
      const summary = this.revive(rc, e);
      if (summary) {
        if (version !== undefined && e.v !== version) {
          e.v = version;
          rc.dirty = true;
        }
        return { summary, text, hash };
      }
    }
    return { text, hash };
  }

  put(root: SourceRoot, rel: string, version: string | undefined, hash: string, summary: ModuleSummary): void {
    this.putSerialized(root, rel, version, hash, serializeSummary(summary));
  }

  /** The same with a summary already serialised by `serializeSummary` (e.g. on another thread). */
  putSerialized(root: SourceRoot, rel: string, version: string | undefined, hash: string, serialized: string): void {
    this.rootCache(root).put(rel, version ?? '', hash, serialized);
  }

  private revive(rc: RootCache, e: Entry): ModuleSummary | undefined {
    const text = rc.text(e);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text, reviver) as ModuleSummary;
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

  /** Forgets what this run put and did not save (its pending files are removed). */
  discard(): void {
    for (const rc of this.roots.values()) rc.dropPending();
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
