/**
 * Whether a def or class that a baseline module defined, and that the module no longer has, moved
 * to another target module: the same API in a new place, not merely something else of the same
 * name. A move is said when the module the baseline's name came from (it re-exported it from
 * there) defines it in the target, or else when exactly one target module defines a def or class
 * of that name and kind, and
 *   - the two definitions have the same shape: mostly the same parameter names for a function,
 *     mostly the same members, fields and `__init__` parameters for a class, or parameters of the
 *     same kinds in the same order (a parameter renamed on the way is still a move; an unrelated
 *     definition is not);
 *   - when that module defined the name in the baseline already, its definition had mostly the
 *     same names then too (a copy of the same API that stays when the original goes), else it is
 *     another API that happens to share the name.
 */
import type { Program, FullIndex } from '../resolve/program';

type Kind = 'def' | 'class';

/** The module that really defines what `module.name` resolves to (itself, or where it re-exports it from). */
function homeOf(program: Program, module: string, name: string): string | undefined {
  const v = program.resolveMember(module, name);
  if (v.kind === 'class') return v.cls.module;
  if (v.kind === 'function' && !v.owner) return v.summary.name;
  return undefined;
}

/** What makes up a definition's shape: its names (parameters; members and fields), and the kinds of its parameters in order. */
interface Shape {
  names: Set<string>;
  kinds: string;
}

function shapeOf(program: Program, module: string, name: string, kind: Kind): Shape | undefined {
  const v = program.resolveMember(module, name);
  // a definition under a condition (`try: import ray` ... `class RayWorkerWrapper`) resolves to
  // no one value: its module's own last definition gives the shape
  const own = [...(program.summary(module)?.bindings.get(name) ?? [])].reverse();
  const fn = v.kind === 'function' ? v.fn : own.find((b) => b.kind === 'def')?.fn;
  const cls = v.kind === 'class' ? v.cls : own.find((b) => b.kind === 'class')?.cls;
  if (kind === 'def' && fn) return { names: new Set(fn.params.map((p) => p.name)), kinds: fn.params.map((p) => p.kind).join(',') };
  if (kind === 'class' && cls) {
    const names = new Set<string>([...cls.members.keys(), ...cls.fields.map((f) => f.name)]);
    let kinds = '';
    for (const b of cls.members.get('__init__') ?? []) {
      if (b.kind !== 'def') continue;
      for (const p of b.fn.params) names.add(`(${p.name})`);
      kinds = b.fn.params.map((p) => p.kind).join(',');
    }
    return { names, kinds };
  }
  return undefined;
}

/**
 * At least half of all the names the two shapes hold are shared (or neither holds any), or (when
 * `kindsSuffice`) the parameters are of the same kinds in the same order (a parameter renamed on
 * the way).
 */
function sameShape(a: Shape, b: Shape, kindsSuffice: boolean): boolean {
  if (kindsSuffice && a.kinds === b.kinds) return true;
  const union = new Set([...a.names, ...b.names]);
  if (union.size === 0) return true;
  let shared = 0;
  for (const n of a.names) if (b.names.has(n)) shared++;
  return shared * 2 >= union.size;
}

export function movedTo(base: Program, target: Program, targetIndex: FullIndex, module: string, name: string, kind: Kind): string | undefined {
  const places = [...new Set((targetIndex.definitions.get(name) ?? []).filter((e) => e.kind === kind && e.module !== module).map((e) => e.module))];
  // the baseline's module re-exported the name from there: the same definition, no longer re-exported
  const home = homeOf(base, module, name);
  if (home && places.includes(home)) return home;
  // otherwise one place only, and a place that qualifies
  if (places.length !== 1) return undefined;
  const place = places[0];
  const was = shapeOf(base, module, name, kind);
  const now = shapeOf(target, place, name, kind);
  if (!was || !now) return undefined;
  const before = base.summary(place)?.bindings.get(name) ?? [];
  if (before.some((b) => b.kind === 'def' || b.kind === 'class')) {
    // there all along: a copy of the same API (the old one went, the copy stays), or another API
    // that shares the name; only names in common tell them apart
    const then = shapeOf(base, place, name, kind);
    return then && sameShape(was, then, false) && sameShape(was, now, false) ? place : undefined;
  }
  return sameShape(was, now, true) ? place : undefined;
}
