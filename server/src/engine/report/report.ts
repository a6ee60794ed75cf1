/**
 * The API-change report: what a library's public names and signatures did between two versions.
 * Removed modules and names, moved names, and changed signatures grouped by kind; optionally
 * restricted to what given code uses, ranked by the number of uses.
 */
import { movedTo as movedFrom } from './moved';
import { type CallSpec, Callables, type Sig, sigText } from '../resolve/callables';
import { type ChangeKind, diffParams, type ParamChange } from './diff';
import type { FullIndex, Program, Value } from '../resolve/program';
import type { ModuleSummary } from '../index/summary';
import type { SourceLocation } from '../types';

export interface ChangedSignature {
  /** Dotted name, as the baseline's module exposes it. */
  name: string;
  /** Where the target defines it (differs for re-exports). */
  definedAs: string;
  kind: 'function' | 'constructor' | 'method';
  baseline: string;
  target: string;
  changes: ParamChange[];
  /** The most important kind of change, which decides the group it is listed under. */
  group: ChangeKind;
  definition: SourceLocation | null;
  baselineDefinition: SourceLocation | null;
  uses?: number;
}

export interface ApiReport {
  baseline: string;
  target: string;
  package: string | null;
  removedModules: Array<{ module: string; movedTo: string | null; uses?: number }>;
  removedNames: Array<{ name: string; kind: 'def' | 'class'; uses?: number }>;
  movedNames: Array<{ name: string; to: string; uses?: number }>;
  changedSignatures: ChangedSignature[];
  stats: { baselineModules: number; targetModules: number; compared: number; ms: number };
}

/** The order in which change kinds matter to a caller; a signature is listed under its first. */
export const GROUP_ORDER: Array<{ kind: ChangeKind; title: string }> = [
  { kind: 'added-required', title: 'Required parameters added' },
  { kind: 'removed', title: 'Parameters removed' },
  { kind: 'renamed', title: 'Parameters renamed' },
  { kind: 'became-keyword-only', title: 'Parameters that became keyword-only' },
  { kind: 'became-positional-only', title: 'Parameters that became positional-only' },
  { kind: 'default-removed', title: 'Defaults removed' },
  { kind: 'reordered', title: 'Parameters reordered' },
  { kind: 'added-optional', title: 'Optional parameters added' },
  { kind: 'became-positional-or-keyword', title: 'Parameters that may now be passed by keyword' },
  { kind: 'default-added', title: 'Defaults added' },
];

function single(spec: CallSpec): Sig | undefined {
  if (spec.kind !== 'known' || spec.alternatives.length !== 1) return undefined;
  const conj = spec.alternatives[0];
  return conj[conj.length - 1];
}

function inPackage(module: string, pkg: string | undefined): boolean {
  return !pkg || module === pkg || module.startsWith(pkg + '.');
}

/**
 * The baseline modules a report restricted to `uses` need compare (a superset): an entry is named
 * by the baseline module that defines it and counts the uses of that name and of where the target
 * defines it now (another module, when the name moved and the old module re-exports it, or a base
 * class, when a method is inherited now). So: each module a used name lies in; each module that
 * defines a def or class named as a part of a used name; each module with a class that defines a
 * method of the name a used name ends with.
 */
function usedModules(uses: Map<string, number>, baseIndex: FullIndex): Set<string> {
  const out = new Set<string>();
  const names = new Set<string>();
  const methods = new Set<string>();
  for (const [n, count] of uses) {
    if (count <= 0) continue;
    const parts = n.split('.');
    for (let i = 1; i <= parts.length; i++) out.add(parts.slice(0, i).join('.'));
    for (const p of parts) names.add(p);
    if (parts.length > 2) methods.add(parts[parts.length - 1]);
  }
  for (const n of names) for (const e of baseIndex.definitions.get(n) ?? []) out.add(e.module);
  for (const c of baseIndex.classes) if (c.methods.some((m) => methods.has(m))) out.add(c.module);
  return out;
}

function isPublic(name: string): boolean {
  return !name.startsWith('_');
}

export interface ReportOptions {
  package?: string;
  /** Uses by dotted name (only these are reported when given). */
  uses?: Map<string, number>;
  onProgress?: (done: number, total: number) => void;
}

export function buildReport(base: Program, target: Program, labels: { baseline: string; target: string }, opts: ReportOptions = {}): ApiReport {
  const started = performance.now();
  // with uses, only the modules the used names need are compared (found with the baseline's
  // index), and the target's full index is built only when a used name is gone and may have moved
  const baseIndex = base.buildFullIndex();
  const used = opts.uses ? usedModules(opts.uses, baseIndex) : undefined;
  const modules = (used ? [...used].filter((m) => base.findModule(m)).sort() : baseIndex.modules).filter((m) => inPackage(m, opts.package));
  let targetIndex: FullIndex | undefined;
  /** A name the report leaves out (it is restricted to uses, and this one has none): where it went is not looked for. */
  const unused = (n: string): boolean => !!opts.uses && !((opts.uses.get(n) ?? 0) > 0);
  const bc = new Callables(base);
  const tc = new Callables(target);
  const report: ApiReport = {
    baseline: labels.baseline,
    target: labels.target,
    package: opts.package ?? null,
    removedModules: [],
    removedNames: [],
    movedNames: [],
    changedSignatures: [],
    stats: { baselineModules: baseIndex.modules.length, targetModules: used ? target.allModules().length : target.buildFullIndex().modules.length, compared: 0, ms: 0 },
  };
  const movedTo = (module: string, name: string, kind: 'def' | 'class'): string | undefined => movedFrom(base, target, (targetIndex ??= target.buildFullIndex()), module, name, kind);
  const compare = (name: string, kind: ChangedSignature['kind'], b: CallSpec, t: CallSpec): void => {
    const bs = single(b);
    const ts = single(t);
    if (!bs || !ts) return;
    report.stats.compared++;
    const changes = diffParams(bs.params, ts.params);
    if (changes.length === 0) return;
    const group = GROUP_ORDER.find((g) => changes.some((c) => c.kind === g.kind))!.kind;
    report.changedSignatures.push({ name, definedAs: ts.qualname, kind, baseline: sigText(bs), target: sigText(ts), changes, group, definition: ts.definition, baselineDefinition: bs.definition });
  };
  modules.forEach((module, i) => {
    opts.onProgress?.(i, modules.length);
    const bsum = base.summary(module);
    if (!target.findModule(module)) {
      let to: string | null = null;
      if (bsum && !unused(module)) {
        const defs = [...bsum.bindings.entries()].filter(([, bs]) => bs.some((b) => b.kind === 'def' || b.kind === 'class'));
        const places = new Set(defs.map(([n, bs]) => movedTo(module, n, bs.some((b) => b.kind === 'class') ? 'class' : 'def') ?? null));
        if (defs.length > 0 && places.size === 1) to = [...places][0];
      }
      report.removedModules.push({ module, movedTo: to });
      return;
    }
    if (!bsum) return;
    for (const [name, bindings] of bsum.bindings) {
      if (!isPublic(name)) continue;
      const own = bindings.filter((b) => b.kind === 'def' || b.kind === 'class');
      if (own.length === 0) continue;
      const kind = own.some((b) => b.kind === 'class') ? 'class' : 'def';
      const now = target.resolveMember(module, name);
      const dotted = `${module}.${name}`;
      if (now.kind === 'missing') {
        const to = unused(dotted) ? undefined : movedTo(module, name, kind);
        if (to) report.movedNames.push({ name: dotted, to: `${to}.${name}` });
        else report.removedNames.push({ name: dotted, kind });
        continue;
      }
      const was = base.resolveMember(module, name);
      compareValues(dotted, was, now, bsum);
    }
  });

  function compareValues(dotted: string, was: Value, now: Value, bsum: ModuleSummary): void {
    if (was.kind === 'function' && now.kind === 'function') {
      compare(dotted, 'function', bc.functionSpec(was.fn, was.summary, undefined, 'plain'), tc.functionSpec(now.fn, now.summary, undefined, 'plain'));
    } else if (was.kind === 'class' && now.kind === 'class') {
      compare(dotted, 'constructor', bc.constructorSpec(was.cls, was.summary), tc.constructorSpec(now.cls, now.summary));
      for (const [m, mb] of was.cls.members) {
        if (!isPublic(m) || !mb.some((b) => b.kind === 'def')) continue;
        const bm = base.classMember(was.cls, was.summary, m);
        const tm = target.classMember(now.cls, now.summary, m);
        if (!bm || !tm || bm.kind !== 'function' || tm.kind !== 'function') continue;
        compare(`${dotted}.${m}`, 'method', bc.specOf(bm, 'instance'), tc.specOf(tm, 'instance'));
      }
    }
    void bsum;
  }

  if (opts.uses) {
    const uses = opts.uses;
    const count = (n: string): number => uses.get(n) ?? 0;
    report.removedModules = report.removedModules.map((x) => ({ ...x, uses: count(x.module) })).filter((x) => x.uses > 0);
    report.removedNames = report.removedNames.map((x) => ({ ...x, uses: count(x.name) })).filter((x) => x.uses > 0);
    report.movedNames = report.movedNames.map((x) => ({ ...x, uses: count(x.name) })).filter((x) => x.uses > 0);
    report.changedSignatures = report.changedSignatures.map((x) => ({ ...x, uses: count(x.name) + (x.definedAs !== x.name ? count(x.definedAs) : 0) })).filter((x) => (x.uses ?? 0) > 0);
    const byUses = (a: { uses?: number }, b: { uses?: number }): number => (b.uses ?? 0) - (a.uses ?? 0);
    report.removedModules.sort(byUses);
    report.removedNames.sort(byUses);
    report.movedNames.sort(byUses);
    report.changedSignatures.sort(byUses);
  }
  report.stats.ms = Math.round(performance.now() - started);
  return report;
}

function usesSuffix(n: number | undefined): string {
  return n === undefined ? '' : `  [${n} use${n === 1 ? '' : 's'}]`;
}

/** Plain text, also the `apidrift-report` language shown in VS Code. */
export function formatReportText(r: ApiReport): string {
  const out: string[] = [];
  out.push(`apidrift API changes: ${r.baseline} -> ${r.target}${r.package ? ` (package ${r.package})` : ''}`);
  out.push(
    `${r.removedModules.length} removed modules, ${r.removedNames.length} removed names, ${r.movedNames.length} moved names, ${r.changedSignatures.length} changed signatures`,
  );
  if (r.removedModules.length) {
    out.push('', 'Removed modules');
    for (const m of r.removedModules) out.push(`  - ${m.module}${m.movedTo ? `  (its names now live in ${m.movedTo})` : ''}${usesSuffix(m.uses)}`);
  }
  if (r.removedNames.length) {
    out.push('', 'Removed names');
    for (const n of r.removedNames) out.push(`  - ${n.name}  (${n.kind === 'class' ? 'class' : 'function'})${usesSuffix(n.uses)}`);
  }
  if (r.movedNames.length) {
    out.push('', 'Moved names');
    for (const n of r.movedNames) out.push(`  > ${n.name} -> ${n.to}${usesSuffix(n.uses)}`);
  }
  for (const g of GROUP_ORDER) {
    const items = r.changedSignatures.filter((c) => c.group === g.kind);
    if (!items.length) continue;
    out.push('', `Changed signatures: ${g.title}`);
    for (const c of items) {
      out.push(`  ~ ${c.name}  (${c.kind})${usesSuffix(c.uses)}`);
      for (const ch of c.changes) out.push(`      * ${ch.message.replace(/`/g, '')}`);
      out.push(`      - ${c.baseline}`);
      out.push(`      + ${c.target}`);
    }
  }
  return out.join('\n') + '\n';
}

export function formatReportMarkdown(r: ApiReport): string {
  const out: string[] = [];
  out.push(`# API changes: \`${r.baseline}\` → \`${r.target}\`${r.package ? ` (package \`${r.package}\`)` : ''}`, '');
  out.push(`${r.removedModules.length} removed modules, ${r.removedNames.length} removed names, ${r.movedNames.length} moved names, ${r.changedSignatures.length} changed signatures.`);
  const uses = (n: number | undefined): string => (n === undefined ? '' : ` — ${n} use${n === 1 ? '' : 's'}`);
  if (r.removedModules.length) {
    out.push('', '## Removed modules', '');
    for (const m of r.removedModules) out.push(`- \`${m.module}\`${m.movedTo ? ` (its names now live in \`${m.movedTo}\`)` : ''}${uses(m.uses)}`);
  }
  if (r.removedNames.length) {
    out.push('', '## Removed names', '');
    for (const n of r.removedNames) out.push(`- \`${n.name}\` (${n.kind === 'class' ? 'class' : 'function'})${uses(n.uses)}`);
  }
  if (r.movedNames.length) {
    out.push('', '## Moved names', '');
    for (const n of r.movedNames) out.push(`- \`${n.name}\` → \`${n.to}\`${uses(n.uses)}`);
  }
  for (const g of GROUP_ORDER) {
    const items = r.changedSignatures.filter((c) => c.group === g.kind);
    if (!items.length) continue;
    out.push('', `## Changed signatures: ${g.title}`, '');
    for (const c of items) {
      out.push(`### \`${c.name}\` (${c.kind})${uses(c.uses)}`, '');
      for (const ch of c.changes) out.push(`- ${ch.message}`);
      out.push('', '```python', `# baseline`, c.baseline, `# target`, c.target, '```', '');
    }
  }
  return out.join('\n') + '\n';
}
