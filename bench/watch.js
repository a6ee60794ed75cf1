#!/usr/bin/env node
/**
 * What watching a target folder costs the language server: a generated site-packages-like tree of
 * N folders (default 10,000, each with an `__init__.py`, plus a `*.dist-info` folder per package)
 * is watched the old way (`fs.watch(root, { recursive: true })`) and the new way (the server's
 * TargetWatcher: the top level only), each in a fresh process, beside a process that watches
 * nothing (the noise floor of this machine's timers). Printed per way: how long the call
 * itself blocks, the longest event-loop stall and the summed stalls over the next 3 s (a 1 ms
 * timer's lateness), memory (RSS and V8 heap after a forced GC, against the same process before
 * watching), the inotify watches held, and whether an upgrade (a dist-info folder replaced) is seen.
 *
 *   npx tsc -p . && node bench/watch.js [--folders 10000] [--runs 3] [--json]
 */
'use strict';
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');

function arg(name, def) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : def;
}

function inotifyWatches() {
  let n = 0;
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    let link = '';
    try {
      link = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (link === 'anon_inode:inotify') n += fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:')).length;
  }
  return n;
}

/** The child: watch `dir` one way and report. */
async function child(mode, dir) {
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // loaded in every mode, before the first measurement
  const { TargetWatcher } = require(path.join(ROOT, 'out', 'server', 'src', 'lsp', 'watch.js'));
  global.gc();
  await sleep(200);
  global.gc();
  const m0 = process.memoryUsage();
  let seen = 0;
  let watcher;
  const t0 = performance.now();
  if (mode === 'recursive') {
    watcher = fs.watch(dir, { recursive: true }, () => seen++);
  } else if (mode === 'none') {
    watcher = { close: () => undefined };
  } else {
    watcher = new TargetWatcher({ onChange: (files) => (seen += files.length), log: () => undefined });
    watcher.watch([dir]);
  }
  const callMs = performance.now() - t0;
  // event-loop stalls over the next 3 s: how late a 1 ms timer fires
  let maxStall = 0;
  let stalls = 0;
  let last = performance.now();
  await new Promise((resolve) => {
    const iv = setInterval(() => {
      const now = performance.now();
      const late = now - last - 1;
      if (late > 2) {
        stalls += late;
        maxStall = Math.max(maxStall, late);
      }
      last = now;
      if (now - t0 > 3000) {
        clearInterval(iv);
        resolve();
      }
    }, 1);
  });
  global.gc();
  await sleep(200);
  global.gc();
  const m1 = process.memoryUsage();
  const watches = inotifyWatches();
  // an upgrade: the old dist-info folder goes, a new one comes
  fs.rmSync(path.join(dir, 'pkg0-1.0.dist-info'), { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'pkg0-2.0.dist-info'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'pkg0-2.0.dist-info', 'METADATA'), 'Name: pkg0\nVersion: 2.0\n');
  await sleep(1200);
  const upgradeSeen = seen > 0;
  fs.rmSync(path.join(dir, 'pkg0-2.0.dist-info'), { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'pkg0-1.0.dist-info'));
  watcher.close();
  process.stdout.write(
    JSON.stringify({
      mode,
      callMs,
      maxStallMs: maxStall,
      stallsMs: stalls,
      blockedMs: callMs + stalls,
      rssMB: (m1.rss - m0.rss) / 1048576,
      heapMB: (m1.heapUsed - m0.heapUsed) / 1048576,
      externalMB: (m1.external + m1.arrayBuffers - m0.external - m0.arrayBuffers) / 1048576,
      watches,
      upgradeSeen,
    }),
  );
}

function makeTree(folders) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-watch-bench-'));
  const perPkg = 100;
  for (let i = 0; i < folders; i++) {
    const pkg = Math.floor(i / perPkg);
    const sub = i % perPkg;
    const d = sub === 0 ? path.join(dir, `pkg${pkg}`) : path.join(dir, `pkg${pkg}`, `sub${sub}`);
    fs.mkdirSync(d, { recursive: true });
    fs.writeFileSync(path.join(d, '__init__.py'), '');
    if (sub === 0) {
      fs.mkdirSync(path.join(dir, `pkg${pkg}-1.0.dist-info`));
      fs.writeFileSync(path.join(dir, `pkg${pkg}-1.0.dist-info`, 'METADATA'), `Name: pkg${pkg}\nVersion: 1.0\n`);
    }
  }
  return dir;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function main() {
  if (process.argv[2] === '--child') return child(process.argv[3], process.argv[4]);
  const folders = Number(arg('--folders', 10000));
  const runs = Number(arg('--runs', 3));
  const dir = makeTree(folders);
  const total = spawnSync('find', [dir, '-type', 'd']).stdout.toString().trim().split('\n').length;
  const results = { none: [], recursive: [], 'dist-info': [] };
  try {
    for (let r = 0; r < runs; r++) {
      for (const mode of ['none', 'recursive', 'dist-info']) {
        const p = spawnSync(process.execPath, ['--expose-gc', __filename, '--child', mode, dir], { encoding: 'utf8' });
        if (p.status !== 0) throw new Error(`${mode}: ${p.stderr}`);
        results[mode].push(JSON.parse(p.stdout));
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const keys = ['callMs', 'maxStallMs', 'blockedMs', 'rssMB', 'heapMB', 'externalMB', 'watches'];
  const summary = Object.fromEntries(Object.entries(results).map(([m, rs]) => [m, { ...Object.fromEntries(keys.map((k) => [k, median(rs.map((x) => x[k]))])), upgradeSeen: rs.every((x) => x.upgradeSeen) }]));
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ folders: total, runs, node: process.version, summary, results }, null, 2));
    return;
  }
  console.log(`${total} folders (${folders} package folders + dist-info + root), Node ${process.version}, median of ${runs} runs, each in a fresh process`);
  console.log('| watch | call blocks | longest stall after | blocked in all | RSS | V8 heap | inotify watches | upgrade seen |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---|');
  for (const [m, s] of Object.entries(summary)) {
    const label = { none: 'nothing (noise floor)', recursive: 'recursive fs.watch (before)', 'dist-info': 'top level, dist-info (after)' }[m];
    console.log(`| ${label} | ${s.callMs.toFixed(1)} ms | ${s.maxStallMs.toFixed(1)} ms | ${s.blockedMs.toFixed(1)} ms | ${s.rssMB.toFixed(1)} MB | ${s.heapMB.toFixed(1)} MB | ${s.watches} | ${s.upgradeSeen ? 'yes' : 'no'} |`);
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
