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
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** Decodes Python source bytes: UTF-8 with replacement, a leading BOM dropped. */
export function decodeSource(bytes: Uint8Array): string {
  const text = decoder.decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export class TargetError extends Error {}
