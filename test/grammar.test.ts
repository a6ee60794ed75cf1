/** The report grammar: each kind of entry gets its own scope, and signatures embed Python. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { before, describe, it } from 'node:test';
import * as oniguruma from 'vscode-oniguruma';
import * as vsctm from 'vscode-textmate';
import { ROOT } from './helpers';

const REPORT = `apidrift API changes: v1 -> v2
1 removed modules, 1 removed names, 1 moved names, 1 changed signatures

Removed modules
  - drift.oldio  [1 use]

Removed names
  - drift.engine.legacy  (function)

Moved names
  > drift.utils.cdiv -> drift.utils.math_utils.cdiv  [2 uses]

Changed signatures: Required parameters added
  ~ drift.engine.Engine  (constructor)  [3 uses]
      * block_size was added as a required parameter
      - Engine(model, seed=0)
      + Engine(model, block_size: int, seed=0)
`;

let grammar: vsctm.IGrammar;

before(async () => {
  const wasm = fs.readFileSync(path.join(ROOT, 'node_modules', 'vscode-oniguruma', 'release', 'onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({ createOnigScanner: (s: string[]) => new oniguruma.OnigScanner(s), createOnigString: (s: string) => new oniguruma.OnigString(s) }),
    loadGrammar: async (scope) => {
      if (scope === 'text.apidrift-report') {
        const file = path.join(ROOT, 'syntaxes', 'apidrift-report.tmLanguage.json');
        return vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file);
      }
      if (scope === 'source.python') {
        // a minimal stand-in for the Python grammar VS Code ships
        return vsctm.parseRawGrammar(JSON.stringify({ scopeName: 'source.python', patterns: [{ match: '\\b(int|str|bool)\\b', name: 'support.type.python' }, { match: '=', name: 'keyword.operator.assignment.python' }] }), 'python.json');
      }
      return null;
    },
  });
  const g = await registry.loadGrammar('text.apidrift-report');
  assert.ok(g);
  grammar = g;
});

/** The scopes of the token that covers `needle` on the line that contains `lineText`. */
function scopesAt(lineText: string, needle: string): string[] {
  let stack = vsctm.INITIAL;
  for (const line of REPORT.split('\n')) {
    const r = grammar.tokenizeLine(line, stack);
    stack = r.ruleStack;
    if (!line.includes(lineText)) continue;
    const at = line.indexOf(needle, line.indexOf(lineText));
    const tok = r.tokens.find((t) => t.startIndex <= at && at < t.endIndex);
    assert.ok(tok, `no token at ${needle}`);
    return tok.scopes;
  }
  throw new Error(`no line with ${lineText}`);
}

describe('the apidrift-report grammar', () => {
  it('declares itself in package.json for the apidrift-report language', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.deepEqual(pkg.contributes.grammars[0].language, 'apidrift-report');
    assert.equal(pkg.contributes.grammars[0].scopeName, 'text.apidrift-report');
  });

  it('colours headings, removed, moved and changed entries differently', () => {
    assert.ok(scopesAt('apidrift API changes', 'apidrift').includes('markup.heading.title.apidrift-report'));
    assert.ok(scopesAt('Moved names', 'Moved').includes('markup.heading.section.apidrift-report'));
    assert.ok(scopesAt('- drift.oldio', 'drift.oldio').includes('markup.deleted.name.apidrift-report'));
    assert.ok(scopesAt('- drift.oldio', '[1 use]').includes('constant.numeric.uses.apidrift-report'));
    assert.ok(scopesAt('> drift.utils.cdiv', 'drift.utils.math_utils').includes('markup.inserted.name.apidrift-report'));
    assert.ok(scopesAt('> drift.utils.cdiv', '->').includes('keyword.operator.moved.apidrift-report'));
    assert.ok(scopesAt('~ drift.engine.Engine', 'drift.engine.Engine').includes('markup.changed.name.apidrift-report'));
    assert.ok(scopesAt('* block_size', 'block_size').includes('markup.changed.detail.apidrift-report'));
  });

  it('embeds Python in the baseline and target signatures', () => {
    const target = scopesAt('+ Engine(model, block_size', 'int');
    assert.ok(target.includes('markup.inserted.signature.apidrift-report'));
    assert.ok(target.includes('source.python'));
    assert.ok(target.includes('support.type.python'));
    const baseline = scopesAt('- Engine(model, seed', 'seed');
    assert.ok(baseline.includes('markup.deleted.signature.apidrift-report'));
    assert.ok(baseline.includes('source.python'));
  });
});
