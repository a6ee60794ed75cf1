/**
 * A wheel on a package index read with HTTP range requests: its central directory is read once
 * (and kept in the cache), each `.py` / `.pyi` member is fetched the first time a check asks for
 * it, checked against the central directory's CRC-32 and sizes, and kept in the cache. A second
 * run that needs the same members makes no request.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { SyncRangeReader } from './httpRange';
import { shownUrl } from './packageIndex';
import { ArchiveListing } from './archiveListing';
import { TargetError } from './sourceRoot';

/** One member as the central directory describes it. */
export interface CentralEntry {
  name: string;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
  /** Length of the name and extra field in the central directory (the local header's are usually the same). */
  nameLen: number;
  extraLen: number;
}

/** The largest member a check reads (a Python file larger than this is not a source file). */
export const MAX_MEMBER = 64 << 20;

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

export function crc32(bytes: Uint8Array): number {
  let c = -1;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

/** Where the central directory is, from the end of a zip file (`tail` holds its last bytes). */
export function findCentralDirectory(tail: Buffer, total: number): { offset: number; size: number; count: number } {
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== 0x06054b50) continue;
    const count = tail.readUInt16LE(i + 10);
    const size = tail.readUInt32LE(i + 12);
    const offset = tail.readUInt32LE(i + 16);
    if (offset === 0xffffffff || count === 0xffff) throw new TargetError('zip64 archives are not read over HTTP');
    if (offset + size > total) throw new TargetError('central directory out of bounds');
    return { offset, size, count };
  }
  throw new TargetError('no end of central directory');
}

/** Parses a central directory. */
export function parseCentralDirectory(cd: Buffer, count: number): CentralEntry[] {
  const out: CentralEntry[] = [];
  let p = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== 0x02014b50) throw new TargetError(`bad central directory entry ${n}`);
    const nameLen = cd.readUInt16LE(p + 28);
    const extraLen = cd.readUInt16LE(p + 30);
    const commentLen = cd.readUInt16LE(p + 32);
    out.push({
      name: cd.toString('utf8', p + 46, p + 46 + nameLen),
      method: cd.readUInt16LE(p + 10),
      crc: cd.readUInt32LE(p + 16),
      compressedSize: cd.readUInt32LE(p + 20),
      size: cd.readUInt32LE(p + 24),
      offset: cd.readUInt32LE(p + 42),
      nameLen,
      extraLen,
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return out;
}

/** A member's bytes from the bytes of its local header onwards, checked against its central entry. */
export function memberFrom(raw: Buffer, e: CentralEntry): Buffer | 'short' {
  if (raw.length < 30 || raw.readUInt32LE(0) !== 0x04034b50) throw new TargetError(`bad local header for ${e.name}`);
  const start = 30 + raw.readUInt16LE(26) + raw.readUInt16LE(28);
  if (start + e.compressedSize > raw.length) return 'short';
  const data = raw.subarray(start, start + e.compressedSize);
  let out: Buffer;
  if (e.method === 0) out = data;
  else if (e.method === 8) {
    try {
      out = zlib.inflateRawSync(data, { maxOutputLength: Math.max(1, e.size + 1) });
    } catch (err) {
      throw new TargetError(`member ${e.name} does not inflate to its ${e.size} bytes: ${(err as Error).message}`);
    }
  } else throw new TargetError(`member ${e.name} uses unsupported compression method ${e.method}`);
  if (out.length !== e.size) throw new TargetError(`member ${e.name} has ${out.length} bytes, the central directory says ${e.size}`);
  if (crc32(out) !== e.crc) throw new TargetError(`member ${e.name} fails its CRC-32 check`);
  return out;
}

/** Writes a file so that it appears whole or not at all. */
export function writeAtomic(file: string, data: string | Uint8Array): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.part`;
  try {
    fs.writeFileSync(tmp, data);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** What the cache keeps of a wheel read by ranges. */
export interface RangeWheelMeta {
  url: string;
  filename: string;
  size: number;
  entries: CentralEntry[];
}

/** Members fetched one by one before the rest of the sources are fetched together (a full index). */
const BULK_AFTER = 24;

export class RemoteWheelRoot extends ArchiveListing<CentralEntry> {
  readonly label: string;
  private readonly reader = new SyncRangeReader();
  private misses = 0;

  /** `dir` is the cache folder of this wheel: fetched members go to `dir/files/`. */
  constructor(readonly dir: string, readonly meta: RangeWheelMeta, label: string) {
    super();
    this.label = label;
    for (const e of meta.entries) {
      if (e.name.includes('..') || e.name.startsWith('/')) continue;
      this.addPath(e.name, e);
    }
  }

  private local(rel: string): string {
    return path.join(this.dir, 'files', ...rel.split('/'));
  }

  private where(): string {
    return `${this.meta.filename} from ${shownUrl(this.meta.url)}`;
  }

  /** Fetches the given members (coalesced into few range requests), checks and keeps them. */
  private fetchMembers(list: CentralEntry[]): void {
    const sorted = [...list].sort((a, b) => a.offset - b.offset);
    let i = 0;
    while (i < sorted.length) {
      const first = sorted[i];
      let end = first.offset + 30 + first.nameLen + first.extraLen + first.compressedSize + 512;
      let j = i + 1;
      // neighbours join one request while the gap is small and the request stays moderate
      while (j < sorted.length && sorted[j].offset - end < 32 << 10 && sorted[j].offset + sorted[j].compressedSize - first.offset < 8 << 20) {
        end = Math.max(end, sorted[j].offset + 30 + sorted[j].nameLen + sorted[j].extraLen + sorted[j].compressedSize + 512);
        j++;
      }
      end = Math.min(end, this.meta.size) - 1;
      const raw = this.readRange(first.offset, end);
      for (let k = i; k < j; k++) {
        const e = sorted[k];
        let part = raw.subarray(e.offset - first.offset);
        let bytes = memberFrom(part, e);
        if (bytes === 'short') {
          // a local header longer than the central one: read this member again, whole
          const need = 30 + part.readUInt16LE(26) + part.readUInt16LE(28) + e.compressedSize;
          part = this.readRange(e.offset, Math.min(e.offset + need, this.meta.size) - 1);
          bytes = memberFrom(part, e);
          if (bytes === 'short') throw new TargetError(`member ${e.name} is truncated`);
        }
        writeAtomic(this.local(e.name), bytes);
      }
      i = j;
    }
  }

  private readRange(start: number, end: number): Buffer {
    const tmp = path.join(this.dir, `range.${process.pid}.${crypto.randomBytes(4).toString('hex')}.part`);
    try {
      this.reader.read(this.meta.url, start, end, tmp);
      return fs.readFileSync(tmp);
    } catch (e) {
      throw new TargetError(`cannot read ${this.where()}: ${(e as Error).message}`);
    } finally {
      fs.rmSync(tmp, { force: true });
    }
  }

  readBytes(rel: string): Buffer | undefined {
    const e = this.entries.get(rel);
    if (!e) return undefined;
    if (e.size > MAX_MEMBER) throw new TargetError(`member ${rel} of ${this.meta.filename} is too large to read (${e.size} bytes)`);
    const file = this.local(rel);
    try {
      return fs.readFileSync(file);
    } catch {
      // not fetched yet
    }
    this.misses++;
    if (this.misses === BULK_AFTER) {
      // a check that reads this many modules is building a full index: fetch the sources together
      const rest = [...this.entries.values()].filter((x) => /\.pyi?$/.test(x.name) && x.size <= MAX_MEMBER && !fs.existsSync(this.local(x.name)));
      this.fetchMembers(rest.some((x) => x === e) ? rest : [...rest, e]);
    } else this.fetchMembers([e]);
    return fs.readFileSync(file);
  }

  displayPath(rel: string): string {
    return this.local(rel);
  }

  members(): string[] {
    return [...this.entries.keys()];
  }
}
