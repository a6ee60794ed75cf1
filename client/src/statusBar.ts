import * as vscode from 'vscode';

export type ServerState = 'idle' | 'indexing' | 'ready' | 'error' | 'stopped';

export interface Status {
  state: ServerState;
  targets: string[];
  message: string;
  /** The server process (for diagnostics and tests). */
  pid?: number;
}

/** The status bar item: which target apidrift checks against, and whether it is ready. */
export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  current: Status = { state: 'indexing', targets: [], message: 'starting' };

  constructor() {
    this.item = vscode.window.createStatusBarItem('apidrift.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'apidrift';
    this.item.command = 'apidrift.selectTarget';
    this.update(this.current);
    this.item.show();
  }

  update(status: Status): void {
    this.current = status;
    const names = status.targets.map((t) => t.split(/[\\/]/).filter(Boolean).pop() ?? t).join(', ');
    switch (status.state) {
      case 'idle':
        this.item.text = '$(circle-slash) apidrift: no target';
        this.item.backgroundColor = undefined;
        break;
      case 'indexing':
        this.item.text = '$(sync~spin) apidrift: indexing';
        this.item.backgroundColor = undefined;
        break;
      case 'ready':
        this.item.text = `$(check) apidrift: ${names}`;
        this.item.backgroundColor = undefined;
        break;
      case 'error':
        this.item.text = '$(error) apidrift: target error';
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        break;
      case 'stopped':
        this.item.text = '$(debug-stop) apidrift: stopped';
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        break;
    }
    const md = new vscode.MarkdownString();
    md.appendText(`apidrift — ${status.state}\n\n${status.message}`);
    if (status.targets.length) md.appendText(`\n\nTargets:\n${status.targets.map((t) => `• ${t}`).join('\n')}`);
    this.item.tooltip = md;
  }

  dispose(): void {
    this.item.dispose();
  }
}
