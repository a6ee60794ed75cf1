/**
 * The summary cache: a check reads from the cache file the summaries it uses and nothing else,
 * two processes that save the same file keep each other's entries, and a file replaced under a
 * run never serves a summary from the wrong place.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import { describe, it } from 'node:test';
import { SummaryCache } from '../../server/src/engine/index/cache';
import { initParser } from '../../server/src/engine/parser';
import { Program } from '../../server/src/engine/resolve/program';
import { Target } from '../../server/src/engine/sources/target';
import { tempTree } from '../helpers';

const LIB: Record<string, string> = {
  'lib/__init__.py': 'from .a import fa\n',
  'lib/a.py': 'def fa(x, y=1):\n    pass\n',
  'lib/b.py': 'def fb(x):\n    pass\n',
  'lib/c.py': 'class C:\n    def m(self, z):\n        pass\n',
};

function program(target: string, dir: string): Program {
  return new Program(Target.open([target]), new SummaryCache(dir));
}

describe('the summary cache', () => {
  it('revives from the cache file only the summaries a run uses', async () => {
    await initParser();
    const target = tempTree(LIB);
    const dir = tempTree({});
    const first = program(target, dir);
    for (const m of ['lib', 'lib.a', 'lib.b', 'lib.c']) assert.ok(first.summary(m));
    first.cache!.save();
    const second = program(target, dir);
    assert.equal(second.summary('lib.b')?.bindings.has('fb'), true);
    assert.equal(second.fromCache, 1);
    assert.equal(second.filesRead.size, 0, 'nothing parsed');
    assert.equal(second.cache!.loadedFiles.length, 1);
    // the file holds the other summaries, each readable on its own
    assert.equal(second.summary('lib.c')?.bindings.has('C'), true);
    assert.equal(second.fromCache, 2);
  });

  it('keeps the entries another run saved meanwhile', async () => {
    await initParser();
    const target = tempTree(LIB);
    const dir = tempTree({});
    const a = program(target, dir);
    const b = program(target, dir);
    a.summary('lib.a');
    b.summary('lib.b');
    a.cache!.save();
    b.cache!.save(); // written after a's: a's entry is kept
    const c = program(target, dir);
    assert.equal(c.summary('lib.a')?.bindings.has('fa'), true);
    assert.equal(c.summary('lib.b')?.bindings.has('fb'), true);
    assert.equal(c.fromCache, 2);
    // and a third run adding an entry keeps both
    c.summary('lib.c');
    c.cache!.save();
    const d = program(target, dir);
    for (const m of ['lib.a', 'lib.b', 'lib.c']) assert.ok(d.summary(m));
    assert.equal(d.fromCache, 3);
    assert.equal(d.filesRead.size, 0);
  });

  it('a cache file replaced during a run serves nothing from its old offsets', async () => {
    await initParser();
    const target = tempTree(LIB);
    const dir = tempTree({});
    const first = program(target, dir);
    for (const m of ['lib.a', 'lib.b', 'lib.c']) first.summary(m);
    first.cache!.save();
    const reader = program(target, dir);
    assert.ok(reader.summary('lib.a')); // loads the index of the file
    // another run rewrites the file
    const file = fs.readdirSync(dir).map((f) => `${dir}/${f}`)[0];
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('"fb"', '"fX"')); // same size, other content
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000));
    const c = reader.summary('lib.c');
    assert.equal(c?.bindings.has('C'), true, 'read again from the source');
    assert.equal(reader.summary('lib.b')?.bindings.has('fb'), true, 'never the rewritten entry');
    assert.equal(reader.filesRead.size, 2);
  });

  it('a run whose cache file another run replaced saves what it can, keeping theirs', async () => {
    await initParser();
    const target = tempTree(LIB);
    const dir = tempTree({});
    const first = program(target, dir);
    for (const m of ['lib.a', 'lib.b']) first.summary(m);
    first.cache!.save();
    const reader = program(target, dir);
    assert.ok(reader.summary('lib.a')); // from the file: its summary stays there, not in memory
    assert.equal(reader.fromCache, 1);
    // another run (two CI jobs on one machine) saves the same file meanwhile
    const other = program(target, dir);
    other.summary('lib.c');
    other.cache!.save();
    reader.summary('lib');
    const errors: string[] = [];
    reader.cache!.onError = (msg) => errors.push(msg);
    reader.cache!.save();
    assert.deepEqual(errors, []);
    const after = program(target, dir);
    for (const m of ['lib', 'lib.a', 'lib.b', 'lib.c']) assert.ok(after.summary(m), m);
    assert.equal(after.fromCache, 4);
    assert.equal(after.filesRead.size, 0);
  });

  it('a corrupt summary in the file is a miss, not an unreadable module', async () => {
    await initParser();
    const target = tempTree(LIB);
    const dir = tempTree({});
    const first = program(target, dir);
    first.summary('lib.b');
    first.cache!.save();
    const file = fs.readdirSync(dir).map((f) => `${dir}/${f}`)[0];
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n');
    lines[2] = lines[2].replace(/[{]/, '['); // the summary's body, same length, no longer JSON of a summary
    fs.writeFileSync(file, lines.join('\n'));
    const errors: string[] = [];
    const second = program(target, dir);
    second.onError = (name) => errors.push(name);
    assert.equal(second.summary('lib.b')?.bindings.has('fb'), true);
    assert.deepEqual(errors, []);
    assert.equal(second.filesRead.size, 1);
  });
});
