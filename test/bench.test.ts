/**
 * The benchmarks must not rot: they run here in their quick forms (the 3.12 standard library, one
 * run of each measurement, apidrift and pyright side by side) and every figure must come out.
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

  it('measures the engine alone on the keystrokes of the LSP benchmark', { timeout: 300_000 }, () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'bench', 'engine.js'), '--runs', '1', '--edits', '40'], { encoding: 'utf8', timeout: 290_000 });
    assert.equal(r.status, 0, r.stderr.slice(-3000));
    console.log(r.stdout.trim());
    const m = /medians of 1 runs: p50 ([\d.]+) ms, p95 ([\d.]+) ms, first 20 ([\d.]+) ms, total (\d+) ms/.exec(r.stdout);
    assert.ok(m, r.stdout);
    assert.ok(Number(m[1]) > 0 && Number(m[4]) > 0, r.stdout);
    assert.match(r.stdout, /\(40 keystrokes\)/);
  });
});
