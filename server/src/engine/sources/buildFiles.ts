/**
 * What a target's build adds to its source tree: compiled extension modules and folders the
 * build copies Python files into. A source checkout lacks them; its build files name them
 * (setup.py, CMakeLists.txt and cmake/*.cmake, pyproject.toml). Read by pattern, never run.
 */
import * as fs from 'fs';
import * as path from 'path';
import { DirectoryRoot } from './directoryRoot';
import type { SourceRoot } from './sourceRoot';

export interface BuildFacts {
  /** Dotted names of extension modules the build compiles. */
  extensions: Set<string>;
  /** Dotted names of packages the build copies modules into. */
  copied: Set<string>;
  /** Dotted names of modules the build writes (a version file: `write_to`, `version-file`). */
  written: Set<string>;
  /** The build files read, for messages. */
  files: string[];
}

const MODULE = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/;

/** `a/b/c` or `a/b/c/` (a folder below the root) as `a.b.c`; undefined for anything else. */
function folderModule(path: string): string | undefined {
  const p = path.replace(/^\.\//, '').replace(/\/+$/, '');
  const m = p.replace(/\//g, '.');
  return p.includes('/') && MODULE.test(m) ? m : undefined;
}

/** setup.py: `Extension("a.b", ...)`, `CMakeExtension(name="a.b")`, and folder paths written as string literals. */
function fromSetupPy(text: string, facts: BuildFacts): void {
  for (const m of text.matchAll(/\b\w*Extension\s*\(\s*(?:name\s*=\s*)?(['"])([\w.]+)\1/g)) if (MODULE.test(m[2])) facts.extensions.add(m[2]);
  // `"pkg/sub"` as a literal: a folder the script writes into (a copy destination)
  for (const m of text.matchAll(/(['"])(\w+(?:\/\w+)+\/?)\1/g)) {
    const mod = folderModule(m[2]);
    if (mod) facts.copied.add(mod);
  }
}

/** CMake: `install(DIRECTORY|FILES ... DESTINATION a/b)`, `install(TARGETS t ... DESTINATION a)`, `cmd(t DESTINATION a)`. */
function fromCMake(text: string, facts: BuildFacts): void {
  const code = text.replace(/#[^\n]*/g, '');
  for (const m of code.matchAll(/\binstall\s*\(([^)]*)\)/gi)) {
    const body = m[1];
    const dest = /\bDESTINATION\s+("?)([\w./]+)\1/.exec(body)?.[2];
    if (!dest) continue;
    const pkg = dest.replace(/\/+$/, '').replace(/\//g, '.');
    if (!MODULE.test(pkg)) continue;
    const targets = /^\s*TARGETS\s+([\w\s]+?)\s+(?:LIBRARY|RUNTIME|ARCHIVE|DESTINATION|COMPONENT|EXPORT)\b/.exec(body);
    if (targets) for (const t of targets[1].split(/\s+/)) facts.extensions.add(`${pkg}.${t}`);
    else if (/^\s*(DIRECTORY|FILES|PROGRAMS)\b/.test(body) && dest.includes('/')) facts.copied.add(pkg);
  }
  // a project function that places a target: `define_extension_target(_C DESTINATION pkg ...)`
  for (const m of code.matchAll(/\b(\w+)\s*\(\s*(\w+)\s+DESTINATION\s+([\w/]+)/g)) {
    if (m[1].toLowerCase() === 'install') continue;
    const pkg = m[3].replace(/\/+$/, '').replace(/\//g, '.');
    if (MODULE.test(pkg)) facts.extensions.add(`${pkg}.${m[2]}`);
  }
}

/**
 * The module a build writes at `path` (relative to the build files' folder), with `prefix` the
 * root's place below that folder (`src/` in a src layout): `src/_pytest/_version.py` is
 * `_pytest._version`.
 */
function writtenModule(path: string, prefix: string): string | undefined {
  const p = path.replace(/^\.\//, '');
  if (!p.endsWith('.py') || !p.startsWith(prefix)) return undefined;
  const mod = p.slice(prefix.length, -3).replace(/\//g, '.');
  return MODULE.test(mod) ? mod : undefined;
}

/** pyproject.toml: setuptools `ext-modules` names, maturin `module-name`, version files (setuptools-scm, hatch-vcs). */
function fromPyproject(text: string, facts: BuildFacts, prefix = ''): void {
  for (const m of text.matchAll(/^\s*(?:write_to|version_file|version-file)\s*=\s*(['"])([^'"]+)\1/gm)) {
    const mod = writtenModule(m[2], prefix);
    if (mod) facts.written.add(mod);
  }
  const ext = /ext-modules/.exec(text);
  if (ext) for (const m of text.slice(ext.index).matchAll(/\bname\s*=\s*(['"])([\w.]+)\1/g)) if (MODULE.test(m[2]) && m[2].includes('.')) facts.extensions.add(m[2]);
  for (const m of text.matchAll(/\bmodule-name\s*=\s*(['"])([\w.]+)\1/g)) if (MODULE.test(m[2])) facts.extensions.add(m[2]);
}

/**
 * The build facts of a root (its top folder holds the build files); empty when it has none.
 * `outer` reads the build files of the folder above a src layout's `src` root.
 */
export function readBuildFacts(root: SourceRoot, outer?: (name: string) => string | undefined): BuildFacts {
  const facts: BuildFacts = { extensions: new Set(), copied: new Set(), written: new Set(), files: [] };
  // the same files in the folder above a src layout (the paths they name start with `src/`),
  // then in the root
  const parsers: Array<[string, (text: string, facts: BuildFacts, prefix: string) => void]> = [['setup.py', fromSetupPy], ['pyproject.toml', fromPyproject], ['CMakeLists.txt', fromCMake]];
  for (const [name, parse] of outer ? parsers : []) {
    const text = outer!(name);
    if (text === undefined) continue;
    facts.files.push(`../${name}`);
    parse(text, facts, 'src/');
  }
  const read = (rel: string, parse: (text: string, facts: BuildFacts, prefix: string) => void): void => {
    const text = root.isFile(rel) ? root.readText(rel) : undefined;
    if (text === undefined) return;
    facts.files.push(rel);
    parse(text, facts, '');
  };
  for (const [name, parse] of parsers) read(name, parse);
  if (facts.files.includes('CMakeLists.txt')) {
    const walk = (rel: string, depth: number): void => {
      for (const e of root.listDir(rel) ?? []) {
        const child = `${rel}/${e}`;
        if (e.endsWith('.cmake') || e === 'CMakeLists.txt') read(child, fromCMake);
        else if (depth < 3 && !e.includes('.') && root.isDir(child)) walk(child, depth + 1);
      }
    };
    if (root.isDir('cmake')) walk('cmake', 0);
  }
  return facts;
}

/** The files whose identity the facts depend on (the cmake folder is not re-listed). */
export const BUILD_FILES = ['setup.py', 'pyproject.toml', 'CMakeLists.txt'];

/**
 * For a src layout (a target folder named `src`), a reader of the build files in the folder above
 * it, and their versions; undefined for any other root.
 */
export function outerBuildFiles(root: SourceRoot): { read: (name: string) => string | undefined; versions: () => string } | undefined {
  if (!(root instanceof DirectoryRoot) || path.basename(root.dir) !== 'src') return undefined;
  const dir = path.dirname(root.dir);
  return {
    read: (name) => {
      try {
        return fs.readFileSync(path.join(dir, name), 'utf8');
      } catch {
        return undefined;
      }
    },
    versions: () =>
      BUILD_FILES.map((f) => {
        try {
          return String(fs.statSync(path.join(dir, f)).mtimeMs);
        } catch {
          return '-';
        }
      }).join('\0'),
  };
}
