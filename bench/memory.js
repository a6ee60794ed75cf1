#!/usr/bin/env node
/**
 * The language server's memory as the extension starts it: with its storage folder (where the
 * summary cache lives), cold (an empty folder) and warm (the folder the cold run filled), with
 * and without a baseline.
 *
 *   node bench/memory.js --target PATH [--baseline PATH] --lsp-file FILE [--runs N] [--edits N] [--json]
 *
 * Each run opens FILE, waits for its diagnostics (and, with a baseline, for the full index built
 * in the background), types --edits keystrokes into it one at a time (see bench/run.js) and
 * reads the server's VmHWM (peak resident memory) and VmRSS at the end. Medians over --runs,
 * the four variants of a round run one after the other. apidrift's server alone: pyright's
 * memory is measured beside it by bench/run.js (it has no storage folder to fill).
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { lspRun, median, percentile, planKeystrokes, snapshotDist } = require('./run');

function die(msg) {
  process.stderr.write(`bench/memory: ${msg}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { runs: 3, edits: 100, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => (a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i] ?? die(`${a} needs a value`));
    const key = a.split('=')[0];
    if (key === '--target') o.target = path.resolve(val());
    else if (key === '--baseline') o.baseline = path.resolve(val());
    else if (key === '--lsp-file') o.lspFile = path.resolve(val());
    else if (key === '--runs') o.runs = Number(val());
    else if (key === '--edits') o.edits = Number(val());
    else if (a === '--json') o.json = true;
    else die(`unknown option ${a}`);
  }
  if (!o.target || !o.lspFile) die('usage: node bench/memory.js --target PATH [--baseline PATH] --lsp-file FILE [--runs N] [--edits N] [--json]');
  return o;
}

const mb = (kb) => (kb === undefined ? 'n/a' : `${Math.round(kb / 1024)} MB`);
const ms = (x) => (x === undefined ? 'n/a' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : x >= 10 ? `${Math.round(x)} ms` : `${x.toFixed(1)} ms`);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-bench-memory-'));
  const started = Date.now();
  const load0 = os.loadavg();
  try {
    const apidrift = snapshotDist(tmp, false);
    const lspRoot = path.join(tmp, 'lsp-root');
    fs.mkdirSync(lspRoot, { recursive: true });
    const text = fs.readFileSync(o.lspFile, 'utf8');
    const lspDoc = path.join(lspRoot, path.basename(o.lspFile));
    fs.writeFileSync(lspDoc, text);
    const ctx = { tmp, target: o.target, lspRoot, lspDoc, apidrift, keystrokes: planKeystrokes(text, o.edits) };
    const variants = [];
    for (const baseline of o.baseline ? [undefined, o.baseline] : [undefined]) {
      variants.push({ name: `${baseline ? 'with' : 'without'} a baseline, cold`, baseline, warm: false });
      variants.push({ name: `${baseline ? 'with' : 'without'} a baseline, warm`, baseline, warm: true });
    }
    const results = Object.fromEntries(variants.map((v) => [v.name, []]));
    for (let run = 0; run < o.runs; run++) {
      const storage = {};
      for (const v of variants) {
        const key = v.baseline ? 'baseline' : 'plain';
        // cold: a fresh storage folder; warm: the one the cold run of this round filled
        if (!v.warm) storage[key] = fs.mkdtempSync(path.join(tmp, 'storage-'));
        const r = await lspRun('apidrift', ctx, { edits: o.edits, baseline: v.baseline, init: { cacheDir: storage[key] } });
        if (r.error) process.stderr.write(`${v.name}: ${r.error}\n`);
        results[v.name].push(r);
        process.stderr.write(`${v.name}: VmHWM ${mb(r.memory?.hwmKb)}, VmRSS ${mb(r.memory?.rssKb)}, open ${ms(r.openMs)}, keystroke p95 ${ms(percentile(r.latencies, 95))}${r.fullIndexLog ? `; ${r.fullIndexLog}` : ''}\n`);
      }
    }
    const rows = variants.map((v) => {
      const rs = results[v.name].filter((r) => !r.error);
      return {
        name: v.name,
        hwmKb: median(rs.map((r) => r.memory?.hwmKb).filter((x) => x !== undefined)),
        rssKb: median(rs.map((r) => r.memory?.rssKb).filter((x) => x !== undefined)),
        openMs: median(rs.map((r) => r.openMs)),
        p50: median(rs.map((r) => percentile(r.latencies, 50))),
        p95: median(rs.map((r) => percentile(r.latencies, 95))),
        runs: rs.length,
        hwmRuns: rs.map((r) => Math.round((r.memory?.hwmKb ?? 0) / 1024)),
      };
    });
    const lines = ['| server started with its storage folder | VmHWM | VmRSS at the end | didOpen → diagnostics | keystroke p50 / p95 | VmHWM of each run |', '|---|---:|---:|---:|---:|---|'];
    for (const r of rows) lines.push(`| ${r.name} | ${mb(r.hwmKb)} | ${mb(r.rssKb)} | ${ms(r.openMs)} | ${ms(r.p50)} / ${ms(r.p95)} | ${r.hwmRuns.map((x) => `${x} MB`).join(', ')} |`);
    lines.push(`(${Math.round((Date.now() - started) / 1000)} s in all; ${o.edits} keystrokes a run; load average ${load0[0].toFixed(2)} at the start, ${os.loadavg()[0].toFixed(2)} at the end, on ${os.cpus().length} cores)`);
    console.log(lines.join('\n'));
    if (o.json) console.log(JSON.stringify({ target: o.target, baseline: o.baseline, file: o.lspFile, runs: o.runs, edits: o.edits, rows }, null, 2));
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().catch((e) => die(e.stack || String(e)));
