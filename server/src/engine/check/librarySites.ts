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
    const needles = [needle, `"${name}"`, `'${name}'`];
    for (const module of this.program.allModules()) {
      if (this.program.isUserModule(module)) continue;
      const file = this.program.findModule(module);
      if (!file?.rel) continue;
      // a file that holds none of them is not decoded (nor kept, nor parsed)
      if (file.root.mayContain?.(file.rel, needles) === false) continue;
      let text: string | undefined;
      try {
        text = file.root.readText(file.rel);
      } catch {
        // too large to read: its calls are not known
        incomplete = true;
        continue;
      }
      if (!text) continue;
      if (!incomplete && (text.includes(`"${name}"`) || text.includes(`'${name}'`))) incomplete = true;
      if (!text.includes(needle) || !pattern.test(text)) continue;
      const lines = text.split('\n');
      const starts: number[] = [];
      for (let i = 0, at = 0; i < lines.length; at += lines[i].length + 1, i++) starts.push(at);
      // each `.name(` of the text: the call whose function is that attribute (not one in a string
      // or a comment), read off a parse of the function around it alone (or of the top-level
      // statement): a parse of a whole large module would grow the parser's memory for good
      for (const m of text.matchAll(new RegExp(`\\.(${name})\\s*\\(`, 'g'))) {
        const found = this.siteAt(lines, starts, m.index! + 1, module);
        if (found === 'unread') incomplete = true;
        else if (found) out.push(found);
      }
    }
    return { sites: out, incomplete };
  }

  /**
   * The call whose attribute `name` starts at offset `at` of the module's text (undefined when it
   * is none: a string, a comment), or `unread` when the code around it could not be read. The
   * piece parsed is the innermost `def` around it (dedented), else the top-level statement; the
   * classes and the method around it are read off the indentation of the lines above.
   */
  private siteAt(lines: string[], starts: number[], at: number, module: string): LibrarySite | 'unread' | undefined {
    let row = 0;
    for (let lo = 0, hi = starts.length - 1; lo <= hi; ) {
      const mid = (lo + hi) >> 1;
      if (starts[mid] <= at) {
        row = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    const indentOf = (l: string): number => /^[ \t]*/.exec(l)![0].length;
    const code = (l: string): boolean => l.trim() !== '' && !l.trim().startsWith('#');
    // the headers around the row: each line above with less indentation than all seen so far
    const around: Array<{ row: number; indent: number; kind: 'def' | 'class' | 'other'; name?: string }> = [];
    let limit = code(lines[row]) ? indentOf(lines[row]) : Infinity;
    for (let r = row - 1; r >= 0 && limit > 0; r--) {
      const l = lines[r];
      // (the closing line of a bracket, `) -> int:` of a def whose parameters take several lines)
      if (!code(l) || /^[ \t]*[)\]}]/.test(l)) continue;
      const ind = indentOf(l);
      if (ind >= limit) continue;
      limit = ind;
      const h = /^[ \t]*(?:async[ \t]+)?(def|class)[ \t]+(\w+)/.exec(l);
      around.unshift({ row: r, indent: ind, kind: h ? (h[1] as 'def' | 'class') : 'other', name: h?.[2] });
    }
    // what the piece parsed starts at: the innermost def, else the top-level line above (or this one)
    const def = [...around].reverse().find((h) => h.kind === 'def');
    const first = def ? def.row : around.length > 0 ? around[0].row : row;
    const indent = def ? def.indent : 0;
    // decorators above a def belong to it: they do not matter to the calls in its body
    let last = lines.length - 1;
    for (let r = Math.max(row, first) + 1; r < lines.length; r++) {
      if (code(lines[r]) && indentOf(lines[r]) <= indent && !/^[ \t]*[)\]}]/.test(lines[r])) {
        last = r - 1;
        break;
      }
    }
    const piece: string[] = [];
    for (let r = first; r <= last; r++) {
      const l = lines[r];
      if (l.trim() !== '' && indentOf(l) < indent) return 'unread';
      piece.push(l.slice(Math.min(indent, indentOf(l))));
    }
    let tree;
    try {
      tree = parsePython(piece.join('\n'));
    } catch {
      return 'unread';
    }
    try {
      const column = at - starts[row] - indent;
      let offset = 0;
      for (let r = first; r < row; r++) offset += piece[r - first].length + 1;
      const id = tree.rootNode.descendantForIndex(offset + column);
      const attr = id?.type === 'identifier' ? id.parent : null;
      const call = attr?.type === 'attribute' && attr.childForFieldName('attribute')?.id === id!.id ? attr.parent : null;
      if (!call || call.type !== 'call' || call.childForFieldName('function')?.id !== attr!.id) return tree.rootNode.hasError ? 'unread' : undefined;
      // the method around it: the def directly in the innermost class (classes reached from the
      // module through classes only)
      let owner: { owner: string; method: string } | undefined;
      const ci = around.map((h) => h.kind).lastIndexOf('class');
      if (ci >= 0 && around.slice(0, ci).every((h) => h.kind === 'class') && around[ci + 1]?.kind === 'def') {
        owner = { owner: `${module}.${around.slice(0, ci + 1).map((h) => h.name).join('.')}`, method: around[ci + 1].name! };
      }
      return this.site(call, attr!.childForFieldName('object'), module, row, owner);
    } finally {
      tree.delete();
    }
  }

  private site(call: Node, object: Node | null, module: string, row: number, method: { owner: string; method: string } | undefined): LibrarySite | undefined {
    if (!object) return undefined;
    const args = callArgs(call);
    if (!args) return undefined;
    const base = { module, row, args };
    const around = (): { owner: string; method: string } | undefined => method;
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
