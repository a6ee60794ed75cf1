'use strict';
// apidrift integration suite: runs inside a real VS Code extension host (code-server through
// test/e2e/runInCodeServer.js, or desktop VS Code through test/e2e/runInElectron.js), with the
// extension loaded from the repository (extensionDevelopmentPath).
//
// Expects the workspace built by test/e2e/workspace.js: one folder holding a copy of
// hidden_states_generator.py and .vscode/settings.json with apidrift.targets = [<abs>/vllm/new].
// APIDRIFT_E2E_FIXTURES may point at test/fixtures/vllm (default: found from this file).
//
// Plain Node assert and a tiny runner: each test prints its name and PASS/FAIL; run() throws at
// the end when any failed, which makes the launcher exit non-zero. Every wait is bounded (60 s)
// and driven by events (diagnostics changes); the only polling is for the extension's status,
// which has no change event in its API.

const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const vscode = require('vscode');

const FIXTURES = path.resolve(process.env.APIDRIFT_E2E_FIXTURES || path.join(__dirname, '..', '..', 'fixtures', 'vllm'));
const TARGET = {
  old: path.join(FIXTURES, 'old'),
  new: path.join(FIXTURES, 'new'),
  nightly: path.join(FIXTURES, 'nightly'),
};
const USER_FILE_NAME = 'hidden_states_generator.py';
const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'user', 'expected.json'), 'utf8'));
const EXTENSION_ID = 'apidrift.apidrift';
const WAIT_MS = 60_000;
const STATUS_POLL_MS = 100;

// ------------------------------------------------------------------------------------ helpers

function log(msg) {
  console.log(`[apidrift e2e] ${msg}`);
}

/** `line:code:param` (1-based line) for an expected.json entry. */
function expectedBrief(version) {
  return EXPECTED[version].map((f) => `${f.line}:${f.code}:${f.param}`).sort();
}

function codeOf(d) {
  return d.code && typeof d.code === 'object' ? String(d.code.value) : String(d.code);
}

/** The parameter a finding is about: the first quoted identifier in its message. */
function paramOf(d) {
  const m = /'([A-Za-z_]\w*)'/.exec(d.message);
  return m ? m[1] : '';
}

function apidriftDiagnostics(uri) {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'apidrift');
}

function brief(uri) {
  return apidriftDiagnostics(uri)
    .map((d) => `${d.range.start.line + 1}:${codeOf(d)}:${paramOf(d)}`)
    .sort();
}

/**
 * Resolves with the first truthy value of `check()`, re-evaluated whenever one of `events`
 * fires (and every `pollMs` if given). Rejects after `timeoutMs` with `what` and `describe()`.
 */
function waitFor(check, what, { events = [vscode.languages.onDidChangeDiagnostics], pollMs, timeoutMs = WAIT_MS, describe } = {}) {
  return new Promise((resolve, reject) => {
    const subs = [];
    let timer;
    let poll;
    let done = false;
    const finish = (err, value) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(poll);
      for (const s of subs) s.dispose();
      if (err) reject(err);
      else resolve(value);
    };
    const test = () => {
      if (done) return;
      let v;
      try {
        v = check();
      } catch (e) {
        finish(e);
        return;
      }
      if (v) finish(undefined, v);
    };
    for (const ev of events) subs.push(ev(test));
    if (pollMs) poll = setInterval(test, pollMs);
    timer = setTimeout(() => {
      let state = '';
      try {
        state = describe ? `; now: ${describe()}` : '';
      } catch (e) {
        state = `; (describe failed: ${e.message})`;
      }
      finish(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${state}`));
    }, timeoutMs);
    test();
  });
}

function sameList(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Waits until the apidrift diagnostics of `uri` are exactly `wanted` (`line:code:param`, any order). */
async function waitForFindings(uri, wanted, what) {
  const sorted = [...wanted].sort();
  await waitFor(() => sameList(brief(uri), sorted), `${what}: ${JSON.stringify(sorted)}`, {
    describe: () => JSON.stringify(brief(uri)),
  });
  return apidriftDiagnostics(uri);
}

let api;
function status() {
  return api.status();
}

/** Waits until the extension's status satisfies `pred`. The API has no event: poll it. */
function waitForStatus(pred, what) {
  return waitFor(() => (pred(status()) ? status() : undefined), `status ${what}`, {
    pollMs: STATUS_POLL_MS,
    describe: () => JSON.stringify(status()),
  });
}

async function setTargets(targets) {
  const uri = vscode.workspace.workspaceFolders[0].uri;
  await vscode.workspace.getConfiguration('apidrift', uri).update('targets', targets, vscode.ConfigurationTarget.Workspace);
  const now = vscode.workspace.getConfiguration('apidrift', uri).get('targets');
  assert.deepStrictEqual(now, targets, 'apidrift.targets was not updated');
}

let doc;
let originalText;

/** Puts the document back to its on-disk text and waits for the `new` findings again. */
async function revert() {
  if (!doc.isDirty && doc.getText() === originalText) return;
  await vscode.window.showTextDocument(doc);
  await vscode.commands.executeCommand('workbench.action.files.revert');
  assert.strictEqual(doc.getText(), originalText, 'revert did not restore the file text');
  assert.strictEqual(doc.isDirty, false, 'document still dirty after revert');
}

async function quickFix(diagnostic, title) {
  const actions = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', doc.uri, diagnostic.range);
  const titles = (actions || []).map((a) => a.title);
  const action = (actions || []).find((a) => a.title === title);
  assert.ok(action, `no code action "${title}" at ${fmtRange(diagnostic.range)}; got ${JSON.stringify(titles)}`);
  if (action.kind) assert.ok(vscode.CodeActionKind.QuickFix.contains(action.kind), `"${title}" has kind ${action.kind.value}`);
  assert.ok(action.edit, `"${title}" carries no workspace edit (command: ${action.command && action.command.command})`);
  const versionBefore = doc.version;
  const applied = await vscode.workspace.applyEdit(action.edit);
  assert.strictEqual(applied, true, `workspace.applyEdit refused the edit of "${title}"`);
  assert.ok(doc.version > versionBefore, 'the document did not change');
  if (action.command) await vscode.commands.executeCommand(action.command.command, ...(action.command.arguments || []));
  return action;
}

function fmtRange(r) {
  return `${r.start.line + 1}:${r.start.character + 1}-${r.end.line + 1}:${r.end.character + 1}`;
}

function findDiagnostic(param, code) {
  const d = apidriftDiagnostics(doc.uri).find((x) => paramOf(x) === param && codeOf(x) === code);
  assert.ok(d, `no ${code} diagnostic for ${param}; have ${JSON.stringify(brief(doc.uri))}`);
  return d;
}

// ------------------------------------------------------------------------------------ tests

const tests = [];
function test(name, fn) {
  tests.push({ name, fn });
}

/** Opens the user file from the workspace and activates the extension (before any test). */
async function setup() {
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  assert.ok(folder, 'no workspace folder is open (the launcher must pass --workspace)');
  const fileUri = vscode.Uri.joinPath(folder.uri, USER_FILE_NAME);
  assert.ok(
    fs.existsSync(fileUri.fsPath),
    `${fileUri.fsPath} not found: the workspace must hold a copy of test/fixtures/vllm/user/${USER_FILE_NAME} (see test/e2e/workspace.js)`,
  );
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is not loaded`);
  doc = await vscode.workspace.openTextDocument(fileUri);
  originalText = doc.getText();
  await vscode.window.showTextDocument(doc);
  assert.strictEqual(doc.languageId, 'python');
  api = ext.isActive ? ext.exports : await ext.activate();
  assert.ok(api && typeof api.status === 'function', 'activate() did not return the { status, client } API');
}

test('(a) opening the user file shows exactly the three findings against `new`', async () => {
  const configured = vscode.workspace.getConfiguration('apidrift', doc.uri).get('targets');
  assert.deepStrictEqual(configured, [TARGET.new], 'workspace .vscode/settings.json must set apidrift.targets to the absolute path of fixtures/vllm/new');

  const t0 = Date.now();
  const diags = await waitForFindings(doc.uri, expectedBrief('new'), 'the three findings against new');
  log(`  findings there ${Date.now() - t0} ms after opening`);
  for (const d of diags) {
    assert.strictEqual(d.severity, vscode.DiagnosticSeverity.Error, `severity of ${d.message}`);
    assert.ok(!d.range.isEmpty, `empty range for ${d.message}`);
  }
  const sched = findDiagnostic('block_size', 'missing-argument');
  assert.strictEqual(doc.getText(sched.range), 'Scheduler', 'the block_size finding should underline the callee name');

  const s = await waitForStatus((x) => x.state === 'ready', 'ready');
  assert.deepStrictEqual(s.targets, [TARGET.new]);
  // the server runs with the Node options the extension gives it (server/src/lsp/launch.json)
  assert.ok(s.pid, 'the status should carry the server pid');
  const args = fs.readFileSync(`/proc/${s.pid}/cmdline`, 'utf8').split('\0');
  for (const a of require('../../../server/src/lsp/launch.json').execArgv) assert.ok(args.includes(a), `server started without ${a}: ${args.join(' ')}`);
});

test('(b) quick fix "Add argument block_size=VLLM_BLOCK_SIZE" inserts the argument line', async () => {
  await waitForFindings(doc.uri, expectedBrief('new'), 'findings against new');
  const d = findDiagnostic('block_size', 'missing-argument');
  await quickFix(d, 'Add argument block_size=VLLM_BLOCK_SIZE');

  const lines = doc.getText().split(/\r?\n/);
  const open = lines.findIndex((l) => /\bself\.scheduler = Scheduler\($/.test(l));
  assert.ok(open >= 0, 'Scheduler( call not found');
  let close = open + 1;
  while (close < lines.length && lines[close].trim() !== ')') close++;
  const inside = lines.slice(open + 1, close);
  const added = inside.filter((l) => l.trim() === 'block_size=VLLM_BLOCK_SIZE,');
  assert.strictEqual(added.length, 1, `expected one "block_size=VLLM_BLOCK_SIZE," line inside Scheduler(...):\n${inside.join('\n')}`);
  assert.ok(doc.getText().includes('block_size=VLLM_BLOCK_SIZE,'));
  const indent = (l) => l.length - l.trimStart().length;
  assert.strictEqual(indent(added[0]), indent(inside[0]), 'the new argument line should be indented like the others');
  assert.strictEqual(lines.length, originalText.split(/\r?\n/).length + 1, 'exactly one line should be added');

  await waitForFindings(
    doc.uri,
    expectedBrief('new').filter((b) => !b.endsWith(':block_size')),
    'the block_size finding to go away (the other two remain)',
  );
  await revert();
  await waitForFindings(doc.uri, expectedBrief('new'), 'the three findings after revert');
});

test('(c) quick fix "Remove argument kv_cache_specs=" removes that line', async () => {
  const d = findDiagnostic('kv_cache_specs', 'unexpected-keyword');
  const lineNo = d.range.start.line;
  const before = doc.getText().split(/\r?\n/);
  assert.match(before[lineNo], /^\s*kv_cache_specs=per_layer_specs,$/);
  await quickFix(d, 'Remove argument kv_cache_specs=');

  const after = doc.getText().split(/\r?\n/);
  assert.strictEqual(after.length, before.length - 1, 'exactly one line should be removed');
  assert.ok(!doc.getText().includes('kv_cache_specs='), 'kv_cache_specs= is still in the text');
  assert.deepStrictEqual(after, [...before.slice(0, lineNo), ...before.slice(lineNo + 1)], 'only the kv_cache_specs line should go');

  // The findings below the removed line move up by one.
  const wanted = EXPECTED.new
    .filter((f) => f.param !== 'kv_cache_specs')
    .map((f) => `${f.line > lineNo + 1 ? f.line - 1 : f.line}:${f.code}:${f.param}`);
  await waitForFindings(doc.uri, wanted, 'the kv_cache_specs finding to go away');
  await revert();
  await waitForFindings(doc.uri, expectedBrief('new'), 'the three findings after revert');
});

test('(d) switching apidrift.targets to old clears the findings, nightly adds eos_token_id', async () => {
  await setTargets([TARGET.old]);
  await waitForFindings(doc.uri, expectedBrief('old'), 'no findings against old');
  assert.strictEqual(EXPECTED.old.length, 0);
  let s = await waitForStatus((x) => x.state === 'ready' && x.targets.includes(TARGET.old), 'ready on old');
  assert.deepStrictEqual(s.targets, [TARGET.old]);

  await setTargets([TARGET.nightly]);
  await waitForFindings(doc.uri, expectedBrief('nightly'), 'the four findings against nightly');
  const eos = findDiagnostic('eos_token_id', 'unexpected-keyword');
  assert.strictEqual(eos.range.start.line + 1, 130);
  s = await waitForStatus((x) => x.state === 'ready' && x.targets.includes(TARGET.nightly), 'ready on nightly');
  assert.deepStrictEqual(s.targets, [TARGET.nightly]);
});

test('(e) a target that does not exist puts the status in error, naming the path', async () => {
  const missing = path.join(os.tmpdir(), `apidrift-e2e-no-such-target-${process.pid}-${Date.now()}`);
  assert.ok(!fs.existsSync(missing));
  await setTargets([missing]);
  const s = await waitForStatus((x) => x.state === 'error', 'error');
  assert.ok(s.message.includes(missing), `status message should name ${missing}: ${JSON.stringify(s.message)}`);
  // Findings from the previous target must not linger.
  await waitForFindings(doc.uri, [], 'the findings to be cleared');
});

test('(f) apidrift.recheck runs without error and re-publishes the findings', async () => {
  await setTargets([TARGET.new]);
  await waitForFindings(doc.uri, expectedBrief('new'), 'the three findings against new again');
  await waitForStatus((x) => x.state === 'ready' && x.targets.includes(TARGET.new), 'ready on new');

  let events = 0;
  const sub = vscode.languages.onDidChangeDiagnostics((e) => {
    if (e.uris.some((u) => u.toString() === doc.uri.toString())) events++;
  });
  try {
    await vscode.commands.executeCommand('apidrift.recheck');
    await waitFor(() => events > 0 && sameList(brief(doc.uri), expectedBrief('new')), 'findings re-published after recheck', {
      describe: () => `${events} diagnostics events, ${JSON.stringify(brief(doc.uri))}`,
    });
  } finally {
    sub.dispose();
  }
  const s = await waitForStatus((x) => x.state === 'ready', 'ready after recheck');
  assert.deepStrictEqual(s.targets, [TARGET.new]);
});

test('(g) a server that dies is restarted, says so, and checks again', async () => {
  const before = await waitForStatus((x) => x.state === 'ready' && typeof x.pid === 'number', 'ready with a pid');
  process.kill(before.pid, 'SIGKILL');
  await waitForStatus((x) => /stopped unexpectedly; restarting/.test(x.message) || (x.state === 'ready' && x.pid !== before.pid), 'the restart to be announced');
  const after = await waitForStatus((x) => x.state === 'ready' && x.pid !== before.pid, 'ready from a new server process');
  assert.notStrictEqual(after.pid, before.pid);
  await waitForFindings(doc.uri, expectedBrief('new'), 'the findings from the new server');
});

test('(h) with a baseline, findings explain the change, fix all applies every fix, and the report opens in its language', async () => {
  const uri = vscode.workspace.workspaceFolders[0].uri;
  await vscode.workspace.getConfiguration('apidrift', uri).update('baseline', [TARGET.old], vscode.ConfigurationTarget.Workspace);
  try {
    await waitFor(
      () => apidriftDiagnostics(doc.uri).some((d) => /block_size: int was added as a required parameter/.test(d.message)),
      'an explanation from the baseline',
      { describe: () => JSON.stringify(apidriftDiagnostics(doc.uri).map((d) => d.message)) },
    );
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('apidrift.fixAll');
    await waitFor(() => doc.getText().includes('block_size=VLLM_BLOCK_SIZE') && !doc.getText().includes('kv_cache_specs='), 'fix all to apply', { events: [vscode.workspace.onDidChangeTextDocument] });
    await vscode.commands.executeCommand('apidrift.showChanges');
    const report = await waitFor(
      () => (vscode.window.activeTextEditor?.document.languageId === 'apidrift-report' ? vscode.window.activeTextEditor.document : undefined),
      'the API-change report',
      { events: [vscode.window.onDidChangeActiveTextEditor] },
    );
    assert.match(report.getText(), /^apidrift API changes: /);
    assert.match(report.getText(), /~ vllm\.v1\.core\.sched\.scheduler\.Scheduler/);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  } finally {
    await vscode.workspace.getConfiguration('apidrift', uri).update('baseline', undefined, vscode.ConfigurationTarget.Workspace);
    await revert();
  }
});

test('(i) a target named by version is fetched from a package index on 127.0.0.1, with a progress notification', async () => {
  // the test's own index (test/fetch/indexServer.ts, compiled by the build) serving a wheel of `new`
  const { IndexServer, wheelOf } = require(path.join(__dirname, '..', '..', '..', 'out', 'test', 'fetch', 'indexServer.js'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-e2e-index-'));
  // a version of its own each run: the extension's cache never has it yet
  const version = `0.16.0+e2e${Date.now()}`;
  fs.writeFileSync(path.join(tmp, `vllm-${version}-py3-none-any.whl`), wheelOf('vllm', version, TARGET.new, 200_000));
  const server = new IndexServer(tmp);
  await server.start();
  await server.configure();
  const uri = vscode.workspace.workspaceFolders[0].uri;
  const config = () => vscode.workspace.getConfiguration('apidrift', uri);
  try {
    await config().update('indexUrl', server.url, vscode.ConfigurationTarget.Workspace);
    await setTargets([`vllm==${version}`]);
    // the findings are those of `new` before and after: the status says when the fetched target is in use
    await waitForStatus((s) => s && s.state === 'ready' && s.message.includes(`vllm==${version}`), 'ready with the fetched target');
    let events = 0;
    const sub = vscode.languages.onDidChangeDiagnostics((e) => {
      if (e.uris.some((u) => u.toString() === doc.uri.toString())) events++;
    });
    try {
      await vscode.commands.executeCommand('apidrift.recheck');
      await waitFor(() => events > 0 && sameList(brief(doc.uri), expectedBrief('new')), `findings against vllm==${version} from the index`, {
        describe: () => `${events} diagnostics events, ${JSON.stringify(brief(doc.uri))}`,
      });
    } finally {
      sub.dispose();
    }
    assert.deepStrictEqual(status().targets, [`vllm==${version}`]);
    const said = api.fetches();
    assert.ok(said.some((m) => m === 'asking the package index'), JSON.stringify(said));
    assert.ok(said.some((m) => m.startsWith(`vllm==${version}: reading the file list of vllm-${version}-py3-none-any.whl`)), JSON.stringify(said));
    const stats = await server.stats();
    assert.ok(stats.requests.some((r) => r.range), 'the wheel was read by range requests');
  } finally {
    await config().update('indexUrl', undefined, vscode.ConfigurationTarget.Workspace);
    await setTargets([TARGET.new]);
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('(j) a baseline that does not exist is a warning: the findings against the target stay', async () => {
  const uri = vscode.workspace.workspaceFolders[0].uri;
  const missing = path.join(os.tmpdir(), `apidrift-e2e-no-such-baseline-${process.pid}-${Date.now()}`);
  await vscode.workspace.getConfiguration('apidrift', uri).update('baseline', [missing], vscode.ConfigurationTarget.Workspace);
  try {
    const s = await waitForStatus((x) => x.state === 'ready' && x.message.includes(missing), 'ready, naming the missing baseline');
    assert.match(s.message, /baseline .* not found/, s.message);
    await waitForFindings(doc.uri, expectedBrief('new'), 'the three findings against the target');
  } finally {
    await vscode.workspace.getConfiguration('apidrift', uri).update('baseline', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

test('(k) a call missing several arguments gets one diagnostic naming them all', async () => {
  await waitForFindings(doc.uri, expectedBrief('new'), 'findings against new');
  const end = doc.lineAt(doc.lineCount - 1).range.end;
  const edit = new vscode.WorkspaceEdit();
  edit.insert(doc.uri, end, '\n_empty = Scheduler()\n');
  assert.strictEqual(await vscode.workspace.applyEdit(edit), true);
  const line = doc.getText().split(/\r?\n/).findIndex((l) => l === '_empty = Scheduler()');
  const onLine = () => apidriftDiagnostics(doc.uri).filter((d) => d.range.start.line === line);
  const found = await waitFor(() => (onLine().length ? onLine() : undefined), 'a diagnostic on the new call', { describe: () => JSON.stringify(brief(doc.uri)) });
  assert.strictEqual(found.length, 1, JSON.stringify(found.map((d) => d.message)));
  assert.match(found[0].message, /missing 4 required positional arguments: 'vllm_config', 'kv_cache_config', 'structured_output_manager', and 'block_size'/);
  await revert();
  await waitForFindings(doc.uri, expectedBrief('new'), 'the three findings after revert');
});

test('(l) "Ignore [code] on this line" writes the comment and the finding goes', async () => {
  const d = findDiagnostic('block_size', 'missing-argument');
  await quickFix(d, 'Ignore [missing-argument] on this line');
  const lineText = doc.lineAt(d.range.start.line).text;
  assert.match(lineText, /# apidrift: ignore\[missing-argument\]$/, lineText);
  await waitForFindings(
    doc.uri,
    expectedBrief('new').filter((b) => !b.endsWith(':block_size')),
    'the block_size finding to go away (the other two remain)',
  );
  await revert();
  await waitForFindings(doc.uri, expectedBrief('new'), 'the three findings after revert');
});

// ------------------------------------------------------------------------------------ runner

exports.run = async function run() {
  log(`fixtures: ${FIXTURES}`);
  log(`VS Code ${vscode.version}, extension host node ${process.version}`);
  const results = [];
  try {
    await setup();
  } catch (e) {
    log(`setup failed: ${e && e.stack ? e.stack : e}`);
    for (const t of tests) log(`FAIL ${t.name} (not run: setup failed)`);
    throw new Error(`setup failed, no test ran: ${e && e.message}`);
  }
  for (const t of tests) {
    const t0 = Date.now();
    log(`RUN  ${t.name}`);
    try {
      await t.fn();
      results.push({ name: t.name, ok: true });
      log(`PASS ${t.name} (${Date.now() - t0} ms)`);
    } catch (e) {
      results.push({ name: t.name, ok: false, error: e });
      log(`FAIL ${t.name} (${Date.now() - t0} ms)\n${e && e.stack ? e.stack : e}`);
    }
  }
  // Leave the workspace as the launcher made it.
  try {
    if (doc) await revert();
    if (vscode.workspace.workspaceFolders) await setTargets([TARGET.new]);
  } catch (e) {
    log(`cleanup failed: ${e && e.message}`);
  }
  const failed = results.filter((r) => !r.ok);
  log(`${results.length - failed.length} passed, ${failed.length} failed`);
  if (failed.length) throw new Error(`${failed.length} of ${results.length} tests failed: ${failed.map((f) => f.name).join('; ')}`);
  log('ALL PASSED');
};
