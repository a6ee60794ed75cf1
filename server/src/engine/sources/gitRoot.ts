import * as pep440 from '@renovatebot/pep440';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import { normalizeProject } from './requirement';
import { buildFilledMatcher, decodeSource, type SourceRoot, TargetError } from './sourceRoot';

const MAX_BUFFER = 1 << 30;

/**
 * Folders of a source checkout that are never the library itself: on Python's path they would
 * shadow the user's own `tests`, `benchmarks`... packages.
 */
const NOT_THE_LIBRARY = new Set(['tests', 'test', 'testing', 'benchmarks', 'benchmark', 'examples', 'example', 'docs', 'doc', 'tools', 'scripts', 'ci', 'build', 'dist', 'csrc', 'cmake', 'requirements', 'docker', 'third_party']);

/**
 * The environment git runs in: no `GIT_*` variable of the caller's (inside a git hook or `git
 * rebase --exec`, `GIT_DIR`, `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_OBJECT_DIRECTORY`... would
 * silently point the target at another repository), and never a prompt.
 */
export function cleanGitEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!/^GIT_/i.test(k)) out[k] = v;
  out.GIT_TERMINAL_PROMPT = '0';
  return out;
}

/**
 * A git revision read with plumbing, without a checkout: `git:REPO@REF`, where REPO is a work
 * tree or a bare repository. The tree is listed once; the Python files' contents are read in one
 * batch the first time any file is needed. Its import root is what an installed copy would put on
 * Python's path: `src/` when the library lives there, else the top level without the folders that
 * are never the library (tests, benchmarks, examples...).
 */
export class GitRoot implements SourceRoot {
  readonly label: string;
  private readonly blobs = new Map<string, string>();
  private readonly dirs = new Map<string, Set<string>>();
  private contents?: Map<string, Buffer>;
  /** Where the import root is inside the repository ('' or 'src/'). */
  private prefix = '';

  constructor(readonly repo: string, readonly ref: string) {
    this.label = `git:${repo}@${ref}`;
    if (!fs.existsSync(repo)) throw new TargetError(`git repository does not exist: ${repo}`);
    const commit = this.git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
    if (commit.status !== 0) throw new TargetError(`git revision does not exist: ${ref} in ${repo}`);
    const tree = this.git(['ls-tree', '-r', '-z', '--full-tree', commit.stdout.toString().trim()]);
    if (tree.status !== 0) throw new TargetError(`cannot list ${this.label}: ${tree.stderr.toString().trim().split('\n')[0]}`);
    this.dirs.set('', new Set());
    for (const entry of tree.stdout.toString('utf8').split('\0')) {
      if (!entry) continue;
      // "<mode> <type> <object>\t<path>"
      const tab = entry.indexOf('\t');
      const [, type, object] = entry.slice(0, tab).split(' ');
      const path = entry.slice(tab + 1);
      if (type !== 'blob') continue;
      this.blobs.set(path, object);
      const parts = path.split('/');
      for (let i = 0; i < parts.length; i++) {
        const parent = parts.slice(0, i).join('/');
        let set = this.dirs.get(parent);
        if (!set) this.dirs.set(parent, (set = new Set()));
        set.add(parts[i]);
        if (i < parts.length - 1 && !this.dirs.has(parts.slice(0, i + 1).join('/'))) this.dirs.set(parts.slice(0, i + 1).join('/'), new Set());
      }
    }
    this.gitignore = this.blobs.get('.gitignore');
    this.pyproject = this.blobs.get('pyproject.toml');
    this.narrowToImportRoot();
  }

  /** The blob of the repository's top-level `pyproject.toml`. */
  private readonly pyproject?: string;

  /** See `SourceRoot.taggedVersion`: the revision is a tag that reads as a PEP 440 version, and the project's name is the package's. */
  taggedVersion(top: string): string | undefined {
    const m = /^(?:refs\/tags\/)?v?(\d[0-9A-Za-z.+!_-]*)$/.exec(this.ref);
    if (!m || !this.pyproject || pep440.valid(m[1]) === null) return undefined;
    if (this.projectName === undefined) {
      // the name in the [project] table, read once (a revision does not change)
      const r = this.git(['cat-file', '-p', this.pyproject]);
      const project = r.status === 0 ? /^\[project\][^\[]*?^name\s*=\s*["']([^"']+)["']/ms.exec(r.stdout.toString('utf8')) : null;
      this.projectName = project ? normalizeProject(project[1]) : '';
    }
    return this.projectName !== '' && this.projectName === normalizeProject(top) ? m[1] : undefined;
  }

  /** The project's name in the revision's `pyproject.toml` (normalised), '' for none; read when first asked. */
  private projectName?: string;

  /** The blob of the repository's top-level `.gitignore`. */
  private gitignore?: string;

  private isPackageDir(rel: string): boolean {
    return this.blobs.has(`${rel}/__init__.py`) || this.blobs.has(`${rel}/__init__.pyi`);
  }

  /** Keeps only what Python would import from an installed copy (see the class comment). */
  private narrowToImportRoot(): void {
    const top = this.dirs.get('') ?? new Set<string>();
    const srcHasCode = [...(this.dirs.get('src') ?? [])].some((e) => /\.pyi?$/.test(e) || this.isPackageDir(`src/${e}`));
    if (srcHasCode) {
      this.prefix = 'src/';
      const blobs = new Map<string, string>();
      for (const [p, o] of this.blobs) if (p.startsWith('src/')) blobs.set(p.slice(4), o);
      const dirs = new Map<string, Set<string>>();
      for (const [p, set] of this.dirs) {
        if (p === 'src') dirs.set('', set);
        else if (p.startsWith('src/')) dirs.set(p.slice(4), set);
      }
      this.blobs.clear();
      this.dirs.clear();
      for (const [p, o] of blobs) this.blobs.set(p, o);
      for (const [p, set] of dirs) this.dirs.set(p, set);
      return;
    }
    const hidden = [...top].filter((e) => NOT_THE_LIBRARY.has(e.toLowerCase()) && this.dirs.has(e));
    // only beside a library: a repository whose only package is named `tools` keeps it
    const library = [...top].some((e) => !hidden.includes(e) && (this.isPackageDir(e) || /\.pyi?$/.test(e)));
    if (hidden.length === 0 || !library) return;
    for (const h of hidden) top.delete(h);
    for (const p of [...this.blobs.keys()]) if (hidden.some((h) => p.startsWith(`${h}/`))) this.blobs.delete(p);
    for (const p of [...this.dirs.keys()]) if (hidden.some((h) => p === h || p.startsWith(`${h}/`))) this.dirs.delete(p);
  }

  /** Parses `git:REPO@REF`; the last `@` separates the revision. */
  static parse(spec: string): { repo: string; ref: string } | undefined {
    if (!spec.startsWith('git:')) return undefined;
    const rest = spec.slice(4);
    const at = rest.lastIndexOf('@');
    if (at <= 0 || at === rest.length - 1) return undefined;
    return { repo: rest.slice(0, at), ref: rest.slice(at + 1) };
  }

  private git(args: string[], input?: string): { status: number | null; stdout: Buffer; stderr: Buffer } {
    const r = spawnSync('git', ['-C', this.repo, ...args], { input, maxBuffer: MAX_BUFFER, env: cleanGitEnv() });
    if (r.error) throw new TargetError(`cannot run git for ${this.label}: ${r.error.message}`);
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** Reads every .py/.pyi blob of the revision in one `git cat-file --batch`. */
  private load(): Map<string, Buffer> {
    if (this.contents) return this.contents;
    const paths = [...this.blobs.keys()].filter((p) => /\.pyi?$/.test(p));
    const r = this.git(['cat-file', '--batch'], paths.map((p) => this.blobs.get(p)).join('\n') + '\n');
    if (r.status !== 0) throw new TargetError(`cannot read ${this.label}: ${r.stderr.toString().trim().split('\n')[0]}`);
    const out = r.stdout;
    const contents = new Map<string, Buffer>();
    let pos = 0;
    for (const p of paths) {
      const nl = out.indexOf(10, pos);
      const header = out.toString('utf8', pos, nl).split(' ');
      const size = Number(header[2]);
      if (header[1] !== 'blob' || !Number.isFinite(size)) throw new TargetError(`cannot read ${p} from ${this.label}`);
      contents.set(p, out.subarray(nl + 1, nl + 1 + size));
      pos = nl + 1 + size + 1;
    }
    this.contents = contents;
    return contents;
  }

  readText(rel: string): string | undefined {
    if (!this.blobs.has(rel)) return undefined;
    const b = this.load().get(rel);
    if (b) return decodeSource(b);
    const r = this.git(['cat-file', 'blob', this.blobs.get(rel)!]);
    return r.status === 0 ? decodeSource(r.stdout) : undefined;
  }

  listDir(rel: string): string[] | undefined {
    const s = this.dirs.get(rel);
    return s ? [...s] : undefined;
  }

  isFile(rel: string): boolean {
    return this.blobs.has(rel);
  }

  isDir(rel: string): boolean {
    return this.dirs.has(rel);
  }

  fileVersion(rel: string): string | undefined {
    return this.blobs.get(rel);
  }

  displayPath(rel: string): string {
    return `${this.label}:${this.prefix}${rel}`;
  }

  private ignored?: ((rel: string) => boolean) | null;

  buildFilled(rel: string): boolean {
    if (this.ignored === undefined) {
      const object = this.gitignore;
      const r = object ? this.git(['cat-file', 'blob', object]) : undefined;
      this.ignored = buildFilledMatcher(r && r.status === 0 ? r.stdout.toString('utf8') : undefined) ?? null;
    }
    return !!this.ignored && this.ignored(this.prefix + rel);
  }
}
