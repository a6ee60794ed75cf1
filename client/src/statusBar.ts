import * as vscode from 'vscode';

export type ServerState = 'idle' | 'indexing' | 'ready' | 'error' | 'stopped';

export interface Status {
  state: ServerState;
  targets: string[];
  message: string;
  /** The server process (for diagnostics and tests). */
  pid?: number;
  /** Where the target comes from (a setting, a pyproject.toml, or what was detected). */
  origin?: string;
  /** The environment the target belongs to (".venv"). */
  environment?: string;
  /** The versions of the libraries the open files import from the target. */
  libraries?: Array<{ name: string; version: string }>;
}

/** What the target is, in a few words: ".venv · vllm 0.16.0", else the folders' names. */
export function targetLabel(status: Status): string {
  const libs = status.libraries ?? [];
  const versions = libs.slice(0, 2).map((l) => `${l.name} ${l.version}`);
  if (libs.length > 2) versions.push(`+${libs.length - 2}`);
  const parts = [status.environment, versions.join(', ')].filter((p): p is string => !!p);
  if (parts.length > 0) return parts.join(' · ');
  return status.targets.map((t) => t.split(/[\\/]/).filter(Boolean).pop() ?? t).join(', ');
}

/** What the status message says of the baseline, as a sentence. */
function baselinePart(message: string): string {
  const m = /; (baseline .*)$/.exec(message);
  return m ? ` ${m[1][0].toUpperCase()}${m[1].slice(1)}.` : '';
}

/** The status in plain words, for the tooltip and screen readers. */
export function describeStatus(status: Status): string {
  const libs = (status.libraries ?? []).map((l) => `${l.name} ${l.version}`);
  const what = libs.length ? libs.join(', ') : status.targets.join(', ');
  const where = status.environment ? ` in the ${status.environment} environment` : '';
  const origin = status.origin ? ` The target comes from ${status.origin.replace(/^auto-detected: /, 'automatic detection: ')}.` : '';
  switch (status.state) {
    case 'idle':
      return 'apidrift has no target: set apidrift.targets, or create a .venv in the workspace.';
    case 'indexing':
      return `apidrift is preparing the target${what ? ` ${what}` : ''}: ${status.message}.`;
    case 'ready':
      return `apidrift checks your Python files against ${what}${where}.${origin}${baselinePart(status.message)}`;
    case 'error':
      return `apidrift cannot check against its target: ${status.message}.`;
    case 'stopped':
      return `apidrift stopped: ${status.message}`;
  }
}

/** The status bar item and the language status item: which target apidrift checks against, and whether it is ready. */
export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly language: vscode.LanguageStatusItem;
  current: Status = { state: 'indexing', targets: [], message: 'starting' };

  constructor() {
    this.item = vscode.window.createStatusBarItem('apidrift.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'apidrift';
    this.item.command = 'apidrift.selectTarget';
    this.language = vscode.languages.createLanguageStatusItem('apidrift.target', { language: 'python' });
    this.language.name = 'apidrift';
    this.update(this.current);
    this.item.show();
  }

  update(status: Status): void {
    this.current = status;
    const label = targetLabel(status);
    let text: string;
    switch (status.state) {
      case 'idle':
        text = '$(circle-slash) apidrift: no target';
        this.item.backgroundColor = undefined;
        break;
      case 'indexing':
        text = '$(sync~spin) apidrift: indexing';
        this.item.backgroundColor = undefined;
        break;
      case 'ready':
        text = `$(check) apidrift: ${label}`;
        this.item.backgroundColor = undefined;
        break;
      case 'error':
        text = '$(error) apidrift: target error';
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.errorBackground');
        break;
      case 'stopped':
        text = '$(debug-stop) apidrift: stopped';
        this.item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
        break;
    }
    const words = describeStatus(status);
    this.item.text = text;
    const md = new vscode.MarkdownString();
    md.appendText(words);
    if (status.targets.length) md.appendText(`\n\nTarget${status.targets.length > 1 ? 's' : ''}:\n${status.targets.map((t) => `• ${t}`).join('\n')}`);
    md.appendText('\n\nClick to choose the target.');
    this.item.tooltip = md;
    this.item.accessibilityInformation = { label: `${words} Activate to choose the target.`, role: 'button' };

    this.language.text = status.state === 'ready' ? `apidrift: ${label}` : text.replace(/^\$\([\w~-]+\) /, '');
    this.language.detail = status.origin ? (/^auto-detected: /.test(status.origin) ? `found automatically (${status.origin.replace(/^auto-detected: /, '')})` : `set in ${status.origin}`) : undefined;
    this.language.busy = status.state === 'indexing';
    this.language.severity = status.state === 'error' || status.state === 'stopped' ? vscode.LanguageStatusSeverity.Error : vscode.LanguageStatusSeverity.Information;
    this.language.command = { title: 'Select target', command: 'apidrift.selectTarget', tooltip: 'Choose the version to check against' };
    this.language.accessibilityInformation = { label: words };
  }

  dispose(): void {
    this.item.dispose();
    this.language.dispose();
  }
}
