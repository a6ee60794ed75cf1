/** Suppression comments: which codes a `# type: ignore[...]` (or pyright's, or ty's) silences, ignore-file, unused-ignore hints. */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suppressed } from '../../server/src/engine/check/suppress';
import { applyEdits, brief, checkAgainst } from '../helpers';

const LIB = { 'lib/__init__.py': 'def f(a, b):\n    pass\n' };

describe('suppressions', () => {
  it('maps mypy codes to the apidrift codes they stand for, and only those', () => {
    assert.equal(suppressed('f(1)  # type: ignore[call-arg]', 'missing-argument'), true);
    assert.equal(suppressed('f(1)  # type: ignore[call-arg]', 'unknown-import'), false);
    assert.equal(suppressed('f(1)  # type: ignore[misc, attr-defined]', 'unknown-import'), true);
    assert.equal(suppressed('f(1)  # type: ignore[misc]', 'missing-argument'), false);
    assert.equal(suppressed('f(1)  # type: ignore', 'missing-argument'), true);
    assert.equal(suppressed('f(1)  # apidrift: ignore[unknown-import]', 'missing-argument'), false);
    assert.equal(suppressed('f(1)  # apidrift: ignore-file', 'missing-argument'), false);
  });

  it("maps pyright's and ty's rules the same way", () => {
    assert.equal(suppressed('f(1)  # pyright: ignore[reportCallIssue]', 'missing-argument'), true);
    assert.equal(suppressed('f(1)  # pyright: ignore[reportCallIssue]', 'unknown-attribute'), false);
    assert.equal(suppressed('m.x  # pyright: ignore[reportAttributeAccessIssue]', 'unknown-attribute'), true);
    assert.equal(suppressed('f(1)  # pyright: ignore', 'unexpected-keyword'), true);
    assert.equal(suppressed('M(foo=1)  # ty: ignore[missing-argument, unknown-argument]', 'missing-argument'), true);
    assert.equal(suppressed('M(foo=1)  # ty: ignore[missing-argument, unknown-argument]', 'unexpected-keyword'), true);
    assert.equal(suppressed('M(foo=1)  # ty: ignore[missing-argument]', 'too-many-positional'), false);
    assert.equal(suppressed('import m  # ty: ignore[unresolved-import]', 'unknown-module'), true);
    assert.equal(suppressed('f(1)  # typo: ignore', 'missing-argument'), false);
  });

  it('reports what no comment silences, and suppressions that silence nothing', async () => {
    const code = [
      'from lib import f, g  # type: ignore[call-arg]',
      'f(1)  # type: ignore[call-arg]',
      'f(1)  # type: ignore',
      'f(1, 2)  # type: ignore',
      'f(1, 2)  # apidrift: ignore',
      's = "# apidrift: ignore"',
      'f(1)  # apidrift:ignore[missing-argument,unknown-attribute]',
      '',
    ].join('\n');
    const r = await checkAgainst(LIB, code);
    assert.deepEqual(brief(r), ['1:unknown-import:', '5:unused-ignore:', '7:unused-ignore:']);
    const [, unused, partly] = r.findings;
    assert.equal(unused.severity, 'hint');
    assert.equal(applyEdits(code, unused.fixes[0].edits).split('\n')[4], 'f(1, 2)');
    assert.equal(unused.fixes[0].applicability, 'safe');
    assert.match(partly.message, /unknown-attribute/);
    assert.equal(applyEdits(code, partly.fixes[0].edits).split('\n')[6], 'f(1)  # apidrift:ignore[missing-argument]');
  });

  it('a comment line of its own that silences nothing goes as a whole line', async () => {
    const code = 'import lib\n# apidrift: ignore\nlib.f(1, 2)\n';
    const r = await checkAgainst(LIB, code);
    assert.deepEqual(brief(r), ['2:unused-ignore:']);
    assert.equal(applyEdits(code, r.findings[0].fixes[0].edits), 'import lib\nlib.f(1, 2)\n');
  });

  it('`# apidrift: ignore-file` on a line of its own silences the file; inside a string it does not', async () => {
    assert.deepEqual(brief(await checkAgainst(LIB, '"""Doc."""\n# apidrift: ignore-file\nfrom lib import g\n')), []);
    assert.deepEqual(brief(await checkAgainst(LIB, 'x = """\n# apidrift: ignore-file\n"""\nfrom lib import g\n')), ['4:unknown-import:']);
  });
});
