/**
 * Plain data types of the engine. Positions are 0-based lines and UTF-16 columns, as in LSP,
 * but nothing here depends on LSP or VS Code.
 */

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface TextEdit {
  range: Range;
  newText: string;
}

export interface Fix {
  title: string;
  edits: TextEdit[];
  /** True when `newText` contains snippet placeholders such as `${1:...}`. */
  snippet?: boolean;
  /** The fix a user most likely wants; at most one per finding. */
  preferred?: boolean;
  /**
   * `safe` when the fix keeps what the code means (a renamed keyword, a moved import); `unsafe`
   * when it may change it (an argument removed, a value guessed). Absent means unsafe.
   */
  applicability?: 'safe' | 'unsafe';
}

export type Severity = 'error' | 'warning' | 'information' | 'hint';

export type FindingCode =
  | 'missing-argument'
  | 'unexpected-keyword'
  | 'too-many-positional'
  | 'multiple-values'
  | 'positional-only-as-keyword'
  | 'unknown-import'
  | 'unknown-attribute'
  | 'unknown-module'
  | 'deprecated'
  | 'changed-override'
  | 'unpack-mismatch'
  | 'shifted-argument'
  | 'unused-ignore';

export interface SourceLocation {
  /** Path of the definition inside the target, as the target names it. */
  file: string;
  /** 1-based line of the definition. */
  line: number;
}

export interface Finding {
  file: string;
  range: Range;
  severity: Severity;
  code: FindingCode;
  message: string;
  /** Dotted qualified name of the target symbol concerned, or null. */
  callee: string | null;
  /** The parameter concerned, or null. */
  param: string | null;
  fixes: Fix[];
  /** Where the signature or the module that decided the finding is defined. */
  definition: SourceLocation | null;
  /** The target signature in Python syntax, when the finding is about a call. */
  signature?: string;
  /** Extra classification, as in LSP: a deprecated API. */
  tags?: Array<'deprecated'>;
  /** The whole call the finding is about (to match it with the baseline's view of the same call). */
  call?: Range;
  /** With a baseline: the change between the versions that explains the finding. */
  change?: string;
}

export interface CheckStats {
  files: number;
  callsChecked: number;
  callsUnknown: number;
  callsUntraced?: number;
  targetModulesRead: number;
  ms: number;
}

/** What the engine knows about a call site, for hover. */
export interface CallInfo {
  /** The callee's name. */
  range: Range;
  /** The whole call expression. */
  extent: Range;
  callee: string;
  signatures: string[];
  definition: SourceLocation | null;
  /**
   * `checked`: the binding was decided; `unknown`: the callee was found but its binding is left
   * open on purpose; `untraced`: the receiver comes from the target (or a class derived from it)
   * but its class could not be followed. Absent means checked.
   */
  status?: 'checked' | 'unknown' | 'untraced';
  unknownReason?: string;
  /** With a baseline: the same call's signatures there, and what changed. */
  baseline?: { signatures: string[]; definition: SourceLocation | null };
  changes?: string[];
  /** The parameters of each alternative (for comparing versions). */
  params?: import('./syntax').Param[][];
  /** How many arguments come first by position, before any keyword or star (for comparing versions). */
  positional?: number;
}
