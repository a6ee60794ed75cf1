/** A small LSP client for tests: spawns the bundled server over stdio and speaks JSON-RPC. */
import { type ChildProcess, spawn } from 'child_process';
import * as path from 'path';
import { pathToFileURL } from 'url';
import { createMessageConnection, type MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import launch from '../../server/src/lsp/launch.json';
import { DIST } from '../helpers';

export interface Diagnostic {
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  severity: number;
  code: string;
  source: string;
  message: string;
}

export interface Status {
  state: string;
  targets: string[];
  message: string;
}

export class TestClient {
  readonly proc: ChildProcess;
  readonly conn: MessageConnection;
  readonly diagnostics = new Map<string, { version?: number; diagnostics: Diagnostic[] }>();
  /** Every publication, in order. */
  readonly published: Array<{ uri: string; version?: number; diagnostics: Diagnostic[] }> = [];
  readonly statuses: Status[] = [];
  readonly logs: string[] = [];
  settings: { targets: string[]; baseline?: string[]; [key: string]: unknown };
  /** The settings of one folder (configuration requests with a scopeUri), when they differ. */
  folderSettings = new Map<string, { targets: string[]; baseline?: string[]; [key: string]: unknown }>();
  /** What the server registered dynamically (`client/registerCapability`). */
  readonly registrations: Array<{ method: string; registerOptions?: unknown }> = [];
  private waiters: Array<() => void> = [];

  /** `args`: the server's own arguments besides `--stdio` (the extension gives `--code-cache=DIR`). */
  constructor(settings: { targets: string[]; baseline?: string[]; [key: string]: unknown }, env: NodeJS.ProcessEnv = {}, args: string[] = []) {
    this.settings = settings;
    // started as the extension starts it
    this.proc = spawn(process.execPath, [...launch.execArgv, path.join(DIST, 'server.js'), ...args, '--stdio'], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
    this.proc.stderr!.on('data', (d) => this.logs.push(String(d)));
    this.conn = createMessageConnection(new StreamMessageReader(this.proc.stdout!), new StreamMessageWriter(this.proc.stdin!));
    this.conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; version?: number; diagnostics: Diagnostic[] }) => {
      this.diagnostics.set(p.uri, { version: p.version, diagnostics: p.diagnostics });
      this.published.push(p);
      this.wake();
    });
    this.conn.onNotification('apidrift/status', (s: Status) => {
      this.statuses.push(s);
      this.wake();
    });
    this.conn.onNotification('window/logMessage', (m: { message: string }) => {
      this.logs.push(m.message);
      this.wake();
    });
    this.conn.onRequest('workspace/configuration', (p: { items: Array<{ section?: string; scopeUri?: string }> }) => p.items.map((i) => (i.scopeUri && this.folderSettings.get(i.scopeUri)) || this.settings));
    this.conn.onRequest('client/registerCapability', (p: { registrations: Array<{ method: string; registerOptions?: unknown }> }) => {
      this.registrations.push(...p.registrations);
      this.wake();
      return null;
    });
    this.conn.listen();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }

  /** Resolves once `pred` holds, re-evaluated on every message; rejects after `ms`. */
  waitFor<T>(what: string, pred: () => T | undefined | false, ms = 60_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}; logs:\n${this.logs.join('\n')}`)), ms);
      const check = (): void => {
        const v = pred();
        if (v) {
          clearTimeout(timer);
          resolve(v);
        } else this.waiters.push(check);
      };
      check();
    });
  }

  /**
   * `otherFolders`: the workspace folders after the first; `workspace`: client capabilities
   * besides configuration (e.g. `didChangeWatchedFiles`).
   */
  async initialize(rootPath: string, otherFolders: string[] = [], workspace: Record<string, unknown> = {}, initializationOptions?: Record<string, unknown>): Promise<void> {
    await this.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(rootPath).href,
      workspaceFolders: [rootPath, ...otherFolders].map((f, i) => ({ uri: pathToFileURL(f).href, name: `ws${i}` })),
      capabilities: { workspace: { configuration: true, didChangeConfiguration: { dynamicRegistration: true }, ...workspace } },
      ...(initializationOptions ? { initializationOptions } : {}),
    });
    await this.conn.sendNotification('initialized', {});
  }

  open(uri: string, text: string, version = 1): void {
    void this.conn.sendNotification('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version, text } });
  }

  change(uri: string, version: number, changes: Array<{ range?: Diagnostic['range']; text: string }>): void {
    void this.conn.sendNotification('textDocument/didChange', { textDocument: { uri, version }, contentChanges: changes });
  }

  /** Waits for diagnostics of `uri` published for `version`. */
  diagnosticsFor(uri: string, version: number): Promise<Diagnostic[]> {
    return this.waitFor(`diagnostics of ${uri} v${version}`, () => {
      const d = this.diagnostics.get(uri);
      return d && d.version === version ? d.diagnostics : undefined;
    });
  }

  changeSettings(settings: { targets: string[]; baseline?: string[]; [key: string]: unknown }): void {
    this.settings = settings;
    void this.conn.sendNotification('workspace/didChangeConfiguration', { settings: { apidrift: settings } });
  }

  async shutdown(): Promise<void> {
    try {
      await Promise.race([this.conn.sendRequest('shutdown'), new Promise((r) => setTimeout(r, 5000))]);
      await this.conn.sendNotification('exit').catch(() => undefined);
    } catch {
      // already gone
    }
    this.conn.dispose();
    this.proc.kill();
  }
}
