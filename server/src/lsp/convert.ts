/** Engine findings and fixes as LSP objects: the only translation between the two. */
import * as fs from 'fs';
import { pathToFileURL } from 'url';
import { CodeAction, CodeActionKind, Diagnostic, type DiagnosticRelatedInformation, DiagnosticSeverity, DiagnosticTag, type Command, type Location } from 'vscode-languageserver/node';
import type { Finding, Fix, Severity, SourceLocation } from '../engine';
import { DOCS_URL } from '../cli/formats';
import { INSERT_SNIPPET_COMMAND, type InsertSnippetArgs } from './protocol';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

/**
 * The message as the Problems panel shows it: plain text, without the target signature (the hover
 * shows it; the CLI and JSON output keep the whole message).
 */
export function shortMessage(message: string): string {
  const at = message.indexOf('. Target signature: ');
  return (at >= 0 ? message.slice(0, at) : message).replace(/`/g, '');
}

/** Whether each definition's file was on disk, and when that was looked at. */
const onDisk = new Map<string, { at: number; is: boolean }>();
/** How long what `onDisk` says holds: every keystroke converts the same findings again. */
const ON_DISK_MS = 2000;

function isOnDisk(file: string): boolean {
  const now = performance.now();
  const known = onDisk.get(file);
  if (known && now - known.at < ON_DISK_MS) return known.is;
  if (onDisk.size >= 4096) onDisk.clear();
  const is = fs.existsSync(file);
  onDisk.set(file, { at: now, is });
  return is;
}

/** A definition as a location the editor can open (only files on disk: members of archives are not). */
function locationOf(def: SourceLocation | null | undefined): Location | undefined {
  if (!def || !isOnDisk(def.file)) return undefined;
  const line = Math.max(0, def.line - 1);
  return { uri: pathToFileURL(def.file).href, range: { start: { line, character: 0 }, end: { line, character: 0 } } };
}

/**
 * A finding as a diagnostic: its code links to the README's finding codes, and the definitions in
 * the target (and, with a baseline, in the baseline) come along as related information.
 */
export function toDiagnostic(f: Finding, baselineDefinition?: SourceLocation | null): Diagnostic {
  const related: DiagnosticRelatedInformation[] = [];
  const target = locationOf(f.definition);
  if (target) related.push({ location: target, message: `${f.callee ?? 'defined'} in the target` });
  const base = locationOf(baselineDefinition);
  if (base) related.push({ location: base, message: `${f.callee ?? 'defined'} in the baseline` });
  return {
    range: f.range,
    severity: SEVERITY[f.severity],
    code: f.code,
    codeDescription: { href: DOCS_URL },
    source: 'apidrift',
    message: shortMessage(f.message),
    ...(f.tags?.includes('deprecated') ? { tags: [DiagnosticTag.Deprecated] } : {}),
    ...(related.length > 0 ? { relatedInformation: related } : {}),
  };
}

export function toCodeAction(f: Finding, fix: Fix, uri: string, version: number, diagnostic: Diagnostic = toDiagnostic(f)): CodeAction {
  const action = CodeAction.create(fix.title, CodeActionKind.QuickFix);
  action.diagnostics = [diagnostic];
  action.isPreferred = !!fix.preferred;
  if (fix.snippet && fix.edits.length === 1) {
    const args: InsertSnippetArgs = { uri, version, range: fix.edits[0].range, snippet: fix.edits[0].newText };
    const command: Command = { title: fix.title, command: INSERT_SNIPPET_COMMAND, arguments: [args] };
    action.command = command;
  } else {
    action.edit = { documentChanges: [{ textDocument: { uri, version }, edits: fix.edits }] };
  }
  return action;
}
