/**
 * Summaries from skeletons (function bodies emptied before parsing) must equal summaries from
 * full parses, module by module, on real code: every module of two standard libraries.
 */
import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { initParser, parsePython } from '../../server/src/engine/parser';
import { importFromText, skeletonize } from '../../server/src/engine/index/skeleton';
import { ZipRoot } from '../../server/src/engine/sources/zipRoot';
import { summarizeModule } from '../../server/src/engine/index/summary';
import { paramsFromText, readParams } from '../../server/src/engine/syntax';
import { stdlibZip } from '../helpers';

function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (x instanceof Map ? { map: [...x.entries()] } : x instanceof Set ? { set: [...x].sort() } : x));
}

describe('skeleton parsing', () => {
  it('keeps line numbers and empties only bodies', () => {
    const src = 'import os\n\ndef f(a, b=1):\n    """doc"""\n    x = (1,\n         2)\n    return x\n\nclass C:\n    def m(self):\n        self.v = 1\n\n    @staticmethod\n    def s(): return 2\n';
    const sk = skeletonize(src);
    assert.equal(sk.text.split('\n').length, src.split('\n').length);
    assert.equal(sk.text, 'pass\n\ndef f():\n    ...\n\n\n\n\nclass C:\n    def m():\n        ...\n\n    @staticmethod\n    def s(): return 2\n');
    assert.deepEqual(sk.params.get(2)?.map((p) => [p.name, p.hasDefault, p.defaultText]), [['a', false, undefined], ['b', true, '1']]);
    assert.deepEqual(sk.params.get(9)?.map((p) => p.name), ['self']);
    assert.deepEqual(sk.imports.get(0), { names: [['os', undefined]] });
    assert.ok(sk.bodies.get(9)?.includes('self.v = 1'));
  });

  it('shortens comments and docstrings outside parsed bodies, keeping every line and column', () => {
    const src = '"""Module doc."""\n# a comment\nimport os  # why\n\nclass C:\n    """Class\n    doc."""\n    x: int = 1  # note\n    def m(self):\n        """m doc"""\n        # inside\n        return self\n';
    const sk = skeletonize(src);
    assert.equal(sk.text.split('\n').length, src.split('\n').length);
    assert.equal(sk.text, '""\n#\npass\n\nclass C:\n    ""\n\n    x: int = 1  #\n    def m():\n        """m doc"""\n        #\n        return self\n');
  });

  it('gives the same summary as a full parse for tricky layouts: CRLF, lone CR, comments at column 0, strings that are not alone', async () => {
    await initParser();
    const cases = [
      'class A:\r\n    """doc"""\r\n    def f(self):  # c\r\n        self.a = 1  # self.b = 2\r\n        return self\r\n# col 0\r\n    def g(self): pass\r\n',
      'def deco(fn):\r    """doc\r    more"""\r    def inner(*args, **kwargs):\r        return fn(*args, **kwargs)\r    return inner\rX = 1\r',
      '"a" "b"\n"""x""".join([])\nr"""raw"""  # c\nclass B:\n    f"{1}"\n    y = 2  # self.z = 3\n    def m(self):\n        # self.q = 1\n        """doc with self.w = 2"""\n        return self\n',
      'def outer(a):\n    def inner():\n        pass\n    x = inner  # not returned\n\ndef warned():\n    """d"""\n    warnings.warn("old", DeprecationWarning)\n',
      // parameter lists read off the text: CRLF, comments, a broken list elsewhere in the file, decorator factories
      'def f(\r\n    a: int = 1,  # c\r\n    *, b: "x,y" = (1, 2),\r\n) -> None:\r\n    pass\r\nclass K:\r\n    def m(self, /, x=[1, 2], **kw): return self\r\n',
      'def broken(a, b c):\n    pass\ndef ok(x, y=2):\n    return x\n',
      'from .a import (b,\r\n    c as d)  # x\r\nimport e.f\r\nb = 1\r\nfrom .g import *\r\ntry:\r\n    import h\r\nexcept ImportError:\r\n    h = None\r\n',
      'from x import (a,\nfrom y import b\nimport z\n',
      'def deco(fn, *, name: str = "n"):\n    def wrapper(*args, **kwargs):\n        return fn(*args, **kwargs)\n    return wrapper\n\ndef first(cls):\n    cls.x = 1\n    return cls\n',
    ];
    for (const src of cases) {
      assert.equal(canonical(summarizeModule(src, 'm', false, 'm.py')), canonical(summarizeModule(src, 'm', false, 'm.py', true)), JSON.stringify(src));
    }
  });

  it('reads plain parameter lists off the text, keeping their line breaks, and leaves the others to the parser', () => {
    const src = [
      'def f(',
      '    a: int,  # why',
      '    b: dict[str, int] = {"k": 1},',
      '    /,',
      '    *args: "Any",',
      '    c=None,',
      '    **kw,',
      ') -> int:',
      '    return a',
      'def g(x=lambda a, b: a): ...',
      'def h(x: list[  # inside brackets',
      '      int]): ...',
      'def i(s=f"{1}"): ...',
      '',
    ].join('\n');
    const sk = skeletonize(src);
    assert.equal(sk.text.split('\n').length, src.split('\n').length);
    assert.ok(sk.text.startsWith('def f(\n\n\n\n\n\n\n):\n'), sk.text); // the return annotation goes too
    assert.deepEqual(
      sk.params.get(0)?.map((p) => `${p.kind} ${p.name}: ${p.annotation} = ${p.defaultText}`),
      ['posonly a: int = undefined', 'posonly b: dict[str, int] = {"k": 1}', 'varargs args: "Any" = undefined', 'kwonly c: undefined = None', 'varkw kw: undefined = undefined'],
    );
    // a lambda's commas, a comment inside brackets and an f-string are left to the parser
    for (const row of [9, 10, 12]) assert.equal(sk.params.get(row), undefined, `row ${row}`);
    assert.ok(sk.text.includes('def g(x=lambda a, b: a): ...') && sk.text.includes('def i(s=f"{1}"): ...'));
    assert.equal(skeletonize(src, { readOffText: false }).text.split('\n')[1], '    a: int,  # why');
  });

  it('reads plain module-level imports off the text, each leaving a pass, and leaves the others to the parser', () => {
    const src = [
      'from __future__ import annotations',
      'import os.path, sys as system',
      'from ..pkg.mod import (  # why',
      '    a,',
      '    b as c,  # more',
      ')',
      'from . import *',
      'if True:',
      '    import json',
      'import a . b',
      "from x import y; z = 1",
      'from x import y,',
      '',
    ].join('\n');
    const sk = skeletonize(src);
    assert.equal(sk.text.split('\n').length, src.split('\n').length);
    assert.deepEqual([...sk.imports.keys()], [1, 2, 6]);
    assert.deepEqual(sk.imports.get(1), { names: [['os.path', undefined], ['sys', 'system']] });
    assert.deepEqual(sk.imports.get(2), { from: { level: 2, module: 'pkg.mod' }, names: [['a', undefined], ['b', 'c']] });
    assert.deepEqual(sk.imports.get(6), { from: { level: 1, module: '' }, star: true, names: [] });
    assert.deepEqual(sk.text.split('\n').slice(0, 8), ['from __future__ import annotations', 'pass', 'pass', '', '', '', 'pass', 'if True:']);
    for (const [k, v] of Object.entries({ 'import a.b as': undefined, 'from x import (a, b': undefined, 'import x, y as z': { names: [['x', undefined], ['y', 'z']] } })) {
      assert.deepEqual(importFromText(k), v, k);
    }
  });

  it('reads the same parameters off the text as the parser does, for every def of the 3.12 standard library', async () => {
    await initParser();
    const zip = new ZipRoot(stdlibZip('312'));
    let read = 0;
    let left = 0;
    for (const rel of zip.members().filter((m) => m.endsWith('.py'))) {
      const tree = parsePython(zip.readText(rel)!);
      try {
        for (const def of tree.rootNode.descendantsOfType('function_definition')) {
          const list = def?.childForFieldName('parameters');
          if (!def || !list || def.hasError) continue;
          const text = paramsFromText(list.text.slice(1, -1));
          if (text === undefined) {
            left++;
            continue;
          }
          assert.deepEqual(text, readParams(list), `${rel}:${def.startPosition.row + 1}`);
          read++;
        }
      } finally {
        tree.delete();
      }
    }
    console.log(`  3.12: ${read} parameter lists read off the text as the parser reads them, ${left} left to the parser`);
    assert.ok(read > 10000 && left < read / 10, `${read} read, ${left} left`);
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
