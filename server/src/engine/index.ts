/**
 * The engine's front door: open a target, check files against it. The language server and the
 * CLI are thin adapters over this; nothing here knows about LSP or VS Code.
 */
import * as path from 'path';
import { CancelledError, Checker, type CheckResult } from './check';
import { initParser } from './parser';
import { Program } from './program';
import { DirectoryRoot } from './sources/directoryRoot';
import { Target, TargetError } from './sources/target';

export { CancelledError, TargetError };
export type { CheckResult };
export * from './types';

export interface EngineOptions {
  /** Target paths: folders on the import path, or .whl/.zip archives. */
  targets: string[];
  /** Folder holding the wasm files, when they ship beside a bundle. */
  wasmDir?: string;
}

export class Engine {
  readonly program: Program;
  readonly checker: Checker;

  private constructor(readonly target: Target) {
    this.program = new Program(target);
    this.checker = new Checker(this.program);
  }

  /** Opens the targets; throws TargetError with a one-line reason when one cannot be used. */
  static async open(opts: EngineOptions): Promise<Engine> {
    await initParser(opts.wasmDir);
    return new Engine(Target.open(opts.targets));
  }

  /**
   * Checks one file's text. A file inside a target folder is checked as that module (so that its
   * relative imports resolve); any other file is checked as a script.
   */
  check(text: string, file: string, isCancelled?: () => boolean, module?: { name: string; isPackage: boolean }): CheckResult {
    this.program.nextGeneration();
    const mod = module ?? this.moduleNameOf(file);
    return this.checker.check(text, { file, moduleName: mod?.name, isPackage: mod?.isPackage, isCancelled });
  }

  /** The dotted module name of a path relative to an import root (`a/b/__init__.py` is `a.b`). */
  static moduleNameOfRelative(rel: string): { name: string; isPackage: boolean } | undefined {
    if (!/\.pyi?$/.test(rel)) return undefined;
    const parts = rel.replace(/\.pyi?$/, '').split(/[\\/]/);
    const isPackage = parts[parts.length - 1] === '__init__';
    if (isPackage) parts.pop();
    if (parts.length === 0 || !parts.every((p) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(p))) return undefined;
    return { name: parts.join('.'), isPackage };
  }

  /** The dotted module name of a file that lies inside one of the target's folders. */
  moduleNameOf(file: string): { name: string; isPackage: boolean } | undefined {
    const abs = path.resolve(file);
    for (const root of this.target.roots) {
      if (!(root instanceof DirectoryRoot)) continue;
      const rel = path.relative(path.resolve(root.dir), abs);
      if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) continue;
      const mod = Engine.moduleNameOfRelative(rel);
      if (mod) return mod;
    }
    return undefined;
  }

  get modulesRead(): number {
    return this.program.filesRead.size;
  }
}
