/**
 * An empty folder given as the target is an error (nothing would be checked, and "0 findings"
 * would mislead), while an empty folder of the user's own (a new project) stays an import root:
 * the modules written there later are found.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine } from '../../server/src/engine';
import { tempTree } from '../helpers';

describe('empty folders', () => {
  it('an empty target folder is refused with the reason', async () => {
    const empty = tempTree({});
    await assert.rejects(Engine.open({ targets: [empty] }), /holds no Python module or package/);
  });

  it("an empty folder of the user's stays an import root for the modules written there later", async () => {
    const lib = tempTree({ 'lib/__init__.py': 'class B:\n    def __init__(self, a, b):\n        pass\n' });
    const workspace = tempTree({});
    const engine = await Engine.open({ targets: [lib], sourceRoots: [workspace] });
    fs.writeFileSync(path.join(workspace, 'mymod.py'), 'from lib import B\nclass Mine(B):\n    pass\n');
    const r = engine.check('from mymod import Mine\nMine(1)\n', path.join(workspace, 'main.py'));
    assert.deepEqual(r.findings.map((f) => `${f.range.start.line + 1}:${f.code}:${f.param}`), ['2:missing-argument:b']);
  });
});
