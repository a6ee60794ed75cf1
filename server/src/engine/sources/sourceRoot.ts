/** Where a target's files come from: a folder, an archive, a git revision. */
export interface SourceRoot {
  /** How the root is shown to users. */
  readonly label: string;
  /** Contents of a file relative to the root (`pkg/mod.py`), or undefined when there is none. */
  readText(rel: string): string | undefined;
  /** Names in a folder relative to the root ('' is the root), or undefined when it is no folder. */
  listDir(rel: string): string[] | undefined;
  isFile(rel: string): boolean;
  isDir(rel: string): boolean;
  /** A value that changes whenever the file changes (size and mtime, or a content hash). */
  fileVersion(rel: string): string | undefined;
  /** The path shown for a file of this root in findings and hovers. */
  displayPath(rel: string): string;
  /** A folder's real path, for roots whose folders may be links (cycle checks). */
  realDir?(rel: string): string | undefined;
  /**
   * Whether a path of a source checkout is made by its build (its `.gitignore` names it, as
   * vLLM's does for `vllm/vllm_flash_attn/*`): a module there exists once installed, with names
   * nobody can see in the source.
   */
  buildFilled?(rel: string): boolean;
  /**
   * The version the root's own name says of top-level package `top`, if any: a git revision that is
   * a version tag (`v0.16.0`) of a repository whose `pyproject.toml` names the project `top`.
   */
  taggedVersion?(top: string): string | undefined;
  /**
   * Whether the file's bytes hold any of these ASCII strings, read without keeping its text (a
   * scan of the whole target that decodes only the files that match); undefined when it cannot
   * tell (no such file).
   */
  mayContain?(rel: string, needles: string[]): boolean | undefined;
}

/**
 * The `.gitignore` patterns of a checkout's root that name paths inside it (`pkg/gen/*`,
 * `/pkg/_version.py`): anchored patterns with a slash before their end. Patterns that match
 * anywhere (`*.so`, `build/`) and negations are left out: they say nothing about one package.
 */
export function buildFilledMatcher(gitignore: string | undefined): ((rel: string) => boolean) | undefined {
  if (!gitignore) return undefined;
  const res: RegExp[] = [];
  for (const raw of gitignore.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith('!')) continue;
    const body = line.replace(/^\//, '').replace(/\/$/, '');
    if (!body.includes('/') && !line.startsWith('/')) continue;
    if (!/^[A-Za-z_]/.test(body)) continue; // `**/x`, `*/x`: not one package's
    const re = body
      .split('/')
      .map((part) => (part === '**' ? '.*' : part.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')))
      .join('/');
    res.push(new RegExp(`^${re}(/.*)?$`));
  }
  if (res.length === 0) return undefined;
  return (rel) => [rel, `${rel}/__init__.py`, `${rel}.py`].some((c) => res.some((r) => r.test(c)));
}

/**
 * The largest source parsed, in characters, and the largest source file read, in bytes.
 * tree-sitter's wasm memory is bounded: a file of about 20 MB aborts it (and every later parse with
 * it), and 8 MB already takes 1.5 GB. The largest real modules are a few hundred KB.
 */
export const MAX_SOURCE_CHARS = 8 * 1024 * 1024;
export const MAX_SOURCE_BYTES = MAX_SOURCE_CHARS;

/** A file declined for its size; callers report it (skipped, counted), never as clean. */
export class SourceTooLargeError extends Error {
  constructor(readonly size: number, unit = 'bytes') {
    super(`too large to parse (${size} ${unit}; the limit is ${unit === 'bytes' ? MAX_SOURCE_BYTES : MAX_SOURCE_CHARS} ${unit})`);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: false });

/** PEP 263: `coding[:=]\s*([-\w.]+)` in a comment on one of the first two lines. */
const CODING = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;

/** Python's codec names mapped to the WHATWG labels TextDecoder knows (most are the same). */
function decoderFor(name: string): { decode(bytes: Uint8Array): string } | undefined {
  let label = name.toLowerCase().replace(/_/g, '-');
  if (label === 'utf-8' || label === 'utf8' || label.startsWith('utf-8-') || label === 'utf8-sig') return undefined;
  if (label === 'latin-1' || label === 'latin1' || label === 'iso-8859-1' || label === 'l1') label = 'latin1';
  else if (/^cp\d+$/.test(label)) label = `windows-${label.slice(2)}`;
  try {
    return new TextDecoder(label, { fatal: false });
  } catch {
    return undefined; // a codec TextDecoder lacks: read as UTF-8 (ASCII code stays right)
  }
}

/**
 * Decodes Python source bytes as Python does: a UTF-8 BOM, a UTF-16 BOM (a file an editor saved
 * as UTF-16, which Python itself rejects but whose names and calls are still the user's), a PEP
 * 263 coding declaration on one of the first two lines, else UTF-8 with replacement.
 */
export function decodeSource(bytes: Uint8Array): string {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    const text = new TextDecoder(bytes[0] === 0xff ? 'utf-16le' : 'utf-16be', { fatal: false }).decode(bytes);
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  }
  const text = utf8.decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) return text.slice(1); // with a UTF-8 BOM, the declaration must say UTF-8
  const end = text.indexOf('\n', text.indexOf('\n') + 1);
  const head = (end < 0 ? text : text.slice(0, end)).split('\n');
  for (const line of head) {
    const m = CODING.exec(line);
    if (m) {
      const d = decoderFor(m[1]);
      return d ? d.decode(bytes) : text;
    }
    if (!/^[ \t\f]*(#.*)?\r?$/.test(line)) break; // the declaration counts only before any code
  }
  return text;
}

export class TargetError extends Error {}
