/** apidrift reads target and workspace code; it never runs it, and never runs what a setting names. */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { DIST, ROOT, tempTree } from '../helpers';

describe('safety', () => {
  it('never imports, executes or evaluates target or workspace code', async () => {
    const marker = path.join(os.tmpdir(), `apidrift-executed-${process.pid}-${Date.now()}`);
    const side = `import os\nopen(${JSON.stringify(marker)}, "w").write("ran")\nos.system("touch ${marker}")\n`;
    const dir = tempTree({
      'evil/__init__.py': side + 'def f(a):\n    pass\n',
      'evil/sub.py': side + 'class C:\n    def __init__(self, x):\n        pass\n',
    });
    try {
      const engine = await Engine.open({ targets: [dir] });
      const r = engine.check(side + 'import evil\nfrom evil.sub import C\nevil.f()\nC()\n', path.join(dir, 'user.py'));
      assert.equal(r.findings.length, 2);
      engine.program.buildFullIndex();
      const cli = spawnSync(process.execPath, [path.join(DIST, 'cli.js'), 'check', '--no-cache', '--target', dir, dir], { cwd: ROOT, encoding: 'utf8' });
      assert.ok(cli.status === 0 || cli.status === 1, cli.stderr);
      assert.equal(fs.existsSync(marker), false, 'target or workspace code was executed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(marker, { force: true });
    }
  });

  it('passes target paths to no shell: a path that looks like a command stays a path', () => {
    const marker = path.join(os.tmpdir(), `apidrift-shell-${process.pid}-${Date.now()}`);
    for (const target of [`git:/tmp/x; touch ${marker}@HEAD`, `git:$(touch ${marker})@HEAD`, `/tmp/$(touch ${marker})`, `\`touch ${marker}\``]) {
      const r = spawnSync(process.execPath, [path.join(DIST, 'cli.js'), 'check', '--target', target, path.join(ROOT, 'examples', 'stdlib311_user.py')], { cwd: ROOT, encoding: 'utf8' });
      assert.equal(r.status, 2, r.stdout + r.stderr);
    }
    assert.equal(fs.existsSync(marker), false);
  });

  it('declares limited support for untrusted workspaces, restricting the path settings', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.deepEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations.sort(), ['apidrift.baseline', 'apidrift.indexUrl', 'apidrift.targets']);
  });
});
