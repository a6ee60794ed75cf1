/**
 * Opens a target named by version (`vllm==0.16.0`, `vllm>=0.12,<0.17`). Where its files come
 * from, in order: an environment that has that version installed; the cache
 * (`<cache>/dists/NAME/VERSION/HASH/`, written with atomic renames: a run that fails leaves
 * nothing half-written); the package index: the smallest wheel of the version, read by HTTP range
 * requests when the server does them (else downloaded whole and checked against its sha256), or
 * the sdist when there is no wheel.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DirectoryRoot } from './directoryRoot';
import { downloadTo, rangeRead, rangeTail } from './httpRange';
import { type HttpResponse, type IndexFile, indexUrlFrom, listProjectFiles, shownUrl } from './packageIndex';
import { type CentralEntry, findCentralDirectory, parseCentralDirectory, type RangeWheelMeta, RemoteWheelRoot, writeAtomic } from './remoteWheel';
import { chooseVersion, newestFirst, normalizeProject, parseRequirement, type Requirement, satisfies } from './requirement';
import { extractSdistSources, sdistImportRoot } from './sdist';
import { type SourceRoot, TargetError } from './sourceRoot';
import { ZipRoot } from './zipRoot';

export interface FetchProgress {
  /** What is being done, for a status line: `drift==2.0: downloading drift-2.0-py3-none-any.whl`. */
  message: string;
  /** Bytes so far and in all, for a download. */
  done?: number;
  total?: number;
}

export interface FetchOptions {
  /** The apidrift cache folder (`$XDG_CACHE_HOME/apidrift`); fetched files go under `dists/`. */
  cacheDir: string;
  /** The index (`--index-url`); else `PIP_INDEX_URL`, `UV_INDEX_URL`, the public index. */
  indexUrl?: string;
  /** Whole downloads checked against the index's sha256 only (no range reads, no file without a hash). */
  requireHashes?: boolean;
  /** Pre-releases may be chosen for a range. */
  pre?: boolean;
  /** site-packages folders looked in first (the workspace's environment). */
  environments?: string[];
  onProgress?: (p: FetchProgress) => void;
  signal?: AbortSignal;
  /** How long a project's listing is re-used for a range (ms); pins never need it again. */
  listingMaxAgeMs?: number;
  env?: NodeJS.ProcessEnv;
}

/** The version of a distribution installed in a site-packages folder, from its `*.dist-info/METADATA`. */
export function installedVersion(sitePackages: string, project: string): string | undefined {
  let entries: string[];
  try {
    entries = fs.readdirSync(sitePackages);
  } catch {
    return undefined;
  }
  for (const e of entries) {
    const m = /^(.+)-([^-]+)\.dist-info$/.exec(e);
    if (!m || normalizeProject(m[1]) !== project) continue;
    try {
      const meta = fs.readFileSync(path.join(sitePackages, e, 'METADATA'), 'utf8');
      const name = /^Name:\s*(.+)$/m.exec(meta);
      const version = /^Version:\s*(.+)$/m.exec(meta);
      if (name && version && normalizeProject(name[1].trim()) === project) return version[1].trim();
    } catch {
      // a dist-info without METADATA does not name a version
    }
  }
  return undefined;
}

/** The distributions installed in a site-packages folder (`*.dist-info` names), sorted by name. */
export function installedDistributions(sitePackages: string): Array<{ name: string; version: string }> {
  let entries: string[];
  try {
    entries = fs.readdirSync(sitePackages);
  } catch {
    return [];
  }
  const out: Array<{ name: string; version: string }> = [];
  for (const e of entries) {
    const m = /^(.+)-([^-]+)\.dist-info$/.exec(e);
    if (m) out.push({ name: m[1], version: m[2] });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** The versions of a project that the index lists (yanked ones left out), newest first. */
export async function listVersions(project: string, opts: Pick<FetchOptions, 'indexUrl' | 'env' | 'signal'>): Promise<string[]> {
  const files = await listProjectFiles(indexUrlFrom(opts.indexUrl, opts.env), normalizeProject(project), opts.signal);
  return newestFirst(files.filter((f) => !f.yanked).map((f) => f.version));
}

/** uv's cache folder: `$UV_CACHE_DIR`, else `$XDG_CACHE_HOME/uv`, else `~/.cache/uv`. */
export function uvCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.UV_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'uv');
}

/**
 * A wheel of that version that uv already unpacked in its cache (its archive bucket,
 * `archive-v*\/ID/`, holds unzipped wheels with their `*.dist-info/METADATA`): read in place,
 * nothing fetched. uv's layout is its own; anything unexpected there is simply not used.
 */
export function findInUvCache(project: string, accept: (version: string) => boolean, env: NodeJS.ProcessEnv = process.env): { dir: string; version: string } | undefined {
  const root = uvCacheDir(env);
  let buckets: string[];
  try {
    buckets = fs.readdirSync(root).filter((b) => /^archive-v\d+$/.test(b)).sort().reverse();
  } catch {
    return undefined;
  }
  for (const bucket of buckets) {
    let ids: string[] = [];
    try {
      ids = fs.readdirSync(path.join(root, bucket));
    } catch {
      continue;
    }
    for (const id of ids) {
      const dir = path.join(root, bucket, id);
      const v = installedVersion(dir, project);
      if (v && accept(v)) return { dir, version: v };
    }
  }
  return undefined;
}

function safeSegment(s: string): string {
  return s.replace(/[^A-Za-z0-9._+!-]/g, '_');
}

interface DistRecord {
  version: string;
  filename: string;
  url: string;
  sha256?: string;
  mode: 'range' | 'whole' | 'sdist';
  /** For 'range': the central directory; for 'sdist': the import root relative to the folder. */
  range?: RangeWheelMeta;
  root?: string;
}

function projectDir(opts: FetchOptions, project: string): string {
  return path.join(opts.cacheDir, 'dists', safeSegment(project));
}

/** A cached distribution of a version that satisfies a pinned requirement (no request needed). */
function cachedDist(opts: FetchOptions, req: Requirement, version?: string): { dir: string; record: DistRecord } | undefined {
  const base = projectDir(opts, req.project);
  let versions: string[];
  try {
    versions = fs.readdirSync(base);
  } catch {
    return undefined;
  }
  for (const v of newestFirst(versions)) {
    if (version ? v !== safeSegment(version) : !satisfies(v, req)) continue;
    let hashes: string[] = [];
    try {
      hashes = fs.readdirSync(path.join(base, v));
    } catch {
      continue;
    }
    for (const h of hashes.sort()) {
      const dir = path.join(base, v, h);
      try {
        const record = JSON.parse(fs.readFileSync(path.join(dir, 'dist.json'), 'utf8')) as DistRecord;
        if (opts.requireHashes && (record.mode === 'range' || !record.sha256)) continue;
        return { dir, record };
      } catch {
        // not complete: fetched again
      }
    }
  }
  return undefined;
}

/** A root shown by the requirement it was fetched for rather than by its place in the cache. */
class NamedRoot implements SourceRoot {
  constructor(readonly inner: SourceRoot, readonly label: string) {}
  readText(rel: string): string | undefined {
    return this.inner.readText(rel);
  }
  listDir(rel: string): string[] | undefined {
    return this.inner.listDir(rel);
  }
  isFile(rel: string): boolean {
    return this.inner.isFile(rel);
  }
  isDir(rel: string): boolean {
    return this.inner.isDir(rel);
  }
  fileVersion(rel: string): string | undefined {
    return this.inner.fileVersion(rel);
  }
  displayPath(rel: string): string {
    return this.inner.displayPath(rel);
  }
}

function openRecord(dir: string, record: DistRecord, label: string): SourceRoot {
  if (record.mode === 'range') return new RemoteWheelRoot(dir, record.range!, label);
  if (record.mode === 'whole') return new NamedRoot(new ZipRoot(path.join(dir, record.filename)), label);
  return new NamedRoot(new DirectoryRoot(path.join(dir, record.root ?? 'tree')), label);
}

/** The project's files, from the index, or from a listing fetched recently (for ranges). */
async function projectFiles(opts: FetchOptions, req: Requirement, indexUrl: string): Promise<IndexFile[]> {
  const key = crypto.createHash('sha256').update(indexUrl).digest('hex').slice(0, 16);
  const file = path.join(opts.cacheDir, 'listings', key, `${safeSegment(req.project)}.json`);
  const maxAge = opts.listingMaxAgeMs ?? 10 * 60 * 1000;
  try {
    const st = fs.statSync(file);
    if (Date.now() - st.mtimeMs < maxAge) return JSON.parse(fs.readFileSync(file, 'utf8')) as IndexFile[];
  } catch {
    // none yet
  }
  opts.onProgress?.({ message: `${req.text}: asking ${shownUrl(indexUrl)}` });
  const files = await listProjectFiles(indexUrl, req.project, opts.signal);
  try {
    writeAtomic(file, JSON.stringify(files));
  } catch {
    // a cache that cannot be written only costs a request next time
  }
  return files;
}

/** The file read for a version: the smallest wheel (sources are the same across platforms), else the sdist. */
export function pickFile(files: IndexFile[]): IndexFile | undefined {
  const wheels = files.filter((f) => f.kind === 'wheel');
  const rank = (f: IndexFile): number => f.size ?? (/-py3-none-any\.whl$|-py2\.py3-none-any\.whl$/.test(f.filename) ? Number.MAX_SAFE_INTEGER - 1 : Number.MAX_SAFE_INTEGER);
  if (wheels.length > 0) return [...wheels].sort((a, b) => rank(a) - rank(b) || a.filename.localeCompare(b.filename))[0];
  return files.find((f) => f.kind === 'sdist');
}

/**
 * Reads a remote wheel's central directory with range requests. A server that does not do range
 * requests answers with the whole file: that answer is returned, to be downloaded.
 */
async function readCentralDirectory(file: IndexFile, signal?: AbortSignal): Promise<RangeWheelMeta | HttpResponse> {
  // the end record is in the last 22 bytes unless the archive has a comment (at most 64 KiB)
  let tail = await rangeTail(file.url, 8192, signal);
  if (!('bytes' in tail)) return tail;
  let cd;
  for (;;) {
    try {
      cd = findCentralDirectory(tail.bytes, tail.total);
      break;
    } catch (e) {
      if (tail.start === 0 || tail.bytes.length >= 65536 + 22) throw new TargetError(`${file.filename} is not a readable wheel: ${(e as Error).message}`);
      const more = await rangeTail(file.url, 65536 + 22, signal);
      if (!('bytes' in more)) {
        more.body.destroy();
        throw new TargetError(`${shownUrl(file.url)} stopped answering range requests`);
      }
      tail = more;
    }
  }
  let bytes: Buffer;
  if (cd.offset >= tail.start) bytes = tail.bytes.subarray(cd.offset - tail.start, cd.offset - tail.start + cd.size);
  else bytes = Buffer.concat([await rangeRead(file.url, cd.offset, tail.start - 1, signal), tail.bytes]).subarray(0, cd.size);
  let entries: CentralEntry[];
  try {
    entries = parseCentralDirectory(bytes, cd.count);
  } catch (e) {
    throw new TargetError(`${file.filename} is not a readable wheel: ${(e as Error).message}`);
  }
  return { url: file.url, filename: file.filename, size: tail.total, entries };
}

/** Opens a requirement as a target root: from an environment, the cache, or the index. */
export async function openRequirement(spec: string, opts: FetchOptions): Promise<SourceRoot> {
  const req = parseRequirement(spec);
  const findInstalled = (version?: string): SourceRoot | undefined => {
    const accept = (v: string): boolean => (version ? v === version : req.pinned !== undefined && satisfies(v, req));
    for (const sp of opts.environments ?? []) {
      const v = installedVersion(sp, req.project);
      if (v && accept(v)) return new DirectoryRoot(sp);
    }
    const uv = findInUvCache(req.project, accept, opts.env);
    if (uv) return new NamedRoot(new DirectoryRoot(uv.dir), `${req.name}==${uv.version} (uv's cache)`);
    return undefined;
  };
  // a pinned version needs no request when it is installed or cached
  if (req.pinned !== undefined) {
    const here = findInstalled();
    if (here) return here;
    const hit = cachedDist(opts, req);
    if (hit) return openRecord(hit.dir, hit.record, `${req.name}==${hit.record.version} (${hit.record.filename})`);
  }
  const indexUrl = indexUrlFrom(opts.indexUrl, opts.env);
  const files = await projectFiles(opts, req, indexUrl);
  const listed = files.filter((f) => !f.yanked || req.pinned !== undefined);
  const version = chooseVersion(listed.map((f) => f.version), req, opts.pre);
  if (!version) {
    const known = newestFirst(files.map((f) => f.version)).slice(0, 8);
    throw new TargetError(`no version of ${req.name} matches ${req.specifier} on ${shownUrl(indexUrl)}${known.length ? ` (it has ${known.join(', ')}${known.length === 8 ? ', ...' : ''})` : ' (it lists no files)'}`);
  }
  const installed = findInstalled(version);
  if (installed) return installed;
  const cached = cachedDist(opts, req, version);
  if (cached) return openRecord(cached.dir, cached.record, `${req.name}==${version} (${cached.record.filename})`);
  const file = pickFile(listed.filter((f) => f.version === version));
  if (!file) throw new TargetError(`${req.name} ${version} has neither a wheel nor a .tar.gz sdist on ${shownUrl(indexUrl)}`);
  if (opts.requireHashes && !file.sha256) throw new TargetError(`--require-hashes: the index gives no sha256 for ${file.filename}`);
  const label = `${req.name}==${version} (${file.filename})`;
  const key = file.sha256 ? file.sha256.slice(0, 32) : 'url-' + crypto.createHash('sha256').update(file.url).digest('hex').slice(0, 24);
  const dir = path.join(projectDir(opts, req.project), safeSegment(version), key);
  fs.mkdirSync(dir, { recursive: true });
  const record: DistRecord = { version, filename: file.filename, url: file.url, sha256: file.sha256, mode: 'whole' };
  let whole: HttpResponse | undefined;
  if (file.kind === 'wheel' && !opts.requireHashes) {
    opts.onProgress?.({ message: `${req.text}: reading the file list of ${file.filename}` });
    const meta = await readCentralDirectory(file, opts.signal);
    if ('entries' in meta) {
      record.mode = 'range';
      record.range = meta;
    } else whole = meta; // no range support: the answer is the whole file
  }
  const progress = (done: number, total: number | undefined): void => opts.onProgress?.({ message: `${req.text}: downloading ${file.filename}`, done, total: total ?? file.size });
  if (record.mode === 'whole' && file.kind === 'wheel') {
    await downloadTo(file.url, path.join(dir, file.filename), file.sha256, progress, opts.signal, whole);
  } else if (file.kind === 'sdist') {
    record.mode = 'sdist';
    const archive = path.join(dir, `${crypto.randomBytes(4).toString('hex')}.${file.filename}`);
    const tree = `${path.join(dir, 'tree')}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.part`;
    try {
      await downloadTo(file.url, archive, file.sha256, progress, opts.signal);
      await extractSdistSources(archive, tree);
      fs.rmSync(path.join(dir, 'tree'), { recursive: true, force: true });
      fs.renameSync(tree, path.join(dir, 'tree'));
    } catch (e) {
      fs.rmSync(tree, { recursive: true, force: true });
      throw e instanceof TargetError ? e : new TargetError(`cannot read ${file.filename}: ${(e as Error).message}`);
    } finally {
      fs.rmSync(archive, { force: true });
    }
    record.root = path.relative(dir, sdistImportRoot(path.join(dir, 'tree')));
  }
  // the record is written last: a folder without one is not used
  writeAtomic(path.join(dir, 'dist.json'), JSON.stringify(record));
  return openRecord(dir, record, label);
}
