/**
 * The VS Code side of apidrift: starts the language server, shows its state in the status
 * bar, and offers the commands. All analysis happens in the server.
 */
import * as fs from 'fs';
import * as vscode from 'vscode';
import { LanguageClient, type LanguageClientOptions, type ServerOptions, State, TransportKind } from 'vscode-languageclient/node';
import { type Status, StatusBar } from './statusBar';

let client: LanguageClient | undefined;

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

export async function activate(context: vscode.ExtensionContext): Promise<{ status: () => Status; client: () => LanguageClient | undefined }> {
  const output = vscode.window.createOutputChannel('apidrift');
  const status = new StatusBar();
  context.subscriptions.push(output, status);

  const module = serverModule(context);
  if (!fs.existsSync(module)) {
    const why = `the server bundle is missing (${module}); run npm run build`;
    output.appendLine(why);
    status.update({ state: 'error', targets: [], message: why });
  }
  const serverOptions: ServerOptions = {
    run: { module, transport: TransportKind.ipc },
    debug: { module, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6011'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'python' },
      { scheme: 'untitled', language: 'python' },
    ],
    synchronize: { configurationSection: 'apidrift' },
    outputChannel: output,
    initializationOptions: { settings: vscode.workspace.getConfiguration('apidrift') },
  };
  client = new LanguageClient('apidrift', 'apidrift', serverOptions, clientOptions);
  context.subscriptions.push(
    client.onDidChangeState((e) => {
      if (e.newState === State.Stopped) status.update({ ...status.current, state: 'stopped', message: 'the apidrift server stopped; see the apidrift output' });
    }),
  );

  context.subscriptions.push(
    vscode.commands.registerCommand('apidrift.recheck', async () => {
      if (!client) return;
      await client.sendRequest('apidrift/recheck');
    }),
    vscode.commands.registerCommand('apidrift.showOutput', () => output.show(true)),
    vscode.commands.registerCommand('apidrift.fixAll', async () => {
      await vscode.commands.executeCommand('editor.action.sourceAction', { kind: 'source.fixAll.apidrift', apply: 'first' });
    }),
    vscode.commands.registerCommand('apidrift.showChanges', async () => {
      if (!client) return;
      const result = await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: 'apidrift: comparing the baseline with the target' },
        () => client!.sendRequest<{ text?: string; error?: string }>('apidrift/changes'),
      );
      if (result.error || result.text === undefined) {
        void vscode.window.showErrorMessage(`apidrift: ${result.error ?? 'no report'}`);
        return;
      }
      const doc = await vscode.workspace.openTextDocument({ language: 'apidrift-report', content: result.text });
      await vscode.window.showTextDocument(doc, { preview: false });
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
  await client.start();
  return { status: () => status.current, client: () => client };
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop();
  client = undefined;
}
