/**
 * Targets named by version, fetched from a package index that the test runs on 127.0.0.1:
 * PEP 691 and PEP 503 pages, wheels read by range requests or whole, sdists, the cache, and
 * every failure the issue names (no network, unknown version, wrong hash, cut connection, no
 * range support, a missing member). Nothing here talks to anything but the loopback address.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Engine, TargetError } from '../../server/src/engine';
import { chooseVersion, parseRequirement } from '../../server/src/engine/sources/requirement';
import { indexUrlFrom, parseHtmlPage } from '../../server/src/engine/sources/packageIndex';
import { openRequirement } from '../../server/src/engine/sources/wheelFetch';
import { RemoteWheelRoot } from '../../server/src/engine/sources/remoteWheel';
import { FIXTURES } from '../helpers';
import { IndexServer, installInto, sdistOf, wheelOf } from './indexServer';

const V1 = path.join(FIXTURES, 'drift', 'v1');
const V2 = path.join(FIXTURES, 'drift', 'v2');
const BIG = 'drift-2.0-cp312-cp312-manylinux_2_17_x86_64.whl';
/** Code that needs two modules of the library. */
const USES_ENGINE = 'from drift.engine import Engine\nfrom drift.utils.math_utils import cdiv\nEngine("model")\ncdiv(1)\n';

let tmp: string;
let files: string;
let server: IndexServer;
let caches = 0;

/** Rejects with a TargetError whose one-line message matches. */
async function failsWith(p: Promise<unknown>, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: Error) => {
    assert.ok(e instanceof TargetError, String(e));
    assert.match(e.message, re);
    assert.ok(!e.message.includes('\n'));
    return true;
  });
}

function freshCache(): string {
  return path.join(tmp, `cache${++caches}`);
}

/** Every file under a folder, relative. */
function listTree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, p: string): void => {
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) e.isDirectory() ? walk(path.join(d, e.name), p + e.name + '/') : out.push(p + e.name);
  };
  walk(dir, '');
  return out.sort();
}

async function openAndCheck(spec: string, cacheDir: string, code = USES_ENGINE, extra: Record<string, unknown> = {}): Promise<{ engine: Engine; found: string[]; errors: string[] }> {
  const engine = await Engine.open({ targets: [spec], fetch: { cacheDir, indexUrl: server.url, ...extra } });
  const errors: string[] = [];
  engine.program.onError = (name, e) => errors.push(`${name}: ${(e as Error).message}`);
  const r = engine.check(code, 'user.py');
  return { engine, found: r.findings.map((f) => `${f.code}:${f.param ?? ''}`).sort(), errors };
}

before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-fetch-'));
  // the machine's own uv cache is not looked at
  process.env.UV_CACHE_DIR = path.join(tmp, 'no-uv-cache');
  files = path.join(tmp, 'files');
  fs.mkdirSync(files);
  // 2.0: one large wheel (a compiled module pads it, as in real wheels) and an sdist
  fs.writeFileSync(path.join(files, BIG), wheelOf('drift', '2.0', V2, 600_000));
  fs.writeFileSync(path.join(files, 'drift-2.0.tar.gz'), sdistOf('drift', '2.0', V2));
  // 1.0: two wheels of different sizes; the smaller is the one to read
  fs.writeFileSync(path.join(files, 'drift-1.0-cp312-cp312-manylinux_2_17_x86_64.whl'), wheelOf('drift', '1.0', V1, 300_000));
  fs.writeFileSync(path.join(files, 'drift-1.0-cp312-cp312-macosx_11_0_arm64.whl'), wheelOf('drift', '1.0', V1, 200_000));
  // a pre-release
  fs.writeFileSync(path.join(files, 'drift-3.0rc1-py3-none-any.whl'), wheelOf('drift', '3.0rc1', V2));
  // a project with only an sdist (src/ layout)
  fs.writeFileSync(path.join(files, 'driftsrc-1.5.tar.gz'), sdistOf('driftsrc', '1.5', V2));
  server = new IndexServer(files);
  await server.start();
});

after(async () => {
  await server.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

beforeEach(async () => server.configure());

describe('requirements and versions', () => {
  it('parses pins and ranges, and chooses the newest match without pre-releases unless asked', () => {
    const pin = parseRequirement('vllm==0.16.0');
    assert.equal(pin.project, 'vllm');
    assert.equal(pin.pinned, '0.16.0');
    const range = parseRequirement('Some_Lib >= 0.12, <0.17');
    assert.equal(range.project, 'some-lib');
    assert.equal(range.pinned, undefined);
    const versions = ['0.11.0', '0.12.0', '0.16.0', '0.16.1rc1', '0.17.0'];
    assert.equal(chooseVersion(versions, range), '0.16.0');
    assert.equal(chooseVersion(versions, range, true), '0.16.1rc1');
    assert.equal(chooseVersion(versions, parseRequirement('x==0.16.1rc1')), '0.16.1rc1');
    assert.equal(chooseVersion(versions, parseRequirement('x==0.16')), '0.16.0');
    assert.throws(() => parseRequirement('x==not a version'), /not a valid PEP 440/);
  });

  it('takes the index from the option, then PIP_INDEX_URL, then UV_INDEX_URL', () => {
    assert.equal(indexUrlFrom('http://a/simple', { PIP_INDEX_URL: 'http://b/', UV_INDEX_URL: 'http://c/' }), 'http://a/simple/');
    assert.equal(indexUrlFrom(undefined, { PIP_INDEX_URL: 'http://b/', UV_INDEX_URL: 'http://c/' }), 'http://b/');
    assert.equal(indexUrlFrom(undefined, { UV_INDEX_URL: 'http://c/' }), 'http://c/');
  });

  it('reads PEP 503 links with their hashes and yanked marks', () => {
    const html = '<a href="../../f/drift-1.0-py3-none-any.whl#sha256=' + 'a'.repeat(64) + '" data-yanked="">drift-1.0-py3-none-any.whl</a><a href="/x/drift-1.1.tar.gz">drift-1.1.tar.gz</a><a href="/x/other-1.0.tar.gz">o</a>';
    const got = parseHtmlPage(html, new URL('http://h/simple/drift/'), 'drift');
    assert.deepEqual(got.map((f) => [f.filename, f.version, f.kind, f.yanked, f.sha256?.slice(0, 3)]), [
      ['drift-1.0-py3-none-any.whl', '1.0', 'wheel', true, 'aaa'],
      ['drift-1.1.tar.gz', '1.1', 'sdist', false, undefined],
    ]);
  });
});

describe('fetching a version from the index', () => {
  it('reads only the central directory and the members a check needs, by range requests; a second run makes no request', async () => {
    const cache = freshCache();
    const { engine, found, errors } = await openAndCheck('drift==2.0', cache);
    assert.deepEqual(errors, []);
    assert.deepEqual(found, ['missing-argument:b', 'missing-argument:block_size']);
    assert.ok(engine.target.roots[0] instanceof RemoteWheelRoot);
    const stats = await server.stats();
    assert.match(stats.requests[0].accept ?? '', /application\/vnd\.pypi\.simple\.v1\+json/);
    const size = fs.statSync(path.join(files, BIG)).size;
    const sent = stats.perFile[BIG];
    // the central directory (read from the tail) and two modules: a small fraction of the wheel
    assert.ok(sent < size / 20, `${sent} of ${size} bytes`);
    assert.ok(stats.requests.filter((r) => r.path.endsWith(BIG)).every((r) => r.range));
    const kept = listTree(cache).filter((f) => f.includes('/files/'));
    assert.deepEqual(kept.map((f) => f.slice(f.indexOf('/files/') + 7)), ['drift/engine.py', 'drift/utils/math_utils.py']);

    await server.configure();
    const again = await openAndCheck('drift==2.0', cache);
    assert.deepEqual(again.found, ['missing-argument:b', 'missing-argument:block_size']);
    assert.deepEqual((await server.stats()).requests, []);
  });

  it('chooses the newest release in a range (a pre-release only when asked), and the smallest wheel', async () => {
    const cache = freshCache();
    const root = await openRequirement('drift>=1,<4', { cacheDir: cache, indexUrl: server.url });
    assert.match(root.label, /^drift==2\.0 /);
    const pre = await openRequirement('drift>=1,<4', { cacheDir: cache, indexUrl: server.url, pre: true });
    assert.match(pre.label, /^drift==3\.0rc1 /);
    const one = await openRequirement('drift==1.0', { cacheDir: cache, indexUrl: server.url });
    assert.match(one.label, /macosx_11_0_arm64\.whl/);
    assert.equal((await server.stats()).perFile['drift-1.0-cp312-cp312-manylinux_2_17_x86_64.whl'], undefined);
  });

  it('works with an index that has only PEP 503 HTML pages', async () => {
    await server.configure({ htmlOnly: true, noSizes: true });
    const { found, errors } = await openAndCheck('drift==2.0', freshCache());
    assert.deepEqual(errors, []);
    assert.deepEqual(found, ['missing-argument:b', 'missing-argument:block_size']);
  });

  it('downloads the whole wheel, checked against its sha256, from a server without range support', async () => {
    await server.configure({ ranges: false });
    const cache = freshCache();
    const { found, engine } = await openAndCheck('drift==2.0', cache);
    assert.deepEqual(found, ['missing-argument:b', 'missing-argument:block_size']);
    assert.ok(!(engine.target.roots[0] instanceof RemoteWheelRoot));
    const stats = await server.stats();
    const size = fs.statSync(path.join(files, BIG)).size;
    // the whole file once: the server's answer to the first range request is the download
    assert.equal(stats.perFile[BIG], size);
    assert.equal(stats.requests.filter((r) => r.path.endsWith(BIG)).length, 1);
    assert.ok(listTree(cache).some((f) => f.endsWith('/' + BIG)));
    assert.ok(!listTree(cache).some((f) => f.endsWith('.part')));
  });

  it('--require-hashes downloads whole files only', async () => {
    const cache = freshCache();
    const { found } = await openAndCheck('drift==2.0', cache, USES_ENGINE, { requireHashes: true });
    assert.deepEqual(found, ['missing-argument:b', 'missing-argument:block_size']);
    const stats = await server.stats();
    assert.ok(stats.requests.filter((r) => r.path.endsWith(BIG)).every((r) => !r.range));
  });

  it('refuses a file whose hash does not match and leaves nothing in the cache', async () => {
    for (const opts of [{ ranges: false }, { ranges: true }]) {
      await server.configure({ ...opts, wrongHash: [BIG] });
      const cache = freshCache();
      const requireHashes = opts.ranges;
      await failsWith(openRequirement('drift==2.0', { cacheDir: cache, indexUrl: server.url, requireHashes }), /^hash mismatch for http:\/\/127\.0\.0\.1:\d+\/files\/drift-2\.0-cp312[^ ]*: the index says sha256 [0-9a-f]{64}, the file has [0-9a-f]{64}$/);
      assert.deepEqual(listTree(cache).filter((f) => !f.startsWith('listings/')), []);
    }
  });

  it('reports a download cut mid-file, leaves nothing half-written, and succeeds once the server is well', async () => {
    await server.configure({ ranges: false, dropAfter: { [BIG]: 100_000 } });
    const cache = freshCache();
    await failsWith(openRequirement('drift==2.0', { cacheDir: cache, indexUrl: server.url }), /the download of http:\/\/127\.0\.0\.1:\d+\/files\/drift-2\.0[^ ]* was cut/);
    assert.deepEqual(listTree(cache).filter((f) => !f.startsWith('listings/')), []);
    await server.configure({ ranges: false });
    const { found } = await openAndCheck('drift==2.0', cache);
    assert.deepEqual(found, ['missing-argument:b', 'missing-argument:block_size']);
  });

  it('reports a range read cut mid-member or a member gone, and keeps no part of it', async () => {
    for (const fault of [{ dropAfter: { [BIG]: 40 } }, { missing: [BIG] }]) {
      const cache = freshCache();
      const engine = await Engine.open({ targets: ['drift==2.0'], fetch: { cacheDir: cache, indexUrl: server.url } });
      await server.configure(fault);
      const errors: string[] = [];
      engine.program.onError = (name, e) => errors.push(`${name}: ${(e as Error).message}`);
      engine.check(USES_ENGINE, 'user.py');
      assert.equal(errors.length > 0, true);
      assert.match(errors[0], fault.missing ? /cannot read drift-2\.0-.*\.whl from http:\/\/127\.0\.0\.1:\d+\/.*HTTP 404/ : /cannot read drift-2\.0-.*\.whl from http:\/\/127\.0\.0\.1:\d+\/.*(connection|cut|dropped)/);
      assert.deepEqual(listTree(cache).filter((f) => f.includes('/files/') || f.endsWith('.part')), []);
      await server.configure();
    }
  });

  it('reads an sdist when there is no wheel (src/ layout)', async () => {
    const { found, errors, engine } = await openAndCheck('driftsrc==1.5', freshCache());
    assert.deepEqual(errors, []);
    assert.deepEqual(found, ['missing-argument:b', 'missing-argument:block_size']);
    assert.match(engine.target.roots[0].displayPath('drift/engine.py'), /tree[\\/]driftsrc-1\.5[\\/]src[\\/]drift[\\/]engine\.py$/);
  });

  it('says clearly what is wrong: an unknown version, an unknown project, no network', async () => {
    await failsWith(openRequirement('drift==9.9', { cacheDir: freshCache(), indexUrl: server.url }), /^no version of drift matches ==9\.9 on http:\/\/127\.0\.0\.1:\d+\/simple\/ \(it has 3\.0rc1, 2\.0, 1\.0\)$/);
    await failsWith(openRequirement('nosuch==1.0', { cacheDir: freshCache(), indexUrl: server.url }), /^no project nosuch on the index http:\/\/127\.0\.0\.1/);
    // a port nothing listens on
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    await failsWith(openRequirement('drift==2.0', { cacheDir: freshCache(), indexUrl: `http://127.0.0.1:${port}/simple/` }), new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${port}/simple/drift/: ECONNREFUSED$`));
  });

  it('uses an environment that has the version installed, with no request', async () => {
    const sp = path.join(tmp, 'env', 'lib', 'python3.12', 'site-packages');
    installInto(sp, 'drift', '1.0', V1);
    const root = await openRequirement('drift==1.0', { cacheDir: freshCache(), indexUrl: server.url, environments: [sp] });
    assert.equal(root.displayPath('drift/engine.py'), path.join(sp, 'drift', 'engine.py'));
    assert.deepEqual((await server.stats()).requests, []);
  });

  it("uses a wheel that uv already unpacked in its cache, with no request", async () => {
    const uv = path.join(tmp, 'uv-cache');
    installInto(path.join(uv, 'archive-v0', 'Xk3abc'), 'drift', '2.0', V2);
    installInto(path.join(uv, 'archive-v0', 'Yz9def'), 'drift', '1.0', V1);
    const cache = freshCache();
    const root = await openRequirement('drift==2.0', { cacheDir: cache, indexUrl: server.url, env: { UV_CACHE_DIR: uv } });
    assert.equal(root.label, "drift==2.0 (uv's cache)");
    assert.equal(root.displayPath('drift/engine.py'), path.join(uv, 'archive-v0', 'Xk3abc', 'drift', 'engine.py'));
    assert.deepEqual((await server.stats()).requests, []);
    // a range is resolved by the index first, then found in uv's cache
    const newest = await openRequirement('drift>=1,<3', { cacheDir: cache, indexUrl: server.url, env: { UV_CACHE_DIR: uv } });
    assert.equal(newest.label, "drift==2.0 (uv's cache)");
    assert.deepEqual((await server.stats()).requests.map((r) => r.path), ['/simple/drift/']);
  });

  it('sends credentials from the netrc file', async () => {
    const netrc = path.join(tmp, 'netrc');
    fs.writeFileSync(netrc, 'machine 127.0.0.1\n  login alice\n  password s3cret\n');
    const saved = process.env.NETRC;
    process.env.NETRC = netrc;
    try {
      await openAndCheck('drift==2.0', freshCache());
    } finally {
      if (saved === undefined) delete process.env.NETRC;
      else process.env.NETRC = saved;
    }
    const stats = await server.stats();
    const basic = 'Basic ' + Buffer.from('alice:s3cret').toString('base64');
    assert.ok(stats.requests.length > 2);
    assert.ok(stats.requests.every((r) => r.auth === basic));
  });
});
