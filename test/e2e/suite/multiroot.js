'use strict';
// apidrift in a multi-root workspace, inside a real VS Code extension host (code-server through
// test/e2e/runInCodeServer.js --workspace-file): the workspace built by test/e2e/workspaceMulti.js
// (folder a checked against fixtures/vllm/new, folder b against fixtures/vllm/nightly,
// apidrift.diagnosticMode = workspace).
//   (m1) each folder's files get the findings of that folder's target
//   (m2) workspace mode lists the problems of files that were never opened
//   (m3) closing a file keeps its problems
//   (m4) "apidrift: Check workspace" checks every Python file of both folders
//   (m5) a notebook cell with a broken call gets a finding, in that cell
// Every wait is bounded (60 s) and driven by events; run() throws when a test failed.

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');

const FIXTURES = path.resolve(process.env.APIDRIFT_E2E_FIXTURES || path.join(__dirname, '..', '..', 'fixtures', 'vllm'));
const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'user', 'expected.json'), 'utf8'));
const USER_FILE_NAME = 'hidden_states_generator.py';
const WAIT_MS = 60_000;

function log(msg) {
  console.log(`[apidrift e2e multiroot] ${msg}`);
}

const codeOf = (d) => (d.code && typeof d.code === 'object' ? String(d.code.value) : String(d.code));
const apidrift = (uri) => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'apidrift');
const brief = (uri) => apidrift(uri).map((d) => `${d.range.start.line + 1}:${codeOf(d)}`).sort();
const expected = (version) => EXPECTED[version].map((f) => `${f.line}:${f.code}`).sort();
const same = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/** Resolves with the first truthy `check()`, re-evaluated on each of `events`; rejects after 60 s. */
function waitFor(check, what, { events = [vscode.languages.onDidChangeDiagnostics], describe } = {}) {
  return new Promise((resolve, reject) => {
    const subs = [];
    let done = false;
    const finish = (err, v) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      subs.forEach((s) => s.dispose());
      if (err) reject(err);
      else resolve(v);
    };
    const test = () => {
      try {
        const v = check();
        if (v) finish(undefined, v);
      } catch (e) {
        finish(e);
      }
    };
    const timer = setTimeout(() => finish(new Error(`timed out after ${WAIT_MS} ms waiting for ${what}${describe ? `; now: ${describe()}` : ''}`)), WAIT_MS);
    for (const ev of events) subs.push(ev(test));
    test();
  });
}

function waitForFindings(uri, wanted, what) {
  return waitFor(() => same(brief(uri), wanted), `${what}: ${JSON.stringify(wanted)}`, { describe: () => JSON.stringify(brief(uri)) });
}

const tests = [];
const test = (name, fn) => tests.push({ name, fn });

let folderA;
let folderB;
const fileIn = (folder, rel) => vscode.Uri.joinPath(folder.uri, rel);

/**
 * Opens a file in an editor as a person does (through the workbench: a document the extension
 * host opened itself would stay open for minutes after its editor closes).
 */
async function openInEditor(uri) {
  await vscode.commands.executeCommand('vscode.open', uri, { preview: false });
  return waitFor(() => vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString()), `${uri.fsPath} to open`, { events: [vscode.workspace.onDidOpenTextDocument] });
}

test('(m1) each folder is checked against its own target', async () => {
  const docA = await openInEditor(fileIn(folderA, USER_FILE_NAME));
  const docB = await vscode.workspace.openTextDocument(fileIn(folderB, USER_FILE_NAME));
  await vscode.window.showTextDocument(docB, { preview: false });
  await waitForFindings(docA.uri, expected('new'), 'folder a against new');
  await waitForFindings(docB.uri, expected('nightly'), 'folder b against nightly');
  assert.ok(!same(expected('new'), expected('nightly')), 'the two targets should disagree on this file');
  log(`  a: ${JSON.stringify(brief(docA.uri))}; b: ${JSON.stringify(brief(docB.uri))}`);
});

test('(m2) workspace mode lists the problems of files that were never opened', async () => {
  const unopenedA = fileIn(folderA, 'pkg/unopened.py');
  const unopenedB = fileIn(folderB, 'unopened_b.py');
  await waitForFindings(unopenedA, expected('new'), 'a/pkg/unopened.py (never opened)');
  await waitForFindings(unopenedB, expected('nightly'), 'b/unopened_b.py (never opened)');
  const open = vscode.workspace.textDocuments.map((d) => d.uri.toString());
  assert.ok(!open.includes(unopenedA.toString()) && !open.includes(unopenedB.toString()), `these files were opened: ${JSON.stringify(open)}`);
});

test('(m3) closing a file keeps its problems', async () => {
  const uri = fileIn(folderA, USER_FILE_NAME);
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
  assert.ok(doc, 'a/hidden_states_generator.py should be open');
  const closed = waitFor(() => !vscode.workspace.textDocuments.includes(doc), 'the document to close', { events: [vscode.workspace.onDidCloseTextDocument] });
  // re-published from disk after the close
  let events = 0;
  const sub = vscode.languages.onDidChangeDiagnostics((e) => {
    if (e.uris.some((u) => u.toString() === uri.toString())) events++;
  });
  try {
    await vscode.commands.executeCommand('vscode.open', uri, { preview: false });
    assert.strictEqual(vscode.window.activeTextEditor && vscode.window.activeTextEditor.document.uri.toString(), uri.toString());
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    await closed;
    const before = events;
    await waitFor(() => events > before || null, 'the closed file to be checked again from disk', { describe: () => `${events} events` }).catch(() => undefined);
    assert.deepStrictEqual(brief(uri), expected('new'), 'the problems of the closed file are still listed');
  } finally {
    sub.dispose();
  }
});

test('(m4) "apidrift: Check workspace" checks every Python file of both folders', async () => {
  const summary = await vscode.commands.executeCommand('apidrift.checkWorkspace');
  assert.ok(summary && !summary.error, `Check workspace failed: ${JSON.stringify(summary)}`);
  // a: hidden_states_generator.py, pkg/unopened.py; b: hidden_states_generator.py, unopened_b.py
  assert.strictEqual(summary.files, 4, JSON.stringify(summary));
  assert.ok(summary.filesWithFindings >= 2, JSON.stringify(summary));
  assert.deepStrictEqual(brief(fileIn(folderA, 'pkg/unopened.py')), expected('new'));
  log(`  ${JSON.stringify(summary)}`);
});

test('(m5) a notebook cell with a broken call gets a finding in that cell', async () => {
  const nb = await vscode.workspace.openNotebookDocument(fileIn(folderA, 'calls.ipynb'));
  await vscode.window.showNotebookDocument(nb);
  const cells = nb.getCells();
  assert.strictEqual(cells.length, 3);
  const broken = cells[2].document.uri;
  await waitFor(() => apidrift(broken).length > 0, 'a finding in the third cell', { describe: () => JSON.stringify(apidrift(broken).map((d) => d.message)) });
  const d = apidrift(broken);
  assert.deepStrictEqual(d.map((x) => `${x.range.start.line}:${codeOf(x)}`), ['1:missing-argument']);
  assert.match(d[0].message, /block_size/);
  assert.strictEqual(cells[2].document.getText(d[0].range), 'Scheduler');
  assert.deepStrictEqual(apidrift(cells[0].document.uri), []);
  assert.deepStrictEqual(apidrift(cells[1].document.uri), []);
  log(`  cell 3: ${d[0].message}`);
});

exports.run = async function run() {
  log(`VS Code ${vscode.version}`);
  const folders = vscode.workspace.workspaceFolders || [];
  assert.strictEqual(folders.length, 2, `a two-folder workspace is expected, got ${folders.map((f) => f.name)}`);
  [folderA, folderB] = folders;
  const ext = vscode.extensions.getExtension('apidrift.apidrift');
  assert.ok(ext, 'the extension is not loaded');
  if (!ext.isActive) await ext.activate();
  const failed = [];
  for (const t of tests) {
    const t0 = Date.now();
    log(`RUN  ${t.name}`);
    try {
      await t.fn();
      log(`PASS ${t.name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed.push(t.name);
      log(`FAIL ${t.name} (${Date.now() - t0} ms)\n${e && e.stack ? e.stack : e}`);
    }
  }
  log(`${tests.length - failed.length} passed, ${failed.length} failed`);
  if (failed.length) throw new Error(`${failed.length} of ${tests.length} tests failed: ${failed.join('; ')}`);
  log('ALL PASSED');
};
