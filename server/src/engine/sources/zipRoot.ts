import * as fs from 'fs';
import * as zlib from 'zlib';
import { decodeSource, type SourceRoot, TargetError } from './sourceRoot';

interface Entry {
  method: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
  crc: number;
}

/**
 * A zip archive (a wheel, or an archive such as pyodide's `python_stdlib.zip`), read in place:
 * the central directory is parsed once and members are inflated on demand.
 */
export class ZipRoot implements SourceRoot {
  readonly label: string;
  private readonly data: Buffer;
  private readonly entries = new Map<string, Entry>();
  private readonly dirs = new Map<string, Set<string>>();

  constructor(readonly file: string) {
    this.label = file;
    try {
      this.data = fs.readFileSync(file);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new TargetError(code === 'ENOENT' ? `target path does not exist: ${file}` : `target archive cannot be read: ${file} (${code ?? e})`);
    }
    this.readCentralDirectory();
  }

  private fail(why: string): never {
    throw new TargetError(`target archive is corrupt or truncated: ${this.file} (${why})`);
  }

  private readCentralDirectory(): void {
    const d = this.data;
    // End of central directory record: signature 0x06054b50, within the last 64 KiB + 22 bytes.
    let eocd = -1;
    for (let i = d.length - 22; i >= Math.max(0, d.length - 22 - 0xffff); i--) {
      if (d.readUInt32LE(i) === 0x06054b50) {
        eocd = i;
        break;
      }
    }
    if (eocd < 0) this.fail('no end of central directory');
    const count = d.readUInt16LE(eocd + 10);
    const cdSize = d.readUInt32LE(eocd + 12);
    const cdOffset = d.readUInt32LE(eocd + 16);
    if (cdOffset + cdSize > d.length) this.fail('central directory out of bounds');
    this.dirs.set('', new Set());
    let p = cdOffset;
    for (let n = 0; n < count; n++) {
      if (p + 46 > d.length || d.readUInt32LE(p) !== 0x02014b50) this.fail(`bad central directory entry ${n}`);
      const method = d.readUInt16LE(p + 10);
      const crc = d.readUInt32LE(p + 16);
      const compressedSize = d.readUInt32LE(p + 20);
      const size = d.readUInt32LE(p + 24);
      const nameLen = d.readUInt16LE(p + 28);
      const extraLen = d.readUInt16LE(p + 30);
      const commentLen = d.readUInt16LE(p + 32);
      const localHeaderOffset = d.readUInt32LE(p + 42);
      const name = d.toString('utf8', p + 46, p + 46 + nameLen);
      p += 46 + nameLen + extraLen + commentLen;
      if (localHeaderOffset >= d.length) this.fail(`entry ${name} out of bounds`);
      this.addPath(name, { method, compressedSize, size, localHeaderOffset, crc });
    }
  }

  private addPath(name: string, entry: Entry): void {
    const isDir = name.endsWith('/');
    const clean = isDir ? name.slice(0, -1) : name;
    if (!clean) return;
    if (!isDir) this.entries.set(clean, entry);
    const parts = clean.split('/');
    for (let i = 0; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      let set = this.dirs.get(parent);
      if (!set) this.dirs.set(parent, (set = new Set()));
      set.add(parts[i]);
      if (i < parts.length - 1 || isDir) {
        const self = parts.slice(0, i + 1).join('/');
        if (!this.dirs.has(self)) this.dirs.set(self, new Set());
      }
    }
  }

  readBytes(rel: string): Buffer | undefined {
    const e = this.entries.get(rel);
    if (!e) return undefined;
    const d = this.data;
    const h = e.localHeaderOffset;
    if (h + 30 > d.length || d.readUInt32LE(h) !== 0x04034b50) this.fail(`bad local header for ${rel}`);
    const start = h + 30 + d.readUInt16LE(h + 26) + d.readUInt16LE(h + 28);
    const end = start + e.compressedSize;
    if (end > d.length) this.fail(`member ${rel} is truncated`);
    const raw = d.subarray(start, end);
    try {
      if (e.method === 0) return raw;
      if (e.method === 8) return zlib.inflateRawSync(raw);
    } catch (err) {
      this.fail(`member ${rel} does not inflate: ${(err as Error).message}`);
    }
    this.fail(`member ${rel} uses unsupported compression method ${e.method}`);
  }

  readText(rel: string): string | undefined {
    const bytes = this.readBytes(rel);
    return bytes ? decodeSource(bytes) : undefined;
  }

  listDir(rel: string): string[] | undefined {
    const set = this.dirs.get(rel);
    return set ? [...set] : undefined;
  }

  isFile(rel: string): boolean {
    return this.entries.has(rel);
  }

  isDir(rel: string): boolean {
    return this.dirs.has(rel);
  }

  fileVersion(rel: string): string | undefined {
    const e = this.entries.get(rel);
    return e ? `${e.crc}:${e.size}` : undefined;
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
