import * as fs from 'fs';
import * as zlib from 'zlib';
import { ArchiveListing } from './archiveListing';
import { MAX_SOURCE_BYTES, TargetError } from './sourceRoot';

interface Entry {
  method: number;
  flags: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
  crc: number;
}

/**
 * The most a member may declare and be inflated: one source file's limit. A member is inflated
 * into a buffer of its declared size at most, so this bounds the memory one read takes.
 */
export const MAX_MEMBER_BYTES = MAX_SOURCE_BYTES;

/**
 * The most the Python members of one archive may declare in all (a global cap: reading every
 * module never inflates more than this). Real wheels hold a few tens of MB of source.
 */
export const MAX_ARCHIVE_SOURCE_BYTES = 2 * 1024 * 1024 * 1024;

const EOCD = 0x06054b50;
const EOCD64 = 0x06064b50;
const EOCD64_LOCATOR = 0x07064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

let crcTable: Int32Array | undefined;

/** CRC-32 (the zip polynomial), as every member's header records it. */
export function crc32(data: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c;
    }
  }
  let crc = -1;
  for (let i = 0; i < data.length; i++) crc = crcTable[(crc ^ data[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ -1) >>> 0;
}

/**
 * A zip archive (a wheel, or an archive such as pyodide's `python_stdlib.zip`), read in place:
 * the central directory is read once (ZIP64 included) and members are read from the file and
 * inflated on demand. A member is never inflated beyond the size it declares, and what comes out
 * is checked against that size and its CRC-32: a damaged or lying archive is a TargetError, never
 * a wrong text, an unbounded allocation or a crash.
 */
export class ZipRoot extends ArchiveListing<Entry> {
  readonly label: string;
  private readonly length: number;

  constructor(readonly file: string) {
    super();
    this.label = file;
    try {
      const st = fs.statSync(file);
      if (!st.isFile()) throw new TargetError(`target archive is not a file: ${file}`);
      this.length = st.size;
    } catch (e) {
      if (e instanceof TargetError) throw e;
      const code = (e as NodeJS.ErrnoException).code;
      throw new TargetError(code === 'ENOENT' ? `target path does not exist: ${file}` : `target archive cannot be read: ${file} (${code ?? e})`);
    }
    this.readCentralDirectory();
  }

  private fail(why: string): never {
    throw new TargetError(`target archive is corrupt or truncated: ${this.file} (${why})`);
  }

  /** `length` bytes at `offset` of the archive (fewer at its end). */
  private read(offset: number, length: number): Buffer {
    if (offset < 0 || length < 0 || offset + length > this.length) this.fail(`a read at ${offset} of ${length} bytes is out of bounds`);
    const out = Buffer.alloc(length);
    let fd: number;
    try {
      fd = fs.openSync(this.file, 'r');
    } catch (e) {
      throw new TargetError(`target archive cannot be read: ${this.file} (${(e as NodeJS.ErrnoException).code ?? e})`);
    }
    try {
      let got = 0;
      while (got < length) {
        const n = fs.readSync(fd, out, got, length - got, offset + got);
        if (n === 0) this.fail('the file is shorter than it was');
        got += n;
      }
    } catch (e) {
      if (e instanceof TargetError) throw e;
      throw new TargetError(`target archive cannot be read: ${this.file} (${(e as NodeJS.ErrnoException).code ?? e})`);
    } finally {
      fs.closeSync(fd);
    }
    return out;
  }

  private readCentralDirectory(): void {
    // End of central directory record: within the last 64 KiB + 22 bytes.
    if (this.length < 22) this.fail('no end of central directory');
    const tailStart = Math.max(0, this.length - 22 - 0xffff);
    const tail = this.read(tailStart, this.length - tailStart);
    let at = -1;
    for (let i = tail.length - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        at = i;
        break;
      }
    }
    if (at < 0) this.fail('no end of central directory');
    let count = tail.readUInt16LE(at + 10);
    let cdSize = tail.readUInt32LE(at + 12);
    let cdOffset = tail.readUInt32LE(at + 16);
    let zip64 = false;
    // ZIP64: a locator just before the record points to the ZIP64 end record, which holds the
    // 64-bit counts (archives of 65,535 entries or more, or larger than 4 GiB)
    const eocdAbs = tailStart + at;
    if (eocdAbs >= 20) {
      const loc = this.read(eocdAbs - 20, 20);
      if (loc.readUInt32LE(0) === EOCD64_LOCATOR) {
        const recordAt = Number(loc.readBigUInt64LE(8));
        if (!Number.isSafeInteger(recordAt) || recordAt + 56 > this.length) this.fail('ZIP64 end record out of bounds');
        const rec = this.read(recordAt, 56);
        if (rec.readUInt32LE(0) !== EOCD64) this.fail('bad ZIP64 end record');
        count = Number(rec.readBigUInt64LE(32));
        cdSize = Number(rec.readBigUInt64LE(40));
        cdOffset = Number(rec.readBigUInt64LE(48));
        zip64 = true;
      }
    }
    if (!Number.isSafeInteger(count) || !Number.isSafeInteger(cdSize) || !Number.isSafeInteger(cdOffset) || cdOffset + cdSize > this.length) this.fail('central directory out of bounds');
    // every entry takes 46 bytes at least: a count the directory cannot hold is a lie
    if (count * 46 > cdSize) this.fail(`central directory too small for ${count} entries`);
    const d = this.read(cdOffset, cdSize);
    let sourceBytes = 0;
    let p = 0;
    let n = 0;
    // entries are read until the directory ends: a 16-bit count that wrapped around (a large
    // archive written without ZIP64 records) must agree modulo 65,536
    while (p < d.length) {
      if (p + 46 > d.length || d.readUInt32LE(p) !== CENTRAL) {
        if (n >= count && (zip64 || n % 0x10000 === count)) break; // trailing bytes after the entries
        this.fail(`bad central directory entry ${n}`);
      }
      const flags = d.readUInt16LE(p + 8);
      const method = d.readUInt16LE(p + 10);
      const crc = d.readUInt32LE(p + 16);
      let compressedSize = d.readUInt32LE(p + 20);
      let size = d.readUInt32LE(p + 24);
      const nameLen = d.readUInt16LE(p + 28);
      const extraLen = d.readUInt16LE(p + 30);
      const commentLen = d.readUInt16LE(p + 32);
      let localHeaderOffset = d.readUInt32LE(p + 42);
      const nameEnd = p + 46 + nameLen;
      if (nameEnd + extraLen + commentLen > d.length) this.fail(`central directory entry ${n} out of bounds`);
      const name = d.toString('utf8', p + 46, nameEnd);
      if (size === 0xffffffff || compressedSize === 0xffffffff || localHeaderOffset === 0xffffffff) {
        // the 64-bit values are in the ZIP64 extra field, in this order, for those that overflowed
        let q = nameEnd;
        const extraEnd = nameEnd + extraLen;
        let found = false;
        while (q + 4 <= extraEnd) {
          const id = d.readUInt16LE(q);
          const len = d.readUInt16LE(q + 2);
          if (q + 4 + len > extraEnd) break;
          if (id === 0x0001) {
            let r = q + 4;
            const next = (): number => {
              if (r + 8 > q + 4 + len) this.fail(`ZIP64 field of ${name} too short`);
              const v = Number(d.readBigUInt64LE(r));
              r += 8;
              return v;
            };
            if (size === 0xffffffff) size = next();
            if (compressedSize === 0xffffffff) compressedSize = next();
            if (localHeaderOffset === 0xffffffff) localHeaderOffset = next();
            found = true;
            break;
          }
          q += 4 + len;
        }
        if (!found) this.fail(`entry ${name} lacks its ZIP64 sizes`);
      }
      p = nameEnd + extraLen + commentLen;
      n++;
      if (!Number.isSafeInteger(size) || !Number.isSafeInteger(compressedSize) || localHeaderOffset + 30 + compressedSize > this.length) this.fail(`entry ${name} out of bounds`);
      if (/\.pyi?$/.test(name)) {
        sourceBytes += size;
        if (sourceBytes > MAX_ARCHIVE_SOURCE_BYTES) this.fail(`its Python members declare more than ${MAX_ARCHIVE_SOURCE_BYTES} bytes`);
      }
      this.addPath(name, { method, flags, compressedSize, size, localHeaderOffset, crc });
    }
    if (zip64 ? n !== count : n % 0x10000 !== count) this.fail(`the directory lists ${n} entries, the end record ${count}`);
  }

  /**
   * A member's bytes, checked against its declared size and CRC-32; undefined when there is no
   * such member. Throws TargetError for a member that is damaged, lies about its size, is
   * encrypted, uses a compression method other than store and deflate, or is too large.
   */
  readBytes(rel: string): Buffer | undefined {
    const e = this.entries.get(rel);
    if (!e) return undefined;
    if (e.flags & 1) this.fail(`member ${rel} is encrypted`);
    if (e.method !== 0 && e.method !== 8) this.fail(`member ${rel} uses unsupported compression method ${e.method}`);
    if (e.size > MAX_MEMBER_BYTES) this.fail(`member ${rel} declares ${e.size} bytes, more than the limit of ${MAX_MEMBER_BYTES}`);
    const h = e.localHeaderOffset;
    const header = this.read(h, 30);
    if (header.readUInt32LE(0) !== LOCAL) this.fail(`bad local header for ${rel}`);
    const start = h + 30 + header.readUInt16LE(26) + header.readUInt16LE(28);
    if (start + e.compressedSize > this.length) this.fail(`member ${rel} is truncated`);
    const raw = this.read(start, e.compressedSize);
    let out: Buffer;
    if (e.method === 0) out = raw;
    else {
      try {
        // never more than the declared size (plus one byte, to tell a lie from an exact fit)
        out = zlib.inflateRawSync(raw, { maxOutputLength: e.size + 1 });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'ERR_BUFFER_TOO_LARGE') this.fail(`member ${rel} inflates beyond its declared ${e.size} bytes`);
        this.fail(`member ${rel} does not inflate: ${(err as Error).message}`);
      }
    }
    if (out.length !== e.size) this.fail(`member ${rel} holds ${out.length > e.size ? 'more' : 'fewer'} bytes than its declared ${e.size}`);
    if (crc32(out) !== e.crc) this.fail(`member ${rel} fails its CRC-32 check`);
    return out;
  }

  displayPath(rel: string): string {
    return `${this.file}/${rel}`;
  }

  members(): string[] {
    return [...this.entries.keys()];
  }

  get fileCount(): number {
    return this.entries.size;
  }
}
