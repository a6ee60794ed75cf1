/**
 * Strings kept for long, copied off the text they were cut from.
 *
 * V8 makes a substring of 13 characters or more (a node's text, a match of a pattern) a slice that
 * points into the string it was cut from, and so keeps that whole string alive: one method name
 * kept from a module's summary keeps the module's whole text. What an editor's engine keeps for
 * hours (the summaries of the target's modules, the names its files set from outside) is copied
 * first, so that the texts it was read from can go; and what it keeps over many keystrokes (the
 * results of the methods not typed in) is copied once it outlives one, so that each version of
 * the edited file can go.
 */

/** Slices of this length and more point into their parent string (V8's SlicedString::kMinLength). */
const SLICE_MIN = 13;

/** The same characters in a string of their own (short strings are copies already). */
export function ownString(s: string): string {
  // the concatenation is flattened into a new string before it is cut: the result points into that copy
  return s.length < SLICE_MIN ? s : (' ' + s).slice(1);
}

/** A deep copy of plain data (objects, arrays, maps, sets, strings...) whose strings are its own. */
export function ownCopy<T>(value: T): T {
  return structuredClone(value);
}
