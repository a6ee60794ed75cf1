/**
 * Which files a check reads: paths named on the command line are always checked (a folder is
 * searched); inside a folder, default excludes (ruff's: `venv`, `build`, `dist`,
 * `site-packages`, `node_modules`, `__pycache__`, dot-folders...), the config's `exclude` and
 * every `.gitignore` on the way (from the enclosing git work tree's root down) leave files out,
 * and only the config's `include` patterns (`*.py`, `*.pyi`, `*.ipynb` by default) are read.
 */
import * as fs from 'fs';
import * as path from 'path';
import ignore, { type Ignore } from 'ignore';
import { type ConfigFinder, DEFAULT_EXCLUDES, excludedByConfig, includedByConfig } from '../engine/config/pyproject';

export class UsageError extends Error {}

interface GitRules {
  base: string;
  ig: Ignore;
}

function readIgnoreFile(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function rulesOf(dir: string): GitRules | undefined {
  const text = readIgnoreFile(path.join(dir, '.gitignore'));
  return text === undefined ? undefined : { base: dir, ig: ignore().add(text) };
}

/** The `.gitignore` rules that apply above a folder: from its git work tree's root (if any) down to its parent. */
function ancestorRules(dir: string): GitRules[] {
  const chain: string[] = [];
  let d = dir;
  let root: string | undefined;
  for (;;) {
    chain.unshift(d);
    if (fs.existsSync(path.join(d, '.git'))) {
      root = d;
      break;
    }
    const parent = path.dirname(d);
    if (parent === d) break;
    d = parent;
  }
  if (!root) return [];
  const rules: GitRules[] = [];
  const exclude = readIgnoreFile(path.join(root, '.git', 'info', 'exclude'));
  if (exclude) rules.push({ base: root, ig: ignore().add(exclude) });
  for (const a of chain.slice(0, -1)) {
    const r = rulesOf(a);
    if (r) rules.push(r);
  }
  return rules;
}

function gitIgnored(rules: GitRules[], p: string, isDir: boolean): boolean {
  let ignored = false;
  for (const r of rules) {
    const rel = path.relative(r.base, p).split(path.sep).join('/');
    if (!rel || rel.startsWith('..')) continue;
    const t = r.ig.test(isDir ? rel + '/' : rel);
    if (t.ignored) ignored = true;
    else if (t.unignored) ignored = false;
  }
  return ignored;
}

/** A file without an extension whose first line runs Python (`#!/usr/bin/env python3`). */
function isPythonScript(p: string): boolean {
  if (path.extname(p) !== '') return false;
  const head = Buffer.alloc(128);
  let n = 0;
  try {
    const fd = fs.openSync(p, 'r');
    n = fs.readSync(fd, head, 0, head.length, 0);
    fs.closeSync(fd);
  } catch {
    return false;
  }
  return /^#![^\n]*\bpython[0-9.]*\b/.test(head.subarray(0, n).toString('utf8'));
}

/**
 * Files to check under the given paths, in a stable order. A path named explicitly is checked
 * whatever the excludes say; unreadable entries are reported, not fatal.
 */
export function collectFiles(paths: string[], warn: (msg: string) => void, configs?: ConfigFinder): string[] {
  const files: string[] = [];
  const seen = new Set<string>();
  // a file given twice, or reached twice through links, is checked once
  const seenFiles = new Set<string>();
  const add = (p: string): void => {
    let real = p;
    try {
      real = fs.realpathSync(p);
    } catch {
      // checked (and reported) when read
    }
    if (seenFiles.has(real)) return;
    seenFiles.add(real);
    files.push(p);
  };
  const visit = (p: string, rules: GitRules[]): void => {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch (e) {
      warn(`skipped ${p}: ${(e as NodeJS.ErrnoException).code ?? e}`);
      return;
    }
    const config = configs?.forPath(p);
    if (st.isDirectory()) {
      const name = path.basename(p);
      if (name.startsWith('.') || DEFAULT_EXCLUDES.includes(name) || gitIgnored(rules, p, true) || (config && excludedByConfig(config, p, true))) return;
      walk(p, rules);
    } else if (!st.isFile()) {
      if (/\.(pyi?|ipynb)$/.test(p)) warn(`skipped ${p}: not a regular file`);
    } else if (!path.basename(p).startsWith('.') && includedByConfig(config, p) && !gitIgnored(rules, p, false) && !(config && excludedByConfig(config, p, false))) {
      add(p);
    }
  };
  const walk = (dir: string, rules: GitRules[]): void => {
    let real: string;
    try {
      real = fs.realpathSync(dir);
    } catch {
      return;
    }
    if (seen.has(real)) return; // symlink loop
    seen.add(real);
    let entries: string[];
    try {
      const raw = fs.readdirSync(dir, { encoding: 'buffer' });
      entries = [];
      for (const b of raw) {
        const name = b.toString('utf8');
        // a name that is not UTF-8 cannot be opened by its decoded form: said, never silently lost
        if (!Buffer.from(name, 'utf8').equals(b)) {
          let isDir = false;
          try {
            isDir = fs.lstatSync(Buffer.concat([Buffer.from(dir + path.sep), b])).isDirectory();
          } catch {
            // gone: nothing to say about it
          }
          if (/\.(pyi?|ipynb)$/.test(name) || isDir) warn(`skipped ${path.join(dir, name)}: its name is not valid UTF-8`);
          continue;
        }
        entries.push(name);
      }
      entries.sort();
    } catch (e) {
      warn(`skipped ${dir}: ${(e as NodeJS.ErrnoException).code ?? e}`);
      return;
    }
    const own = rulesOf(dir);
    const inner = own ? [...rules, own] : rules;
    for (const e of entries) visit(path.join(dir, e), inner);
  };
  for (const p of paths) {
    let st: fs.Stats;
    try {
      st = fs.statSync(p);
    } catch {
      throw new UsageError(`no such file or folder: ${p}`);
    }
    if (st.isDirectory()) {
      // a folder named explicitly is searched even when the rules above it exclude it (then without those rules)
      const above = ancestorRules(path.resolve(p));
      walk(p, gitIgnored(above, path.resolve(p), true) ? [] : above);
    }
    else if (!st.isFile()) warn(`skipped ${p}: not a regular file`);
    else if (/\.(pyi?|ipynb|whl|zip)$/i.test(p) || isPythonScript(p)) add(p);
    else throw new UsageError(`${p} is not a Python file, a notebook (.ipynb) or an archive (.whl/.zip)`);
  }
  return files;
}
