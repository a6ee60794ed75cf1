/** The missing arguments of one call: one finding, in Python's words, with one fix that inserts them all. */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { applyEdits, checkAgainst, tempTree } from '../helpers';

const LIB = {
  'lib/__init__.py': '',
  'lib/core.py': `
def four(a, b, c, d, e=0):
    pass

def two_kw(x, *, flag, mode):
    pass

def mixed(a, *, k):
    pass

def only(a, /, b):
    pass
`,
};

describe('missing arguments', () => {
  it('makes one finding per call, named as CPython names them', async () => {
    const r = await checkAgainst(LIB, ['from lib.core import four, two_kw, mixed', 'four()', 'two_kw(1)', 'mixed()', 'four(1, 2, 3)', ''].join('\n'));
    const missing = r.findings.filter((f) => f.code === 'missing-argument');
    assert.deepEqual(
      missing.map((f) => `${f.range.start.line + 1}:${f.param}`),
      ['2:a', '3:flag', '4:a', '5:d'],
    );
    assert.match(missing[0].message, /^four\(\) missing 4 required positional arguments: 'a', 'b', 'c', and 'd'\. Target signature: four\(a, b, c, d, e=0\)$/);
    assert.match(missing[1].message, /^two_kw\(\) missing 2 required keyword-only arguments: 'flag' and 'mode'\./);
    assert.match(missing[2].message, /^mixed\(\) missing 1 required positional argument: 'a', and 1 required keyword-only argument: 'k'\./);
    assert.match(missing[3].message, /^four\(\) missing 1 required positional argument: 'd'\./);
  });

  it('offers one fix that inserts every missing argument', async () => {
    const code = ['from lib.core import four, two_kw', 'c = 3', 'four()', 'two_kw(1)', 'two_kw(', '    1,', ')', ''].join('\n');
    const r = await checkAgainst(LIB, code);
    const at = (line: number): (typeof r.findings)[number] => r.findings.find((f) => f.range.start.line + 1 === line)!;
    const fix = at(3).fixes[0];
    assert.equal(fix.title, 'Add arguments a=..., b=..., c=c, d=...');
    assert.equal(fix.snippet, true);
    assert.equal(applyEdits(code, fix.edits).split('\n')[2], 'four(a=${1:...}, b=${2:...}, c=c, d=${3:...})');
    assert.equal(applyEdits(code, at(4).fixes[0].edits).split('\n')[3], 'two_kw(1, flag=${1:...}, mode=${2:...})');
    assert.deepEqual(applyEdits(code, at(5).fixes[0].edits).split('\n').slice(4, 9), ['two_kw(', '    1,', '    flag=${1:...},', '    mode=${2:...},', ')']);
  });

  it('fills the old default of the parameter the baseline explains, and keeps the others as placeholders', async () => {
    const dir = tempTree({
      'v1/lib/__init__.py': 'def f(a, b=5):\n    pass\n',
      'v2/lib/__init__.py': 'def f(a, b, c):\n    pass\n',
    });
    const engine = await Engine.open({ targets: [path.join(dir, 'v2')], baseline: [path.join(dir, 'v1')] });
    const code = 'from lib import f\nf(1)\n';
    const r = engine.check(code, path.join(dir, 'user.py'));
    assert.equal(r.findings.length, 1);
    const f = r.findings[0];
    assert.match(f.message, /f\(\) missing 2 required positional arguments: 'b' and 'c': /);
    const fix = f.fixes.find((x) => x.title.includes('old default'))!;
    assert.equal(fix.title, 'Add arguments b=5 (its old default), c=...');
    assert.equal(fix.snippet, true);
    assert.equal(applyEdits(code, fix.edits).split('\n')[1], 'f(1, b=5, c=${2:...})');
  });
});
