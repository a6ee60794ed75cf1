/** "Show API changes": the changes the workspace uses first, ranked by uses and linked to the places, then the whole report. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import type { ApiReport } from '../../server/src/engine/report/report';
import { workspaceReport } from '../../server/src/lsp/changesReport';
import { FIXTURES } from '../helpers';
import { TestClient } from './lspClient';

const DRIFT = path.join(FIXTURES, 'drift');

function report(): ApiReport {
  return {
    baseline: 'v1',
    target: 'v2',
    package: null,
    removedModules: [{ module: 'lib.old', movedTo: null }],
    removedNames: [{ name: 'lib.a.gone', kind: 'def' }],
    movedNames: [{ name: 'lib.a.cdiv', to: 'lib.math.cdiv' }],
    changedSignatures: [
      { name: 'lib.a.Engine', definedAs: 'lib.core.Engine', kind: 'constructor', baseline: 'Engine(model, block_size=16)', target: 'Engine(model, block_size)', changes: [{ kind: 'default-removed', param: 'block_size', message: '`block_size` lost its default' } as never], group: 'default-removed', definition: null, baselineDefinition: null },
      { name: 'lib.a.unused', definedAs: 'lib.a.unused', kind: 'function', baseline: 'unused(a)', target: 'unused(a, b)', changes: [{ kind: 'added-required', param: 'b', message: '`b: int` was added as a required parameter' } as never], group: 'added-required', definition: null, baselineDefinition: null },
    ],
    stats: { baselineModules: 3, targetModules: 3, compared: 2, ms: 1 },
  };
}

describe('the workspace report', () => {
  it('ranks the used changes by uses, links each place, and keeps the whole report below', () => {
    const uses = new Map([
      ['lib.a.cdiv', [{ file: '/ws/x.py', line: 3 }]],
      ['lib.core.Engine', [{ file: '/ws/x.py', line: 10 }, { file: '/ws/y.py', line: 4 }]],
      ['lib.a.Engine', [{ file: '/ws/x.py', line: 10 }, { file: '/ws/x.py', line: 12 }]],
      ['lib.old.read', [{ file: '/ws/y.py', line: 1 }]],
      ['lib.other', [{ file: '/ws/y.py', line: 9 }]],
    ]);
    const r = workspaceReport(report(), uses, (f) => path.basename(f));
    // the same place seen under two names counts once
    assert.deepEqual(r.used, [
      { name: 'lib.a.Engine', uses: 3 },
      { name: 'lib.a.cdiv', uses: 1 },
      { name: 'lib.old', uses: 1 },
    ]);
    const lines = r.text.split('\n');
    assert.match(lines[0], /^apidrift API changes: v1 -> v2$/);
    assert.equal(lines[1], 'This workspace uses 3 of the 5 changes (5 places in 2 files), most used first.');
    const engineAt = lines.findIndex((l) => l.startsWith('  ~ lib.a.Engine'));
    assert.ok(engineAt > 0 && engineAt < lines.findIndex((l) => l.startsWith('  ~ lib.a.cdiv')));
    assert.equal(lines[engineAt], '  ~ lib.a.Engine  (constructor: defaults removed)  [3 uses]');
    assert.equal(lines[engineAt + 1], '      * block_size lost its default');
    assert.equal(lines[engineAt + 4], '      used at x.py:10, x.py:12, y.py:4');
    // every place is a link to its file and line, over its label
    const placeLinks = r.links.filter((l) => l.file);
    assert.equal(placeLinks.length, 5);
    for (const l of placeLinks) assert.equal(lines[l.line].slice(l.character, l.character + l.length), `${path.basename(l.file!)}:${l.targetLine}`);
    // the whole report is one click away: a link to the line where it starts, which holds every change
    const self = r.links.find((l) => !l.file)!;
    assert.equal(lines[self.line].slice(self.character, self.character + self.length), `The whole report: line ${r.fullReportLine}`);
    assert.equal(self.targetLine, r.fullReportLine);
    assert.match(lines[r.fullReportLine - 1], /^apidrift API changes: v1 -> v2$/);
    assert.match(lines.slice(r.fullReportLine - 1).join('\n'), /~ lib\.a\.unused/);
    assert.ok(!lines.slice(0, r.fullReportLine - 1).join('\n').includes('lib.a.unused'), 'an unused change is not in the ranked part');
  });

  it('says when nothing is used', () => {
    const r = workspaceReport(report(), new Map(), (f) => f);
    assert.deepEqual(r.used, []);
    assert.match(r.text, /^apidrift API changes: v1 -> v2\nNothing in this workspace uses any of the 5 changes\.\nThe whole report: line 7\n/);
  });
});

describe('language server: the report starts with what the workspace uses', () => {
  let client: TestClient;
  let ws: string;

  before(async () => {
    ws = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-report-')));
    fs.copyFileSync(path.join(DRIFT, 'user.py'), path.join(ws, 'user.py'));
    // a file that is not open: read from disk
    fs.writeFileSync(path.join(ws, 'more.py'), 'from drift.engine import Engine\n\n\ndef f(m):\n    a = Engine(m)\n    b = Engine(m, 8)\n    return a, b\n');
    // what the folder search leaves out is not counted
    fs.mkdirSync(path.join(ws, '.venv'));
    fs.writeFileSync(path.join(ws, '.venv', 'x.py'), 'from drift.engine import Engine\nEngine(1)\nEngine(2)\nEngine(3)\n');
    client = new TestClient({ targets: [path.join(DRIFT, 'v2')], baseline: [path.join(DRIFT, 'v1')] });
    await client.initialize(ws);
    client.open(pathToFileURL(path.join(ws, 'user.py')).href, fs.readFileSync(path.join(ws, 'user.py'), 'utf8'), 1);
  });
  after(async () => {
    await client.shutdown();
    fs.rmSync(ws, { recursive: true, force: true });
  });

  it('ranks Engine first with the places of the open and the unopened file', async () => {
    await client.waitFor('ready', () => client.statuses.find((s) => s.state === 'ready'));
    const r = (await client.conn.sendRequest('apidrift/changes')) as { text?: string; error?: string; links?: Array<{ line: number; character: number; length: number; file?: string; targetLine: number }>; used?: Array<{ name: string; uses: number }> };
    assert.equal(r.error, undefined);
    const used = r.used ?? [];
    assert.equal(used[0]?.name, 'drift.engine.Engine', JSON.stringify(used));
    assert.equal(used[0].uses, 3);
    for (let i = 1; i < used.length; i++) assert.ok(used[i].uses <= used[i - 1].uses, JSON.stringify(used));
    assert.ok(used.some((u) => u.name === 'drift.utils.cdiv'), JSON.stringify(used));
    const lines = r.text!.split('\n');
    assert.match(lines[0], /^apidrift API changes: /);
    const engineLine = lines.findIndex((l) => l.startsWith('  ~ drift.engine.Engine  ('));
    assert.ok(engineLine > 0, r.text);
    const userLine = fs.readFileSync(path.join(ws, 'user.py'), 'utf8').split('\n').findIndex((l) => l.includes('engine = Engine(model)')) + 1;
    assert.ok(lines.slice(engineLine).find((l) => l.includes('used at'))!.includes(`more.py:5, more.py:6, user.py:${userLine}`), r.text);
    const links = (r.links ?? []).filter((l) => l.file);
    assert.ok(links.some((l) => l.file === path.join(ws, 'more.py') && l.targetLine === 6), JSON.stringify(links));
    assert.ok(!(r.links ?? []).some((l) => l.file?.includes('.venv')));
    // the whole report follows
    assert.match(r.text!, /\nAll changes\n\napidrift API changes: [\s\S]*> drift\.utils\.cdiv -> drift\.utils\.math_utils\.cdiv/);
  });
});
