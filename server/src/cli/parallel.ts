/**
 * `apidrift check` over many files: one input checked (read, checked, fixed in memory) into a
 * record of what it gives, which the command line applies in input order; and the same on worker
 * threads, each with its own engine over the same targets (and the same on-disk cache). The
 * workers share the full index: the first to need it asks this thread, which builds it once (on
 * every core) and hands the same read-only copy to each. The output is the same as on one thread,
 * in the same order.
 */
import * as fs from 'fs';
import { isMainThread, MessageChannel, type MessagePort, parentPort, receiveMessageOnPort, Worker, workerData } from 'worker_threads';
import { type CallInfo, Engine } from '../engine';
import { ConfigError, ConfigFinder } from '../engine/config/pyproject';
import { parserReady, ParserCrashError } from '../engine/parser';
import type { FullIndex, Program } from '../engine/resolve/program';
import type { ModuleSummary } from '../engine/index/summary';
import { hashText, reviveSummary, serializeSummary } from '../engine/index/cache';
import { decodeSource, MAX_SOURCE_BYTES } from '../engine/sources/sourceRoot';
import { ZipRoot } from '../engine/sources/zipRoot';
import { checkFile } from './checkFile';
import { type CellFinding, NotebookError } from './notebook';

/** One input of a check: a file, or a member of an archive checked as the module it is. */
export interface Input {
  file: string;
  zip?: ZipRoot;
  rel?: string;
  module?: { name: string; isPackage: boolean };
}

export interface CheckOptions {
  fix: 'none' | 'apply' | 'diff';
  unsafeFixes: boolean;
  listCalls: boolean;
  /** `diff --uses`: each input gives the names it uses (see `usesInput`), not a check's outcome. */
  uses?: boolean;
}

/** What checking one input gave, to be applied in input order. */
export interface Checked {
  /** Messages for stderr, in order; `skip` ones mark the results incomplete. */
  notes: Array<{ skip: boolean; msg: string }>;
  /** A configuration or notebook error that ends the run (exit code 2). */
  fatal?: string;
  outcome?: {
    findings: CellFinding[];
    fixed: number;
    /** The text before and after fixing, when fixing changed it. */
    before?: string;
    fixedText?: string;
    skipped: string[];
    callsChecked: number;
    callsUnknown: number;
    callsUntraced: number;
    calls?: CallInfo[];
  };
  /** `diff --uses`: the names of the target and the baseline the input uses, once per use, in order. */
  uses?: string[];
  /** The hash of the text checked (see `hashText`), for the results cache. */
  hash?: string;
}

/** A file's text, or undefined (with the reason given to `warn`) when it is not to be read. */
export function readSource(file: string, warn: (msg: string) => void): string | undefined {
  try {
    // a device, a FIFO or a huge file is not read (it could block or never end)
    const st = fs.statSync(file);
    if (!st.isFile()) {
      warn(`skipped ${file}: not a regular file`);
      return undefined;
    }
    if (st.size > MAX_SOURCE_BYTES) {
      warn(`skipped ${file}: too large to parse (${st.size} bytes; the limit is ${MAX_SOURCE_BYTES})`);
      return undefined;
    }
    return decodeSource(fs.readFileSync(file));
  } catch (e) {
    warn(`skipped ${file}: ${(e as NodeJS.ErrnoException).code ?? e}`);
    return undefined;
  }
}

/** Reads and checks one input. */
export async function checkInput(engine: Engine, input: Input, configs: ConfigFinder, opts: CheckOptions): Promise<Checked> {
  const { file, zip, rel, module } = input;
  const notes: Checked['notes'] = [];
  const skip = (msg: string): void => {
    notes.push({ skip: true, msg });
  };
  let text: string | undefined;
  if (zip && rel) {
    try {
      text = zip.readText(rel);
    } catch (e) {
      skip(`skipped ${file}: ${(e as Error).message}`);
      return { notes };
    }
  } else text = readSource(file, skip);
  if (text === undefined) return { notes };
  const given = zip ? text : undefined;
  try {
    // archive members are not fixed in place
    const fix = { mode: given === undefined ? opts.fix : 'none', unsafe: opts.unsafeFixes } as const;
    const o = checkFile(engine, file, text, { module, config: given === undefined ? configs.forPath(file) : undefined, fix });
    const r = o.result;
    return {
      notes,
      hash: hashText(text),
      outcome: {
        findings: o.findings,
        fixed: o.fixed,
        ...(o.fixedText !== undefined ? { before: text, fixedText: o.fixedText } : {}),
        skipped: r.skipped,
        callsChecked: r.callsChecked,
        callsUnknown: r.callsUnknown,
        callsUntraced: r.callsUntraced,
        ...(opts.listCalls ? { calls: r.calls } : {}),
      },
    };
  } catch (e) {
    if (e instanceof ConfigError) return { notes, fatal: e.message };
    // a notebook that cannot be read is one input not checked: the others still are
    if (e instanceof NotebookError) {
      skip(`skipped ${e.message}`);
      return { notes };
    }
    skip(`skipped ${file}: could not check it (${(e as Error).message})`);
    if (e instanceof ParserCrashError) await parserReady(); // the next file gets a fresh parser
    return { notes };
  }
}

/**
 * What one file of `diff --uses` uses: the callee of each call checked against the target, of
 * each call only the baseline's check saw (by position), and each name the target lacks.
 */
export function usesInput(engine: Engine, file: string): Checked {
  const notes: Checked['notes'] = [];
  const skip = (msg: string): void => {
    notes.push({ skip: true, msg });
  };
  const text = readSource(file, skip);
  if (text === undefined) return { notes };
  let r: ReturnType<Engine['check']>;
  let b: ReturnType<Engine['check']>;
  try {
    // one parse, one check against each version
    const both = engine.checkWithBaseline(text, file);
    r = both.result;
    b = both.baseline!;
  } catch (e) {
    skip(`skipped ${file}: could not check it (${(e as Error).message})`);
    return { notes };
  }
  const uses: string[] = [];
  const add = (n: string | null | undefined): void => {
    if (n) uses.push(n);
  };
  for (const c of r.calls) add(c.callee);
  // a call the baseline binds to another name (one that moved, whose uses the target's check
  // follows to where it lives now) is a use of the baseline's name too
  const seen = new Map(r.calls.map((c) => [`${c.extent.start.line}:${c.extent.start.character}`, c.callee]));
  for (const c of b.calls) if (seen.get(`${c.extent.start.line}:${c.extent.start.character}`) !== c.callee) add(c.callee);
  for (const f of r.findings) if (f.code === 'unknown-import' || f.code === 'unknown-attribute' || f.code === 'unknown-module') add(f.callee);
  return { notes, uses };
}

/** What a worker is started with. */
interface WorkerSetup {
  apidriftCheckWorker: true;
  targets: string[];
  baseline: string[];
  targetVersions?: Record<string, string>;
  baselineVersions?: Record<string, string>;
  sourceRoots: string[];
  cacheDir?: string;
  wasmDir?: string;
  opts: CheckOptions;
  projectClasses?: ReturnType<Engine['projectClassList']>;
  /** Where the full indexes this thread builds arrive (read synchronously), and the flag that says one did. */
  indexPort: MessagePort;
  signal: SharedArrayBuffer;
}

type ToWorker = { kind: 'check'; at: number; file: string; zip?: string; rel?: string; module?: Input['module'] } | { kind: 'finish'; save: boolean };

type FromWorker =
  | { kind: 'checked'; at: number; rec: Checked }
  | { kind: 'index'; which: 'target' | 'baseline' }
  | { kind: 'summary'; which: 'target' | 'baseline'; name: string }
  | { kind: 'error'; which: 'target' | 'baseline'; name: string; message: string }
  | { kind: 'say'; msg: string }
  | { kind: 'finished'; files: string[]; checked: number; provided: number; lookups: Lookups }
  | { kind: 'failed'; message: string };

/** Files a program read: parsed, or taken from the cache. */
export function filesUsed(p: Program): string[] {
  return [...p.filesRead, ...p.cachedFiles];
}

/** The module names a program looked up, those not found marked with a final `\0-` (for the results cache). */
export function lookupList(target: Program['target']): string[] {
  return [...target.lookups()].map(([n, f]) => (f ? n : `${n}\0-`));
}

/** The module names a worker's programs looked up (see `lookupList`). */
export interface Lookups {
  target: string[];
  baseline: string[];
}

export interface ParallelRun {
  /** The record of input `at` (in any order of asking; each is asked once). */
  result(at: number): Promise<Checked>;
  /**
   * Stops the workers (saving their cache entries, one after the other, when `save`): the files
   * they read, how many inputs each checked, and how many summaries each took from this thread.
   */
  finish(save: boolean): Promise<{ files: string[]; checked: number[]; provided: number[]; lookups?: Lookups }>;
}

/**
 * Checks the inputs on `jobs` worker threads. `say` gets the workers' messages (once each),
 * `targetError` each target module that cannot be read (once per program and module).
 */
export function checkOnWorkers(
  engine: Engine,
  inputs: Input[],
  jobs: number,
  setup: { targets: string[]; baseline: string[]; targetVersions?: Record<string, string>; baselineVersions?: Record<string, string>; sourceRoots: string[]; cacheDir?: string; wasmDir?: string; opts: CheckOptions; indexThreads: number },
  say: (msg: string) => void,
  targetError: (name: string, message: string) => void,
  /** Checks an input on this thread: for those not checked when a worker fails. */
  fallback: (at: number) => Promise<Checked>,
): ParallelRun {
  const waiting = new Map<number, (rec: Checked) => void>();
  const done = new Map<number, Checked>();
  const said = new Set<string>();
  const errors = new Set<string>();
  const indexes = new Map<'target' | 'baseline', Promise<FullIndex | null>>();
  /** The summaries the full index builds read, serialised, by program and module. */
  const serialized = { target: new Map<string, string>(), baseline: new Map<string, string>() };
  const projectClasses = engine.projectClassList();
  let failure: Error | undefined;
  /** A target module that cannot be read, reported once whichever thread read it. */
  const report = (which: 'target' | 'baseline', name: string, message: string): void => {
    const key = `${which}\0${name}`;
    if (errors.has(key)) return;
    errors.add(key);
    targetError(name, message);
  };
  for (const [p, which] of [
    [engine.program, 'target'],
    [engine.baseline?.program, 'baseline'],
  ] as const) {
    if (!p) continue;
    const before = p.onError;
    p.onError = (name, error) => (name === '(index workers)' ? before?.(name, error) : report(which, name, (error as Error).message ?? String(error)));
  }
  const deliver = (at: number, rec: Checked): void => {
    const w = waiting.get(at);
    if (w) {
      waiting.delete(at);
      w(rec);
    } else done.set(at, rec);
  };
  /** Builds (once) the full index a worker asked for, on every core, keeping no summaries. */
  const buildIndex = (which: 'target' | 'baseline'): Promise<FullIndex | null> => {
    let p = indexes.get(which);
    if (!p) {
      const program = which === 'target' ? engine.program : engine.baseline?.program;
      if (!program) p = Promise.resolve(null);
      else {
        program.releaseAfterIndex = true;
        program.keepSerialized = serialized[which];
        p = program.buildFullIndexParallel(setup.indexThreads).then(
          (index) => ({ ...index, byBaseName: undefined }),
          () => null, // the worker builds its own
        );
      }
      indexes.set(which, p);
    }
    return p;
  };
  /**
   * A target module's summary serialised, for a worker: the one the full index read, else read
   * here (once for every worker), so that no module is parsed by more than one thread.
   */
  const summaryFor = (which: 'target' | 'baseline', name: string): string | null => {
    const kept = serialized[which].get(name);
    if (kept !== undefined) return kept;
    const program = which === 'target' ? engine.program : engine.baseline?.program;
    if (!program) return null;
    const s = program.summary(name);
    if (!s || s.name !== name) return null;
    const text = serializeSummary(s);
    serialized[which].set(name, text);
    return text;
  };
  let next = 0;
  interface Running {
    worker: Worker;
    busy: number;
    port: MessagePort;
    signal: Int32Array;
    finished?: (r: { files: string[]; checked: number; provided: number; lookups?: Lookups }) => void;
  }
  const running: Running[] = [];
  const feed = (r: Running): void => {
    while (r.busy < 2 && next < inputs.length) {
      const at = next++;
      const { file, zip, rel, module } = inputs[at];
      const msg: ToWorker = { kind: 'check', at, file, zip: zip?.file, rel, module };
      r.worker.postMessage(msg);
      r.busy++;
    }
  };
  /** A worker failed: what is not checked yet is checked on this thread. */
  const fail = (e: Error): void => {
    if (failure) return;
    failure = e;
    for (const [at, w] of waiting) {
      waiting.delete(at);
      void fallback(at).then(w);
    }
  };
  for (let j = 0; j < jobs; j++) {
    const channel = new MessageChannel();
    const signal = new SharedArrayBuffer(4);
    const data: WorkerSetup = { apidriftCheckWorker: true, targets: setup.targets, baseline: setup.baseline, targetVersions: setup.targetVersions, baselineVersions: setup.baselineVersions, sourceRoots: setup.sourceRoots, cacheDir: setup.cacheDir, wasmDir: setup.wasmDir, opts: setup.opts, projectClasses: projectClasses.classes.length > 0 || projectClasses.patched.length > 0 || (projectClasses.versionOnly?.length ?? 0) > 0 ? projectClasses : undefined, indexPort: channel.port2, signal };
    let worker: Worker;
    try {
      worker = new Worker(__filename, { workerData: data, transferList: [channel.port2] });
    } catch (e) {
      fail(e as Error);
      break;
    }
    const r: Running = { worker, busy: 0, port: channel.port1, signal: new Int32Array(signal) };
    running.push(r);
    worker.on('message', (m: FromWorker) => {
      if (m.kind === 'checked') {
        r.busy--;
        feed(r);
        deliver(m.at, m.rec);
      } else if (m.kind === 'index') {
        void buildIndex(m.which).then((index) => {
          r.port.postMessage(index);
          Atomics.store(r.signal, 0, 1);
          Atomics.notify(r.signal, 0);
        });
      } else if (m.kind === 'summary') {
        r.port.postMessage(summaryFor(m.which, m.name));
        Atomics.store(r.signal, 0, 1);
        Atomics.notify(r.signal, 0);
      } else if (m.kind === 'error') report(m.which, m.name, m.message);
      else if (m.kind === 'say') {
        if (!said.has(m.msg)) {
          said.add(m.msg);
          say(m.msg);
        }
      } else if (m.kind === 'finished') r.finished?.(m);
      else if (m.kind === 'failed') fail(new Error(m.message));
    });
    worker.on('error', (e) => fail(e));
    worker.on('exit', (code) => {
      if (code !== 0 || r.busy > 0) fail(new Error(`a check worker stopped (exit code ${code})`));
      r.finished?.({ files: [], checked: 0, provided: 0 });
    });
    feed(r);
  }
  return {
    result(at: number): Promise<Checked> {
      const rec = done.get(at);
      if (rec) {
        done.delete(at);
        return Promise.resolve(rec);
      }
      if (failure) return fallback(at);
      return new Promise((resolve) => waiting.set(at, resolve));
    },
    async finish(save: boolean): Promise<{ files: string[]; checked: number[]; provided: number[]; lookups?: Lookups }> {
      const files = new Set<string>();
      const lookups = { target: new Set<string>(), baseline: new Set<string>() };
      // a worker that stopped cannot say what it looked up
      let complete = !failure;
      const checked: number[] = [];
      const provided: number[] = [];
      // one after the other, so that each save keeps what the previous ones wrote
      for (const r of running) {
        const got = await new Promise<{ files: string[]; checked: number; provided: number; lookups?: Lookups }>((resolve) => {
          r.finished = resolve;
          const msg: ToWorker = { kind: 'finish', save };
          try {
            r.worker.postMessage(msg);
          } catch {
            resolve({ files: [], checked: 0, provided: 0 });
          }
        });
        r.finished = undefined;
        for (const f of got.files) files.add(f);
        if (!got.lookups) complete = false;
        for (const n of got.lookups?.target ?? []) lookups.target.add(n);
        for (const n of got.lookups?.baseline ?? []) lookups.baseline.add(n);
        checked.push(got.checked);
        provided.push(got.provided);
        await r.worker.terminate();
        r.port.close();
      }
      return { files: [...files], checked, provided, lookups: complete ? { target: [...lookups.target], baseline: [...lookups.baseline] } : undefined };
    },
  };
}

/** A worker's side: opens its engine, then checks what it is sent, in order. */
async function runWorker(setup: WorkerSetup): Promise<void> {
  const port = parentPort!;
  const send = (m: FromWorker): void => port.postMessage(m);
  let engine: Engine;
  try {
    engine = await Engine.open({ targets: setup.targets, baseline: setup.baseline, targetVersions: setup.targetVersions, baselineVersions: setup.baselineVersions, sourceRoots: setup.sourceRoots, wasmDir: setup.wasmDir, cacheDir: setup.cacheDir });
    engine.targetsFixed();
  } catch (e) {
    send({ kind: 'failed', message: (e as Error).message });
    return;
  }
  if (setup.projectClasses) engine.useProjectClasses(setup.projectClasses);
  if (engine.cache) engine.cache.onError = (msg) => send({ kind: 'say', msg });
  const signal = new Int32Array(setup.signal);
  /** Asks the main thread and waits for its answer (a check is synchronous). */
  const ask = (m: FromWorker): unknown => {
    Atomics.store(signal, 0, 0);
    send(m);
    for (;;) {
      Atomics.wait(signal, 0, 0, 1000);
      const got = receiveMessageOnPort(setup.indexPort);
      if (got) return got.message;
    }
  };
  /** The full index, built once by the main thread. */
  const askIndex = (which: 'target' | 'baseline'): FullIndex | undefined => (ask({ kind: 'index', which }) as FullIndex | null) ?? undefined;
  /** A summary the main thread read (for the full index or another worker), rather than parsing the file here. */
  const askSummary = (which: 'target' | 'baseline', name: string): ModuleSummary | undefined => {
    const text = ask({ kind: 'summary', which, name }) as string | null;
    return text ? reviveSummary(text) : undefined;
  };
  for (const [p, which] of [
    [engine.program, 'target'],
    [engine.baseline?.program, 'baseline'],
  ] as const) {
    if (!p) continue;
    p.onError = (name, error) => send({ kind: 'error', which, name, message: (error as Error).message ?? String(error) });
    p.indexProvider = () => askIndex(which);
    p.summaryProvider = (name) => askSummary(which, name);
  }
  const configs = new ConfigFinder();
  const zips = new Map<string, ZipRoot>();
  let chain = Promise.resolve();
  let checked = 0;
  port.on('message', (m: ToWorker) => {
    chain = chain.then(async () => {
      if (m.kind === 'finish') {
        if (m.save) engine.saveCache();
        else engine.cache?.discard();
        const lookups = { target: lookupList(engine.program.target), baseline: engine.baseline ? lookupList(engine.baseline.program.target) : [] };
        send({ kind: 'finished', files: filesUsed(engine.program), checked, provided: engine.program.provided + (engine.baseline?.program.provided ?? 0), lookups });
        return;
      }
      let rec: Checked;
      try {
        let zip: ZipRoot | undefined;
        if (m.zip) {
          zip = zips.get(m.zip);
          if (!zip) zips.set(m.zip, (zip = new ZipRoot(m.zip)));
        }
        rec = setup.opts.uses ? usesInput(engine, m.file) : await checkInput(engine, { file: m.file, zip, rel: m.rel, module: m.module }, configs, setup.opts);
      } catch (e) {
        rec = { notes: [{ skip: true, msg: `skipped ${m.file}: ${(e as Error).message}` }] };
      }
      checked++;
      send({ kind: 'checked', at: m.at, rec });
    });
  });
}

/** Whether this thread is a check worker (started by `checkOnWorkers`, with this file, or the bundle that holds it, as its script). */
export const isCheckWorker = !isMainThread && !!(workerData as WorkerSetup | undefined)?.apidriftCheckWorker;

if (isCheckWorker) void runWorker(workerData as WorkerSetup);
