/**
 * Virtual dispatch in the editor sees the whole workspace: a method called on `self` in a class of
 * the open file is checked only when the overrides in the workspace's other files (read in the
 * background, and followed as they change on disk) bind the call the same way.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { FIXTURES, tempTree } from '../helpers';
import { type Diagnostic, TestClient } from './lspClient';

const TARGET = path.join(FIXTURES, 'receivers', 'v2');
const BASE = ['from rlib.runner import ModelRunner', '', '', 'class Base(ModelRunner):', '    def step(self, out):', '        self._prepare_inputs(out)', ''].join('\n');
const OVERRIDE = ['from base import Base', '', '', 'class Sub(Base):', '    def _prepare_inputs(self, out):', '        return out', ''].join('\n');
const ALIKE = ['from base import Base', '', '', 'class Sub(Base):', '    def _prepare_inputs(self, scheduler_output, num_scheduled_tokens):', '        return None', ''].join('\n');
const brief = (ds: Diagnostic[] | undefined): string[] => (ds ?? []).map((d) => `${d.range.start.line}:${d.code}`);

describe("the workspace's classes in virtual dispatch", () => {
  let client: TestClient;
  let dir: string;
  const uri = (rel: string): string => pathToFileURL(path.join(dir, rel)).href;

  before(async () => {
    dir = fs.realpathSync(tempTree({ 'base.py': BASE, 'sub.py': OVERRIDE }));
    client = new TestClient({ targets: [TARGET] });
    await client.initialize(dir);
  });
  after(async () => {
    await client.shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('leaves the call unknown while a subclass in another file overrides the method another way, and checks it once the override binds alike', async () => {
    client.open(uri('base.py'), BASE, 1);
    // whatever is published first, once the workspace is read the call is left open: no finding
    await client.waitFor('the workspace read', () => {
      const last = client.published.filter((p) => p.uri === uri('base.py')).pop();
      return last && last.diagnostics.length === 0;
    });
    assert.deepEqual(brief(client.diagnostics.get(uri('base.py'))?.diagnostics), []);
    // the override changes on disk to bind the call as the target's method does
    const count = client.published.length;
    fs.writeFileSync(path.join(dir, 'sub.py'), ALIKE);
    void client.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('sub.py'), type: 2 }] });
    await client.waitFor('the call checked', () => client.published.slice(count).some((p) => p.uri === uri('base.py') && p.diagnostics.length === 1));
    assert.deepEqual(brief(client.diagnostics.get(uri('base.py'))?.diagnostics), ['5:missing-argument']);
    // the subclass deleted: nothing overrides the method any more
    fs.writeFileSync(path.join(dir, 'sub.py'), OVERRIDE);
    void client.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('sub.py'), type: 2 }] });
    await client.waitFor('left open again', () => brief(client.diagnostics.get(uri('base.py'))?.diagnostics).length === 0);
    fs.rmSync(path.join(dir, 'sub.py'));
    void client.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uri('sub.py'), type: 3 }] });
    await client.waitFor('checked again', () => brief(client.diagnostics.get(uri('base.py'))?.diagnostics).length === 1);
  });
});
