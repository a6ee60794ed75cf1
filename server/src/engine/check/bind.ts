/**
 * CPython's argument binding, decided statically (SEMANTICS A1/A2): which errors a call with
 * these arguments certainly raises against a signature. Star arguments of unknown length are
 * handled conservatively: only what fails whatever they contain is reported.
 */
import type { BindErrorKind, Sig } from '../resolve/callables';

export interface CallArg {
  /** `maybeKeyword`: a key a `**mapping` of known keys may or may not hold when the call is made. */
  kind: 'positional' | 'keyword' | 'star' | 'dstar' | 'maybeKeyword';
  name?: string;
  /** Index of the argument node in the call, for ranges. */
  index: number;
}

export interface BindError {
  kind: BindErrorKind;
  param: string | null;
  /** The argument concerned, or undefined for a missing parameter. */
  argIndex?: number;
  message: string;
}

/**
 * `open`, when given, collects the required parameters that only unpacked arguments (`*args`,
 * `**kwargs` of unknown content, a key a dict may or may not hold) may fill: whether the call binds
 * then depends on what they hold.
 */
export function bindCall(sig: Sig, args: CallArg[], open?: Set<string>): BindError[] {
  const errors: BindError[] = [];
  const params = sig.params;
  const positionalParams = params.filter((p) => p.kind === 'posonly' || p.kind === 'normal');
  const hasVarargs = params.some((p) => p.kind === 'varargs');
  const hasVarkw = params.some((p) => p.kind === 'varkw');
  const filled = new Set<string>();
  const maybeFilled = new Set<string>();
  const firstStar = args.findIndex((a) => a.kind === 'star');
  const hasStar = firstStar >= 0;
  const hasDstar = args.some((a) => a.kind === 'dstar');
  const name = sig.name;

  // 1. positional arguments (a functools.partial's own come first)
  let slot = 0;
  for (let i = 0; i < (sig.boundPositional ?? 0) && slot < positionalParams.length; i++) filled.add(positionalParams[slot++].name);
  let tooMany: CallArg | undefined;
  let positionalCount = sig.boundPositional ?? 0;
  for (let at = 0; at < args.length; at++) {
    const a = args[at];
    if (a.kind === 'star') {
      for (let i = slot; i < positionalParams.length; i++) maybeFilled.add(positionalParams[i].name);
      continue;
    }
    if (a.kind !== 'positional') continue;
    positionalCount++;
    if (!hasStar || at < firstStar) {
      if (slot < positionalParams.length && positionalParams[slot].preset) {
        errors.push({ kind: 'multiple-values', param: positionalParams[slot].name, argIndex: a.index, message: `${name}() got multiple values for argument '${positionalParams[slot].name}'` });
      }
      if (slot < positionalParams.length) filled.add(positionalParams[slot].name);
      else if (!hasVarargs && !tooMany) tooMany = a;
      slot++;
    } else if (!hasVarargs && positionalCount > positionalParams.length && !tooMany) {
      // positionals after *x: the star may be empty, but the literal ones alone already overflow
      tooMany = a;
    }
  }
  if (tooMany) {
    const takes = positionalParams.length;
    errors.push({
      kind: 'too-many-positional',
      param: null,
      argIndex: tooMany.index,
      message: `${name}() takes ${takes} positional argument${takes === 1 ? '' : 's'} but ${positionalCount}${hasStar ? ' or more' : ''} were given`,
    });
  }

  // 2. keyword arguments (parameters found by name in a map: a call may have thousands)
  const byName = new Map<string, (typeof params)[number]>();
  for (const x of params) if ((x.kind === 'normal' || x.kind === 'kwonly' || x.kind === 'posonly') && !byName.has(x.name)) byName.set(x.name, x);
  for (const a of args) {
    if (a.kind === 'maybeKeyword' && a.name) {
      // it may fill a parameter, and nothing may be said of it: it may not be there at all
      const p = byName.get(a.name);
      if (p && p.kind !== 'posonly') maybeFilled.add(p.name);
      continue;
    }
    if (a.kind !== 'keyword' || !a.name) continue;
    const p = byName.get(a.name);
    if (p && p.kind !== 'posonly') {
      if (filled.has(p.name)) {
        errors.push({ kind: 'multiple-values', param: p.name, argIndex: a.index, message: `${name}() got multiple values for argument '${p.name}'` });
      } else {
        filled.add(p.name);
      }
      continue;
    }
    if (p && p.kind === 'posonly') {
      if (!hasVarkw) {
        errors.push({ kind: 'positional-only-as-keyword', param: p.name, argIndex: a.index, message: `${name}() got a positional-only argument passed as keyword argument: '${p.name}'` });
      }
      continue;
    }
    if (!hasVarkw && !sig.ignoredKeywords?.has(a.name)) {
      errors.push({ kind: 'unexpected-keyword', param: a.name, argIndex: a.index, message: `${name}() got an unexpected keyword argument '${a.name}'` });
    }
  }

  // 3. required parameters left empty
  for (const p of params) {
    if (p.hasDefault || filled.has(p.name) || p.kind === 'varargs' || p.kind === 'varkw') continue;
    if (maybeFilled.has(p.name) || (hasDstar && (p.kind === 'normal' || p.kind === 'kwonly')) || (hasStar && p.kind !== 'kwonly')) {
      open?.add(p.name);
      continue;
    }
    const what = p.kind === 'kwonly' ? 'keyword-only argument' : 'positional argument';
    errors.push({ kind: 'missing-argument', param: p.name, message: `${name}() missing 1 required ${what}: '${p.name}'` });
  }
  return sig.reports ? errors.filter((e) => sig.reports!.has(e.kind)) : errors;
}
