#!/usr/bin/env node
/**
 * Builds dist/: the extension's client, the language server, the command line and the index
 * worker, each one CommonJS file, with the wasm files and a CommonJS copy of web-tree-sitter beside
 * them (what the parser reloads after a crash).
 *
 * web-tree-sitter keeps a node's handle in an indexed property (`node[0]`), which gives every one
 * of the many node objects a check creates an elements store of its own: creating one takes about
 * five times as long as with a named property. The bundles, and the copy beside them, hold it in
 * `node._other` instead (the class, its constructor and the one function that reads it); each
 * change must apply exactly once, or the build fails. Its one dynamic `import()` becomes a
 * `require`: the server's bundle is loaded through V8's code cache, where `import()` fails.
 *
 * Plain Node, CommonJS; esbuild is a development dependency.
 */
'use strict';
const fs = require('fs');
const path = require('path');
const esbuild = require('esbuild');

const ROOT = path.resolve(__dirname, '..', '..');
const DIST = path.join(ROOT, 'dist');

/** The same file with the node handle in a named property; throws when the text is not the one expected. */
function patchTreeSitter(text) {
  const once = (s, from, to, within) => {
    const at = within ? s.indexOf(from, within[0]) : s.indexOf(from);
    if (at < 0 || (within && at > within[1]) || (!within && s.indexOf(from, at + 1) >= 0)) throw new Error(`web-tree-sitter: '${from}' is not where the build expects it (a new version?)`);
    return s.slice(0, at) + to + s.slice(at + from.length);
  };
  const cls = text.indexOf('var Node = class {');
  if (cls < 0) throw new Error('web-tree-sitter: no Node class (a new version?)');
  let out = once(text, '[0] = 0;', '_other = 0;', [cls, cls + 400]);
  out = once(out, 'this[0] = other;', 'this._other = other;', [cls, cls + 1200]);
  out = once(out, 'C.setValue(address, node[0], "i32");', 'C.setValue(address, node._other, "i32");');
  // the one dynamic import (reading a grammar given by path): a script loaded from V8's code
  // cache cannot make one, and `require` reads the same module
  out = once(out, 'await import("fs/promises")', 'require("fs/promises")');
  return out;
}

const treeSitterPlugin = {
  name: 'tree-sitter-node-handle',
  setup(build) {
    build.onLoad({ filter: /web-tree-sitter[\\/]tree-sitter\.cjs$/ }, (args) => ({ contents: patchTreeSitter(fs.readFileSync(args.path, 'utf8')), loader: 'js' }));
  },
};

async function main() {
  const common = { bundle: true, platform: 'node', format: 'cjs', target: 'node18', logLevel: 'warning' };
  await esbuild.build({ ...common, entryPoints: [path.join(ROOT, 'client/src/extension.ts')], external: ['vscode'], outfile: path.join(DIST, 'client.js') });
  for (const [entry, out] of [
    // the server, and what the extension starts: a launcher that loads it through V8's code cache
    ['server/src/lsp/server.ts', 'serverMain.js'],
    ['server/src/lsp/launcher.ts', 'server.js'],
    ['server/src/cli.ts', 'cli.js'],
    ['server/src/engine/index/indexWorker.ts', 'indexWorker.js'],
  ]) {
    await esbuild.build({ ...common, entryPoints: [path.join(ROOT, entry)], outfile: path.join(DIST, out), plugins: [treeSitterPlugin] });
    // a script compiled from a code cache cannot make a dynamic `import()` (V8 drops what Node
    // needs for it): the bundles must not contain one
    const dynamic = /(^|[^\w$.])import\(/m.exec(fs.readFileSync(path.join(DIST, out), 'utf8'));
    if (dynamic) throw new Error(`dist/${out} contains a dynamic import(), which fails in a script loaded from V8's code cache`);
  }
  const pkg = (p) => path.join(ROOT, 'node_modules', p);
  fs.copyFileSync(pkg('web-tree-sitter/tree-sitter.wasm'), path.join(DIST, 'tree-sitter.wasm'));
  fs.copyFileSync(pkg('tree-sitter-python/tree-sitter-python.wasm'), path.join(DIST, 'tree-sitter-python.wasm'));
  fs.writeFileSync(path.join(DIST, 'tree-sitter.cjs'), patchTreeSitter(fs.readFileSync(pkg('web-tree-sitter/tree-sitter.cjs'), 'utf8')));
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`bundle: ${e.message}\n`);
    process.exit(1);
  });
}

module.exports = { patchTreeSitter };
