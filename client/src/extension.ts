/**
 * The VS Code side of apidrift: starts the language server, shows its state in the status
 * bar, and offers the commands. All analysis happens in the server.
 */
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import launch from '../../server/src/lsp/launch.json';
import {
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandlerResult,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { type Status, StatusBar } from './statusBar';
import { type ReportContent, ReportProvider } from './report';
import { type Detected, selectTarget } from './selectTarget';
import { PVSC_EXTENSION_ID, PythonExtension } from '@vscode/python-extension';
import { activeEnvironment, environmentLocation, type EnvironmentsApi, folderEnvironments, onActiveEnvironmentChange } from './pythonEnv';

let client: LanguageClient | undefined;

/** Restarts allowed within RESTART_WINDOW_MS before apidrift gives up on a crashing server. */
const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

/**
 * The environment chosen in the Python extension for the first workspace folder (through its
 * published API, resolved to its sys.prefix), and for each other folder, when the extension is
 * installed; else nothing, and the server falls back to $VIRTUAL_ENV and a .venv / venv folder.
 */
async function pythonInterpreter(): Promise<{ path?: string; folders?: Record<string, string>; onChange?: (listener: () => void) => vscode.Disposable }> {
  if (!vscode.extensions.getExtension(PVSC_EXTENSION_ID)) return {};
  try {
    const envs: EnvironmentsApi = (await PythonExtension.api()).environments;
    if (!envs) return {};
    const [first, ...others] = vscode.workspace.workspaceFolders ?? [];
    const resource = first?.uri;
    const folders = await folderEnvironments(envs, others.map((f) => ({ uri: f.uri, fsPath: f.uri.fsPath })));
    // a change for any folder is sent (each folder's engine follows its own environment)
    const onChange = (l: () => void): vscode.Disposable => onActiveEnvironmentChange(envs, others.length ? undefined : resource, l);
    return { path: environmentLocation(await activeEnvironment(envs, resource)), folders, onChange };
  } catch {
    return {};
  }
}

/** What the server is told of the environments: the first folder's, each other folder's, and trust. */
async function environmentParams(): Promise<{ interpreter?: string; folders?: Record<string, string>; trusted: boolean }> {
  const py = await pythonInterpreter();
  return { interpreter: py.path, folders: py.folders, trusted: vscode.workspace.isTrusted };
}

interface InsertSnippetArgs {
  uri: string;
  version: number;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  snippet: string;
}

/** The server bundle ships beside the client bundle. */
function serverModule(context: vscode.ExtensionContext): string {
  return context.asAbsolutePath('dist/server.js');
}

export async function activate(context: vscode.ExtensionContext): Promise<{ status: () => Status; client: () => LanguageClient | undefined; fetches: () => string[] }> {
  const output = vscode.window.createOutputChannel('apidrift');
  const restarts: number[] = [];
  const status = new StatusBar();
  const report = new ReportProvider();
  context.subscriptions.push(output, status, report);

  const module = serverModule(context);
  if (!fs.existsSync(module)) {
    const why = `the server bundle is missing (${module}); run npm run build`;
    output.appendLine(why);
    status.update({ state: 'error', targets: [], message: why });
  }
  // Node options of the server (shared with the benchmark and the tests, which start it the same
  // way): a young generation of at most 2 MB semi-spaces keeps a long-lived server small (the
  // default lets it grow to 16 MB each, which a keystroke's garbage fills) at no cost in latency;
  // the old generation is collected before it grows by half again (--heap-growing-percent=50),
  // and --expose-gc lets the server collect while it builds the full index in the background.
  const execArgv = launch.execArgv;
  // the server's code is compiled from V8's code cache, kept in the storage folder (see
  // server/src/codeCache.ts); not while debugging, where the code is compiled eagerly
  const args = [`--code-cache=${path.join(context.globalStorageUri.fsPath, 'code')}`];
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc, args, options: { execArgv } },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: [...execArgv, '--nolazy', '--inspect=6011'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ],
    synchronize: { configurationSection: 'apidrift' },
    outputChannel: output,
    errorHandler: {
      error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
      closed: (): CloseHandlerResult => {
        const now = Date.now();
        restarts.push(now);
        while (restarts.length && now - restarts[0] > RESTART_WINDOW_MS) restarts.shift();
        if (restarts.length <= MAX_RESTARTS) {
          const msg = `the apidrift server stopped unexpectedly; restarting it (${restarts.length} of ${MAX_RESTARTS} in 3 minutes)`;
          output.appendLine(msg);
          status.update({ ...status.current, state: 'indexing', message: msg });
          return { action: CloseAction.Restart, message: msg };
        }
        const msg = `the apidrift server stopped ${restarts.length} times in 3 minutes; it will not be restarted. See the apidrift output, then run "apidrift: Re-check all open files" or reload the window.`;
        output.appendLine(msg);
        status.update({ ...status.current, state: 'stopped', message: msg });
        return { action: CloseAction.DoNotRestart, message: msg };
      },
    },
    initializationOptions: {
      settings: vscode.workspace.getConfiguration('apidrift'),
      environment: await environmentParams(),
      cacheDir: context.globalStorageUri.fsPath,
      fetchProgress: true,
    },
  };
  client = new LanguageClient('apidrift', 'apidrift', serverOptions, clientOptions);
  context.subscriptions.push(
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped) status.update({ ...status.current, state: 'stopped', message: 'the apidrift server stopped; see the apidrift output' });
    }),
  );

  const detect = async (): Promise<Detected[]> => (client ? await client.sendRequest<Detected[]>('apidrift/detectTargets').catch(() => []) : []);
  context.subscriptions.push(
    vscode.commands.registerCommand('apidrift.recheck', async () => {
      if (!client) return;
      await client.sendRequest('apidrift/recheck');
    }),
    vscode.commands.registerCommand('apidrift.checkWorkspace', async () => {
      if (!client) return undefined;
      type Summary = { files?: number; findings?: number; filesWithFindings?: number; cancelled?: boolean; error?: string };
      const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'apidrift: checking the workspace' }, () => client!.sendRequest<Summary>('apidrift/checkWorkspace'));
      if (r.error) void vscode.window.showErrorMessage(`apidrift: ${r.error}`);
      else if (!r.cancelled) vscode.window.setStatusBarMessage(`apidrift: ${r.findings} findings in ${r.filesWithFindings} of ${r.files} files`, 10_000);
      return r;
    }),
    vscode.commands.registerCommand('apidrift.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('apidrift.fixAll', async () => {
      await vscode.commands.executeCommand('editor.action.sourceAction', { kind: 'source.fixAll.apidrift', apply: 'first' });
    }),
    vscode.commands.registerCommand('apidrift.selectTarget', () => selectTarget('targets', detect, () => status.current)),
    vscode.commands.registerCommand('apidrift.selectBaseline', () => selectTarget('baseline', detect, () => status.current)),
    vscode.commands.registerCommand('apidrift.checkUpgrade', async () => {
      if (!client) return;
      type Versions = { installed?: Array<{ name: string; version: string }>; versions?: string[]; error?: string };
      const here = await client.sendRequest<Versions>('apidrift/versions', {}).catch((): Versions => ({}));
      const installed = here.installed ?? [];
      type Item = vscode.QuickPickItem & { name?: string };
      const items: Item[] = [...installed.map((d) => ({ label: d.name, description: `${d.version} installed`, name: d.name })), { label: '$(edit) Enter a package name…' }];
      const pick = await vscode.window.showQuickPick(items, { placeHolder: 'Which package are you upgrading?', matchOnDescription: true });
      if (!pick) return;
      const name = pick.name ?? (await vscode.window.showInputBox({ prompt: 'The package to upgrade', placeHolder: 'vllm', validateInput: (v) => (/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(v.trim()) ? undefined : 'a package name') }))?.trim();
      if (!name) return;
      const listed = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `apidrift: asking the package index for the versions of ${name}` }, () =>
        client!.sendRequest<Versions>('apidrift/versions', { project: name }),
      );
      if (listed.error || !listed.versions?.length) {
        void vscode.window.showErrorMessage(`apidrift: ${listed.error ?? `the index lists no version of ${name}`}`);
        return;
      }
      const norm = (n: string): string => n.toLowerCase().replace(/[-_.]+/g, '-');
      const have = installed.find((d) => norm(d.name) === norm(name));
      const version = await vscode.window.showQuickPick(
        listed.versions.map((v) => ({ label: v, description: have?.version === v ? 'installed' : undefined })),
        { placeHolder: have ? `Upgrade ${name} from ${have.version} to…` : `Check against which version of ${name}?` },
      );
      if (!version) return;
      const config = vscode.workspace.getConfiguration('apidrift');
      const scope = vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
      // the installed version is the baseline: found in the environment, nothing is fetched for it
      await config.update('baseline', have ? [`${name}==${have.version}`] : [], scope);
      await config.update('targets', [`${name}==${version.label}`], scope);
    }),
    vscode.commands.registerCommand('apidrift.showChanges', async () => {
      if (!client) return;
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'apidrift: comparing the baseline with the target' },
        () => client!.sendRequest<{ text?: string; error?: string } & ReportContent>('apidrift/changes'),
      );
      if (result.error || result.text === undefined) {
        // without a baseline there is nothing to compare: offer to choose one
        const choose = /no baseline/.test(result.error ?? '') ? ['Select baseline…'] : [];
        // (not awaited: the command ends while the message stays)
        void vscode.window.showErrorMessage(`apidrift: ${result.error ?? 'no report'}`, ...choose).then((answer) => answer && vscode.commands.executeCommand('apidrift.selectBaseline'));
        return;
      }
      // a read-only document of its own: what the workspace uses first, linked to the places
      await report.show({ text: result.text, links: result.links });
    }),
    vscode.commands.registerCommand('apidrift.insertSnippet', async (args: InsertSnippetArgs) => {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(args.uri));
      if (doc.version !== args.version) {
        void vscode.window.showWarningMessage('apidrift: the document changed since this fix was computed; try again.');
        return;
      }
      const editor = await vscode.window.showTextDocument(doc);
      const r = args.range;
      // keepWhitespace: the snippet already carries the indentation of the line it goes on
      const options = { undoStopBefore: true, undoStopAfter: true, keepWhitespace: true } as { undoStopBefore: boolean; undoStopAfter: boolean };
      await editor.insertSnippet(new vscode.SnippetString(args.snippet), new vscode.Range(r.start.line, r.start.character, r.end.line, r.end.character), options);
    }),
  );

  context.subscriptions.push(client.onNotification('apidrift/status', (s: Status) => status.update(s)));
  // fetching a target named by version: a notification with the size and a cancel button
  const fetches = new Map<number, { report: (p: { message?: string; increment?: number }) => void; end: () => void; at: number }>();
  /** What the fetch notifications said (for tests, through the extension's API). */
  const fetchMessages: string[] = [];
  context.subscriptions.push(
    client.onNotification('apidrift/fetchProgress', (p: { id: number; kind: 'begin' | 'report' | 'end'; message?: string; percentage?: number }) => {
      if (p.message) fetchMessages.push(p.message);
      if (p.kind === 'begin') {
        void vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'apidrift: fetching the target', cancellable: true }, (progress, token) => {
          token.onCancellationRequested(() => void client?.sendNotification('apidrift/cancelFetch', { id: p.id }));
          return new Promise<void>((end) => {
            fetches.set(p.id, { report: (r) => progress.report(r), end, at: 0 });
            progress.report({ message: p.message });
          });
        });
        return;
      }
      const f = fetches.get(p.id);
      if (!f) return;
      if (p.kind === 'end') {
        f.end();
        fetches.delete(p.id);
        return;
      }
      const increment = p.percentage !== undefined ? Math.max(0, p.percentage - f.at) : undefined;
      if (p.percentage !== undefined) f.at = p.percentage;
      f.report({ message: p.message, increment });
    }),
  );
  await client.start();
  const sendEnvironment = async (): Promise<void> => {
    await client?.sendNotification('apidrift/environment', await environmentParams());
  };
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => void sendEnvironment()));
  const py = await pythonInterpreter();
  if (py.onChange) context.subscriptions.push(py.onChange(() => void sendEnvironment()));
  return { status: () => status.current, client: () => client, fetches: () => fetchMessages.slice() };
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop();
  client = undefined;
}
