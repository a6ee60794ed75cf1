/**
 * apidrift's language server: keeps the open Python documents, checks them against the
 * configured targets with the engine, and serves diagnostics, quick fixes and hovers.
 */
import * as fs from 'fs';
import * as path from 'path';
import { fileURLToPath, pathToFileURL } from 'url';
import {
  type CodeAction,
  type CodeActionParams,
  createConnection,
  type Diagnostic,
  DidChangeConfigurationNotification,
  DidChangeWatchedFilesNotification,
  FileChangeType,
  type Hover,
  type HoverParams,
  type InitializeResult,
  MarkupKind,
  NotebookDocuments,
  NotebookCellKind,
  ProposedFeatures,
  SetTraceNotification,
  Trace,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocuments,
  TextDocumentSyncKind,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { type CallInfo, defaultCacheDir, Engine, type CheckResult, type Finding, type FetchProgress, installedBaseline, isRequirementSpec, type Position, type Range } from '../engine';
import { type ApidriftConfig, applyConfig, ConfigFinder } from '../engine/config/pyproject';
import { toCodeAction, toDiagnostic } from './convert';
import { ignorable, ignoreFileEdit, ignoreLineEdit } from './ignore';
import { detectEnvironments } from './detect';
import { environmentName, importedDistributions, importedTopLevels } from './environmentInfo';
import { installedDistributions, listVersions } from '../engine/sources/wheelFetch';
import { ChangesRequest, type ChangesResult, DetectRequest, EnvironmentNotification, type EnvironmentParams, FIX_ALL_KIND, RecheckRequest, type ServerState, StatusNotification, type StatusParams, CancelFetchNotification, FetchProgressNotification, type FetchProgressParams, VersionsRequest, type VersionsParams, type VersionsResult, CheckWorkspaceRequest } from './protocol';
import { fixAllEdits } from '../engine/check/fixes';
import { PROJECT_PENDING } from '../engine/check/check';
import { initParser, parserReady, ParserCrashError } from '../engine/parser';
import { buildReport } from '../engine/report/report';
import { type UsePlace, workspaceReport } from './changesReport';
import { collectFiles } from '../cli/files';
import { DEFAULT_SETTINGS, parseSettings, resolveTargetPath, type Settings } from './settings';
import { keyOf, lineStarts, type Shown, toWithhold, TYPING_PAUSE_MS } from './typingPause';
import { WorkspaceChecker } from './workspaceMode';
import { cellsAsModule, placeInCells } from '../cli/notebook';
import { TargetWatcher } from './watch';
import { codeCacheHook } from '../codeCache';

/** How long edits are gathered before a slow document is re-checked. */
const DEBOUNCE_MS = 120;
/**
 * A document whose re-check after an edit is expected to take at most this long is re-checked as
 * soon as an edit arrives. The expectation is the last check's cost outside its units plus its
 * slowest unit (an edit touches one statement or one method, and the rest is taken over).
 */
const FAST_CHECK_MS = 25;
/** A check pauses for other requests once it has run this long since its last pause. */
const CHECK_SLICE_MS = 8;
const TEST_FAIL_ON = process.env.APIDRIFT_TEST_FAIL_ON;

/**
 * Over stdio, a message with a broken header leaves the reader out of step with the stream for
 * good: every later message would be lost, and the editor would show stale or no diagnostics with
 * no sign of trouble. The server exits instead (stderr says why), and the client starts a new one.
 */
function stdioConnection(): ReturnType<typeof createConnection> {
  const reader = new StreamMessageReader(process.stdin);
  reader.onError((e) => {
    process.stderr.write(`apidrift: the message stream is broken (${e.message.split('\n')[0]}): exiting so that the client restarts the server\n`);
    process.exit(1);
  });
  return createConnection(ProposedFeatures.all, reader, new StreamMessageWriter(process.stdout));
}

const connection = process.argv.includes('--stdio') ? stdioConnection() : createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);

let workspaceFolder: string | undefined;
/** Every workspace folder (the first is `workspaceFolder`). */
let workspaceFolders: string[] = [];
let hasConfigurationCapability = false;
let settings: Settings = DEFAULT_SETTINGS;
let engine: Engine | undefined;
let engineKey = '';
let engineError: string | undefined;
/** Why the configured baseline could not be opened (the target is checked without it). */
let baselineError: string | undefined;
let engineLoading: Promise<void> | undefined;
let resolvedTargets: string[] = [];
let resolvedBaseline: string[] = [];
let indexing: { cancelled: boolean } | undefined;
/** A check asked which subclasses override a method: the target's full index is wanted. */
let indexWanted = false;
let environment: EnvironmentParams = { trusted: true };
let cacheDir: string | undefined;
/** The client shows the progress of fetches itself (FetchProgressNotification). */
let clientShowsFetchProgress = false;
let fetchIds = 0;
const fetchCancels = new Map<number, () => void>();
let saveTimer: NodeJS.Timeout | undefined;

/** Writes the summary cache a little after the last change to it. */
function saveCacheSoon(): void {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => {
    saveTimer = undefined;
    engine?.saveCache();
  }, 2000);
}
// what the cache learnt just before the editor closes is there for the next start
connection.onShutdown(() => {
  // (and the code cache, when typing kept it from being written)
  if (codeCache === 'waiting') saveCodeCache();
  if (saveTimer === undefined) return;
  clearTimeout(saveTimer);
  saveTimer = undefined;
  engine?.saveCache();
});
let targetOrigin = '';
/** The top level of each target folder, where an upgrade replaces `*.dist-info` (see watch.ts). */
const targetWatcher = new TargetWatcher({ onChange: (file) => targetChangedOnDisk(file), ownFolder: () => cacheDir, log });
/** The client's file watcher reports the workspace's Python files (registered at start). */
let clientWatchesFiles = false;

interface DocState {
  version: number;
  result: CheckResult;
  /** The diagnostic of each finding, in the same order. */
  diagnostics: Diagnostic[];
  /** What the check saw of the project's other files (see `Engine.projectViewOf`). */
  projectView: string;
}

/** The diagnostics of a check, each with the baseline's definition of its call where known. */
function diagnosticsOf(result: CheckResult): Diagnostic[] {
  const key = (r: Range): string => `${r.start.line}:${r.start.character}:${r.end.line}:${r.end.character}`;
  const baseDefs = new Map<string, CallInfo['definition']>();
  for (const c of result.calls) if (c.baseline?.definition) baseDefs.set(key(c.extent), c.baseline.definition);
  return result.findings.map((f) => toDiagnostic(f, f.call ? baseDefs.get(key(f.call)) : undefined));
}
const results = new Map<string, DocState>();
/** The pending check of each document. */
const timers = new Map<string, { cancel(): void }>();

function log(message: string): void {
  connection.console.log(`[${new Date().toISOString().slice(11, 23)}] ${message}`);
}

/** `apidrift.trace.server` is not `off` (the client says so at start and with `$/setTrace`). */
let tracing = false;

/** A line for the output only while tracing: what happens on every keystroke (each check, each download step). */
function traceLog(message: string): void {
  if (tracing) log(message);
}

/** A path as the output shows it: relative to the workspace folder when inside it. */
function shown(p: string): string {
  return workspaceFolder && isInside(p, workspaceFolder) && path.isAbsolute(p) ? path.relative(workspaceFolder, p) || '.' : p;
}

function sendStatus(state: ServerState, message: string): void {
  const params: StatusParams = { state, targets: resolvedTargets, message, pid: process.pid, ...targetInfo() };
  void connection.sendNotification(StatusNotification, params);
  lastStatus = { state, message };
  originSent = targetOrigin;
  if (state === 'ready') readyMessage = message;
}

let lastStatus: { state: ServerState; message: string } | undefined;
/** The target's origin as the status said it last. */
let originSent = '';
/** The top-level modules each open document imports. */
const importsOf = new Map<string, Set<string>>();
/** The libraries the status named last. */
let librariesKey = '';

/** What the status says of the target: its origin, its environment, and the versions of what the open files import from it. */
function targetInfo(): Pick<StatusParams, 'origin' | 'environment' | 'libraries'> {
  if (resolvedTargets.length === 0) return {};
  const imports = new Set<string>();
  for (const set of importsOf.values()) for (const m of set) imports.add(m);
  const libraries: Array<{ name: string; version: string }> = [];
  let environmentLabel: string | undefined;
  for (const t of resolvedTargets) {
    const spec = isRequirementSpec(t) ? /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*==\s*([^\s,;]+)\s*$/.exec(t) : undefined;
    if (spec) libraries.push({ name: spec[1], version: spec[2] });
    if (isRequirementSpec(t) || t.startsWith('git:')) continue;
    environmentLabel ??= environmentName(t);
    for (const d of importedDistributions(t, imports)) if (!libraries.some((l) => l.name === d.name)) libraries.push(d);
  }
  librariesKey = JSON.stringify(libraries);
  return { origin: targetOrigin, environment: environmentLabel, libraries };
}

/** A document's imports changed: the status names the libraries again when they changed. */
function noteImports(uri: string, text: string | undefined): void {
  const before = importsOf.get(uri);
  const now = text === undefined ? undefined : importedTopLevels(text);
  if (now) importsOf.set(uri, now);
  else importsOf.delete(uri);
  const same = before && now ? before.size === now.size && [...now].every((m) => before.has(m)) : before === now;
  if (same || !lastStatus || lastStatus.state !== 'ready') return;
  const key = librariesKey;
  const info = targetInfo();
  if (JSON.stringify(info.libraries) !== key) sendStatus(lastStatus.state, lastStatus.message);
}

/** The last 'ready' status, said again once every document that could not be checked can be. */
let readyMessage = '';
/** Open documents whose last check failed, and why: the status says so while there are any. */
const notChecked = new Map<string, string>();

/**
 * A document that could not be checked (too large, the parser crashed, an internal error) is
 * never shown as clean: it gets one warning saying so, and the status says it too.
 */
function reportNotChecked(uri: string, version: number, reason: string): void {
  notChecked.set(uri, reason);
  void connection.sendDiagnostics({
    uri,
    version,
    diagnostics: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: 2, source: 'apidrift', code: 'not-checked', message: `apidrift could not check this file: ${reason}` }],
  });
  sendStatus('error', `${path.basename(uriToPath(uri))} could not be checked: ${reason}`);
}

function checkedAgain(uri: string): void {
  if (!notChecked.delete(uri)) return;
  if (notChecked.size === 0 && readyMessage) sendStatus('ready', readyMessage);
}

function uriToPath(uri: string): string {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : uri;
  } catch {
    return uri;
  }
}

async function loadSettings(): Promise<Settings> {
  if (!hasConfigurationCapability) return settings;
  try {
    // the first folder's settings (each other folder reads its own: see folderScopes)
    const raw = await connection.workspace.getConfiguration({ scopeUri: workspaceFolder ? pathToFileURL(workspaceFolder).href : undefined, section: 'apidrift' });
    return parseSettings(raw);
  } catch (e) {
    log(`could not read settings: ${(e as Error).message}`);
    return settings;
  }
}

/** `[tool.apidrift]` of the nearest pyproject.toml (read again when the engine is re-opened); none while untrusted. */
let configs = new ConfigFinder();

function configFor(p: string | undefined): ApidriftConfig | undefined {
  if (!environment.trusted || !p) return undefined;
  try {
    return configs.forPath(p);
  } catch (e) {
    log(`${(e as Error).message}`);
    return undefined;
  }
}

/** (Re)opens the engine when the targets changed. */
function detected(): ReturnType<typeof detectEnvironments> {
  // in an untrusted workspace nothing of the workspace's own choosing is used
  if (!environment.trusted) return [];
  return detectEnvironments({ workspaceFolder, interpreter: environment.interpreter, virtualEnv: process.env.VIRTUAL_ENV });
}

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Notices a target that changes on disk (a `pip install -U` in the environment) and re-checks. */
function watchTargets(paths: string[]): void {
  targetWatcher.watch(paths);
}

/** A target (or a workspace file the checks may read) changed on disk: re-validate, re-index a changed target, re-check the open files. */
function targetChangedOnDisk(files: string[]): void {
  if (!engine) return;
  const roots = [...resolvedTargets, ...resolvedBaseline];
  const inTarget = files.find((f) => roots.some((t) => isInside(f, t)));
  if (inTarget) {
    log(`target changed on disk (${shown(inTarget)}): re-indexing`);
    cancelActiveCheck();
    engine.refresh();
    engine.program.invalidateIndex();
    engine.baseline?.program.invalidateIndex();
    if (notChecked.size === 0) sendStatus('ready', 'target changed on disk: re-checked');
    if (engine.baseline || indexWanted) void indexInBackground(engine);
    workspaceAgain(true);
  } else {
    log(`workspace file changed on disk (${shown(files[0])}): re-checking open files`);
    engine.refresh();
  }
  for (const doc of documents.all()) schedule(doc, 0);
}

/** A baseline that cannot be opened, said as a baseline problem (the engine's message names every source a target). */
function baselineProblem(baseline: string[], message: string): string {
  const why = message.replace(/^target /, '');
  return /does not exist|not found|ENOENT/i.test(message) ? `baseline ${baseline.join(', ')} not found (${why})` : `baseline ${baseline.join(', ')} cannot be read (${why})`;
}

async function ensureEngine(): Promise<void> {
  resolvedTargets = settings.targets.map((t) => resolveTargetPath(t, workspaceFolder));
  resolvedBaseline = settings.baseline.map((t) => resolveTargetPath(t, workspaceFolder));
  targetOrigin = 'apidrift.targets';
  // the settings override the workspace's pyproject.toml
  configs = new ConfigFinder();
  const config = configFor(workspaceFolder);
  if (resolvedTargets.length === 0 && config?.target) {
    resolvedTargets = config.target;
    targetOrigin = `${path.basename(config.file)} [tool.apidrift]`;
  }
  if (resolvedBaseline.length === 0 && config?.baseline) resolvedBaseline = config.baseline;
  if (resolvedTargets.length === 0) {
    const env = detected()[0];
    if (env) {
      resolvedTargets = [env.sitePackages];
      targetOrigin = `auto-detected: ${env.label}`;
    }
  }
  // a target named by version without a baseline: the version installed in the environment is the baseline
  const environments = detected().map((e) => e.sitePackages);
  if (resolvedBaseline.length === 0) {
    const installed = installedBaseline(resolvedTargets, environments);
    if (installed.baseline.length > 0) {
      resolvedBaseline = installed.baseline;
      log(`baseline: ${installed.versions.join(', ')} installed in ${installed.baseline.map(shown).join(', ')}`);
    }
  }
  const key = JSON.stringify([resolvedTargets, resolvedBaseline, settings.indexUrl, settings.requireHashes]);
  if (key === engineKey) {
    // the same target from elsewhere (the detected environment pinned in the settings, or back): the status says where from
    if (engine && targetOrigin !== originSent && lastStatus?.state === 'ready') sendStatus('ready', readyMessage.replace(`(${originSent})`, `(${targetOrigin})`));
    return;
  }
  engineKey = key;
  engine = undefined;
  engineError = undefined;
  baselineError = undefined;
  results.clear();
  watchTargets([...resolvedTargets, ...resolvedBaseline]);
  if (resolvedTargets.length === 0) {
    sendStatus('idle', 'no target set: add folders or archives to the apidrift.targets setting, or create a .venv');
    log('no target configured (apidrift.targets is empty)');
    return;
  }
  sendStatus('indexing', `opening ${resolvedTargets.join(', ')}`);
  try {
    const sourceRoots = workspaceFolder ? [workspaceFolder, path.join(workspaceFolder, 'src')] : [];
    const fetching = [...resolvedTargets, ...resolvedBaseline].some(isRequirementSpec) ? await fetchProgress() : undefined;
    let opened: Engine;
    try {
      const fetch = { cacheDir: cacheDir ? path.dirname(cacheDir) : defaultCacheDir(), indexUrl: settings.indexUrl || undefined, requireHashes: settings.requireHashes, environments, onProgress: fetching?.report, signal: fetching?.signal };
      const open = (baseline: string[]): Promise<Engine> => Engine.open({ targets: resolvedTargets, baseline, sourceRoots, wasmDir: __dirname, indexOnDemand: false, cacheDir, incremental: true, fetch });
      try {
        opened = await open(resolvedBaseline);
      } catch (e) {
        if (resolvedBaseline.length === 0 || (e as Error).name === 'AbortError' || fetching?.signal.aborted) throw e;
        // a baseline that cannot be read only takes the explanations away: the target alone is
        // still checked (when the target itself is at fault, this fails again and says so)
        opened = await open([]);
        baselineError = baselineProblem(resolvedBaseline, (e as Error).message);
      }
    } finally {
      fetching?.done();
    }
    if (opened.cache) opened.cache.onError = (m) => log(m);
    if (engineKey !== key) return; // settings changed meanwhile
    engine = opened;
    void loadProjectFiles(opened);
    // the targets are watched: files are re-validated when they change and in idle time, not on keystrokes
    engine.revalidateEvery(targetWatcher.size > 0 ? Infinity : 0);
    engine.program.releaseAfterIndex = true;
    for (const p of [engine.program, engine.baseline?.program]) {
      if (!p) continue;
      p.onError = (name, error) => {
        const why = `cannot read target module ${name}: ${(error as Error).message ?? error}`;
        log(why);
        sendStatus('error', why);
      };
    }
    if (baselineError) {
      connection.console.warn(`[${new Date().toISOString().slice(11, 23)}] ${baselineError}: checking against the target without explanations`);
      void connection.window.showWarningMessage(`apidrift: ${baselineError}; checking against the target without explanations (apidrift.baseline)`);
    }
    const baselineNote = baselineError ? `; ${baselineError}` : resolvedBaseline.length ? `; baseline ${resolvedBaseline.join(', ')}` : '';
    log(`target: ${resolvedTargets.map(shown).join(', ')}${baselineError ? '' : resolvedBaseline.length ? `; baseline: ${resolvedBaseline.map(shown).join(', ')}` : ''}`);
    sendStatus('ready', `target ${resolvedTargets.join(', ')} (${targetOrigin})${baselineNote}`);
    // the full index finds moved names (with a baseline) and the subclasses that override a
    // method (virtual dispatch): it is built when a baseline asks for it, or once a check wants
    // to know a method's overrides, never on the keystroke that asked
    indexWanted = false;
    opened.program.onIndexWanted = () => {
      if (indexWanted || engine !== opened) return;
      indexWanted = true;
      setTimeout(() => void indexInBackground(opened), 1000);
    };
    if (opened.baseline) void indexInBackground(opened);
  } catch (e) {
    if (engineKey !== key) return;
    engineError = (e as Error).message;
    log(`target error: ${engineError}`);
    sendStatus('error', engineError);
  }
}

/**
 * A progress notification while targets named by version are fetched: what is fetched, the size,
 * and a cancel button (which stops the download).
 */
async function fetchProgress(): Promise<{ report: (p: FetchProgress) => void; signal: AbortSignal; done: () => void }> {
  const abort = new AbortController();
  let show: { report: (percentage: number | undefined, message: string) => void; done: () => void } | undefined;
  if (clientShowsFetchProgress) {
    // the extension shows a notification with a cancel button
    const id = ++fetchIds;
    fetchCancels.set(id, () => abort.abort());
    const send = (p: FetchProgressParams): void => void connection.sendNotification(FetchProgressNotification, p);
    send({ id, kind: 'begin', message: 'asking the package index' });
    show = {
      report: (percentage, message) => send({ id, kind: 'report', percentage, message }),
      done: () => {
        fetchCancels.delete(id);
        send({ id, kind: 'end' });
      },
    };
  } else {
    try {
      const p = await connection.window.createWorkDoneProgress();
      p.begin('apidrift: fetching the target', undefined, 'asking the package index', true);
      p.token.onCancellationRequested(() => abort.abort());
      show = { report: (percentage, message) => (percentage !== undefined ? p.report(percentage, message) : p.report(message)), done: () => p.done() };
    } catch {
      show = undefined; // the client does not show progress
    }
  }
  let last = 0;
  let lastMessage = '';
  let shownStep = '';
  return {
    signal: abort.signal,
    report: (p) => {
      const now = Date.now();
      // a new step is shown at once; the bytes of one at most every 200 ms
      if (!p.message || (p.message === lastMessage && p.done !== undefined && now - last < 200 && p.done !== p.total)) return;
      last = now;
      lastMessage = p.message;
      const mb = (n: number): string => `${(n / 1048576).toFixed(1)} MB`;
      const size = p.done !== undefined ? ` (${mb(p.done)}${p.total ? ` of ${mb(p.total)}` : ''})` : '';
      const pct = p.done !== undefined && p.total ? Math.min(100, Math.round((100 * p.done) / p.total)) : undefined;
      show?.report(pct, p.message + size);
      // each step once; how far the download is, only while tracing
      if (p.message !== shownStep) log(p.message + size);
      else traceLog(p.message + size);
      shownStep = p.message;
    },
    done: () => show?.done(),
  };
}

/**
 * Builds the target's full index (every module, for finding names that moved) off the typing
 * path, in small slices, with work-done progress; then re-checks the open documents.
 */
async function indexInBackground(forEngine: Engine): Promise<void> {
  if (indexing) indexing.cancelled = true;
  const token = { cancelled: false };
  indexing = token;
  let progress: Awaited<ReturnType<typeof connection.window.createWorkDoneProgress>> | undefined;
  try {
    progress = await connection.window.createWorkDoneProgress();
    progress.begin('apidrift: indexing the target', 0, 'listing modules', false);
  } catch {
    progress = undefined; // the client does not show progress
  }
  const started = performance.now();
  let collectedAt = 0;
  const index = await forEngine.program.buildFullIndexAsync(
    (done, total) => {
      progress?.report(Math.floor((done * 100) / Math.max(total, 1)), `${done}/${total} modules`);
      // summarising every module makes garbage fast: collected every so many modules, it does
      // not grow the heap (the server runs with --expose-gc, see launch.json)
      if (done - collectedAt >= 100) {
        collectedAt = done;
        collectGarbage();
      }
    },
    () => token.cancelled || engine !== forEngine,
  );
  collectGarbage();
  progress?.done();
  if (indexing === token) indexing = undefined;
  if (!index || engine !== forEngine) return;
  log(`full index: ${index.modules.length} modules in ${Math.round(performance.now() - started)} ms${index.fromCache ? ' (from the cache)' : ''}`);
  // what removed-attribute findings read of every target file, read now rather than on a keystroke
  await forEngine.readTargetPatchesAsync(() => engine !== forEngine);
  if (engine !== forEngine) return;
  saveCacheSoon();
  for (const doc of documents.all()) schedule(doc, 0);
  workspaceAgain(true);
}

/**
 * A check leaves its garbage in the young generation, which the server keeps small (2 MB
 * semi-spaces, see launch.json): collected by the next check, it pauses that check for one to
 * seven milliseconds, since the next check's own objects are alive then. Collected once the
 * check's diagnostics are written, almost nothing is alive (0.35 ms at the median, under a
 * millisecond at the 95th percentile, in the engine's benchmark), and the next check starts
 * with room for what it makes. This runs before the server reads the next message: an edit that
 * arrives right after the diagnostics waits for it, and saves more than that in its check. Not
 * while a check is under way or waiting (it publishes again).
 */
function collectYoungAfter(sent: Promise<void>): void {
  const gc = (globalThis as { gc?: (options?: { type: 'minor' | 'major' }) => void }).gc;
  if (!gc) return;
  void sent.then(
    () => {
      if (!active && timers.size === 0) gc({ type: 'minor' });
    },
    () => undefined,
  );
}

/** A full garbage collection, when the server was started with --expose-gc. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function reload(): Promise<void> {
  cancelActiveCheck();
  // checks wait from now on: a document opened while the settings are asked for is checked
  // with the engine they select, not reported empty for want of one
  const run = (async () => {
    settings = await loadSettings();
    await ensureEngine();
    await ensureFolderScopes();
    for (const doc of documents.all()) schedule(doc, 0);
    workspaceAgain();
  })();
  engineLoading = run;
  await run;
}

/** A check still under way after this long says in the trace that it started. */
const SLOW_CHECK_NOTE_MS = 100;

/** How long the last check of each document took. */
const checkMs = new Map<string, number>();

/** When the last edit of each document arrived (performance.now(), for the debounce). */
const editArrivedAt = new Map<string, number>();

function schedule(doc: TextDocument, delay?: number): void {
  const uri = doc.uri;
  if (delay === undefined) {
    // an edit: checked at once when its check is expected to be fast, or when edits come slower
    // than the document checks (nothing is gained by waiting); a burst of edits on a slow
    // document waits for a pause (a check under way is cancelled by the newer version anyway)
    const now = performance.now();
    const since = now - (editArrivedAt.get(uri) ?? -Infinity);
    editArrivedAt.set(uri, now);
    const expected = checkMs.get(uri) ?? Infinity;
    // an edit that arrives while an edit of the document is being checked (and cancels that
    // check) is one of a burst: the next check waits for a pause too (a check of a version
    // already checked, as after the project's files were read, is no edit)
    const burst = active?.uri === uri && active.version !== checkedVersion.get(uri);
    delay = !burst && (expected <= FAST_CHECK_MS || since >= expected) ? 0 : DEBOUNCE_MS;
  }
  // edits that arrived together are still checked once: the timer runs after the pending messages
  timers.get(uri)?.cancel();
  const run = (): void => {
    timers.delete(uri);
    void validate(uri, doc.version);
  };
  if (delay === 0) {
    const handle = setImmediate(run);
    timers.set(uri, { cancel: () => clearImmediate(handle) });
  } else {
    const handle = setTimeout(run, delay);
    timers.set(uri, { cancel: () => clearTimeout(handle) });
  }
}

/**
 * The check under way. Checks run one at a time (they share the engine's program) and pause
 * between the units of a file, so that hovers and other requests are answered during a long one;
 * a newer version of its document, a target change or new settings cancel it at its next pause.
 */
let active: { uri: string; version: number; cancelled: boolean; done: Promise<void> } | undefined;

/** The version of each document whose check was last published. */
const checkedVersion = new Map<string, number>();

function cancelActiveCheck(): void {
  if (active) active.cancelled = true;
}

async function validate(uri: string, version: number): Promise<void> {
  if (engineLoading) await engineLoading;
  while (active) await active.done;
  // from here to the start of the check nothing waits: no other check can start meanwhile
  const doc = documents.get(uri);
  if (!doc || doc.version !== version || doc.languageId !== 'python') return;
  // in a multi-root workspace, the engine of the document's folder
  const current = engineFor(uri);
  if (!current) {
    results.delete(uri);
    void connection.sendDiagnostics({ uri, version, diagnostics: [] });
    return;
  }
  // the previous version's results are stale from here on (code actions for it are refused):
  // let them go now rather than after this check, so that they die young
  results.delete(uri);
  const started = performance.now();
  let finished!: () => void;
  const me = { uri, version, cancelled: false, done: new Promise<void>((resolve) => (finished = resolve)) };
  active = me;
  let result: CheckResult;
  let projectView = '';
  let slowNote: NodeJS.Timeout | undefined;
  try {
    const text = doc.getText();
    // a hook for the fault-isolation tests: documents holding this marker make the check throw
    if (TEST_FAIL_ON && text.includes(TEST_FAIL_ON)) throw new Error('failure requested by APIDRIFT_TEST_FAIL_ON');
    // a check that takes a while says so when it starts (it pauses between units, so the timer
    // runs); a keystroke's check says only, once published, what it did (one message, not two)
    if (tracing) slowNote = setTimeout(() => traceLog(`checking ${shown(uriToPath(uri))} v${version}`), SLOW_CHECK_NOTE_MS);
    projectView = current.projectViewOf(uriToPath(uri));
    result = await current.checkAsync(text, uriToPath(uri), () => me.cancelled || documents.get(uri)?.version !== version, CHECK_SLICE_MS);
  } catch (e) {
    if ((e as Error).name === 'CancelledError' || (e as Error).message === 'check cancelled') return;
    if (engineFor(uri) !== current) return;
    log(`error while checking ${shown(uriToPath(uri))}: ${(e as Error).stack ?? e}`);
    // findings of an older text would sit at wrong places: clear them, and say why there are none
    results.delete(uri);
    reportNotChecked(uri, version, (e as Error).message ?? String(e));
    // after a parser crash, the next check waits for the fresh parser
    if (e instanceof ParserCrashError) await parserReady();
    return;
  } finally {
    clearTimeout(slowNote);
    active = undefined;
    finished();
  }
  if (documents.get(uri)?.version !== version || engineFor(uri) !== current || me.cancelled) return; // a newer version (or engine) is on its way
  const t = result.timing;
  // what the next edit is expected to cost: all but the units, and the slowest unit
  checkMs.set(uri, t?.totalMs !== undefined ? t.totalMs - t.unitsMs + t.maxUnitMs : performance.now() - started);
  lastCheckAt = Date.now();
  // what the pyproject.toml selects, ignores or re-grades (fix-all and quick fixes follow what is shown)
  const file = uriToPath(uri);
  result = { ...result, findings: applyConfig(result.findings, configFor(file), file) };
  const diagnostics = diagnosticsOf(result);
  results.set(uri, { version, result, diagnostics, projectView });
  checkedVersion.set(uri, version);
  noteImports(uri, doc.getText());
  checkedAgain(uri);
  if (current.cache) saveCacheSoon();
  collectYoungAfter(publish(uri, version, doc.getText(), result.findings, diagnostics));
  // the last figure is the time the check itself took (without its pauses)
  traceLog(`checked ${shown(uriToPath(uri))} v${version}: ${result.findings.length} findings, ${result.callsChecked} calls checked, ${result.callsUnknown} unknown, ${result.reused ?? 0} units reused, ${t?.unitsChecked ?? 0} re-checked, ${(performance.now() - started).toFixed(1)} ms until published, ${(t?.totalMs ?? performance.now() - started).toFixed(1)} ms`);
}

/**
 * The launcher's code cache (see codeCache.ts) is written once, after the first diagnostics (the
 * first check's functions are compiled by then), at a moment without typing: a start that took a
 * good cache writes nothing.
 */
let codeCache: 'idle' | 'waiting' | 'done' = 'idle';
function saveCodeCache(): void {
  const hook = codeCacheHook();
  codeCache = 'done';
  if (!hook) return;
  hook.save();
  log(hook.state.saved ? `code cache written: ${hook.state.file}` : `code cache not written: ${hook.state.error}`);
}
function saveCodeCacheSoon(): void {
  const hook = codeCacheHook();
  if (codeCache !== 'idle' || !hook || hook.state.state === 'off' || hook.state.state === 'used') return;
  codeCache = 'waiting';
  const attempt = (): void => {
    if (codeCache !== 'waiting') return;
    const now = Date.now();
    if ([...editedAt.values()].some((t) => now - t < 2000)) setTimeout(attempt, 2000).unref();
    else saveCodeCache();
  };
  setTimeout(attempt, 1000).unref();
}

/** What the editor shows of each document (for the typing pause). */
const shownFindings = new Map<string, Shown>();
/** When each document was last edited. */
const editedAt = new Map<string, number>();
/** The pending publication, after the typing pause, of findings held back. */
const pauseTimers = new Map<string, NodeJS.Timeout>();

/**
 * Sends the diagnostics of a check. While a statement is being typed, findings that are new on
 * it wait for a pause in typing (then everything is sent); the rest is sent at once.
 */
function publish(uri: string, version: number, text: string, findings: Finding[], diagnostics: Diagnostic[]): Promise<void> {
  clearTimeout(pauseTimers.get(uri));
  pauseTimers.delete(uri);
  const sinceEdit = Date.now() - (editedAt.get(uri) ?? 0);
  const typing = sinceEdit < TYPING_PAUSE_MS ? toWithhold(shownFindings.get(uri), text, findings) : undefined;
  const held = typing?.held ?? findings.map(() => false);
  const starts = lineStarts(text);
  shownFindings.set(uri, { text, keys: new Set(findings.filter((_, i) => !held[i]).map((f) => keyOf(starts, f))), edited: typing?.edited });
  const sent = connection.sendDiagnostics({ uri, version, diagnostics: diagnostics.filter((_, i) => !held[i]) });
  saveCodeCacheSoon();
  if (!held.includes(true)) return sent;
  traceLog(`${shown(uriToPath(uri))} v${version}: ${held.filter(Boolean).length} new findings on the edited statement wait for a pause in typing`);
  pauseTimers.set(
    uri,
    setTimeout(() => {
      pauseTimers.delete(uri);
      const state = results.get(uri);
      if (!state || state.version !== version || documents.get(uri)?.version !== version) return;
      void publish(uri, version, text, state.result.findings, state.diagnostics);
    }, TYPING_PAUSE_MS - sinceEdit),
  );
  return sent;
}

/**
 * Watched targets are re-validated (the sizes and mtimes of the files the checks used) in idle
 * time, a while after the last check, in case a change escaped the watcher; what changed is
 * re-checked. Without a watcher every check re-validates.
 */
const IDLE_REVALIDATE_MS = 1000;
/** While files are open, their targets are also re-validated this often (what no watcher sees: a checkout switched deep down). */
const PERIODIC_REVALIDATE_MS = 10_000;
let lastCheckAt = 0;
let revalidatedAt = 0;
setInterval(() => {
  if (!engine || targetWatcher.size === 0 || active) return;
  const now = Date.now();
  const periodic = documents.all().length > 0 && now - revalidatedAt >= PERIODIC_REVALIDATE_MS && now - lastCheckAt >= IDLE_REVALIDATE_MS;
  if (!periodic && (lastCheckAt <= revalidatedAt || now - lastCheckAt < IDLE_REVALIDATE_MS)) return;
  revalidatedAt = now;
  if (engine.revalidate()) {
    log('target files changed: re-checking open files');
    for (const doc of documents.all()) schedule(doc, 0);
    workspaceAgain(true);
  }
}, IDLE_REVALIDATE_MS / 2).unref();

function contains(r: Range, p: Position): boolean {
  const after = p.line > r.start.line || (p.line === r.start.line && p.character >= r.start.character);
  const before = p.line < r.end.line || (p.line === r.end.line && p.character <= r.end.character);
  return after && before;
}

function overlaps(a: Range, b: Range): boolean {
  return contains(a, b.start) || contains(a, b.end) || contains(b, a.start);
}

connection.onInitialize((params): InitializeResult => {
  const folder = params.workspaceFolders?.[0]?.uri ?? params.rootUri ?? undefined;
  workspaceFolder = folder ? uriToPath(folder) : undefined;
  workspaceFolders = (params.workspaceFolders ?? []).map((f) => uriToPath(f.uri));
  if (workspaceFolders.length === 0 && workspaceFolder) workspaceFolders = [workspaceFolder];
  clientHasFolders = !!params.capabilities.workspace?.workspaceFolders;
  hasConfigurationCapability = !!params.capabilities.workspace?.configuration;
  clientWatchesFiles = !!params.capabilities.workspace?.didChangeWatchedFiles?.dynamicRegistration;
  tracing = !!params.trace && params.trace !== 'off';
  const init = params.initializationOptions as { settings?: unknown; environment?: EnvironmentParams; cacheDir?: string; fetchProgress?: boolean } | undefined;
  clientShowsFetchProgress = init?.fetchProgress === true;
  cacheDir = typeof init?.cacheDir === 'string' ? path.join(init.cacheDir, 'cache') : undefined;
  if (init?.settings) settings = parseSettings(init.settings);
  if (init?.environment) environment = init.environment;
  // the parser's wasm is compiled while the client answers the settings request and opens its
  // files, not after the first file arrives (opening the target waits for the same promise, and
  // says so if it fails)
  initParser(__dirname).catch(() => undefined);
  const code = codeCacheHook()?.state;
  if (code && code.state !== 'off') {
    const what = { none: 'none yet (written after the first check)', used: 'loaded', rejected: 'made by another build, Node or flags (written anew after the first check)', damaged: 'damaged, set aside (written anew after the first check)' }[code.state];
    log(`code cache: ${what}: ${code.file}`);
  }
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      codeActionProvider: { codeActionKinds: ['quickfix', FIX_ALL_KIND] },
      hoverProvider: true,
      // the Python cells of notebooks, checked as the one module they form when run in order
      notebookDocumentSync: { notebookSelector: [{ notebook: '*', cells: [{ language: 'python' }] }] },
      workspace: { workspaceFolders: { supported: true, changeNotifications: true } },
    },
    serverInfo: { name: 'apidrift' },
  };
});

connection.onInitialized(() => {
  if (hasConfigurationCapability) void connection.client.register(DidChangeConfigurationNotification.type, { section: 'apidrift' });
  if (clientHasFolders) {
    connection.workspace.onDidChangeWorkspaceFolders((e) => {
      const removed = new Set(e.removed.map((f) => uriToPath(f.uri)));
      workspaceFolders = [...workspaceFolders.filter((f) => !removed.has(f)), ...e.added.map((f) => uriToPath(f.uri))];
      void reload();
    });
  }
  // the workspace's own files are watched by the editor (it watches the workspace anyway): for
  // workspace diagnostics, the project's classes, and the files the checks read
  if (clientWatchesFiles) void connection.client.register(DidChangeWatchedFilesNotification.type, { watchers: [{ globPattern: '**/*.{py,pyi}' }, { globPattern: '**/pyproject.toml' }] });
  void reload();
});

connection.onDidChangeWatchedFiles(({ changes }) => {
  for (const c of changes) {
    if (!c.uri.startsWith('file:')) continue;
    const file = uriToPath(c.uri);
    if (path.basename(file) === 'pyproject.toml') {
      // its [tool.apidrift] table is read again, and the open files re-checked
      void reload();
      continue;
    }
    if (cacheDir && isInside(file, cacheDir)) continue;
    // workspace diagnostics and the project's classes follow the file on disk
    if (c.type === FileChangeType.Deleted) workspaceChecker.deleted(file);
    else workspaceChecker.forgetFile(file);
    void projectFileChanged(file, c.type === FileChangeType.Deleted);
    // an open document is what the editor shows, not what is on disk
    if (c.type === FileChangeType.Changed && documents.get(c.uri)) continue;
    targetWatcher.changed(file);
  }
  workspaceSoon();
});

connection.onDidChangeConfiguration((change) => {
  if (!hasConfigurationCapability) settings = parseSettings((change.settings as { apidrift?: unknown })?.apidrift);
  void reload();
});

/** At most this many files of the workspace are read for the report's uses. */
const MAX_USE_FILES = 5000;

/**
 * What the workspace's Python files use of the target and the baseline: each callee, and each
 * import of a name or module the target lacks, with the places (open documents as they are in
 * the editor, other files as on disk).
 */
async function workspaceUses(current: Engine): Promise<Map<string, UsePlace[]>> {
  const uses = new Map<string, UsePlace[]>();
  const add = (name: string | null | undefined, file: string, line: number): void => {
    if (!name) return;
    let list = uses.get(name);
    if (!list) uses.set(name, (list = []));
    list.push({ file, line: line + 1 });
  };
  const files = new Map<string, string | undefined>();
  for (const doc of documents.all()) if (doc.languageId === 'python' && doc.uri.startsWith('file:')) files.set(uriToPath(doc.uri), doc.getText());
  if (workspaceFolder && environment.trusted) {
    for (const f of collectFiles([workspaceFolder], () => undefined)) {
      if (files.size >= MAX_USE_FILES) break;
      if (/\.pyi?$/.test(f) && !files.has(f)) files.set(f, undefined);
    }
  }
  for (const [file, open] of files) {
    let text = open;
    try {
      if (text === undefined) text = fs.statSync(file).size <= 8 * 1024 * 1024 ? fs.readFileSync(file, 'utf8') : undefined;
    } catch {
      text = undefined;
    }
    if (text === undefined) continue;
    try {
      const r = current.check(text, file);
      const seen = new Set<string>();
      for (const c of r.calls) {
        seen.add(`${c.extent.start.line}:${c.extent.start.character}`);
        add(c.callee, file, c.extent.start.line);
      }
      for (const f of r.findings) if (f.code === 'unknown-import' || f.code === 'unknown-attribute' || f.code === 'unknown-module') add(f.callee, file, f.range.start.line);
      if (current.baseline) {
        // calls of what the target no longer has are seen in the baseline
        current.baseline.program.nextGeneration();
        for (const c of current.baseline.checker.check(text, { file }).calls) if (!seen.has(`${c.extent.start.line}:${c.extent.start.character}`)) add(c.callee, file, c.extent.start.line);
      }
    } catch (e) {
      log(`report: could not read the uses of ${shown(file)}: ${(e as Error).message}`);
    } finally {
      if (open === undefined) current.forget(file);
    }
    await new Promise((r) => setImmediate(r)); // the editor's requests go on meanwhile
  }
  return uses;
}

connection.onRequest(ChangesRequest, async (): Promise<ChangesResult> => {
  if (engineLoading) await engineLoading;
  if (!engine) return { error: engineError ?? 'no target is set (apidrift.targets)' };
  if (!engine.baseline) return { error: baselineError ?? 'no baseline is set: add the version your code was written for to apidrift.baseline' };
  const current = engine;
  const progress = await connection.window.createWorkDoneProgress().catch(() => undefined);
  progress?.begin('apidrift: comparing versions', 0, '', false);
  try {
    await current.baseline!.program.buildFullIndexAsync((d, t) => progress?.report(Math.floor((d * 50) / Math.max(t, 1)), `baseline ${d}/${t}`));
    await current.program.buildFullIndexAsync((d, t) => progress?.report(50 + Math.floor((d * 50) / Math.max(t, 1)), `target ${d}/${t}`));
    const report = buildReport(current.baseline!.program, current.program, { baseline: resolvedBaseline.map(shown).join(', '), target: resolvedTargets.map(shown).join(', ') });
    // the changes the workspace uses first, ranked, linked to the places; then the whole report
    const { text, links, used } = workspaceReport(report, await workspaceUses(current), shown);
    return { text, links, used };
  } catch (e) {
    log(`report failed: ${(e as Error).stack ?? e}`);
    return { error: (e as Error).message };
  } finally {
    progress?.done();
  }
});

connection.onNotification(EnvironmentNotification, (p: EnvironmentParams) => {
  const changed = p.interpreter !== environment.interpreter || p.trusted !== environment.trusted || JSON.stringify(p.folders ?? {}) !== JSON.stringify(environment.folders ?? {});
  environment = p;
  if (changed) {
    engineKey = '';
    void reload();
  }
});

// the library keeps the trace level to itself: it is followed here too
connection.onNotification(SetTraceNotification.type, (p) => {
  tracing = p.value !== 'off';
  (connection.tracer as unknown as { trace: Trace }).trace = Trace.fromString(p.value);
});

connection.onRequest(DetectRequest, () => detected());
connection.onNotification(CancelFetchNotification, (p: { id: number }) => fetchCancels.get(p?.id)?.());
connection.onRequest(VersionsRequest, async (params: VersionsParams): Promise<VersionsResult> => {
  const env = detected()[0];
  const installed = env ? installedDistributions(env.sitePackages) : [];
  if (!params?.project) return { installed };
  try {
    return { installed, versions: await listVersions(params.project, { indexUrl: settings.indexUrl || undefined }) };
  } catch (e) {
    return { installed, error: (e as Error).message };
  }
});

connection.onRequest(RecheckRequest, async () => {
  engineKey = ''; // reopen the target: picks up changes on disk and clears every cache
  await reload();
  return { state: engine ? 'ready' : engineError ? 'error' : 'idle' };
});

documents.onDidOpen((e) => schedule(e.document, 0));
documents.onDidChangeContent((e) => {
  editedAt.set(e.document.uri, Date.now());
  lastEditAt = Date.now();
  schedule(e.document);
});
documents.onDidClose((e) => {
  clearTimeout(pauseTimers.get(e.document.uri));
  pauseTimers.delete(e.document.uri);
  shownFindings.delete(e.document.uri);
  editedAt.delete(e.document.uri);
  checkedAgain(e.document.uri);
  timers.get(e.document.uri)?.cancel();
  timers.delete(e.document.uri);
  results.delete(e.document.uri);
  checkMs.delete(e.document.uri);
  checkedVersion.delete(e.document.uri);
  noteImports(e.document.uri, undefined);
  editArrivedAt.delete(e.document.uri);
  engine?.forget(uriToPath(e.document.uri));
  if (settings.diagnosticMode === 'workspace' && e.document.uri.startsWith('file:')) {
    // the file's problems stay: it is checked again from disk (the editor may have held unsaved text)
    workspaceChecker.forgetFile(uriToPath(e.document.uri));
    workspaceSoon();
    return;
  }
  void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
});

connection.onCodeAction((params: CodeActionParams): CodeAction[] => {
  if (cellResults.has(params.textDocument.uri)) return cellCodeActions(params);
  const doc = documents.get(params.textDocument.uri);
  const state = results.get(params.textDocument.uri);
  if (!doc || !state || state.version !== doc.version) return []; // stale: fixes were computed for another text
  const only = params.context.only;
  if (only && only.some((k) => FIX_ALL_KIND.startsWith(k) && k.startsWith('source'))) {
    const edits = fixAllEdits(state.result.findings.map((f) => f.fixes));
    if (edits.length === 0) return [];
    return [{ title: `apidrift: fix all (${edits.length} edits)`, kind: FIX_ALL_KIND, edit: { documentChanges: [{ textDocument: { uri: doc.uri, version: doc.version }, edits }] } }];
  }
  const actions: CodeAction[] = [];
  const ignores: CodeAction[] = [];
  const lines = doc.getText().split(/\r?\n/);
  const textDocument = { uri: doc.uri, version: doc.version };
  const lineIgnored = new Set<string>();
  let fileIgnore: CodeAction | undefined;
  state.result.findings.forEach((f, i) => {
    if (!overlaps(f.range, params.range)) return;
    const diagnostic = state.diagnostics[i];
    for (const fix of f.fixes) actions.push(toCodeAction(f, fix, doc.uri, doc.version, diagnostic));
    if (!ignorable(f)) return;
    // one action per code and line, after the fixes
    const once = `${f.range.start.line}:${f.code}`;
    const edit = lineIgnored.has(once) ? undefined : ignoreLineEdit(lines, f.range.start.line, f.code);
    if (edit) {
      lineIgnored.add(once);
      ignores.push({ title: `Ignore [${f.code}] on this line`, kind: 'quickfix', diagnostics: [diagnostic], edit: { documentChanges: [{ textDocument, edits: [edit] }] } });
    }
    if (!fileIgnore) fileIgnore = { title: 'Ignore every apidrift finding in this file', kind: 'quickfix', diagnostics: [], edit: { documentChanges: [{ textDocument, edits: [ignoreFileEdit(lines)] }] } };
    fileIgnore.diagnostics!.push(diagnostic);
  });
  return [...actions, ...ignores, ...(fileIgnore ? [fileIgnore] : [])];
});

/** Text shown as it is in Markdown (`__init__.py` is not bold, `*args` not emphasis). */
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|~]/g, (c) => `\\${c}`);
}

/** A definition as a short link: the file's name and line, linking to the file when it is on disk. */
function definitionLink(def: { file: string; line: number } | null): string {
  if (!def) return '';
  const label = escapeMarkdown(`${path.basename(def.file)}:${def.line}`);
  return fs.existsSync(def.file) ? `[${label}](${pathToFileURL(def.file).href}#L${def.line})` : label;
}

/** The parameters the findings of a call are about (every missing one of a grouped finding). */
function paramsConcerned(findings: Finding[]): Set<string> {
  const names = new Set<string>();
  for (const f of findings) {
    if (!f.param) continue;
    names.add(f.param);
    if (f.code === 'missing-argument') {
      // Python's words quote the names; a baseline's explanation after them is in backticks
      const words = f.message.split('. Target signature: ')[0].split('`')[0];
      for (const m of words.matchAll(/'([A-Za-z_]\w*)'/g)) names.add(m[1]);
    }
  }
  return names;
}

/** A parameter name: after `(`, `,` or stars, before `:`, `=`, `,` or `)`. */
const PARAM_NAME = /([(,]\s*\**)([A-Za-z_]\w*)(?=\s*[:=,)])/g;

/**
 * Signatures for the hover: a Python block, or, when findings name parameters, Markdown text with
 * those parameters in bold.
 */
function signatureBlock(signatures: string[], emphasise: Set<string>): string {
  const names = (sig: string): string[] => [...sig.matchAll(PARAM_NAME)].map((m) => m[2]);
  if (!signatures.some((sig) => names(sig).some((n) => emphasise.has(n)))) return '```python\n' + signatures.join('\n') + '\n```';
  return signatures
    .map((sig) => {
      const out: string[] = [];
      let last = 0;
      for (const m of sig.matchAll(PARAM_NAME)) {
        if (!emphasise.has(m[2])) continue;
        const at = m.index! + m[1].length;
        out.push(escapeMarkdown(sig.slice(last, at)), `**${escapeMarkdown(m[2])}**`);
        last = at + m[2].length;
      }
      out.push(escapeMarkdown(sig.slice(last)));
      return out.join('');
    })
    .join('\n\n');
}

connection.onHover((params: HoverParams): Hover | null => {
  // a notebook cell: its own calls and findings
  const cell = cellResults.get(params.textDocument.uri);
  const doc = cell ? notebooks.cellTextDocuments.get(params.textDocument.uri) : documents.get(params.textDocument.uri);
  const state = cell ? { version: cell.version, result: { calls: cell.calls, findings: cell.findings } } : results.get(params.textDocument.uri);
  if (!doc || !state || state.version !== doc.version) return null;
  const call = state.result.calls.find((c) => contains(c.range, params.position));
  if (!call) return null;
  const parts: string[] = [];
  if (call.signatures.length > 0) {
    const same = (a: Range, b: Range): boolean => a.start.line === b.start.line && a.start.character === b.start.character && a.end.line === b.end.line && a.end.character === b.end.character;
    const emphasise = paramsConcerned(state.result.findings.filter((f) => f.call && same(f.call, call.extent)));
    if (call.baseline && call.baseline.signatures.length > 0) {
      // what changed first, then the signature the call must bind to, then the one it was written for
      if (call.changes && call.changes.length > 0) parts.push(call.changes.map((c) => `- ${c}`).join('\n'));
      parts.push(`**target** ${definitionLink(call.definition)}\n\n${signatureBlock(call.signatures, emphasise)}`);
      parts.push(`**baseline** ${definitionLink(call.baseline.definition)}\n\n\`\`\`python\n${call.baseline.signatures.join('\n')}\n\`\`\``);
    } else {
      parts.push(signatureBlock(call.signatures, emphasise));
      parts.push(`\`${call.callee}\` in the target, ${definitionLink(call.definition)}`);
    }
  } else if (call.unknownReason) {
    parts.push(
      call.status === 'untraced'
        ? `apidrift could not tell the class of this call's receiver, so the call is not checked: ${call.unknownReason}`
        : `apidrift does not check this call: ${call.unknownReason}`,
    );
  }
  return { contents: { kind: MarkupKind.Markdown, value: parts.join('\n\n') }, range: call.range };
});

// ------------------------------------------------------------------ multi-root workspaces

/**
 * A workspace folder after the first whose settings (or `[tool.apidrift]`, or detected
 * environment) give other targets than the first folder's: it has its own engine. Folders whose
 * targets are the first folder's share its engine.
 */
interface FolderScope {
  folder: string;
  key: string;
  targets: string[];
  engine?: Engine;
  error?: string;
}
const folderScopes = new Map<string, FolderScope>();

/** The innermost workspace folder holding a file (a path or a URI). */
function folderOf(fileOrUri: string): string | undefined {
  const file = uriToPath(fileOrUri);
  if (!path.isAbsolute(file)) return undefined;
  let best: string | undefined;
  for (const f of workspaceFolders) if (isInside(file, f) && (!best || f.length > best.length)) best = f;
  return best;
}

/** The engine that checks a file: its folder's, or the first folder's. */
function engineFor(fileOrUri: string): Engine | undefined {
  const folder = folderOf(fileOrUri);
  const scope = folder ? folderScopes.get(folder) : undefined;
  return scope ? scope.engine : engine;
}

/** Reads the settings of every folder after the first and opens the engines of those that need their own. */
async function ensureFolderScopes(): Promise<void> {
  const others = workspaceFolders.filter((f) => f !== workspaceFolder);
  for (const f of [...folderScopes.keys()]) if (!others.includes(f)) folderScopes.delete(f);
  for (const folder of others) {
    let own = settings;
    if (hasConfigurationCapability) {
      try {
        own = parseSettings(await connection.workspace.getConfiguration({ scopeUri: pathToFileURL(folder).href, section: 'apidrift' }));
      } catch (e) {
        log(`could not read the settings of ${folder}: ${(e as Error).message}`);
      }
    }
    let targets = own.targets.map((t) => resolveTargetPath(t, folder));
    let baseline = own.baseline.map((t) => resolveTargetPath(t, folder));
    let origin = 'apidrift.targets';
    const config = configFor(folder);
    if (targets.length === 0 && config?.target) {
      targets = config.target;
      origin = `${path.basename(config.file)} [tool.apidrift]`;
    }
    if (baseline.length === 0 && config?.baseline) baseline = config.baseline;
    // the environment the Python extension selected for this folder (wherever it lies), else one inside the folder
    const selected = environment.folders?.[folder];
    const environments = environment.trusted
      ? [
          ...(selected ? detectEnvironments({ interpreter: selected }) : []),
          ...detectEnvironments({ workspaceFolder: folder, virtualEnv: process.env.VIRTUAL_ENV }).filter((e) => isInside(e.sitePackages, folder)),
        ]
      : [];
    if (targets.length === 0 && environments[0]) {
      targets = [environments[0].sitePackages];
      origin = `auto-detected: ${environments[0].label}`;
    }
    if (baseline.length === 0) baseline = installedBaseline(targets, environments.map((e) => e.sitePackages)).baseline;
    const key = JSON.stringify([targets, baseline, own.indexUrl, own.requireHashes]);
    if (targets.length === 0 || key === engineKey) {
      // nothing of its own: the first folder's engine checks it
      folderScopes.delete(folder);
      continue;
    }
    if (folderScopes.get(folder)?.key === key) continue;
    const scope: FolderScope = { folder, key, targets };
    folderScopes.set(folder, scope);
    try {
      const fetch = { cacheDir: cacheDir ? path.dirname(cacheDir) : defaultCacheDir(), indexUrl: own.indexUrl || undefined, requireHashes: own.requireHashes, environments: environments.map((e) => e.sitePackages) };
      const opened = await Engine.open({ targets, baseline, sourceRoots: [folder, path.join(folder, 'src')], wasmDir: __dirname, indexOnDemand: false, cacheDir, incremental: true, fetch });
      if (folderScopes.get(folder) !== scope) continue;
      scope.engine = opened;
      void loadProjectFiles(opened);
      opened.program.releaseAfterIndex = true;
      log(`folder ${path.basename(folder)}: target ${targets.join(', ')} (${origin})${baseline.length ? `; baseline ${baseline.join(', ')}` : ''}`);
      if (opened.baseline) {
        // moved names need the full index: built off the typing path, then the folder's files are checked again
        void opened.program.buildFullIndexAsync(undefined, () => folderScopes.get(folder) !== scope).then((index) => {
          if (!index || folderScopes.get(folder) !== scope) return;
          for (const doc of documents.all()) if (folderOf(doc.uri) === folder) schedule(doc, 0);
          workspaceAgain(true);
        });
      }
    } catch (e) {
      scope.error = (e as Error).message;
      log(`folder ${path.basename(folder)}: target error: ${scope.error}`);
      void connection.window.showWarningMessage(`apidrift: the target of the folder ${path.basename(folder)} cannot be opened: ${scope.error}`);
    }
  }
}

// ------------------------------------------------------------------ workspace diagnostics

let clientHasFolders = false;
const workspaceChecker = new WorkspaceChecker({
  files: () => {
    if (workspaceFolders.length === 0) return [];
    const targets = [...resolvedTargets, ...resolvedBaseline].filter((t) => path.isAbsolute(t));
    return collectFiles(workspaceFolders, (m) => traceLog(m), configs).filter((f) => /\.pyi?$/.test(f) && !targets.some((t) => isInside(f, t)));
  },
  check: (file, text) => {
    const checking = engineFor(file);
    if (!checking) return undefined;
    try {
      const result = checking.check(text, file);
      return diagnosticsOf({ ...result, findings: applyConfig(result.findings, configFor(file), file) });
    } catch (e) {
      log(`error while checking ${shown(file)}: ${(e as Error).message}`);
      return [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, severity: 2, source: 'apidrift', code: 'not-checked', message: `apidrift could not check this file: ${(e as Error).message}` }];
    } finally {
      checking.forget(file);
    }
  },
  publish: (uri, diagnostics) => void connection.sendDiagnostics({ uri, diagnostics }),
  isOpen: (uri) => documents.get(uri) !== undefined,
  busy: () => timers.size > 0 || Date.now() - lastEditAt < WORKSPACE_TYPING_MS,
  progress: async () => {
    try {
      const p = await connection.window.createWorkDoneProgress();
      p.begin('apidrift: checking the workspace', 0, '', false);
      return { report: (pct, message) => p.report(pct, message), done: () => p.done() };
    } catch {
      return undefined;
    }
  },
  log,
});
/** When any open document was last edited, and how long after it workspace checks wait. */
let lastEditAt = 0;
const WORKSPACE_TYPING_MS = 1000;
/** What the workspace's files were last checked against. */
let workspaceKey = '';

/**
 * After a reload, a new index or a target change: in workspace mode, the workspace's files are
 * checked again (those whose results may have changed); otherwise what an earlier "Check
 * workspace" published is taken back when the targets change.
 */
function workspaceAgain(targetsChanged = false): void {
  const key = [engineKey, ...[...folderScopes.values()].map((s) => s.key)].join('\n');
  if (targetsChanged || key !== workspaceKey) workspaceChecker.invalidate();
  const changed = key !== workspaceKey || workspaceModeWas !== settings.diagnosticMode;
  workspaceKey = key;
  workspaceModeWas = settings.diagnosticMode;
  if (settings.diagnosticMode === 'workspace') void workspaceChecker.run();
  else if (changed || targetsChanged) workspaceChecker.clear();
  for (const nb of openNotebooks) scheduleNotebook(nb, 0);
}
let workspaceModeWas = settings.diagnosticMode;

let workspaceTimer: NodeJS.Timeout | undefined;
/** A run of the workspace check a little after the last file event. */
function workspaceSoon(): void {
  clearTimeout(workspaceTimer);
  workspaceTimer = setTimeout(() => {
    if (settings.diagnosticMode === 'workspace') void workspaceChecker.run();
  }, 300);
}



// ------------------------------------------------------------------ the project's classes

/**
 * The classes of the workspace's Python files, for virtual dispatch: a method call on `self` or on
 * a declared receiver is checked only when every override the engine knows of binds it the same
 * way, and an override may live in any file of the workspace. They are read in the background
 * after an engine opens, a few files at a time (calls that need them stay unknown meanwhile), and
 * follow the files' changes on disk.
 */
const PROJECT_CHUNK = 25;
const MAX_PROJECT_BYTES = 2 << 20;

function isCurrentEngine(e: Engine): boolean {
  return e === engine || [...folderScopes.values()].some((s) => s.engine === e);
}

/** The workspace folders whose files an engine checks. */
function foldersOf(e: Engine): string[] {
  if (e !== engine) return [...folderScopes.values()].filter((s) => s.engine === e).map((s) => s.folder);
  return workspaceFolders.filter((f) => !folderScopes.get(f)?.engine);
}

async function readProjectFile(file: string): Promise<string | undefined> {
  try {
    const st = await fs.promises.stat(file);
    if (!st.isFile() || st.size > MAX_PROJECT_BYTES) return undefined;
    const text = await fs.promises.readFile(file, 'utf8');
    // only classes matter: a file without one adds nothing
    return /^\s*class\s/m.test(text) ? text : undefined;
  } catch {
    return undefined;
  }
}

async function loadProjectFiles(e: Engine): Promise<void> {
  e.projectPending = true;
  let changed = false;
  try {
    const folders = foldersOf(e);
    const targets = [...resolvedTargets, ...resolvedBaseline].filter((t) => path.isAbsolute(t));
    const files = folders.length ? collectFiles(folders, (m) => traceLog(m), configs).filter((f) => /\.pyi?$/.test(f) && !targets.some((t) => isInside(f, t))) : [];
    for (let i = 0; i < files.length; i += PROJECT_CHUNK) {
      const batch: Array<{ file: string; text?: string }> = [];
      for (const file of files.slice(i, i + PROJECT_CHUNK)) {
        const text = await readProjectFile(file);
        if (text !== undefined) batch.push({ file, text });
      }
      if (!isCurrentEngine(e)) return;
      if (e.setProjectFiles(batch)) changed = true;
      await new Promise((resolve) => setImmediate(resolve));
    }
    traceLog(`project classes read from ${files.length} files`);
  } finally {
    e.projectPending = false;
  }
  if (!isCurrentEngine(e)) return;
  // checked again: documents whose results may change (another file's classes or patched names
  // were read, or a call waited for them); a document whose check is under way or due is checked
  // again too, as it may have started while the files were still being read
  for (const doc of documents.all()) {
    if (engineFor(doc.uri) !== e) continue;
    const state = results.get(doc.uri);
    const waited = !state || state.result.calls.some((c) => c.unknownReason === PROJECT_PENDING);
    if (waited || (changed && state.projectView !== e.projectViewOf(uriToPath(doc.uri)))) schedule(doc, 0);
  }
}

/** A Python file of the workspace changed on disk: its classes are read again. */
async function projectFileChanged(file: string, deleted: boolean): Promise<void> {
  if (!/\.pyi?$/.test(file)) return;
  const e = engineFor(file);
  if (!e) return;
  const text = deleted ? undefined : await readProjectFile(file);
  if (!isCurrentEngine(e) || !e.setProjectFiles([{ file, text }])) return;
  for (const doc of documents.all()) if (engineFor(doc.uri) === e) schedule(doc, 0);
}

connection.onRequest(CheckWorkspaceRequest, async () => {
  if (engineLoading) await engineLoading;
  if (!engine) return { error: engineError ?? 'no target is set (apidrift.targets)' };
  workspaceKey = [engineKey, ...[...folderScopes.values()].map((s) => s.key)].join('\n');
  return workspaceChecker.run(true);
});

// ------------------------------------------------------------------ notebooks

const notebooks = new NotebookDocuments(TextDocument);
const openNotebooks = new Set<string>();
const notebookTimers = new Map<string, NodeJS.Timeout>();
/** The findings of each notebook cell, as last published, with the cell text's version (for quick fixes). */
const cellResults = new Map<string, { version: number; findings: Finding[]; diagnostics: Diagnostic[]; calls: CallInfo[] }>();

function scheduleNotebook(uri: string, delay = DEBOUNCE_MS): void {
  clearTimeout(notebookTimers.get(uri));
  notebookTimers.set(
    uri,
    setTimeout(() => {
      notebookTimers.delete(uri);
      void checkNotebook(uri);
    }, delay),
  );
}

/** Checks the Python cells of a notebook as one module and publishes each cell's findings. */
async function checkNotebook(uri: string): Promise<void> {
  if (engineLoading) await engineLoading;
  const nb = notebooks.getNotebookDocument(uri);
  if (!nb) return;
  const cells = nb.cells
    .map((cell) => ({ cell, doc: notebooks.getCellTextDocument(cell) }))
    .filter((c): c is { cell: typeof c.cell; doc: TextDocument } => c.cell.kind === NotebookCellKind.Code && c.doc?.languageId === 'python');
  const perCell = new Map<string, Finding[]>(cells.map((c) => [c.doc.uri, []]));
  const callsOf = new Map<string, CallInfo[]>(cells.map((c) => [c.doc.uri, []]));
  const checking = engineFor(uri);
  if (checking) {
    const module = cellsAsModule(cells.map((c) => ({ code: true, source: c.doc.getText() })));
    const file = uriToPath(uri);
    try {
      const result = checking.check(module.text, file);
      // the calls (for the hover), moved into their cells
      const shift = (r: Range, by: number): Range => ({ start: { line: r.start.line - by, character: r.start.character }, end: { line: r.end.line - by, character: r.end.character } });
      for (const call of result.calls) {
        const c = module.cells.find((m) => call.range.start.line >= m.start && call.range.start.line < m.start + m.lines);
        if (c) callsOf.get(cells[c.index].doc.uri)?.push({ ...call, range: shift(call.range, c.start), extent: shift(call.extent, c.start) });
      }
      for (const f of placeInCells(module, applyConfig(result.findings, configFor(file), file))) {
        const at = module.cells.find((m) => m.index === f.cell)!.start;
        perCell.get(cells[f.cell!].doc.uri)?.push({ ...f, call: f.call && shift(f.call, at) });
      }
    } catch (e) {
      log(`error while checking ${shown(file)}: ${(e as Error).message}`);
    }
  }
  if (notebooks.getNotebookDocument(uri) !== nb || nb.version !== notebooks.getNotebookDocument(uri)?.version) return;
  const sent: Promise<void>[] = [];
  for (const c of cells) {
    const findings = perCell.get(c.doc.uri)!;
    const diagnostics = findings.map((f) => toDiagnostic(f));
    cellResults.set(c.doc.uri, { version: c.doc.version, findings, diagnostics, calls: callsOf.get(c.doc.uri)! });
    sent.push(connection.sendDiagnostics({ uri: c.doc.uri, version: c.doc.version, diagnostics }));
  }
  collectYoungAfter(Promise.all(sent).then(() => undefined));
}

notebooks.onDidOpen((nb) => {
  openNotebooks.add(nb.uri);
  scheduleNotebook(nb.uri, 0);
});
notebooks.onDidChange((e) => {
  for (const cell of e.cells?.removed ?? []) {
    cellResults.delete(cell.document);
    void connection.sendDiagnostics({ uri: cell.document, diagnostics: [] });
  }
  scheduleNotebook(e.notebookDocument.uri);
});
notebooks.onDidClose((nb) => {
  openNotebooks.delete(nb.uri);
  clearTimeout(notebookTimers.get(nb.uri));
  notebookTimers.delete(nb.uri);
  engine?.forget(uriToPath(nb.uri));
  for (const cell of nb.cells) {
    cellResults.delete(cell.document);
    void connection.sendDiagnostics({ uri: cell.document, diagnostics: [] });
  }
});

/** Quick fixes in a notebook cell (the fixes that stay inside their cell). */
function cellCodeActions(params: CodeActionParams): CodeAction[] {
  const state = cellResults.get(params.textDocument.uri);
  const cell = notebooks.cellTextDocuments.get(params.textDocument.uri);
  if (!state || !cell || cell.version !== state.version) return [];
  const actions: CodeAction[] = [];
  state.findings.forEach((f, i) => {
    if (!overlaps(f.range, params.range)) return;
    for (const fix of f.fixes) actions.push(toCodeAction(f, fix, cell.uri, cell.version, state.diagnostics[i]));
  });
  return actions;
}

process.on('uncaughtException', (e) => log(`uncaught error: ${e.stack ?? e}`));

documents.listen(connection);
notebooks.listen(connection as unknown as Parameters<typeof notebooks.listen>[0]);
connection.listen();
