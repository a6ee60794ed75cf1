#!/usr/bin/env node
/**
 * apidrift's command line: `apidrift check --target PATH [--target PATH ...] [--format text|json] PATH...`
 *
 * Exit codes: 0 nothing found, 1 findings, 2 usage or target error (one line on stderr).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { defaultCacheDir, Engine, type FetchOptions, type Finding, installedBaseline, isRequirementSpec, TargetError } from './engine';
import { detectEnvironments } from './lsp/detect';
import { buildReport, formatReportMarkdown, formatReportText } from './engine/report/report';
import { ZipRoot } from './engine/sources/zipRoot';

export const JSON_SCHEMA_VERSION = 1;

/** Threads for building full indexes: both cores of a small machine, at most four. */
const THREADS = Math.max(1, Math.min(4, os.availableParallelism?.() ?? os.cpus().length));

const USAGE = `usage: apidrift check --target PATH [--target PATH ...] [--baseline PATH ...] [--format text|json] PATH...
       apidrift check --upgrade NAME==VERSION [--index-url URL] [--require-hashes] PATH...
       apidrift diff --baseline PATH --target PATH [--package NAME] [--uses PATH ...] [--format text|json|markdown]
       apidrift index --target PATH [--format text|json]

  check: checks Python files (or folders, recursively, or an archive's members) against the
  target: the source of the library version you are moving to (a folder on the import path,
  or a .whl/.zip archive). With --baseline (the version the code was written for), each
  finding says what changed.

  diff: the API-change report between two versions: removed modules and names, moved names,
  changed signatures grouped by kind. With --uses, only what that code uses, ranked by uses.

  index: builds (or loads from the cache) the full index of a target and reports its size and
  time: how to warm the cache in CI.

  Targets: a folder, a .whl/.zip archive, git:REPO@REF (a work tree or a bare repository), or
  a requirement such as NAME==VERSION or 'NAME>=A,<B' (the newest match; --pre for
  pre-releases), read from the package index (--index-url, else $PIP_INDEX_URL, $UV_INDEX_URL;
  credentials from the URL or ~/.netrc) and kept in the cache; --require-hashes reads only
  whole files checked against the index's sha256. check --upgrade NAME==VERSION: the target
  is that version and the baseline the version installed in the environment ($VIRTUAL_ENV,
  else .venv or venv here); a requirement target without --baseline does the same.
  Summaries are cached in $XDG_CACHE_HOME/apidrift (default ~/.cache/apidrift); --no-cache
  bypasses the cache.

exit codes: 0 no findings (hints such as deprecations do not count), 1 findings, 2 usage or target error`;

class UsageError extends Error {}

interface Args {
  command: 'check' | 'diff' | 'index';
  noCache: boolean;
  targets: string[];
  baseline: string[];
  format: 'text' | 'json' | 'markdown';
  paths: string[];
  uses: string[];
  package?: string;
  /** `--upgrade NAME==VERSION`: that version as the target, the installed one as the baseline. */
  upgrade?: string;
  fetch: { indexUrl?: string; requireHashes: boolean; pre: boolean };
}

function parseArgs(argv: string[]): Args {
  const [command, ...rest] = argv;
  if (command !== 'check' && command !== 'diff' && command !== 'index') throw new UsageError(command ? `unknown command '${command}'` : 'missing command');
  const out: Args = { command, targets: [], baseline: [], format: 'text', paths: [], uses: [], noCache: false, fetch: { requireHashes: false, pre: false } };
  let collectingUses = false;
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    const value = (): string => {
      const v = a.includes('=') ? a.slice(a.indexOf('=') + 1) : rest[++i];
      if (v === undefined || v === '') throw new UsageError(`${a.split('=')[0]} needs a value`);
      return v;
    };
    if (a.startsWith('-')) collectingUses = false;
    if (a === '--target' || a.startsWith('--target=')) out.targets.push(value());
    else if (command !== 'index' && (a === '--baseline' || a.startsWith('--baseline='))) out.baseline.push(value());
    else if (a === '--no-cache') out.noCache = true;
    else if (command === 'check' && (a === '--upgrade' || a.startsWith('--upgrade='))) out.upgrade = value();
    else if (a === '--index-url' || a.startsWith('--index-url=')) out.fetch.indexUrl = value();
    else if (a === '--require-hashes') out.fetch.requireHashes = true;
    else if (a === '--pre') out.fetch.pre = true;
    else if (command === 'diff' && (a === '--package' || a.startsWith('--package='))) out.package = value();
    else if (command === 'diff' && (a === '--uses' || a.startsWith('--uses='))) {
      out.uses.push(value());
      collectingUses = true;
    } else if (a === '--format' || a.startsWith('--format=')) {
      const f = value();
      const allowed = command === 'diff' ? ['text', 'json', 'markdown'] : ['text', 'json'];
      if (!allowed.includes(f)) throw new UsageError(`--format must be ${allowed.join(' or ')}, not '${f}'`);
      out.format = f as Args['format'];
    } else if (a === '--') out.paths.push(...rest.slice(i + 1)), (i = rest.length);
    else if (a.startsWith('-')) throw new UsageError(`unknown option '${a}'`);
    else if (collectingUses) out.uses.push(a);
    else out.paths.push(a);
  }
  if (out.upgrade !== undefined) {
    if (!isRequirementSpec(out.upgrade)) throw new UsageError(`--upgrade needs a requirement such as NAME==VERSION, not '${out.upgrade}'`);
    out.targets.push(out.upgrade);
  }
  if (out.targets.length === 0) throw new UsageError('at least one --target is required');
  if (command === 'check' && out.paths.length === 0) throw new UsageError('no files to check');
  if (command === 'index' && out.paths.length > 0) throw new UsageError(`unexpected argument '${out.paths[0]}'`);
  if (command === 'diff') {
    if (out.baseline.length === 0) throw new UsageError('diff needs --baseline');
    if (out.paths.length > 0) throw new UsageError(`unexpected argument '${out.paths[0]}' (use --uses for code to rank by)`);
  }
  return out;
}

/** Python files under the given paths, in a stable order; unreadable entries are reported, not fatal. */
export function collectFiles(paths: string[], warn: (msg: string) => void): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  const visit = (p: string, top: boolean): void => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch (e) {
      if (top) throw new UsageError(`no such file or folder: ${p}`);
      warn(`skipped ${p}: ${(e as NodeJS.ErrnoException).code ?? e}`);
      return;
    }
    if (st.isDirectory()) {
      let real: string;
      try {
        real = fs.realpathSync(p);
      } catch {
        return;
      }
      if (seen.has(real)) return; // symlink loop
      seen.add(real);
      let entries: string[];
      try {
        entries = fs.readdirSync(p).sort();
      } catch (e) {
        warn(`skipped ${p}: ${(e as NodeJS.ErrnoException).code ?? e}`);
        return;
      }
      for (const e of entries) {
        if (e.startsWith('.') || e === '__pycache__' || e === 'node_modules') continue;
        visit(path.join(p, e), false);
      }
    } else if (!st.isFile()) {
      warn(`skipped ${p}: not a regular file`);
    } else if (top || /\.pyi?$/.test(p)) {
      files.push(p);
    }
  };
  for (const p of paths) visit(p, true);
  return files;
}

/** A progress line on stderr, only when it is a terminal. */
function progress(io: { stderr: NodeJS.WritableStream }, what: string): (done: number, total: number) => void {
  const tty = (io.stderr as NodeJS.WriteStream).isTTY;
  let last = 0;
  return (done, total) => {
    if (!tty) return;
    const now = Date.now();
    if (now - last < 100 && done < total) return;
    last = now;
    io.stderr.write(`\r${what} ${done}/${total}\x1b[K`);
    if (done >= total) io.stderr.write('\r\x1b[K');
  };
}

/**
 * How targets named by version are fetched, with progress on a terminal; and, for such targets
 * without a baseline, the baseline: the version installed in the environment.
 */
function fetchOptions(args: Args, io: { stderr: NodeJS.WritableStream }): Partial<FetchOptions> {
  const environments = detectEnvironments({ workspaceFolder: process.cwd(), virtualEnv: process.env.VIRTUAL_ENV }).map((e) => e.sitePackages);
  if (args.baseline.length === 0 && args.command !== 'index') {
    const { baseline, versions } = installedBaseline(args.targets, environments);
    if (args.upgrade !== undefined && baseline.length === 0) {
      throw new UsageError(`--upgrade: ${args.upgrade.split(/[<>=!~\[ ]/)[0]} is not installed in the environment ($VIRTUAL_ENV, .venv or venv): give --baseline`);
    }
    if (baseline.length > 0) {
      args.baseline.push(...baseline);
      io.stderr.write(`apidrift: baseline: ${versions.join(', ')} (installed in ${baseline.join(', ')})\n`);
    }
  }
  const tty = (io.stderr as NodeJS.WriteStream).isTTY;
  let last = 0;
  let lastMessage = '';
  let shown = false;
  const onProgress = (p: { message: string; done?: number; total?: number }): void => {
    if (!tty) return;
    if (!p.message) {
      if (shown) io.stderr.write('\r\x1b[K');
      shown = false;
      return;
    }
    const now = Date.now();
    if (p.message === lastMessage && p.done !== undefined && now - last < 100 && p.done !== p.total) return;
    last = now;
    lastMessage = p.message;
    const mb = (n: number): string => `${(n / 1048576).toFixed(1)} MB`;
    const size = p.done !== undefined ? ` ${mb(p.done)}${p.total ? ` of ${mb(p.total)}` : ''}` : '';
    io.stderr.write(`\r${p.message}${size}\x1b[K`);
    shown = true;
  };
  return { ...args.fetch, environments, onProgress };
}

function finish(engine: Engine, code: number): number {
  engine.saveCache();
  return code;
}

async function runIndex(engine: Engine, args: Args, started: number, io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): Promise<number> {
  engine.program.releaseAfterIndex = true; // nothing here reads the summaries: the workers need not send them
  const index = await engine.program.buildFullIndexParallel(THREADS, progress(io, 'indexing modules'));
  const ms = Math.round(performance.now() - started);
  const out = { version: JSON_SCHEMA_VERSION, target: engine.program.target.label, modules: index.modules.length, signatures: index.signatures, parsed: engine.program.filesRead.size, fromCache: index.fromCache ? index.modules.length : engine.program.fromCache, ms };
  if (args.format === 'json') io.stdout.write(JSON.stringify(out, null, 2) + '\n');
  else io.stdout.write(`${out.target}: ${out.modules} modules, ${out.signatures} signatures (${out.parsed} parsed, ${out.fromCache} from the cache) in ${ms} ms\n`);
  return 0;
}

async function runDiff(engine: Engine, args: Args, files: string[], io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream }): Promise<number> {
  const base = engine.baseline!;
  await base.program.buildFullIndexParallel(THREADS, progress(io, 'indexing the baseline'));
  await engine.program.buildFullIndexParallel(THREADS, progress(io, 'indexing the target'));
  let uses: Map<string, number> | undefined;
  if (args.uses.length > 0) {
    uses = new Map();
    const add = (n: string | null | undefined): void => {
      if (n) uses!.set(n, (uses!.get(n) ?? 0) + 1);
    };
    for (const file of files) {
      const text = readSource(file, (m) => io.stderr.write(`apidrift: ${m}\n`));
      if (text === undefined) continue;
      const r = engine.check(text, file);
      for (const c of r.calls) add(c.callee);
      base.program.nextGeneration();
      const b = base.checker.check(text, { file });
      const seen = new Set(r.calls.map((c) => `${c.extent.start.line}:${c.extent.start.character}`));
      for (const c of b.calls) if (!seen.has(`${c.extent.start.line}:${c.extent.start.character}`)) add(c.callee);
      for (const f of r.findings) if (f.code === 'unknown-import' || f.code === 'unknown-attribute' || f.code === 'unknown-module') add(f.callee);
    }
  }
  const report = buildReport(base.program, engine.program, { baseline: base.program.target.label, target: engine.program.target.label }, {
    package: args.package,
    uses,
    onProgress: progress(io, 'comparing modules'),
  });
  if (args.format === 'json') io.stdout.write(JSON.stringify({ version: JSON_SCHEMA_VERSION, ...report }, null, 2) + '\n');
  else if (args.format === 'markdown') io.stdout.write(formatReportMarkdown(report));
  else io.stdout.write(formatReportText(report));
  return 0;
}

function readSource(file: string, warn: (msg: string) => void): string | undefined {
  try {
    return new TextDecoder('utf-8').decode(fs.readFileSync(file)).replace(/^\uFEFF/, '');
  } catch (e) {
    warn(`skipped ${file}: ${(e as NodeJS.ErrnoException).code ?? e}`);
    return undefined;
  }
}

function formatText(f: Finding): string {
  return `${f.file}:${f.range.start.line + 1}:${f.range.start.character + 1}: ${f.severity} [${f.code}] ${f.message}`;
}

export async function main(argv: string[], io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(USAGE + '\n');
    return 0;
  }
  let args: Args;
  try {
    args = parseArgs(argv);
  } catch (e) {
    io.stderr.write(`apidrift: ${(e as Error).message}\n${USAGE.split('\n')[0]}\n`);
    return 2;
  }
  const started = performance.now();
  let targetErrors = 0;
  let engine: Engine;
  let files: string[];
  try {
    const fetch = fetchOptions(args, io);
    try {
      engine = await Engine.open({ targets: args.targets, baseline: args.baseline, wasmDir: __dirname, cacheDir: args.noCache ? undefined : defaultCacheDir(), deferParser: args.command === 'index', fetch });
    } finally {
      fetch.onProgress?.({ message: '' }); // clears the progress line
    }
    if (engine.cache) engine.cache.onError = (m) => io.stderr.write(`apidrift: ${m}\n`);
    for (const p of [engine.program, engine.baseline?.program]) {
      if (p) p.onError = (name, error) => {
        targetErrors++;
        io.stderr.write(`apidrift: cannot read target module ${name}: ${(error as Error).message ?? error}\n`);
      };
    }
    files = collectFiles(args.command === 'diff' ? args.uses : args.paths, (m) => io.stderr.write(`apidrift: ${m}\n`));
  } catch (e) {
    if (e instanceof TargetError || e instanceof UsageError) {
      io.stderr.write(`apidrift: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (args.command === 'diff') return finish(engine, await runDiff(engine, args, files, io));
  if (args.command === 'index') return finish(engine, await runIndex(engine, args, started, io));
  const findings: Finding[] = [];
  let callsChecked = 0;
  let callsUnknown = 0;
  let checkedFiles = 0;
  const inputs: Array<{ file: string; text?: string; module?: { name: string; isPackage: boolean } }> = [];
  for (const file of files) {
    if (/\.(whl|zip)$/i.test(file)) {
      // an archive: check each Python member as the module it is
      let zip: ZipRoot;
      try {
        zip = new ZipRoot(file);
      } catch (e) {
        io.stderr.write(`apidrift: ${(e as Error).message}\n`);
        return 2;
      }
      for (const rel of zip.members().filter((m) => /\.py$/.test(m)).sort()) {
        inputs.push({ file: zip.displayPath(rel), text: zip.readText(rel) ?? '', module: Engine.moduleNameOfRelative(rel) });
      }
    } else inputs.push({ file });
  }
  for (const { file, text: given, module } of inputs) {
    const text = given ?? readSource(file, (m) => io.stderr.write(`apidrift: ${m}\n`));
    if (text === undefined) continue;
    let r: ReturnType<Engine['check']>;
    try {
      r = engine.check(text, file, undefined, module);
    } catch (e) {
      io.stderr.write(`apidrift: skipped ${file}: could not check it (${(e as Error).message})\n`);
      continue;
    }
    for (const why of r.skipped) io.stderr.write(`apidrift: skipped part of ${file}: ${why}\n`);
    findings.push(...r.findings);
    callsChecked += r.callsChecked;
    callsUnknown += r.callsUnknown;
    checkedFiles++;
  }
  const ms = Math.round(performance.now() - started);
  if (args.format === 'json') {
    const out = {
      version: JSON_SCHEMA_VERSION,
      diagnostics: findings.map((f) => ({
        file: f.file,
        range: f.range,
        severity: f.severity,
        code: f.code,
        message: f.message,
        callee: f.callee,
        param: f.param,
        definition: f.definition,
        ...(f.change ? { change: f.change } : {}),
        fixes: f.fixes.map((x) => ({ title: x.title, edits: x.edits })),
      })),
      stats: { files: checkedFiles, callsChecked, callsUnknown, targetModulesRead: engine.modulesRead, ms },
    };
    io.stdout.write(JSON.stringify(out, null, 2) + '\n');
  } else {
    for (const f of findings) io.stdout.write(formatText(f) + '\n');
    io.stdout.write(
      `${findings.length} finding${findings.length === 1 ? '' : 's'} in ${checkedFiles} file${checkedFiles === 1 ? '' : 's'} ` +
        `(${callsChecked} calls checked, ${callsUnknown} unknown, ${engine.modulesRead} target modules read, ${ms} ms)\n`,
    );
  }
  engine.saveCache();
  // a target that could not be read in full gives no all-clear
  if (targetErrors > 0) {
    io.stderr.write(`apidrift: ${targetErrors} target module${targetErrors === 1 ? '' : 's'} could not be read: the results are incomplete\n`);
    return 2;
  }
  // hints (deprecations) inform; errors and warnings fail the run
  return findings.some((f) => f.severity === 'error' || f.severity === 'warning') ? 1 : 0;
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`apidrift: internal error: ${(e as Error).stack ?? e}\n`);
      process.exitCode = 2;
    },
  );
}
