/** Where target modules come from, how they are looked up, cached and invalidated; UTF-16 positions. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { Target } from '../../server/src/engine/sources/target';
import { ZipRoot } from '../../server/src/engine/sources/zipRoot';
import { brief, stdlibZip, tempTree } from '../helpers';

describe('module lookup', () => {
  it('follows Python: packages, modules, namespace packages, and a .pyi stub beside a module', () => {
    const dir = tempTree({
      'pkg/__init__.py': '',
      'pkg/mod.py': 'def f(a): pass\n',
      'pkg/mod.pyi': 'def f(a, b): ...\n',
      'ns/part.py': '',
      'single.py': '',
    });
    const other = tempTree({ 'ns/other.py': '' });
    try {
      const t = Target.open([dir, other]);
      assert.equal(t.findModule('pkg')?.isPackage, true);
      assert.equal(t.findModule('pkg.mod')?.rel, 'pkg/mod.pyi');
      assert.equal(t.findModule('single')?.isPackage, false);
      const ns = t.findModule('ns');
      assert.equal(ns?.isPackage, true);
      assert.equal(ns?.rel, undefined);
      assert.ok(t.findModule('ns.part'));
      assert.ok(t.findModule('ns.other'), 'namespace portions spread over roots');
      assert.equal(t.findModule('pkg.nothing'), null);
      assert.equal(t.findModule('single.sub'), null);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  it('takes the names from the stub, and leaves calls to the source beside it, which is what runs', async () => {
    const dir = tempTree({ 'pkg/__init__.py': '', 'pkg/mod.py': 'def f(a): pass\n', 'pkg/mod.pyi': 'def f(a, b): ...\n' });
    try {
      const engine = await Engine.open({ targets: [dir] });
      // the stub says f takes two arguments; the source that runs takes one: f(1) binds there
      const r = engine.check('from pkg.mod import f, g\nf(1)\n', 'u.py');
      assert.deepEqual(brief(r), ['1:unknown-import:']);
      assert.equal(r.callsUnknown, 1);
      // where the source has the stub's parameters, the stub's signature is what binds
      fs.writeFileSync(path.join(dir, 'pkg', 'mod.py'), 'def f(a, b=2): pass\n');
      const later = new Date(Date.now() + 5000);
      fs.utimesSync(path.join(dir, 'pkg', 'mod.py'), later, later);
      const again = await Engine.open({ targets: [dir] });
      assert.deepEqual(brief(again.check('from pkg.mod import f\nf(1)\n', 'u.py')), ['2:missing-argument:b']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads a zip archive in place', () => {
    const zip = new ZipRoot(stdlibZip('312'));
    assert.ok(zip.isDir('email'));
    assert.ok(zip.isFile('email/utils.py'));
    assert.match(zip.readText('email/utils.py') ?? '', /def localtime\(dt=None, isdst=-1\)|def localtime\(dt=None/);
    assert.ok((zip.listDir('') ?? []).includes('configparser.py'));
  });
});

describe('caching', () => {
  it('reads each target module once per version of the file, and again when it changes', async () => {
    const dir = tempTree({ 'lib.py': 'def f(a):\n    pass\n' });
    try {
      const engine = await Engine.open({ targets: [dir] });
      const reads: string[] = [];
      engine.program.onRead = (name) => reads.push(name);
      assert.deepEqual(brief(engine.check('import lib\nlib.f()\n', 'u.py')), ['2:missing-argument:a']);
      assert.deepEqual(brief(engine.check('import lib\nlib.f()\n', 'u.py')), ['2:missing-argument:a']);
      assert.deepEqual(reads, ['lib']);
      // a different size and mtime: the module is read again
      fs.writeFileSync(path.join(dir, 'lib.py'), 'def f(a, b=1, c=2):\n    pass\n');
      const later = new Date(Date.now() + 5000);
      fs.utimesSync(path.join(dir, 'lib.py'), later, later);
      assert.deepEqual(brief(engine.check('import lib\nlib.f(1, 2, 3, 4)\n', 'u.py')), ['2:too-many-positional:']);
      assert.deepEqual(reads, ['lib', 'lib']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('positions', () => {
  it('are UTF-16 columns, exact after astral characters', async () => {
    const dir = tempTree({ 'lib.py': 'def f(a):\n    pass\n' });
    try {
      const engine = await Engine.open({ targets: [dir] });
      const line = 'x = "😀é漢"; import lib; lib.f(1, zz=2)';
      const r = engine.check(line + '\n', 'u.py');
      assert.equal(r.findings.length, 1);
      const f = r.findings[0];
      assert.equal(f.range.start.character, line.indexOf('zz=2')); // JS string indices are UTF-16 units
      assert.equal(f.range.end.character, line.indexOf('zz=2') + 4);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
