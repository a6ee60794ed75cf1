/**
 * The benchmark must not rot: it runs here in its quick form (the 3.12 standard library, one run
 * of each measurement, apidrift and pyright side by side) and every figure must come out.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { describe, it } from 'node:test';
import { ROOT } from './helpers';

describe('benchmark', () => {
  it('runs in its quick form and reports every measurement of both tools', { timeout: 600_000 }, () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bench', 'run.js'), '--quick', '--json'], { encoding: 'utf8', maxBuffer: 64 << 20, timeout: 590_000 });
    assert.equal(r.status, 0, `${r.stdout.slice(-2000)}\n${r.stderr.slice(-3000)}`);
    const table = r.stdout.slice(0, r.stdout.indexOf('\n{'));
    console.log(table);
    const summary = JSON.parse(r.stdout.slice(r.stdout.indexOf('\n{') + 1));
    const res = summary.results;
    assert.deepEqual(res.lspErrors, []);
    assert.deepEqual(res.cliFailures, []);
    for (const k of ['fileCold', 'dirCold', 'indexCold', 'indexWriteCache', 'indexWarm', 'fileWarm', 'lspOpen', 'keystrokeP50', 'keystrokeP95', 'engineCheckP95']) {
      assert.ok(res[k].apidrift > 0, `apidrift ${k}: ${JSON.stringify(res[k])}`);
    }
    for (const k of ['fileCold', 'dirCold', 'lspOpen', 'keystrokeP50', 'keystrokeP95']) assert.ok(res[k].pyright > 0, `pyright ${k}: ${JSON.stringify(res[k])}`);
    assert.ok(res.rss.server.apidrift > 0 && res.rss.server.pyright > 0, JSON.stringify(res.rss.server));
    assert.ok(res.publishes.apidrift.versioned, 'every publish carries its version');
    // the same findings as a plain check: the one-file run found what the demo file holds
    assert.ok(res.fileCold.apidriftInfo.findings > 0, JSON.stringify(res.fileCold.apidriftInfo));
    assert.match(table, /\| 4\. keystroke didChange -> diagnostics p95 +\| +[\d.]+ m?s \| +[\d.]+ m?s \|/);
  });
});
