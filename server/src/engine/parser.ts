/**
 * The one place that loads web-tree-sitter and the tree-sitter-python grammar.
 *
 * Entry points (server bundle, CLI bundle, tests) call `initParser` once. The wasm files are
 * looked for beside the running bundle first (that is how the packaged extension ships them),
 * then in the installed npm packages (development and tests).
 */
import * as fs from 'fs';
import * as path from 'path';
import { createRequire } from 'module';
import type { Node, Parser as ParserType, Tree } from 'web-tree-sitter';
import { MAX_SOURCE_CHARS, SourceTooLargeError } from './sources/sourceRoot';

export { MAX_SOURCE_CHARS };

// Loaded with require so that bundles pick the CommonJS build of web-tree-sitter.
// eslint-disable-next-line @typescript-eslint/no-require-imports
let binding = require('web-tree-sitter') as typeof import('web-tree-sitter');
type Parser = ParserType;
keepParents(binding);

/**
 * `node.parent` has the wasm side walk down from the root each time, and makes a new object; the
 * checks ask it of the same nodes again and again (every condition, guard and scope around each
 * call). Each tree keeps the parents it was asked for, by node id, with the start the node had
 * (a tree told of an edit moves the nodes after it, which then are asked afresh).
 */
function keepParents(b: typeof binding): void {
  const proto = b.Node.prototype as unknown as Record<string, unknown>;
  const desc = Object.getOwnPropertyDescriptor(proto, 'parent');
  if (!desc?.get || proto.__parentsKept) return;
  const get = desc.get as (this: Node) => Node | null;
  const kept = new WeakMap<Tree, Map<number, { start: number; parent: Node | null }>>();
  Object.defineProperty(proto, '__parentsKept', { value: true });
  Object.defineProperty(proto, 'parent', {
    configurable: true,
    get(this: Node): Node | null {
      let byId = kept.get(this.tree);
      if (!byId) kept.set(this.tree, (byId = new Map()));
      const known = byId.get(this.id);
      if (known && known.start === this.startIndex) return known.parent;
      const parent = get.call(this);
      byId.set(this.id, { start: this.startIndex, parent });
      return parent;
    },
  });
}

/** A source the engine declines to parse (too large); the caller reports it as skipped. */
export { SourceTooLargeError };

/** The parser crashed on this source; a fresh parser serves the next one. */
export class ParserCrashError extends Error {}

/**
 * Bumped each time the parser is replaced after a crash: trees made by an earlier generation are
 * dead (their memory went with the old wasm instance) and must be dropped, not used or deleted.
 */
export let parserGeneration = 0;

export type { Node, Tree };

export const GRAMMAR_FILE = 'tree-sitter-python.wasm';
export const RUNTIME_FILE = 'tree-sitter.wasm';

let ready: Promise<Parser> | undefined;
let parserInstance: Parser | undefined;
/** The folder given to `initParser`, for worker threads to load the same wasm files. */
export let wasmFolder: string | undefined;

export interface WasmLocation {
  runtime: string;
  grammar: string;
}

/** Finds the two wasm files: `dir` (usually the bundle's folder) first, then node_modules. */
export function locateWasm(dir?: string): WasmLocation {
  const candidates: WasmLocation[] = [];
  if (dir) candidates.push({ runtime: path.join(dir, RUNTIME_FILE), grammar: path.join(dir, GRAMMAR_FILE) });
  try {
    candidates.push({
      runtime: require.resolve('web-tree-sitter/tree-sitter.wasm'),
      grammar: require.resolve(`tree-sitter-python/${GRAMMAR_FILE}`),
    });
  } catch {
    // not installed: only the bundled copies can work
  }
  for (const c of candidates) {
    if (fs.existsSync(c.runtime) && fs.existsSync(c.grammar)) return c;
  }
  throw new Error(`cannot find ${RUNTIME_FILE} and ${GRAMMAR_FILE} (looked in ${dir ?? 'node_modules'})`);
}

/** Says where the wasm files are without loading them yet (for runs that may need no parsing). */
export function deferParser(dir?: string): void {
  if (!ready) wasmFolder = dir;
}

export function initParser(dir?: string): Promise<Parser> {
  if (!ready) {
    wasmFolder = dir;
    ready = (async () => {
      const parser = await newParser(binding, locateWasm(dir));
      parserInstance = parser;
      return parser;
    })();
  }
  return ready;
}

async function newParser(b: typeof binding, where: WasmLocation): Promise<Parser> {
  rememberNodeTypes(b);
  await b.Parser.init({ locateFile: () => where.runtime });
  // the grammar's bytes, not its path: given a path, the library reads it through a dynamic
  // `import()`, which a script compiled from a code cache cannot make
  const language = await b.Language.load(new Uint8Array(fs.readFileSync(where.grammar)));
  const parser = new b.Parser();
  parser.setLanguage(language);
  return parser;
}

/**
 * A node's type never changes, yet each read of `type` asks the wasm side again; the checks read
 * it many times per node (`if (n.type === ...) ... else if (n.type === ...)`). Each node object
 * keeps the answer of its first read.
 */
function rememberNodeTypes(b: typeof binding): void {
  const proto = b.Node.prototype as unknown as Record<string, unknown>;
  const desc = Object.getOwnPropertyDescriptor(proto, 'typeId');
  if (!desc?.get || proto.apidriftTypeIds) return;
  const read = desc.get;
  Object.defineProperty(proto, 'apidriftTypeIds', { value: true });
  Object.defineProperty(proto, 'typeId', {
    configurable: true,
    get(this: { apidriftTypeId?: number }): number {
      let id = this.apidriftTypeId;
      if (id === undefined) {
        id = read.call(this) as number;
        this.apidriftTypeId = id;
      }
      return id;
    },
  });
}

/**
 * After a wasm abort the whole instance is dead. A fresh copy of web-tree-sitter is loaded (the
 * CommonJS file beside the bundle, or the installed package) and a new parser made from it; until
 * it is ready, parses fail with ParserCrashError (counted by the callers, never silent).
 */
let reloading: Promise<void> | undefined;
function replaceParser(): void {
  parserInstance = undefined;
  parserGeneration++;
  if (reloading) return;
  reloading = (async () => {
    try {
      const candidates: string[] = [];
      if (wasmFolder) candidates.push(path.join(wasmFolder, 'tree-sitter.cjs'));
      try {
        candidates.push(require.resolve('web-tree-sitter'));
      } catch {
        // bundled: only the copy beside the bundle can serve
      }
      const file = candidates.find((c) => fs.existsSync(c));
      if (!file) return;
      const req = createRequire(__filename);
      delete req.cache[file];
      const fresh = req(file) as typeof binding;
      delete req.cache[file];
      keepParents(fresh);
      const parser = await newParser(fresh, locateWasm(wasmFolder));
      binding = fresh;
      parserInstance = parser;
      ready = Promise.resolve(parser);
    } catch {
      // no fresh parser: later parses keep failing with ParserCrashError
    } finally {
      reloading = undefined;
    }
  })();
  ready = reloading.then(() => {
    if (!parserInstance) throw new ParserCrashError('the parser crashed and could not be restarted');
    return parserInstance;
  });
  ready.catch(() => undefined);
}

/** Resolves when a parser is usable again after a crash (at once when none happened). */
export async function parserReady(): Promise<boolean> {
  if (reloading) await reloading;
  return !!parserInstance;
}

/** Runs one parse; a wasm abort replaces the parser and is reported as ParserCrashError. */
function guarded(run: (parser: Parser) => Tree | null): Tree {
  if (!parserInstance) {
    if (reloading || parserGeneration > 0) throw new ParserCrashError('the parser is restarting after a crash');
    throw new Error('parser not initialised: await initParser() first');
  }
  let tree: Tree | null;
  try {
    tree = run(parserInstance);
  } catch (e) {
    if ((e as Error)?.constructor?.name === 'RuntimeError' || /Aborted\(/.test(String((e as Error)?.message ?? e))) {
      replaceParser();
      throw new ParserCrashError(`the parser crashed (${(e as Error).message ?? e})`);
    }
    throw e;
  }
  if (!tree) throw new Error('tree-sitter returned no tree');
  return tree;
}

function checkSize(text: string): void {
  if (text.length > MAX_SOURCE_CHARS) throw new SourceTooLargeError(text.length, 'characters');
}

function cleanSource(text: string): string {
  // Python and editors break lines at a lone CR, and read NUL inside strings; tree-sitter does
  // neither. Same-length substitutes keep every position valid.
  if (text.indexOf('\r') < 0 && text.indexOf('\0') < 0) return text;
  return text.replace(/\r(?!\n)/g, '\n').replace(/\0/g, '\uFFFD');
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12;
}

/** Whether the line of `text` holds something other than white space from `index` on. */
function codeFrom(text: string, index: number): boolean {
  for (let i = index; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) return false;
    if (!isSpace(c)) return true;
  }
  return false;
}

/** Row and UTF-16 column of an index. */
function pointAt(text: string, index: number): { row: number; column: number } {
  let row = 0;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < index; i = text.indexOf('\n', i + 1)) {
    row++;
    lineStart = i + 1;
  }
  return { row, column: index - lineStart };
}

/** The first index where `a` and `b` differ, and where each ends once the end they share is left out. */
export function differing(a: string, b: string): { start: number; endA: number; endB: number } {
  // equal blocks are passed over by the native comparison first, then characters one by one
  const BLOCK = 256;
  let start = 0;
  const max = Math.min(a.length, b.length);
  while (start + BLOCK <= max && a.slice(start, start + BLOCK) === b.slice(start, start + BLOCK)) start += BLOCK;
  while (start < max && a.charCodeAt(start) === b.charCodeAt(start)) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA - BLOCK >= start && endB - BLOCK >= start && a.slice(endA - BLOCK, endA) === b.slice(endB - BLOCK, endB)) {
    endA -= BLOCK;
    endB -= BLOCK;
  }
  while (endA > start && endB > start && a.charCodeAt(endA - 1) === b.charCodeAt(endB - 1)) {
    endA--;
    endB--;
  }
  return { start, endA, endB };
}

/**
 * Parses `text` reusing the tree of an earlier version of the same document: the one region
 * that differs is found by comparing the two texts, the old tree is told of the edit, and
 * tree-sitter re-parses only what the edit touched. The caller deletes both trees.
 */
export function parsePythonIncremental(text: string, previous: { text: string; tree: Tree }): Tree;
/** With `budgetMs`: undefined when the parse would take longer (it is abandoned; `previous.tree` has been told of the edit). */
export function parsePythonIncremental(text: string, previous: { text: string; tree: Tree }, budgetMs: number): Tree | undefined;
export function parsePythonIncremental(text: string, previous: { text: string; tree: Tree }, budgetMs?: number): Tree | undefined {
  checkSize(text);
  const a = cleanSource(previous.text);
  const b = cleanSource(text);
  const diff = differing(a, b);
  const { endA, endB } = diff;
  let start = diff.start;
  // The edit is said to start at the last line with code before it: text typed on a blank line
  // after an indented block changes where the block ends, and tree-sitter re-uses far less of the
  // old tree when that line is not part of the edit (the result is the same either way). A line
  // that has code from the edit on in both texts (a statement replaced where it stands) is no
  // blank line: there the line above stays out of the edit (after a docstring, taking it in
  // would have the rest of the file parsed again).
  let back = start;
  while (back > 0 && isSpace(a.charCodeAt(back - 1))) back--;
  if ((back === 0 || a.lastIndexOf('\n', start - 1) >= back) && !(codeFrom(a, start) && codeFrom(b, start))) start = back > 0 ? a.lastIndexOf('\n', back - 1) + 1 : 0;
  previous.tree.edit({
    startIndex: start,
    oldEndIndex: endA,
    newEndIndex: endB,
    startPosition: pointAt(a, start),
    oldEndPosition: pointAt(a, endA),
    newEndPosition: pointAt(b, endB),
  });
  if (budgetMs === undefined) return guarded((parser) => parser.parse(b, previous.tree));
  const deadline = performance.now() + budgetMs;
  let abandoned = false;
  try {
    return guarded((parser) => {
      const t = parser.parse(b, previous.tree, { progressCallback: () => (abandoned = performance.now() > deadline) });
      // an abandoned parse would otherwise be resumed by the next one
      if (!t) parser.reset();
      return t;
    });
  } catch (e) {
    if (abandoned && !(e instanceof ParserCrashError)) return undefined;
    throw e;
  }
}

/** Parses Python source; `initParser` must have completed. The caller deletes the tree. */
export function parsePython(text: string): Tree {
  checkSize(text);
  const clean = cleanSource(text);
  return guarded((parser) => parser.parse(clean));
}
