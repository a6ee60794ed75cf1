/**
 * Modules of the user's project written for one version of a library: those the project imports
 * only under version tests (`if Version("0.8.4") == Version(vllm.__version__): from
 * .vllm_0_8_4.llm import Llm084`), or only from other such modules. A project that keeps one
 * package per library version imports the one that fits the installed version; the others never
 * run there, and what they call is no break of it.
 */
import { otherVersionCode } from '../check/check';
import { decideVersionTest, type VersionNames, versionString } from '../check/versionTests';
import { type Node, parsePython } from '../parser';

/** One import statement of a project file: the modules it may load, and whether it runs only for one version. */
export interface ImportSite {
  /** Absolute module names: `a.b` for `import a.b`; `p` and `p.x` for `from p import x`. */
  modules: string[];
  versioned: boolean;
}

/** `from` and `import` statements anywhere in the text (bodies of functions included). */
const IMPORT_LINE = /^[ \t]*(?:from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#;]*)|import[ \t]+([^\n#;]+))/gm;

/** Nodes that hold statements (or are imports): the only ones walked for imports. */
const HOLDS_STATEMENTS = new Set([
  'import_statement',
  'import_from_statement',
  'block',
  'if_statement',
  'elif_clause',
  'else_clause',
  'try_statement',
  'except_clause',
  'except_group_clause',
  'finally_clause',
  'with_statement',
  'for_statement',
  'while_statement',
  'function_definition',
  'class_definition',
  'decorated_definition',
  'match_statement',
  'case_clause',
]);

/** Absolute module name of `from <dots><rest>` written in module `at` (a package or not), or undefined. */
function absolute(written: string, at: { name: string; isPackage: boolean } | undefined): string | undefined {
  const dots = /^\.*/.exec(written)![0].length;
  const rest = written.slice(dots);
  if (dots === 0) return rest || undefined;
  if (!at) return undefined;
  const parts = at.name.split('.');
  if (!at.isPackage) parts.pop();
  for (let i = 1; i < dots; i++) parts.pop();
  if (parts.length === 0 && !rest) return undefined;
  return [...parts, ...(rest ? [rest] : [])].join('.');
}

function namesOf(list: string): string[] {
  return list
    .replace(/[()\\]/g, ' ')
    .split(',')
    .map((p) => /^\s*([A-Za-z_]\w*)/.exec(p)?.[1])
    .filter((n): n is string => !!n && n !== 'import');
}

function site(from: string | undefined, names: string, at: { name: string; isPackage: boolean } | undefined, versioned: boolean): ImportSite | undefined {
  if (from !== undefined) {
    const base = absolute(from, at);
    if (!base) return undefined;
    return { modules: [base, ...namesOf(names).map((n) => `${base}.${n}`)], versioned };
  }
  const modules = names
    .split(',')
    .map((p) => /^\s*([A-Za-z_][\w.]*)/.exec(p)?.[1])
    .filter((n): n is string => !!n);
  return modules.length ? { modules, versioned } : undefined;
}

/**
 * A string that is a dotted name (`"app.backends.lib_1_0.runner.Runner"`): a module, or a name in
 * one, that code may load by name (`importlib.import_module`, a class loaded from its path).
 */
const DOTTED_STRING = /(['"])([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\1/g;

/**
 * The import statements of a project file (`at`: its module name, for relative imports), and the
 * dotted names it writes as strings, which it may load by name. Only a file that speaks of a
 * version anywhere can hold a versioned one; the others are read off the text.
 */
export function importSites(text: string, at: { name: string; isPackage: boolean } | undefined, packageVersion?: (top: string) => string | undefined): ImportSite[] {
  const out: ImportSite[] = [];
  if (!/version/i.test(text)) {
    for (const m of text.matchAll(IMPORT_LINE)) {
      const s = site(m[1], m[1] !== undefined ? m[2] : m[3], at, false);
      if (s) out.push(s);
    }
    for (const m of text.matchAll(DOTTED_STRING)) out.push({ modules: [m[2]], versioned: false });
    return out;
  }
  const tree = parsePython(text);
  // with the target's versions, a version test the target decides is decided: an import in the
  // branch taken is an ordinary one (one in a branch not taken never runs: it stays versioned)
  const names = namesInText(text);
  const decide = packageVersion ? (cond: Node) => decideVersionTest(cond, (e) => versionString(e, names, packageVersion)) : undefined;
  try {
    // a string (or a comment) that names a module is a place that may load it: under a version
    // test only for that version
    for (const m of text.matchAll(DOTTED_STRING)) {
      const n = tree.rootNode.descendantForIndex(m.index! + 1);
      const inString = !!n && (n.type === 'string_content' || n.type === 'string');
      out.push({ modules: [m[2]], versioned: inString && !!otherVersionCode(n, decide) });
    }
    const walk = (n: Node): void => {
      if (n.type === 'import_statement' || n.type === 'import_from_statement') {
        const m = /^(?:from\s+(\.*[\w.]*)\s+import\s+([\s\S]*)|import\s+([\s\S]*))$/.exec(n.text);
        const s = m ? site(m[1], m[1] !== undefined ? m[2] : m[3], at, !!otherVersionCode(n, decide)) : undefined;
        if (s) out.push(s);
        return;
      }
      // imports are statements: expressions hold none
      for (const c of n.namedChildren) if (c && HOLDS_STATEMENTS.has(c.type)) walk(c);
    };
    walk(tree.rootNode);
  } finally {
    tree.delete();
  }
  return out;
}

/**
 * The modules of `files` (each with its module name and import sites) written for one version:
 * those in a package (or themselves a module) that the rest of the project imports only under
 * version tests, or only from other such packages. Imports from inside the package do not count:
 * its modules load one another once it is chosen. An import of `a.b.c` reaches the packages `a`
 * and `a.b` too.
 */
export function versionOnlyModules(files: Array<{ module: string; sites: ImportSite[] }>): Set<string> {
  const reaching = new Map<string, Array<{ from: string; versioned: boolean }>>();
  for (const f of files) {
    for (const s of f.sites) {
      const seen = new Set<string>();
      for (const m of s.modules) {
        const parts = m.split('.');
        for (let i = 1; i <= parts.length; i++) seen.add(parts.slice(0, i).join('.'));
      }
      for (const m of seen) {
        const list = reaching.get(m);
        const entry = { from: f.module, versioned: s.versioned };
        if (list) list.push(entry);
        else reaching.set(m, [entry]);
      }
    }
  }
  const within = (m: string, x: string): boolean => m === x || m.startsWith(`${x}.`);
  const chosen = new Set<string>();
  const inChosen = (m: string): boolean => [...chosen].some((x) => within(m, x));
  // the least set the evidence gives: each package added makes the imports from it count as versioned
  for (let changed = true; changed; ) {
    changed = false;
    for (const [x, sites] of reaching) {
      if (chosen.has(x) || inChosen(x)) continue;
      const outside = sites.filter((r) => !within(r.from, x));
      if (outside.length > 0 && outside.every((r) => r.versioned || inChosen(r.from))) {
        chosen.add(x);
        changed = true;
      }
    }
  }
  return new Set(files.map((f) => f.module).filter((m) => inChosen(m)));
}

/** How a project file binds the names of a version string (see `versionString`), read off its text. */
function namesInText(text: string): VersionNames {
  return {
    packageOf: (name) => (new RegExp(`^[ \\t]*import[ \\t]+${name}[ \\t]*(#.*)?$`, 'm').test(text) ? name : undefined),
    importOf: (name) => {
      for (const m of text.matchAll(/^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+([^\n#]*)/gm)) {
        for (const part of m[2].replace(/[()\\]/g, ' ').split(',')) {
          const p = /^\s*([A-Za-z_]\w*)(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
          if (p && (p[2] ?? p[1]) === name) return { module: m[1], name: p[1] };
        }
      }
      return undefined;
    },
  };
}
