/**
 * The archive reader against random damage: truncations, corrupted bytes and headers that lie
 * (sizes, CRCs, counts, offsets). For every archive: never a crash (only TargetError), never an
 * inflation beyond what the member declares (nor beyond the per-member limit), and each module
 * read is either exactly the right text or a TargetError. Seeds are printed so that a failure
 * reproduces.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import type * as zlib from 'zlib';
import { after, describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { TargetError } from '../../server/src/engine/sources/sourceRoot';
import { MAX_MEMBER_BYTES, ZipRoot } from '../../server/src/engine/sources/zipRoot';
import { prng, removeTree, tempDir } from './util';
import { makeZip, type ZipMember } from './zipWriter';

// the module object itself (its functions are what the reader calls through its import)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const zlibModule = require('zlib') as typeof zlib;

const MODULES: Record<string, string> = {
  'lib/__init__.py': 'from .core import run\n\ndef f(a, b):\n    return a\n',
  'lib/core.py': 'def run(model, *, steps=1):\n    return model\n\nclass Engine:\n    def __init__(self, model, block_size):\n        self.model = model\n',
  'lib/util.py': '"""helpers"""\n' + Array.from({ length: 200 }, (_, i) => `def h${i}(x, y=${i}):\n    return x\n`).join(''),
  'lib/data.py': 'TABLE = ' + JSON.stringify(Array.from({ length: 300 }, (_, i) => i * 7)) + '\n',
};

function honestMembers(): ZipMember[] {
  return [
    ...Object.entries(MODULES).map(([name, text], i) => ({ name, data: Buffer.from(text), method: i % 3 === 2 ? 0 : 8 })),
    { name: 'lib-1.0.dist-info/METADATA', data: Buffer.from('Name: lib\nVersion: 1.0\n') },
    { name: 'lib/zeros.bin', data: Buffer.alloc(64 * 1024) },
  ];
}

/** Offsets of the central directory entries and of the end record, found by their signatures. */
function structure(buf: Buffer): { centrals: number[]; locals: number[]; eocd: number } {
  const centrals: number[] = [];
  const locals: number[] = [];
  let eocd = -1;
  for (let i = 0; i + 4 <= buf.length; i++) {
    const sig = buf.readUInt32LE(i);
    if (sig === 0x02014b50) centrals.push(i);
    else if (sig === 0x04034b50) locals.push(i);
    else if (sig === 0x06054b50) eocd = i;
  }
  return { centrals, locals, eocd };
}

type Mutation = (buf: Buffer, rnd: () => number) => { buf: Buffer; what: string };

const pick = <T>(rnd: () => number, xs: T[]): T => xs[Math.floor(rnd() * xs.length)];
const lie = (rnd: () => number): number => pick(rnd, [0, 1, 99, 100, 0x7fffffff, 0xffffffff, 0xfffffff0, Math.floor(rnd() * 0x100000000), MAX_MEMBER_BYTES + 1]);

const MUTATIONS: Mutation[] = [
  (buf, rnd) => {
    const at = Math.floor(rnd() * buf.length);
    return { buf: buf.subarray(0, at), what: `truncated to ${at}` };
  },
  (buf, rnd) => {
    const out = Buffer.from(buf);
    const n = 1 + Math.floor(rnd() * 8);
    const where: number[] = [];
    for (let k = 0; k < n; k++) {
      const at = Math.floor(rnd() * out.length);
      out[at] = Math.floor(rnd() * 256);
      where.push(at);
    }
    return { buf: out, what: `bytes changed at ${where.join(',')}` };
  },
  (buf, rnd) => {
    // a central entry lies about a size, its CRC or its offset
    const out = Buffer.from(buf);
    const { centrals } = structure(out);
    const c = pick(rnd, centrals);
    const field = pick(rnd, [16, 20, 24, 42]);
    const v = lie(rnd);
    out.writeUInt32LE(v >>> 0, c + field);
    return { buf: out, what: `central entry at ${c}: field +${field} = ${v}` };
  },
  (buf, rnd) => {
    // a central entry's name, extra or comment length lies
    const out = Buffer.from(buf);
    const { centrals } = structure(out);
    const c = pick(rnd, centrals);
    const field = pick(rnd, [28, 30, 32]);
    const v = Math.floor(rnd() * 0x10000);
    out.writeUInt16LE(v, c + field);
    return { buf: out, what: `central entry at ${c}: length +${field} = ${v}` };
  },
  (buf, rnd) => {
    // a local header lies about its name or extra length
    const out = Buffer.from(buf);
    const { locals } = structure(out);
    const l = pick(rnd, locals);
    const field = pick(rnd, [26, 28]);
    const v = Math.floor(rnd() * 0x10000);
    out.writeUInt16LE(v, l + field);
    return { buf: out, what: `local header at ${l}: +${field} = ${v}` };
  },
  (buf, rnd) => {
    // the end record lies about the count, the directory's size or offset
    const out = Buffer.from(buf);
    const { eocd } = structure(out);
    const field = pick(rnd, [8, 10, 12, 16]);
    if (field < 12) out.writeUInt16LE(Math.floor(rnd() * 0x10000), eocd + field);
    else out.writeUInt32LE(lie(rnd) >>> 0, eocd + field);
    return { buf: out, what: `end record +${field} changed` };
  },
  (buf, rnd) => {
    // a member is replaced by a bomb that declares a small size
    const members = honestMembers();
    const i = Math.floor(rnd() * Object.keys(MODULES).length);
    members[i] = { ...members[i], data: Buffer.alloc(8 * 1024 * 1024 + Math.floor(rnd() * 1024), 0x20), declaredSize: members[i].data.length, crc: undefined };
    void buf;
    return { buf: makeZip(members), what: `member ${members[i].name} is a bomb` };
  },
];

describe('archive reader fuzz', () => {
  const dirs: string[] = [];
  after(() => dirs.forEach(removeTree));

  it('random truncations, corruptions and lying headers: TargetError or the right text, inflation bounded by the declared size', { timeout: 300_000 }, async () => {
    const dir = tempDir('zipfuzz');
    dirs.push(dir);
    const honest = makeZip(honestMembers());
    // the honest archive reads back exactly
    const file = path.join(dir, 'lib.whl');
    fs.writeFileSync(file, honest);
    const good = new ZipRoot(file);
    for (const [name, text] of Object.entries(MODULES)) assert.equal(good.readText(name), text);

    // every inflation is watched: the output may never exceed what the member declares
    const real = zlibModule.inflateRawSync;
    let declaredLimit = 0;
    let largestAsked = 0;
    (zlibModule as { inflateRawSync: typeof zlib.inflateRawSync }).inflateRawSync = ((data: zlib.InputType, opts?: zlib.ZlibOptions) => {
      const max = opts?.maxOutputLength;
      assert.ok(max !== undefined, 'every inflation is bounded');
      largestAsked = Math.max(largestAsked, max);
      declaredLimit = Math.max(declaredLimit, max);
      return real(data, opts);
    }) as typeof zlib.inflateRawSync;
    const seed = Number(process.env.APIDRIFT_FUZZ_SEED ?? 14014);
    const rnd = prng(seed);
    const outcomes = { openFailed: 0, readRight: 0, readFailed: 0 };
    const engineChecks = { findings: 0, errors: 0 };
    try {
      for (let round = 0; round < 1500; round++) {
        const mutation = MUTATIONS[round % MUTATIONS.length];
        const { buf, what } = mutation(honest, rnd);
        const where = `seed ${seed}, round ${round}: ${what}`;
        fs.writeFileSync(file, buf);
        let zip: ZipRoot;
        try {
          zip = new ZipRoot(file);
        } catch (e) {
          assert.ok(e instanceof TargetError, `${where}: opening threw ${(e as Error).stack}`);
          outcomes.openFailed++;
          continue;
        }
        for (const [name, text] of Object.entries(MODULES)) {
          let got: string | undefined;
          try {
            got = zip.readText(name);
          } catch (e) {
            assert.ok(e instanceof TargetError, `${where}: reading ${name} threw ${(e as Error).stack}`);
            outcomes.readFailed++;
            continue;
          }
          // a member may be missing (its entry damaged) but never read as another text
          if (got !== undefined) {
            assert.equal(got, text, `${where}: ${name} read as other text`);
            outcomes.readRight++;
          }
        }
        assert.ok(largestAsked <= MAX_MEMBER_BYTES + 1, `${where}: an inflation was allowed ${largestAsked} bytes`);
        // every tenth archive through the engine: findings from sound modules, errors for the rest
        if (round % 10 === 0) {
          const errors: string[] = [];
          const engine = await Engine.open({ targets: [file] });
          engine.program.onError = (n) => errors.push(n);
          const r = engine.check('from lib.core import Engine\nEngine(1)\nfrom lib import f\nf(1)\n', 'u.py');
          for (const f of r.findings) assert.ok(['missing-argument', 'unknown-import', 'unknown-module', 'unknown-attribute'].includes(f.code), `${where}: ${f.code} ${f.message}`);
          // a missing-argument finding only from a module read right
          for (const f of r.findings.filter((x) => x.code === 'missing-argument')) assert.ok(['block_size', 'b'].includes(f.param ?? ''), `${where}: ${f.message}`);
          engineChecks.findings += r.findings.length;
          engineChecks.errors += errors.length;
        }
        largestAsked = 0;
      }
    } finally {
      (zlibModule as { inflateRawSync: typeof zlib.inflateRawSync }).inflateRawSync = real;
    }
    console.log(`zip fuzz (seed ${seed}): ${JSON.stringify(outcomes)}; engine: ${JSON.stringify(engineChecks)}; largest inflation allowed ${declaredLimit} bytes`);
    // the mutations must have exercised every path
    assert.ok(outcomes.openFailed > 0 && outcomes.readFailed > 0 && outcomes.readRight > 0);
  });
});
