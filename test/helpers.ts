/** Shared test helpers: repository paths, temporary targets, applying edits. */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Engine, type CheckResult, type TextEdit } from '../server/src/engine';

/** The repository root (tests run from out/test/...). */
export const ROOT = path.resolve(__dirname, '..', '..');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures');
export const DIST = path.join(ROOT, 'dist');

export function stdlibZip(version: '311' | '312' | '313' | '314'): string {
  return path.join(ROOT, 'node_modules', `stdlib-py${version}`, 'python_stdlib.zip');
}

/** The temporary folders of this test process, removed when it exits. */
const trees: string[] = [];
process.once('exit', () => {
  for (const dir of trees) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // already gone, or not ours to remove any more
    }
  }
});

/** Writes files into a fresh temporary folder (removed when the test process exits) and returns its path. */
export function tempTree(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-test-'));
  trees.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  return dir;
}

/** Checks `code` as a user file against a target made of `files`. */
export async function checkAgainst(files: Record<string, string>, code: string): Promise<CheckResult> {
  const dir = tempTree(files);
  try {
    const engine = await Engine.open({ targets: [dir] });
    return engine.check(code, 'user.py');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Applies LSP-style edits (0-based lines, UTF-16 columns) to a text. */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineStarts.push(i + 1);
  const offset = (p: { line: number; character: number }): number => (p.line < lineStarts.length ? lineStarts[p.line] + p.character : text.length);
  const sorted = [...edits].sort((a, b) => offset(b.range.start) - offset(a.range.start));
  let out = text;
  for (const e of sorted) out = out.slice(0, offset(e.range.start)) + e.newText + out.slice(offset(e.range.end));
  return out;
}

/** A compact form of findings for assertions: `line:code:param`. */
export function brief(r: CheckResult): string[] {
  return r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param ?? ''}`);
}
