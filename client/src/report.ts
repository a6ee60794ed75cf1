/**
 * The API-change report as a read-only virtual document (scheme `apidrift-report`): never dirty,
 * closed without a save prompt, and its places are links to the files and lines that use a change.
 */
import * as vscode from 'vscode';

export const REPORT_SCHEME = 'apidrift-report';
/** One report document; its name ends in the report language's extension, so it opens coloured. */
export const REPORT_URI = vscode.Uri.from({ scheme: REPORT_SCHEME, path: '/API changes.apidrift-report' });

export interface ReportContent {
  text: string;
  links?: Array<{ line: number; character: number; length: number; file?: string; targetLine: number }>;
}

export class ReportProvider implements vscode.TextDocumentContentProvider, vscode.DocumentLinkProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private content: ReportContent = { text: '' };
  private readonly registrations: vscode.Disposable[];

  constructor() {
    this.registrations = [
      vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, this),
      vscode.languages.registerDocumentLinkProvider({ scheme: REPORT_SCHEME }, this),
    ];
  }

  /** Shows `content` in the report document (replacing what it held). */
  async show(content: ReportContent): Promise<vscode.TextEditor> {
    this.content = content;
    this.changed.fire(REPORT_URI);
    let doc = await vscode.workspace.openTextDocument(REPORT_URI);
    if (doc.languageId !== 'apidrift-report') doc = await vscode.languages.setTextDocumentLanguage(doc, 'apidrift-report');
    return vscode.window.showTextDocument(doc, { preview: false });
  }

  provideTextDocumentContent(): string {
    return this.content.text;
  }

  provideDocumentLinks(doc: vscode.TextDocument): vscode.DocumentLink[] {
    if (doc.uri.toString() !== REPORT_URI.toString()) return [];
    return (this.content.links ?? []).map((l) => {
      const range = new vscode.Range(l.line, l.character, l.line, l.character + l.length);
      // `#L<line>` opens the document at that line
      const target = (l.file ? vscode.Uri.file(l.file) : REPORT_URI).with({ fragment: `L${l.targetLine}` });
      const link = new vscode.DocumentLink(range, target);
      link.tooltip = l.file ? `Open ${vscode.workspace.asRelativePath(l.file)} at line ${l.targetLine}` : `Go to line ${l.targetLine}`;
      return link;
    });
  }

  dispose(): void {
    for (const r of this.registrations) r.dispose();
    this.changed.dispose();
  }
}
