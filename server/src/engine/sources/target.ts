import * as fs from 'fs';
import { DirectoryRoot } from './directoryRoot';
import { GitRoot } from './gitRoot';
import { type SourceRoot, TargetError } from './sourceRoot';
import { ZipRoot } from './zipRoot';

export { TargetError };

/** Where one module's source lives. */
export interface ModuleFile {
  name: string;
  root: SourceRoot;
  /** The file read for signatures (`.pyi` wins over `.py`); undefined for a namespace package or a compiled module. */
  rel: string | undefined;
  isPackage: boolean;
  /** Folders searched for submodules (several for a namespace package spread over roots). */
  packageDirs: Array<{ root: SourceRoot; rel: string }>;
  /** A compiled extension module: it exists, but nothing is known about its names. */
  compiled: boolean;
  /** Made by the checkout's build (see `SourceRoot.buildFilled`): treated as a compiled module. */
  buildFilled?: boolean;
}

export const COMPILED = /\.(cpython-[^.]*\.so|abi3\.so|so|pyd)$/;

/** Opens one target path given by a user: a folder, a `.whl` / `.zip` archive, or `git:REPO@REF`. */
export function openRoot(spec: string): SourceRoot {
  const git = GitRoot.parse(spec);
  if (git) return new GitRoot(git.repo, git.ref);
  if (spec.startsWith('git:')) throw new TargetError(`a git target is written git:REPO@REF, not ${spec}`);
  let st: fs.Stats | undefined;
  try {
    st = fs.statSync(spec);
  } catch {
    throw new TargetError(`target path does not exist: ${spec}`);
  }
  if (st.isFile()) {
    if (/\.(whl|zip)$/i.test(spec)) return new ZipRoot(spec);
    throw new TargetError(`target is a file but not a .whl or .zip archive: ${spec}`);
  }
  return new DirectoryRoot(spec, true);
}

/** Folders of the user's own code that exist, as import roots searched after a target's. */
export function openUserRoots(folders: string[]): SourceRoot[] {
  const user: SourceRoot[] = [];
  for (const dir of folders) {
    try {
      if (fs.statSync(dir).isDirectory()) user.push(new DirectoryRoot(dir));
    } catch {
      // a folder that is not there holds no user module
    }
  }
  return user;
}

/**
 * A target: one or more import roots, searched in order the way Python's path finder does.
 * Module lookups are memoised; `invalidate` clears them when files change.
 */
export class Target {
  private readonly cache = new Map<string, ModuleFile | null>();

  /** Versions the user states for the target's top-level packages (`--target-version vllm=0.16.0`), by package name. */
  statedVersions = new Map<string, string>();

  /**
   * `userRoots`: folders of the user's own code, searched after the target's roots for top-level
   * names the target lacks (a user module never shadows the target's own).
   */
  constructor(
    readonly roots: SourceRoot[],
    readonly userRoots: SourceRoot[] = [],
  ) {}

  static open(specs: string[], userFolders: string[] = []): Target {
    if (specs.length === 0) throw new TargetError('no target given');
    return new Target(specs.map(openRoot), openUserRoots(userFolders));
  }

  /** The module was found in a folder of the user's own code, not in the target. */
  isUser(file: ModuleFile | null): boolean {
    return !!file && this.userRoots.includes(file.root);
  }

  get label(): string {
    return this.roots.map((r) => r.label).join(', ');
  }

  invalidate(): void {
    this.cache.clear();
    this.owned.clear();
  }

  /** The lookups made since the last `invalidate`. */
  lookups(): IterableIterator<[string, ModuleFile | null]> {
    return this.cache.entries();
  }

  /** Finds a module by dotted name, or null when the target does not have it. */
  findModule(name: string): ModuleFile | null {
    const hit = this.cache.get(name);
    if (hit !== undefined) return hit;
    const found = this.lookup(name);
    this.cache.set(name, found);
    return found;
  }

  /** True when the target's own folders (not the user's) have the top-level package or module `name`. */
  ownsTopLevel(name: string): boolean {
    // looked up apart from `findModule`, whose lookups say what a check depended on
    const top = name.split('.')[0];
    let owned = this.owned.get(top);
    if (owned === undefined) {
      owned = findIn(top, top, this.roots.map((root) => ({ root, rel: '' }))) !== null;
      this.owned.set(top, owned);
    }
    return owned;
  }

  private readonly owned = new Map<string, boolean>();

  /** True when the target has the top-level package or module of `name`. */
  hasTopLevel(name: string): boolean {
    return this.findModule(name.split('.')[0]) !== null;
  }

  private lookup(name: string): ModuleFile | null {
    const dot = name.lastIndexOf('.');
    if (dot < 0) {
      const found = findIn(name, name, this.roots.map((root) => ({ root, rel: '' })));
      if (found || this.userRoots.length === 0) return found;
      const user = findIn(name, name, this.userRoots.map((root) => ({ root, rel: '' })));
      // a user folder's plain subfolder (no __init__) is no package of the user's
      return user && (user.rel !== undefined || user.compiled) ? user : null;
    }
    const parent = this.findModule(name.slice(0, dot));
    if (parent?.buildFilled) return { ...parent, name };
    if (!parent || !parent.isPackage) return null;
    return findIn(name, name.slice(dot + 1), parent.packageDirs);
  }
}

function join(dir: string, name: string): string {
  return dir ? `${dir}/${name}` : name;
}

function findIn(fullName: string, last: string, dirs: Array<{ root: SourceRoot; rel: string }>): ModuleFile | null {
  const namespaceDirs: Array<{ root: SourceRoot; rel: string }> = [];
  for (const { root, rel } of dirs) {
    const pkg = join(rel, last);
    if (root.isDir(pkg)) {
      for (const init of ['__init__.pyi', '__init__.py']) {
        if (root.isFile(join(pkg, init))) {
          return { name: fullName, root, rel: join(pkg, init), isPackage: true, packageDirs: [{ root, rel: pkg }], compiled: false };
        }
      }
      namespaceDirs.push({ root, rel: pkg });
    }
    for (const ext of ['.pyi', '.py']) {
      if (root.isFile(join(rel, last + ext))) {
        return { name: fullName, root, rel: join(rel, last + ext), isPackage: false, packageDirs: [], compiled: false };
      }
    }
    const entries = root.listDir(rel);
    if (entries && entries.some((e) => e.startsWith(last + '.') && COMPILED.test(e) && e.split('.')[0] === last)) {
      return { name: fullName, root, rel: undefined, isPackage: false, packageDirs: [], compiled: true };
    }
  }
  if (namespaceDirs.length > 0) {
    return { name: fullName, root: namespaceDirs[0].root, rel: undefined, isPackage: true, packageDirs: namespaceDirs, compiled: false };
  }
  for (const { root, rel } of dirs) {
    if (root.buildFilled?.(join(rel, last))) return { name: fullName, root, rel: undefined, isPackage: false, packageDirs: [], compiled: true, buildFilled: true };
  }
  return null;
}
