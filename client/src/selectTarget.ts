/**
 * "apidrift: Select target…" and "apidrift: Select baseline…": the current choice is marked (and
 * focused), "Automatic" clears the target setting (back to detecting the workspace's
 * environment), "None" clears the baseline.
 */
import * as vscode from 'vscode';

export interface Detected {
  label: string;
  sitePackages: string;
}

type Kind = 'targets' | 'baseline';
type Item = vscode.QuickPickItem & { current?: boolean; action?: () => Promise<string[] | undefined | 'clear'> };

const CURRENT = '$(check) ';

function scope(): vscode.ConfigurationTarget {
  return vscode.workspace.workspaceFolders ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
}

/** The value in effect and whether it was set (at any level). */
function current(kind: Kind): string[] {
  return vscode.workspace.getConfiguration('apidrift').get<string[]>(kind) ?? [];
}

/**
 * Clears `kind` so that it no longer pins anything: the workspace's value is removed; when the
 * user settings still set one, the workspace says `[]` (empty: detection) over it.
 */
async function clear(kind: Kind): Promise<void> {
  const config = vscode.workspace.getConfiguration('apidrift');
  const inspected = config.inspect<string[]>(kind);
  const global = inspected?.globalValue ?? [];
  if (scope() === vscode.ConfigurationTarget.Global) {
    await config.update(kind, undefined, vscode.ConfigurationTarget.Global);
    return;
  }
  await config.update(kind, global.length > 0 ? [] : undefined, vscode.ConfigurationTarget.Workspace);
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

async function pick(kind: Kind, detected: Detected[], status: { targets: string[]; origin?: string }): Promise<Item | undefined> {
  const now = current(kind);
  const items: Item[] = [];
  if (kind === 'targets') {
    const auto = detected[0];
    items.push({
      label: 'Automatic',
      description: auto ? `the workspace's environment, now ${auto.label}` : "the workspace's environment (none found now)",
      detail: now.length === 0 && status.origin ? `in use: ${status.origin}` : undefined,
      current: now.length === 0,
      action: async () => 'clear',
    });
  } else {
    items.push({ label: 'None', description: 'no baseline: findings without explanations', current: now.length === 0, action: async () => 'clear' });
  }
  const detectedItems = detected.map((d): Item => ({ label: `$(vm) ${d.sitePackages}`, description: d.label, current: sameList(now, [d.sitePackages]), action: async () => [d.sitePackages] }));
  if (detectedItems.length) items.push({ label: 'Environments', kind: vscode.QuickPickItemKind.Separator }, ...detectedItems);
  // a pinned value that is none of the above is shown too, marked
  if (now.length > 0 && !detectedItems.some((d) => d.current)) {
    items.push({ label: 'Set now', kind: vscode.QuickPickItemKind.Separator }, { label: `$(pin) ${now.join(', ')}`, description: `apidrift.${kind}`, current: true, action: async () => now });
  }
  const use = kind === 'targets' ? 'Use as target' : 'Use as baseline';
  items.push(
    { label: 'Other', kind: vscode.QuickPickItemKind.Separator },
    {
      label: '$(folder) Choose a folder…',
      description: 'a site-packages folder or a source checkout',
      action: async () => {
        const f = (await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: use }))?.[0]?.fsPath;
        return f ? [f] : undefined;
      },
    },
    {
      label: '$(file-zip) Choose a wheel or zip archive…',
      action: async () => {
        const f = (await vscode.window.showOpenDialog({ canSelectFiles: true, filters: { 'Python archives': ['whl', 'zip'] }, openLabel: use }))?.[0]?.fsPath;
        return f ? [f] : undefined;
      },
    },
    {
      label: '$(git-commit) Enter a git revision…',
      description: 'git:REPO@REF',
      action: async () => {
        const v = await vscode.window.showInputBox({ prompt: 'A repository folder (work tree or bare) and a revision', placeHolder: 'git:/path/to/repo@v0.16.0', validateInput: (s) => (/^git:.+@.+$/.test(s) ? undefined : 'write git:REPO@REF') });
        return v ? [v] : undefined;
      },
    },
    {
      label: '$(package) Enter a version…',
      description: 'NAME==VERSION, fetched from the package index',
      action: async () => {
        const v = await vscode.window.showInputBox({ prompt: 'A requirement', placeHolder: 'vllm==0.16.0', validateInput: (s) => (/^[A-Za-z0-9][A-Za-z0-9._-]*\s*(==|>=|<=|~=|>|<|!=)/.test(s.trim()) ? undefined : 'write NAME==VERSION') });
        return v ? [v.trim()] : undefined;
      },
    },
  );
  if (kind === 'targets') {
    const base = current('baseline');
    items.push({ label: 'Baseline', kind: vscode.QuickPickItemKind.Separator }, { label: '$(history) Choose the baseline…', description: base.length ? `now ${base.join(', ')}` : 'now none', action: async () => undefined });
  }
  for (const it of items) if (it.current) it.label = CURRENT + it.label.replace(/^\$\([\w-]+\) /, '');
  for (const it of items) if (it.current) it.description = it.description ? `${it.description} (current)` : '(current)';

  const qp = vscode.window.createQuickPick<Item>();
  qp.title = kind === 'targets' ? 'apidrift: the version to check against' : 'apidrift: the version your code was written for';
  qp.placeholder = kind === 'targets' ? 'Check against which version of the library?' : 'Explain findings against which version?';
  qp.items = items;
  qp.matchOnDescription = true;
  const active = items.find((i) => i.current);
  if (active) qp.activeItems = [active];
  return new Promise<Item | undefined>((resolve) => {
    let chosen: Item | undefined;
    qp.onDidAccept(() => {
      chosen = qp.selectedItems[0] ?? qp.activeItems[0];
      qp.hide();
    });
    qp.onDidHide(() => {
      qp.dispose();
      resolve(chosen);
    });
    qp.show();
  });
}

/** Runs the picker for `kind` and writes the choice into the settings. */
export async function selectTarget(kind: Kind, detect: () => Promise<Detected[]>, status: () => { targets: string[]; origin?: string }): Promise<void> {
  const detected = await detect();
  const chosen = await pick(kind, detected, status());
  if (!chosen?.action) return;
  if (kind === 'targets' && chosen.label.includes('Choose the baseline')) {
    await selectTarget('baseline', async () => detected, status);
    return;
  }
  const value = await chosen.action();
  if (!value) return;
  if (value === 'clear') await clear(kind);
  else await vscode.workspace.getConfiguration('apidrift').update(kind, value, scope());
}
