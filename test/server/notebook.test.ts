/**
 * Notebooks in the editor over JSON-RPC (notebook document sync): the Python cells are checked as
 * the one module they form when run in order (an import in one cell serves a call in another),
 * IPython lines are left out, and each cell gets its own findings, following edits.
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { ROOT, stdlibZip } from '../helpers';
import { type Diagnostic, TestClient } from './lspClient';

const brief = (ds: Diagnostic[]): string[] => ds.map((d) => `${d.range.start.line}:${d.code}`).sort();

describe('notebooks', () => {
  let client: TestClient;
  const nb = pathToFileURL(path.join(ROOT, 'test', 'fixtures', 'virtual', 'nb.ipynb')).href;
  const cell = (n: number): string => `vscode-notebook-cell:${nb.slice('file:'.length)}#W${n}sZmlsZQ%3D%3D`;

  before(async () => {
    client = new TestClient({ targets: [stdlibZip('314')] });
    await client.initialize(ROOT);
  });
  after(async () => client.shutdown());

  it('checks the Python cells as one module and places each finding in its cell', async () => {
    void client.conn.sendNotification('notebookDocument/didOpen', {
      notebookDocument: {
        uri: nb,
        notebookType: 'jupyter-notebook',
        version: 1,
        cells: [
          { kind: 2, document: cell(0) },
          { kind: 1, document: cell(1) },
          { kind: 2, document: cell(2) },
        ],
      },
      cellTextDocuments: [
        { uri: cell(0), languageId: 'python', version: 1, text: 'from textwrap import dedent\n' },
        { uri: cell(1), languageId: 'markdown', version: 1, text: '# dedent() here is prose\n' },
        { uri: cell(2), languageId: 'python', version: 1, text: '%matplotlib inline\nx = dedent()\n' },
      ],
    });
    // (before the target is open the cells are published empty, then checked)
    await client.waitFor('the finding in cell 2', () => client.diagnostics.get(cell(2))?.diagnostics.length);
    assert.deepEqual(brief(client.diagnostics.get(cell(2))!.diagnostics), ['1:missing-argument']);
    assert.deepEqual(brief(await client.diagnosticsFor(cell(0), 1)), []);
    assert.equal(client.diagnostics.get(cell(1)), undefined, 'the markdown cell is not checked');
    const d = (await client.diagnosticsFor(cell(2), 1))[0];
    assert.deepEqual(d.range.start, { line: 1, character: 4 });
    assert.match(d.message, /dedent\(\) missing 1 required positional argument: 'text'/);
    // the hover of the call in its cell: the signature with the missing parameter in bold
    const hover = (await client.conn.sendRequest('textDocument/hover', { textDocument: { uri: cell(2) }, position: { line: 1, character: 6 } })) as { contents: { value: string } } | null;
    assert.ok(hover, 'a hover in the cell');
    assert.match(hover.contents.value, /dedent\\\(\*\*text\*\*\\\)/);
  });

  it('follows an edit of a cell', async () => {
    void client.conn.sendNotification('notebookDocument/didChange', {
      notebookDocument: { uri: nb, version: 2 },
      change: { cells: { textContent: [{ document: { uri: cell(2), version: 2 }, changes: [{ text: '%matplotlib inline\nx = dedent("a")\ny = dedent("a", "b", "c")\n' }] }] } },
    });
    assert.deepEqual(brief(await client.diagnosticsFor(cell(2), 2)), ['2:too-many-positional']);
  });

  it('takes the findings back when the notebook closes', async () => {
    void client.conn.sendNotification('notebookDocument/didClose', { notebookDocument: { uri: nb }, cellTextDocuments: [{ uri: cell(0) }, { uri: cell(1) }, { uri: cell(2) }] });
    await client.waitFor('cell 2 cleared', () => client.diagnostics.get(cell(2))?.diagnostics.length === 0);
  });
});
