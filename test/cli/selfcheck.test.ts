/**
 * Code that ships and runs is the best negative set: the standard library of each version,
 * checked against itself, must give no diagnostic at all, while checking most of its calls.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as path from 'path';
import { describe, it } from 'node:test';
import { DIST, ROOT, stdlibZip } from '../helpers';

/**
 * Real bugs of a release, each verified by reading the code: nothing else may be reported.
 * 3.11's `pprint._perfcheck` (a debugging helper, removed in 3.12) still passes the fifth
 * argument that `PrettyPrinter._safe_repr` no longer takes: calling it raises TypeError.
 */
const REAL_BUGS: Record<string, string[]> = {
  '311': ['pprint.py:646 too-many-positional PrettyPrinter._safe_repr'],
};

describe('self-check of the standard library', () => {
  for (const v of ['311', '312', '313', '314'] as const) {
    it(`Python ${v[0]}.${v.slice(1)}: no diagnostic but its real bugs, at least 70 % of resolvable calls checked`, () => {
      const zip = stdlibZip(v);
      const r = spawnSync(process.execPath, [path.join(DIST, 'cli.js'), 'check', '--format', 'json', '--target', zip, zip], { cwd: ROOT, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 << 20 });
      assert.equal(r.status, REAL_BUGS[v] ? 1 : 0, r.stderr + r.stdout.slice(0, 3000));
      const out = JSON.parse(r.stdout);
      const { files, callsChecked, callsUnknown, targetModulesRead, ms } = out.stats;
      const share = callsChecked / (callsChecked + callsUnknown);
      console.log(`  ${v}: ${files} files, ${callsChecked} calls checked, ${callsUnknown} unknown (${(share * 100).toFixed(1)} % checked), ${targetModulesRead} modules read, ${ms} ms`);
      const found = (out.diagnostics as Array<{ file: string; range: { start: { line: number } }; code: string; callee: string }>).map(
        (d) => `${d.file.slice(d.file.lastIndexOf('.zip/') + 5)}:${d.range.start.line + 1} ${d.code} ${d.callee.split('.').slice(-2).join('.')}`,
      );
      assert.deepEqual(found, REAL_BUGS[v] ?? []);
      assert.ok(files > 500, `${files} files`);
      assert.ok(callsChecked > 5000, `${callsChecked} calls checked`);
      assert.ok(share >= 0.7, `${(share * 100).toFixed(1)} % checked`);
    });
  }
});
