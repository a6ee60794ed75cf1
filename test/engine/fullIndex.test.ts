/**
 * The full index: built on worker threads it equals the one built on one thread; saved, it is
 * used again without reading the summaries, and dropped when the target's files change.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describe, it } from 'node:test';
import { SummaryCache } from '../../server/src/engine/index/cache';
import { initParser } from '../../server/src/engine/parser';
import { type FullIndex, Program } from '../../server/src/engine/resolve/program';
import { Target } from '../../server/src/engine/sources/target';
import { stdlibZip, tempTree } from '../helpers';

const shape = (x: FullIndex): string => JSON.stringify({ modules: x.modules, signatures: x.signatures, definitions: [...x.definitions] });

describe('the full index', () => {
  it('is the same built on worker threads as on one thread, with or without summaries kept', async () => {
    await initParser();
    const one = new Program(Target.open([stdlibZip('312')])).buildFullIndex();
    const kept = new Program(Target.open([stdlibZip('312')]));
    const released = new Program(Target.open([stdlibZip('312')]));
    released.releaseAfterIndex = true;
    assert.equal(shape(await kept.buildFullIndexParallel(2)), shape(one));
    assert.equal(shape(await released.buildFullIndexParallel(3)), shape(one));
    assert.ok(one.modules.length > 500 && one.signatures > 5000);
    // a program that keeps summaries has them; one that releases them does not re-read for the index
    assert.ok(kept.filesRead.size > 500);
    assert.equal(kept.summary('json')?.bindings.has('dumps'), true);
  });

  it('fills the summary cache from the workers with what the sequential path would store', async () => {
    await initParser();
    const dirA = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-idx-'));
    const dirB = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-idx-'));
    try {
      const a = new Program(Target.open([stdlibZip('311')]), new SummaryCache(dirA));
      a.releaseAfterIndex = true;
      await a.buildFullIndexParallel(2);
      a.cache!.save();
      const b = new Program(Target.open([stdlibZip('311')]), new SummaryCache(dirB));
      b.buildFullIndex();
      b.cache!.save();
      const entries = (d: string): unknown => {
        const f = fs.readdirSync(d).find((x) => !x.endsWith('.index.json'))!;
        // the cache file is JSON: an index of entries, and their summaries in the same order
        const data = JSON.parse(fs.readFileSync(path.join(d, f), 'utf8')) as { index: Record<string, [string, string, number, number]>; bodies: unknown[] };
        return Object.entries(data.index)
          .map(([rel, [v, h]], i) => [rel, v, h, data.bodies[i]])
          .sort((x, y) => String(x[0]).localeCompare(String(y[0])));
      };
      assert.ok((entries(dirA) as unknown[]).length > 500);
      assert.deepEqual(entries(dirA), entries(dirB));
      // summaries from that cache serve a fresh program
      const c = new Program(Target.open([stdlibZip('311')]), new SummaryCache(dirA));
      assert.equal(c.summary('json')?.bindings.has('dumps'), true);
      assert.equal(c.fromCache, 1);
    } finally {
      fs.rmSync(dirA, { recursive: true, force: true });
      fs.rmSync(dirB, { recursive: true, force: true });
    }
  });

  it('is loaded from its saved copy without reading the summaries, and rebuilt when a file is added, changed or removed', async () => {
    await initParser();
    const target = tempTree({ 'pkg/__init__.py': 'from .a import f\n', 'pkg/a.py': 'def f(x):\n    return x\n', 'pkg/sub/b.py': 'class B:\n    def m(self):\n        pass\n' });
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-idx-'));
    const build = (): { index: FullIndex; cache: SummaryCache } => {
      const cache = new SummaryCache(cacheDir);
      const p = new Program(Target.open([target]), cache);
      const index = p.buildFullIndex();
      cache.save();
      return { index, cache };
    };
    try {
      const cold = build();
      assert.ok(!cold.index.fromCache);
      assert.deepEqual(cold.index.modules, ['pkg', 'pkg.a', 'pkg.sub', 'pkg.sub.b']);
      const warm = build();
      assert.equal(warm.index.fromCache, true);
      assert.equal(shape(warm.index), shape(cold.index));
      assert.deepEqual(warm.cache.loadedFiles, [], 'the summaries file is not read');

      fs.writeFileSync(path.join(target, 'pkg', 'sub', 'c.py'), 'def g():\n    pass\n');
      const added = build();
      assert.ok(!added.index.fromCache);
      assert.deepEqual(added.index.definitions.get('g'), [{ module: 'pkg.sub.c', kind: 'def', line: 1 }]);
      assert.equal(build().index.fromCache, true);

      fs.writeFileSync(path.join(target, 'pkg', 'a.py'), 'def f(x):\n    return x\n\n\ndef h():\n    pass\n');
      const changed = build();
      assert.ok(!changed.index.fromCache);
      assert.deepEqual(changed.index.definitions.get('h'), [{ module: 'pkg.a', kind: 'def', line: 5 }]);

      fs.rmSync(path.join(target, 'pkg', 'sub', 'c.py'));
      const removed = build();
      assert.ok(!removed.index.fromCache);
      assert.equal(removed.index.definitions.get('g'), undefined);
    } finally {
      fs.rmSync(target, { recursive: true, force: true });
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
