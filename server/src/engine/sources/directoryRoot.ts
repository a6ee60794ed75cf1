import * as fs from 'fs';
import * as path from 'path';
import { buildFilledMatcher, decodeSource, MAX_SOURCE_BYTES, type SourceRoot, SourceTooLargeError, TargetError } from './sourceRoot';

/** The buffer `mayContain` reads files into, shared by every scan. */
const SCAN_BUFFER = Buffer.alloc(256 * 1024);

/** A folder on the import path: a site-packages folder or a source checkout. */
export class DirectoryRoot implements SourceRoot {
  readonly label: string;

  /** `asTarget`: a folder given as a target must hold some module or package (a user's folder may be empty yet). */
  constructor(readonly dir: string, asTarget = false) {
    this.label = dir;
    let st: fs.Stats;
    try {
      st = fs.statSync(dir);
    } catch (e) {
      throw new TargetError(`target path does not exist: ${dir}`);
    }
    if (!st.isDirectory()) throw new TargetError(`target path is not a folder: ${dir}`);
    let names: string[];
    try {
      names = fs.readdirSync(dir);
    } catch (e) {
      throw new TargetError(`target folder cannot be read: ${dir} (${(e as NodeJS.ErrnoException).code ?? e})`);
    }
    // a folder with no module and no folder at all (a package, or a namespace package) gives every
    // import to some other package: nothing would be checked, and "0 findings" would mislead
    const modules = names.some((n) => /\.(py|pyi|so|pyd)$/.test(n) || (!n.startsWith('.') && DirectoryRoot.isFolder(path.join(dir, n))));
    if (asTarget && !modules) throw new TargetError(`target folder holds no Python module or package: ${dir}`);
  }

  private static isFolder(p: string): boolean {
    try {
      return fs.statSync(p).isDirectory();
    } catch {
      return false;
    }
  }

  private abs(rel: string): string {
    return rel ? path.join(this.dir, rel) : this.dir;
  }

  mayContain(rel: string, needles: string[]): boolean | undefined {
    let fd: number;
    try {
      fd = fs.openSync(this.abs(rel), 'r');
    } catch {
      return undefined;
    }
    try {
      // one buffer for every scan: the target's files are read in chunks that overlap by the
      // longest needle, and no text is made of them
      const keep = Math.max(...needles.map((n) => n.length)) - 1;
      const bytes = needles.map((n) => Buffer.from(n, 'latin1'));
      let carried = 0;
      for (;;) {
        const n = fs.readSync(fd, SCAN_BUFFER, carried, SCAN_BUFFER.length - carried, null);
        const end = carried + n;
        const view = SCAN_BUFFER.subarray(0, end);
        if (bytes.some((b) => view.indexOf(b) >= 0)) return true;
        if (n === 0) return false;
        carried = Math.min(keep, end);
        SCAN_BUFFER.copy(SCAN_BUFFER, 0, end - carried, end);
      }
    } catch {
      return undefined;
    } finally {
      fs.closeSync(fd);
    }
  }

  readText(rel: string): string | undefined {
    let bytes: Buffer;
    try {
      const st = fs.statSync(this.abs(rel));
      if (!st.isFile()) return undefined;
      // not read at all: the parser would decline it anyway
      if (st.size > MAX_SOURCE_BYTES) throw new SourceTooLargeError(st.size);
      bytes = fs.readFileSync(this.abs(rel));
    } catch (e) {
      if (e instanceof SourceTooLargeError) throw e;
      return undefined;
    }
    return decodeSource(bytes);
  }

  listDir(rel: string): string[] | undefined {
    try {
      return fs.readdirSync(this.abs(rel));
    } catch {
      return undefined;
    }
  }

  isFile(rel: string): boolean {
    try {
      // a missing file is the common answer of a module search: no exception for it
      return fs.statSync(this.abs(rel), { throwIfNoEntry: false })?.isFile() ?? false;
    } catch {
      return false;
    }
  }

  isDir(rel: string): boolean {
    try {
      return fs.statSync(this.abs(rel), { throwIfNoEntry: false })?.isDirectory() ?? false;
    } catch {
      return false;
    }
  }

  fileVersion(rel: string): string | undefined {
    try {
      const st = fs.statSync(this.abs(rel), { throwIfNoEntry: false });
      if (!st) return undefined;
      return `${st.size}:${st.mtimeMs}:${st.ctimeMs}:${st.ino}`;
    } catch {
      return undefined;
    }
  }

  private ignored?: ((rel: string) => boolean) | null;

  /** A source checkout's build-made paths, from the `.gitignore` of the folder (a checkout's root). */
  buildFilled(rel: string): boolean {
    if (this.ignored === undefined) {
      let text: string | undefined;
      try {
        text = fs.readFileSync(path.join(this.dir, '.gitignore'), 'utf8');
      } catch {
        text = undefined;
      }
      this.ignored = buildFilledMatcher(text) ?? null;
    }
    return !!this.ignored && this.ignored(rel);
  }

  realDir(rel: string): string | undefined {
    try {
      return fs.realpathSync(this.abs(rel));
    } catch {
      return undefined;
    }
  }

  displayPath(rel: string): string {
    return this.abs(rel);
  }
}
