/** Helpers shared by the robustness tests (no tests here). */
import { shortMessage } from '../../server/src/lsp/convert';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { CheckResult, Finding } from '../../server/src/engine';
import { DIST, FIXTURES, ROOT } from '../helpers';
import type { Diagnostic, TestClient } from '../server/lspClient';
import * as assert from 'node:assert/strict';

export const CLI = path.join(DIST, 'cli.js');
export const VLLM = path.join(FIXTURES, 'vllm');
export const VLLM_USER = path.join(VLLM, 'user', 'hidden_states_generator.py');
export const VLLM_TEXT = fs.readFileSync(VLLM_USER, 'utf8');

export interface CliRun {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/** Runs the bundled CLI, killed after `timeoutMs` (a hang shows as `timedOut`). */
export function runCli(args: string[], timeoutMs = 60_000, cwd = ROOT): CliRun {
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 256 << 20, killSignal: 'SIGKILL' });
  const timedOut = (r.error as NodeJS.ErrnoException | undefined)?.code === 'ETIMEDOUT';
  return { code: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '', ms: Date.now() - t0, timedOut };
}

export function tempDir(tag: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `apidrift-rb-${tag}-`));
}

/** Removes a temp folder even when tests left unreadable modes or FIFOs in it. */
export function removeTree(dir: string): void {
  try {
    spawnSync('chmod', ['-R', 'u+rwx', dir]);
  } catch {
    // best effort
  }
  fs.rmSync(dir, { recursive: true, force: true });
}

/** mulberry32: a small seeded PRNG, so that failures reproduce from the printed seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** VmRSS and VmHWM (peak) of a process, in MB. */
export function memoryOf(pid: number): { rssMB: number; peakMB: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rssMB: kb('VmRSS') / 1024, peakMB: kb('VmHWM') / 1024 };
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return fs.existsSync(`/proc/${pid}`) && !/^State:\s+Z/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

export interface Published {
  uri: string;
  version?: number;
  diagnostics: Diagnostic[];
  seq: number;
}

/**
 * Keeps every publishDiagnostics notification, in arrival order, while the client's own map of the
 * latest diagnostics (and its waiters) keep working.
 */
export function recordPublished(client: TestClient): Published[] {
  const history: Published[] = [];
  client.conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; version?: number; diagnostics: Diagnostic[] }) => {
    history.push({ uri: p.uri, version: p.version, diagnostics: p.diagnostics, seq: history.length });
    client.diagnostics.set(p.uri, { version: p.version, diagnostics: p.diagnostics });
    (client as unknown as { wake(): void }).wake();
  });
  return history;
}

/** A diagnostic or finding as `line:char-line:char code message`, for comparisons. */
export function diagKey(d: { range: Diagnostic['range']; code: string; message: string }): string {
  const r = d.range;
  return `${r.start.line}:${r.start.character}-${r.end.line}:${r.end.character} ${d.code} ${d.message}`;
}

export function findingKeys(r: CheckResult): string[] {
  // as the server publishes them: the message as the Problems panel shows it
  return r.findings.map((f: Finding) => diagKey({ ...f, message: shortMessage(f.message) })).sort();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Finishes with a clear message instead of hanging when `p` takes longer than `ms`. */
export function within<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
    }),
  ]);
}

/** The typing pause of the servers the fuzz tests start (ms): short, so that comparisons wait little. */
export const FUZZ_PAUSE_MS = 40;

/**
 * The diagnostics of a version once the typing pause is over: the first publication may hold back
 * findings new on the lines just edited, and the one after the pause shows them.
 */
export async function settled(client: TestClient, uri: string, version: number): Promise<Diagnostic[]> {
  await new Promise((r) => setTimeout(r, Math.max(250, FUZZ_PAUSE_MS * 6)));
  const last = client.diagnostics.get(uri);
  assert.equal(last?.version, version, 'no other version was published meanwhile');
  return last!.diagnostics;
}
