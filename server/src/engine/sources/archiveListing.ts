/**
 * What the two archive readers (a local zip or wheel, a wheel read by ranges) share: the
 * members and folders of a central directory, and the SourceRoot questions answered from them.
 */
import { decodeSource, type SourceRoot } from './sourceRoot';

export abstract class ArchiveListing<E extends { crc: number; size: number }> implements SourceRoot {
  abstract readonly label: string;
  protected readonly entries = new Map<string, E>();
  protected readonly dirs = new Map<string, Set<string>>([['', new Set()]]);

  abstract readBytes(rel: string): Buffer | undefined;
  abstract displayPath(rel: string): string;

  /** Records a member (a name ending in `/` is a folder) and every folder above it. */
  protected addPath(name: string, entry: E): void {
    const isDir = name.endsWith('/');
    const clean = isDir ? name.slice(0, -1) : name;
    if (!clean) return;
    if (!isDir) this.entries.set(clean, entry);
    const parts = clean.split('/');
    for (let i = 0; i < parts.length; i++) {
      const parent = parts.slice(0, i).join('/');
      let set = this.dirs.get(parent);
      if (!set) this.dirs.set(parent, (set = new Set()));
      set.add(parts[i]);
      if (i < parts.length - 1 || isDir) {
        const self = parts.slice(0, i + 1).join('/');
        if (!this.dirs.has(self)) this.dirs.set(self, new Set());
      }
    }
  }

  readText(rel: string): string | undefined {
    const bytes = this.readBytes(rel);
    return bytes ? decodeSource(bytes) : undefined;
  }

  listDir(rel: string): string[] | undefined {
    const set = this.dirs.get(rel);
    return set ? [...set] : undefined;
  }

  isFile(rel: string): boolean {
    return this.entries.has(rel);
  }

  isDir(rel: string): boolean {
    return this.dirs.has(rel);
  }

  fileVersion(rel: string): string | undefined {
    const e = this.entries.get(rel);
    return e ? `${e.crc}:${e.size}` : undefined;
  }
}
