/**
 * The npm package as a tool: packed, installed from its tarball into an empty folder without
 * the network, and run from there.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describe, it } from 'node:test';
import { ROOT, stdlibZip } from '../helpers';

function npm(args: string[], cwd: string): { code: number; out: string } {
  const r = spawnSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8', timeout: 300_000, env: { ...process.env, npm_config_cache: path.join(cwd, '.npm-cache') } });
  return { code: r.status ?? -1, out: (r.stdout ?? '') + (r.stderr ?? '') };
}

describe('the npm package', () => {
  it('installs offline from its tarball into an empty folder and runs', () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-pack-'));
    try {
      // the bundles were built by the test command; packing does not build again
      const pack = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
      assert.equal(pack.status, 0, pack.stderr);
      const info = JSON.parse(pack.stdout)[0] as { filename: string; files: Array<{ path: string }> };
      const files = info.files.map((f) => f.path).sort();
      // (the README's pictures ship with it: the extension page and the package page show them)
      assert.deepEqual(files, ['LICENSE', 'README.md', 'dist/cli.js', 'dist/client.js', 'dist/indexWorker.js', 'dist/server.js', 'dist/serverMain.js', 'dist/tree-sitter-python.wasm', 'dist/tree-sitter.cjs', 'dist/tree-sitter.wasm', 'icon.png', 'media/api-changes.png', 'media/quick-fix.png', 'media/status.png', 'package.json', 'syntaxes/apidrift-report.tmLanguage.json']);

      const app = path.join(work, 'app');
      fs.mkdirSync(app);
      const install = npm(['install', '--offline', path.join(work, info.filename)], app);
      assert.equal(install.code, 0, install.out);
      const manifest = JSON.parse(fs.readFileSync(path.join(app, 'node_modules', 'apidrift', 'package.json'), 'utf8'));
      assert.equal(manifest.dependencies, undefined, 'everything it needs is bundled');
      assert.deepEqual(fs.readdirSync(path.join(app, 'node_modules')).filter((n) => !n.startsWith('.')), ['apidrift']);

      const bin = path.join(app, 'node_modules', '.bin', 'apidrift');
      const version = spawnSync(bin, ['--version'], { cwd: app, encoding: 'utf8' });
      assert.equal(version.stdout, `apidrift ${manifest.version}\n`, version.stderr);

      fs.writeFileSync(path.join(app, 'old.py'), 'import configparser\n\nconfigparser.SafeConfigParser()\n');
      const check = spawnSync(bin, ['check', '--target', stdlibZip('312'), '--no-cache', 'old.py'], { cwd: app, encoding: 'utf8' });
      assert.equal(check.status, 1, check.stderr);
      assert.match(check.stdout, /^old\.py:3:14: error \[unknown-attribute\] .*SafeConfigParser/m);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
