/**
 * A package index for tests, on 127.0.0.1 (ephemeral port), in a child process (the checks it
 * serves read members synchronously, which would block a server in the test's own thread).
 * It serves the PEP 691 JSON and PEP 503 HTML simple API for the files of a folder, with or
 * without range requests, and can lie about a hash, drop a connection mid-file, or lose a file.
 * Also: writers of real wheels (zip) and sdists (tar.gz) from a folder of sources.
 */
import * as crypto from 'crypto';
import { type ChildProcess, fork } from 'child_process';
import * as fs from 'fs';
import * as http from 'http';
import * as path from 'path';
import * as zlib from 'zlib';

export interface ServerOptions {
  /** Range requests answered (206), else every GET gets the whole file (200). */
  ranges: boolean;
  /** Only HTML pages (an index without PEP 691). */
  htmlOnly: boolean;
  /** Files whose listed sha256 is wrong. */
  wrongHash: string[];
  /** Files whose answers stop after this many bytes (the connection is destroyed). */
  dropAfter: Record<string, number>;
  /** Files that answer 404 (the listing still names them). */
  missing: string[];
  /** Sizes left out of the JSON listing. */
  noSizes: boolean;
  /** Files whose answers stop after this many bytes and then hang (the connection stays open). */
  stallAfter: Record<string, number>;
}

export interface ServerStats {
  requests: Array<{ path: string; range?: string; accept?: string; auth?: string }>;
  /** Body bytes sent, in all and per file. */
  bytes: number;
  perFile: Record<string, number>;
}

// ---------------------------------------------------------------------------------------------
// archives

const CRC = (() => {
  const t: number[] = [];
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t.push(c >>> 0);
  }
  return t;
})();

function crc(b: Buffer): number {
  let c = 0xffffffff;
  for (const x of b) c = CRC[(c ^ x) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** A zip file of the given members (deflated unless `stored`). */
export function zipOf(members: Array<{ name: string; data: Buffer; stored?: boolean }>): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name);
    const body = m.stored ? m.data : zlib.deflateRawSync(m.data);
    const c = crc(m.data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(m.stored ? 0 : 8, 8);
    local.writeUInt32LE(c, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(m.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    parts.push(local, name, body);
    const cd = Buffer.alloc(46);
    cd.writeUInt32LE(0x02014b50, 0);
    cd.writeUInt16LE(20, 4);
    cd.writeUInt16LE(20, 6);
    cd.writeUInt16LE(m.stored ? 0 : 8, 10);
    cd.writeUInt32LE(c, 16);
    cd.writeUInt32LE(body.length, 20);
    cd.writeUInt32LE(m.data.length, 24);
    cd.writeUInt16LE(name.length, 28);
    cd.writeUInt32LE(offset, 42);
    central.push(cd, name);
    offset += 30 + name.length + body.length;
  }
  const cdBuf = Buffer.concat(central);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(members.length, 8);
  eocd.writeUInt16LE(members.length, 10);
  eocd.writeUInt32LE(cdBuf.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, cdBuf, eocd]);
}

/** A gzipped ustar archive of the given files. */
export function tarGzOf(files: Array<{ name: string; data: Buffer }>): Buffer {
  const blocks: Buffer[] = [];
  for (const f of files) {
    const h = Buffer.alloc(512);
    h.write(f.name, 0, 100);
    h.write('0000644\0', 100);
    h.write('0000000\0', 108);
    h.write('0000000\0', 116);
    h.write(f.data.length.toString(8).padStart(11, '0') + '\0', 124);
    h.write('00000000000\0', 136);
    h.write('        ', 148);
    h.write('0', 156);
    h.write('ustar\0' + '00', 257);
    let sum = 0;
    for (const b of h) sum += b;
    h.write(sum.toString(8).padStart(6, '0') + '\0 ', 148);
    blocks.push(h, f.data, Buffer.alloc((512 - (f.data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return zlib.gzipSync(Buffer.concat(blocks));
}

/** The files of a folder, relative, sorted. */
export function filesOf(dir: string): Array<{ rel: string; data: Buffer }> {
  const out: Array<{ rel: string; data: Buffer }> = [];
  const walk = (d: string, prefix: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (e.isDirectory()) walk(path.join(d, e.name), prefix + e.name + '/');
      else out.push({ rel: prefix + e.name, data: fs.readFileSync(path.join(d, e.name)) });
    }
  };
  walk(dir, '');
  return out;
}

/** Deterministic incompressible bytes (what a compiled extension looks like to a zip). */
export function noise(size: number, seed: string): Buffer {
  const out = Buffer.alloc(size);
  let block = crypto.createHash('sha256').update(seed).digest();
  for (let i = 0; i < size; i += 32) {
    block.copy(out, i, 0, Math.min(32, size - i));
    block = crypto.createHash('sha256').update(block).digest();
  }
  return out;
}

/** A wheel of a project's sources, with its dist-info and optional padding (a compiled module). */
export function wheelOf(name: string, version: string, srcDir: string, padding = 0): Buffer {
  const members: Array<{ name: string; data: Buffer; stored?: boolean }> = filesOf(srcDir).map((f) => ({ name: f.rel, data: f.data }));
  if (padding > 0) members.push({ name: `${name}/_native.cpython-312-x86_64-linux-gnu.so`, data: noise(padding, name + version), stored: false });
  const info = `${name}-${version}.dist-info`;
  members.push({ name: `${info}/METADATA`, data: Buffer.from(`Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`) });
  members.push({ name: `${info}/WHEEL`, data: Buffer.from('Wheel-Version: 1.0\nRoot-Is-Purelib: false\nTag: cp312-cp312-linux_x86_64\n') });
  members.push({ name: `${info}/RECORD`, data: Buffer.from('') });
  return zipOf(members);
}

/** An sdist: `NAME-VERSION/src/...` plus a PKG-INFO. */
export function sdistOf(name: string, version: string, srcDir: string): Buffer {
  const top = `${name}-${version}`;
  const files = filesOf(srcDir).map((f) => ({ name: `${top}/src/${f.rel}`, data: f.data }));
  files.unshift({ name: `${top}/PKG-INFO`, data: Buffer.from(`Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`) });
  files.push({ name: `${top}/setup.py`, data: Buffer.from('from setuptools import setup\nsetup()\n') });
  return tarGzOf(files);
}

/** A site-packages folder with the sources of a project installed, as pip leaves it. */
export function installInto(sitePackages: string, name: string, version: string, srcDir: string): void {
  for (const f of filesOf(srcDir)) {
    const p = path.join(sitePackages, f.rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, f.data);
  }
  const info = path.join(sitePackages, `${name}-${version}.dist-info`);
  fs.mkdirSync(info, { recursive: true });
  fs.writeFileSync(path.join(info, 'METADATA'), `Metadata-Version: 2.1\nName: ${name}\nVersion: ${version}\n`);
}

// ---------------------------------------------------------------------------------------------
// the controller, in the test

export class IndexServer {
  private child?: ChildProcess;
  private pending = new Map<number, (v: unknown) => void>();
  private seq = 0;
  port = 0;

  constructor(readonly dir: string) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}/simple/`;
  }

  async start(): Promise<void> {
    this.child = fork(__filename, ['--serve', this.dir], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (m: { id: number; value: unknown }) => {
      this.pending.get(m.id)?.(m.value);
      this.pending.delete(m.id);
    });
    this.port = (await this.call('port')) as number;
  }

  private call(op: string, arg?: unknown): Promise<unknown> {
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.child!.send({ id, op, arg });
    });
  }

  /** Sets the server's behaviour (unnamed options go back to their defaults) and clears the stats. */
  async configure(opts: Partial<ServerOptions> = {}): Promise<void> {
    await this.call('configure', opts);
  }

  async stats(): Promise<ServerStats> {
    return (await this.call('stats')) as ServerStats;
  }

  async stop(): Promise<void> {
    this.child?.kill();
    this.child = undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// the server, in the child

const DEFAULTS: ServerOptions = { ranges: true, htmlOnly: false, wrongHash: [], dropAfter: {}, missing: [], noSizes: false, stallAfter: {} };

function serve(dir: string): void {
  let opts: ServerOptions = { ...DEFAULTS };
  let stats: ServerStats = { requests: [], bytes: 0, perFile: {} };
  const send = (res: http.ServerResponse, file: string, body: Buffer, status: number, headers: Record<string, string | number>): void => {
    const drop = opts.dropAfter[file];
    res.writeHead(status, { ...headers, 'Content-Length': body.length });
    const n = drop !== undefined ? Math.min(drop, body.length) : body.length;
    stats.bytes += n;
    stats.perFile[file] = (stats.perFile[file] ?? 0) + n;
    const stall = opts.stallAfter[file];
    if (stall !== undefined && stall < body.length) {
      res.write(body.subarray(0, stall));
      return;
    }
    if (drop !== undefined && drop < body.length) {
      res.write(body.subarray(0, drop), () => res.socket?.destroy());
    } else res.end(body);
  };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    stats.requests.push({ path: url.pathname, range: req.headers.range, accept: req.headers.accept, auth: req.headers.authorization });
    const project = /^\/simple\/([^/]+)\/$/.exec(url.pathname);
    if (project) {
      const files = fs.readdirSync(dir).filter((f) => f.toLowerCase().startsWith(project[1].replace(/-/g, '_') + '-') || f.toLowerCase().startsWith(project[1] + '-'));
      if (files.length === 0) {
        res.writeHead(404).end('not found');
        return;
      }
      const listed = files.sort().map((f) => {
        const data = fs.readFileSync(path.join(dir, f));
        const sha = opts.wrongHash.includes(f) ? crypto.createHash('sha256').update('not it').digest('hex') : crypto.createHash('sha256').update(data).digest('hex');
        return { filename: f, url: `../../files/${f}`, hashes: { sha256: sha }, size: data.length };
      });
      const json = !opts.htmlOnly && /application\/vnd\.pypi\.simple\.v1\+json/.test(req.headers.accept ?? '');
      if (json) {
        const body = JSON.stringify({ meta: { 'api-version': '1.1' }, name: project[1], files: listed.map((f) => (opts.noSizes ? { ...f, size: undefined } : f)) });
        res.writeHead(200, { 'Content-Type': 'application/vnd.pypi.simple.v1+json' }).end(body);
      } else {
        const links = listed.map((f) => `<a href="${f.url}#sha256=${f.hashes.sha256}">${f.filename}</a><br/>`).join('\n');
        res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<!DOCTYPE html><html><body><h1>Links for ${project[1]}</h1>\n${links}\n</body></html>`);
      }
      return;
    }
    const file = /^\/files\/([^/]+)$/.exec(url.pathname);
    if (!file || !fs.existsSync(path.join(dir, file[1])) || opts.missing.includes(file[1])) {
      res.writeHead(404).end('not found');
      return;
    }
    const data = fs.readFileSync(path.join(dir, file[1]));
    const range = opts.ranges ? /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '') : null;
    if (!range) {
      send(res, file[1], data, 200, { 'Content-Type': 'application/octet-stream', ...(opts.ranges ? { 'Accept-Ranges': 'bytes' } : {}) });
      return;
    }
    let start: number;
    let end: number;
    if (range[1] === '') {
      start = Math.max(0, data.length - Number(range[2]));
      end = data.length - 1;
    } else {
      start = Number(range[1]);
      end = range[2] === '' ? data.length - 1 : Math.min(Number(range[2]), data.length - 1);
    }
    if (start > end || start >= data.length) {
      res.writeHead(416, { 'Content-Range': `bytes */${data.length}` }).end();
      return;
    }
    send(res, file[1], data.subarray(start, end + 1), 206, { 'Content-Range': `bytes ${start}-${end}/${data.length}`, 'Accept-Ranges': 'bytes' });
  });
  server.listen(0, '127.0.0.1');
  process.on('message', (m: { id: number; op: string; arg?: Partial<ServerOptions> }) => {
    let value: unknown;
    if (m.op === 'port') value = (server.address() as { port: number }).port;
    else if (m.op === 'configure') {
      opts = { ...DEFAULTS, ...(m.arg ?? {}) };
      stats = { requests: [], bytes: 0, perFile: {} };
    } else if (m.op === 'stats') value = stats;
    const reply = (): void => void process.send!({ id: m.id, value });
    if (m.op === 'port' && !server.listening) {
      server.once('listening', () => {
        value = (server.address() as { port: number }).port;
        reply();
      });
    } else reply();
  });
  process.on('disconnect', () => process.exit(0));
}

if (process.argv[2] === '--serve' && process.send) serve(process.argv[3]);
