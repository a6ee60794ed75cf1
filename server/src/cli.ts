#!/usr/bin/env node
/**
 * apidrift's command line: `apidrift check --target PATH [--target PATH ...] [--output-format FORMAT] PATH...`
 *
 * Exit codes: 0 nothing found, 1 findings, 2 usage or target error (one line on stderr).
 * Output formats are in cli/formats.ts, which files are read in cli/files.ts, fixes in cli/fix.ts.
 */
import * as pep440 from '@renovatebot/pep440';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { type CallInfo, defaultCacheDir, Engine, type FetchOptions, installedBaseline, isRequirementSpec, TargetError } from './engine';
import { ConfigError, ConfigFinder } from './engine/config/pyproject';
import { detectEnvironments } from './lsp/detect';
import { buildReport, formatReportMarkdown, formatReportText } from './engine/report/report';
import { ZipRoot } from './engine/sources/zipRoot';
import { targetsOf } from './cli/checkFile';
import { collectFiles, UsageError } from './cli/files';
import { unifiedDiff } from './cli/fix';
import type { CellFinding } from './cli/notebook';
import { displayPath, escapeName, formatCheck, formatReportGithub, hasBreakingChange, JSON_SCHEMA_VERSION, OUTPUT_FORMATS, type OutputFormat } from './cli/formats';
import { version as VERSION } from '../../package.json';
import { decodeSource, MAX_SOURCE_BYTES } from './engine/sources/sourceRoot';
import { checkInput, type Checked, checkOnWorkers, filesUsed, isCheckWorker, usesInput } from './cli/parallel';
import { ResultCache, resultCacheCounts } from './cli/resultCache';

export { collectFiles, escapeName, JSON_SCHEMA_VERSION, resultCacheCounts };

/** Threads for building full indexes and checking large projects: both cores of a small machine, at most four. */
const THREADS = Math.max(1, Math.min(4, os.availableParallelism?.() ?? os.cpus().length));
/** Inputs from which a check runs on worker threads without being told (`--jobs`). */
const PARALLEL_FROM = 48;

const USAGE = `usage: apidrift check --target PATH [--target PATH ...] [--baseline PATH ...] [--output-format FORMAT] [--output-file FILE] [--fix | --diff] [--unsafe-fixes] [--exit-zero] [--list-calls] [--source-root DIR ...] [--jobs N] [--target-version PKG=VERSION ...] [--baseline-version PKG=VERSION ...] PATH...
       apidrift check --upgrade NAME==VERSION [--index-url URL] [--require-hashes] [--pre] PATH...
       apidrift diff --baseline PATH --target PATH [--package NAME] [--uses PATH ...] [--jobs N] [--output-format text|json|markdown|github] [--exit-zero]
       apidrift index --target PATH [--output-format text|json]
       apidrift --version

  check: checks Python files (or folders, recursively, or an archive's members) against the
  target: the source of the library version you are moving to (a folder on the import path,
  or a .whl/.zip archive). With --baseline (the version the code was written for), each
  finding says what changed. --list-calls lists every call into the target with its status:
  checked (its binding was decided), unknown (left open on purpose, with the reason) or
  untraced (its receiver comes from the target but its class could not be followed).
  The user's own modules (imported by absolute name) are read from --source-root folders, the
  current folder and its src/, and the folder above each checked path's top package.
  A project of many files is checked on every core (at most four threads; --jobs N to choose,
  --jobs 1 for one thread); the output is the same, in the same order.
  Version tests (if Version(vllm.__version__) >= Version("0.12"):) are decided where a tree
  says the version of the package they test (an installed tree or a wheel does); for a source
  checkout, --target-version vllm=0.16.0 (and --baseline-version) says it.

  diff: the API-change report between two versions: removed modules and names, moved names,
  changed signatures grouped by kind. With --uses, only what that code uses, ranked by uses
  (the files are read on every core, as check does; --jobs N to choose).

  index: builds (or loads from the cache) the full index of a target and reports its size and
  time: how to warm the cache in CI.

  --output-format (or --format): check: text, json, sarif, github (workflow commands), gitlab
  (code quality), junit. --output-file FILE writes the output there instead of stdout.
  --fix applies safe fixes (renamed keywords, moved imports), --unsafe-fixes the others too
  (removed arguments, guessed values); --diff prints them as a unified diff and writes nothing.
  A fix that needs your input (a placeholder) is never applied. --exit-zero: exit 0 even when
  something is found (diff: even when a change is breaking).

  Configuration: [tool.apidrift] in the nearest pyproject.toml (target, baseline, include,
  exclude, select, ignore, per-file-ignores, severity); the command line overrides it. Folders
  are searched without venv, build, dist, site-packages, node_modules, dot-folders and what
  .gitignore excludes; a path named on the command line is always checked.

  Targets: a folder, a .whl/.zip archive, git:REPO@REF (a work tree or a bare repository), or
  a requirement such as NAME==VERSION or 'NAME>=A,<B' (the newest match; --pre for
  pre-releases), read from the package index (--index-url, else $PIP_INDEX_URL, $UV_INDEX_URL;
  credentials from the URL or ~/.netrc) and kept in the cache; --require-hashes reads only
  whole files checked against the index's sha256. check --upgrade NAME==VERSION: the target
  is that version and the baseline the version installed in the environment ($VIRTUAL_ENV,
  else .venv or venv here); a requirement target without --baseline does the same.
  Summaries are cached in $XDG_CACHE_HOME/apidrift (default ~/.cache/apidrift); --no-cache
  bypasses the cache.

exit codes: 0 no findings (hints such as deprecations do not count), 1 findings (diff: a breaking change;
  --diff: a fix to make), 2 usage or target error, or results that are incomplete (an input skipped
  or a target module unreadable)`;

interface Args {
  command: 'check' | 'diff' | 'index';
  noCache: boolean;
  targets: string[];
  baseline: string[];
  format: OutputFormat | 'markdown';
  outputFile?: string;
  exitZero: boolean;
  fix: 'none' | 'apply' | 'diff';
  unsafeFixes: boolean;
  paths: string[];
  uses: string[];
  package?: string;
  /** `--upgrade NAME==VERSION`: that version as the target, the installed one as the baseline. */
  upgrade?: string;
  fetch: { indexUrl?: string; requireHashes: boolean; pre: boolean };
  /** check: list every call into the target with its status (checked, unknown, untraced) and why. */
  listCalls: boolean;
  /** Folders of the user's own code, searched for user modules after the target. */
  sourceRoots: string[];
  /** check: threads that check files (`--jobs`); undefined: every core for a large project. */
  jobs?: number;
  /** `--target-version NAME=VERSION`, `--baseline-version NAME=VERSION`: versions of packages the trees do not say. */
  targetVersions: Record<string, string>;
  baselineVersions: Record<string, string>;
}

/**
 * Where the user's own modules are imported from: the folders given with --source-root, the
 * current folder and its `src/`, and for each path checked the folder above its top package.
 */
function userRoots(args: Args): string[] {
  const out = [...args.sourceRoots, process.cwd(), path.join(process.cwd(), 'src')];
  for (const p of args.paths) {
    let dir: string;
    try {
      dir = fs.statSync(p).isDirectory() ? path.resolve(p) : path.dirname(path.resolve(p));
    } catch {
      continue;
    }
    while (fs.existsSync(path.join(dir, '__init__.py')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    out.push(dir);
  }
  return [...new Set(out.map((d) => path.resolve(d)))];
}

function parseArgs(argv: string[]): Args {
  const [command, ...rest] = argv;
  if (command !== 'check' && command !== 'diff' && command !== 'index') throw new UsageError(command ? `unknown command '${command}'` : 'missing command');
  const out: Args = { command, targets: [], baseline: [], format: 'text', paths: [], uses: [], noCache: false, exitZero: false, fix: 'none', unsafeFixes: false, listCalls: false, sourceRoots: [], fetch: { requireHashes: false, pre: false }, targetVersions: {}, baselineVersions: {} };
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
    else if (command === 'check' && (a === '--target-version' || a.startsWith('--target-version=') || a === '--baseline-version' || a.startsWith('--baseline-version='))) {
      const option = a.split('=')[0];
      const v = value();
      const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.+)$/.exec(v);
      if (!m || pep440.valid(m[2]) === null) throw new UsageError(`${option} needs PACKAGE=VERSION (a top-level package and a PEP 440 version), not '${v}'`);
      (option === '--target-version' ? out.targetVersions : out.baselineVersions)[m[1]] = m[2];
    }
    else if (a === '--no-cache') out.noCache = true;
    else if (command === 'check' && a === '--list-calls') out.listCalls = true;
    else if (command === 'check' && (a === '--source-root' || a.startsWith('--source-root='))) out.sourceRoots.push(value());
    else if (command === 'check' && (a === '--upgrade' || a.startsWith('--upgrade='))) out.upgrade = value();
    else if (command !== 'index' && (a === '--jobs' || a.startsWith('--jobs=') || a === '-j')) {
      const v = value();
      if (!/^[1-9][0-9]*$/.test(v)) throw new UsageError(`--jobs needs a number of threads, not '${v}'`);
      out.jobs = Math.min(Number(v), 64);
    }
    else if (a === '--index-url' || a.startsWith('--index-url=')) out.fetch.indexUrl = value();
    else if (a === '--require-hashes') out.fetch.requireHashes = true;
    else if (a === '--pre') out.fetch.pre = true;
    else if (command === 'diff' && (a === '--package' || a.startsWith('--package='))) out.package = value();
    else if (command === 'diff' && (a === '--uses' || a.startsWith('--uses='))) {
      out.uses.push(value());
      collectingUses = true;
    } else if (a === '--format' || a.startsWith('--format=') || a === '--output-format' || a.startsWith('--output-format=')) {
      const f = value();
      const allowed: string[] = command === 'diff' ? ['text', 'json', 'markdown', 'github'] : command === 'index' ? ['text', 'json'] : [...OUTPUT_FORMATS];
      if (!allowed.includes(f)) throw new UsageError(`${a.split('=')[0]} must be ${allowed.join(', ')}, not '${f}'`);
      out.format = f as Args['format'];
    } else if (a === '--output-file' || a.startsWith('--output-file=')) out.outputFile = value();
    else if (command !== 'index' && a === '--exit-zero') out.exitZero = true;
    else if (command === 'check' && (a === '--fix' || a === '--diff')) {
      if (out.fix !== 'none' && out.fix !== a.slice(2)) throw new UsageError('--fix and --diff cannot be used together');
      out.fix = a === '--fix' ? 'apply' : 'diff';
    } else if (command === 'check' && a === '--unsafe-fixes') out.unsafeFixes = true;
    else if (a === '--') out.paths.push(...rest.slice(i + 1)), (i = rest.length);
    else if (a.startsWith('-')) throw new UsageError(`unknown option '${a}'`);
    else if (collectingUses) out.uses.push(a);
    else out.paths.push(a);
  }
  if (out.upgrade !== undefined) {
    if (!isRequirementSpec(out.upgrade)) throw new UsageError(`--upgrade needs a requirement such as NAME==VERSION, not '${out.upgrade}'`);
    out.targets.push(out.upgrade);
  }
  if (out.targets.length === 0 && command !== 'check') throw new UsageError('at least one --target is required');
  if (out.unsafeFixes && out.fix === 'none') throw new UsageError('--unsafe-fixes goes with --fix or --diff');
  if (command === 'check' && out.paths.length === 0) throw new UsageError('no files to check');
  if (command === 'index' && out.paths.length > 0) throw new UsageError(`unexpected argument '${out.paths[0]}'`);
  if (command === 'diff') {
    if (out.baseline.length === 0) throw new UsageError('diff needs --baseline');
    if (out.paths.length > 0) throw new UsageError(`unexpected argument '${out.paths[0]}' (use --uses for code to rank by)`);
  }
  return out;
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

/** Writes the output to --output-file, or to stdout. */
function emit(io: { stdout: NodeJS.WritableStream }, args: Args, text: string): void {
  if (args.outputFile) fs.writeFileSync(args.outputFile, text);
  else io.stdout.write(text);
}

/** Exit code 2 and its reason when results are incomplete (inputs skipped, target modules unreadable). */
function incomplete(skipped: number, targetErrors: number, stderr: NodeJS.WritableStream): boolean {
  if (targetErrors > 0) stderr.write(`apidrift: ${targetErrors} target module${targetErrors === 1 ? '' : 's'} could not be read: the results are incomplete\n`);
  if (skipped > 0) stderr.write(`apidrift: ${skipped} input${skipped === 1 ? ' was' : 's were'} skipped or checked in part: the results are incomplete\n`);
  return targetErrors > 0 || skipped > 0;
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

/**
 * A target (or baseline) folder that is itself a regular package (`.../vllm`, with its
 * `__init__.py`): its modules are found there as `config`, `v1`..., not `vllm.config`, so the
 * code's imports of the package reach nothing and the check finds nothing. The warning names the
 * folder that contains it, which is what Python imports the package from.
 */
function packageFolder(spec: string): string | undefined {
  if (isRequirementSpec(spec) || spec.startsWith('git:') || /\.(whl|zip)$/i.test(spec)) return undefined;
  try {
    if (!fs.statSync(spec).isDirectory() || !fs.statSync(path.join(spec, '__init__.py')).isFile()) return undefined;
  } catch {
    return undefined;
  }
  const dir = path.resolve(spec);
  const name = path.basename(dir);
  return `${spec} is itself a package (it has __init__.py): imports of \`${name}\` (\`from ${name}.x import y\`) do not reach it, and calls into it go unchecked; give the folder that contains it (${path.dirname(dir)})`;
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
  if (args.format === 'json') emit(io, args, JSON.stringify(out, null, 2) + '\n');
  else emit(io, args, `${out.target}: ${out.modules} modules, ${out.signatures} signatures (${out.parsed} parsed, ${out.fromCache} from the cache) in ${ms} ms\n`);
  return 0;
}

async function runDiff(
  engine: Engine,
  args: Args,
  files: string[],
  io: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream },
  skip: (msg: string) => void,
  say: (msg: string) => void,
  targetError: (name: string, message: string) => void,
): Promise<number> {
  const base = engine.baseline!;
  // a report of the whole library compares every module; one restricted to what code uses
  // compares the modules that code's names need (found with the baseline's index), and indexes the
  // whole target only when a used name is gone and may have moved
  await base.program.buildFullIndexParallel(THREADS, progress(io, 'indexing the baseline'));
  if (args.uses.length === 0) await engine.program.buildFullIndexParallel(THREADS, progress(io, 'indexing the target'));
  let uses: Map<string, number> | undefined;
  if (args.uses.length > 0) {
    uses = new Map();
    // many files are read on worker threads (as `check` does), the names they use counted in file order
    const jobs = Math.min(args.jobs ?? (files.length >= PARALLEL_FROM ? THREADS : 1), files.length);
    const onWorkers = jobs > 1 && ![...args.targets, ...args.baseline].some(isRequirementSpec);
    const opts = { fix: 'none', unsafeFixes: false, listCalls: false, uses: true } as const;
    const run = onWorkers
      ? checkOnWorkers(
          engine,
          files.map((file) => ({ file })),
          jobs,
          { targets: args.targets, baseline: args.baseline, sourceRoots: [], cacheDir: args.noCache ? undefined : defaultCacheDir(), wasmDir: __dirname, opts, indexThreads: THREADS },
          say,
          targetError,
          (at) => Promise.resolve(usesInput(engine, files[at])),
        )
      : undefined;
    for (let at = 0; at < files.length; at++) {
      const rec = run ? await run.result(at) : usesInput(engine, files[at]);
      for (const n of rec.notes) (n.skip ? skip : say)(n.msg);
      for (const n of rec.uses ?? []) uses.set(n, (uses.get(n) ?? 0) + 1);
    }
    if (run) await run.finish(true);
  }
  const report = buildReport(base.program, engine.program, { baseline: base.program.target.label, target: engine.program.target.label }, {
    package: args.package,
    uses,
    onProgress: progress(io, 'comparing modules'),
  });
  if (args.format === 'json') emit(io, args, JSON.stringify({ version: JSON_SCHEMA_VERSION, ...report }, null, 2) + '\n');
  else if (args.format === 'markdown') emit(io, args, formatReportMarkdown(report));
  else if (args.format === 'github') emit(io, args, formatReportGithub(report, process.cwd()));
  else emit(io, args, formatReportText(report));
  // a breaking change fails the run, so that a release can be gated on it
  return hasBreakingChange(report) && !args.exitZero ? 1 : 0;
}

export async function main(argv: string[], io = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    io.stdout.write(USAGE + '\n');
    return 0;
  }
  if (argv[0] === '--version' || argv[0] === '-V') {
    io.stdout.write(`apidrift ${VERSION}\n`);
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
  const configs = new ConfigFinder();
  // every input (or part of one) not checked: a run that skipped something never exits 0
  let skipped = 0;
  const say = (m: string): void => {
    io.stderr.write(`apidrift: ${escapeName(m)}\n`);
  };
  const skip = (m: string): void => {
    skipped++;
    say(m);
  };
  try {
    if (args.command === 'check') Object.assign(args, targetsOf(args, args.paths, configs));
    for (const spec of [...args.targets, ...args.baseline]) {
      const why = packageFolder(spec);
      if (why) say(why);
    }
    const fetch = fetchOptions(args, io);
    try {
      engine = await Engine.open({ targets: args.targets, baseline: args.baseline, targetVersions: args.targetVersions, baselineVersions: args.baselineVersions, sourceRoots: args.command === 'check' ? userRoots(args) : [], wasmDir: __dirname, cacheDir: args.noCache ? undefined : defaultCacheDir(), deferParser: args.command === 'index', fetch });
      // the run writes its fixes at the end: the targets stay as they are while it checks
      engine.targetsFixed();
    } finally {
      fetch.onProgress?.({ message: '' }); // clears the progress line
    }
    if (engine.cache) engine.cache.onError = say;
    for (const p of [engine.program, engine.baseline?.program]) {
      if (p) p.onError = (name, error) => {
        // index workers that stop are replaced by this thread: only modules left unread count
        if (name !== '(index workers)') targetErrors++;
        say(`cannot read target module ${name}: ${(error as Error).message ?? error}`);
      };
    }
    files = collectFiles(args.command === 'diff' ? args.uses : args.paths, skip, args.command === 'check' ? configs : undefined);
  } catch (e) {
    if (e instanceof TargetError || e instanceof UsageError || e instanceof ConfigError) {
      io.stderr.write(`apidrift: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  if (args.command === 'diff' || args.command === 'index') {
    const targetError = (name: string, message: string): void => {
      targetErrors++;
      say(`cannot read target module ${name}: ${message}`);
    };
    const code = args.command === 'diff' ? await runDiff(engine, args, files, io, skip, say, targetError) : await runIndex(engine, args, started, io);
    return finish(engine, incomplete(skipped, targetErrors, io.stderr) && !args.exitZero ? 2 : code);
  }
  const findings: CellFinding[] = [];
  const checked: string[] = [];
  let fixedFindings = 0;
  const fixedFiles: Array<{ file: string; before: string; after: string }> = [];
  let callsChecked = 0;
  let callsUnknown = 0;
  let callsUntraced = 0;
  let checkedFiles = 0;
  const calls: Array<{ file: string; call: CallInfo }> = [];
  const inputs: Array<{ file: string; zip?: ZipRoot; rel?: string; module?: { name: string; isPackage: boolean } }> = [];
  for (const file of files) {
    if (/\.(whl|zip)$/i.test(file)) {
      // an archive: check each Python member as the module it is
      let zip: ZipRoot;
      try {
        zip = new ZipRoot(file);
      } catch (e) {
        say((e as Error).message);
        return 2;
      }
      for (const rel of zip.members().filter((m) => /\.py$/.test(m)).sort()) {
        inputs.push({ file: zip.displayPath(rel), zip, rel, module: Engine.moduleNameOfRelative(rel) });
      }
    } else inputs.push({ file });
  }
  // the classes of every file of the project first: overrides in one file count for calls in another
  const project = inputs.filter((i) => !i.zip && /\.pyi?$/.test(i.file) && !engine.moduleNameOf(i.file));
  if (project.length > 1) {
    engine.addProjectFiles(
      project.flatMap(({ file }) => {
        try {
          const st = fs.statSync(file);
          return st.isFile() && st.size <= MAX_SOURCE_BYTES ? [{ file, text: decodeSource(fs.readFileSync(file)) }] : [];
        } catch {
          return []; // reported when the file is checked
        }
      }),
    );
  }
  const opts = { fix: args.fix, unsafeFixes: args.unsafeFixes, listCalls: args.listCalls };
  // results of inputs unchanged since a run with the same options, replayed (never when fixing)
  const results = !args.noCache && args.fix === 'none' && engine.cache ? ResultCache.open(engine, { cacheDir: engine.cache.dir, listCalls: args.listCalls, onError: say }) : undefined;
  const replayed: Array<Checked | undefined> = results ? inputs.map((input) => results.lookup(input, configs)) : [];
  /** The inputs to check, and where each of the others lies among them. */
  const todo = inputs.filter((_, at) => !replayed[at]);
  const todoAt: number[] = [];
  for (let at = 0, k = 0; at < inputs.length; at++) todoAt.push(replayed[at] ? -1 : k++);
  resultCacheCounts.replayed = inputs.length - todo.length;
  resultCacheCounts.checked = todo.length;
  // a large project (or --jobs) is checked on worker threads, each with its own engine over the same targets
  const jobs = Math.min(args.jobs ?? (todo.length >= PARALLEL_FROM ? THREADS : 1), todo.length);
  const onWorkers = jobs > 1 && ![...args.targets, ...args.baseline].some(isRequirementSpec);
  const run = onWorkers
    ? checkOnWorkers(
        engine,
        todo,
        jobs,
        { targets: args.targets, baseline: args.baseline, targetVersions: args.targetVersions, baselineVersions: args.baselineVersions, sourceRoots: userRoots(args), cacheDir: args.noCache ? undefined : defaultCacheDir(), wasmDir: __dirname, opts, indexThreads: THREADS },
        say,
        (name, message) => {
          targetErrors++;
          say(`cannot read target module ${name}: ${message}`);
        },
        (k) => checkInput(engine, todo[k], configs, opts),
      )
    : undefined;
  let fatal = false;
  for (let at = 0; at < inputs.length; at++) {
    let rec = replayed[at];
    if (!rec) {
      rec = run ? await run.result(todoAt[at]) : await checkInput(engine, inputs[at], configs, opts);
      results?.store(inputs[at], rec);
    }
    const file = inputs[at].file;
    for (const n of rec.notes) (n.skip ? skip : say)(n.msg);
    if (rec.fatal !== undefined) {
      io.stderr.write(`apidrift: ${rec.fatal}\n`);
      fatal = true;
      break;
    }
    const o = rec.outcome;
    if (!o) continue;
    findings.push(...o.findings);
    fixedFindings += o.fixed;
    if (o.fixedText !== undefined) fixedFiles.push({ file, before: o.before!, after: o.fixedText });
    if (o.skipped.length > 0) skipped++;
    for (const why of o.skipped) say(`skipped part of ${file}: ${why}`);
    checked.push(file);
    callsChecked += o.callsChecked;
    callsUnknown += o.callsUnknown;
    callsUntraced += o.callsUntraced;
    if (o.calls) for (const call of o.calls) calls.push({ file, call });
    checkedFiles++;
  }
  // the files the workers read, with those this thread read for the full index
  const ran = run ? await run.finish(!fatal) : undefined;
  const used = ran ? new Set([...ran.files, ...filesUsed(engine.program)]) : undefined;
  if (fatal) return 2;
  const ms = Math.round(performance.now() - started);
  if (args.fix === 'diff') {
    // the fixes as a unified diff, nothing written
    emit(io, args, fixedFiles.map((f) => unifiedDiff(displayPath(f.file, process.cwd()), f.before, f.after)).join(''));
    io.stderr.write(`apidrift: ${fixedFindings} finding${fixedFindings === 1 ? '' : 's'} would be fixed in ${fixedFiles.length} file${fixedFiles.length === 1 ? '' : 's'}\n`);
  } else {
    for (const f of fixedFiles) fs.writeFileSync(f.file, f.after);
    if (args.fix === 'apply') io.stderr.write(`apidrift: fixed ${fixedFindings} finding${fixedFindings === 1 ? '' : 's'} in ${fixedFiles.length} file${fixedFiles.length === 1 ? '' : 's'}\n`);
    const stats = { files: checkedFiles, callsChecked, callsUnknown, callsUntraced, targetModulesRead: used ? used.size : engine.modulesRead, skipped, targetErrors, ms };
    emit(io, args, formatCheck(args.format as OutputFormat, { findings, files: checked, stats, ...(args.listCalls ? { calls } : {}), version: VERSION, cwd: process.cwd() }));
  }
  engine.saveCache();
  // with what the checks looked up on other threads (none: this thread checked everything); not
  // after a run that could not read the whole target (its results are incomplete)
  if (results && targetErrors === 0) results.save(ran ? ran.lookups : { target: [], baseline: [] }, engine.cache?.disabled ?? true);
  // a target that could not be read in full, or an input not checked, gives no all-clear
  if (incomplete(skipped, targetErrors, io.stderr) && !args.exitZero) return 2;
  if (args.exitZero) return 0;
  // hints (deprecations) inform; errors and warnings fail the run; --diff fails when there is a fix to make
  if (args.fix === 'diff' && fixedFiles.length > 0) return 1;
  return findings.some((f) => f.severity === 'error' || f.severity === 'warning') ? 1 : 0;
}

/**
 * Output that cannot be written: a reader that went away (`| head -1`) ends the run quietly; any
 * other failure (a full disk) is an error, never a silently cut report.
 */
function watchOutput(): void {
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    try {
      process.stderr.write(`apidrift: cannot write the output: ${e.code ?? e.message}\n`);
    } finally {
      process.exit(2);
    }
  });
}

if (require.main === module && !isCheckWorker) {
  watchOutput();
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
