/**
 * Workspace diagnostics over JSON-RPC: with `diagnosticMode: workspace` every Python file of the
 * workspace is checked and published (open or not), closing a file keeps its problems, files
 * changed or deleted on disk follow, leaving the mode takes the problems back, and the
 * "Check workspace" request checks every file once in either mode.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { stdlibZip, tempTree } from '../helpers';
import { type Diagnostic, TestClient } from './lspClient';

const BROKEN = 'from textwrap import dedent\n\nx = dedent()\n';
const FINE = 'from textwrap import dedent\n\nx = dedent("a")\n';
const brief = (ds: Diagnostic[] | undefined): string[] | undefined => ds?.map((d) => `${d.range.start.line}:${d.code}`).sort();

describe('workspace diagnostics', () => {
  let client: TestClient;
  let dir: string;
  const uri = (rel: string): string => pathToFileURL(path.join(dir, rel)).href;
  const shown = (rel: string): string[] | undefined => brief(client.diagnostics.get(uri(rel))?.diagnostics);

  before(async () => {
    dir = fs.realpathSync(
      tempTree({
        'a.py': BROKEN,
        'b.py': FINE,
        'pkg/c.py': 'import textwrap\n\ntextwrap.indent()\n',
        '.venv/lib/python3.12/site-packages/d.py': BROKEN,
        'node_modules/e.py': BROKEN,
      }),
    );
    client = new TestClient({ targets: [stdlibZip('314')], diagnosticMode: 'workspace' });
    await client.initialize(dir);
  });
  after(async () => {
    await client.shutdown();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('publishes the problems of files that are not open, leaving excluded folders out', async () => {
    await client.waitFor('a.py and pkg/c.py', () => shown('a.py')?.length && shown('pkg/c.py')?.length && shown('b.py'));
    assert.deepEqual(shown('a.py'), ['2:missing-argument']);
    assert.deepEqual(shown('pkg/c.py'), ['2:missing-argument']);
    assert.deepEqual(shown('b.py'), []);
    assert.equal(client.diagnostics.get(uri('.venv/lib/python3.12/site-packages/d.py')), undefined);
    assert.equal(client.diagnostics.get(uri('node_modules/e.py')), undefined);
  });

  it('keeps the problems of a file that is closed', async () => {
    client.open(uri('a.py'), FINE + 'y = dedent(1, 2)\n', 1);
    assert.deepEqual(brief(await client.diagnosticsFor(uri('a.py'), 1)), ['3:too-many-positional']);
    const count = client.published.length;
    void client.conn.sendNotification('textDocument/didClose', { textDocument: { uri: uri('a.py') } });
    // checked again from disk (the editor's unsaved text is gone)
    await client.waitFor('a.py from disk', () => client.published.slice(count).find((p) => p.uri === uri('a.py')));
    assert.deepEqual(shown('a.py'), ['2:missing-argument']);
    assert.ok(!client.published.slice(count).some((p) => p.uri === uri('a.py') && p.diagnostics.length === 0), 'the problems never went away');
  });

  it('follows files changed and deleted on disk', async () => {
    fs.writeFileSync(path.join(dir, 'pkg', 'c.py'), 'import textwrap\n\ntextwrap.indent("a", "b")\n');
    fs.rmSync(path.join(dir, 'a.py'));
    void client.conn.sendNotification('workspace/didChangeWatchedFiles', {
      changes: [
        { uri: uri('pkg/c.py'), type: 2 },
        { uri: uri('a.py'), type: 3 },
      ],
    });
    await client.waitFor('c.py fixed and a.py gone', () => shown('pkg/c.py')?.length === 0 && shown('a.py')?.length === 0);
  });

  it('takes the problems back when leaving workspace mode, and "Check workspace" checks every file once', async () => {
    fs.writeFileSync(path.join(dir, 'a.py'), BROKEN);
    client.changeSettings({ targets: [stdlibZip('314')], diagnosticMode: 'workspace' });
    await client.waitFor('a.py again', () => shown('a.py')?.length === 1);
    client.changeSettings({ targets: [stdlibZip('314')], diagnosticMode: 'openFiles' });
    await client.waitFor('a.py cleared', () => shown('a.py')?.length === 0);
    const summary = (await client.conn.sendRequest('apidrift/checkWorkspace')) as { files: number; findings: number; filesWithFindings: number };
    assert.deepEqual(shown('a.py'), ['2:missing-argument']);
    assert.deepEqual({ files: summary.files, findings: summary.findings, filesWithFindings: summary.filesWithFindings }, { files: 3, findings: 1, filesWithFindings: 1 });
  });
});
