/**
 * With a baseline: the same file is checked against both versions, and each finding in the
 * target is explained by what changed at that call between the two.
 */
import type { CheckResult, OverrideInfo } from './check';
import { bindCall, type CallArg } from './bind';
import type { Sig } from '../resolve/callables';
import { diffParams, type ParamChange } from '../report/diff';
import { fixRenameKeyword } from './fixes';
import type { Param } from '../syntax';
import type { Finding, Range } from '../types';

/**
 * Parameter lists come from summaries that outlive a check (and are never changed), so the diff
 * of a pair is worked out once: a re-check after a keystroke explains every call again.
 */
const diffs = new WeakMap<Param[], WeakMap<Param[], { changes: ParamChange[]; messages: string[] }>>();

function diffOf(base: Param[], target: Param[]): { changes: ParamChange[]; messages: string[] } {
  let inner = diffs.get(base);
  if (!inner) {
    inner = new WeakMap();
    diffs.set(base, inner);
  }
  let d = inner.get(target);
  if (!d) {
    const changes = diffParams(base, target);
    d = { changes, messages: changes.map((c) => c.message) };
    inner.set(target, d);
  }
  return d;
}

function key(r: Range): string {
  return `${r.start.line}:${r.start.character}:${r.end.line}:${r.end.character}`;
}

/**
 * The finding with the change said (a new object: findings, like calls, may be handed out again
 * by the next check of an unchanged statement, so they are never changed in place here).
 */
function withChange(f: Finding, change: string): Finding {
  const at = f.message.indexOf('. Target signature:');
  const message = at >= 0 ? `${f.message.slice(0, at)}: ${change}${f.message.slice(at)}` : `${f.message}: ${change}`;
  return { ...f, change, message, fixes: f.fixes.map((x) => ({ ...x, edits: x.edits.map((e) => ({ ...e })) })) };
}

/** The change that explains a finding, if the two versions' signatures show one. */
function relevant(f: Finding, changes: ParamChange[], params?: Param[]): ParamChange | undefined {
  const p = f.param;
  switch (f.code) {
    case 'missing-argument':
      return (
        changes.find((c) => (c.kind === 'added-required' || c.kind === 'default-removed' || c.kind === 'became-keyword-only') && c.param === p) ??
        changes.find((c) => c.kind === 'renamed' && c.to === p)
      );
    case 'unexpected-keyword':
      return changes.find((c) => (c.kind === 'removed' || c.kind === 'renamed') && c.param === p);
    case 'positional-only-as-keyword':
      return changes.find((c) => c.kind === 'became-positional-only' && c.param === p);
    case 'too-many-positional':
      return changes.find((c) => c.kind === 'became-keyword-only') ?? changes.find((c) => c.kind === 'removed');
    case 'multiple-values': {
      // only a positional parameter added before `p` shifts the arguments onto it
      const order = params?.filter((x) => x.kind === 'posonly' || x.kind === 'normal').map((x) => x.name) ?? [];
      const before = (c: ParamChange): boolean => order.indexOf(c.param) >= 0 && order.indexOf(c.param) < order.indexOf(p ?? '');
      return changes.find((c) => c.kind === 'reordered') ?? changes.find((c) => (c.kind === 'added-required' || c.kind === 'added-optional') && before(c));
    }
    default:
      return undefined;
  }
}

/** Differences from the target's signature that an override may have and still take every call. */
const HARMLESS = new Set(['added-optional', 'default-added', 'became-positional-or-keyword']);

/** Changes of a base method after which every call that bound before still binds. */
const ALLOWS_MORE = new Set(['default-added', 'became-positional-or-keyword']);

/**
 * Whether an override was never called through its base's signature: it requires a parameter that
 * neither version of the base has, and takes neither of the plainest calls of the baseline's base
 * (its required arguments all by position, or all by keyword). Written against the baseline, it
 * would have failed there on any call the library made through the base.
 */
function requiresForeign(own: Param[], baseline: Param[], target: Param[]): boolean {
  const names = new Set([...baseline, ...target].map((p) => p.name));
  if (!own.some((p) => (p.kind === 'normal' || p.kind === 'kwonly') && !p.hasDefault && !names.has(p.name))) return false;
  const sig = { params: own, name: 'override', qualname: 'override', definition: null, origin: '' } as unknown as Sig;
  return plainCalls(baseline).every((args) => bindCall(sig, args).length > 0);
}

/** The two plainest calls a signature takes: its required arguments all by position where they may be, or all by keyword. */
function plainCalls(params: Param[]): CallArg[][] {
  const required = params.filter((p) => !p.hasDefault && (p.kind === 'posonly' || p.kind === 'normal' || p.kind === 'kwonly'));
  const byPosition = required.map((p, index): CallArg => (p.kind === 'kwonly' ? { kind: 'keyword', name: p.name, index } : { kind: 'positional', index }));
  const byKeyword = required.map((p, index): CallArg => (p.kind === 'posonly' ? { kind: 'positional', index } : { kind: 'keyword', name: p.name, index }));
  return [byPosition, byKeyword];
}

/**
 * The first of `count` positional arguments that reaches another parameter in the target than in
 * the baseline, where the target still has the baseline's parameter (by name): a parameter was
 * inserted or moved before it, and the value now lands elsewhere without any error. Or, `removed`,
 * where the baseline's parameter is gone and the one after it took its place. A parameter renamed
 * in place is no shift.
 */
function shiftedArgument(baseline: Param[], target: Param[], count: number): { index: number; was: string; now: string; removed?: boolean } | undefined {
  if (baseline.some((p) => p.preset) || target.some((p) => p.preset)) return undefined;
  const slots = (ps: Param[]): string[] => ps.filter((p) => p.kind === 'posonly' || p.kind === 'normal').map((p) => p.name);
  const was = slots(baseline);
  const now = slots(target);
  const names = new Set(target.map((p) => p.name));
  const before = new Set(baseline.map((p) => p.name));
  for (let i = 0; i < count && i < was.length && i < now.length; i++) {
    if (was[i] === now[i]) continue;
    if (names.has(was[i])) return { index: i, was: was[i], now: now[i] };
    // the baseline's parameter is gone and the one after it slid into its place: the value meant
    // for the removed one now lands on that one (a parameter renamed in place takes a new name)
    if (before.has(now[i]) && was[i + 1] === now[i]) return { index: i, was: was[i], now: now[i], removed: true };
  }
  return undefined;
}

/** Whether an override's own parameters already accept every call the target's signature allows. */
function fitsTarget(own: Param[] | undefined, target: Param[]): boolean {
  if (!own) return false;
  if (own.some((p) => p.kind === 'varargs') && own.some((p) => p.kind === 'varkw')) return true;
  return diffParams(target, own).every((c) => HARMLESS.has(c.kind));
}

/** The text calls a method of this name (`x.name(...)`), or names it in a string. */
function callsByName(text: string, name: string): boolean {
  return new RegExp(`\\.${name}\\s*\\(`).test(text) || text.includes(`"${name}"`) || text.includes(`'${name}'`);
}

/** `text`: the file's text as checked, for overrides whose reach depends on what the file calls (see `OverrideInfo.unlessCalled`). */
export function explainAgainstBaseline(target: CheckResult, base: CheckResult, file: string, text = ''): void {
  const unreached = (o: OverrideInfo): boolean => !!o.unreached && !(o.unlessCalled ?? []).some((name) => callsByName(text, name));
  const baseCalls = new Map(base.calls.map((c) => [key(c.extent), c]));
  const changesByCall = new Map<string, ParamChange[]>();
  const paramsByCall = new Map<string, Param[]>();
  for (const call of target.calls) {
    // a call taken over from the last check may carry what it was told then: set it afresh
    const b = baseCalls.get(key(call.extent));
    if (!b) {
      if (call.baseline !== undefined) call.baseline = undefined;
      if (call.changes !== undefined) call.changes = undefined;
      continue;
    }
    if (call.baseline?.signatures !== b.signatures || call.baseline.definition !== b.definition) call.baseline = { signatures: b.signatures, definition: b.definition };
    if (b.params && call.params && b.params.length === 1 && call.params.length === 1) {
      const { changes, messages } = diffOf(b.params[0], call.params[0]);
      changesByCall.set(key(call.extent), changes);
      paramsByCall.set(key(call.extent), call.params[0]);
      call.changes = messages;
    } else if (call.changes !== undefined) call.changes = undefined;
  }
  for (let i = 0; i < target.findings.length; i++) {
    const found = target.findings[i];
    if (!found.call) continue;
    const changes = changesByCall.get(key(found.call));
    if (!changes) continue;
    const c = relevant(found, changes, paramsByCall.get(key(found.call)));
    if (!c) continue;
    const f = withChange(found, c.message);
    target.findings[i] = f;
    if (c.kind === 'renamed' && c.to && f.code === 'unexpected-keyword' && f.param) {
      for (const fix of f.fixes) fix.preferred = false;
      f.fixes.unshift(fixRenameKeyword(f.range.start, f.param, c.to));
    }
    if (c.kind === 'default-removed' && c.oldDefault) {
      // insert the old default rather than a placeholder
      // the fix may insert several missing arguments: only this one's placeholder is filled
      const oldDefault = c.oldDefault;
      const placeholder = new RegExp(`(^|[\\s,(])${c.param}=\\$\\{\\d+:\\.\\.\\.\\}`);
      for (const fix of f.fixes) {
        if (!fix.snippet || !fix.edits.some((e) => placeholder.test(e.newText))) continue;
        const rest = fix.edits.some((e) => (e.newText.match(/\$\{\d+:/g) ?? []).length > 1);
        // text that stays a snippet has its own `$`, `}` and `\` escaped
        const value = rest ? oldDefault.replace(/[$}\\]/g, (m) => `\\${m}`) : oldDefault;
        for (const e of fix.edits) e.newText = e.newText.replace(placeholder, (_m, pre: string) => `${pre}${c.param}=${value}`);
        fix.snippet = rest;
        fix.title = fix.title.replace(`${c.param}=...`, () => `${c.param}=${oldDefault} (its old default)`);
      }
    }
  }
  const extra: Finding[] = [];
  /** A warning about an override (or a class) of the user's, at `o.range`, about the target's `o.base`. */
  const overrideWarning = (o: OverrideInfo, message: string, change: string): void => {
    extra.push({ file, range: o.range, severity: 'warning', code: 'changed-override', message, callee: o.base, param: null, fixes: [], definition: o.definition, change });
  };
  // positional arguments that now reach another parameter, while the one they reached is still there
  const failed = new Set(target.findings.filter((f) => f.call && f.severity === 'error').map((f) => key(f.call!)));
  // a call that did not bind in the baseline says nothing of where its arguments went there
  const failedBefore = new Set(base.findings.filter((f) => f.call && f.severity === 'error').map((f) => key(f.call!)));
  for (const call of target.calls) {
    const b = baseCalls.get(key(call.extent));
    if (!b || b.callee !== call.callee || !b.params || !call.params || b.params.length !== 1 || call.params.length !== 1 || failed.has(key(call.extent)) || failedBefore.has(key(call.extent))) continue;
    const n = Math.min(call.positional ?? 0, b.positional ?? 0);
    const shift = shiftedArgument(b.params[0], call.params[0], n);
    if (!shift) continue;
    // `Scheduler.__init__`, `pool`
    const name = call.callee.split('.').slice(/\.__\w+__$/.test(call.callee) ? -2 : -1).join('.');
    extra.push({
      file,
      range: call.range,
      severity: 'warning',
      code: 'shifted-argument',
      message: shift.removed
        ? `positional argument ${shift.index + 1} of ${name}() now goes to \`${shift.now}\`; in the baseline it went to \`${shift.was}\`, which the target removed (drop the argument)`
        : `positional argument ${shift.index + 1} of ${name}() now goes to \`${shift.now}\`; in the baseline it went to \`${shift.was}\`, which the target still has (pass it by keyword)`,
      callee: call.callee,
      param: shift.was,
      fixes: [],
      definition: call.definition,
      call: call.extent,
      change: shift.removed ? `\`${shift.was}\` was removed` : `\`${shift.now}\` now comes before \`${shift.was}\``,
    });
  }
  // overrides of methods whose signature changed
  const baseOverrides = new Map(base.overrides.filter((o) => !o.abstract && !o.overridesNothing).map((o) => [key(o.range), o]));
  // user classes that ABCMeta would build in the baseline (every abstract method implemented) and
  // refuses to build in the target: an abstract method new there, or renamed
  const concreteBefore = new Set(base.overrides.filter((o) => o.abstract === 'done').map((o) => key(o.range)));
  for (const o of base.overrides) if (o.abstract === 'missing') concreteBefore.delete(key(o.range));
  for (const o of target.overrides) {
    if (o.abstract !== 'missing' || !concreteBefore.has(key(o.range))) continue;
    overrideWarning(o, `this class does not implement ${o.base}, abstract in the target: it can no longer be instantiated (TypeError: Can't instantiate abstract class), where it could be with the baseline`, `\`${o.base}\` is abstract (new, or renamed)`);
  }
  for (const o of target.overrides) {
    if (o.abstract) continue;
    const b = baseOverrides.get(key(o.range));
    if (o.overridesNothing) {
      // a method of the user's that overrode one of the baseline's base classes, which the target
      // no longer has anywhere along the MRO: the library does not call it any more
      if (b) {
        const shown = b.base.slice(b.base.lastIndexOf('.', b.base.lastIndexOf('.') - 1) + 1);
        const twin = o.renamedTo ? `; ${o.renamedTo}, new in the target, takes the same parameters (renamed?)` : '';
        overrideWarning({ ...o, base: b.base, definition: b.definition }, `this method overrode ${shown} in the baseline, which no class along its MRO defines in the target: the library no longer calls it there${twin}`, `\`${b.base}\` was removed`);
      }
      continue;
    }
    if (!b) {
      // a method of the user's that a base class of the target now has too: the library calls it
      // through the new base method's signature
      if (o.newInTarget && o.own && !fitsTarget(o.own, o.params) && !unreached(o)) {
        const shown = o.base.slice(o.base.lastIndexOf('.', o.base.lastIndexOf('.') - 1) + 1);
        const params = o.params.filter((p, i) => i > 0 || !/^(self|cls)$/.test(p.name)).map((p) => p.name);
        overrideWarning(o, `${o.base} is new in the target, and this method now overrides it: it will be called as ${shown}(${params.join(', ')}) is`, `\`${o.base}\` was added`);
      }
      continue;
    }
    // a parameter renamed where it stands that the override takes under neither name, or a
    // keyword-only one it never took that the base dropped, changes no call of it: the library's
    // calls that bound to it before did not pass that keyword (positions stay where they were)
    const ownNames = new Set((o.own ?? []).map((p) => p.name));
    const keywordOnlyBefore = new Set(b.params.filter((p) => p.kind === 'kwonly').map((p) => p.name));
    const changes = diffParams(b.params, o.params).filter((c) => !o.own || !((c.kind === 'renamed' && !ownNames.has(c.param) && !ownNames.has(c.to!)) || (c.kind === 'removed' && keywordOnlyBefore.has(c.param) && !ownNames.has(c.param))));
    if (changes.length === 0) continue;
    // the target's calls of the method by name miss this override or bind to it
    if (unreached(o)) continue;
    // a base that only came to allow more calls (a parameter given a default, or made positional)
    // says nothing of the calls the library makes: those that bound before still bind
    if (changes.every((c) => ALLOWS_MORE.has(c.kind))) continue;
    // an override already written for the new signature needs no warning
    if (fitsTarget(o.own, o.params)) continue;
    // one that requires an argument neither version of the base takes is not called through the
    // base's signature: the change tells nothing of it
    if (o.own && requiresForeign(o.own, b.params, o.params)) continue;
    const what = changes.map((c) => c.message).join('; ');
    overrideWarning(o, `${o.base} changed between the baseline and the target (${what}): where the library calls ${o.patch ? 'the function put in its place here' : 'this override'}, it passes the new arguments`, what);
  }
  target.findings.push(...extra);
  target.findings.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}
