/**
 * Finds the Python environment a workspace uses, for when `apidrift.targets` is empty: the
 * interpreter chosen in the Python extension (when the client passes it), `$VIRTUAL_ENV`, and
 * `.venv` / `venv` in the workspace. Only folders are looked at; nothing is run.
 */
import * as fs from 'fs';
import * as path from 'path';

export interface DetectedEnvironment {
  /** What it is, for the status bar and the quick pick. */
  label: string;
  /** Its site-packages folder: the import root used as the target. */
  sitePackages: string;
}

/** The site-packages folder of an environment folder or of an interpreter inside one. */
export function sitePackagesOf(envOrInterpreter: string): string | undefined {
  let env = envOrInterpreter;
  try {
    if (fs.statSync(env).isFile()) env = path.dirname(path.dirname(env)); // .../env/bin/python
  } catch {
    return undefined;
  }
  const win = path.join(env, 'Lib', 'site-packages');
  if (fs.existsSync(win)) return win;
  const lib = path.join(env, 'lib');
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(lib);
  } catch {
    return undefined;
  }
  const pythons = entries.filter((e) => /^python3(\.\d+)?$/.test(e)).sort().reverse();
  for (const p of pythons) {
    const sp = path.join(lib, p, 'site-packages');
    if (fs.existsSync(sp)) return sp;
  }
  return undefined;
}

export function detectEnvironments(opts: { workspaceFolder?: string; interpreter?: string; virtualEnv?: string }): DetectedEnvironment[] {
  const found: DetectedEnvironment[] = [];
  const add = (label: string, where: string | undefined): void => {
    if (!where) return;
    const sp = sitePackagesOf(where);
    if (sp && !found.some((f) => f.sitePackages === sp)) found.push({ label, sitePackages: sp });
  };
  add('the interpreter selected in the Python extension', opts.interpreter);
  add('$VIRTUAL_ENV', opts.virtualEnv);
  if (opts.workspaceFolder) {
    add('.venv in the workspace', path.join(opts.workspaceFolder, '.venv'));
    add('venv in the workspace', path.join(opts.workspaceFolder, 'venv'));
  }
  return found;
}
