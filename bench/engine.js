#!/usr/bin/env node
/**
 * The keystroke path of the engine alone, in one process: no language server, no JSON-RPC.
 * An incremental engine opens the target (and the baseline), checks the file once, then takes the
 * keystrokes the LSP benchmark types (`planKeystrokes` of bench/run.js) one at a time, each timed
 * from the edit to the end of the re-check. Each run is a fresh process, so that every run starts
 * with code that is not compiled yet, as a server does.
 *
 *   npm run build && node bench/engine.js [--target PATH] [--baseline PATH] [--file FILE]
 *                                         [--shape calls|class|file] [--edits N] [--runs N] [--out DIR]
 *                                         [--as-server]
 *
 *   --target PATH    import root (folder, or .zip/.whl extracted once); default: the Python 3.12
 *                    standard library zip
 *   --baseline PATH  also check against this version, as the language server does with a baseline
 *   --file FILE      the edited file (default: ~600 generated lines of calls into the target)
 *   --shape S        where the keystrokes go, as in the LSP benchmark: `calls` (default) types at
 *                    top-level lines of the file; `class` generates ~900 lines of one big subclass
 *                    of a target class and types inside its methods; `file` types inside the
 *                    methods of --file
 *   --edits N        keystrokes per run (default 400)
 *   --runs N         runs (default 3)
 *   --out DIR        the compiled engine to measure (default: out/ of this checkout), so that two
 *                    builds can be measured side by side
 *   --as-server      run each child with the Node options the extension starts the server with
 *                    (server/src/lsp/launch.json: a small young generation) and, as the server
 *                    does once it has sent a check's diagnostics, collect the young generation
 *                    between keystrokes (outside the timed part)
 *
 * Prints, per run and as medians over the runs: p50 and p95 of the re-check time, the mean of
 * the first 20 keystrokes, and the total. Plain Node, CommonJS.
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');
const { generateLspFile, generateClassFile, planKeystrokes, planMethodKeystrokes, extractZip, percentile, median } = require('./run');

const REPO = path.resolve(__dirname, '..');

function parseArgs(argv) {
  const o = { target: path.join(REPO, 'node_modules', 'stdlib-py312', 'python_stdlib.zip'), edits: 400, runs: 3, out: path.join(REPO, 'out'), shape: 'calls' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      const v = argv[++i];
      if (v === undefined) die(`${a} needs a value`);
      return v;
    };
    if (a === '--target') o.target = path.resolve(val());
    else if (a === '--baseline') o.baseline = path.resolve(val());
    else if (a === '--file') o.file = path.resolve(val());
    else if (a === '--edits') o.edits = Number(val());
    else if (a === '--runs') o.runs = Number(val());
    else if (a === '--out') o.out = path.resolve(val());
    else if (a === '--shape') o.shape = val();
    else if (a === '--child') o.child = val();
    else if (a === '--as-server') o.asServer = true;
    else die(`unknown option ${a}`);
  }
  if (!(o.edits > 0) || !(o.runs > 0)) die('--edits and --runs take positive numbers');
  if (!['calls', 'class', 'file'].includes(o.shape)) die(`unknown shape '${o.shape}' (calls, class, file)`);
  if (o.shape === 'file' && !o.file && !o.child) die('--shape file needs --file');
  return o;
}

function die(msg) {
  process.stderr.write(`bench/engine: ${msg}\n`);
  process.exit(2);
}

/** One run, in this process: prints a JSON line with the re-check times. */
async function child(o) {
  const enginePath = path.join(o.out, 'server', 'src', 'engine', 'index.js');
  if (!fs.existsSync(enginePath)) die(`${enginePath} is missing: run npm run build`);
  const { Engine } = require(enginePath);
  const { TextDocument } = require('vscode-languageserver-textdocument');
  const file = o.child;
  const text = fs.readFileSync(file, 'utf8');
  const engine = await Engine.open({ targets: [o.target], baseline: o.baseline ? [o.baseline] : [], incremental: true, indexOnDemand: false });
  engine.revalidateEvery(Infinity); // as a server that watches its targets
  engine.check(text, file);
  if (o.baseline) await engine.program.buildFullIndexAsync(); // the server builds it in the background
  const doc = TextDocument.create('file:///bench.py', 'python', 1, text);
  const times = [];
  let version = 1;
  const plan = o.shape === 'calls' ? planKeystrokes(text, o.edits) : planMethodKeystrokes(text, o.edits);
  if (!plan) die(`${file} has no one-line call inside a method to type into`);
  for (const e of plan.edits) {
    TextDocument.update(doc, [{ range: e.range, text: e.text }], ++version);
    const t = performance.now();
    engine.check(doc.getText(), file);
    times.push(performance.now() - t);
    if (o.asServer) global.gc({ type: 'minor' });
  }
  const first = times.slice(0, 20);
  process.stdout.write(`${JSON.stringify({ p50: percentile(times, 50), p95: percentile(times, 95), first20: first.reduce((a, b) => a + b, 0) / first.length, total: times.reduce((a, b) => a + b, 0), edits: times.length })}\n`);
}

function main(o) {
  let target = o.target;
  if (!fs.existsSync(target)) die(`no such target: ${target}`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-engine-bench-'));
  if (fs.statSync(target).isFile()) {
    target = path.join(tmp, 'target');
    fs.mkdirSync(target);
    extractZip(o.target, target);
  }
  try {
    let file = o.shape === 'class' ? undefined : o.file;
    if (o.shape === 'class') {
      const generated = generateClassFile(target, 900);
      if (!generated) die('found no class with enough plain methods in the target to generate the class file from');
      file = path.join(tmp, 'bench_class.py');
      fs.writeFileSync(file, generated);
    } else if (!file) {
      // outside the target: a file inside it is checked as one of its modules
      const generated = generateLspFile(target, 600);
      if (!generated) die('found no plain functions in the target to generate a file from; pass --file');
      file = path.join(tmp, 'bench_calls.py');
      fs.writeFileSync(file, generated);
    }
    const runs = [];
    for (let r = 0; r < o.runs; r++) {
      const args = [...(o.asServer ? [...require('../server/src/lsp/launch.json').execArgv, '--expose-gc'] : []), __filename, ...(o.asServer ? ['--as-server'] : []), '--target', target, '--edits', String(o.edits), '--out', o.out, '--shape', o.shape, '--child', file];
      if (o.baseline) args.push('--baseline', o.baseline);
      const res = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 16 << 20 });
      if (res.status !== 0) die(`run ${r + 1} failed: ${(res.stderr || '').trim().split('\n').slice(-5).join(' | ')}`);
      const one = JSON.parse(res.stdout.trim().split('\n').pop());
      runs.push(one);
      console.log(`run ${r + 1}: p50 ${one.p50.toFixed(2)} ms, p95 ${one.p95.toFixed(2)} ms, first 20 ${one.first20.toFixed(2)} ms, total ${Math.round(one.total)} ms (${one.edits} keystrokes)`);
    }
    const med = (k) => median(runs.map((x) => x[k]));
    console.log(`engine ${path.relative(process.cwd(), o.out) || '.'}${o.asServer ? ' (as the server runs it)' : ''}, target ${o.target}${o.baseline ? `, baseline ${o.baseline}` : ''}, file ${o.shape === 'class' ? '(generated class)' : o.file || '(generated)'}, shape ${o.shape}`);
    console.log(`medians of ${runs.length} runs: p50 ${med('p50').toFixed(2)} ms, p95 ${med('p95').toFixed(2)} ms, first 20 ${med('first20').toFixed(2)} ms, total ${Math.round(med('total'))} ms`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const opts = parseArgs(process.argv.slice(2));
if (opts.child) {
  child(opts).catch((e) => {
    process.stderr.write(`${e.stack || e}\n`);
    process.exit(2);
  });
} else main(opts);
