/** package.json and the code agree: settings, commands, activation, entry points. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { SETTINGS_KEYS } from '../server/src/lsp/settings';
import { ROOT } from './helpers';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

describe('package.json', () => {
  it('declares every setting the server reads, and the trace setting', () => {
    const declared = Object.keys(pkg.contributes.configuration.properties).sort();
    assert.deepEqual(declared, [...SETTINGS_KEYS, 'apidrift.trace.server'].sort());
  });

  it('declares every command the client registers', () => {
    const src = fs.readFileSync(path.join(ROOT, 'client', 'src', 'extension.ts'), 'utf8');
    const registered = [...src.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]);
    const declared = pkg.contributes.commands.map((c: { command: string }) => c.command);
    for (const c of declared) assert.ok(registered.includes(c), `${c} is declared but not registered`);
  });

  it('points main and bin at the bundles that the build makes', () => {
    assert.ok(fs.existsSync(path.join(ROOT, pkg.main)), pkg.main);
    assert.ok(fs.existsSync(path.join(ROOT, pkg.bin.apidrift)), pkg.bin.apidrift);
    assert.match(fs.readFileSync(path.join(ROOT, pkg.bin.apidrift), 'utf8').split('\n')[0], /^#!\/usr\/bin\/env node/);
    assert.deepEqual(pkg.activationEvents, ['onLanguage:python']);
  });

  it("the bundles and the parser's copy beside them keep a node's handle in a named property, and parse with it", async () => {
    // (server.js is the launcher that loads serverMain.js through V8's code cache: none of the engine)
    assert.ok(fs.statSync(path.join(ROOT, 'dist', 'server.js')).size < 20_000, 'the launcher holds no engine');
    for (const f of ['serverMain.js', 'cli.js', 'indexWorker.js', 'tree-sitter.cjs']) {
      const text = fs.readFileSync(path.join(ROOT, 'dist', f), 'utf8');
      const cls = text.indexOf('var Node = class {');
      assert.ok(cls >= 0, f);
      const body = text.slice(cls, text.indexOf('get typeId()', cls));
      assert.ok(!body.includes('[0]') && body.includes('this._other = other;'), `${f}: the Node class`);
      assert.ok(text.includes('C.setValue(address, node._other, "i32");') && !text.includes('node[0]'), `${f}: marshalNode`);
    }
    // the copy the parser reloads after a crash works as the bundles do
    const dist = path.join(ROOT, 'dist');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const ts = require(path.join(dist, 'tree-sitter.cjs'));
    await ts.Parser.init({ locateFile: (f: string) => path.join(dist, f) });
    const parser = new ts.Parser();
    parser.setLanguage(await ts.Language.load(path.join(dist, 'tree-sitter-python.wasm')));
    const tree = parser.parse('def f(a):\n    return g(a, b=1)\n');
    const call = tree.rootNode.descendantForPosition({ row: 1, column: 11 });
    assert.equal(call.type, 'identifier');
    assert.equal(call.parent.type, 'call');
    assert.deepEqual(call.parent.childForFieldName('arguments').namedChildren.map((n: { text: string }) => n.text), ['a', 'b=1']);
    tree.delete();
  });
});
