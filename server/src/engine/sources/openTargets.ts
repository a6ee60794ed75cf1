/**
 * Opens what a user gave as targets: paths (folders, archives, `git:` revisions) and
 * requirements (`NAME==VERSION`, `NAME>=A,<B`), the latter fetched as `wheelFetch` says.
 */
import * as fs from 'fs';
import { defaultCacheDir } from '../index/cache';
import { looksLikeRequirement, parseRequirement, satisfies } from './requirement';
import { type SourceRoot } from './sourceRoot';
import { openRoot } from './target';
import { type FetchOptions, installedVersion, openRequirement } from './wheelFetch';

/** Whether a target as written names a version rather than a path (an existing path stays a path). */
export function isRequirementSpec(spec: string): boolean {
  return looksLikeRequirement(spec) && !fs.existsSync(spec);
}

export async function openRoots(specs: string[], fetch?: Partial<FetchOptions>): Promise<SourceRoot[]> {
  const roots: SourceRoot[] = [];
  for (const spec of specs) {
    if (isRequirementSpec(spec)) roots.push(await openRequirement(spec, { ...fetch, cacheDir: fetch?.cacheDir ?? defaultCacheDir() }));
    else roots.push(openRoot(spec));
  }
  return roots;
}

/**
 * The baseline when targets are named by version and none is given: the environment folders
 * that have one of those projects installed (the version you have, compared with the one you are
 * moving to).
 */
export function installedBaseline(targets: string[], environments: string[]): { baseline: string[]; versions: string[] } {
  const baseline: string[] = [];
  const versions: string[] = [];
  for (const spec of targets) {
    if (!isRequirementSpec(spec)) continue;
    const req = parseRequirement(spec);
    for (const sp of environments) {
      const v = installedVersion(sp, req.project);
      if (!v) continue;
      // the pinned version is the installed one: it is the target itself, there is nothing to compare
      if (req.pinned !== undefined && satisfies(v, req)) break;
      if (!baseline.includes(sp)) baseline.push(sp);
      versions.push(`${req.name} ${v}`);
      break;
    }
  }
  return { baseline, versions };
}
