/**
 * Whether a def or class that a baseline module defined, and that the module no longer has, moved
 * to another target module: the same API in a new place, not merely something else of the same
 * name. A move is said only when exactly one target module qualifies, and a module qualifies when
 *   - it defines a def or class of that name and kind itself;
 *   - it is where the baseline's name came from (the module re-exported it from there), or its
 *     baseline version did not define one (a definition that was there all along, and that the
 *     name did not stand for, is another API that happens to share the name);
 *   - the two definitions have the same shape: mostly the same parameter names for a function,
 *     mostly the same members, fields and `__init__` parameters for a class (a rename of a
 *     parameter or two is still a move; an unrelated class is not).
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

/** The names that make up a definition's shape. */
function shapeOf(program: Program, module: string, name: string, kind: Kind): Set<string> | undefined {
  const v = program.resolveMember(module, name);
  if (kind === 'def' && v.kind === 'function') return new Set(v.fn.params.map((p) => p.name));
  if (kind === 'class' && v.kind === 'class') {
    const names = new Set<string>([...v.cls.members.keys(), ...v.cls.fields.map((f) => f.name)]);
    for (const b of v.cls.members.get('__init__') ?? []) if (b.kind === 'def') for (const p of b.fn.params) names.add(`(${p.name})`);
    return names;
  }
  return undefined;
}

/** At least half of all the names the two shapes hold are shared (or neither holds any). */
function sameShape(a: Set<string>, b: Set<string>): boolean {
  const union = new Set([...a, ...b]);
  if (union.size === 0) return true;
  let shared = 0;
  for (const n of a) if (b.has(n)) shared++;
  return shared * 2 >= union.size;
}

export function movedTo(base: Program, target: Program, targetIndex: FullIndex, module: string, name: string, kind: Kind): string | undefined {
  const places = [...new Set((targetIndex.definitions.get(name) ?? []).filter((e) => e.kind === kind && e.module !== module).map((e) => e.module))];
  if (places.length === 0) return undefined;
  const was = shapeOf(base, module, name, kind);
  if (!was) return undefined;
  // the baseline's module re-exported the name from there: the same definition, no longer re-exported
  const home = homeOf(base, module, name);
  const qualifying = places.filter((place) => {
    if (place === home) return true;
    const before = base.summary(place)?.bindings.get(name) ?? [];
    if (before.some((b) => b.kind === 'def' || b.kind === 'class')) return false;
    const now = shapeOf(target, place, name, kind);
    return !!now && sameShape(was, now);
  });
  return qualifying.length === 1 ? qualifying[0] : undefined;
}
