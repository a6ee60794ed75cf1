/** The language server over real JSON-RPC: diagnostics, quick fixes tied to versions, hover, settings. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { applyEdits, FIXTURES, ROOT, stdlibZip } from '../helpers';
import { TestClient } from './lspClient';

const SOURCE = [
  'import configparser',
  'from email.utils import localtime',
  'from imaplib import IMAP4_SSL',
  '',
  'def stamp(dt):',
  '    return localtime(',
  '        dt,',
  '        isdst=-1,',
  '    )',
  '',
  'def connect(host):',
  '    return IMAP4_SSL(host, 993, None, None)',
  '',
].join('\n');

describe('language server', () => {
  let client: TestClient;
  const uri = pathToFileURL(path.join(ROOT, 'test', 'fixtures', 'virtual', 'doc.py')).href;

  before(async () => {
    client = new TestClient({ targets: [stdlibZip('314')] });
    await client.initialize(ROOT);
  });
  after(async () => client.shutdown());

  it('publishes diagnostics for an opened document and reports ready', async () => {
    client.open(uri, SOURCE, 1);
    const diags = await client.diagnosticsFor(uri, 1);
    assert.deepEqual(
      diags.map((d) => `${d.range.start.line}:${d.code}`),
      ['7:unexpected-keyword', '11:too-many-positional'],
    );
    assert.equal(diags[0].source, 'apidrift');
    assert.equal(diags[0].severity, 1);
    await client.waitFor('ready status', () => client.statuses.find((s) => s.state === 'ready'));
  });

  it('offers a quick fix whose edit removes the argument line cleanly', async () => {
    const diags = await client.diagnosticsFor(uri, 1);
    const actions = (await client.conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri },
      range: diags[0].range,
      context: { diagnostics: [diags[0]] },
    })) as Array<{ title: string; kind: string; edit: { documentChanges: Array<{ textDocument: { version: number }; edits: Parameters<typeof applyEdits>[1] }> } }>;
    // the fix first, then the two ways of ignoring the finding
    assert.deepEqual(actions.map((a) => a.title.replace(/isdst=.*/, 'isdst')), ['Remove argument isdst', 'Ignore [unexpected-keyword] on this line', 'Ignore every apidrift finding in this file']);
    assert.equal(actions[0].kind, 'quickfix');
    const change = actions[0].edit.documentChanges[0];
    assert.equal(change.textDocument.version, 1);
    const fixed = applyEdits(SOURCE, change.edits);
    assert.equal(fixed, SOURCE.replace('        isdst=-1,\n', ''));
  });

  it('offers to ignore a finding on its line, merged into an apidrift comment already there, or in the whole file', async () => {
    const diags = await client.diagnosticsFor(uri, 1);
    // each code links to its documentation
    assert.ok(diags.every((d) => /#finding-codes$/.test((d as unknown as { codeDescription?: { href: string } }).codeDescription?.href ?? '')));
    type Action = { title: string; edit: { documentChanges: Array<{ edits: Parameters<typeof applyEdits>[1] }> } };
    const actionsAt = async (u: string, range: unknown): Promise<Action[]> =>
      (await client.conn.sendRequest('textDocument/codeAction', { textDocument: { uri: u }, range, context: { diagnostics: [] } })) as Action[];
    const onLine = (await actionsAt(uri, diags[1].range)).find((a) => a.title === 'Ignore [too-many-positional] on this line')!;
    const fixed = applyEdits(SOURCE, onLine.edit.documentChanges[0].edits);
    assert.equal(fixed.split('\n')[11], '    return IMAP4_SSL(host, 993, None, None)  # apidrift: ignore[too-many-positional]');
    const inFile = (await actionsAt(uri, diags[1].range)).find((a) => /in this file/.test(a.title))!;
    assert.equal(applyEdits(SOURCE, inFile.edit.documentChanges[0].edits), '# apidrift: ignore-file\n' + SOURCE);
    // the edited texts are silent when checked
    const other = uri.replace('doc.py', 'ignored.py');
    client.open(other, fixed, 1);
    assert.deepEqual((await client.diagnosticsFor(other, 1)).map((d) => d.code), ['unexpected-keyword']);
    const merged = SOURCE.replace('None, None)', 'None, None)  # apidrift: ignore[unexpected-keyword]');
    client.change(other, 2, [{ text: merged }]);
    // (new on the edited line: shown after the typing pause)
    const tooMany = await client.waitFor('the too-many-positional finding of v2', () => {
      const d = client.diagnostics.get(other);
      return d?.version === 2 ? d.diagnostics.find((x) => x.code === 'too-many-positional') : undefined;
    });
    const mergeAction = (await actionsAt(other, tooMany.range)).find((a) => a.title === 'Ignore [too-many-positional] on this line')!;
    const mergedText = applyEdits(merged, mergeAction.edit.documentChanges[0].edits);
    assert.equal(mergedText.split('\n')[11], '    return IMAP4_SSL(host, 993, None, None)  # apidrift: ignore[unexpected-keyword, too-many-positional]');
    client.change(other, 3, [{ text: applyEdits(SOURCE, inFile.edit.documentChanges[0].edits) }]);
    assert.deepEqual(await client.diagnosticsFor(other, 3), []);
    void client.conn.sendNotification('textDocument/didClose', { textDocument: { uri: other } });
  });

  it('hovers a checked call with the target signature and its location', async () => {
    const hover = (await client.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 11, character: 14 } })) as { contents: { value: string } };
    assert.match(hover.contents.value, /IMAP4_SSL\(host='', port=IMAP4_SSL_PORT, \*, ssl_context=None, timeout=None\)/);
    assert.match(hover.contents.value, /imaplib\\\.py:\d+/);
    assert.match(hover.contents.value, /`imaplib\.IMAP4_SSL` in the target/);
  });

  it('shows short plain messages, and the signature in the hover with the parameter concerned in bold', async () => {
    const diags = await client.diagnosticsFor(uri, 1);
    assert.deepEqual(diags.map((d) => d.message), ["localtime() got an unexpected keyword argument 'isdst'", 'IMAP4_SSL() takes 2 positional arguments but 4 were given']);
    const hover = (await client.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 5, character: 14 } })) as { contents: { value: string } };
    // the keyword is gone from the target: the signature stays a Python block
    assert.match(hover.contents.value, /^```python\nlocaltime\(dt=None\)\n```/);
    // a parameter the target has is in bold
    const other = uri.replace('doc.py', 'bold.py');
    client.open(other, 'import imaplib\nimaplib.Time2Internaldate()\n', 1);
    const d = await client.diagnosticsFor(other, 1);
    const missing = d.find((x) => x.code === 'missing-argument')!;
    assert.equal(missing.message, "Time2Internaldate() missing 1 required positional argument: 'date_time'");
    const h2 = (await client.conn.sendRequest('textDocument/hover', { textDocument: { uri: other }, position: missing.range.start })) as { contents: { value: string } };
    assert.match(h2.contents.value, /^Time2Internaldate\\\(\*\*date\\_time\*\*\\\)\n\n`imaplib\.Time2Internaldate` in the target, imaplib\\\.py:\d+$/);
    void client.conn.sendNotification('textDocument/didClose', { textDocument: { uri: other } });
  });

  it('re-checks after an incremental edit and refuses fixes for a stale version', async () => {
    // delete the `isdst=-1,` line: only the IMAP4_SSL finding remains, one line up
    client.change(uri, 2, [{ range: { start: { line: 7, character: 0 }, end: { line: 8, character: 0 } }, text: '' }]);
    const diags = await client.diagnosticsFor(uri, 2);
    assert.deepEqual(diags.map((d) => `${d.range.start.line}:${d.code}`), ['10:too-many-positional']);
    const stale = await client.conn.sendRequest('textDocument/codeAction', {
      textDocument: { uri: uri + '-unknown' },
      range: diags[0].range,
      context: { diagnostics: [] },
    });
    assert.deepEqual(stale, []);
  });

  it('follows a change of targets without a restart', async () => {
    client.change(uri, 3, [{ text: SOURCE }]);
    // the finding of the line put back is new on the edited line: shown after the typing pause
    await client.waitFor('both findings of v3', () => client.diagnostics.get(uri)?.version === 3 && client.diagnostics.get(uri)!.diagnostics.length === 2);
    client.changeSettings({ targets: [stdlibZip('311')] });
    await client.waitFor('diagnostics against 3.11', () => {
      const d = client.diagnostics.get(uri);
      return d && d.version === 3 && d.diagnostics.length === 0;
    });
  });

  it('reports a missing target as an error status, never as "no problems" silently', async () => {
    const before = client.statuses.length;
    client.changeSettings({ targets: [path.join(FIXTURES, 'does-not-exist')] });
    const st = await client.waitFor('error status', () => client.statuses.slice(before).find((s) => s.state === 'error'));
    assert.match(st.message, /target path does not exist/);
    await client.waitFor('the reason in the log', () => client.logs.some((l) => /target error: target path does not exist/.test(l)));
    client.changeSettings({ targets: [stdlibZip('314')] });
    await client.waitFor('ready again', () => client.statuses.slice(before).find((s) => s.state === 'ready'));
  });

  it('logs each check only while tracing, naming the file by its path in the workspace', async () => {
    const traced = uri.replace('doc.py', 'traced.py');
    const checkLine = (l: string): boolean => /\] checked /.test(l);
    client.open(traced, SOURCE, 1);
    await client.diagnosticsFor(traced, 1);
    assert.ok(client.logs.length > 0 && !client.logs.some(checkLine), client.logs.join('\n'));
    void client.conn.sendNotification('$/setTrace', { value: 'messages' });
    client.change(traced, 2, [{ text: SOURCE + '\n' }]);
    await client.diagnosticsFor(traced, 2);
    const line = await client.waitFor('a check line', () => client.logs.find(checkLine));
    assert.match(line, /\] checked test\/fixtures\/virtual\/traced\.py v2: 2 findings/);
    void client.conn.sendNotification('$/setTrace', { value: 'off' });
    client.change(traced, 3, [{ text: SOURCE }]);
    await client.diagnosticsFor(traced, 3);
    // a notification sent after the diagnostics would have arrived by the next round trip
    await client.conn.sendRequest('textDocument/hover', { textDocument: { uri: traced }, position: { line: 0, character: 0 } });
    assert.equal(client.logs.filter(checkLine).length, 1);
    void client.conn.sendNotification('textDocument/didClose', { textDocument: { uri: traced } });
  });

  it('keeps fixture files untouched', () => {
    assert.equal(fs.existsSync(path.join(ROOT, 'test', 'fixtures', 'virtual', 'doc.py')), false);
  });
});
