/**
 * Summaries from skeletons (function bodies emptied before parsing) must equal summaries from
 * full parses, module by module, on real code: every module of two standard libraries.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { initParser } from '../../server/src/engine/parser';
import { skeletonize } from '../../server/src/engine/skeleton';
import { ZipRoot } from '../../server/src/engine/sources/zipRoot';
import { summarizeModule } from '../../server/src/engine/summary';
import { stdlibZip } from '../helpers';

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (x instanceof Map ? { map: [...x.entries()] } : x instanceof Set ? { set: [...x].sort() } : x));
}

describe('skeleton parsing', () => {
  it('keeps line numbers and empties only bodies', () => {
    const src = 'import os\n\ndef f(a, b=1):\n    """doc"""\n    x = (1,\n         2)\n    return x\n\nclass C:\n    def m(self):\n        self.v = 1\n\n    @staticmethod\n    def s(): return 2\n';
    const sk = skeletonize(src);
    assert.equal(sk.text.split('\n').length, src.split('\n').length);
    assert.equal(sk.text, 'import os\n\ndef f(a, b=1):\n    ...\n\n\n\n\nclass C:\n    def m(self):\n        ...\n\n    @staticmethod\n    def s(): return 2\n');
    assert.ok(sk.bodies.get(9)?.includes('self.v = 1'));
  });

  it('shortens comments and docstrings outside parsed bodies, keeping every line and column', () => {
    const src = '"""Module doc."""\n# a comment\nimport os  # why\n\nclass C:\n    """Class\n    doc."""\n    x: int = 1  # note\n    def m(self):\n        """m doc"""\n        # inside\n        return self\n';
    const sk = skeletonize(src);
    assert.equal(sk.text.split('\n').length, src.split('\n').length);
    assert.equal(sk.text, '""\n#\nimport os  #\n\nclass C:\n    ""\n\n    x: int = 1  #\n    def m(self):\n        """m doc"""\n        #\n        return self\n');
  });

  it('gives the same summary as a full parse for tricky layouts: CRLF, lone CR, comments at column 0, strings that are not alone', async () => {
    await initParser();
    const cases = [
      'class A:\r\n    """doc"""\r\n    def f(self):  # c\r\n        self.a = 1  # self.b = 2\r\n        return self\r\n# col 0\r\n    def g(self): pass\r\n',
      'def deco(fn):\r    """doc\r    more"""\r    def inner(*args, **kwargs):\r        return fn(*args, **kwargs)\r    return inner\rX = 1\r',
      '"a" "b"\n"""x""".join([])\nr"""raw"""  # c\nclass B:\n    f"{1}"\n    y = 2  # self.z = 3\n    def m(self):\n        # self.q = 1\n        """doc with self.w = 2"""\n        return self\n',
      'def outer(a):\n    def inner():\n        pass\n    x = inner  # not returned\n\ndef warned():\n    """d"""\n    warnings.warn("old", DeprecationWarning)\n',
    ];
    for (const src of cases) {
      assert.equal(canonical(summarizeModule(src, 'm', false, 'm.py')), canonical(summarizeModule(src, 'm', false, 'm.py', true)), JSON.stringify(src));
    }
  });

  for (const v of ['311', '314'] as const) {
    it(`gives the same summary as a full parse for every module of the ${v[0]}.${v.slice(1)} standard library`, async () => {
      await initParser();
      const zip = new ZipRoot(stdlibZip(v));
      let modules = 0;
      let kept = 0;
      let total = 0;
      for (const rel of zip.members().filter((m) => m.endsWith('.py'))) {
        const text = zip.readText(rel)!;
        const mod = Engine.moduleNameOfRelative(rel);
        if (!mod) continue;
        const full = summarizeModule(text, mod.name, mod.isPackage, rel, true);
        const fast = summarizeModule(text, mod.name, mod.isPackage, rel);
        assert.equal(canonical(fast), canonical(full), `${rel} differs`);
        const sk = skeletonize(text);
        kept += sk.kept * text.length;
        total += text.length;
        modules++;
      }
      console.log(`  ${v}: ${modules} modules identical; the skeletons keep ${((kept / total) * 100).toFixed(1)} % of the text`);
      assert.ok(modules > 400);
    });
  }
});
