/** The .vsix holds only what runs: the bundles, the wasm files, the grammar, README, LICENSE and icon. */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { ZipRoot } from '../server/src/engine/sources/zipRoot';
import { ROOT } from './helpers';

const ALLOWED = [
  /^extension\.vsixmanifest$/,
  /^\[Content_Types\]\.xml$/,
  /^extension\/package\.json$/,
  /^extension\/readme\.md$/,
  /^extension\/LICENSE\.txt$/,
  /^extension\/icon\.png$/,
  /^extension\/media\/[\w.-]+\.png$/,
  /^extension\/dist\/(client|server|serverMain|cli|indexWorker)\.js$/,
  /^extension\/dist\/tree-sitter(-python)?\.wasm$/,
  /^extension\/dist\/tree-sitter\.cjs$/,
  /^extension\/syntaxes\/[\w.-]+\.tmLanguage\.json$/,
];

describe('the packaged extension', () => {
  it('contains exactly the files that run, under 3 MB', () => {
    const out = path.join(ROOT, 'dist', 'apidrift-test.vsix');
    const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
    const r = spawnSync(process.execPath, [vsce, 'package', '--no-dependencies', '--no-rewrite-relative-links', '--allow-missing-repository', '-o', out], { cwd: ROOT, encoding: 'utf8', timeout: 120_000, input: '' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    try {
      const size = fs.statSync(out).size;
      const members = new ZipRoot(out).members().sort();
      console.log(`  ${members.length} files, ${(size / 1024).toFixed(0)} KiB`);
      const stray = members.filter((m) => !ALLOWED.some((re) => re.test(m)));
      assert.deepEqual(stray, [], `files that do not run: ${stray.join(', ')}`);
      for (const needed of ['extension/dist/client.js', 'extension/dist/server.js', 'extension/dist/serverMain.js', 'extension/dist/tree-sitter.cjs', 'extension/dist/cli.js', 'extension/dist/indexWorker.js', 'extension/dist/tree-sitter.wasm', 'extension/dist/tree-sitter-python.wasm', 'extension/syntaxes/apidrift-report.tmLanguage.json', 'extension/readme.md', 'extension/LICENSE.txt', 'extension/icon.png']) {
        assert.ok(members.includes(needed), `${needed} is missing`);
      }
      assert.ok(size <= 3 * 1024 * 1024, `${size} bytes`);
      // the extension page shows the README: every image it links ships in the package
      const readme = new ZipRoot(out).readText('extension/readme.md')!;
      const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
      assert.ok(images.length > 0);
      for (const img of images) assert.ok(members.includes(`extension/${img}`), `README image ${img} is not in the package`);
      const manifest = JSON.parse(new ZipRoot(out).readText('extension/package.json')!);
      assert.equal(manifest.main, './dist/client.js');
    } finally {
      fs.rmSync(out, { force: true });
    }
  });
});
