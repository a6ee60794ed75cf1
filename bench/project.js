#!/usr/bin/env node
/**
 * Whole projects and the cache, from the command line:
 *
 *   node bench/project.js --target PATH [--project DIR] [--file FILE] [--runs N] [--jobs N]
 *                         [--uses DIR --baseline PATH] [--dist DIR] [--json]
 *
 * Measures (medians over --runs, the variants of each round run one after the other so that the
 * machine's drift hits them alike; wall time, CPU time (user + sys of every thread, which the
 * machine's load does not change) and max RSS from /usr/bin/time -v):
 *   1. `check` of a whole project, run as it is typed (from the folder that holds the project, by
 *      its relative name): cold (--no-cache) on one thread (--jobs 1) and on every core,
 *      then warm (a cache filled by the previous run) on one thread and on every core; the
 *      statistics of every run must agree (they are printed once)
 *   2. `check` of one file (--file): cold (--no-cache) and warm, from a cache that holds the
 *      summaries of every module of the target (filled by `apidrift index`)
 *   3. with --uses and --baseline: `diff --uses DIR` warm, on one thread and on every core
 * There is no peer for these here: pyright over a project of this size is a different job (it
 * type-checks everything); bench/run.js measures pyright beside apidrift on one file and a folder.
 *
 * The dist/ bundle (or --dist DIR, e.g. an earlier build) is copied to a temporary folder first.
 * Plain Node, CommonJS, no dependencies.
 */
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const REPO = path.resolve(__dirname, '..');
const TIME_BIN = '/usr/bin/time';

function die(msg) {
  process.stderr.write(`bench/project: ${msg}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const o = { runs: 3, json: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => (a.includes('=') ? a.slice(a.indexOf('=') + 1) : argv[++i] ?? die(`${a} needs a value`));
    const key = a.split('=')[0];
    if (key === '--target') o.target = path.resolve(val());
    else if (key === '--project') o.project = path.resolve(val());
    else if (key === '--file') o.file = path.resolve(val());
    else if (key === '--uses') o.uses = path.resolve(val());
    else if (key === '--baseline') o.baseline = path.resolve(val());
    else if (key === '--runs') o.runs = Number(val());
    else if (key === '--jobs') o.jobs = val();
    else if (key === '--dist') o.dist = path.resolve(val());
    else if (a === '--json') o.json = true;
    else die(`unknown option ${a}`);
  }
  if (!o.target || (!o.project && !o.file)) die('usage: node bench/project.js --target PATH --project DIR [--file FILE] [--runs N] [--jobs N] [--uses DIR --baseline PATH] [--json]');
  return o;
}

function run(argv, env, cwd) {
  const out = path.join(os.tmpdir(), `apidrift-time-${process.pid}-${Math.random().toString(36).slice(2)}`);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(TIME_BIN, ['-v', '-o', out, process.execPath, ...argv], { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 512 * 1024 * 1024 });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  let rssKb;
  let cpuMs;
  try {
    const report = fs.readFileSync(out, 'utf8');
    rssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(report)[1]);
    cpuMs = 1000 * (Number(/User time \(seconds\): ([\d.]+)/.exec(report)[1]) + Number(/System time \(seconds\): ([\d.]+)/.exec(report)[1]));
    fs.unlinkSync(out);
  } catch {
    // no report
  }
  if (r.status !== 0 && r.status !== 1) die(`${argv.join(' ')} exited ${r.status}: ${r.stderr}`);
  let stats;
  try {
    stats = JSON.parse(r.stdout).stats;
  } catch {
    // not a check
  }
  return { ms, rssKb, cpuMs, stats };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? undefined : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmtMs = (x) => (x === undefined ? 'n/a' : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${Math.round(x)} ms`);
const fmtMb = (kb) => (kb === undefined ? 'n/a' : `${Math.round(kb / 1024)} MB`);

function main() {
  const o = parseArgs(process.argv.slice(2));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-bench-project-'));
  const dist = path.join(tmp, 'dist');
  fs.cpSync(o.dist ?? path.join(REPO, 'dist'), dist, { recursive: true });
  const cli = path.join(dist, 'cli.js');
  const load0 = os.loadavg();
  const started = Date.now();
  const jobs = o.jobs ? ['--jobs', o.jobs] : [];
  const variants = {};
  // the project is checked as it is typed: from the folder that holds it, by its relative name
  const projectCwd = o.project ? path.dirname(o.project) : undefined;
  const project = o.project ? path.basename(o.project) : undefined;
  if (o.project) Object.assign(variants, {
    'project cold, 1 thread': { argv: [cli, 'check', '--no-cache', '--jobs', '1', '--format', 'json', '--target', o.target, project], cwd: projectCwd },
    'project cold, every core': { argv: [cli, 'check', '--no-cache', ...jobs, '--format', 'json', '--target', o.target, project], cwd: projectCwd },
    'project warm, 1 thread': { argv: [cli, 'check', '--jobs', '1', '--format', 'json', '--target', o.target, project], cwd: projectCwd, warm: 'project' },
    'project warm, every core': { argv: [cli, 'check', ...jobs, '--format', 'json', '--target', o.target, project], cwd: projectCwd, warm: 'project' },
  });
  if (o.file) {
    variants['one file cold'] = { argv: [cli, 'check', '--no-cache', '--format', 'json', '--target', o.target, o.file] };
    variants['one file warm (cache of the whole target)'] = { argv: [cli, 'check', '--format', 'json', '--target', o.target, o.file], warm: 'index' };
  }
  if (o.uses && o.baseline) {
    variants['diff --uses, warm, 1 thread'] = { argv: [cli, 'diff', '--exit-zero', '--jobs', '1', '--format', 'json', '--baseline', o.baseline, '--target', o.target, '--uses', o.uses], warm: 'diff' };
    variants['diff --uses, warm, every core'] = { argv: [cli, 'diff', '--exit-zero', ...jobs, '--format', 'json', '--baseline', o.baseline, '--target', o.target, '--uses', o.uses], warm: 'diff' };
  }
  // the warm caches, filled once
  const caches = {};
  for (const kind of ['project', 'index', 'diff']) caches[kind] = fs.mkdtempSync(path.join(tmp, `xdg-${kind}-`));
  if (o.project) run([cli, 'check', '--format', 'json', '--target', o.target, project], { XDG_CACHE_HOME: caches.project }, projectCwd);
  run([cli, 'index', '--target', o.target], { XDG_CACHE_HOME: caches.index });
  if (o.uses && o.baseline) run(variants['diff --uses, warm, every core'].argv, { XDG_CACHE_HOME: caches.diff });
  const results = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
  const stats = new Set();
  for (let i = 0; i < o.runs; i++) {
    for (const [name, v] of Object.entries(variants)) {
      const env = { XDG_CACHE_HOME: v.warm ? caches[v.warm] : fs.mkdtempSync(path.join(tmp, 'xdg-cold-')) };
      const r = run(v.argv, env, v.cwd);
      results[name].push(r);
      if (name.startsWith('project') && r.stats) {
        const { ms, targetModulesRead, ...rest } = r.stats;
        stats.add(JSON.stringify(rest));
      }
      process.stderr.write(`${name}: ${fmtMs(r.ms)}, ${fmtMs(r.cpuMs)} CPU, ${fmtMb(r.rssKb)}, load ${os.loadavg()[0].toFixed(1)}\n`);
    }
  }
  const rows = Object.entries(results).map(([name, rs]) => ({ name, ms: median(rs.map((r) => r.ms)), cpuMs: median(rs.map((r) => r.cpuMs)), rssKb: median(rs.map((r) => r.rssKb)), runs: rs.map((r) => Math.round(r.ms)) }));
  const summary = {
    target: o.target,
    project: o.project,
    runs: o.runs,
    cores: os.cpus().length,
    loadAverage: { start: load0.map((x) => +x.toFixed(2)), end: os.loadavg().map((x) => +x.toFixed(2)) },
    seconds: Math.round((Date.now() - started) / 1000),
    sameStatistics: stats.size === 1,
    statistics: [...stats].map((s) => JSON.parse(s)),
    rows,
  };
  // CPU time (user + sys, every thread) does not depend on the load; on free cores a run takes at
  // least its CPU time spread over the threads that can run at once (one, or every core)
  const lines = ['| measurement | wall (median) | CPU user+sys (median) | wall on free cores, at best | max RSS (median) | runs (ms) |', '|---|---:|---:|---:|---:|---|'];
  for (const r of rows) lines.push(`| ${r.name} | ${fmtMs(r.ms)} | ${fmtMs(r.cpuMs)} | ${fmtMs(r.cpuMs / (r.name.includes('every core') ? os.cpus().length : 1))} | ${fmtMb(r.rssKb)} | ${r.runs.join(', ')} |`);
  const get = (n) => rows.find((r) => r.name === n);
  const ratio = (a, b) => (a && b ? (a.ms / b.ms).toFixed(2) : 'n/a');
  if (o.project) lines.push('', `every core / one thread: cold ${ratio(get('project cold, every core'), get('project cold, 1 thread'))}, warm ${ratio(get('project warm, every core'), get('project warm, 1 thread'))}`);
  if (o.file) lines.push(`one file warm / cold: ${ratio(get('one file warm (cache of the whole target)'), get('one file cold'))} (time), ${(get('one file warm (cache of the whole target)').rssKb / get('one file cold').rssKb).toFixed(2)} (max RSS)`);
  if (o.project) lines.push(`statistics of every project run ${summary.sameStatistics ? 'agree' : 'DIFFER'}: ${JSON.stringify(summary.statistics[0])}`);
  lines.push(`(${summary.seconds} s in all; load average ${summary.loadAverage.start[0]} at the start, ${summary.loadAverage.end[0]} at the end, on ${summary.cores} cores)`);
  console.log(lines.join('\n'));
  if (o.json) console.log(JSON.stringify(summary, null, 2));
  fs.rmSync(tmp, { recursive: true, force: true });
  if (o.project && !summary.sameStatistics) process.exitCode = 1;
}

main();
