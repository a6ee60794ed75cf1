/**
 * Edits inside the methods of one big class, streamed to the running server, whose re-checks take
 * over the results of the class's other members. Besides random typing inside method bodies, the
 * edits change what other methods depend on: the class `__init__` assigns to `self.sched` (which
 * other methods call methods of), an override of a target method that other methods call through
 * `self.m()`, and a subclass's override with another signature (virtual dispatch). After every few
 * edits the server's diagnostics must equal a fresh engine check of the same text. Seeded:
 * APIDRIFT_FUZZ_SEED=<seed> replays a run.
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { Engine } from '../../server/src/engine';
import { ROOT } from '../helpers';
import { TestClient } from '../server/lspClient';
import { diagKey, findingKeys, FUZZ_PAUSE_MS, prng, settled, VLLM, within } from './util';

const SEED = Number(process.env.APIDRIFT_FUZZ_SEED ?? (Date.now() ^ (process.pid << 16)) >>> 0);
const EDITS = Number(process.env.APIDRIFT_FUZZ_EDITS ?? 400);

/** A class of many methods derived from a target class; a third of the calls carry a keyword the target refuses. */
function bigClass(methods: number): string {
  const out = [
    'from vllm.v1.executor.abstract import Executor',
    'from vllm.v1.core.sched.scheduler import Scheduler',
    'from vllm.config import VllmConfig',
    '',
    '',
    'class BigRunner(Executor):',
    '    def __init__(self, vllm_config):',
    '        super().__init__(vllm_config)',
    '        self.sched = Scheduler(vllm_config, None, None, 16)',
    '',
    '    def _init_executor(self):',
    '        return None',
    '',
  ];
  for (let i = 0; i < methods; i++) {
    out.push(`    def step_${i}(self, out):`);
    out.push(i % 3 === 0 ? '        self.sched.add_request(out, bogus=1)' : '        self.sched.add_request(out)');
    out.push(i % 2 === 0 ? '        self.initialize_from_config([out], 2)' : '        self.initialize_from_config([out])');
    out.push(i % 4 === 0 ? '        self.execute_model(out, True, 3)' : '        self.execute_model(out, True)');
    out.push('        return self.sched.schedule()', '');
  }
  out.push('', 'class Sub(BigRunner):', '    def tail(self):', '        return 1', '');
  return out.join('\n');
}

/** Edits that change what other members depend on, each with the edit that takes it back. */
const TOGGLES: Array<[string, string]> = [
  ['        self.sched = Scheduler(vllm_config, None, None, 16)\n', '        self.sched = Executor(vllm_config)\n'],
  ['    def _init_executor(self):\n', '    def initialize_from_config(self, configs, extra):\n        return None\n\n    def _init_executor(self):\n'],
  ['class Sub(BigRunner):\n', 'class Sub(BigRunner):\n    def execute_model(self, a):\n        return a\n\n'],
  ['class BigRunner(Executor):\n', 'class BigRunner(VllmConfig):\n'],
  ['        self.sched.add_request(out)\n', '        self.sched.add_request(out)\n        self.sched = VllmConfig()\n'],
];

const TYPED = [', bogus=1', 'x', ' ', ',', '(', ')', '=', '.', '\n', '\n        ', '#', ', request=out', '1'];

describe('fuzzing edits inside the methods of a big class', () => {
  let client: TestClient;
  let engine: Engine;
  const file = path.join(VLLM, 'user', 'big_class.py');
  const uri = pathToFileURL(file).href;

  before(async () => {
    engine = await Engine.open({ targets: [path.join(VLLM, 'new')] });
    // a short typing pause: findings new on the edited statement come a moment after the first publication
    client = new TestClient({ targets: [path.join(VLLM, 'new')] }, { APIDRIFT_TYPING_PAUSE_MS: String(FUZZ_PAUSE_MS) });
    await client.initialize(ROOT);
  });
  after(async () => client?.shutdown());

  it('ends every compared version with the diagnostics a fresh check gives', { timeout: 240_000 }, async () => {
    console.log(`class fuzz seed ${SEED} (replay: APIDRIFT_FUZZ_SEED=${SEED}), ${EDITS} edits`);
    const rand = prng(SEED);
    const int = (n: number): number => Math.floor(rand() * n);
    const original = bigClass(40);
    let doc = TextDocument.create(uri, 'python', 1, original);
    client.open(uri, original, 1);
    const first = await within('the first diagnostics', 60_000, client.diagnosticsFor(uri, 1));
    assert.ok(first.length > 10, 'the class has findings to follow');
    // the server reads the workspace's classes in the background; until then calls on `self` wait
    // for them (unknown), and it checks the file again once they are read: the edits start after that
    const fresh = findingKeys(engine.check(original, file)).join('\n');
    for (const until = Date.now() + 60_000; (client.diagnostics.get(uri)?.diagnostics ?? []).map(diagKey).sort().join('\n') !== fresh; ) {
      assert.ok(Date.now() < until, 'the diagnostics of the opened file come to what a fresh check gives');
      await new Promise((r) => setTimeout(r, 50));
    }
    const mismatches: string[] = [];
    let compared = 0;
    let toggled = 0;
    const kinds = new Set<string>();
    for (let sent = 0; sent < EDITS; sent++) {
      const text = doc.getText();
      let change: { range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string };
      const r = rand();
      const toggle = TOGGLES[int(TOGGLES.length)];
      const [from, to] = text.includes(toggle[1]) ? [toggle[1], toggle[0]] : [toggle[0], toggle[1]];
      const at = text.indexOf(from);
      if (r < 0.3 && at >= 0) {
        toggled++;
        change = { range: { start: doc.positionAt(at), end: doc.positionAt(at + from.length) }, text: to };
      } else {
        // inside a method body: on a line indented by 8 spaces, typed or deleted
        const lines = text.split('\n');
        const bodyRows = lines.map((l, i) => (l.startsWith('        ') ? i : -1)).filter((i) => i >= 0);
        const row = bodyRows[int(bodyRows.length)] ?? 0;
        const col = 8 + int(Math.max(1, lines[row].length - 8));
        if (rand() < 0.7) change = { range: { start: { line: row, character: col }, end: { line: row, character: col } }, text: TYPED[int(TYPED.length)] };
        else change = { range: { start: { line: row, character: col }, end: { line: row, character: Math.min(lines[row].length, col + 1 + int(4)) } }, text: '' };
      }
      doc = TextDocument.update(doc, [change], doc.version + 1);
      client.change(uri, doc.version, [change]);
      // an undo now and then brings back the text as it was, with its findings
      if (rand() < 0.05) {
        const all = { range: { start: { line: 0, character: 0 }, end: doc.positionAt(doc.getText().length) }, text: original };
        doc = TextDocument.update(doc, [all], doc.version + 1);
        client.change(uri, doc.version, [all]);
      }
      if (sent % 4 === 3 || sent === EDITS - 1) {
        const version = doc.version;
        await within(`diagnostics of v${version}`, 60_000, client.diagnosticsFor(uri, version));
        const got = (await settled(client, uri, version)).map(diagKey).sort();
        const want = findingKeys(engine.check(doc.getText(), file));
        for (const k of want) kinds.add(k.split(' ')[1]);
        compared++;
        if (got.join('\n') !== want.join('\n')) mismatches.push(`v${version}: server [${got.join(' | ')}] engine [${want.join(' | ')}]`);
      }
    }
    console.log(`${EDITS} edits (${toggled} changing what other members depend on), ${compared} versions compared, finding kinds seen: ${[...kinds].join(', ')}`);
    for (const m of mismatches.slice(0, 3)) console.log('  mismatch ' + m.slice(0, 2000));
    assert.deepEqual(mismatches, [], `seed ${SEED}`);
    assert.ok(toggled > EDITS / 10);
    const errors = client.logs.filter((l) => /error while checking|uncaught error/.test(l));
    assert.deepEqual(errors, []);
  });
});
