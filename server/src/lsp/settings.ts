/** The server's view of the `apidrift.*` settings: one typed, validated object. */
import * as path from 'path';
import { isRequirementSpec } from '../engine/sources/openTargets';

export interface Settings {
  /** Target paths as the user wrote them. */
  targets: string[];
  /** Baseline paths (the version the code was written for). */
  baseline: string[];
  /** The package index for targets named by version; empty: `PIP_INDEX_URL`, `UV_INDEX_URL`, the public index. */
  indexUrl: string;
  /** Targets named by version are downloaded whole and checked against the index's sha256. */
  requireHashes: boolean;
  /** `openFiles`: only open files are checked; `workspace`: every Python file of the workspace. */
  diagnosticMode: 'openFiles' | 'workspace';
}

export const DEFAULT_SETTINGS: Settings = { targets: [], baseline: [], indexUrl: '', requireHashes: false, diagnosticMode: 'openFiles' };

/** The settings keys the server reads; package.json must declare each (a test keeps them in step). */
export const SETTINGS_KEYS = ['apidrift.targets', 'apidrift.baseline', 'apidrift.indexUrl', 'apidrift.requireHashes', 'apidrift.diagnosticMode'] as const;

function paths(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((t): t is string => typeof t === 'string' && t.trim() !== '').map((t) => t.trim()) : [];
}

export function parseSettings(raw: unknown): Settings {
  const obj = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  return {
    targets: paths(obj.targets),
    baseline: paths(obj.baseline),
    indexUrl: typeof obj.indexUrl === 'string' ? obj.indexUrl.trim() : '',
    requireHashes: obj.requireHashes === true,
    diagnosticMode: obj.diagnosticMode === 'workspace' ? 'workspace' : 'openFiles',
  };
}

/**
 * Resolves `${workspaceFolder}`, `~` and relative paths against the first workspace folder. In
 * `git:REPO@REF` only REPO is a path: the form stays a git target; a requirement
 * (`NAME==VERSION`) is kept as it is.
 */
export function resolveTargetPath(p: string, workspaceFolder: string | undefined): string {
  if (isRequirementSpec(p)) return p;
  if (p.startsWith('git:')) {
    const at = p.lastIndexOf('@');
    if (at > 4 && at < p.length - 1) return `git:${resolveTargetPath(p.slice(4, at), workspaceFolder)}${p.slice(at)}`;
    return p; // malformed: the engine says how it should be written
  }
  let out = p.replace(/\$\{workspaceFolder\}/g, workspaceFolder ?? '');
  if (out.startsWith('~/') && process.env.HOME) out = path.join(process.env.HOME, out.slice(2));
  if (!path.isAbsolute(out) && workspaceFolder) out = path.join(workspaceFolder, out);
  return path.normalize(out);
}
