/**
 * What changed between two versions of a callable's parameter list: added, removed, renamed
 * (only when it is safe to say so), reordered, kind changes and lost defaults.
 */
import type { Param } from '../syntax';

export type ChangeKind =
  | 'added-required'
  | 'added-optional'
  | 'removed'
  | 'renamed'
  | 'reordered'
  | 'became-keyword-only'
  | 'became-positional-only'
  | 'became-positional-or-keyword'
  | 'default-removed'
  | 'default-added';

export interface ParamChange {
  kind: ChangeKind;
  /** The parameter's name in the baseline (for removed/renamed/changed) or in the target (for added). */
  param: string;
  /** The new name, for renames. */
  to?: string;
  /** The old default, for default-removed. */
  oldDefault?: string;
  message: string;
}

const POSITIONAL = new Set(['posonly', 'normal']);

function named(params: Param[]): Param[] {
  return params.filter((p) => p.kind !== 'varargs' && p.kind !== 'varkw');
}

function render(p: Param): string {
  return p.annotation ? `${p.name}: ${p.annotation}` : p.name;
}

function normAnnotation(a: string | undefined): string | undefined {
  return a?.replace(/\s+/g, '').replace(/^Optional\[(.*)\]$/, '$1|None');
}

function tokens(name: string): string[] {
  return name.toLowerCase().split('_').filter(Boolean);
}

/** Names that plausibly mean the same thing: one contains the other, a shared word, or a small edit distance. */
export function similarNames(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  if (x.includes(y) || y.includes(x)) return true;
  const ta = tokens(a);
  const tb = tokens(b);
  if (ta.some((t) => t.length > 2 && tb.includes(t))) return true;
  return editDistance(x, y) <= Math.max(1, Math.floor(Math.min(x.length, y.length) / 4));
}

function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

function compatible(a: Param, b: Param): boolean {
  if (POSITIONAL.has(a.kind) !== POSITIONAL.has(b.kind)) return false;
  const na = normAnnotation(a.annotation);
  const nb = normAnnotation(b.annotation);
  if (na !== undefined && nb !== undefined && na !== nb) return false;
  if (a.hasDefault !== b.hasDefault) return false;
  if (a.hasDefault && b.hasDefault && a.defaultText !== b.defaultText) return false;
  return true;
}

/** Compares the parameters of a callable in the baseline and in the target. */
export function diffParams(base: Param[], target: Param[]): ParamChange[] {
  const changes: ParamChange[] = [];
  const b = named(base);
  const t = named(target);
  const inTarget = new Map(t.map((p) => [p.name, p]));
  const inBase = new Map(b.map((p) => [p.name, p]));
  const removed = b.filter((p) => !inTarget.has(p.name));
  const added = t.filter((p) => !inBase.has(p.name));
  const short = b.length <= 3 && t.length <= 3;

  // Renames: one removed and one added at the same or a neighbouring position, compatible in kind,
  // annotation and default, with similar names or a short list; each side used once.
  const renamed = new Map<string, string>();
  for (const r of removed) {
    const i = b.indexOf(r);
    const candidates = added.filter((a) => Math.abs(t.indexOf(a) - i) <= 1 && compatible(r, a) && (short || similarNames(r.name, a.name)));
    if (candidates.length !== 1) continue;
    const a = candidates[0];
    const rivals = removed.filter((r2) => Math.abs(b.indexOf(r2) - t.indexOf(a)) <= 1 && compatible(r2, a) && (short || similarNames(r2.name, a.name)));
    if (rivals.length !== 1) continue;
    renamed.set(r.name, a.name);
  }
  const renamedTo = new Set(renamed.values());

  for (const r of removed) {
    const to = renamed.get(r.name);
    if (to) changes.push({ kind: 'renamed', param: r.name, to, message: `keyword \`${r.name}\` was renamed to \`${to}\`` });
    else changes.push({ kind: 'removed', param: r.name, message: POSITIONAL.has(r.kind) || r.kind === 'kwonly' ? `keyword \`${r.name}\` was removed` : `\`${r.name}\` was removed` });
  }
  for (const a of added) {
    if (renamedTo.has(a.name)) continue;
    if (a.hasDefault) changes.push({ kind: 'added-optional', param: a.name, message: `\`${render(a)}\` was added as an optional parameter` });
    else changes.push({ kind: 'added-required', param: a.name, message: `\`${render(a)}\` was added as a required parameter` });
  }
  for (const p of b) {
    const q = inTarget.get(p.name);
    if (!q) continue;
    if (p.kind !== q.kind) {
      if (q.kind === 'kwonly') changes.push({ kind: 'became-keyword-only', param: p.name, message: `\`${p.name}\` became keyword-only` });
      else if (q.kind === 'posonly') changes.push({ kind: 'became-positional-only', param: p.name, message: `\`${p.name}\` became positional-only` });
      else changes.push({ kind: 'became-positional-or-keyword', param: p.name, message: `\`${p.name}\` can now be passed by position or keyword` });
    }
    if (p.hasDefault && !q.hasDefault) changes.push({ kind: 'default-removed', param: p.name, oldDefault: p.defaultText, message: `\`${p.name}\` lost its default${p.defaultText ? ` (it was \`${p.defaultText}\`)` : ''}` });
    if (!p.hasDefault && q.hasDefault) changes.push({ kind: 'default-added', param: p.name, message: `\`${p.name}\` gained a default` });
  }
  // Reordering among the positional parameters both versions have.
  const commonB = b.filter((p) => POSITIONAL.has(p.kind) && inTarget.has(p.name) && POSITIONAL.has(inTarget.get(p.name)!.kind)).map((p) => p.name);
  const commonT = t.filter((p) => POSITIONAL.has(p.kind) && inBase.has(p.name) && POSITIONAL.has(inBase.get(p.name)!.kind)).map((p) => p.name);
  if (commonB.join(',') !== commonT.join(',')) {
    changes.push({ kind: 'reordered', param: commonB.find((n, i) => commonT[i] !== n) ?? commonB[0], message: `positional parameters were reordered: (${commonB.join(', ')}) is now (${commonT.join(', ')})` });
  }
  const vb = base.find((p) => p.kind === 'varkw');
  const vt = target.find((p) => p.kind === 'varkw');
  if (vb && !vt) changes.push({ kind: 'removed', param: `**${vb.name}`, message: `\`**${vb.name}\` was removed: unknown keywords are now errors` });
  const ab = base.find((p) => p.kind === 'varargs');
  const at = target.find((p) => p.kind === 'varargs');
  if (ab && !at) changes.push({ kind: 'removed', param: `*${ab.name}`, message: `\`*${ab.name}\` was removed: extra positional arguments are now errors` });
  return changes;
}
