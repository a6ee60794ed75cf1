/**
 * Never a silent all-clear: every input, target or cache problem either gives the right answer or
 * says it could not (exit code 2, a reason on stderr). Each test rebuilds a case that once gave
 * "0 findings, exit 0" (or took the process down), with inputs made here.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { after, describe, it } from 'node:test';
import { main } from '../../server/src/cli';
import { Engine } from '../../server/src/engine';
import { SummaryCache } from '../../server/src/engine/index/cache';
import { parsePython, parserReady, ParserCrashError } from '../../server/src/engine/parser';
import { Program } from '../../server/src/engine/resolve/program';
import { decodeSource, TargetError } from '../../server/src/engine/sources/sourceRoot';
import { Target } from '../../server/src/engine/sources/target';
import { ZipRoot } from '../../server/src/engine/sources/zipRoot';
import { ROOT } from '../helpers';
import { removeTree, tempDir } from './util';
import { makeZip } from './zipWriter';

const LIB = { 'lib/__init__.py': 'def f(a, b):\n    return a\n', 'lib/mod.py': 'def g(x, y):\n    return x\n' };
const USER = 'from lib import f\nf(1)\n';

const dirs: string[] = [];
after(() => dirs.forEach(removeTree));

function tree(files: Record<string, string | Buffer>): string {
  const dir = tempDir('silent');
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  return dir;
}

/** Runs the CLI's `main` in this process; output is collected. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (s: string) => ((stdout += s), true) } as unknown as NodeJS.WriteStream,
    stderr: { write: (s: string) => ((stderr += s), true) } as unknown as NodeJS.WriteStream,
  };
  const code = await main(args, io as never);
  return { code, stdout, stderr };
}

function json(r: { stdout: string; stderr: string }): { diagnostics: Array<{ file: string; code: string; param: string | null }>; stats: Record<string, number> } {
  try {
    return JSON.parse(r.stdout);
  } catch {
    assert.fail(`not JSON: ${r.stdout.slice(0, 300)} / ${r.stderr.slice(0, 300)}`);
  }
}

describe('huge files and parser aborts', () => {
  it('a 20 MB file is skipped and counted (exit 2), and the files after it are still checked', { timeout: 120_000 }, async () => {
    const target = tree(LIB);
    const ws = tree({ 'a_huge.py': 'x = 1\n'.repeat(3_500_000), 'b_line.py': 'x = [' + '1, '.repeat(7_000_000) + ']\n', 'c_user.py': USER });
    const r = await cli(['check', '--no-cache', '--format', 'json', '--target', target, ws]);
    const out = json(r);
    assert.equal(r.code, 2, r.stderr);
    assert.deepEqual(out.diagnostics.map((d) => `${path.basename(d.file)}:${d.code}:${d.param}`), ['c_user.py:missing-argument:b']);
    assert.equal(out.stats.files, 1);
    assert.equal(out.stats.skipped, 2);
    assert.match(r.stderr, /skipped .*a_huge\.py: too large to parse/);
    assert.match(r.stderr, /skipped .*b_line\.py: too large to parse/);
  });

  it('a huge target module is a target error, not a silent gap', async () => {
    const target = tree({ ...LIB, 'lib/big.py': 'def h(a):\n    pass\n' + 'x = 1\n'.repeat(1_500_000) });
    const user = tree({ 'u.py': 'from lib.big import h\nh()\n' });
    const r = await cli(['check', '--no-cache', '--target', target, path.join(user, 'u.py')]);
    assert.equal(r.code, 2, r.stdout + r.stderr);
    assert.match(r.stderr, /cannot read target module lib\.big: too large to parse/);
  });

  it('after a wasm abort the next parse gets a fresh parser, and the engine drops its dead trees', { timeout: 300_000 }, async () => {
    const target = tree(LIB);
    const engine = await Engine.open({ targets: [target], incremental: true });
    // a tree kept for the next keystroke of this document
    assert.deepEqual(engine.check(USER, 'doc.py').findings.map((f) => f.param), ['b']);
    // trees of large documents kept alive (as an editor's open files are) exhaust the wasm memory
    const kept = [];
    let crashed: unknown;
    const big = 'x = [' + '[1],'.repeat(1_900_000) + ']\n';
    for (let i = 0; i < 12 && !crashed; i++) {
      try {
        kept.push(parsePython(big));
      } catch (e) {
        crashed = e;
      }
    }
    assert.ok(crashed instanceof ParserCrashError, `the parser crashed: ${crashed}`);
    kept.length = 0;
    assert.equal(await parserReady(), true, 'a fresh parser is ready');
    // an edit of the document checked before the crash: its kept tree is dead and must not be used
    const edited = USER + 'f(1, 2, 3)\n';
    assert.deepEqual(engine.check(edited, 'doc.py').findings.map((f) => `${f.range.start.line}:${f.code}`), ['1:missing-argument', '2:too-many-positional']);
    assert.deepEqual(engine.check(USER, 'other.py').findings.map((f) => f.param), ['b']);
  });
});

describe('archives that lie', () => {
  it('a member that claims 100 bytes and inflates to 200 MB is a target error, inflated no further than its claim', { timeout: 60_000 }, async () => {
    const bomb = Buffer.alloc(200 * 1024 * 1024, 0x20);
    const dir = tree({});
    const whl = path.join(dir, 'lib-1.0-py3-none-any.whl');
    fs.writeFileSync(whl, makeZip([{ name: 'lib/__init__.py', data: Buffer.from(LIB['lib/__init__.py']) }, { name: 'lib/mod.py', data: bomb, declaredSize: 100 }]));
    const zip = new ZipRoot(whl);
    const before = process.memoryUsage().arrayBuffers;
    assert.throws(() => zip.readText('lib/mod.py'), (e: unknown) => e instanceof TargetError && /inflates beyond its declared 100 bytes/.test(e.message));
    assert.ok(process.memoryUsage().arrayBuffers - before < 50 * 1024 * 1024, 'the bomb was not inflated');
    const user = tree({ 'u.py': 'from lib.mod import g\ng(1)\nfrom lib import f\nf(1)\n' });
    const r = await cli(['check', '--no-cache', '--target', whl, path.join(user, 'u.py')]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /cannot read target module lib\.mod: .*inflates beyond/);
    assert.match(r.stdout, /missing-argument\] f\(\)/, 'the sound module is still checked');
  });

  it('a member whose CRC-32 or size does not match is a target error; bzip2 members too', () => {
    const dir = tree({});
    const whl = path.join(dir, 'bad.whl');
    const data = Buffer.from('def f(a):\n    pass\n');
    fs.writeFileSync(
      whl,
      makeZip([
        { name: 'crc.py', data, crc: 1234 },
        { name: 'short.py', data, declaredSize: data.length + 5 },
        { name: 'stored.py', data, method: 0, crc: 99 },
        { name: 'bz.py', data, method: 12 },
        { name: 'ok.py', data },
      ]),
    );
    const zip = new ZipRoot(whl);
    assert.match(zip.readText('ok.py') ?? '', /def f/);
    assert.throws(() => zip.readText('crc.py'), /CRC-32/);
    assert.throws(() => zip.readText('short.py'), /fewer bytes than its declared/);
    assert.throws(() => zip.readText('stored.py'), /CRC-32/);
    assert.throws(() => zip.readText('bz.py'), /compression method 12/);
  });

  it('reads every entry of a ZIP64 archive of 70,000 entries (not 70,000 mod 65,536)', { timeout: 60_000 }, () => {
    const dir = tree({});
    const whl = path.join(dir, 'many.whl');
    const members: Array<{ name: string; data: Buffer; method?: number }> = [{ name: 'lib/__init__.py', data: Buffer.from('') }];
    for (let i = 0; i < 70_000; i++) members.push({ name: `lib/data/f${i}.txt`, data: Buffer.from('x'), method: 0 });
    members.push({ name: 'lib/last.py', data: Buffer.from('def h(a):\n    pass\n') });
    fs.writeFileSync(whl, makeZip(members, { zip64: true }));
    const zip = new ZipRoot(whl);
    assert.equal(zip.fileCount, 70_002);
    assert.ok(zip.isFile('lib/last.py'));
    // the same without ZIP64 records: a 16-bit count that wrapped around still reads them all
    fs.writeFileSync(whl, makeZip(members));
    assert.ok(new ZipRoot(whl).isFile('lib/last.py'));
  });

  it('a damaged member of an archive given to check is skipped with a reason, not a stack trace', async () => {
    const target = tree(LIB);
    const dir = tree({});
    const whl = path.join(dir, 'code.whl');
    fs.writeFileSync(whl, makeZip([{ name: 'app/a.py', data: Buffer.from(USER) }, { name: 'app/b.py', data: Buffer.from(USER), crc: 7 }]));
    const r = await cli(['check', '--no-cache', '--target', target, whl]);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stdout, /app\/a\.py:2:1: error \[missing-argument\]/);
    assert.match(r.stderr, /skipped .*app\/b\.py: .*CRC-32/);
    assert.doesNotMatch(r.stderr, /internal error|at .*\.js:\d+/);
  });

  it('index and diff exit 2 on a corrupt or bzip2 member, and the incomplete index is not cached', { timeout: 60_000 }, async () => {
    const cacheHome = tree({});
    const dir = tree({});
    const whl = path.join(dir, 'lib.whl');
    fs.writeFileSync(whl, makeZip([{ name: 'lib/__init__.py', data: Buffer.from(LIB['lib/__init__.py']) }, { name: 'lib/mod.py', data: Buffer.from(LIB['lib/mod.py']), method: 12 }]));
    const old = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cacheHome;
    try {
      for (let run = 0; run < 2; run++) {
        const r = await cli(['index', '--target', whl]);
        assert.equal(r.code, 2, `run ${run}: ${r.stdout} ${r.stderr}`);
        assert.match(r.stderr, /lib\.mod/);
      }
      const saved = fs.readdirSync(path.join(cacheHome, 'apidrift')).filter((f) => f.endsWith('.index.json'));
      assert.deepEqual(saved, [], 'no index saved');
      const base = tree(LIB);
      const d = await cli(['diff', '--baseline', base, '--target', whl]);
      assert.equal(d.code, 2, d.stderr);
    } finally {
      if (old === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = old;
    }
  });
});

describe('inputs that cannot be checked', () => {
  it('/dev/zero, a FIFO, an unreadable file and a name that is not UTF-8 each give exit 2 with a reason', { timeout: 60_000 }, async () => {
    const target = tree(LIB);
    const clean = tree({ 'ok.py': 'from lib import f\nf(1, 2)\n' });
    const ok = path.join(clean, 'ok.py');
    const alone = await cli(['check', '--no-cache', '--target', target, ok]);
    assert.equal(alone.code, 0, alone.stderr);

    const zero = await cli(['check', '--no-cache', '--target', target, ok, '/dev/zero']);
    assert.equal(zero.code, 2);
    assert.match(zero.stderr, /skipped \/dev\/zero: not a regular file/);

    const fifoDir = tree({});
    assert.equal(spawnSync('mkfifo', [path.join(fifoDir, 'pipe.py')]).status, 0);
    const fifo = await cli(['check', '--no-cache', '--target', target, ok, path.join(fifoDir, 'pipe.py')]);
    assert.equal(fifo.code, 2);
    assert.match(fifo.stderr, /pipe\.py: not a regular file/);

    // unreadable: a link to itself (chmod 000 does not stop root)
    const bad = tree({});
    fs.symlinkSync('loop.py', path.join(bad, 'loop.py'));
    const loop = await cli(['check', '--no-cache', '--target', target, ok, bad]);
    assert.equal(loop.code, 2);
    assert.match(loop.stderr, /skipped .*loop\.py: ELOOP/);

    const latin = tree({});
    fs.writeFileSync(Buffer.concat([Buffer.from(latin + '/caf'), Buffer.from([0xe9]), Buffer.from('.py')]), USER);
    const name = await cli(['check', '--no-cache', '--format', 'json', '--target', target, ok, latin]);
    assert.equal(name.code, 2, name.stderr);
    assert.match(name.stderr, /caf.*\.py: its name is not valid UTF-8/);
    assert.equal(json(name).stats.skipped, 1);
  });

  it('the same file given twice (or through a link) is checked once', async () => {
    const target = tree(LIB);
    const ws = tree({ 'u.py': USER });
    fs.symlinkSync(path.join(ws, 'u.py'), path.join(ws, 'v.py'));
    const r = await cli(['check', '--no-cache', '--format', 'json', '--target', target, path.join(ws, 'u.py'), path.join(ws, 'u.py'), ws]);
    assert.equal(r.code, 1);
    assert.equal(json(r).diagnostics.length, 1);
    assert.equal(json(r).stats.files, 1);
  });

  it('file names with a newline or an escape sequence cannot forge output lines', async () => {
    const target = tree(LIB);
    const ws = tree({ 'a\nb.py:1:1: error [fake] forged.py': USER, '\x1b[2Jc.py': USER });
    const r = await cli(['check', '--no-cache', '--target', target, ws]);
    assert.equal(r.code, 1);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3, r.stdout);
    assert.ok(lines.some((l) => l.includes('a\\nb.py:1:1: error [fake] forged.py:2:1: error [missing-argument]')), r.stdout);
    assert.ok(lines.some((l) => l.includes('\\x1b[2Jc.py:2:1')), r.stdout);
    assert.doesNotMatch(r.stdout, /\x1b/);
  });

  it('a closed pipe (| head -1) ends the run quietly, without a stack trace; a full disk is an error', { timeout: 60_000 }, () => {
    const target = tree(LIB);
    const ws = tree(Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`u${i}.py`, USER.repeat(50)])));
    const cliJs = path.join(ROOT, 'out', 'server', 'src', 'cli.js');
    const r = spawnSync('sh', ['-c', `"${process.execPath}" "${cliJs}" check --no-cache --target "${target}" "${ws}" | head -1`], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.stdout.split('\n').length, 2, r.stdout);
    assert.equal(r.stderr, '', 'nothing on stderr');
    // output to a full disk is an error, never a report silently cut short
    const full = spawnSync('sh', ['-c', `"${process.execPath}" "${cliJs}" check --no-cache --target "${target}" "${ws}" > /dev/full`], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(full.status, 2);
    assert.match(full.stderr, /cannot write the output: ENOSPC/);
  });
});

describe('an unusable cache', () => {
  it('a file where the cache folder should be: the run goes on without the cache and keeps its findings', { timeout: 60_000 }, async () => {
    const cacheHome = tree({ apidrift: 'not a folder' });
    // a name moved between the versions: finding where it went builds the full index (and saves it)
    const base = tree({ 'lib/__init__.py': '', 'lib/old.py': 'def moved(a, b):\n    pass\n' });
    const target = tree({ 'lib/__init__.py': '', 'lib/old.py': '', 'lib/new.py': 'def moved(a, b):\n    pass\n' });
    const ws = tree({ 'u.py': 'from lib.old import moved\nmoved(1, 2)\n' });
    const old = process.env.XDG_CACHE_HOME;
    process.env.XDG_CACHE_HOME = cacheHome;
    try {
      const r = await cli(['check', '--format', 'json', '--baseline', base, '--target', target, path.join(ws, 'u.py')]);
      assert.equal(r.code, 1, r.stderr);
      const out = json(r);
      assert.equal(out.stats.files, 1);
      assert.deepEqual(out.diagnostics.map((d) => d.code), ['unknown-import']);
      assert.match(r.stderr, /going on without writing the cache/);
      assert.equal(r.stderr.match(/could not write/g)?.length, 1, 'said once');
    } finally {
      if (old === undefined) delete process.env.XDG_CACHE_HOME;
      else process.env.XDG_CACHE_HOME = old;
    }
  });

  it('a file rewritten with the same size and mtime (cp -p) is read again', async () => {
    const cacheDir = tree({});
    const target = tree({ 'lib/__init__.py': 'def f(a, b=1):\n    pass\n' });
    const file = path.join(target, 'lib', '__init__.py');
    // whole seconds, as `cp -p`, rsync and archives set them (kept exactly through utimes)
    const when = new Date('2024-01-02T03:04:05Z');
    fs.utimesSync(file, when, when);
    const st = fs.statSync(file);
    const first = await Engine.open({ targets: [target], cacheDir });
    assert.deepEqual(first.check('from lib import f\nf(1)\n', 'u.py').findings, []);
    first.saveCache();
    fs.writeFileSync(file, 'def f(a,   b):\n    pass\n'); // the same size
    fs.utimesSync(file, when, when);
    assert.equal(fs.statSync(file).size, st.size);
    assert.equal(fs.statSync(file).mtimeMs, st.mtimeMs);
    assert.equal(fs.statSync(file).ino, st.ino);
    const second = await Engine.open({ targets: [target], cacheDir });
    assert.deepEqual(second.check('from lib import f\nf(1)\n', 'u.py').findings.map((f) => f.param), ['b']);
  });

  it('temporary files left by an interrupted write, and cache files unused for months, are removed on the next write', async () => {
    const cacheDir = tree({});
    const stale = path.join(cacheDir, 'abc.json.123.xyz.tmp');
    const fresh = path.join(cacheDir, 'abc.json.456.xyz.tmp');
    const unused = path.join(cacheDir, '0123456789abcdef0123.json');
    fs.writeFileSync(stale, '{');
    fs.writeFileSync(fresh, '{');
    fs.writeFileSync(unused, '{}');
    const old = new Date(Date.now() - 3 * 3600 * 1000);
    fs.utimesSync(stale, old, old);
    const months = new Date(Date.now() - 200 * 24 * 3600 * 1000);
    fs.utimesSync(unused, months, months);
    const target = tree(LIB);
    const engine = await Engine.open({ targets: [target], cacheDir });
    engine.check(USER, 'u.py');
    engine.saveCache();
    assert.equal(fs.existsSync(stale), false);
    assert.equal(fs.existsSync(fresh), true, 'a write under way is left alone');
    assert.equal(fs.existsSync(unused), false, 'evicted');
    assert.ok(fs.readdirSync(cacheDir).some((f) => f.endsWith('.json')), 'what this run wrote is there');
  });
});

describe('target folders and encodings', () => {
  it('the module walk does not follow symlinked folders round a cycle', { timeout: 60_000 }, () => {
    const target = tree({ 'pkg/__init__.py': '', 'pkg/mod.py': 'def f(a):\n    pass\n' });
    fs.symlinkSync('.', path.join(target, 'pkg', 'self'));
    fs.symlinkSync('..', path.join(target, 'pkg', 'up'));
    const program = new Program(Target.open([target]), new SummaryCache(tree({})));
    // Python imports pkg.self and pkg.up (one step through each link), not pkg.self.self...
    assert.deepEqual(program.allModules(), ['pkg', 'pkg.mod', 'pkg.self', 'pkg.up']);
  });

  it('decodes a PEP 263 coding declaration and UTF-16 files', async () => {
    const latin = Buffer.concat([Buffer.from('# -*- coding: latin-1 -*-\ndef f(na'), Buffer.from([0xef]), Buffer.from('ve, b=1):\n    pass\n')]);
    assert.match(decodeSource(latin), /def f\(naïve, b=1\)/);
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('def g(a, b):\n    pass\n', 'utf16le')]);
    assert.equal(decodeSource(utf16), 'def g(a, b):\n    pass\n');
    // a declaration after code does not count
    assert.match(decodeSource(Buffer.concat([Buffer.from('x = 1\n# coding: latin-1\n# '), Buffer.from([0xef])])), /\uFFFD/);
    const target = tree({ 'lib/__init__.py': '', 'lib/latin.py': latin, 'lib/wide.py': utf16 });
    const engine = await Engine.open({ targets: [target] });
    const r = engine.check('from lib.latin import f\nf(naïve=1)\nfrom lib.wide import g\ng(1)\n', 'u.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line}:${f.code}:${f.param}`), ['3:missing-argument:b']);
  });
});

describe('checks that stay right and linear', () => {
  it('changed-override: no warning for an override already written for the new signature', async () => {
    const base = tree({ 'lib/__init__.py': 'class Engine:\n    def step(self, batch):\n        pass\n' });
    const target = tree({ 'lib/__init__.py': 'class Engine:\n    def step(self, batch, *, priority=0):\n        pass\n' });
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const code = [
      'from lib import Engine',
      'class Old(Engine):',
      '    def step(self, batch):',
      '        pass',
      'class New(Engine):',
      '    def step(self, batch, *, priority=0):',
      '        pass',
      'class Extra(Engine):',
      '    def step(self, batch, *, priority=0, trace=False):',
      '        pass',
      'class Any(Engine):',
      '    def step(self, *args, **kwargs):',
      '        pass',
      'class Required(Engine):',
      '    def step(self, batch, *, priority):',
      '        pass',
      '',
    ].join('\n');
    const r = engine.check(code, 'u.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line}:${f.code}`), ['2:changed-override', '14:changed-override']);
  });

  it('changed-override: no warning where the base only came to allow more calls, or where the override never took the base\'s calls', async () => {
    const base = tree({ 'lib/__init__.py': 'class Layer:\n    def fits(self, x, cfg):\n        pass\n    def rotate(self, x, emb):\n        pass\n' });
    const target = tree({ 'lib/__init__.py': 'class Layer:\n    def fits(self, x, cfg=None):\n        pass\n    def rotate(self, x, emb_cos, emb_sin):\n        pass\n' });
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const code = [
      'from lib import Layer',
      'class Mine(Layer):',
      '    def fits(self, x, cfg):', // 2: every call that bound before still binds
      '        pass',
      '    def rotate(self, x, cos, sin):', // 4: takes neither version's calls: the plug-in's own
      '        pass',
      'class Kept(Layer):',
      '    def rotate(self, x, emb):', // 7: written for the baseline's base, which changed
      '        pass',
      '',
    ].join('\n');
    const r = engine.check(code, 'u.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line}:${f.code}`), ['7:changed-override']);
  });

  it('changed-override: a method of the user\'s that a base class of the target now has too, with another signature', async () => {
    const base = tree({ 'lib/__init__.py': 'class Engine:\n    def step(self):\n        pass\n' });
    const target = tree({ 'lib/__init__.py': 'class Engine:\n    def step(self):\n        pass\n    def flush(self, batch):\n        pass\nclass Fresh:\n    def flush(self, batch):\n        pass\n' });
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const code = [
      'from lib import Engine, Fresh',
      'class Mine(Engine):',
      '    def flush(self):', // 2: Engine.flush is new, and calls pass a batch
      '        pass',
      'class Fits(Engine):',
      '    def flush(self, batch, force=False):', // 5: takes what Engine.flush takes
      '        pass',
      'class New(Fresh):',
      '    def flush(self):', // 8: Fresh is new as a whole: nothing to compare with
      '        pass',
      '',
    ].join('\n');
    const r = engine.check(code, 'u.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line}:${f.code}`), ['2:changed-override']);
    assert.match(r.findings[0].message, /lib\.Engine\.flush is new in the target, and this method now overrides it: it will be called as Engine\.flush\(batch\) is/);
  });

  it('changed-override: a class of the user\'s that ABCMeta built with the baseline and refuses with the target (an abstract method renamed)', async () => {
    const lib = (hook: string): string =>
      ['from abc import ABC, abstractmethod', 'class Impl(ABC):', '    @abstractmethod', `    def ${hook}(self, q):`, '        pass', '    def run(self):', '        pass', 'class Plain:', '    def run(self):', '        pass', ''].join('\n');
    const base = tree({ 'lib/__init__.py': lib('forward_decode') });
    const target = tree({ 'lib/__init__.py': lib('forward_mqa') });
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const code = [
      'from lib import Impl, Plain',
      'class MyImpl(Impl):', // 1: implements the baseline's abstract method only
      '    def forward_decode(self, q):',
      '        pass',
      'class Both(Impl):', // 4: implements both
      '    def forward_decode(self, q):',
      '        pass',
      '    def forward_mqa(self, q):',
      '        pass',
      'class Half(Impl):', // 9: abstract with the baseline too (an intermediate class)
      '    pass',
      'class Other(Plain):', // 11: no ABCMeta
      '    pass',
      'from torch.nn import Module',
      'class After(Impl, Module):', // 14: a base the engine cannot see, after Impl in the MRO
      '    def forward_decode(self, q):',
      '        pass',
      'class Before(Module, Impl):', // 17: ... and before it: it may implement forward_mqa
      '    def forward_decode(self, q):',
      '        pass',
      '',
    ].join('\n');
    const r = engine.check(code, 'u.py');
    // 2, 5 and 15: forward_decode overrides nothing of the target's any more (the likely rename is
    // named); torch.nn.Module's public names are known, and it is none of them
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line}:${f.code}`), ['1:changed-override', '2:changed-override', '5:changed-override', '14:changed-override', '15:changed-override']);
    assert.match(r.findings[0].message, /does not implement lib\.Impl\.forward_mqa, abstract in the target: it can no longer be instantiated/);
    assert.match(r.findings[1].message, /overrode Impl\.forward_decode in the baseline.*; Impl\.forward_mqa, new in the target, takes the same parameters \(renamed\?\)$/);
    // the same, keystroke by keystroke: the class header is re-checked when a method is added
    const inc = await Engine.open({ targets: [target], baseline: [base], incremental: true });
    inc.check(code, 'u.py');
    const fixed = code.replace('class MyImpl(Impl):\n', 'class MyImpl(Impl):\n    def forward_mqa(self, q):\n        pass\n');
    assert.deepEqual(inc.check(fixed, 'u.py').findings.map((f) => `${f.range.start.line}:${f.code}`), ['4:changed-override', '7:changed-override', '16:changed-override', '17:changed-override']);
  });

  it('shifted-argument: a positional argument that now reaches another parameter, where the one it reached is still there', async () => {
    const base = tree({ 'lib/__init__.py': 'def pool(n, caching, events=False):\n    pass\nclass Group:\n    def __init__(self, backend, builders, names):\n        pass\ndef renamed(a, b):\n    pass\n' });
    const target = tree({ 'lib/__init__.py': 'def pool(n, caching, block_size, events=False):\n    pass\nclass Group:\n    def __init__(self, backend, names, spec, builders=None):\n        pass\ndef renamed(a, c):\n    pass\n' });
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const code = [
      'from lib import pool, Group, renamed',
      'pool(1, True, False)', // 1: the third argument now goes to block_size
      'pool(1, True)', // 2: missing block_size: an error, not a shift
      'pool(1, True, block_size=4, events=True)', // 3: by keyword
      'Group("b", [], ["n"])', // 4: builders' place now holds names
      'renamed(1, 2)', // 5: a parameter renamed in place
      '',
    ].join('\n');
    const r = engine.check(code, 'u.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line}:${f.code}:${f.param}`), ['1:shifted-argument:events', '2:missing-argument:block_size', '4:shifted-argument:builders']);
    assert.match(r.findings[0].message, /positional argument 3 of pool\(\) now goes to `block_size`; in the baseline it went to `events`/);
    // without a baseline nothing says where the arguments went before
    assert.deepEqual((await Engine.open({ targets: [target] })).check(code, 'u.py').findings.map((f) => f.code), ['missing-argument']);
    // a file that puts its own __init__ on the class decides what the arguments reach (and is
    // itself compared with the changed __init__ it replaces: the library's calls pass the new ones)
    const patched = engine.check(`${code}def my_init(self, backend, builders, names):\n    pass\nGroup.__init__ = my_init\n`, 'u.py');
    assert.deepEqual(patched.findings.map((f) => `${f.range.start.line}:${f.code}`), ['1:shifted-argument', '2:missing-argument', '8:changed-override']);
    const sup = engine.check('from lib import Group\nclass Mine(Group):\n    def __init__(self):\n        super().__init__("b", [], ["n"])\n', 'u.py');
    assert.match(sup.findings[0]?.message ?? '', /positional argument 2 of Group\.__init__\(\) now goes to `names`/);
  });

  it('shifted-argument: a positional argument whose parameter was removed now reaches the one that came after it', async () => {
    const base = tree({ 'lib/__init__.py': 'class Manager:\n    def __init__(self, config, device, modules, padding, model_cls=None):\n        pass\ndef renamed(a, b, c=None):\n    pass\n' });
    const target = tree({ 'lib/__init__.py': 'class Manager:\n    def __init__(self, config, device, modules, model_cls=None):\n        pass\ndef renamed(a, b2, c=None):\n    pass\n' });
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const code = [
      'from lib import Manager, renamed',
      'Manager(1, 2, {}, [])', // 1: the list meant for `padding` now goes to model_cls
      'Manager(1, 2, {})', // 2: nothing passed there
      'renamed(1, 2)', // 3: renamed in place: the same slot
      'Manager(1, 2, {}, [], [])', // 4: too many: an error, not a shift
      '',
    ].join('\n');
    const r = engine.check(code, 'u.py');
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line}:${f.code}:${f.param}`), ['1:shifted-argument:padding', '4:too-many-positional:null']);
    // a call written for the target, which never bound against the baseline, says nothing of where
    // its arguments went there
    const later = tree({ 'lib/__init__.py': 'class Sampler:\n    def forward(self, meta, probs, logits, sampling):\n        pass\n' });
    const earlier = tree({ 'lib/__init__.py': 'class Sampler:\n    def forward(self, meta, probs, target_logits, bonus, sampling):\n        pass\n' });
    const e2 = await Engine.open({ targets: [later], baseline: [earlier] });
    assert.deepEqual(e2.check('from lib import Sampler\nSampler().forward(1, None, 2, 3)\nSampler().forward(1, None, 2, 3, 4)\n', 'u.py').findings.map((f) => `${f.range.start.line}:${f.code}`), ['2:too-many-positional']);
    assert.match(r.findings[0].message, /positional argument 4 of Manager\(\) now goes to `model_cls`; in the baseline it went to `padding`, which the target removed/);
  });

  it('multiple-values is explained only by a positional parameter added before it, never by an unrelated one', async () => {
    const base = tree({ 'lib/__init__.py': 'def g(a, b, use_mla=False):\n    pass\ndef h(a, use_mla=False):\n    pass\n' });
    const target = tree({ 'lib/__init__.py': 'def g(a, b, use_mla=False, extra=None):\n    pass\ndef h(a, b, use_mla=False):\n    pass\n' });
    const engine = await Engine.open({ targets: [target], baseline: [base] });
    const r = engine.check('from lib import g, h\ng(1, 2, 3, use_mla=True)\nh(1, 2, 3, use_mla=True)\n', 'u.py');
    assert.deepEqual(
      r.findings.map((f) => `${f.range.start.line}:${f.code}:${f.change ?? '-'}`),
      ['1:multiple-values:-', '2:multiple-values:`b` was added as a required parameter'],
    );
  });

  it('a call with 100,000 unexpected keywords is checked in linear time (it took over 300 s)', { timeout: 120_000 }, async () => {
    const target = tree({ 'lib/__init__.py': 'def f(a):\n    pass\n' });
    const engine = await Engine.open({ targets: [target] });
    const n = 100_000;
    const code = 'from lib import f\nf(1, ' + Array.from({ length: n }, (_, i) => `k${i}=${i}`).join(', ') + ')\n';
    const r = engine.check(code, 'u.py');
    assert.equal(r.findings.length, n);
    assert.ok(r.findings.every((f) => f.code === 'unexpected-keyword'));
    assert.equal(r.findings[n - 1].param, `k${n - 1}`);
  });
});
