/**
 * Jupyter notebooks: the code cells are checked as the one module they form when run in order
 * (an import in the first cell serves a call in the fifth), and each finding is placed back in
 * its cell. IPython lines (`%magic`, `!shell`, `x = !cmd`, `obj?`) become `pass` and cells
 * starting with a cell magic (`%%bash`) are left out, so that only Python is checked.
 */
import type { Finding, Fix, Position, TextEdit } from '../engine';

export interface NotebookCell {
  /** Index of the cell among all the notebook's cells (0-based). */
  index: number;
  /** First line of the cell in the module text. */
  start: number;
  /** Number of lines of the cell. */
  lines: number;
  source: string;
}

export interface Notebook {
  /** The code cells, in order, as one module. */
  text: string;
  cells: NotebookCell[];
  /** The parsed notebook, for writing fixes back. */
  json: { cells: Array<{ cell_type: string; source: string | string[] }> };
}

/** A finding placed in a notebook cell: its range is relative to the cell. */
export type CellFinding = Finding & { cell?: number };

const MAGIC = /^(\s*)(%|!|\?)/;
const ASSIGNED_MAGIC = /^(\s*)[\w.,\s]+=\s*(%|!)/;
const HELP = /^\s*[\w.]+\?{1,2}\s*$/;

export class NotebookError extends Error {}

export function readNotebook(text: string, file: string): Notebook {
  let json: Notebook['json'];
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new NotebookError(`${file}: not a notebook (${(e as Error).message})`);
  }
  if (!json || !Array.isArray(json.cells)) throw new NotebookError(`${file}: not a notebook (no cells)`);
  const sources = json.cells.map((cell) => ({ code: cell.cell_type === 'code', source: Array.isArray(cell.source) ? cell.source.join('') : String(cell.source ?? '') }));
  return { ...cellsAsModule(sources), json };
}

/**
 * The code cells of a notebook, in order, as one module (an editor's notebook gives its cells this
 * way); `index` of each cell is its index in `cells`.
 */
export function cellsAsModule(cells: Array<{ code: boolean; source: string }>): Pick<Notebook, 'text' | 'cells'> {
  const out: string[] = [];
  const placed: NotebookCell[] = [];
  cells.forEach((cell, index) => {
    if (!cell.code) return;
    const source = cell.source;
    const lines = source.split(/\r?\n/);
    const cellMagic = /^\s*%%/.test(source);
    const code = lines.map((l) => {
      if (cellMagic) return '';
      const m = MAGIC.exec(l) ?? ASSIGNED_MAGIC.exec(l);
      if (m || HELP.test(l)) return `${(m ?? /^\s*/.exec(l)!)[1] ?? ''}pass`;
      return l;
    });
    placed.push({ index, start: out.length, lines: lines.length, source });
    out.push(...code);
  });
  return { text: out.join('\n') + '\n', cells: placed };
}

function cellOf(nb: Pick<Notebook, 'cells'>, line: number): NotebookCell | undefined {
  return nb.cells.find((c) => line >= c.start && line < c.start + c.lines);
}

function inCell(c: NotebookCell, p: Position, end: boolean): Position | undefined {
  const line = p.line - c.start;
  if (line >= 0 && line < c.lines) return { line, character: p.character };
  if (end && line === c.lines && p.character === 0) return { line, character: 0 };
  return undefined;
}

/** Edits moved into a cell's coordinates, or undefined when one leaves the cell. */
function editsInCell(c: NotebookCell, edits: TextEdit[]): TextEdit[] | undefined {
  const out: TextEdit[] = [];
  for (const e of edits) {
    const start = inCell(c, e.range.start, false);
    const end = inCell(c, e.range.end, true);
    if (!start || !end) return undefined;
    out.push({ range: { start, end }, newText: e.newText });
  }
  return out;
}

/** The findings with ranges (and fix edits) relative to their cells; fixes that leave their cell are dropped. */
export function placeInCells(nb: Pick<Notebook, 'cells'>, findings: Finding[]): CellFinding[] {
  const out: CellFinding[] = [];
  for (const f of findings) {
    const c = cellOf(nb, f.range.start.line);
    if (!c) continue;
    const start = inCell(c, f.range.start, false)!;
    const end = inCell(c, f.range.end, true) ?? { line: c.lines - 1, character: 0 };
    const fixes: Fix[] = [];
    for (const x of f.fixes) {
      const edits = editsInCell(c, x.edits);
      if (edits) fixes.push({ ...x, edits });
    }
    out.push({ ...f, range: { start, end }, fixes, cell: c.index });
  }
  return out;
}
