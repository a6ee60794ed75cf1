/**
 * What an editor's engine keeps for hours does not keep the texts it was read from: a summary's
 * names are cut from the module's text, and V8 keeps the whole text alive behind each such cut
 * (see ownStrings.ts).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import * as v8 from 'v8';
import * as vm from 'vm';
import { Engine } from '../../server/src/engine';
import { ownString } from '../../server/src/engine/ownStrings';
import { initParser } from '../../server/src/engine/parser';
import { Program } from '../../server/src/engine/resolve/program';
import { Target } from '../../server/src/engine/sources/target';
import { tempTree } from '../helpers';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

/** A module of about 4.6 MB whose summary is small: forty classes of one method, with long bodies. */
function bigModule(): string {
  let text = '';
  for (let i = 0; i < 40; i++) {
    text += `class Holder${i}:\n    def a_rather_long_method_name_${i}(self, first_argument, second_argument=None):\n        self.attribute_set_in_body_${i} = first_argument\n`;
    text += `        value = [${'1, '.repeat(2000)}]\n`.repeat(20);
  }
  return text;
}

/** How much more heap is in use after `p` summarised the big module (and then a small one, which the summariser's own last-body memos move on to). */
function retainedBy(p: Program): { mb: number; kept: unknown } {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const kept = p.summary('pkg.big');
  p.summary('pkg.small');
  gc();
  gc();
  return { mb: (process.memoryUsage().heapUsed - before) / 1048576, kept };
}

describe('strings kept for long', () => {
  it('a compact program keeps its summaries without the text of their modules', async () => {
    await initParser();
    const dir = tempTree({ 'pkg/__init__.py': '', 'pkg/big.py': bigModule(), 'pkg/small.py': 'class Small:\n    def m(self):\n        self.x = 1\n' });
    assert.ok(fs.statSync(path.join(dir, 'pkg', 'big.py')).size > 4_000_000);
    const plain = new Program(Target.open([dir]));
    const compact = new Program(Target.open([dir]));
    compact.compactSummaries = true;
    const a = retainedBy(plain);
    const b = retainedBy(compact);
    // both summaries are alive here, and both say the same
    assert.deepEqual(b.kept, a.kept);
    // (the plain program shows what this test guards against: the whole text stays behind the names)
    assert.ok(a.mb > 3, `a summary cut from the text keeps it: ${a.mb.toFixed(2)} MB`);
    assert.ok(b.mb < 1, `a compact summary keeps ${b.mb.toFixed(2)} MB`);
  });

  it('typing in many methods of a big file keeps one version of its text, not one for each method', async () => {
    await initParser();
    const target = tempTree({ 'lib/__init__.py': 'def a_function_of_the_library(first_argument, second_argument):\n    return first_argument\n' });
    const methods = 24;
    const padding = `        # ${'-'.repeat(200)}\n`.repeat(150);
    const lines: string[] = ['import lib', '', 'class BigClassOfTheUser:'];
    for (let i = 0; i < methods; i++) lines.push(`    def method_number_${i}_of_the_class(self, an_argument):`, '        lib.a_function_of_the_library(an_argument, an_unknown_keyword=1)' + padding.trimEnd());
    let text = `${lines.join('\n')}\n`;
    assert.ok(text.length > 700_000);
    const file = path.join(tempTree({ 'user.py': text }), 'user.py');
    const engine = await Engine.open({ targets: [target], incremental: true, indexOnDemand: false });
    const first = engine.check(text, file);
    assert.equal(first.findings.filter((f) => f.code === 'unexpected-keyword').length, methods);
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    // one keystroke in each method: each method's results (and what the summary knows of it) are
    // made from another version of the text
    for (let i = 0; i < methods; i++) {
      const at = text.indexOf(`an_unknown_keyword=1`, text.indexOf(`method_number_${i}_of_the_class`));
      text = `${text.slice(0, at)}x${text.slice(at)}`;
      const r = engine.check(text, file);
      assert.equal(r.findings.filter((f) => f.code === 'unexpected-keyword').length, methods);
    }
    gc();
    gc();
    const grown = (process.memoryUsage().heapUsed - before) / 1048576;
    // the last version is alive (the tree and the results of this check); the others are not
    assert.ok(grown < 6, `${methods} keystrokes in as many methods of a ${(text.length / 1048576).toFixed(2)} MB file kept ${grown.toFixed(1)} MB`);
  });

  it('a copied string has the same characters, short or long', () => {
    const text = `${'x'.repeat(1000)}a_name_longer_than_thirteen${'y'.repeat(1000)}`;
    const cut = text.slice(1000, 1000 + 'a_name_longer_than_thirteen'.length);
    assert.equal(ownString(cut), 'a_name_longer_than_thirteen');
    assert.equal(ownString('short'), 'short');
    assert.equal(ownString(''), '');
  });
});
