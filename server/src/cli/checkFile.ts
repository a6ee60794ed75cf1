/**
 * One file through `apidrift check`: notebooks read cell by cell, the file's `[tool.apidrift]`
 * config applied to its findings, and with `--fix` / `--diff` the applicable fixes applied
 * round after round (a fix can reveal the next finding) until none is left.
 */
import { type CheckResult, type Engine, type Finding, type TextEdit } from '../engine';
import { type ApidriftConfig, applyConfig, type ConfigFinder } from '../engine/config/pyproject';
import { applyEdits, editsToApply } from './fix';
import { UsageError } from './files';
import { type CellFinding, type Notebook, placeInCells, readNotebook } from './notebook';

export interface FixOptions {
  mode: 'none' | 'apply' | 'diff';
  unsafe: boolean;
}

export interface FileOutcome {
  findings: CellFinding[];
  /** The last check's result (for its statistics and skipped parts). */
  result: CheckResult;
  /** Findings fixed, and the fixed text when it differs from the original. */
  fixed: number;
  fixedText?: string;
}

const MAX_ROUNDS = 8;

export function isNotebook(file: string): boolean {
  return /\.ipynb$/i.test(file);
}

/** Applies edits made on a notebook's module text to the cells they fall in; returns the notebook's new JSON text. */
function applyToNotebook(nb: Notebook, original: string, edits: TextEdit[]): string {
  for (const c of nb.cells) {
    const mine = edits
      .filter((e) => e.range.start.line >= c.start && e.range.start.line < c.start + c.lines)
      .map((e) => ({ newText: e.newText, range: { start: { line: e.range.start.line - c.start, character: e.range.start.character }, end: { line: e.range.end.line - c.start, character: e.range.end.character } } }));
    if (mine.length === 0) continue;
    const text = applyEdits(c.source + '\n', mine).replace(/\n$/, '');
    const lines = text.split('\n').map((l, i, all) => (i < all.length - 1 ? l + '\n' : l));
    nb.json.cells[c.index].source = lines[lines.length - 1] === '' ? lines.slice(0, -1) : lines;
  }
  const indent = /^\{\s*\n(\s+)"/.exec(original)?.[1].length ?? 1;
  return JSON.stringify(nb.json, null, indent) + (original.endsWith('\n') ? '\n' : '');
}

/** Checks a file's text (and fixes it when asked); notebooks are read as their code cells. */
export function checkFile(engine: Engine, file: string, text: string, opts: { module?: { name: string; isPackage: boolean }; config?: ApidriftConfig; fix: FixOptions }): FileOutcome {
  const notebook = isNotebook(file);
  let current = text;
  let fixed = 0;
  for (let round = 0; ; round++) {
    const nb = notebook ? readNotebook(current, file) : undefined;
    const result = engine.check(nb ? nb.text : current, file, undefined, opts.module);
    const kept: Finding[] = applyConfig(result.findings, opts.config, file);
    // in a notebook, only fixes that stay inside one cell may be applied
    const placed = nb ? placeInCells(nb, kept) : kept;
    const done = (): FileOutcome => ({ findings: placed, result, fixed, ...(current !== text ? { fixedText: current } : {}) });
    if (opts.fix.mode === 'none' || round >= MAX_ROUNDS) return done();
    const candidates = nb ? kept.map((f, i) => ({ ...f, fixes: f.fixes.filter((x) => placed[i].fixes.some((p) => p.title === x.title)) })) : kept;
    const { edits, fixed: n } = editsToApply(candidates, opts.fix.unsafe);
    if (edits.length === 0) return done();
    const next = nb ? applyToNotebook(nb, current, edits) : applyEdits(current, edits);
    if (next === current) return done();
    current = next;
    fixed += n;
  }
}

/** The targets and baseline of a check: the command line's, else those of the config nearest to the paths. */
export function targetsOf(cli: { targets: string[]; baseline: string[] }, paths: string[], configs: ConfigFinder): { targets: string[]; baseline: string[] } {
  const fromConfigs = (pick: (c: ApidriftConfig) => string[] | undefined, what: string): string[] => {
    const found = new Map<string, { list: string[]; file: string }>();
    for (const p of paths) {
      const c = configs.forPath(p);
      const list = c && pick(c);
      if (c && list) found.set(JSON.stringify(list), { list, file: c.file });
    }
    if (found.size > 1) throw new UsageError(`the files to check have different ${what}s in ${[...found.values()].map((f) => f.file).join(' and ')}: check them in separate runs`);
    return found.size === 1 ? [...found.values()][0].list : [];
  };
  const targets = cli.targets.length > 0 ? cli.targets : fromConfigs((c) => c.target, 'target');
  const baseline = cli.baseline.length > 0 ? cli.baseline : fromConfigs((c) => c.baseline, 'baseline');
  if (targets.length === 0) throw new UsageError('at least one --target is required (or `target` in [tool.apidrift] of a pyproject.toml)');
  return { targets, baseline };
}
