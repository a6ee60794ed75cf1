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
  type Hover,
  type HoverParams,
  type InitializeResult,
  MarkupKind,
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
import { installedDistributions, listVersions } from '../engine/sources/wheelFetch';
import { ChangesRequest, type ChangesResult, DetectRequest, EnvironmentNotification, type EnvironmentParams, FIX_ALL_KIND, RecheckRequest, type ServerState, StatusNotification, type StatusParams, CancelFetchNotification, FetchProgressNotification, type FetchProgressParams, VersionsRequest, type VersionsParams, type VersionsResult } from './protocol';
import { fixAllEdits } from '../engine/check/fixes';
import { parserReady, ParserCrashError } from '../engine/parser';
import { buildReport, formatReportText } from '../engine/report/report';
import { DEFAULT_SETTINGS, parseSettings, resolveTargetPath, type Settings } from './settings';

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
  saveTimer = setTimeout(() => engine?.saveCache(), 2000);
}
let targetOrigin = '';
let watchers: fs.FSWatcher[] = [];
let watchTimer: NodeJS.Timeout | undefined;

interface DocState {
  version: number;
  result: CheckResult;
  /** The diagnostic of each finding, in the same order. */
  diagnostics: Diagnostic[];
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
  const params: StatusParams = { state, targets: resolvedTargets, message, pid: process.pid };
  void connection.sendNotification(StatusNotification, params);
  if (state === 'ready') readyMessage = message;
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
    const raw = await connection.workspace.getConfiguration({ section: 'apidrift' });
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
  for (const w of watchers) w.close();
  watchers = [];
  for (const p of paths) {
    try {
      if (!fs.statSync(p).isDirectory()) continue;
      // a whole file system changes all the time (logs, temporary files): it is re-validated in
      // idle time instead of being watched
      if (path.parse(path.resolve(p)).root === path.resolve(p)) {
        log(`not watching ${p} (the root of a file system): its files are re-validated in idle time`);
        continue;
      }
      const w = fs.watch(p, { recursive: true }, (_event, file) => {
        if (file && !/\.pyi?$|(^|[\\/])[^.\\/]+$/.test(String(file))) return;
        // what the server itself writes (its cache, when it lies inside a target) is no change
        if (file && cacheDir && isInside(path.resolve(p, String(file)), cacheDir)) return;
        clearTimeout(watchTimer);
        watchTimer = setTimeout(() => {
          if (!engine) return;
          log(`target changed on disk (${shown(file ? path.resolve(p, String(file)) : p)}): re-indexing`);
          cancelActiveCheck();
          engine.refresh();
          engine.program.invalidateIndex();
          engine.baseline?.program.invalidateIndex();
          if (notChecked.size === 0) sendStatus('ready', 'target changed on disk: re-checked');
          if (engine.baseline || indexWanted) void indexInBackground(engine);
          for (const doc of documents.all()) schedule(doc, 0);
        }, 500);
      });
      w.on('error', () => undefined);
      watchers.push(w);
    } catch (e) {
      log(`cannot watch ${p} for changes: ${(e as Error).message}`);
    }
  }
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
  if (key === engineKey) return;
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
    // the targets are watched: files are re-validated when they change and in idle time, not on keystrokes
    engine.revalidateEvery(watchers.length > 0 ? Infinity : 0);
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
  const index = await forEngine.program.buildFullIndexAsync(
    (done, total) => progress?.report(Math.floor((done * 100) / Math.max(total, 1)), `${done}/${total} modules`),
    () => token.cancelled || engine !== forEngine,
  );
  progress?.done();
  if (indexing === token) indexing = undefined;
  if (!index || engine !== forEngine) return;
  log(`full index: ${index.modules.length} modules in ${Math.round(performance.now() - started)} ms${index.fromCache ? ' (from the cache)' : ''}`);
  saveCacheSoon();
  for (const doc of documents.all()) schedule(doc, 0);
}

async function reload(): Promise<void> {
  cancelActiveCheck();
  // checks wait from now on: a document opened while the settings are asked for is checked
  // with the engine they select, not reported empty for want of one
  const run = (async () => {
    settings = await loadSettings();
    await ensureEngine();
    for (const doc of documents.all()) schedule(doc, 0);
  })();
  engineLoading = run;
  await run;
}

/** How long the last check of each document took. */
const checkMs = new Map<string, number>();

/** When the last edit of each document arrived. */
const editedAt = new Map<string, number>();

function schedule(doc: TextDocument, delay?: number): void {
  const uri = doc.uri;
  if (delay === undefined) {
    // an edit: checked at once when its check is expected to be fast, or when edits come slower
    // than the document checks (nothing is gained by waiting); a burst of edits on a slow
    // document waits for a pause (a check under way is cancelled by the newer version anyway)
    const now = performance.now();
    const since = now - (editedAt.get(uri) ?? -Infinity);
    editedAt.set(uri, now);
    const expected = checkMs.get(uri) ?? Infinity;
    // an edit that arrives while the document is being checked (and cancels that check) is one
    // of a burst: the next check waits for a pause too
    const burst = active?.uri === uri;
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
let active: { uri: string; cancelled: boolean; done: Promise<void> } | undefined;

function cancelActiveCheck(): void {
  if (active) active.cancelled = true;
}

async function validate(uri: string, version: number): Promise<void> {
  if (engineLoading) await engineLoading;
  while (active) await active.done;
  // from here to the start of the check nothing waits: no other check can start meanwhile
  const doc = documents.get(uri);
  if (!doc || doc.version !== version || doc.languageId !== 'python') return;
  const current = engine;
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
  const me = { uri, cancelled: false, done: new Promise<void>((resolve) => (finished = resolve)) };
  active = me;
  let result: CheckResult;
  try {
    const text = doc.getText();
    // a hook for the fault-isolation tests: documents holding this marker make the check throw
    if (TEST_FAIL_ON && text.includes(TEST_FAIL_ON)) throw new Error('failure requested by APIDRIFT_TEST_FAIL_ON');
    traceLog(`checking ${shown(uriToPath(uri))} v${version}`);
    result = await current.checkAsync(text, uriToPath(uri), () => me.cancelled || documents.get(uri)?.version !== version, CHECK_SLICE_MS);
  } catch (e) {
    if ((e as Error).name === 'CancelledError' || (e as Error).message === 'check cancelled') return;
    if (engine !== current) return;
    log(`error while checking ${shown(uriToPath(uri))}: ${(e as Error).stack ?? e}`);
    // findings of an older text would sit at wrong places: clear them, and say why there are none
    results.delete(uri);
    reportNotChecked(uri, version, (e as Error).message ?? String(e));
    // after a parser crash, the next check waits for the fresh parser
    if (e instanceof ParserCrashError) await parserReady();
    return;
  } finally {
    active = undefined;
    finished();
  }
  if (documents.get(uri)?.version !== version || engine !== current || me.cancelled) return; // a newer version (or engine) is on its way
  const t = result.timing;
  // what the next edit is expected to cost: all but the units, and the slowest unit
  checkMs.set(uri, t?.totalMs !== undefined ? t.totalMs - t.unitsMs + t.maxUnitMs : performance.now() - started);
  lastCheckAt = Date.now();
  // what the pyproject.toml selects, ignores or re-grades (fix-all and quick fixes follow what is shown)
  const file = uriToPath(uri);
  result = { ...result, findings: applyConfig(result.findings, configFor(file), file) };
  const diagnostics = diagnosticsOf(result);
  results.set(uri, { version, result, diagnostics });
  checkedAgain(uri);
  if (engine.cache) saveCacheSoon();
  void connection.sendDiagnostics({ uri, version, diagnostics });
  // the last figure is the time the check itself took (without its pauses)
  traceLog(`checked ${shown(uriToPath(uri))} v${version}: ${result.findings.length} findings, ${result.callsChecked} calls checked, ${result.callsUnknown} unknown, ${result.reused ?? 0} units reused, ${t?.unitsChecked ?? 0} re-checked, ${(performance.now() - started).toFixed(1)} ms until published, ${(t?.totalMs ?? performance.now() - started).toFixed(1)} ms`);
}

/**
 * Watched targets are re-validated (the sizes and mtimes of the files the checks used) in idle
 * time, a while after the last check, in case a change escaped the watcher; what changed is
 * re-checked. Without a watcher every check re-validates.
 */
const IDLE_REVALIDATE_MS = 1000;
let lastCheckAt = 0;
let revalidatedAt = 0;
setInterval(() => {
  if (!engine || watchers.length === 0 || active) return;
  const now = Date.now();
  if (lastCheckAt <= revalidatedAt || now - lastCheckAt < IDLE_REVALIDATE_MS) return;
  revalidatedAt = now;
  if (engine.revalidate()) {
    log('target files changed: re-checking open files');
    for (const doc of documents.all()) schedule(doc, 0);
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
  hasConfigurationCapability = !!params.capabilities.workspace?.configuration;
  tracing = !!params.trace && params.trace !== 'off';
  const init = params.initializationOptions as { settings?: unknown; environment?: EnvironmentParams; cacheDir?: string; fetchProgress?: boolean } | undefined;
  clientShowsFetchProgress = init?.fetchProgress === true;
  cacheDir = typeof init?.cacheDir === 'string' ? path.join(init.cacheDir, 'cache') : undefined;
  if (init?.settings) settings = parseSettings(init.settings);
  if (init?.environment) environment = init.environment;
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      codeActionProvider: { codeActionKinds: ['quickfix', FIX_ALL_KIND] },
      hoverProvider: true,
    },
    serverInfo: { name: 'apidrift' },
  };
});

connection.onInitialized(() => {
  if (hasConfigurationCapability) void connection.client.register(DidChangeConfigurationNotification.type, { section: 'apidrift' });
  void reload();
});

connection.onDidChangeConfiguration((change) => {
  if (!hasConfigurationCapability) settings = parseSettings((change.settings as { apidrift?: unknown })?.apidrift);
  void reload();
});

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
    const report = buildReport(current.baseline!.program, current.program, { baseline: resolvedBaseline.join(', '), target: resolvedTargets.join(', ') });
    return { text: formatReportText(report) };
  } catch (e) {
    log(`report failed: ${(e as Error).stack ?? e}`);
    return { error: (e as Error).message };
  } finally {
    progress?.done();
  }
});

connection.onNotification(EnvironmentNotification, (p: EnvironmentParams) => {
  const changed = p.interpreter !== environment.interpreter || p.trusted !== environment.trusted;
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
documents.onDidChangeContent((e) => schedule(e.document));
documents.onDidClose((e) => {
  checkedAgain(e.document.uri);
  timers.get(e.document.uri)?.cancel();
  timers.delete(e.document.uri);
  results.delete(e.document.uri);
  checkMs.delete(e.document.uri);
  editedAt.delete(e.document.uri);
  engine?.forget(uriToPath(e.document.uri));
  void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
});

connection.onCodeAction((params: CodeActionParams): CodeAction[] => {
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
  const doc = documents.get(params.textDocument.uri);
  const state = results.get(params.textDocument.uri);
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

process.on('uncaughtException', (e) => log(`uncaught error: ${e.stack ?? e}`));

documents.listen(connection);
connection.listen();
