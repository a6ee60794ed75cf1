/** What the full index keeps of one module summary: its module-level definitions and a signature count. */
import type { ClassInfo, ModuleSummary } from './summary';
import type { Expr } from '../syntax';

export interface ModuleIndex {
  /** Module-level defs and classes, in binding order: name, kind, line. */
  defs: Array<[string, 'def' | 'class', number]>;
  /** Functions, classes and methods (a class counts once plus once per member that is a def). */
  signatures: number;
  /**
   * Every class (nested ones too): its qualified name, the names its base expressions mention
   * (the last part of each dotted name, and names inside calls and subscripts: an over-estimate
   * of what it may derive from), and the names of the methods it defines.
   */
  classes?: Array<[string, string[], string[]]>;
}

export const EMPTY_MODULE_INDEX: ModuleIndex = { defs: [], signatures: 0, classes: [] };

/** The names a base expression mentions (see `ModuleIndex.classes`). */
export function baseNames(e: Expr, out: Set<string>): void {
  switch (e.kind) {
    case 'name':
      out.add(e.name);
      break;
    case 'attr':
      out.add(e.attr);
      break;
    case 'subscript':
      baseNames(e.base, out);
      break;
    case 'call':
      baseNames(e.callee, out);
      for (const a of e.args) baseNames(a.value, out);
      break;
    case 'cond':
      for (const a of e.alts) baseNames(a, out);
      break;
    case 'other':
      for (const m of e.text.matchAll(/[A-Za-z_]\w*/g)) out.add(m[0]);
      break;
  }
}

function classEntries(cls: ClassInfo, out: Array<[string, string[], string[]]>): void {
  const bases = new Set<string>();
  for (const b of cls.bases) baseNames(b, bases);
  const methods: string[] = [];
  for (const [name, bs] of cls.members) {
    if (bs.some((x) => x.kind === 'def')) methods.push(name);
    for (const x of bs) if (x.kind === 'class') classEntries(x.cls, out);
  }
  out.push([cls.qualname, [...bases], methods]);
}

export function moduleIndexOf(s: ModuleSummary): ModuleIndex {
  const defs: ModuleIndex['defs'] = [];
  let signatures = 0;
  const classes: Array<[string, string[], string[]]> = [];
  for (const [n, bs] of s.bindings) {
    for (const b of bs) {
      if (b.kind !== 'def' && b.kind !== 'class') continue;
      signatures += 1;
      if (b.kind === 'class') {
        for (const m of b.cls.members.values()) if (m.some((x) => x.kind === 'def')) signatures++;
        classEntries(b.cls, classes);
      }
      defs.push([n, b.kind, b.line]);
    }
  }
  return { defs, signatures, classes };
}
