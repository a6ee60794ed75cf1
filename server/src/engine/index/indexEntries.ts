/** What the full index keeps of one module summary: its module-level definitions and a signature count. */
import type { ModuleSummary } from './summary';

export interface ModuleIndex {
  /** Module-level defs and classes, in binding order: name, kind, line. */
  defs: Array<[string, 'def' | 'class', number]>;
  /** Functions, classes and methods (a class counts once plus once per member that is a def). */
  signatures: number;
}

export const EMPTY_MODULE_INDEX: ModuleIndex = { defs: [], signatures: 0 };

export function moduleIndexOf(s: ModuleSummary): ModuleIndex {
  const defs: ModuleIndex['defs'] = [];
  let signatures = 0;
  for (const [n, bs] of s.bindings) {
    for (const b of bs) {
      if (b.kind !== 'def' && b.kind !== 'class') continue;
      signatures += 1;
      if (b.kind === 'class') for (const m of b.cls.members.values()) if (m.some((x) => x.kind === 'def')) signatures++;
      defs.push([n, b.kind, b.line]);
    }
  }
  return { defs, signatures };
}
