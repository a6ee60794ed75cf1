/** Engine findings and fixes as LSP objects: the only translation between the two. */
import { CodeAction, CodeActionKind, Diagnostic, DiagnosticSeverity, DiagnosticTag, type Command } from 'vscode-languageserver/node';
import type { Finding, Fix, Severity } from '../engine';
import { INSERT_SNIPPET_COMMAND, type InsertSnippetArgs } from './protocol';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export function toDiagnostic(f: Finding): Diagnostic {
  return {
    range: f.range,
    severity: SEVERITY[f.severity],
    code: f.code,
    source: 'apidrift',
    message: f.message,
    ...(f.tags?.includes('deprecated') ? { tags: [DiagnosticTag.Deprecated] } : {}),
  };
}

export function toCodeAction(f: Finding, fix: Fix, uri: string, version: number): CodeAction {
  const action = CodeAction.create(fix.title, CodeActionKind.QuickFix);
  action.diagnostics = [toDiagnostic(f)];
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
