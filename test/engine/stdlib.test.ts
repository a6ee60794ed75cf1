/** Real source: a file written for Python 3.11, checked against the standard library of 3.11 to 3.14. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { FIXTURES, stdlibZip } from '../helpers';

interface Expected {
  line: number;
  code: string;
  name: string;
  param: string | null;
}

const userFile = path.join(FIXTURES, 'stdlib', 'py311_user.py');
const expected = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'stdlib', 'py311_user.expected.json'), 'utf8')) as Record<string, Expected[]>;

describe('stdlib: 3.11 code against later standard libraries', () => {
  for (const [label, v] of [['3.11', '311'], ['3.12', '312'], ['3.13', '313'], ['3.14', '314']] as const) {
    it(`gives exactly the expected findings against ${label}`, async () => {
      const engine = await Engine.open({ targets: [stdlibZip(v)] });
      const r = engine.check(fs.readFileSync(userFile, 'utf8'), userFile);
      const got = r.findings.filter((f) => f.code !== 'deprecated').map((f) => `${f.range.start.line + 1}:${f.code}:${f.param ?? ''}`).sort();
      const want = expected[label].map((e) => `${e.line}:${e.code}:${e.code === 'unexpected-keyword' || e.code === 'multiple-values' || e.code === 'missing-argument' ? e.param ?? '' : ''}`).sort();
      assert.deepEqual(got, want);
      // the check is only worth something if it checks most calls
      assert.ok(r.callsChecked >= 30, `only ${r.callsChecked} calls checked`);
      // every finding names its evidence in the target
      for (const f of r.findings) assert.ok(f.definition && f.definition.file.includes('python_stdlib.zip'), `${f.code} at line ${f.range.start.line + 1} lacks its definition`);
    });
  }

  it('marks calls of APIs the target deprecates, with the library\'s message', async () => {
    const engine = await Engine.open({ targets: [stdlibZip('311')] });
    const r = engine.check(fs.readFileSync(userFile, 'utf8'), userFile);
    const deprecated = r.findings.filter((f) => f.code === 'deprecated');
    assert.deepEqual(deprecated.map((f) => `${f.range.start.line + 1}:${f.callee}`), ['160:importlib.find_loader', '191:importlib.util.module_for_loader']);
    assert.ok(deprecated.every((f) => f.severity === 'hint' && /removal in Python 3\.12/.test(f.message)));
  });

  it('reads the archive lazily: only the modules the file needs', async () => {
    const engine = await Engine.open({ targets: [stdlibZip('313')] });
    engine.check(fs.readFileSync(userFile, 'utf8'), userFile);
    assert.ok(engine.modulesRead > 5 && engine.modulesRead < 80, `${engine.modulesRead} modules read`);
  });
});
