'use strict';
const vscode = require('vscode');
const path = require('path');
const log = (...a) => console.log('[explore]', ...a);
function waitDiag(uri, pred, ms = 20000) {
  return new Promise((res) => {
    const check = () => { const d = vscode.languages.getDiagnostics(uri).filter((x) => x.source === 'apidrift'); if (pred(d)) { sub.dispose(); clearTimeout(t); res(d); } };
    const sub = vscode.languages.onDidChangeDiagnostics(check);
    const t = setTimeout(() => { sub.dispose(); res(null); }, ms);
    check();
  });
}
exports.run = async () => {
  const folder = vscode.workspace.workspaceFolders[0].uri;
  const uri = vscode.Uri.joinPath(folder, 'hidden_states_generator.py');
  const doc = await vscode.workspace.openTextDocument(uri);
  const ed = await vscode.window.showTextDocument(doc);
  const api = await vscode.extensions.getExtension('apidrift.apidrift').activate();
  let d = await waitDiag(uri, (x) => x.length === 3);
  log('diags', d && d.map((x) => `${x.range.start.line + 1}:${x.code}`));
  // snippet fix
  const sc = d.find((x) => x.message.includes('is_encoder_decoder'));
  const acts = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', uri, sc.range);
  log('actions', JSON.stringify(acts.map((a) => ({ title: a.title, kind: a.kind && a.kind.value, edit: !!a.edit, cmd: a.command && a.command.command, pref: a.isPreferred }))));
  const a = acts[0];
  if (a.command) await vscode.commands.executeCommand(a.command.command, ...(a.command.arguments || []));
  log('after snippet, lines 60-70:\n' + doc.getText().split('\n').slice(59, 70).join('\n'));
  log('selection', JSON.stringify(vscode.window.activeTextEditor.selection));
  d = await waitDiag(uri, (x) => x.length === 2);
  log('diags after snippet', d && d.map((x) => `${x.range.start.line + 1}:${x.code}`));
  await vscode.commands.executeCommand('workbench.action.files.revert');
  d = await waitDiag(uri, (x) => x.length === 3);
  // hover
  const sch = d.find((x) => x.message.includes('block_size'));
  const hovers = await vscode.commands.executeCommand('vscode.executeHoverProvider', uri, sch.range.start);
  log('hovers', JSON.stringify(hovers.map((h) => h.contents.map((c) => c.value || c))).slice(0, 1500));
  // stale code action after edit without recheck: type a char at file end
  await ed.edit((e) => e.insert(new vscode.Position(0, 0), '# x\n'));
  const acts2 = await vscode.commands.executeCommand('vscode.executeCodeActionProvider', uri, sch.range.with(sch.range.start.translate(1), sch.range.end.translate(1)));
  log('actions right after edit', JSON.stringify(acts2.map((a) => a.title)));
  d = await waitDiag(uri, (x) => x.length === 3 && x[0].range.start.line === 63);
  log('after insert line', d && d.map((x) => `${x.range.start.line + 1}:${x.code}`));
  await vscode.commands.executeCommand('workbench.action.files.revert');
  // relative target + workspaceFolder variable
  await vscode.workspace.getConfiguration('apidrift').update('targets', ['${workspaceFolder}/../nope'], vscode.ConfigurationTarget.Workspace);
  await new Promise((r) => setTimeout(r, 1500));
  log('status rel', JSON.stringify(api.status()));
  // empty targets
  await vscode.workspace.getConfiguration('apidrift').update('targets', [], vscode.ConfigurationTarget.Workspace);
  await new Promise((r) => setTimeout(r, 1500));
  log('status empty', JSON.stringify(api.status()), vscode.languages.getDiagnostics(uri).length);
  // untitled doc
  await vscode.workspace.getConfiguration('apidrift').update('targets', [process.env.APIDRIFT_E2E_FIXTURES + '/new'], vscode.ConfigurationTarget.Workspace);
  const un = await vscode.workspace.openTextDocument({ language: 'python', content: 'from vllm.v1.core.sched.scheduler import Scheduler\nScheduler(1, 2, 3)\n' });
  await vscode.window.showTextDocument(un);
  const du = await waitDiag(un.uri, (x) => x.length > 0, 10000);
  log('untitled', du && du.map((x) => x.message.slice(0, 80)));
  // close doc clears diags
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  const dc = await waitDiag(uri, (x) => x.length === 0, 10000);
  log('after close', dc ? 'cleared' : JSON.stringify(vscode.languages.getDiagnostics(uri).length));
  // recheck with error target
  await vscode.workspace.getConfiguration('apidrift').update('targets', ['/nonexistent/q'], vscode.ConfigurationTarget.Workspace);
  await new Promise((r) => setTimeout(r, 1000));
  try { const r = await vscode.commands.executeCommand('apidrift.recheck'); log('recheck on error target ok', JSON.stringify(r)); } catch (e) { log('recheck threw', e.message); }
  log('status', JSON.stringify(api.status()));
};
