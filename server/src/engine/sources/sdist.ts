/**
 * A source distribution (`.tar.gz`): its `.py` / `.pyi` members are streamed out of the archive
 * into a folder of the cache, and the import root is found in it (`src/` layout or flat).
 */
import * as fs from 'fs';
import * as path from 'path';
import * as zlib from 'zlib';
import { MAX_MEMBER } from './remoteWheel';
import { TargetError } from './sourceRoot';

function field(h: Buffer, start: number, len: number): string {
  const s = h.toString('utf8', start, start + len);
  const nul = s.indexOf('\0');
  return nul < 0 ? s : s.slice(0, nul);
}

function octal(h: Buffer, start: number, len: number): number {
  if (h[start] & 0x80) {
    // base-256 size of GNU tar
    let n = 0;
    for (let i = start + 1; i < start + len; i++) n = n * 256 + h[i];
    return n;
  }
  const s = field(h, start, len).trim();
  return s ? parseInt(s, 8) : 0;
}

/** Safe relative path of a member inside `dest`, or undefined for one that would escape it. */
function safeRel(name: string): string | undefined {
  const parts = name.split('/').filter((p) => p && p !== '.');
  if (parts.some((p) => p === '..') || name.startsWith('/')) return undefined;
  return parts.join('/');
}

/** Extracts the Python sources of a `.tar.gz` into `dest` (which must not exist yet). */
export async function extractSdistSources(archive: string, dest: string): Promise<void> {
  fs.mkdirSync(dest, { recursive: true });
  const input = fs.createReadStream(archive).pipe(zlib.createGunzip());
  let pending = Buffer.alloc(0);
  /** The member being read: its remaining bytes, and where its data go (undefined: skipped). */
  let member: { left: number; pad: number; chunks: Buffer[] | undefined; rel: string | undefined; kind: string } | undefined;
  let longName: string | undefined;
  let paxPath: string | undefined;
  let ended = false;
  const finishMember = (): void => {
    const m = member!;
    member = undefined;
    if (!m.chunks) return;
    const data = Buffer.concat(m.chunks);
    if (m.kind === 'L') longName = field(data, 0, data.length);
    else if (m.kind === 'x') {
      const p = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(data.toString('utf8'));
      paxPath = p ? p[1] : undefined;
    } else if (m.rel) {
      const file = path.join(dest, ...m.rel.split('/'));
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, data);
    }
  };
  for await (const chunk of input as AsyncIterable<Buffer>) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (!ended) {
      if (member) {
        const take = Math.min(member.left, pending.length);
        if (member.chunks && take > 0) member.chunks.push(Buffer.from(pending.subarray(0, take)));
        member.left -= take;
        pending = pending.subarray(take);
        if (member.left > 0) break;
        if (pending.length < member.pad) break;
        pending = pending.subarray(member.pad);
        finishMember();
        continue;
      }
      if (pending.length < 512) break;
      const h = pending.subarray(0, 512);
      pending = pending.subarray(512);
      if (h.every((b) => b === 0)) {
        ended = true;
        break;
      }
      const size = octal(h, 124, 12);
      const kind = String.fromCharCode(h[156] || 0x30);
      let name = field(h, 0, 100);
      const prefix = field(h, 345, 155);
      if (prefix && h.toString('latin1', 257, 262) === 'ustar') name = `${prefix}/${name}`;
      if (longName !== undefined && kind !== 'L' && kind !== 'x') (name = longName), (longName = undefined);
      if (paxPath !== undefined && kind !== 'L' && kind !== 'x') (name = paxPath), (paxPath = undefined);
      const regular = kind === '0' || kind === '\0' || kind === '7';
      const rel = regular && /\.pyi?$/.test(name) && size <= MAX_MEMBER ? safeRel(name) : undefined;
      const keep = rel !== undefined || ((kind === 'L' || kind === 'x') && size < 1 << 20);
      member = { left: size, pad: (512 - (size % 512)) % 512, chunks: keep ? [] : undefined, rel, kind };
      if (size === 0) {
        finishMember();
      }
    }
  }
  if (!ended && (member || pending.length > 0)) throw new TargetError(`the source archive ${path.basename(archive)} is truncated`);
}

/**
 * The import root inside an extracted sdist: its single top folder, or that folder's `src/` when
 * the packages live there.
 */
export function sdistImportRoot(dest: string): string {
  const tops = fs.readdirSync(dest, { withFileTypes: true }).filter((d) => d.isDirectory());
  const top = tops.length === 1 ? path.join(dest, tops[0].name) : dest;
  const src = path.join(top, 'src');
  if (fs.existsSync(src) && fs.statSync(src).isDirectory()) return src;
  return top;
}
