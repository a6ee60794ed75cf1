/** The server's view of the `apidrift.*` settings: one typed, validated object. */
import * as path from 'path';

export interface Settings {
  /** Target paths as the user wrote them. */
  targets: string[];
}

export const DEFAULT_SETTINGS: Settings = { targets: [] };

/** The settings keys the server reads; package.json must declare each (a test keeps them in step). */
export const SETTINGS_KEYS = ['apidrift.targets'] as const;

export function parseSettings(raw: unknown): Settings {
  const obj = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const targets = Array.isArray(obj.targets) ? obj.targets.filter((t): t is string => typeof t === 'string' && t.trim() !== '') : [];
  return { targets: targets.map((t) => t.trim()) };
}

/** Resolves `${workspaceFolder}`, `~` and relative paths against the first workspace folder. */
export function resolveTargetPath(p: string, workspaceFolder: string | undefined): string {
  let out = p.replace(/\$\{workspaceFolder\}/g, workspaceFolder ?? '');
  if (out.startsWith('~/') && process.env.HOME) out = path.join(process.env.HOME, out.slice(2));
  if (!path.isAbsolute(out) && workspaceFolder) out = path.join(workspaceFolder, out);
  return path.normalize(out);
}
