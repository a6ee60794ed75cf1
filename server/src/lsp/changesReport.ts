/**
 * "Show API changes" in the editor: the report between the baseline and the target, starting with
 * the changes the workspace uses (most used first, each with the places that use it), then the
 * whole report. Plain text for the `apidrift-report` language, with the spans that are links.
 */
import { type ApiReport, formatReportText, GROUP_ORDER } from '../engine/report/report';

/** A place that uses a name: a file and a 1-based line. */
export interface UsePlace {
  file: string;
  line: number;
}

/** A span of the text (0-based line and column) that links to a file's line, or to a line of the report itself (no file). */
export interface ReportLink {
  line: number;
  character: number;
  length: number;
  file?: string;
  targetLine: number;
}

export interface WorkspaceReport {
  text: string;
  links: ReportLink[];
  /** The changes the workspace uses, most used first (dotted names). */
  used: Array<{ name: string; uses: number }>;
  /** The 1-based line where the whole report starts. */
  fullReportLine: number;
}

interface Entry {
  name: string;
  what: string;
  details: string[];
  places: UsePlace[];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The report with the changes `uses` hits first. `uses` maps a dotted name (a callee, an imported
 * name or module) to the places that use it; `label` shows a file as the user knows it (relative
 * to the workspace).
 */
export function workspaceReport(full: ApiReport, uses: Map<string, UsePlace[]>, label: (file: string) => string): WorkspaceReport {
  const placesOf = (...names: string[]): UsePlace[] => {
    const out: UsePlace[] = [];
    const seen = new Set<string>();
    for (const n of new Set(names)) {
      for (const p of uses.get(n) ?? []) {
        const k = `${p.file}:${p.line}`;
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(p);
      }
    }
    return out;
  };
  const entries: Entry[] = [];
  for (const m of full.removedModules) {
    // a module is used by every name taken from it
    const names = [...uses.keys()].filter((n) => n === m.module || n.startsWith(m.module + '.'));
    entries.push({ name: m.module, what: 'removed module', details: m.movedTo ? [`its names now live in ${m.movedTo}`] : [], places: placesOf(...names) });
  }
  for (const n of full.removedNames) entries.push({ name: n.name, what: `removed ${n.kind === 'class' ? 'class' : 'function'}`, details: [], places: placesOf(n.name) });
  for (const n of full.movedNames) entries.push({ name: n.name, what: 'moved', details: [`now ${n.to}`], places: placesOf(n.name, n.to) });
  for (const c of full.changedSignatures) {
    const group = GROUP_ORDER.find((g) => g.kind === c.group)?.title.toLowerCase() ?? c.group;
    entries.push({
      name: c.name,
      what: `${c.kind}: ${group}`,
      details: [...c.changes.map((ch) => `* ${ch.message.replace(/`/g, '')}`), `- ${c.baseline}`, `+ ${c.target}`],
      places: placesOf(c.name, c.definedAs),
    });
  }
  const used = entries.filter((e) => e.places.length > 0).sort((a, b) => b.places.length - a.places.length || a.name.localeCompare(b.name));
  const total = full.removedModules.length + full.removedNames.length + full.movedNames.length + full.changedSignatures.length;

  const lines: string[] = [];
  const links: ReportLink[] = [];
  lines.push(`apidrift API changes: ${full.baseline} -> ${full.target}${full.package ? ` (package ${full.package})` : ''}`);
  const files = new Set(used.flatMap((e) => e.places.map((p) => p.file)));
  const uses_ = used.reduce((s, e) => s + e.places.length, 0);
  lines.push(
    used.length > 0
      ? `This workspace uses ${used.length} of the ${total} changes (${plural(uses_, 'place')} in ${plural(files.size, 'file')}), most used first.`
      : `Nothing in this workspace uses any of the ${total} changes.`,
  );
  const fullLinkAt = lines.length;
  lines.push(''); // filled in below, once the line of the whole report is known
  if (used.length > 0) {
    lines.push('', 'Used by this workspace');
    for (const e of used) {
      lines.push(`  ~ ${e.name}  (${e.what})  [${plural(e.places.length, 'use')}]`);
      for (const d of e.details) lines.push(`      ${d}`);
      // the places, several on a line, each a link to its file and line
      const shown = e.places.slice().sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
      for (let i = 0; i < shown.length; i += 6) {
        let text = i === 0 ? '      used at ' : '              ';
        shown.slice(i, i + 6).forEach((p, j) => {
          if (j > 0) text += ', ';
          const l = `${label(p.file)}:${p.line}`;
          links.push({ line: lines.length, character: text.length, length: l.length, file: p.file, targetLine: p.line });
          text += l;
        });
        lines.push(text);
      }
    }
  }
  lines.push('', 'All changes', '');
  const fullReportLine = lines.length + 1;
  const head = `The whole report: line ${fullReportLine}`;
  lines[fullLinkAt] = head;
  links.push({ line: fullLinkAt, character: 0, length: head.length, targetLine: fullReportLine });
  const text = lines.join('\n') + '\n' + formatReportText(full);
  return { text, links, used: used.map((e) => ({ name: e.name, uses: e.places.length })), fullReportLine };
}
