/**
 * Loading a bundle with V8's code cache: the language server's bundle is compiled from a cache
 * the previous start left (the bytecode of the functions that start ran, the first check among
 * them), rather than parsed and compiled again on each start of the editor.
 *
 * The cache is an optimisation and never a source of truth: V8 rejects a cache made from another
 * text, by another V8 or with other flags, and a file of ours carries the hash of its data (a cut
 * or damaged file is set aside, never given to V8). Each save writes a file of its own and renames
 * it into place, so two servers saving at once leave one whole file. Anything that fails leaves
 * the bundle loaded the ordinary way.
 *
 * No dependency on the engine or the protocol: the launcher runs this before either is loaded.
 */
import * as crypto from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import Module = require('module');
import * as vm from 'vm';

/** What became of the cache on this start (the server logs it). */
export interface CodeCacheState {
  /** The cache file, when a folder was given. */
  file?: string;
  /** `off`: no folder given; `none`: no cache yet; `used`: V8 took it; `rejected`: V8 did not (another build, Node or flags); `damaged`: the file's data did not match its hash. */
  state: 'off' | 'none' | 'used' | 'rejected' | 'damaged';
  /** Set once a save wrote the cache (or failed, with the reason). */
  saved?: boolean;
  error?: string;
}

interface Hook {
  state: CodeCacheState;
  /** Writes the cache of what has been compiled so far, when this start did not take one (once). */
  save(): void;
}

const HOOK = Symbol.for('apidrift.codeCache');
const MAGIC = 'apidrift-code-cache 1\n';

/** The hook the launcher left, if the bundle was loaded by it. */
export function codeCacheHook(): Hook | undefined {
  return (globalThis as Record<symbol, unknown>)[HOOK] as Hook | undefined;
}

/** The folder given as `--code-cache=DIR` (or `--code-cache DIR`), if any. */
export function codeCacheDir(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--code-cache=')) return a.slice('--code-cache='.length) || undefined;
    if (a === '--code-cache' && i + 1 < argv.length) return argv[i + 1];
  }
  return undefined;
}

const sha256 = (b: Buffer | string): string => crypto.createHash('sha256').update(b).digest('hex');

/** The cache's bytes, if the file is whole: its header names the hash of the data after it. */
function readCache(file: string): { data?: Buffer; damaged: boolean } {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch {
    return { damaged: false };
  }
  const head = bytes.subarray(0, MAGIC.length + 65).toString('latin1');
  if (!head.startsWith(MAGIC) || head[MAGIC.length + 64] !== '\n') return { damaged: true };
  const data = bytes.subarray(MAGIC.length + 65);
  return sha256(data) === head.slice(MAGIC.length, MAGIC.length + 64) ? { data, damaged: false } : { damaged: true };
}

/**
 * Runs `bundle` (a CommonJS file) as the main module would run, compiled from the cache in `dir`
 * when there is a good one. The cache file is named by the bundle's hash, Node's version and the
 * machine, so builds and runtimes never share one; older files of the same bundle name are removed
 * on save.
 */
export function runBundle(bundle: string, dir: string | undefined): void {
  const source = fs.readFileSync(bundle, 'utf8').replace(/^#!.*/, '');
  const name = path.basename(bundle, '.js');
  const file = dir ? path.join(dir, `${name}-${sha256(source).slice(0, 16)}-${process.version}-${process.arch}.bin`) : undefined;
  const state: CodeCacheState = { state: 'off', ...(file ? { file } : {}) };
  let cachedData: Buffer | undefined;
  if (file) {
    const read = readCache(file);
    cachedData = read.data;
    state.state = read.damaged ? 'damaged' : 'none';
  }
  const script = new vm.Script(Module.wrap(source), { filename: bundle, ...(cachedData ? { cachedData } : {}) });
  if (cachedData) state.state = script.cachedDataRejected ? 'rejected' : 'used';
  const hook: Hook = {
    state,
    save() {
      if (!file || state.state === 'used' || state.saved !== undefined) return;
      const tmp = `${file}.${process.pid}.tmp`;
      try {
        const data = script.createCachedData();
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(tmp, Buffer.concat([Buffer.from(`${MAGIC}${sha256(data)}\n`, 'latin1'), data]));
        fs.renameSync(tmp, file);
        state.saved = true;
        for (const other of fs.readdirSync(path.dirname(file))) {
          if (other !== path.basename(file) && other.startsWith(`${name}-`) && other.endsWith('.bin')) fs.rmSync(path.join(path.dirname(file), other), { force: true });
        }
      } catch (e) {
        state.saved = false;
        state.error = (e as Error).message;
        fs.rmSync(tmp, { force: true });
      }
    },
  };
  (globalThis as Record<symbol, unknown>)[HOOK] = hook;
  // the module the bundle runs as: the main module of this process, as `node bundle` would make it
  const m = new Module(bundle, undefined);
  m.filename = bundle;
  m.paths = (Module as unknown as { _nodeModulePaths(dir: string): string[] })._nodeModulePaths(path.dirname(bundle));
  (require.cache as Record<string, NodeModule>)[bundle] = m as unknown as NodeModule;
  const run = script.runInThisContext() as (exports: unknown, require: NodeRequire, module: unknown, filename: string, dirname: string) => void;
  const req = ((id: string) => m.require(id)) as NodeRequire;
  req.resolve = ((id: string) => (Module as unknown as { _resolveFilename(id: string, parent: unknown): string })._resolveFilename(id, m)) as NodeRequire['resolve'];
  req.cache = require.cache;
  run.call(m.exports, m.exports, req, m, bundle, path.dirname(bundle));
  m.loaded = true;
}
