/**
 * Byte sources over HTTP: range reads of a remote file (asynchronous, for opening a wheel, and
 * synchronous, for the members a check asks for while it runs), and a whole download streamed to
 * disk and checked against its sha256. A synchronous read is done by a worker thread that this
 * thread waits for; nothing is held in memory beyond the bytes asked for.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import { Worker } from 'worker_threads';
import { authorizationFor, httpGet, type HttpResponse, shownUrl, transferStats } from './packageIndex';
import { TargetError } from './sourceRoot';

/** Reads a response body into memory, at most `limit` bytes. */
export function readAll(res: HttpResponse, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    res.body.on('data', (c: Buffer) => {
      size += c.length;
      transferStats.bytes += c.length;
      if (size > limit) res.body.destroy(new Error(`more than the ${limit} bytes asked for`));
      else chunks.push(c);
    });
    res.body.on('end', () => {
      done = true;
      resolve(Buffer.concat(chunks));
    });
    const cut = (why: string): void => {
      if (!done) reject(new TargetError(`the answer of ${shownUrl(res.url)} was cut: ${why}`));
    };
    res.body.on('error', (e) => cut(e.message));
    res.body.on('aborted', () => cut('connection closed'));
    res.body.on('close', () => cut('connection closed'));
  });
}

export interface RangeAnswer {
  bytes: Buffer;
  /** Where they start in the file. */
  start: number;
  /** The file's size. */
  total: number;
}

/**
 * Reads the last `suffix` bytes of a remote file. When the server does not do range requests it
 * answers with the whole file: that answer is returned unread, to be downloaded.
 */
export async function rangeTail(url: string, suffix: number, signal?: AbortSignal): Promise<RangeAnswer | HttpResponse> {
  const res = await httpGet(url, { Range: `bytes=-${suffix}`, 'Accept-Encoding': 'identity' }, signal);
  if (res.status === 200) return res;
  if (res.status !== 206) {
    res.body.resume();
    throw new TargetError(`${shownUrl(url)} answered HTTP ${res.status}`);
  }
  const range = /bytes\s+(\d+)-(\d+)\/(\d+)/.exec(String(res.headers['content-range'] ?? ''));
  if (!range) {
    res.body.destroy();
    throw new TargetError(`${shownUrl(url)} answered a range request without a Content-Range`);
  }
  const bytes = await readAll(res, suffix);
  const start = Number(range[1]);
  if (bytes.length !== Number(range[2]) - start + 1) throw new TargetError(`the answer of ${shownUrl(url)} was cut (${bytes.length} of ${Number(range[2]) - start + 1} bytes)`);
  return { bytes, start, total: Number(range[3]) };
}

/** Reads bytes `start..end` (inclusive) of a remote file. */
export async function rangeRead(url: string, start: number, end: number, signal?: AbortSignal): Promise<Buffer> {
  const res = await httpGet(url, { Range: `bytes=${start}-${end}`, 'Accept-Encoding': 'identity' }, signal);
  if (res.status !== 206) {
    res.body.destroy();
    throw new TargetError(`${shownUrl(url)} answered HTTP ${res.status} to a range request`);
  }
  const bytes = await readAll(res, end - start + 1);
  if (bytes.length !== end - start + 1) throw new TargetError(`the answer of ${shownUrl(url)} was cut (${bytes.length} of ${end - start + 1} bytes)`);
  return bytes;
}

/**
 * Downloads a whole file to `dest` (streamed, never held in memory), checking its sha256 when one
 * is given. The file appears at `dest` only when complete and checked (written beside it, then
 * renamed); nothing is left behind on failure.
 */
export async function downloadTo(url: string, dest: string, sha256: string | undefined, onBytes?: (done: number, total: number | undefined) => void, signal?: AbortSignal, answer?: HttpResponse): Promise<void> {
  const res = answer ?? (await httpGet(url, { 'Accept-Encoding': 'identity' }, signal));
  if (res.status !== 200) {
    res.body.resume();
    throw new TargetError(`${shownUrl(url)} answered HTTP ${res.status}`);
  }
  const total = res.headers['content-length'] !== undefined ? Number(res.headers['content-length']) : undefined;
  const tmp = `${dest}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.part`;
  const hash = crypto.createHash('sha256');
  let done = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const out = fs.createWriteStream(tmp);
      let finished = false;
      const fail = (why: string): void => {
        if (finished) return;
        finished = true;
        res.body.destroy();
        const error = new TargetError(signal?.aborted ? `the download of ${shownUrl(url)} was cancelled` : `the download of ${shownUrl(url)} was cut: ${why}`);
        // the file is opened asynchronously: it is removed once the stream has closed, not before
        if (out.closed) reject(error);
        else {
          out.once('close', () => reject(error));
          out.destroy();
        }
      };
      res.body.on('data', (c: Buffer) => {
        transferStats.bytes += c.length;
        hash.update(c);
        done += c.length;
        onBytes?.(done, total);
      });
      res.body.on('error', (e) => fail(e.message));
      res.body.on('aborted', () => fail('connection closed'));
      signal?.addEventListener('abort', () => fail('cancelled'), { once: true });
      res.body.on('end', () => {
        if (total !== undefined && done !== total) fail(`${done} of ${total} bytes`);
      });
      out.on('error', (e) => fail(`cannot write ${tmp}: ${e.message}`));
      out.on('finish', () => {
        if (finished) return;
        finished = true;
        resolve();
      });
      res.body.pipe(out);
    });
    const got = hash.digest('hex');
    if (sha256 && got !== sha256.toLowerCase()) throw new TargetError(`hash mismatch for ${shownUrl(url)}: the index says sha256 ${sha256}, the file has ${got}`);
    fs.renameSync(tmp, dest);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

/** The worker's code: one range request at a time, its bytes written to a file. */
const WORKER = `
const { parentPort, workerData } = require('worker_threads');
const http = require('http'), https = require('https'), fs = require('fs');
const state = new Int32Array(workerData.state);
const message = new Uint8Array(workerData.message);
function answer(code, text) {
  const b = Buffer.from(String(text || '')).subarray(0, message.length - 4);
  new DataView(message.buffer).setUint32(0, b.length, true);
  message.set(b, 4);
  Atomics.store(state, 1, code);
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
}
function get(url, req, redirects) {
  const u = new URL(url);
  const lib = u.protocol === 'https:' ? https : http;
  const headers = { 'User-Agent': 'apidrift', 'Accept-Encoding': 'identity', Range: 'bytes=' + req.start + '-' + req.end };
  if (req.auth && u.host === req.host) headers.Authorization = req.auth;
  const r = lib.get(u, { headers, timeout: 30000 }, (res) => {
    if (res.statusCode >= 300 && res.statusCode < 400 && res.headers.location && redirects > 0) {
      res.resume();
      return get(new URL(res.headers.location, u).toString(), req, redirects - 1);
    }
    if (res.statusCode !== 206) {
      res.destroy();
      return answer(2, 'HTTP ' + res.statusCode + (res.statusCode === 200 ? ' (no range support)' : ''));
    }
    const want = req.end - req.start + 1;
    const out = fs.openSync(req.out, 'w');
    let got = 0, over = false;
    res.on('data', (c) => {
      if (over) return;
      got += c.length;
      if (got > want) { over = true; res.destroy(); fs.closeSync(out); return answer(2, 'more bytes than asked for'); }
      fs.writeSync(out, c);
    });
    res.on('end', () => {
      if (over) return;
      over = true;
      fs.closeSync(out);
      if (got !== want) answer(2, 'connection closed after ' + got + ' of ' + want + ' bytes');
      else answer(0, String(got));
    });
    const cut = (why) => { if (over) return; over = true; try { fs.closeSync(out); } catch {} answer(2, why); };
    res.on('error', (e) => cut('connection dropped: ' + e.message));
    res.on('aborted', () => cut('connection dropped'));
    res.on('close', () => cut('connection dropped after ' + got + ' of ' + want + ' bytes'));
  });
  r.on('timeout', () => r.destroy(new Error('no answer within 30 s')));
  r.on('error', (e) => answer(2, (e && (e.code || e.message)) || String(e)));
}
parentPort.on('message', (req) => { try { get(req.url, req, 5); } catch (e) { answer(2, e.message); } });
`;

/**
 * Range reads that block the calling thread until they are done: a check reads target files
 * synchronously, and a member of a remote wheel is fetched the first time one is asked for.
 */
export class SyncRangeReader {
  private worker?: Worker;
  private idle?: NodeJS.Timeout;
  private readonly state = new SharedArrayBuffer(8);
  private readonly message = new SharedArrayBuffer(4096);

  /** Writes bytes `start..end` (inclusive) of `url` to the file `out`; throws a TargetError on failure. */
  read(url: string, start: number, end: number, out: string): void {
    if (!this.worker) {
      this.worker = new Worker(WORKER, { eval: true, workerData: { state: this.state, message: this.message } });
      this.worker.unref();
    }
    const state = new Int32Array(this.state);
    Atomics.store(state, 0, 0);
    const u = new URL(url);
    const auth = authorizationFor(u);
    u.username = '';
    u.password = '';
    transferStats.requests++;
    this.worker.postMessage({ url: u.toString(), host: u.host, auth, start, end, out });
    // the worker answers within its own 30 s timeout; this waits a little longer than that
    const r = Atomics.wait(state, 0, 0, 120_000);
    if (r === 'timed-out') throw new TargetError(`no answer from ${shownUrl(url)} within 120 s`);
    const view = new Uint8Array(this.message);
    const len = new DataView(this.message).getUint32(0, true);
    const text = Buffer.from(view.subarray(4, 4 + len)).toString();
    if (Atomics.load(state, 1) !== 0) throw new TargetError(`cannot read bytes ${start}-${end} of ${shownUrl(url)}: ${text}`);
    transferStats.bytes += end - start + 1;
    // the worker goes when unused for a while (a host that re-opens targets does not collect them)
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.close(), 15_000);
    this.idle.unref();
  }

  close(): void {
    clearTimeout(this.idle);
    void this.worker?.terminate();
    this.worker = undefined;
  }
}
