/**
 * The workspace's Python environment as the Python extension sees it, through its published API
 * (@vscode/python-extension): the active environment of a resource (a workspace folder), resolved
 * to its `sys.prefix`. Kept apart from `vscode` so that it can be tested with a fake API.
 */
import type { PythonExtension } from '@vscode/python-extension';

type Environments = PythonExtension['environments'];

/** The part of the Python extension's `environments` API that apidrift uses. */
export interface EnvironmentsApi {
  getActiveEnvironmentPath: (resource?: Parameters<Environments['getActiveEnvironmentPath']>[0]) => { id: string; path: string };
  resolveEnvironment: (environment: { id: string; path: string } | string) => Promise<
    | { executable: { uri?: { fsPath: string } | undefined; sysPrefix?: string | undefined }; environment?: { folderUri: { fsPath: string } } | undefined }
    | undefined
  >;
  onDidChangeActiveEnvironmentPath: (listener: (e: { path: string; resource?: { uri: { toString(): string } } | { toString(): string } | undefined }) => unknown) => { dispose(): void };
}

export interface ActiveEnvironment {
  /** The environment's `sys.prefix` (its folder), when the Python extension could resolve it. */
  prefix?: string;
  /** The interpreter's path. */
  interpreter?: string;
}

/** The active environment for `resource`: its resolved `sys.prefix`, else the environment folder, else the interpreter path. */
export async function activeEnvironment(envs: EnvironmentsApi, resource?: Parameters<EnvironmentsApi['getActiveEnvironmentPath']>[0]): Promise<ActiveEnvironment> {
  let active: { id: string; path: string };
  try {
    active = envs.getActiveEnvironmentPath(resource);
  } catch {
    return {};
  }
  if (!active?.path) return {};
  let resolved: Awaited<ReturnType<EnvironmentsApi['resolveEnvironment']>>;
  try {
    resolved = await envs.resolveEnvironment(active);
  } catch {
    resolved = undefined;
  }
  const prefix = resolved?.executable.sysPrefix || resolved?.environment?.folderUri.fsPath || undefined;
  const interpreter = resolved?.executable.uri?.fsPath ?? active.path;
  return { prefix, interpreter };
}

/** What the server is told: the environment's folder when known, else the interpreter (the server finds site-packages from either). */
export function environmentLocation(env: ActiveEnvironment): string | undefined {
  return env.prefix ?? env.interpreter;
}

/**
 * Calls `listener` when the active environment of `resource` changes (a change for another
 * workspace folder is not this one's).
 */
export function onActiveEnvironmentChange(envs: EnvironmentsApi, resource: { toString(): string } | undefined, listener: () => void): { dispose(): void } {
  return envs.onDidChangeActiveEnvironmentPath((e) => {
    const r = e.resource as { uri?: { toString(): string }; toString(): string } | undefined;
    const changed = r ? (r.uri ?? r).toString() : undefined;
    if (!changed || !resource || changed === resource.toString()) listener();
  });
}

/**
 * The active environment of each workspace folder after the first (each folder may select its own
 * interpreter in the Python extension): folder path → environment location, where there is one.
 */
export async function folderEnvironments(envs: EnvironmentsApi, folders: Array<{ uri: Parameters<EnvironmentsApi['getActiveEnvironmentPath']>[0]; fsPath: string }>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const f of folders) {
    const where = environmentLocation(await activeEnvironment(envs, f.uri));
    if (where) out[f.fsPath] = where;
  }
  return out;
}
