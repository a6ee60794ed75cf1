/**
 * What the language server watches on disk to notice that a target changed (a `pip install -U`,
 * a `uv sync`). A recursive watch of a `site-packages` folder costs one inotify watch per folder
 * (tens of thousands with torch) and blocks the event loop while it is set up; an upgrade always
 * replaces the package's `*.dist-info` folder (its name holds the version) at the top of the
 * folder that holds the package, so that top level alone is watched, without recursion. What
 * lies deeper (a source checkout switched to another branch) is found by the server's idle
 * re-validation of the files its checks used, and workspace files by the editor's own watcher.
 */
import * as fs from 'fs';
import * as path from 'path';

/**
 * A top-level entry whose change means the installed packages changed: the metadata folders an
 * installer replaces (`*.dist-info`, `*.egg-info`), path files and links (`*.pth`, `*.egg-link`),
 * modules and stubs at the top level, and packages (a folder name) appearing or disappearing.
 * An installer's temporary names (`~pkg`) and `__pycache__` are not changes.
 */
export function isPackageChange(name: string): boolean {
  if (name.startsWith('~') || name === '__pycache__') return false;
  return /\.(dist-info|egg-info|pth|egg-link|py|pyi|so|pyd)$/.test(name) || /^[A-Za-z_][\w-]*$/.test(name);
}

function isInside(file: string, dir: string): boolean {
  const rel = path.relative(path.resolve(dir), path.resolve(file));
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

export interface TargetWatcherOptions {
  /** Called once a burst of changes has settled (500 ms without a new one), with the paths that changed. */
  onChange(changed: string[]): void;
  /** What the server itself writes (its cache): never a change. */
  ownFolder?: () => string | undefined;
  log(message: string): void;
}

export class TargetWatcher {
  private watchers: fs.FSWatcher[] = [];
  private timer: NodeJS.Timeout | undefined;
  private burst = new Set<string>();

  constructor(private readonly opts: TargetWatcherOptions) {}

  /** How many folders are watched. */
  get size(): number {
    return this.watchers.length;
  }

  /** Watches the top level of each folder in `paths` (replacing what was watched before). */
  watch(paths: string[]): void {
    this.close();
    for (const p of [...new Set(paths.map((x) => path.resolve(x)))]) {
      try {
        if (!fs.statSync(p).isDirectory()) continue;
        // a whole file system changes all the time (logs, temporary files): it is re-validated in
        // idle time instead of being watched
        if (path.parse(p).root === p) {
          this.opts.log(`not watching ${p} (the root of a file system): its files are re-validated in idle time`);
          continue;
        }
        const w = fs.watch(p, { recursive: false }, (_event, file) => {
          const name = file ? String(file) : undefined;
          if (name !== undefined && !isPackageChange(name)) return;
          const changed = name !== undefined ? path.join(p, name) : p;
          // what the server itself writes (its cache, when it lies inside a target) is no change
          const own = this.opts.ownFolder?.();
          if (own && (isInside(changed, own) || isInside(own, changed))) return;
          this.changed(changed);
        });
        w.on('error', () => undefined);
        this.watchers.push(w);
      } catch (e) {
        this.opts.log(`cannot watch ${p} for changes: ${(e as Error).message}`);
      }
    }
  }

  /** A change seen by this watcher or reported by the editor's: handled once the burst settles. */
  changed(file: string): void {
    if (this.burst.size < 1000) this.burst.add(file);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const changed = [...this.burst];
      this.burst.clear();
      this.opts.onChange(changed);
    }, 500);
  }

  close(): void {
    for (const w of this.watchers) w.close();
    this.watchers = [];
    clearTimeout(this.timer);
    this.burst.clear();
  }
}
