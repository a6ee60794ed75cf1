#!/usr/bin/env node
/**
 * apidrift vs pyright, side by side, on the same inputs, in one run.
 *
 *   node bench/run.js [--target PATH] [--file FILE] [--dir DIR] [--lsp-file FILE]
 *                     [--runs N] [--edits N] [--quick] [--json] [--baseline PATH]
 *                     [--python-version X.Y] [--peer-index | --no-peer-index] [--build] [--keep]
 *                     [--lsp-only] [--no-peer-lsp]
 *
 * Measures (medians over --runs, each tool run alternately so drift hits both alike):
 *   1. one file, cold: `apidrift check --no-cache` vs `pyright` on that file (wall time, max RSS)
 *   2. a directory, cold: the same over a folder
 *   3. the full index of the target: apidrift `index` without cache, writing a fresh cache, and
 *      warm from that cache; pyright's nearest peer is a full `pyright --outputjson` over the
 *      target itself (it type-checks every module: an upper bound, not a like-for-like index)
 *   4. keystrokes through the language servers: server start -> first diagnostics, and the same
 *      from the didOpen notification, then N one-key didChange edits, each timed didChange ->
 *      publishDiagnostics of that version
 *   5. peak memory: /usr/bin/time -v max RSS of the CLI runs, VmHWM of each server after its run
 *      (and its VmRSS then: what it holds once the keystrokes are over)
 *
 * pyright is installed on demand into ~/.cache/apidrift-bench (never into the repo).
 * The dist/ bundle is copied to a temporary folder first, so a rebuild during the run cannot
 * mix two builds. Plain Node, CommonJS, no dependencies.
 */
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const zlib = require('zlib');
const { spawn, spawnSync } = require('child_process');
const { pathToFileURL } = require('url');

const REPO = path.resolve(__dirname, '..');
const PYRIGHT_VERSION = '1.1.414';
const BENCH_CACHE = process.env.APIDRIFT_BENCH_CACHE || path.join(os.homedir(), '.cache', 'apidrift-bench');
const DEFAULT_TARGET = path.join(REPO, 'node_modules', 'stdlib-py312', 'python_stdlib.zip');
const DEFAULT_FILE = path.join(REPO, 'examples', 'stdlib311_user.py');
const TIME_BIN = '/usr/bin/time';
/** The Node options the VS Code extension starts the language server with. */
const SERVER_EXEC_ARGV = require('../server/src/lsp/launch.json').execArgv;

// ---------------------------------------------------------------------------------------------
// arguments

const USAGE = `usage: node bench/run.js [--target PATH] [--file FILE] [--dir DIR] [--lsp-file FILE]
                         [--runs N] [--edits N] [--quick] [--json] [--baseline PATH]
                         [--python-version X.Y] [--peer-index|--no-peer-index] [--build] [--keep]
                         [--lsp-only] [--no-peer-lsp]

  --target PATH     import root of the target (folder, or .zip/.whl: extracted once for both tools);
                    default: the Python 3.12 stdlib zip (node_modules/stdlib-py312/python_stdlib.zip)
  --file FILE       file for the one-file run (default examples/stdlib311_user.py)
  --dir DIR         folder for the directory run (default: 40 generated variants of --file)
  --lsp-file FILE   file opened in the language servers (default: ~600 generated lines of calls
                    into the target)
  --runs N          runs per measurement (default 5)
  --edits N         keystrokes per LSP run (default 200)
  --quick           1 run, 40 keystrokes, no pyright full-target check (CI smoke)
  --json            also print a JSON summary
  --baseline PATH   also run the apidrift server with this baseline (it then builds the target's
                    full index in the background; memory and keystrokes are measured after it)
  --python-version  pythonVersion for pyright (default 3.12 with the default stdlib target)
  --peer-index      run pyright over the whole target even with --quick; --no-peer-index skips it
  --build           run \`npm run build\` first
  --keep            keep the temporary folder
  --lsp-only        measure only the language servers (4. and their memory)
  --no-peer-lsp     run only apidrift's language server (no pyright peer for 4.)
  --shapes LIST     documents for the language servers, comma-separated (default: calls):
                      calls  ~600 generated lines of top-level functions, typing a line at a
                             blank top-level line (or --lsp-file typed that way)
                      class  ~900 generated lines: one subclass of the target class with the most
                             methods (a model runner in vLLM), many methods; typing a keyword
                             argument into calls inside its methods
                      file   --lsp-file (else --file), typing a keyword argument into calls inside
                             its methods
                    the first shape fills the rows 4. of the main table; every shape gets a table`;

function parseArgs(argv) {
  const o = { runs: 5, edits: 200, quick: false, json: false, build: false, keep: false, peerIndex: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const val = () => {
      if (a.includes('=')) return a.slice(a.indexOf('=') + 1);
      const v = argv[++i];
      if (v === undefined) die(`${a} needs a value`);
      return v;
    };
    const key = a.split('=')[0];
    if (key === '--target') o.target = path.resolve(val());
    else if (key === '--file') o.file = path.resolve(val());
    else if (key === '--dir') o.dir = path.resolve(val());
    else if (key === '--lsp-file') o.lspFile = path.resolve(val());
    else if (key === '--baseline') o.baseline = path.resolve(val());
    else if (key === '--python-version') o.pythonVersion = val();
    else if (key === '--runs') o.runs = positiveInt(val(), '--runs');
    else if (key === '--edits') o.edits = positiveInt(val(), '--edits');
    else if (a === '--quick') o.quick = true;
    else if (a === '--json') o.json = true;
    else if (a === '--build') o.build = true;
    else if (a === '--keep') o.keep = true;
    else if (a === '--lsp-only') o.lspOnly = true;
    else if (a === '--no-peer-lsp') o.noPeerLsp = true;
    else if (key === '--shapes') {
      o.shapes = val().split(',').filter(Boolean);
      for (const sh of o.shapes) if (!['calls', 'class', 'file'].includes(sh)) die(`unknown shape '${sh}' (calls, class, file)`);
    }
    else if (a === '--peer-index') o.peerIndex = true;
    else if (a === '--no-peer-index') o.peerIndex = false;
    else if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else die(`unknown argument '${a}'\n${USAGE}`);
  }
  if (o.quick) {
    if (!argv.some((a) => a.startsWith('--runs'))) o.runs = 1;
    if (!argv.some((a) => a.startsWith('--edits'))) o.edits = 40;
    if (o.peerIndex === undefined) o.peerIndex = false;
  }
  if (o.peerIndex === undefined) o.peerIndex = true;
  if (!o.shapes || o.shapes.length === 0) o.shapes = ['calls'];
  return o;
}

function positiveInt(s, what) {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 1) die(`${what} must be a positive integer, not '${s}'`);
  return n;
}

function die(msg) {
  process.stderr.write(`bench: ${msg}\n`);
  process.exit(2);
}

function note(msg) {
  process.stderr.write(`bench: ${msg}\n`);
}

// ---------------------------------------------------------------------------------------------
// small helpers

function median(xs) {
  const v = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** Nearest-rank percentile. */
function percentile(xs, p) {
  const v = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (v.length === 0) return undefined;
  return v[Math.min(v.length - 1, Math.max(0, Math.ceil((p / 100) * v.length) - 1))];
}

function round1(x) {
  return x === undefined ? undefined : Math.round(x * 10) / 10;
}

function mkdirp(d) {
  fs.mkdirSync(d, { recursive: true });
  return d;
}

function writeJson(file, obj) {
  fs.writeFileSync(file, JSON.stringify(obj, null, 2) + '\n');
}

// ---------------------------------------------------------------------------------------------
// a .zip/.whl extractor (stored and deflated members), so no unzip binary is needed

function extractZip(zipFile, dest) {
  const buf = fs.readFileSync(zipFile);
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 65535); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new Error(`${zipFile}: not a zip archive`);
  const count = buf.readUInt16LE(eocd + 10);
  let p = buf.readUInt32LE(eocd + 16);
  let files = 0;
  for (let n = 0; n < count; n++) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`${zipFile}: bad central directory`);
    const method = buf.readUInt16LE(p + 10);
    const csize = buf.readUInt32LE(p + 20);
    const nameLen = buf.readUInt16LE(p + 28);
    const extraLen = buf.readUInt16LE(p + 30);
    const commentLen = buf.readUInt16LE(p + 32);
    const local = buf.readUInt32LE(p + 42);
    const name = buf.toString('utf8', p + 46, p + 46 + nameLen);
    p += 46 + nameLen + extraLen + commentLen;
    const out = path.resolve(dest, name);
    if (!out.startsWith(path.resolve(dest) + path.sep)) continue; // no escaping the folder
    if (name.endsWith('/')) {
      mkdirp(out);
      continue;
    }
    const start = local + 30 + buf.readUInt16LE(local + 26) + buf.readUInt16LE(local + 28);
    const raw = buf.subarray(start, start + csize);
    let data;
    if (method === 0) data = raw;
    else if (method === 8) data = zlib.inflateRawSync(raw);
    else throw new Error(`${zipFile}: ${name}: compression method ${method} not supported`);
    mkdirp(path.dirname(out));
    fs.writeFileSync(out, data);
    files++;
  }
  return files;
}

// ---------------------------------------------------------------------------------------------
// pyright, installed on demand outside the repo

function ensurePyright() {
  const pkgDir = path.join(BENCH_CACHE, 'node_modules', 'pyright');
  const have = () => {
    try {
      return JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version === PYRIGHT_VERSION;
    } catch {
      return false;
    }
  };
  if (!have()) {
    note(`installing pyright@${PYRIGHT_VERSION} into ${BENCH_CACHE} (once)`);
    mkdirp(BENCH_CACHE);
    const r = spawnSync('npm', ['install', '--prefix', BENCH_CACHE, '--no-audit', '--no-fund', `pyright@${PYRIGHT_VERSION}`], { stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0 || !have()) die(`could not install pyright@${PYRIGHT_VERSION} (npm exit ${r.status})`);
  }
  return { cli: path.join(pkgDir, 'index.js'), langserver: path.join(pkgDir, 'langserver.index.js') };
}

// ---------------------------------------------------------------------------------------------
// inputs

/** Copies dist/ so a concurrent rebuild cannot change the code under measurement. */
function snapshotDist(tmp, build) {
  if (build || !fs.existsSync(path.join(REPO, 'dist', 'cli.js'))) {
    note('building apidrift (npm run build)');
    const r = spawnSync('npm', ['run', 'build', '--silent'], { cwd: REPO, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) die('npm run build failed');
  }
  const dst = mkdirp(path.join(tmp, 'apidrift-dist'));
  for (const f of fs.readdirSync(path.join(REPO, 'dist'))) {
    if (/\.(js|wasm)$/.test(f)) fs.copyFileSync(path.join(REPO, 'dist', f), path.join(dst, f));
  }
  for (const f of ['cli.js', 'server.js']) if (!fs.existsSync(path.join(dst, f))) die(`dist/${f} is missing: run npm run build`);
  return { cli: path.join(dst, 'cli.js'), server: path.join(dst, 'server.js') };
}

/** Python files under a folder, as import names, in a stable order. */
function targetModules(root, limit = 20000) {
  const out = [];
  const skipDir = /^(tests?|testing|examples?|benchmarks?|docs?|site-packages|__pycache__|idlelib|lib2to3|turtledemo|ensurepip|venv)$/;
  const walk = (dir, parts) => {
    let entries;
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch {
      return;
    }
    for (const e of entries) {
      if (out.length >= limit) return;
      if (e.name.startsWith('.') || e.name.startsWith('_') && e.name !== '__init__.py') continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (skipDir.test(e.name) || !/^[A-Za-z]\w*$/.test(e.name)) continue;
        walk(full, [...parts, e.name]);
      } else if (e.isFile() && e.name.endsWith('.py')) {
        const stem = e.name.slice(0, -3);
        if (stem === '__init__') {
          if (parts.length) out.push({ name: parts.join('.'), file: full });
        } else if (/^[A-Za-z]\w*$/.test(stem) && !/^test_|_test$/.test(stem)) out.push({ name: [...parts, stem].join('.'), file: full });
      }
    }
  };
  walk(root, []);
  return out;
}

/** Splits a parameter list at top-level commas. */
function splitParams(s) {
  const out = [];
  let depth = 0;
  let cur = '';
  let quote = '';
  for (const c of s) {
    if (quote) {
      if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
      continue;
    }
    cur += c;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

const PY_KEYWORDS = new Set('False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case type print exec'.split(' '));

/** Top-level plain functions of a module whose required arguments are all positional. */
function simpleFunctions(text) {
  const lines = text.split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^def ([a-z][A-Za-z0-9_]*)\((.*)\)\s*(->.*)?:\s*(#.*)?$/.exec(lines[i]);
    if (!m || PY_KEYWORDS.has(m[1])) continue;
    let j = i - 1;
    while (j >= 0 && lines[j].trim() === '') j--;
    if (j >= 0 && lines[j].startsWith('@')) continue; // decorated: leave it out
    let required = 0;
    let ok = true;
    let star = false;
    for (const p of splitParams(m[2])) {
      if (p === '/') continue;
      if (p === '*' || p.startsWith('*')) {
        star = true;
        if (p.startsWith('**')) break;
        continue;
      }
      if (p.includes('=')) continue;
      if (star) {
        ok = false; // a required keyword-only parameter
        break;
      }
      required++;
    }
    if (ok && required <= 4) out.push({ name: m[1], required });
  }
  return out;
}

/**
 * About `lines` lines of calls into the target: imports on top, then functions of ten calls
 * each; one call in twenty passes an unknown keyword so both tools have something to report.
 */
function generateLspFile(targetDir, lines = 600) {
  const mods = targetModules(targetDir, 4000);
  const candidates = [];
  for (const m of mods) {
    let text;
    try {
      text = fs.readFileSync(m.file, 'utf8');
    } catch {
      continue;
    }
    const fns = simpleFunctions(text).slice(0, 4);
    if (fns.length) candidates.push({ module: m.name, fns });
  }
  if (candidates.length === 0) return undefined;
  // spread the modules evenly over the target, 90 at most
  const want = Math.min(90, candidates.length);
  const picked = Array.from({ length: want }, (_, i) => candidates[Math.floor((i * candidates.length) / want)]);
  const head = ['"""Generated by bench/run.js: calls into the target, for the keystroke benchmark."""'];
  for (const p of picked) head.push(`import ${p.module}`);
  head.push('');
  const calls = [];
  for (let round = 0; round < 4; round++) for (const p of picked) if (p.fns[round]) calls.push(`${p.module}.${p.fns[round].name}`);
  const arity = new Map();
  for (const p of picked) for (const f of p.fns) arity.set(`${p.module}.${f.name}`, f.required);
  const body = [];
  let n = 0;
  let block = 0;
  while (head.length + body.length < lines - 3) {
    body.push('', `def block_${block++}():`);
    for (let k = 0; k < 10; k++, n++) {
      const callee = calls[n % calls.length];
      const args = Array.from({ length: arity.get(callee) }, () => 'None');
      if (n % 20 === 19) args.push('bench_unknown_keyword=1');
      body.push(`    r${n} = ${callee}(${args.join(', ')})`);
    }
    body.push(`    return r${n - 1}`);
  }
  return head.concat(body).join('\n') + '\n';
}

/** Plain methods of the classes of a module: `class X(...):` then `    def m(self, ...):` on one line each. */
function classesWithMethods(text) {
  const out = [];
  let cls;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const c = /^class ([A-Z][A-Za-z0-9_]*)\b.*:\s*(#.*)?$/.exec(lines[i]);
    if (c) {
      cls = { name: c[1], methods: [] };
      out.push(cls);
      continue;
    }
    if (/^\S/.test(lines[i])) cls = undefined;
    const m = cls && /^    def ([a-z_][A-Za-z0-9_]*)\(self(?:,\s*(.*))?\)\s*(->.*)?:\s*(#.*)?$/.exec(lines[i]);
    if (!m || m[1].startsWith('__') || PY_KEYWORDS.has(m[1])) continue;
    let j = i - 1;
    while (j >= 0 && lines[j].trim() === '') j--;
    if (j >= 0 && lines[j].trim().startsWith('@')) continue; // decorated: leave it out
    let required = 0;
    let ok = true;
    let star = false;
    for (const p of splitParams(m[2] || '')) {
      if (p === '/') continue;
      if (p === '*' || p.startsWith('*')) {
        star = true;
        if (p.startsWith('**')) break;
        continue;
      }
      if (p.includes('=')) continue;
      if (star) {
        ok = false;
        break;
      }
      required++;
    }
    if (ok && required <= 4) cls.methods.push({ name: m[1], required });
  }
  return out;
}

/**
 * About `lines` lines that are one big class, as a plugin's model-runner subclass is: a subclass
 * of the target class with the most plain methods (a `...ModelRunner` when the target has one),
 * whose methods call inherited methods on `self`, keep instances in attributes and call
 * top-level functions of the target; one call in twenty passes an unknown keyword.
 */
function generateClassFile(targetDir, lines = 900) {
  const mods = targetModules(targetDir, 4000);
  let best;
  const fnCandidates = [];
  for (const m of mods) {
    let text;
    try {
      text = fs.readFileSync(m.file, 'utf8');
    } catch {
      continue;
    }
    const fns = simpleFunctions(text).slice(0, 2);
    if (fns.length) fnCandidates.push({ module: m.name, fns });
    for (const c of classesWithMethods(text)) {
      const score = c.methods.length + (/ModelRunner$/.test(c.name) ? 1000 : 0);
      if (c.methods.length >= 8 && (!best || score > best.score)) best = { module: m.name, cls: c, score };
    }
  }
  if (!best || fnCandidates.length === 0) return undefined;
  const want = Math.min(40, fnCandidates.length);
  const picked = Array.from({ length: want }, (_, i) => fnCandidates[Math.floor((i * fnCandidates.length) / want)]);
  const fns = picked.flatMap((p) => p.fns.map((f) => ({ callee: `${p.module}.${f.name}`, required: f.required })));
  const methods = best.cls.methods;
  const head = ['"""Generated by bench/run.js: one big subclass of a target class, for the keystroke benchmark."""', ''];
  for (const p of picked) head.push(`import ${p.module}`);
  head.push(`from ${best.module} import ${best.cls.name}`, '', '', `class BenchRunner(${best.cls.name}):`, `    """A subclass of ${best.cls.name} with many methods."""`, '');
  head.push('    def __init__(self, *args, **kwargs):', '        super().__init__(*args, **kwargs)', '        self.bench_steps = 0', '        self.bench_cache = {}', '');
  const body = [];
  const nones = (n) => Array.from({ length: n }, () => 'None').join(', ');
  let n = 0;
  for (let k = 0; head.length + body.length < lines - 2; k++) {
    const m = methods[k % methods.length];
    const f1 = fns[(2 * k) % fns.length];
    const f2 = fns[(2 * k + 1) % fns.length];
    const extra = (++n % 20 === 0) ? ', bench_unknown_keyword=1' : '';
    body.push(
      `    def bench_step_${k}(self, batch, config=None):`,
      `        """Step ${k}."""`,
      `        out = ${f1.callee}(${nones(f1.required)}${extra})`,
      `        value = self.${m.name}(${nones(m.required)})`,
      `        if batch is None:`,
      `            return out`,
      `        self.bench_cache["k${k}"] = ${f2.callee}(${nones(f2.required)})`,
      `        self.bench_steps += 1`,
      `        return value`,
      '',
    );
  }
  return head.concat(body).join('\n') + '\n';
}

/**
 * Keystrokes inside methods: at calls written on one line inside a method body (indented twice or
 * more), near the middle of the file, a keyword argument `, bench_kw=1` is typed before the
 * closing bracket, one character per edit; then the next such call.
 */
function planMethodKeystrokes(text, count) {
  const lines = text.split('\n');
  const calls = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (!/^ {8,}\S/.test(l) || l.includes('#') || !/\)\s*$/.test(l)) continue;
    const close = l.lastIndexOf(')');
    const open = l.indexOf('(');
    if (open < 0 || (l.match(/\(/g) || []).length !== (l.match(/\)/g) || []).length) continue;
    // a call with arguments, not a definition or a decorator
    if (/^\s*(def|class|@|if|elif|while|for|with|return\s*$)/.test(l) || close === open + 1) continue;
    calls.push({ line: i, col: close });
  }
  if (calls.length === 0) return undefined;
  // start near the middle, going down, wrapping around
  const mid = calls.findIndex((c) => c.line >= lines.length / 2);
  const order = calls.slice(Math.max(0, mid)).concat(calls.slice(0, Math.max(0, mid)));
  const edits = [];
  let k = 0;
  while (edits.length < count) {
    const c = order[k % order.length];
    const typed = `, bench_kw${Math.floor(k / order.length) || ''}=1`;
    k++;
    for (let i = 0; i < typed.length && edits.length < count; i++) {
      const p = { line: c.line, character: c.col + i };
      edits.push({ range: { start: p, end: p }, text: typed[i] });
    }
    // later calls on the same line move right
    for (const d of order) if (d.line === c.line && d !== c && d.col > c.col) d.col += typed.length;
    c.col += typed.length;
  }
  return { edits, line: order[0].line, sample: lines[order[0].line].trim() };
}

/** `count` variants of one file: copies under different names with a varying header. */
function generateDir(file, dir, count = 40) {
  const text = fs.readFileSync(file, 'utf8');
  const base = path.basename(file, '.py');
  mkdirp(dir);
  for (let i = 0; i < count; i++) {
    const sub = mkdirp(path.join(dir, `pkg${Math.floor(i / 10)}`));
    fs.writeFileSync(path.join(sub, `${base}_${String(i).padStart(2, '0')}.py`), `# variant ${i} of ${path.basename(file)}\n${text}${i % 2 ? `\n\ndef variant_${i}():\n    return ${i}\n` : ''}`);
  }
  return dir;
}

/**
 * The keystrokes: where to type (a blank top-level line near the middle, else the end) and what
 * (single-line dotted calls of the file itself, dedented), typed as an editor would, with
 * brackets and quotes closed automatically and typed over.
 */
function planKeystrokes(text, count) {
  const lines = text.split('\n');
  let at = -1;
  for (let d = 0; d < lines.length && at < 0; d++) {
    for (const i of [Math.floor(lines.length / 2) + d, Math.floor(lines.length / 2) - d]) {
      if (i <= 0 || i >= lines.length - 1 || lines[i].trim() !== '') continue;
      let j = i + 1;
      while (j < lines.length && lines[j].trim() === '') j++;
      if (j < lines.length && /^[A-Za-z@]/.test(lines[j])) {
        at = i;
        break;
      }
    }
  }
  let line = at >= 0 ? at : lines.length - 1;
  let col = lines[line].length;
  const sources = [];
  const seen = new Set();
  for (const l of lines) {
    const m = /^\s+((?:[A-Za-z_]\w* = )?[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)+\(.*\))\s*$/.exec(l);
    if (m && !seen.has(m[1]) && !/["'#\\]/.test(m[1])) {
      seen.add(m[1]);
      sources.push(m[1]);
    }
    if (sources.length >= 8) break;
  }
  if (sources.length === 0) sources.push('bench_value = len(str(1))');
  const closers = { '(': ')', '[': ']', '{': '}' };
  const edits = [];
  const stack = [];
  let s = 0;
  const prefix = at >= 0 ? '' : '\n';
  let typed = '';
  while (edits.length < count) {
    const stmt = (s === 0 ? prefix : '') + sources[s % sources.length] + '\n';
    s++;
    for (const c of stmt) {
      if (edits.length >= count) break;
      let insert = c;
      if (stack.length && stack[stack.length - 1] === c) {
        stack.pop();
        col++; // typed over the closer: the editor sends no change
        continue;
      }
      if (closers[c]) {
        insert = c + closers[c];
        stack.push(closers[c]);
      }
      edits.push({ range: { start: { line, character: col }, end: { line, character: col } }, text: insert });
      typed += insert;
      if (c === '\n') {
        line++;
        col = 0;
      } else col++;
    }
  }
  return { edits, line: at >= 0 ? at : lines.length - 1, sample: sources[0] };
}

// ---------------------------------------------------------------------------------------------
// running a CLI: wall time and max RSS

function runTimed(argv, opts = {}) {
  const timeOut = path.join(opts.tmp, `time-${process.pid}-${Math.random().toString(36).slice(2)}.txt`);
  const useTime = fs.existsSync(TIME_BIN);
  const cmd = useTime ? TIME_BIN : argv[0];
  const args = useTime ? ['-v', '-o', timeOut, ...argv] : argv.slice(1);
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { cwd: opts.cwd, env: { ...process.env, ...(opts.env || {}) }, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  let maxRssKb;
  if (useTime) {
    try {
      const t = fs.readFileSync(timeOut, 'utf8');
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(t);
      if (m) maxRssKb = Number(m[1]);
      fs.unlinkSync(timeOut);
    } catch {
      // no report
    }
  }
  const ok = r.status === 0 || (opts.okCodes || []).includes(r.status);
  return { ms, maxRssKb, code: r.status, ok, stdout: r.stdout || '', stderr: r.stderr || '', error: r.error };
}

function jsonOf(s) {
  try {
    return JSON.parse(s);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// a minimal LSP client over stdio

class LspClient {
  constructor(name, argv, opts) {
    this.name = name;
    this.proc = spawn(argv[0], argv.slice(1), { cwd: opts.cwd, env: { ...process.env, ...(opts.env || {}) }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.settingsFor = opts.settingsFor || (() => null);
    this.nextId = 1;
    this.pending = new Map();
    this.waiters = [];
    this.publishes = []; // { uri, version, count, at }
    this.logs = [];
    this.stderr = '';
    this.exited = false;
    this.buf = Buffer.alloc(0);
    this.proc.stdout.on('data', (d) => this.onData(d));
    this.proc.stderr.on('data', (d) => {
      this.stderr += d;
      if (this.stderr.length > 100000) this.stderr = this.stderr.slice(-50000);
    });
    this.proc.on('exit', (code, sig) => {
      this.exited = true;
      this.exitInfo = `exit ${code}${sig ? ` (${sig})` : ''}`;
      this.wake();
    });
    this.proc.stdin.on('error', () => undefined);
  }

  onData(d) {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const sep = this.buf.indexOf('\r\n\r\n');
      if (sep < 0) return;
      const header = this.buf.toString('ascii', 0, sep);
      const m = /Content-Length: *(\d+)/i.exec(header);
      if (!m) throw new Error(`${this.name}: bad header ${header}`);
      const len = Number(m[1]);
      if (this.buf.length < sep + 4 + len) return;
      const body = this.buf.toString('utf8', sep + 4, sep + 4 + len);
      this.buf = this.buf.subarray(sep + 4 + len);
      this.onMessage(JSON.parse(body), performance.now());
    }
  }

  onMessage(msg, at) {
    if (msg.method && msg.id !== undefined) {
      let result = null;
      if (msg.method === 'workspace/configuration') result = (msg.params.items || []).map((it) => this.settingsFor(it.section));
      this.write({ jsonrpc: '2.0', id: msg.id, result });
      return;
    }
    if (msg.id !== undefined && this.pending.has(msg.id)) {
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`${this.name}: ${msg.error.message}`));
      else p.resolve(msg.result);
      return;
    }
    if (msg.method === 'textDocument/publishDiagnostics') {
      this.publishes.push({ uri: msg.params.uri, version: msg.params.version, count: msg.params.diagnostics.length, at });
    } else if (msg.method === 'window/logMessage' || msg.method === 'window/showMessage') {
      this.logs.push({ message: msg.params.message, at });
      if (this.logs.length > 20000) this.logs.splice(0, 10000);
    }
    this.wake();
  }

  wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  write(msg) {
    if (this.exited) return;
    const body = Buffer.from(JSON.stringify(msg), 'utf8');
    this.proc.stdin.write(`Content-Length: ${body.length}\r\n\r\n`);
    this.proc.stdin.write(body);
  }

  request(method, params) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method, params) {
    this.write({ jsonrpc: '2.0', method, params });
  }

  /** Resolves with pred()'s value once it holds; rejects after ms or when the server exits. */
  waitFor(what, pred, ms) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${this.name}: timed out after ${ms} ms waiting for ${what}`)), ms);
      const check = () => {
        const v = pred();
        if (v) {
          clearTimeout(timer);
          resolve(v);
        } else if (this.exited) {
          clearTimeout(timer);
          reject(new Error(`${this.name}: server ended (${this.exitInfo}) while waiting for ${what}\n${this.stderr.slice(-2000)}`));
        } else this.waiters.push(check);
      };
      check();
    });
  }

  /** The first publish for uri after index `from` for `version` (or with no version, as pyright may send). */
  waitPublish(uri, version, from, ms) {
    return this.waitFor(`diagnostics of v${version}`, () => {
      for (let i = from; i < this.publishes.length; i++) {
        const p = this.publishes[i];
        if (p.uri === uri && (p.version === undefined || p.version === null || p.version >= version)) return p;
      }
      return undefined;
    }, ms);
  }

  memory() {
    return procMemory(this.proc.pid);
  }

  async shutdown() {
    try {
      await Promise.race([this.request('shutdown', null), new Promise((r) => setTimeout(r, 5000))]);
      this.notify('exit', null);
    } catch {
      // gone
    }
    await Promise.race([new Promise((r) => (this.exited ? r() : this.proc.once('exit', r))), new Promise((r) => setTimeout(r, 3000))]);
    if (!this.exited) this.proc.kill();
  }
}

/** VmHWM / VmRSS (kB) of a process, and of its descendants added together. */
function procMemory(pid) {
  const read = (p) => {
    try {
      const s = fs.readFileSync(`/proc/${p}/status`, 'utf8');
      const hwm = /VmHWM:\s+(\d+) kB/.exec(s);
      const rss = /VmRSS:\s+(\d+) kB/.exec(s);
      return { hwmKb: hwm ? Number(hwm[1]) : undefined, rssKb: rss ? Number(rss[1]) : undefined };
    } catch {
      return {};
    }
  };
  const children = (p) => {
    const out = [];
    try {
      for (const t of fs.readdirSync(`/proc/${p}/task`)) {
        const c = fs.readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').trim();
        if (c) out.push(...c.split(/\s+/).map(Number));
      }
    } catch {
      // no /proc
    }
    return out;
  };
  const self = read(pid);
  let kids = 0;
  let kidsHwm = 0;
  const todo = children(pid);
  while (todo.length) {
    const c = todo.pop();
    kids++;
    kidsHwm += read(c).hwmKb || 0;
    todo.push(...children(c));
  }
  return { ...self, children: kids, childrenHwmKb: kidsHwm };
}

// ---------------------------------------------------------------------------------------------
// the LSP measurement

async function lspRun(kind, ctx, opts) {
  const uri = pathToFileURL(ctx.lspDoc).href;
  const text = fs.readFileSync(ctx.lspDoc, 'utf8');
  const env = { XDG_CACHE_HOME: mkdirp(path.join(ctx.tmp, `xdg-lsp-${kind}-${Math.random().toString(36).slice(2)}`)) };
  const settingsFor = (section) => {
    const apidrift = { targets: [ctx.target], baseline: opts.baseline ? [opts.baseline] : [] };
    const analysis = { extraPaths: [ctx.target], diagnosticMode: 'openFilesOnly', typeCheckingMode: 'standard' };
    if (section === 'apidrift') return apidrift;
    if (section === 'python') return { analysis, ...(ctx.pythonVersion ? { pythonVersion: ctx.pythonVersion } : {}) };
    if (section === 'python.analysis') return analysis;
    if (section === 'pyright') return {};
    return null;
  };
  // apidrift's server starts with the Node options the extension gives it
  // and with the folder of its code cache in its storage folder, as the extension gives it
  const init = opts.init || (kind === 'apidrift' ? { cacheDir: mkdirp(path.join(ctx.tmp, `storage-${Math.random().toString(36).slice(2)}`)) } : {});
  const storageDir = kind === 'apidrift' ? init.cacheDir : undefined;
  const argv = kind === 'apidrift' ? [process.execPath, ...SERVER_EXEC_ARGV, ctx.apidrift.server, ...(storageDir ? [`--code-cache=${path.join(storageDir, 'code')}`] : []), '--stdio'] : [process.execPath, ctx.pyright.langserver, '--stdio'];
  const c = new LspClient(kind, argv, { cwd: ctx.lspRoot, env, settingsFor });
  const res = { kind, baseline: !!opts.baseline, latencies: [], engineMs: [] };
  try {
    const rootUri = pathToFileURL(ctx.lspRoot).href;
    const t0 = performance.now();
    await Promise.race([
      c.request('initialize', {
        processId: process.pid,
        rootUri,
        workspaceFolders: [{ uri: rootUri, name: 'bench' }],
        capabilities: {
          workspace: { configuration: true, workspaceFolders: true, didChangeConfiguration: { dynamicRegistration: true } },
          textDocument: { synchronization: { didSave: false }, publishDiagnostics: { versionSupport: true, relatedInformation: false } },
          window: { workDoneProgress: false },
        },
        // as the extension starts it: with a storage folder of its own (the summary cache lives
        // there); bench/memory.js passes its own (`opts.init`)
        initializationOptions: init,
        // apidrift logs the time of each check only while tracing
        trace: 'messages',
      }),
      c.waitFor('initialize', () => false, 60000),
    ]);
    c.notify('initialized', {});
    let from = c.publishes.length;
    const opened = performance.now();
    c.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
    // pyright may publish an empty list before its first analysis ends: wait for the check
    await c.waitPublish(uri, 1, from, 300000);
    res.openMs = c.publishes.filter((p) => p.uri === uri).at(-1).at - t0;
    // the same from the didOpen notification itself (the server started and initialized before it)
    res.didOpenMs = c.publishes.filter((p) => p.uri === uri).at(-1).at - opened;
    if (kind === 'pyright') await settle(c, uri, 300);
    if (opts.baseline) {
      const idx = await c.waitFor('the background full index', () => c.logs.find((l) => /full index: \d+ modules/.test(l.message)), 600000);
      res.fullIndexLog = idx.message.replace(/^\[[^\]]*\]\s*/, '');
      await settle(c, uri, 500);
    }
    // keystrokes
    const plan = ctx.keystrokes;
    const editsFrom = c.publishes.length;
    let version = 1;
    for (const e of plan.edits.slice(0, opts.edits)) {
      version++;
      from = c.publishes.length;
      const logFrom = c.logs.length;
      const s = performance.now();
      c.notify('textDocument/didChange', { textDocument: { uri, version }, contentChanges: [{ range: e.range, text: e.text }] });
      const p = await c.waitPublish(uri, version, from, 60000);
      res.latencies.push(p.at - s);
      if (kind === 'apidrift') {
        // the server logs the time of the check itself: "checked NAME vN: ... 2.5 ms"
        const l = await c.waitFor('check log', () => c.logs.slice(logFrom).find((x) => new RegExp(` v${version}: .* ([\\d.]+) ms`).test(x.message)), 2000).catch(() => undefined);
        const m = l && / ([\d.]+) ms\s*$/.exec(l.message);
        if (m) res.engineMs.push(Number(m[1]));
      }
    }
    res.edits = res.latencies.length;
    await settle(c, uri, 300);
    const during = c.publishes.slice(editsFrom).filter((p) => p.uri === uri);
    res.publishesPerEdit = during.length / Math.max(1, res.edits);
    res.versioned = during.every((p) => typeof p.version === 'number');
    res.memory = c.memory();
    res.lastDiagnostics = c.publishes.filter((p) => p.uri === uri).at(-1).count;
  } catch (e) {
    res.error = e.message;
    res.memory = c.exited ? undefined : c.memory();
  } finally {
    await c.shutdown();
  }
  return res;
}

/** Waits until no diagnostics arrive for `quiet` ms. */
async function settle(c, uri, quiet) {
  for (;;) {
    const n = c.publishes.length;
    await new Promise((r) => setTimeout(r, quiet));
    if (c.publishes.length === n) return;
  }
}

// ---------------------------------------------------------------------------------------------
// main

function fmtMs(x) {
  if (x === undefined) return 'n/a';
  return x >= 10000 ? `${(x / 1000).toFixed(1)} s` : x >= 1000 ? `${(x / 1000).toFixed(2)} s` : x >= 10 ? `${Math.round(x)} ms` : `${x.toFixed(1)} ms`;
}

function fmtMb(kb) {
  return kb === undefined ? 'n/a' : `${Math.round(kb / 1024)} MB`;
}

function ratio(a, b) {
  return a === undefined || b === undefined || b === 0 ? 'n/a' : `${(a / b).toFixed(a / b < 0.1 ? 3 : 2)}`;
}

function table(rows, headers) {
  const w = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => '| ' + cells.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join(' | ') + ' |';
  return [line(headers), '|' + w.map((n, i) => (i === 0 ? '-'.repeat(n + 2) : '-'.repeat(n + 1) + ':')).join('|') + '|', ...rows.map(line)].join('\n');
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-bench-'));
  const cleanup = () => {
    if (!o.keep) fs.rmSync(tmp, { recursive: true, force: true });
  };
  process.on('SIGINT', () => {
    cleanup();
    process.exit(130);
  });
  try {
    await bench(o, tmp);
  } finally {
    cleanup();
    if (o.keep) note(`kept ${tmp}`);
  }
}

async function bench(o, tmp) {
  const started = Date.now();
  const loadAtStart = os.loadavg().map((x) => Math.round(x * 100) / 100);
  const apidrift = snapshotDist(tmp, o.build);
  const pyright = ensurePyright();

  // target: a folder both tools read; archives are extracted once
  let target = o.target || DEFAULT_TARGET;
  const defaultTarget = !o.target;
  if (!fs.existsSync(target)) die(`no such target: ${target}`);
  let targetLabel = o.target ? target : 'Python 3.12 stdlib (stdlib-py312 zip, extracted)';
  if (fs.statSync(target).isFile()) {
    const dest = mkdirp(path.join(tmp, 'target'));
    const n = extractZip(target, dest);
    note(`extracted ${n} files of ${path.basename(target)}`);
    if (o.target) targetLabel = `${target} (extracted)`;
    target = dest;
  }
  const pythonVersion = o.pythonVersion || (defaultTarget ? '3.12' : undefined);
  const file = o.file || DEFAULT_FILE;
  if (!fs.existsSync(file)) die(`no such file: ${file}`);
  const dir = o.dir || generateDir(file, path.join(tmp, 'dir'), 40);
  const dirFiles = countPy(dir);

  // the LSP document lives in its own root, beside the pyrightconfig.json
  const lspRoot = mkdirp(path.join(tmp, 'lsp-root'));
  /** Each document the language servers are measured on, with its keystrokes. */
  const shapes = [];
  for (const name of o.shapes) {
    let text;
    let docName;
    let plan;
    let label;
    if (name === 'calls') {
      if (o.lspFile) text = fs.readFileSync(o.lspFile, 'utf8');
      else {
        text = generateLspFile(target, 600);
        if (!text) die('found no plain functions in the target to generate the LSP file from; pass --lsp-file');
      }
      docName = o.lspFile ? path.basename(o.lspFile) : 'bench_calls.py';
      plan = planKeystrokes(text, o.edits);
      label = o.lspFile || '(generated: top-level functions of calls)';
    } else if (name === 'class') {
      text = generateClassFile(target, 900);
      if (!text) die('found no class with enough plain methods in the target to generate the class file from');
      docName = 'bench_class.py';
      plan = planMethodKeystrokes(text, o.edits);
      label = `(generated: one class, ${/^class BenchRunner\((\w+)\)/m.exec(text)[1]} subclass)`;
    } else {
      const f = o.lspFile || o.file || DEFAULT_FILE;
      text = fs.readFileSync(f, 'utf8');
      docName = `user_${path.basename(f)}`;
      plan = planMethodKeystrokes(text, o.edits);
      if (!plan) die(`${f} has no one-line call inside a method to type into`);
      label = f;
    }
    const doc = path.join(lspRoot, docName);
    fs.writeFileSync(doc, text);
    if (name !== 'file' && !(name === 'calls' && o.lspFile)) fs.copyFileSync(doc, path.join(tmp, `generated_${docName}`));
    shapes.push({ name, doc, text, keystrokes: plan, label, lines: text.split('\n').length - 1 });
  }
  const lspText = shapes[0].text;
  const lspDoc = shapes[0].doc;
  const pyrightConfig = { extraPaths: [target], ...(pythonVersion ? { pythonVersion } : {}) };
  writeJson(path.join(lspRoot, 'pyrightconfig.json'), pyrightConfig);
  // pyright's CLI project: only a config, the files are named on the command line
  const pyProj = mkdirp(path.join(tmp, 'pyright-project'));
  writeJson(path.join(pyProj, 'pyrightconfig.json'), pyrightConfig);

  const keystrokes = shapes[0].keystrokes;
  const ctx = { tmp, target, lspRoot, lspDoc, apidrift, pyright, pythonVersion, keystrokes };

  const xdg = (label) => mkdirp(path.join(tmp, `xdg-${label}-${Math.random().toString(36).slice(2)}`));
  const node = process.execPath;
  const cmds = {
    apidriftFile: [node, apidrift.cli, 'check', '--no-cache', '--format', 'json', '--target', target, file],
    pyrightFile: [node, pyright.cli, '-p', pyProj, '--outputjson', file],
    apidriftDir: [node, apidrift.cli, 'check', '--no-cache', '--format', 'json', '--target', target, dir],
    pyrightDir: [node, pyright.cli, '-p', pyProj, '--outputjson', dir],
    apidriftIndexCold: [node, apidrift.cli, 'index', '--no-cache', '--format', 'json', '--target', target],
    apidriftIndex: [node, apidrift.cli, 'index', '--format', 'json', '--target', target],
    apidriftFileWarm: [node, apidrift.cli, 'check', '--format', 'json', '--target', target, file],
    pyrightIndex: [node, pyright.cli, '-p', pyProj, '--outputjson', target],
  };

  const samples = {};
  const add = (key, r, extra) => {
    (samples[key] = samples[key] || []).push({ ms: r.ms, rssKb: r.maxRssKb, ok: r.ok, code: r.code, ...(extra || {}) });
    if (!r.ok) note(`${key}: exit ${r.code}: ${(r.stderr || String(r.error || '')).trim().split('\n').slice(-5).join(' | ')}`);
  };
  const aInfo = (r) => {
    const j = jsonOf(r.stdout);
    return j && j.stats ? { findings: j.diagnostics.length, files: j.stats.files, calls: j.stats.callsChecked, modulesRead: j.stats.targetModulesRead } : {};
  };
  const pInfo = (r) => {
    const j = jsonOf(r.stdout);
    return j && j.summary ? { files: j.summary.filesAnalyzed, errors: j.summary.errorCount, warnings: j.summary.warningCount } : {};
  };
  const iInfo = (r) => {
    const j = jsonOf(r.stdout);
    return j ? { modules: j.modules, signatures: j.signatures, parsed: j.parsed, fromCache: j.fromCache, reportedMs: j.ms } : {};
  };

  const CLI_OK = { okCodes: [1] }; // 1 = findings (apidrift) / errors reported (pyright)
  for (let run = 0; run < (o.lspOnly ? 0 : o.runs); run++) {
    note(`run ${run + 1}/${o.runs}: CLI`);
    // alternate which tool goes first, so warming of the OS caches favours neither
    const pair = (aKey, aCmd, aX, pKey, pCmd, pX) => {
      const doA = () => {
        const r = runTimed(aCmd, { tmp, env: { XDG_CACHE_HOME: xdg('a') }, ...CLI_OK });
        add(aKey, r, aX(r));
      };
      const doP = () => {
        const r = runTimed(pCmd, { tmp, cwd: pyProj, ...CLI_OK });
        add(pKey, r, pX(r));
      };
      if (run % 2) (doP(), doA());
      else (doA(), doP());
    };
    pair('apidrift.file', cmds.apidriftFile, aInfo, 'pyright.file', cmds.pyrightFile, pInfo);
    pair('apidrift.dir', cmds.apidriftDir, aInfo, 'pyright.dir', cmds.pyrightDir, pInfo);
    {
      const r = runTimed(cmds.apidriftIndexCold, { tmp, env: { XDG_CACHE_HOME: xdg('i') } });
      add('apidrift.indexCold', r, iInfo(r));
    }
    const cache = xdg('cache');
    {
      const r = runTimed(cmds.apidriftIndex, { tmp, env: { XDG_CACHE_HOME: cache } });
      add('apidrift.indexWrite', r, iInfo(r));
      const w = runTimed(cmds.apidriftIndex, { tmp, env: { XDG_CACHE_HOME: cache } });
      add('apidrift.indexWarm', w, iInfo(w));
      const f = runTimed(cmds.apidriftFileWarm, { tmp, env: { XDG_CACHE_HOME: cache }, ...CLI_OK });
      add('apidrift.fileWarm', f, aInfo(f));
    }
    if (o.peerIndex) {
      note(`run ${run + 1}/${o.runs}: pyright over the whole target (slow on large targets)`);
      const r = runTimed(cmds.pyrightIndex, { tmp, cwd: pyProj, ...CLI_OK });
      add('pyright.index', r, pInfo(r));
    }
  }

  const lspByShape = Object.fromEntries(shapes.map((sh) => [sh.name, { apidrift: [], pyright: [], apidriftBaseline: [] }]));
  for (let run = 0; run < o.runs; run++) {
    for (const sh of shapes) {
      note(`run ${run + 1}/${o.runs}: language servers on the ${sh.name} shape (${o.edits} keystrokes each)`);
      const shCtx = { ...ctx, lspDoc: sh.doc, keystrokes: sh.keystrokes };
      const lsp = lspByShape[sh.name];
      const order = run % 2 ? ['pyright', 'apidrift'] : ['apidrift', 'pyright'];
      for (const kind of order) {
        if (kind === 'pyright' && o.noPeerLsp) continue;
        // apidrift's storage folder is new (its cache empty) as on a first start; a second start
        // with the same folder opens the document as every later start of the editor does
        const storage = kind === 'apidrift' ? mkdirp(path.join(ctx.tmp, `storage-${sh.name}-${run}`)) : undefined;
        const r = await lspRun(kind, shCtx, { edits: o.edits, ...(storage ? { init: { cacheDir: storage } } : {}) });
        if (r.error) note(`${kind} LSP (${sh.name}): ${r.error}`);
        if (storage && !r.error) {
          const warm = await lspRun(kind, shCtx, { edits: 0, init: { cacheDir: storage } });
          if (warm.error) note(`${kind} LSP (${sh.name}, second start): ${warm.error}`);
          else {
            r.warmOpenMs = warm.openMs;
            r.warmDidOpenMs = warm.didOpenMs;
          }
        }
        lsp[kind].push(r);
      }
      if (o.baseline) {
        const r = await lspRun('apidrift', shCtx, { edits: o.edits, baseline: o.baseline });
        if (r.error) note(`apidrift LSP with baseline (${sh.name}): ${r.error}`);
        lsp.apidriftBaseline.push(r);
      }
    }
  }
  const lsp = lspByShape[shapes[0].name];

  // -------------------------------------------------------------------------------------------
  // summary
  const med = (key, field = 'ms') => median((samples[key] || []).filter((s) => s.ok).map((s) => s[field]));
  const info = (key) => (samples[key] || []).find((s) => s.ok) || {};
  const lspStat = (runs, f) => median(runs.filter((r) => !r.error).map(f));
  const lspP = (kind, p) => lspStat(lsp[kind], (r) => percentile(r.latencies, p));
  const engP = (kind, p) => lspStat(lsp[kind], (r) => percentile(r.engineMs, p));
  const summary = {
    date: new Date().toISOString(),
    machine: machine(),
    runs: o.runs,
    edits: o.edits,
    target: targetLabel,
    file,
    dir: o.dir || `(generated: 40 variants of ${path.basename(file)})`,
    dirFiles,
    lspFile: o.lspFile || '(generated)',
    lspLines: lspText.split('\n').length - 1,
    keystrokes: { atLine: keystrokes.line + 1, sample: keystrokes.sample },
    pyright: PYRIGHT_VERSION,
    pyrightConfig,
    commands: Object.fromEntries(Object.entries(cmds).map(([k, v]) => [k, v.map((x) => (x === node ? 'node' : x)).join(' ')])),
    results: {
      fileCold: { apidrift: med('apidrift.file'), pyright: med('pyright.file'), apidriftInfo: info('apidrift.file'), pyrightInfo: info('pyright.file') },
      dirCold: { apidrift: med('apidrift.dir'), pyright: med('pyright.dir'), apidriftInfo: info('apidrift.dir'), pyrightInfo: info('pyright.dir') },
      indexCold: { apidrift: med('apidrift.indexCold'), pyright: o.peerIndex ? med('pyright.index') : undefined, apidriftInfo: info('apidrift.indexCold'), pyrightInfo: info('pyright.index') },
      indexWriteCache: { apidrift: med('apidrift.indexWrite') },
      indexWarm: { apidrift: med('apidrift.indexWarm'), apidriftReportedMs: med('apidrift.indexWarm', 'reportedMs') },
      fileWarm: { apidrift: med('apidrift.fileWarm') },
      lspOpen: { apidrift: lspStat(lsp.apidrift, (r) => r.openMs), pyright: lspStat(lsp.pyright, (r) => r.openMs) },
      keystrokeP50: { apidrift: lspP('apidrift', 50), pyright: lspP('pyright', 50) },
      keystrokeP95: { apidrift: lspP('apidrift', 95), pyright: lspP('pyright', 95) },
      keystrokeMax: { apidrift: lspStat(lsp.apidrift, (r) => Math.max(...r.latencies)), pyright: lspStat(lsp.pyright, (r) => Math.max(...r.latencies)) },
      publishes: {
        apidrift: { perEdit: lspStat(lsp.apidrift, (r) => r.publishesPerEdit), versioned: lsp.apidrift.every((r) => r.error || r.versioned) },
        pyright: { perEdit: lspStat(lsp.pyright, (r) => r.publishesPerEdit), versioned: lsp.pyright.every((r) => r.error || r.versioned) },
      },
      engineCheckP50: { apidrift: engP('apidrift', 50) },
      engineCheckP95: { apidrift: engP('apidrift', 95) },
      rss: {
        file: { apidrift: med('apidrift.file', 'rssKb'), pyright: med('pyright.file', 'rssKb') },
        dir: { apidrift: med('apidrift.dir', 'rssKb'), pyright: med('pyright.dir', 'rssKb') },
        indexCold: { apidrift: med('apidrift.indexCold', 'rssKb'), pyright: o.peerIndex ? med('pyright.index', 'rssKb') : undefined },
        indexWriteCache: { apidrift: med('apidrift.indexWrite', 'rssKb') },
        indexWarm: { apidrift: med('apidrift.indexWarm', 'rssKb') },
        fileWarm: { apidrift: med('apidrift.fileWarm', 'rssKb') },
        server: {
          apidrift: lspStat(lsp.apidrift, (r) => r.memory && r.memory.hwmKb),
          pyright: lspStat(lsp.pyright, (r) => r.memory && r.memory.hwmKb),
          apidriftResident: lspStat(lsp.apidrift, (r) => r.memory && r.memory.rssKb),
          pyrightResident: lspStat(lsp.pyright, (r) => r.memory && r.memory.rssKb),
          apidriftChildren: lspStat(lsp.apidrift, (r) => r.memory && r.memory.children),
          pyrightChildren: lspStat(lsp.pyright, (r) => r.memory && r.memory.children),
        },
      },
      lspErrors: [...lsp.apidrift, ...lsp.pyright, ...lsp.apidriftBaseline].filter((r) => r.error).map((r) => `${r.kind}${r.baseline ? ' (baseline)' : ''}: ${r.error.split('\n')[0]}`),
      cliFailures: Object.entries(samples).flatMap(([k, v]) => v.filter((s) => !s.ok).map((s) => `${k}: exit ${s.code}`)),
    },
  };
  summary.results.shapes = shapes.map((sh) => {
    const l = lspByShape[sh.name];
    const st = (runs, f) => lspStat(runs, f);
    const pct = (runs, p, field = 'latencies') => st(runs, (r) => percentile(r[field], p));
    return {
      shape: sh.name,
      document: sh.label,
      lines: sh.lines,
      typing: { atLine: sh.keystrokes.line + 1, sample: sh.keystrokes.sample },
      openMs: { apidrift: st(l.apidrift, (r) => r.openMs), pyright: st(l.pyright, (r) => r.openMs), apidriftBaseline: st(l.apidriftBaseline, (r) => r.openMs) },
      warmOpenMs: { apidrift: st(l.apidrift.filter((r) => r.warmOpenMs !== undefined), (r) => r.warmOpenMs) },
      didOpenMs: { apidrift: st(l.apidrift, (r) => r.didOpenMs), pyright: st(l.pyright, (r) => r.didOpenMs), apidriftBaseline: st(l.apidriftBaseline, (r) => r.didOpenMs) },
      warmDidOpenMs: { apidrift: st(l.apidrift.filter((r) => r.warmDidOpenMs !== undefined), (r) => r.warmDidOpenMs) },
      p50: { apidrift: pct(l.apidrift, 50), pyright: pct(l.pyright, 50), apidriftBaseline: pct(l.apidriftBaseline, 50) },
      p95: { apidrift: pct(l.apidrift, 95), pyright: pct(l.pyright, 95), apidriftBaseline: pct(l.apidriftBaseline, 95) },
      max: { apidrift: st(l.apidrift, (r) => Math.max(...r.latencies)), pyright: st(l.pyright, (r) => Math.max(...r.latencies)), apidriftBaseline: st(l.apidriftBaseline, (r) => Math.max(...r.latencies)) },
      checkP50: { apidrift: pct(l.apidrift, 50, 'engineMs'), apidriftBaseline: pct(l.apidriftBaseline, 50, 'engineMs') },
      checkP95: { apidrift: pct(l.apidrift, 95, 'engineMs'), apidriftBaseline: pct(l.apidriftBaseline, 95, 'engineMs') },
      hwmKb: { apidrift: st(l.apidrift, (r) => r.memory && r.memory.hwmKb), pyright: st(l.pyright, (r) => r.memory && r.memory.hwmKb), apidriftBaseline: st(l.apidriftBaseline, (r) => r.memory && r.memory.hwmKb) },
      diagnostics: { apidrift: (l.apidrift.find((r) => !r.error) || {}).lastDiagnostics, pyright: (l.pyright.find((r) => !r.error) || {}).lastDiagnostics },
      perRun: {
        apidriftP95: l.apidrift.map((r) => round1(percentile(r.latencies, 95))),
        pyrightP95: l.pyright.map((r) => round1(percentile(r.latencies, 95))),
        apidriftBaselineP95: l.apidriftBaseline.map((r) => round1(percentile(r.latencies, 95))),
        apidriftOpenMs: l.apidrift.map((r) => r.openMs && Math.round(r.openMs)),
        apidriftWarmOpenMs: l.apidrift.map((r) => r.warmOpenMs && Math.round(r.warmOpenMs)),
        apidriftDidOpenMs: l.apidrift.map((r) => r.didOpenMs && Math.round(r.didOpenMs)),
        apidriftWarmDidOpenMs: l.apidrift.map((r) => r.warmDidOpenMs && Math.round(r.warmDidOpenMs)),
      },
    };
  });
  if (o.baseline) {
    summary.results.baseline = {
      path: o.baseline,
      keystrokeP50: lspStat(lsp.apidriftBaseline, (r) => percentile(r.latencies, 50)),
      keystrokeP95: lspStat(lsp.apidriftBaseline, (r) => percentile(r.latencies, 95)),
      engineCheckP50: lspStat(lsp.apidriftBaseline, (r) => percentile(r.engineMs, 50)),
      engineCheckP95: lspStat(lsp.apidriftBaseline, (r) => percentile(r.engineMs, 95)),
      serverHwmKb: lspStat(lsp.apidriftBaseline, (r) => r.memory && r.memory.hwmKb),
      serverRssKb: lspStat(lsp.apidriftBaseline, (r) => r.memory && r.memory.rssKb),
      openMs: lspStat(lsp.apidriftBaseline, (r) => r.openMs),
      fullIndexLog: (lsp.apidriftBaseline.find((r) => r.fullIndexLog) || {}).fullIndexLog,
    };
  }
  summary.seconds = Math.round((Date.now() - started) / 1000);
  summary.loadAverage = { start: loadAtStart, end: os.loadavg().map((x) => Math.round(x * 100) / 100) };
  summary.samples = {
    cli: Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, v.map((x) => ({ ms: Math.round(x.ms), rssKb: x.rssKb, code: x.code }))])),
    lsp: Object.fromEntries(
      Object.entries(lsp).map(([k, v]) => [
        k,
        v.map((r) => ({
          openMs: r.openMs && Math.round(r.openMs),
          p50: round1(percentile(r.latencies, 50)),
          p95: round1(percentile(r.latencies, 95)),
          engineP50: percentile(r.engineMs, 50),
          engineP95: percentile(r.engineMs, 95),
          hwmKb: r.memory && r.memory.hwmKb,
          rssKb: r.memory && r.memory.rssKb,
          error: r.error,
        })),
      ]),
    ),
  };
  print(summary, o);
  if (o.json) console.log(JSON.stringify(summary, null, 2));
  const failed = summary.results.lspErrors.length + summary.results.cliFailures.length;
  if (failed) {
    note(`${failed} measurement(s) failed (see above)`);
    process.exitCode = 1;
  }
}

function countPy(dir) {
  let n = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.name.startsWith('.') || e.name === '__pycache__' || e.name === 'node_modules') continue;
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (/\.pyi?$/.test(e.name)) n++;
    }
  };
  walk(dir);
  return n;
}

function machine() {
  let cpu = '';
  try {
    const m = /model name\s*:\s*(.*)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'));
    if (m) cpu = m[1];
  } catch {
    cpu = os.cpus()[0] ? os.cpus()[0].model : '';
  }
  let distro = '';
  try {
    const m = /PRETTY_NAME="([^"]*)"/.exec(fs.readFileSync('/etc/os-release', 'utf8'));
    if (m) distro = m[1];
  } catch {
    distro = os.platform();
  }
  return { cores: os.availableParallelism ? os.availableParallelism() : os.cpus().length, cpu, os: distro, node: process.version, memGb: Math.round(os.totalmem() / 2 ** 30) };
}

function print(s, o) {
  const r = s.results;
  const row = (label, a, p, fmt = fmtMs, peer) => [label, fmt(a), p === undefined ? peer || 'n/a' : fmt(p), p === undefined ? 'n/a' : ratio(a, p)];
  const ai = r.fileCold.apidriftInfo;
  const pi = r.fileCold.pyrightInfo;
  const rows = [
    row('1. one file, cold (wall)', r.fileCold.apidrift, r.fileCold.pyright),
    row(`2. directory of ${s.dirFiles} files, cold (wall)`, r.dirCold.apidrift, r.dirCold.pyright),
    row('3. full index, cold (no cache)', r.indexCold.apidrift, r.indexCold.pyright, fmtMs, o.peerIndex ? 'failed' : 'skipped'),
    row('3. full index, cold, writing the cache', r.indexWriteCache.apidrift, undefined),
    row('3. full index, warm (from the cache)', r.indexWarm.apidrift, undefined),
    row('   one file, warm cache (wall)', r.fileWarm.apidrift, undefined),
    row('4. LSP server start -> first diagnostics', r.lspOpen.apidrift, r.lspOpen.pyright),
    row('4. keystroke didChange -> diagnostics p50', r.keystrokeP50.apidrift, r.keystrokeP50.pyright),
    row('4. keystroke didChange -> diagnostics p95', r.keystrokeP95.apidrift, r.keystrokeP95.pyright),
    row('4. keystroke didChange -> diagnostics max', r.keystrokeMax.apidrift, r.keystrokeMax.pyright),
    row('   apidrift check time in server p50 (log)', r.engineCheckP50.apidrift, undefined),
    row('   apidrift check time in server p95 (log)', r.engineCheckP95.apidrift, undefined),
    row('5. max RSS, one file CLI', r.rss.file.apidrift, r.rss.file.pyright, fmtMb),
    row('5. max RSS, directory CLI', r.rss.dir.apidrift, r.rss.dir.pyright, fmtMb),
    row('5. max RSS, full index cold', r.rss.indexCold.apidrift, r.rss.indexCold.pyright, fmtMb, o.peerIndex ? 'failed' : 'skipped'),
    row('5. max RSS, full index writing the cache', r.rss.indexWriteCache.apidrift, undefined, fmtMb),
    row('5. max RSS, full index warm', r.rss.indexWarm.apidrift, undefined, fmtMb),
    row('5. max RSS, one file, warm cache', r.rss.fileWarm.apidrift, undefined, fmtMb),
    row('5. server VmHWM after the LSP run', r.rss.server.apidrift, r.rss.server.pyright, fmtMb),
    row('5. server VmRSS at the end of the run', r.rss.server.apidriftResident, r.rss.server.pyrightResident, fmtMb),
  ];
  if (r.baseline) {
    rows.push(
      row('   with baseline: keystroke p50', r.baseline.keystrokeP50, undefined),
      row('   with baseline: keystroke p95', r.baseline.keystrokeP95, undefined),
      row('   with baseline: check time p95 (log)', r.baseline.engineCheckP95, undefined),
      row('   with baseline: server VmHWM (full index)', r.baseline.serverHwmKb, undefined, fmtMb),
      row('   with baseline: server VmRSS at the end', r.baseline.serverRssKb, undefined, fmtMb),
    );
  }
  const out = [];
  out.push(`apidrift vs pyright ${s.pyright} — ${s.machine.cores} cores, ${s.machine.cpu}, ${s.machine.os}, Node ${s.machine.node}`);
  out.push(`target: ${s.target}; runs: ${s.runs} (medians); keystrokes: ${s.edits} per LSP run`);
  out.push(`file: ${s.file} (apidrift ${ai.findings ?? '?'} findings, ${ai.calls ?? '?'} calls checked; pyright ${pi.errors ?? '?'} errors)`);
  out.push(`dir: ${s.dir}; LSP file: ${s.lspFile}, ${s.lspLines} lines, typing at line ${s.keystrokes.atLine} ("${s.keystrokes.sample}")`);
  out.push('');
  out.push(table(rows, ['measurement', 'apidrift', 'pyright', 'apidrift/pyright']));
  out.push('');
  const ii = r.indexCold.apidriftInfo;
  if (ii.modules !== undefined) out.push(`apidrift index: ${ii.modules} modules, ${ii.signatures} signatures; warm run reports ${fmtMs(r.indexWarm.apidriftReportedMs)} inside the process`);
  const pii = r.indexCold.pyrightInfo;
  if (o.peerIndex && pii.files !== undefined) out.push(`pyright peer of the index: a full check of the target (${pii.files} files, ${pii.errors} errors): it binds and type-checks every module, more work than apidrift's signature index, so it is an upper bound, not like-for-like`);
  else if (!o.peerIndex) out.push('pyright peer of the index (a full check of the target): skipped (--quick or --no-peer-index; pass --peer-index to run it)');
  out.push('pyright has no on-disk cache between runs: no peer for the warm index.');
  out.push('keystrokes: one-key didChange edits typed one at a time (brackets auto-closed as an editor does), each timed until publishDiagnostics for that version; apidrift re-checks at once when the last check of the document was fast and waits for a 120 ms pause otherwise, and "check time in server" is the engine part.');
  for (const k of ['apidrift', 'pyright']) {
    const pb = r.publishes[k];
    if (pb.perEdit !== undefined && (pb.perEdit !== 1 || !pb.versioned)) out.push(`note: ${k} sent ${pb.perEdit.toFixed(2)} publishDiagnostics per edit${pb.versioned ? '' : ', some without a version (matched as the first publish after the edit)'}`);
  }
  if (s.pyrightConfig.pythonVersion) out.push(`pyright: pythonVersion ${s.pyrightConfig.pythonVersion}; it resolves standard-library imports to its bundled typeshed stubs before extraPaths, so on the stdlib target it does not read the extracted sources for those modules.`);
  if (r.baseline && r.baseline.fullIndexLog) out.push(`apidrift server with baseline: ${r.baseline.fullIndexLog}`);
  for (const e of r.lspErrors) out.push(`LSP failure: ${e}`);
  for (const e of r.cliFailures) out.push(`CLI failure: ${e}`);
  if (r.shapes && (r.shapes.length > 1 || r.shapes[0].shape !== 'calls')) {
    for (const sh of r.shapes) {
      out.push('');
      out.push(`LSP shape "${sh.shape}": ${sh.document}, ${sh.lines} lines, typing at line ${sh.typing.atLine} (${sh.typing.sample.slice(0, 60)})`);
      const srow = (label, x, fmt = fmtMs) => [label, fmt(x.apidrift), x.apidriftBaseline === undefined ? 'n/a' : fmt(x.apidriftBaseline), x.pyright === undefined ? 'n/a' : fmt(x.pyright)];
      out.push(
        table(
          [
            srow('server start -> first diagnostics', sh.openMs),
            srow('same, second start (storage folder kept)', sh.warmOpenMs),
            srow('didOpen sent -> first diagnostics', sh.didOpenMs),
            srow('same, second start (storage folder kept)', sh.warmDidOpenMs),
            srow('keystroke didChange -> diagnostics p50', sh.p50),
            srow('keystroke didChange -> diagnostics p95', sh.p95),
            srow('keystroke didChange -> diagnostics max', sh.max),
            srow('apidrift check time in server p50 (log)', sh.checkP50),
            srow('apidrift check time in server p95 (log)', sh.checkP95),
            srow('server VmHWM', sh.hwmKb, fmtMb),
          ],
          ['measurement', 'apidrift', 'apidrift + baseline', 'pyright'],
        ),
      );
      out.push(`per run p95 (ms): apidrift ${sh.perRun.apidriftP95.join(', ')}; with baseline ${sh.perRun.apidriftBaselineP95.join(', ') || 'n/a'}; pyright ${sh.perRun.pyrightP95.join(', ') || 'n/a'}; apidrift from the start ${sh.perRun.apidriftOpenMs.join(', ')}, second start ${sh.perRun.apidriftWarmOpenMs.join(', ')}; from didOpen ${sh.perRun.apidriftDidOpenMs.join(', ')}, second start ${sh.perRun.apidriftWarmDidOpenMs.join(', ')}`);
    }
  }
  out.push(`(${s.seconds} s in all; load average ${s.loadAverage.start[0]} at the start, ${s.loadAverage.end[0]} at the end, on ${s.machine.cores} cores)`);
  console.log(out.join('\n'));
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bench: ${e.stack || e}\n`);
    process.exit(2);
  });
}

module.exports = { generateLspFile, generateClassFile, generateDir, planKeystrokes, planMethodKeystrokes, extractZip, percentile, median, lspRun, snapshotDist };
