/**
 * Where the target's own code calls a method by name (`x.name(...)`), read off the target's
 * source: for telling whether a user's override of a method whose signature changed is reached by
 * the library with the new arguments (see `Runner.recordOverrides` in check.ts).
 *
 * A call site is described by how its receiver dispatches and what it passes:
 * - `self.name(...)` / `cls.name(...)` in a method `k` of a class `D` of the target: it reaches an
 *   override only in an instance whose class resolves `k` to `D.k` (a subclass that overrides `k`
 *   never runs this call);
 * - `super().name(...)`: resolved after `D` along the instance's MRO, never to a subclass of `D`;
 * - `C.name(...)` with `C` a class of the module (defined or imported): `C`'s own attribute, never
 *   a subclass's;
 * - anything else: any instance, of any class.
 * The name written as a string anywhere in the target (`getattr(w, "name")`, an RPC by name) means
 * calls no site shows.
 */
import type { Program } from '../resolve/program';
import { parsePython, type Node } from '../parser';
import type { CallArg } from './bind';

export interface LibrarySite {
  module: string;
  /** 0-based row of the call. */
  row: number;
  receiver: 'self' | 'super' | 'class' | 'other';
  /** With `self` and `super`: the class around the call (dotted, with its module) and the method it is in. */
  owner?: string;
  method?: string;
  args: CallArg[];
}

/**
 * The target's calls of a method by name. `incomplete`: the name also appears as a string
 * (`getattr(x, "name")`, `collective_rpc("name")`), so the target may call it in ways no call site
 * shows, or a file that calls it could not be read.
 */
export interface LibraryCalls {
  sites: LibrarySite[];
  incomplete: boolean;
}

export class LibrarySites {
  private epoch = -1;
  private readonly byName = new Map<string, LibraryCalls>();

  constructor(private readonly program: Program) {}

  /** The target's calls of a method `name` (`.name(`), read once per target content. */
  sites(name: string): LibraryCalls {
    const epoch = this.program.contentEpoch();
    if (epoch !== this.epoch) {
      this.byName.clear();
      this.epoch = epoch;
    }
    let out = this.byName.get(name);
    if (!out) {
      out = this.read(name);
      this.byName.set(name, out);
    }
    return out;
  }

  private read(name: string): LibraryCalls {
    const out: LibrarySite[] = [];
    let incomplete = false;
    const needle = `.${name}`;
    const pattern = new RegExp(`\\.${name}\\s*\\(`);
    for (const module of this.program.allModules()) {
      if (this.program.isUserModule(module)) continue;
      const file = this.program.findModule(module);
      const text = file?.rel ? file.root.readText(file.rel) : undefined;
      if (!text) continue;
      if (!incomplete && (text.includes(`"${name}"`) || text.includes(`'${name}'`))) incomplete = true;
      if (!text.includes(needle) || !pattern.test(text)) continue;
      let tree;
      try {
        tree = parsePython(text);
      } catch {
        // too large to parse, or the parser failed: its calls are not known
        incomplete = true;
        continue;
      }
      try {
        // each `.name(` of the text: the call whose function is that attribute (not one in a string or a comment)
        for (const m of text.matchAll(new RegExp(`\\.(${name})\\s*\\(`, 'g'))) {
          const id = tree.rootNode.descendantForIndex(m.index! + 1);
          const attr = id?.type === 'identifier' ? id.parent : null;
          const call = attr?.type === 'attribute' && attr.childForFieldName('attribute')?.id === id!.id ? attr.parent : null;
          if (!call || call.type !== 'call' || call.childForFieldName('function')?.id !== attr!.id) continue;
          const site = this.site(call, attr!.childForFieldName('object'), module);
          if (site) out.push(site);
        }
      } finally {
        tree.delete();
      }
    }
    return { sites: out, incomplete };
  }

  private site(call: Node, object: Node | null, module: string): LibrarySite | undefined {
    if (!object) return undefined;
    const args = callArgs(call);
    if (!args) return undefined;
    const base = { module, row: call.startPosition.row, args };
    const around = (): { owner: string; method: string } | undefined => enclosingMethod(call, module);
    if (object.type === 'identifier' && (object.text === 'self' || object.text === 'cls')) {
      const m = around();
      return m ? { ...base, receiver: 'self', ...m } : { ...base, receiver: 'other' };
    }
    if (object.type === 'call' && object.childForFieldName('function')?.text === 'super') {
      const m = around();
      return m ? { ...base, receiver: 'super', ...m } : { ...base, receiver: 'other' };
    }
    if (object.type === 'identifier' && this.isModuleClass(module, object.text, call)) return { ...base, receiver: 'class' };
    return { ...base, receiver: 'other' };
  }

  /** `name` is, in the module, a class (defined there or imported), not rebound in the function around the call. */
  private isModuleClass(module: string, name: string, at: Node): boolean {
    for (let p: Node | null = at.parent; p; p = p.parent) {
      if (p.type === 'function_definition' || p.type === 'lambda') {
        // a parameter or a local of that name is not the module's class
        const params = p.childForFieldName('parameters');
        if (params && new RegExp(`(^|[^\\w])${name}([^\\w]|$)`).test(params.text)) return false;
        const body = p.childForFieldName('body');
        if (body && new RegExp(`(^|[^\\w.])${name}\\s*(:[^=\\n]*)?=(?!=)|\\bfor\\s+${name}\\b|\\bas\\s+${name}\\b|\\bimport\\b[^\\n]*\\b${name}\\b`).test(body.text)) return false;
      }
    }
    const summary = this.program.summary(module);
    if (!summary) return false;
    const v = this.program.resolveGlobal(summary, name);
    return v.kind === 'class';
  }
}

/** The call's arguments for `bindCall`, or undefined when it has none to read (a generator argument is one positional). */
function callArgs(call: Node): CallArg[] | undefined {
  const list = call.childForFieldName('arguments');
  if (!list) return undefined;
  if (list.type === 'generator_expression') return [{ kind: 'positional', index: 0 }];
  const out: CallArg[] = [];
  let index = 0;
  for (const a of list.namedChildren) {
    if (!a || a.type === 'comment') continue;
    if (a.type === 'list_splat') out.push({ kind: 'star', index });
    else if (a.type === 'dictionary_splat') out.push({ kind: 'dstar', index });
    else if (a.type === 'keyword_argument') out.push({ kind: 'keyword', name: a.childForFieldName('name')?.text ?? '', index });
    else out.push({ kind: 'positional', index });
    index++;
  }
  return out;
}

/**
 * The method `self` (or `cls`) belongs to at a call: the nearest function defined directly in the
 * body of a class (a function nested in that method sees its `self`), in a class reached from the
 * module through classes only; undefined elsewhere.
 */
function enclosingMethod(call: Node, module: string): { owner: string; method: string } | undefined {
  let fn: Node | null = call.parent;
  for (; fn; fn = fn.parent) {
    if (fn.type !== 'function_definition') continue;
    const holder = fn.parent?.type === 'decorated_definition' ? fn.parent.parent : fn.parent;
    if (holder?.type === 'block' && holder.parent?.type === 'class_definition') break;
  }
  if (!fn) return undefined;
  const method = fn.childForFieldName('name')?.text;
  const names: string[] = [];
  let cls: Node | null = (fn.parent?.type === 'decorated_definition' ? fn.parent.parent : fn.parent)?.parent ?? null;
  while (cls) {
    if (cls.type !== 'class_definition') return undefined;
    const n = cls.childForFieldName('name')?.text;
    if (!n) return undefined;
    names.unshift(n);
    const holder = cls.parent?.type === 'decorated_definition' ? cls.parent.parent : cls.parent;
    if (holder?.type === 'module') break;
    if (holder?.type !== 'block') return undefined;
    cls = holder.parent;
  }
  return method ? { owner: `${module}.${names.join('.')}`, method } : undefined;
}
