/**
 * Calm typing: while a statement is being typed, a finding that is new on that statement waits
 * for a short pause in typing before it is shown (a call typed one character at a time is
 * incomplete most of the time, and its squiggle would go on and off with every key). Findings
 * elsewhere, and findings that were already shown (at the same place, with the same code), are
 * shown at once: they are not about what is being typed.
 */
import type { Range } from '../engine';
import { differing } from '../engine/parser';

/** How long typing must pause before new findings on the edited statement are shown (tests may set it longer). */
export const TYPING_PAUSE_MS = Number(process.env.APIDRIFT_TYPING_PAUSE_MS) || 500;

/** The most characters one check's worth of typing changes: a larger edit is shown at once. */
const TYPED_CHARS = 200;

/** What the editor shows for a document: its text, and where each shown finding starts. */
export interface Shown {
  text: string;
  /** `code@offset` of each shown finding's start. */
  keys: Set<string>;
  /** The lines being typed when this was shown (an edit that leaves the text as it was, such as typing over a closing bracket, keeps them). */
  edited?: [number, number];
}

/** The part of the text an edit changed: [start, oldEnd) in the old text is [start, newEnd) in the new one. */
export interface Edited {
  start: number;
  oldEnd: number;
  newEnd: number;
}

/** The changed region between two texts (common prefix and suffix left out), or undefined when equal. */
export function editedRegion(oldText: string, newText: string): Edited | undefined {
  if (oldText === newText) return undefined;
  const { start, endA, endB } = differing(oldText, newText);
  return { start, oldEnd: endA, newEnd: endB };
}

/** Offsets of line starts, for turning positions into offsets. */
export function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

function offsetOf(starts: number[], p: { line: number; character: number }): number {
  return (starts[p.line] ?? starts[starts.length - 1]) + p.character;
}

function lineOf(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface Placed {
  code: string;
  range: Range;
  /** The whole call the finding is about: the statement it belongs to. */
  call?: Range;
}

/** The key of a finding as the editor shows it. */
export function keyOf(starts: number[], f: Placed): string {
  return `${f.code}@${offsetOf(starts, f.range.start)}`;
}

/**
 * Which of `findings` (on `text`) wait for the typing pause: those on the lines of the edit since
 * `shown` that were not shown before at the same place with the same code.
 */
export function toWithhold(shown: Shown | undefined, text: string, findings: Placed[]): { held: boolean[]; edited?: [number, number] } {
  const none = { held: findings.map(() => false) };
  if (!shown) return none;
  const edit = editedRegion(shown.text, text) ?? (shown.edited ? { start: -1, oldEnd: -1, newEnd: -1 } : undefined);
  // a larger change (a paste, a revert, a fix applied across lines) is not typing
  if (!edit || edit.newEnd - edit.start > TYPED_CHARS || edit.oldEnd - edit.start > TYPED_CHARS) return none;
  const starts = lineStarts(text);
  // the same text: the lines typed before
  const [first, last] = edit.start < 0 ? shown.edited! : [lineOf(starts, edit.start), lineOf(starts, Math.max(edit.start, edit.newEnd))];
  const delta = edit.newEnd - edit.oldEnd;
  // the shown findings moved into the new text (those inside the replaced part have no place there)
  const before = new Set<string>();
  for (const k of shown.keys) {
    const at = k.lastIndexOf('@');
    const offset = Number(k.slice(at + 1));
    const code = k.slice(0, at);
    if (offset < edit.start) before.add(`${code}@${offset}`);
    else if (offset >= edit.oldEnd) before.add(`${code}@${offset + delta}`);
  }
  const held = findings.map((f) => {
    const extent = f.call ?? f.range;
    const onEdited = extent.start.line <= last && extent.end.line >= first;
    return onEdited && !before.has(keyOf(starts, f));
  });
  return { held, edited: [first, last] };
}
