/**
 * `[tool.apidrift]` in `pyproject.toml`: the nearest such file above a checked file configures it.
 * Plain data, no LSP or VS Code: the CLI and the language server read the same file.
 *
 * ```toml
 * [tool.apidrift]
 * target = ["../venv-new/lib/python3.12/site-packages"]   # or one string
 * baseline = "git:../vllm@v0.11.0"
 * include = ["*.py", "*.pyi", "*.ipynb"]                  # files searched for in folders
 * exclude = ["generated/", "legacy_*.py"]                  # added to the default excludes
 * select = ["missing-argument", "unexpected-keyword"]      # only these codes (default: all)
 * ignore = ["deprecated"]
 * per-file-ignores = { "tests/*" = ["unknown-import"] }
 * severity = { changed-override = "error", deprecated = "off" }
 * ```
 * Paths and patterns are relative to the folder of the `pyproject.toml`; patterns follow
 * `.gitignore` rules.
 */
import * as fs from 'fs';
import * as path from 'path';
import ignore, { type Ignore } from 'ignore';
import { parse as parseToml } from 'smol-toml';
import type { Finding, FindingCode, Severity } from '../types';

export const FINDING_CODES: readonly FindingCode[] = [
  'missing-argument',
  'unexpected-keyword',
  'too-many-positional',
  'multiple-values',
  'positional-only-as-keyword',
  'unknown-import',
  'unknown-attribute',
  'unknown-module',
  'deprecated',
  'changed-override',
  'unpack-mismatch',
  'shifted-argument',
  'unused-ignore',
];

/** Folders never searched (as in ruff), unless named explicitly. Dot-folders are skipped as well. */
export const DEFAULT_EXCLUDES: readonly string[] = ['__pycache__', '__pypackages__', '_build', 'buck-out', 'build', 'dist', 'node_modules', 'site-packages', 'venv'];

export const DEFAULT_INCLUDE: readonly string[] = ['*.py', '*.pyi', '*.ipynb'];

export class ConfigError extends Error {}

export interface ApidriftConfig {
  /** The pyproject.toml it comes from, and its folder (what relative paths are relative to). */
  file: string;
  dir: string;
  target?: string[];
  baseline?: string[];
  include: string[];
  exclude: string[];
  select?: FindingCode[];
  ignore: FindingCode[];
  perFileIgnores: Array<{ pattern: string; codes: FindingCode[] }>;
  severity: Partial<Record<FindingCode, Severity | 'off'>>;
}

const SEVERITIES = ['error', 'warning', 'information', 'hint', 'off'];
const KEYS = ['target', 'baseline', 'include', 'exclude', 'select', 'ignore', 'per-file-ignores', 'severity'];

function strings(v: unknown, key: string, file: string): string[] {
  if (typeof v === 'string') return [v];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  throw new ConfigError(`${file}: [tool.apidrift] ${key} must be a string or a list of strings`);
}

function codes(v: unknown, key: string, file: string): FindingCode[] {
  const list = strings(v, key, file);
  for (const c of list) if (!FINDING_CODES.includes(c as FindingCode)) throw new ConfigError(`${file}: [tool.apidrift] ${key}: unknown code '${c}'`);
  return list as FindingCode[];
}

function table(v: unknown, key: string, file: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new ConfigError(`${file}: [tool.apidrift] ${key} must be a table`);
  return v as Record<string, unknown>;
}

/** Resolves a target or baseline path of the config against its folder (`git:` forms included). */
function resolvePath(p: string, dir: string): string {
  if (p.startsWith('git:')) {
    const rest = p.slice(4);
    const at = rest.lastIndexOf('@');
    const repo = at > 0 ? rest.slice(0, at) : rest;
    return 'git:' + path.resolve(dir, repo) + (at > 0 ? rest.slice(at) : '');
  }
  return path.resolve(dir, p);
}

/** The `[tool.apidrift]` table of a pyproject.toml, or undefined when it has none. */
export function readConfig(file: string, text = fs.readFileSync(file, 'utf8')): ApidriftConfig | undefined {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (e) {
    throw new ConfigError(`${file}: ${(e as Error).message.split('\n')[0]}`);
  }
  const tool = doc.tool as Record<string, unknown> | undefined;
  const raw = tool && typeof tool === 'object' ? (tool.apidrift as Record<string, unknown> | undefined) : undefined;
  if (raw === undefined) return undefined;
  const t = table(raw, '', file);
  for (const k of Object.keys(t)) if (!KEYS.includes(k)) throw new ConfigError(`${file}: [tool.apidrift] unknown key '${k}'`);
  const dir = path.dirname(path.resolve(file));
  const config: ApidriftConfig = { file, dir, include: [...DEFAULT_INCLUDE], exclude: [], ignore: [], perFileIgnores: [], severity: {} };
  if (t.target !== undefined) config.target = strings(t.target, 'target', file).map((p) => resolvePath(p, dir));
  if (t.baseline !== undefined) config.baseline = strings(t.baseline, 'baseline', file).map((p) => resolvePath(p, dir));
  if (t.include !== undefined) config.include = strings(t.include, 'include', file);
  if (t.exclude !== undefined) config.exclude = strings(t.exclude, 'exclude', file);
  if (t.select !== undefined) config.select = codes(t.select, 'select', file);
  if (t.ignore !== undefined) config.ignore = codes(t.ignore, 'ignore', file);
  if (t['per-file-ignores'] !== undefined) {
    for (const [pattern, v] of Object.entries(table(t['per-file-ignores'], 'per-file-ignores', file))) config.perFileIgnores.push({ pattern, codes: codes(v, `per-file-ignores."${pattern}"`, file) });
  }
  if (t.severity !== undefined) {
    for (const [code, v] of Object.entries(table(t.severity, 'severity', file))) {
      if (!FINDING_CODES.includes(code as FindingCode)) throw new ConfigError(`${file}: [tool.apidrift] severity: unknown code '${code}'`);
      if (typeof v !== 'string' || !SEVERITIES.includes(v)) throw new ConfigError(`${file}: [tool.apidrift] severity.${code} must be one of ${SEVERITIES.join(', ')}`);
      config.severity[code as FindingCode] = v as Severity | 'off';
    }
  }
  return config;
}

/** Finds the nearest `pyproject.toml` holding `[tool.apidrift]` at or above a folder; results are memoised per folder. */
export class ConfigFinder {
  private readonly byDir = new Map<string, ApidriftConfig | undefined>();

  /** The config that applies to a file (or folder). */
  forPath(p: string): ApidriftConfig | undefined {
    const abs = path.resolve(p);
    let dir: string;
    try {
      dir = fs.statSync(abs).isDirectory() ? abs : path.dirname(abs);
    } catch {
      dir = path.dirname(abs);
    }
    return this.forDir(dir);
  }

  private forDir(dir: string): ApidriftConfig | undefined {
    if (this.byDir.has(dir)) return this.byDir.get(dir);
    const file = path.join(dir, 'pyproject.toml');
    let config: ApidriftConfig | undefined;
    if (fs.existsSync(file)) config = readConfig(file);
    if (!config) {
      const parent = path.dirname(dir);
      config = parent === dir ? undefined : this.forDir(parent);
    }
    this.byDir.set(dir, config);
    return config;
  }
}

const matchers = new WeakMap<object, Ignore>();

function matcher(key: object, patterns: string[]): Ignore {
  let m = matchers.get(key);
  if (!m) matchers.set(key, (m = ignore().add(patterns)));
  return m;
}

/** A path relative to the config's folder, with forward slashes; undefined when outside it. */
function relativeTo(config: ApidriftConfig, file: string): string | undefined {
  const rel = path.relative(config.dir, path.resolve(file));
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return undefined;
  return rel.split(path.sep).join('/');
}

/** Whether the config's `exclude` patterns exclude a path (`isDir` for folders). */
export function excludedByConfig(config: ApidriftConfig, p: string, isDir: boolean): boolean {
  if (config.exclude.length === 0) return false;
  const rel = relativeTo(config, p);
  return rel !== undefined && matcher(config.exclude, config.exclude).ignores(isDir ? rel + '/' : rel);
}

/** Whether a file found in a folder is one to check (the config's `include`). */
export function includedByConfig(config: ApidriftConfig | undefined, file: string): boolean {
  const patterns = config?.include ?? DEFAULT_INCLUDE;
  const rel = config ? relativeTo(config, file) : undefined;
  return matcher(patterns, [...patterns]).ignores(rel ?? path.basename(file));
}

/** The findings of a file as its config wants them: selected codes, ignores, severities. */
export function applyConfig(findings: Finding[], config: ApidriftConfig | undefined, file: string): Finding[] {
  if (!config) return findings;
  const rel = relativeTo(config, file);
  const fileIgnores = new Set(rel === undefined ? [] : config.perFileIgnores.filter((p) => matcher(p, [p.pattern]).ignores(rel)).flatMap((p) => p.codes));
  const out: Finding[] = [];
  for (const f of findings) {
    if (config.select && !config.select.includes(f.code)) continue;
    if (config.ignore.includes(f.code) || fileIgnores.has(f.code)) continue;
    const severity = config.severity[f.code];
    if (severity === 'off') continue;
    out.push(severity ? { ...f, severity } : f);
  }
  return out;
}
