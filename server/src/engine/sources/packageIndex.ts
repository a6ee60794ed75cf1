/**
 * A package index's simple API: the PEP 691 JSON form, PEP 503 HTML as a fallback. Where it is
 * comes from `--index-url`, then `PIP_INDEX_URL`, then `UV_INDEX_URL`; credentials from the URL
 * itself or from `~/.netrc`.
 */
import * as fs from 'fs';
import * as http from 'http';
import * as https from 'https';
import * as os from 'os';
import * as path from 'path';
import { normalizeProject } from './requirement';
import { TargetError } from './sourceRoot';

export const DEFAULT_INDEX_URL = 'https://pypi.org/simple/';

/** The index to use: the option, then `PIP_INDEX_URL`, then `UV_INDEX_URL`, then the public index. */
export function indexUrlFrom(option: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const url = option || env.PIP_INDEX_URL || env.UV_INDEX_URL || DEFAULT_INDEX_URL;
  return url.endsWith('/') ? url : url + '/';
}

/** One distribution file of a project, as the index lists it. */
export interface IndexFile {
  filename: string;
  url: string;
  /** Hex sha256 when the index gives it. */
  sha256?: string;
  size?: number;
  version: string;
  kind: 'wheel' | 'sdist';
  yanked: boolean;
}

/** Login and password for a host from a netrc file (`machine`, `login`, `password`; `default`). */
export function netrcCredentials(host: string, file = process.env.NETRC || path.join(os.homedir(), '.netrc')): { login: string; password: string } | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const tokens = text.replace(/#.*$/gm, '').split(/\s+/).filter(Boolean);
  let current: string | null | undefined; // undefined: none yet; null: default
  const found = new Map<string | null, { login: string; password: string }>();
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === 'machine') current = tokens[++i];
    else if (t === 'default') current = null;
    else if ((t === 'login' || t === 'password' || t === 'account') && current !== undefined) {
      const entry = found.get(current) ?? { login: '', password: '' };
      if (t === 'login') entry.login = tokens[++i] ?? '';
      else if (t === 'password') entry.password = tokens[++i] ?? '';
      else i++;
      found.set(current, entry);
    }
  }
  return found.get(host) ?? found.get(null);
}

/** The Authorization header for a URL: its own user info, else ~/.netrc for its host. */
export function authorizationFor(url: URL): string | undefined {
  if (url.username || url.password) return 'Basic ' + Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64');
  const cred = netrcCredentials(url.hostname);
  return cred ? 'Basic ' + Buffer.from(`${cred.login}:${cred.password}`).toString('base64') : undefined;
}

/** A URL as shown to users: without its credentials. */
export function shownUrl(url: string | URL): string {
  const u = new URL(url.toString());
  u.username = '';
  u.password = '';
  return u.toString();
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The URL finally answered (after redirects). */
  url: URL;
  body: http.IncomingMessage;
}

/** Counts what went over the network, for tests and progress. */
export const transferStats = { requests: 0, bytes: 0 };

/** A GET request, following up to 5 redirects (credentials are only sent to the original host). */
export function httpGet(url: string | URL, headers: Record<string, string> = {}, signal?: AbortSignal): Promise<HttpResponse> {
  const first = new URL(url.toString());
  const go = (u: URL, left: number): Promise<HttpResponse> =>
    new Promise((resolve, reject) => {
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return reject(new TargetError(`unsupported URL scheme: ${shownUrl(u)}`));
      // credentials of the URL given go to its host only (not to where it redirects)
      const auth = u.host === first.host ? authorizationFor(u.username ? u : withUserInfo(u, first)) : authorizationFor(withUserInfo(u, new URL('http://x')));
      const clean = new URL(u.toString());
      clean.username = '';
      clean.password = '';
      const lib = u.protocol === 'https:' ? https : http;
      transferStats.requests++;
      const req = lib.get(clean, { headers: { 'User-Agent': 'apidrift', ...headers, ...(auth ? { Authorization: auth } : {}) }, signal, timeout: 30000 }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location && left > 0) {
          res.resume();
          return resolve(go(new URL(res.headers.location, u), left - 1));
        }
        resolve({ status, headers: res.headers, url: u, body: res });
      });
      req.on('timeout', () => req.destroy(new Error('no answer within 30 s')));
      req.on('error', (e) => reject(new TargetError(`cannot reach ${shownUrl(u)}: ${(e as NodeJS.ErrnoException).code ?? e.message}`)));
    });
  return go(first, 5);
}

function withUserInfo(u: URL, from: URL): URL {
  const out = new URL(u.toString());
  out.username = from.username;
  out.password = from.password;
  return out;
}

/** Reads a whole (small) response body as text, at most `limit` bytes. */
export function readBody(res: HttpResponse, limit = 64 << 20): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.body.on('data', (c: Buffer) => {
      size += c.length;
      transferStats.bytes += c.length;
      if (size > limit) res.body.destroy(new Error(`answer larger than ${limit} bytes`));
      else chunks.push(c);
    });
    res.body.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    res.body.on('error', (e) => reject(new TargetError(`the answer of ${shownUrl(res.url)} was cut: ${e.message}`)));
    res.body.on('aborted', () => reject(new TargetError(`the answer of ${shownUrl(res.url)} was cut`)));
  });
}

/** The version in a wheel's or an sdist's file name, or undefined for other files. */
export function fileVersion(filename: string, project: string): { version: string; kind: 'wheel' | 'sdist' } | undefined {
  const wheel = /^([^-]+)-([^-]+)-(?:\d[^-]*-)?[^-]+-[^-]+-[^-]+\.whl$/.exec(filename);
  if (wheel) return normalizeProject(wheel[1]) === project ? { version: wheel[2], kind: 'wheel' } : undefined;
  const sdist = /^(.+)-([^-]+)\.(tar\.gz|zip)$/.exec(filename);
  if (sdist && sdist[3] === 'tar.gz' && normalizeProject(sdist[1]) === project) return { version: sdist[2], kind: 'sdist' };
  return undefined;
}

function sha256Of(hashes: Record<string, string> | undefined, url: URL): string | undefined {
  if (hashes?.sha256) return hashes.sha256.toLowerCase();
  const m = /(?:^|&)sha256=([0-9a-fA-F]{64})/.exec(url.hash.slice(1));
  return m ? m[1].toLowerCase() : undefined;
}

function decodeEntities(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" })[e] ?? _m);
}

/** The files of a project from a PEP 691 JSON page. */
export function parseJsonPage(text: string, base: URL, project: string): IndexFile[] {
  const data = JSON.parse(text) as { files?: Array<{ filename: string; url: string; hashes?: Record<string, string>; size?: number; yanked?: boolean | string }> };
  const out: IndexFile[] = [];
  for (const f of data.files ?? []) {
    const v = fileVersion(f.filename, project);
    if (!v) continue;
    const url = new URL(f.url, base);
    out.push({ filename: f.filename, url: url.toString(), sha256: sha256Of(f.hashes, url), size: typeof f.size === 'number' ? f.size : undefined, ...v, yanked: !!f.yanked });
  }
  return out;
}

/** The files of a project from a PEP 503 HTML page. */
export function parseHtmlPage(text: string, base: URL, project: string): IndexFile[] {
  const out: IndexFile[] = [];
  for (const m of text.matchAll(/<a\s([^>]*)>([^<]*)<\/a>/gi)) {
    const attrs = m[1];
    const href = /href\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(attrs);
    if (!href) continue;
    const url = new URL(decodeEntities(href[1] ?? href[2]), base);
    const filename = decodeURIComponent(url.pathname.split('/').pop() ?? '') || decodeEntities(m[2].trim());
    const v = fileVersion(filename, project);
    if (!v) continue;
    out.push({ filename, url: url.toString(), sha256: sha256Of(undefined, url), ...v, yanked: /data-yanked/i.test(attrs) });
  }
  return out;
}

/** Lists a project's files on the index (JSON asked first; HTML accepted). */
export async function listProjectFiles(indexUrl: string, project: string, signal?: AbortSignal): Promise<IndexFile[]> {
  const url = new URL(`${project}/`, indexUrl);
  const res = await httpGet(url, { Accept: 'application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1' }, signal);
  if (res.status === 404) {
    res.body.resume();
    throw new TargetError(`no project ${project} on the index ${shownUrl(indexUrl)}`);
  }
  if (res.status === 401 || res.status === 403) {
    res.body.resume();
    throw new TargetError(`the index ${shownUrl(indexUrl)} refused access (HTTP ${res.status}): credentials go in the index URL or ~/.netrc`);
  }
  if (res.status !== 200) {
    res.body.resume();
    throw new TargetError(`the index ${shownUrl(url)} answered HTTP ${res.status}`);
  }
  const text = await readBody(res);
  const type = String(res.headers['content-type'] ?? '');
  try {
    if (/json/i.test(type)) return parseJsonPage(text, res.url, project);
    return parseHtmlPage(text, res.url, project);
  } catch (e) {
    throw new TargetError(`the index page ${shownUrl(url)} cannot be read: ${(e as Error).message}`);
  }
}
