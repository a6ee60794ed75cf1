/**
 * Output formats of `apidrift check` (text, json, sarif, github, gitlab, junit) and of
 * `apidrift diff` on GitHub. Each takes plain findings and returns the whole output as a string.
 */
import { createHash } from 'crypto';
import * as path from 'path';
import { pathToFileURL } from 'url';
import type { CallInfo, Fix, FindingCode, Severity } from '../engine';
import type { ApiReport } from '../engine/report/report';
import type { CellFinding } from './notebook';

export const OUTPUT_FORMATS = ['text', 'json', 'sarif', 'github', 'gitlab', 'junit'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export const JSON_SCHEMA_VERSION = 1;

/** Where each code is explained (the README's section on finding codes). */
export const DOCS_URL = 'https://www.npmjs.com/package/apidrift#finding-codes';

/** One line of help per finding code (SARIF rules, GitLab descriptions). */
export const RULES: Record<FindingCode, { name: string; help: string }> = {
  'missing-argument': { name: 'MissingArgument', help: 'A call no longer passes a parameter that the target version requires (a required parameter was added, or a default removed).' },
  'unexpected-keyword': { name: 'UnexpectedKeyword', help: 'A call passes a keyword argument that the target signature no longer accepts (removed or renamed).' },
  'too-many-positional': { name: 'TooManyPositional', help: 'A call passes more positional arguments than the target signature takes.' },
  'multiple-values': { name: 'MultipleValues', help: 'A parameter of the target signature receives a value both by position and by keyword.' },
  'positional-only-as-keyword': { name: 'PositionalOnlyAsKeyword', help: 'A call passes by keyword a parameter that became positional-only in the target version.' },
  'unknown-import': { name: 'UnknownImport', help: 'The module exists in the target but no longer defines or re-exports the imported name.' },
  'unknown-attribute': { name: 'UnknownAttribute', help: '`module.name` on an imported target module that no longer has that name.' },
  'unknown-module': { name: 'UnknownModule', help: 'The target has the package but not that submodule.' },
  deprecated: { name: 'Deprecated', help: 'The target marks the called API as deprecated (a decorator or a DeprecationWarning/FutureWarning).' },
  'changed-override': { name: 'ChangedOverride', help: 'A class overrides a target method whose signature changed between the baseline and the target.' },
  'unpack-mismatch': { name: 'UnpackMismatch', help: 'A call\'s result is unpacked into another number of names than the target function\'s fixed-length tuple return annotation gives.' },
  'shifted-argument': { name: 'ShiftedArgument', help: 'A positional argument binds to another parameter in the target than in the baseline, which the target still has: a parameter was inserted or moved before it.' },
  'unused-ignore': { name: 'UnusedIgnore', help: 'An `# apidrift: ignore` comment that silences nothing.' },
};

export interface CheckOutput {
  findings: CellFinding[];
  /** The files checked (display paths), for formats that list passing files. */
  files: string[];
  stats: { files: number; callsChecked: number; callsUnknown: number; callsUntraced: number; targetModulesRead: number; skipped?: number; targetErrors?: number; ms: number };
  /** With --list-calls: every call into the target, with its status and why it was left open. */
  calls?: Array<{ file: string; call: CallInfo }>;
  version: string;
  /** Folder that relative paths in the output are relative to. */
  cwd: string;
}

/**
 * A file name as one line of text output: control characters (a newline, an escape sequence)
 * written as escapes, so that a name can never forge or colour an output line.
 */
export function escapeName(name: string): string {
  // eslint-disable-next-line no-control-regex
  return name.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, (c) => {
    const n = c.charCodeAt(0);
    return c === '\n' ? '\\n' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : n < 256 ? `\\x${n.toString(16).padStart(2, '0')}` : `\\u${n.toString(16)}`;
  });
}

/** A path as the output shows it: relative to the working folder when inside it, with `/`. */
export function displayPath(file: string, cwd: string): string {
  if (file.includes('!')) return file; // an archive member
  const rel = path.relative(cwd, path.resolve(cwd, file));
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel)) return file;
  return rel.split(path.sep).join('/');
}

function fixJson(x: Fix): Record<string, unknown> {
  return { title: x.title, edits: x.edits, applicability: x.applicability ?? 'unsafe', ...(x.snippet ? { snippet: true } : {}) };
}

export function formatText(out: CheckOutput): string {
  const lines = out.findings.map((f) => {
    const where = escapeName(f.cell !== undefined ? `${f.file}:cell ${f.cell + 1}` : f.file);
    return `${where}:${f.range.start.line + 1}:${f.range.start.character + 1}: ${f.severity} [${f.code}] ${f.message}`;
  });
  for (const { file, call } of out.calls ?? []) {
    const at = `${file}:${call.range.start.line + 1}:${call.range.start.character + 1}`;
    lines.push(`${escapeName(at)}: ${call.status ?? 'checked'} ${call.callee}${call.unknownReason ? ` (${escapeName(call.unknownReason)})` : ''}`);
  }
  const s = out.stats;
  const n = out.findings.length;
  lines.push(
    `${n} finding${n === 1 ? '' : 's'} in ${s.files} file${s.files === 1 ? '' : 's'} (${s.callsChecked} calls checked, ${s.callsUnknown} unknown, ${s.callsUntraced} untraced, ${s.targetModulesRead} target modules read, ${s.ms} ms)` +
      (s.skipped ? `; ${s.skipped} skipped` : ''),
  );
  return lines.join('\n') + '\n';
}

export function formatJson(out: CheckOutput): string {
  const json = {
    version: JSON_SCHEMA_VERSION,
    diagnostics: out.findings.map((f) => ({
      file: f.file,
      ...(f.cell !== undefined ? { cell: f.cell } : {}),
      range: f.range,
      severity: f.severity,
      code: f.code,
      message: f.message,
      callee: f.callee,
      param: f.param,
      definition: f.definition,
      ...(f.change ? { change: f.change } : {}),
      fixes: f.fixes.map(fixJson),
    })),
    ...(out.calls ? { calls: out.calls.map(({ file, call }) => ({ file, range: call.range, callee: call.callee, status: call.status ?? 'checked', reason: call.unknownReason ?? null })) } : {}),
    stats: out.stats,
  };
  return JSON.stringify(json, null, 2) + '\n';
}

/** A stable fingerprint of a finding: file, code, callee, parameter and the finding's ordinal among equal ones. */
function fingerprints(findings: CellFinding[], cwd: string): string[] {
  const seen = new Map<string, number>();
  return findings.map((f) => {
    const key = [displayPath(f.file, cwd), f.cell ?? '', f.code, f.callee ?? '', f.param ?? '', f.message].join('\0');
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    return createHash('sha256').update(`${key}\0${n}`).digest('hex').slice(0, 32);
  });
}

function sarifLevel(s: Severity): 'error' | 'warning' | 'note' {
  return s === 'error' ? 'error' : s === 'warning' ? 'warning' : 'note';
}

function artifactUri(file: string, cwd: string): { uri: string; uriBaseId?: string } {
  const shown = displayPath(file, cwd);
  if (shown !== file || !path.isAbsolute(file)) return { uri: encodeURI(shown), uriBaseId: '%SRCROOT%' };
  return { uri: pathToFileURL(file).href };
}

/** SARIF 2.1.0, as GitHub code scanning reads it. Columns are UTF-16 code units, 1-based. */
export function formatSarif(out: CheckOutput): string {
  const codes = [...new Set(out.findings.map((f) => f.code))].sort();
  const rules = codes.map((code) => ({
    id: code,
    name: RULES[code].name,
    shortDescription: { text: RULES[code].help },
    fullDescription: { text: RULES[code].help },
    help: { text: `${RULES[code].help} See ${DOCS_URL}`, markdown: `${RULES[code].help} See [finding codes](${DOCS_URL}).` },
    helpUri: DOCS_URL,
    defaultConfiguration: { level: code === 'deprecated' || code === 'unused-ignore' ? 'note' : code === 'changed-override' ? 'warning' : 'error' },
  }));
  const prints = fingerprints(out.findings, out.cwd);
  const region = (r: { start: { line: number; character: number }; end: { line: number; character: number } }) => ({
    startLine: r.start.line + 1,
    startColumn: r.start.character + 1,
    endLine: r.end.line + 1,
    endColumn: r.end.character + 1,
  });
  const results = out.findings.map((f, i) => {
    const location = artifactUri(f.file, out.cwd);
    const fixes = f.fixes
      .filter((x) => !x.snippet)
      .map((x) => ({
        description: { text: `${x.title} (${x.applicability ?? 'unsafe'})` },
        artifactChanges: [
          {
            artifactLocation: location,
            replacements: x.edits.map((e) => ({ deletedRegion: region(e.range), insertedContent: { text: e.newText } })),
          },
        ],
      }));
    return {
      ruleId: f.code,
      ruleIndex: codes.indexOf(f.code),
      level: sarifLevel(f.severity),
      message: { text: f.message },
      locations: [{ physicalLocation: { artifactLocation: location, region: region(f.range) } }],
      partialFingerprints: { 'apidrift/v1': prints[i] },
      ...(fixes.length > 0 ? { fixes } : {}),
      properties: { callee: f.callee, param: f.param, ...(f.cell !== undefined ? { cell: f.cell } : {}), ...(f.change ? { change: f.change } : {}) },
    };
  });
  const sarif = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'apidrift', version: out.version, semanticVersion: out.version, informationUri: DOCS_URL, rules } },
        originalUriBaseIds: { '%SRCROOT%': { uri: pathToFileURL(out.cwd + path.sep).href } },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
  return JSON.stringify(sarif, null, 2) + '\n';
}

/** GitHub workflow command escaping of a message. */
export function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** GitHub workflow command escaping of a property value. */
export function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function githubCommand(level: 'error' | 'warning' | 'notice', props: Record<string, string | number | undefined>, message: string): string {
  const p = Object.entries(props)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(String(v))}`)
    .join(',');
  return `::${level}${p ? ' ' + p : ''}::${escapeData(message)}`;
}

/** GitHub Actions workflow commands: one annotation per finding. */
export function formatGithub(out: CheckOutput): string {
  const lines = out.findings.map((f) => {
    const level = f.severity === 'error' ? 'error' : f.severity === 'warning' ? 'warning' : 'notice';
    const title = `apidrift (${f.code})${f.cell !== undefined ? ` in cell ${f.cell + 1}` : ''}`;
    return githubCommand(
      level,
      { file: displayPath(f.file, out.cwd), line: f.range.start.line + 1, endLine: f.range.end.line + 1, col: f.range.start.character + 1, endColumn: f.range.start.line === f.range.end.line ? f.range.end.character + 1 : undefined, title },
      f.message,
    );
  });
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}

/** GitLab code quality report (a JSON array). */
export function formatGitlab(out: CheckOutput): string {
  const prints = fingerprints(out.findings, out.cwd);
  const severity = (s: Severity): string => (s === 'error' ? 'major' : s === 'warning' ? 'minor' : 'info');
  const issues = out.findings.map((f, i) => ({
    type: 'issue',
    check_name: f.code,
    description: `${f.cell !== undefined ? `cell ${f.cell + 1}: ` : ''}${f.message}`,
    categories: ['Compatibility'],
    severity: severity(f.severity),
    fingerprint: prints[i],
    location: { path: displayPath(f.file, out.cwd), lines: { begin: f.range.start.line + 1, end: f.range.end.line + 1 } },
  }));
  return JSON.stringify(issues, null, 2) + '\n';
}

function xml(s: string): string {
  // characters XML 1.0 does not allow are dropped
  // eslint-disable-next-line no-control-regex
  return s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** JUnit XML: one test suite per checked file, one failing test case per finding (a passing one for a clean file). */
export function formatJunit(out: CheckOutput): string {
  const byFile = new Map<string, CellFinding[]>();
  for (const f of out.files) byFile.set(displayPath(f, out.cwd), []);
  for (const f of out.findings) {
    const k = displayPath(f.file, out.cwd);
    if (!byFile.has(k)) byFile.set(k, []);
    byFile.get(k)!.push(f);
  }
  const failing = (f: CellFinding): boolean => f.severity === 'error' || f.severity === 'warning';
  const total = [...byFile.values()].reduce((n, fs) => n + Math.max(1, fs.length), 0);
  const failures = out.findings.filter(failing).length;
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="apidrift" tests="${total}" failures="${failures}" errors="0" time="${(out.stats.ms / 1000).toFixed(3)}">`];
  for (const [file, fs] of byFile) {
    const nFail = fs.filter(failing).length;
    lines.push(`  <testsuite name="${xml(file)}" tests="${Math.max(1, fs.length)}" failures="${nFail}" errors="0" skipped="0">`);
    if (fs.length === 0) lines.push(`    <testcase name="apidrift" classname="${xml(file)}"/>`);
    for (const f of fs) {
      const where = `${f.cell !== undefined ? `cell ${f.cell + 1}:` : ''}${f.range.start.line + 1}:${f.range.start.character + 1}`;
      lines.push(`    <testcase name="${xml(`${f.code} at ${where}`)}" classname="${xml(file)}" file="${xml(file)}" line="${f.range.start.line + 1}">`);
      if (failing(f)) lines.push(`      <failure message="${xml(f.message)}" type="${xml(f.code)}">${xml(`${file}:${where}: ${f.severity} [${f.code}] ${f.message}`)}</failure>`);
      else lines.push(`      <system-out>${xml(`${file}:${where}: ${f.severity} [${f.code}] ${f.message}`)}</system-out>`);
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return lines.join('\n') + '\n';
}

export function formatCheck(format: OutputFormat, out: CheckOutput): string {
  switch (format) {
    case 'json':
      return formatJson(out);
    case 'sarif':
      return formatSarif(out);
    case 'github':
      return formatGithub(out);
    case 'gitlab':
      return formatGitlab(out);
    case 'junit':
      return formatJunit(out);
    default:
      return formatText(out);
  }
}

/** Kinds of signature change that can break a caller. */
const BREAKING_GROUPS = new Set(['added-required', 'removed', 'renamed', 'became-keyword-only', 'became-positional-only', 'default-removed', 'reordered']);

/** Whether an API report holds a change that can break a caller. */
export function hasBreakingChange(report: ApiReport): boolean {
  return report.removedModules.length > 0 || report.removedNames.length > 0 || report.movedNames.length > 0 || report.changedSignatures.some((c) => BREAKING_GROUPS.has(c.group));
}

/** The API-change report as GitHub workflow commands: breaking changes as errors, the rest as notices. */
export function formatReportGithub(report: ApiReport, cwd: string): string {
  const lines: string[] = [];
  const title = `apidrift diff ${report.baseline} -> ${report.target}`;
  for (const m of report.removedModules) lines.push(githubCommand('error', { title }, `module ${m.module} was removed${m.movedTo ? ` (its definitions moved to ${m.movedTo})` : ''}`));
  for (const n of report.removedNames) lines.push(githubCommand('error', { title }, `${n.kind === 'class' ? 'class' : 'function'} ${n.name} was removed`));
  for (const n of report.movedNames) lines.push(githubCommand('error', { title }, `${n.name} moved to ${n.to}`));
  for (const c of report.changedSignatures) {
    const breaking = BREAKING_GROUPS.has(c.group);
    const file = c.definition && !c.definition.file.includes('!') ? displayPath(c.definition.file, cwd) : undefined;
    const inside = file !== undefined && !file.startsWith('/') && !file.startsWith('..');
    lines.push(
      githubCommand(breaking ? 'error' : 'notice', { file: inside ? file : undefined, line: inside ? c.definition!.line : undefined, title }, `${c.name}: ${c.changes.map((x) => x.message).join('; ')}\nwas: ${c.baseline}\nnow: ${c.target}`),
    );
  }
  return lines.length > 0 ? lines.join('\n') + '\n' : '';
}
