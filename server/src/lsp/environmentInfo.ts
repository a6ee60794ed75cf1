/**
 * What the status shows about a target: the environment it belongs to (".venv") and the versions
 * of the libraries the workspace imports from it, read from their `*.dist-info` folders (nothing
 * is run or imported).
 */
import * as fs from 'fs';
import * as path from 'path';

/** The environment folder of a site-packages folder (`ENV/lib/pythonX.Y/site-packages`, `ENV/Lib/site-packages`). */
export function environmentName(sitePackages: string): string | undefined {
  const parts = path.resolve(sitePackages).split(/[\\/]/).filter(Boolean);
  const n = parts.length;
  if (n >= 4 && parts[n - 1] === 'site-packages' && /^python\d/.test(parts[n - 2]) && /^lib(64)?$/.test(parts[n - 3])) return parts[n - 4];
  if (n >= 3 && parts[n - 1] === 'site-packages' && /^lib$/i.test(parts[n - 2])) return parts[n - 3];
  return undefined;
}

/** The top-level modules a Python text imports (absolute imports only). */
export function importedTopLevels(text: string): Set<string> {
  const out = new Set<string>();
  for (const m of text.matchAll(/^[ \t]*from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b/gm)) out.add(m[1]);
  for (const m of text.matchAll(/^[ \t]*import[ \t]+([^#\n;]+)/gm)) {
    for (const part of m[1].replace(/\\$/, '').split(',')) {
      const name = /^\s*([A-Za-z_]\w*)/.exec(part);
      if (name) out.add(name[1]);
    }
  }
  return out;
}

interface Distribution {
  name: string;
  version: string;
  /** The top-level modules it installs, as far as its dist-info says. */
  modules: Set<string>;
}

const normalize = (n: string): string => n.toLowerCase().replace(/[-_.]+/g, '_');

/** The distributions of a site-packages folder, kept while its listing does not change. */
const cache = new Map<string, { key: string; dists: Distribution[] }>();

function distributions(sitePackages: string): Distribution[] {
  let entries: string[];
  try {
    entries = fs.readdirSync(sitePackages).filter((e) => e.endsWith('.dist-info')).sort();
  } catch {
    return [];
  }
  const key = entries.join('\n');
  const hit = cache.get(sitePackages);
  if (hit && hit.key === key) return hit.dists;
  const dists: Distribution[] = [];
  for (const e of entries) {
    const m = /^(.+)-([^-]+)\.dist-info$/.exec(e);
    if (!m) continue;
    let name = m[1];
    let version = m[2];
    try {
      const meta = fs.readFileSync(path.join(sitePackages, e, 'METADATA'), 'utf8').split(/\r?\n\r?\n/)[0];
      name = /^Name:\s*(.+)$/m.exec(meta)?.[1].trim() ?? name;
      version = /^Version:\s*(.+)$/m.exec(meta)?.[1].trim() ?? version;
    } catch {
      // the folder's name says it
    }
    const modules = new Set([normalize(name)]);
    try {
      for (const l of fs.readFileSync(path.join(sitePackages, e, 'top_level.txt'), 'utf8').split(/\r?\n/)) if (l.trim()) modules.add(normalize(l.trim()));
    } catch {
      // no top_level.txt: the distribution's own name stands for its module
    }
    dists.push({ name, version, modules });
  }
  cache.set(sitePackages, { key, dists });
  return dists;
}

/** The distributions of `sitePackages` that provide one of `imports`, sorted by name. */
export function importedDistributions(sitePackages: string, imports: Iterable<string>): Array<{ name: string; version: string }> {
  const wanted = new Set([...imports].map(normalize));
  if (wanted.size === 0) return [];
  return distributions(sitePackages)
    .filter((d) => [...d.modules].some((m) => wanted.has(m)))
    .map((d) => ({ name: d.name, version: d.version }))
    .sort((a, b) => a.name.localeCompare(b.name));
}
