/**
 * Targets named by version: a requirement such as `vllm==0.16.0` or `vllm>=0.12,<0.17`
 * (PEP 508 name and PEP 440 specifiers; extras and markers are not part of a target).
 */
import * as pep440 from '@renovatebot/pep440';
import { TargetError } from './sourceRoot';

export interface Requirement {
  /** The name as written. */
  name: string;
  /** The normalised project name (PEP 503): lower case, runs of `-_.` made one `-`. */
  project: string;
  /** The specifier set as written, without spaces (`>=0.12,<0.17`). */
  specifier: string;
  /** The version when the specifier pins one (`==V` or `===V`, no wildcard). */
  pinned?: string;
  /** The text as the user wrote it. */
  text: string;
}

const NAME = /^([A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)\s*(?:\[[^\]]*\])?\s*((?:===|==|!=|~=|<=|>=|<|>).*)$/;

export function normalizeProject(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, '-');
}

/**
 * Whether a target as written is a requirement rather than a path: a project name followed by a
 * version specifier. A path never contains `==`, `>=`... in practice; a folder that happens to
 * exist with such a name is still a path (the caller checks the disk first).
 */
export function looksLikeRequirement(spec: string): boolean {
  return !spec.startsWith('git:') && !/[\\/]/.test(spec.split(/[<>=!~]/)[0]) && NAME.test(spec.trim());
}

/** Parses a requirement; throws TargetError with a one-line reason when it is not a valid one. */
export function parseRequirement(spec: string): Requirement {
  const text = spec.trim();
  const m = NAME.exec(text);
  if (!m) throw new TargetError(`not a requirement (NAME==VERSION or NAME>=A,<B): ${spec}`);
  const specifier = m[2].replace(/\s+/g, '');
  if (specifier.includes(';')) throw new TargetError(`environment markers are not allowed in a target: ${spec}`);
  if (!pep440.validRange(specifier)) throw new TargetError(`not a valid PEP 440 version specifier: ${specifier} (in ${spec})`);
  const pin = /^===?([^,*]+)$/.exec(specifier);
  return { name: m[1], project: normalizeProject(m[1]), specifier, pinned: pin ? pin[1] : undefined, text };
}

/** Whether a version satisfies the requirement's specifier. */
export function satisfies(version: string, req: Requirement): boolean {
  if (req.specifier.startsWith('===')) return version === req.specifier.slice(3);
  return pep440.valid(version) !== null && pep440.satisfies(version, req.specifier, { prereleases: true });
}

export function isPrerelease(version: string): boolean {
  const v = pep440.explain(version);
  return !!v && (v.is_prerelease || v.is_devrelease);
}

/**
 * The version a requirement names among those an index lists: the newest that matches.
 * Pre-releases only when asked (`pre`), or when the specifier itself names one (`==2.0rc1`).
 */
export function chooseVersion(versions: string[], req: Requirement, pre = false): string | undefined {
  const allowPre = pre || /\d(a|b|rc|c|alpha|beta|pre|preview|dev)\d*/i.test(req.specifier);
  const ok = versions.filter((v) => pep440.valid(v) !== null && satisfies(v, req) && (allowPre || !isPrerelease(v)));
  if (ok.length === 0) return undefined;
  return ok.sort((a, b) => pep440.compare(b, a))[0];
}

/** Versions newest first (those that do not parse are left out). */
export function newestFirst(versions: string[]): string[] {
  return [...new Set(versions.filter((v) => pep440.valid(v) !== null))].sort((a, b) => pep440.compare(b, a));
}
