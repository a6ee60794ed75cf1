/**
 * Streams at least 10,000 random incremental edits to the running server, fast, on the vLLM user
 * file against `new`. At the end the server is alive, its memory is bounded, and its diagnostics
 * for the final text equal a fresh engine check of that text. Seeded: the seed is printed, and
 * APIDRIFT_FUZZ_SEED=<seed> replays a run (APIDRIFT_FUZZ_EDITS=<n> changes its length).
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { Engine } from '../../server/src/engine';
import { ROOT } from '../helpers';
import { TestClient } from '../server/lspClient';
import { diagKey, findingKeys, FUZZ_PAUSE_MS as PAUSE_MS, isAlive, memoryOf, prng, recordPublished, settled, sleep, VLLM, VLLM_TEXT, VLLM_USER, within } from './util';

const SEED = Number(process.env.APIDRIFT_FUZZ_SEED ?? (Date.now() ^ (process.pid << 16)) >>> 0);
const EDITS = Number(process.env.APIDRIFT_FUZZ_EDITS ?? 10_000);
const MEMORY_LIMIT_MB = 400;

const HOT = /Scheduler\(|SchedulerConfig\(|kv_cache_specs|get_kv_cache_config_from_groups\(|Request\(|from vllm/g;

function hotSpots(text: string): number[] {
  return [...text.matchAll(HOT)].map((m) => m.index ?? 0);
}

type Change = { range: { start: { line: number; character: number }; end: { line: number; character: number } }; text: string } | { text: string };

/** Tokens taken from the file itself, plus the ones that break code in interesting ways. */
const TOKENS = [
  ...new Set(VLLM_TEXT.match(/[A-Za-z_][A-Za-z0-9_]*=?|[^\sA-Za-z0-9_]/g) ?? []),
  '(', ')', ',', '[', ']', '{', '}', ':', '=', '.', 'kv_cache_specs=', 'block_size=VLLM_BLOCK_SIZE, ', 'Scheduler(', 'SchedulerConfig(',
  '\n', '\n        ', '\n    ', '    ', '\t', '\r\n', '"', "'", '"""', '#', '\\', '**', '*', 'lambda ', 'def ', 'class ', 'if ', ' else ', 'async ', 'await ',
  '😀', 'é', '日本', '\u200b',
];


describe('fuzzing the language server with random edits', () => {
  let client: TestClient;
  let engine: Engine;
  let history: ReturnType<typeof recordPublished>;
  const uri = pathToFileURL(VLLM_USER).href;

  before(async () => {
    engine = await Engine.open({ targets: [path.join(VLLM, 'new')] });
    // a short typing pause: findings new on the edited lines come a moment after the first publication
    client = new TestClient({ targets: [path.join(VLLM, 'new')] }, { APIDRIFT_TYPING_PAUSE_MS: String(PAUSE_MS) });
    history = recordPublished(client);
    await client.initialize(ROOT);
  });
  after(async () => client?.shutdown());

  it(`survives ${EDITS} random edits and ends with the diagnostics a fresh check gives`, { timeout: 240_000 }, async () => {
    console.log(`fuzz seed ${SEED} (replay: APIDRIFT_FUZZ_SEED=${SEED}), ${EDITS} edits`);
    const rand = prng(SEED);
    const int = (n: number): number => Math.floor(rand() * n);
    const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)];
    const pid = client.proc.pid!;
    let doc = TextDocument.create(uri, 'python', 1, VLLM_TEXT);
    client.open(uri, VLLM_TEXT, 1);
    assert.equal((await client.diagnosticsFor(uri, 1)).length, 3);
    const started = Date.now();
    let sent = 0;
    let notifications = 0;
    let compared = 0;
    let comparedWithFindings = 0;
    let maxLength = VLLM_TEXT.length;
    let peakRss = 0;
    const waits: number[] = [];
    const mismatches: string[] = [];
    const ops = { insertToken: 0, insertSlice: 0, delete: 0, replace: 0, full: 0, repair: 0 };

    /** One incremental change that turns the text back into the original (its differing middle). */
    const repair = (): Change => {
      ops.repair++;
      const text = doc.getText();
      let a = 0;
      while (a < text.length && a < VLLM_TEXT.length && text[a] === VLLM_TEXT[a]) a++;
      let b = 0;
      while (b < text.length - a && b < VLLM_TEXT.length - a && text[text.length - 1 - b] === VLLM_TEXT[VLLM_TEXT.length - 1 - b]) b++;
      return { range: { start: doc.positionAt(a), end: doc.positionAt(text.length - b) }, text: VLLM_TEXT.slice(a, VLLM_TEXT.length - b) };
    };

    const makeChange = (): Change => {
      const text = doc.getText();
      const len = text.length;
      const r = rand();
      if (r < 0.002) {
        ops.full++;
        return { text: VLLM_TEXT };
      }
      // half of the edits land near the calls that have findings
      const anchor = rand() < 0.5 ? hotSpots(text) : [];
      const at = anchor.length ? Math.max(0, Math.min(len, pick(anchor) + int(120) - 40)) : int(len + 1);
      const big = len > 2 * VLLM_TEXT.length;
      const small = len < VLLM_TEXT.length / 2;
      if ((r < 0.38 && !big) || (small && r < 0.6)) {
        let insert: string;
        if (rand() < 0.75 && !small) {
          ops.insertToken++;
          insert = pick(TOKENS);
        } else {
          ops.insertSlice++;
          const from = int(VLLM_TEXT.length);
          insert = VLLM_TEXT.slice(from, from + 1 + int(rand() < 0.8 ? 40 : 400));
        }
        const p = doc.positionAt(at);
        return { range: { start: p, end: p }, text: insert };
      }
      const span = 1 + int(rand() < 0.85 ? 12 : big ? 2000 : 300);
      const end = Math.min(len, at + span);
      const replace = rand() < 0.3;
      if (replace) ops.replace++;
      else ops.delete++;
      return { range: { start: doc.positionAt(at), end: doc.positionAt(end) }, text: replace ? pick(TOKENS) : '' };
    };

    const compare = async (label: string): Promise<void> => {
      const version = doc.version;
      const t0 = Date.now();
      await within(`diagnostics of v${version} (${label})`, 60_000, client.diagnosticsFor(uri, version));
      const diags = await settled(client, uri, version);
      waits.push(Date.now() - t0);
      const want = findingKeys(engine.check(doc.getText(), VLLM_USER));
      const got = diags.map(diagKey).sort();
      compared++;
      if (want.length) comparedWithFindings++;
      if (want.join('\n') !== got.join('\n')) mismatches.push(`v${version} (${label}): server [${got.join(' | ')}] engine [${want.join(' | ')}]`);
      peakRss = Math.max(peakRss, memoryOf(pid).rssMB);
    };

    let nextCompare = 100 + int(300);
    let nextRepair = 20 + int(150);
    let nextPause = 50 + int(100);
    while (sent < EDITS) {
      const batch = 1 + int(8);
      for (let i = 0; i < batch && sent < EDITS; i++) {
        // one notification carries 1-3 changes, applied in order
        const n = rand() < 0.8 ? 1 : 2 + int(2);
        const changes: Change[] = [];
        const repairNow = sent >= nextRepair;
        if (repairNow) {
          nextRepair = sent + 20 + int(150);
          // often look at the text a few edits after a repair, when it still has its findings
          if (rand() < 0.5) nextCompare = Math.min(nextCompare, sent + n + int(6));
        }
        for (let k = 0; k < n; k++) {
          const c = repairNow && k === 0 ? repair() : makeChange();
          changes.push(c);
          doc = TextDocument.update(doc, [c], doc.version);
        }
        doc = TextDocument.update(doc, [], doc.version + 1);
        client.change(uri, doc.version, changes);
        notifications++;
        sent += n;
        maxLength = Math.max(maxLength, doc.getText().length);
      }
      if (sent >= nextCompare) {
        await compare(`after ${sent} edits`);
        nextCompare = sent + 100 + int(300);
      } else if (sent >= nextPause) {
        // let a debounced check start in the middle of the stream now and then
        await sleep(int(200));
        nextPause = sent + 50 + int(100);
      } else {
        await new Promise((r) => setImmediate(r));
      }
    }
    await compare('final');
    const seconds = (Date.now() - started) / 1000;
    assert.ok(isAlive(pid), 'the server process is alive');
    const hover = await within('hover after the fuzz', 10_000, client.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: 0, character: 0 } }));
    void hover;
    const mem = memoryOf(pid);
    const versions = history.filter((h) => h.uri === uri && h.version !== undefined).map((h) => h.version!);
    const outOfOrder = versions.filter((v, i) => i > 0 && v < versions[i - 1]).length;
    const errors = client.logs.filter((l) => /error while checking|uncaught error/.test(l));
    const finalFindings = engine.check(doc.getText(), VLLM_USER).findings.length;
    console.log(
      [
        `edits: ${sent} in ${notifications} didChange notifications over ${seconds.toFixed(1)} s (${Math.round(sent / seconds)} edits/s)`,
        `ops: ${JSON.stringify(ops)}; text ${VLLM_TEXT.length} -> ${doc.getText().length} chars (max ${maxLength}), ${doc.lineCount} lines, final version ${doc.version}`,
        `server checks published: ${versions.length} (${outOfOrder} out of order); compared with the engine: ${compared} (${comparedWithFindings} with findings; final text has ${finalFindings}), mismatches: ${mismatches.length}`,
        `wait for diagnostics: max ${Math.max(...waits)} ms, mean ${Math.round(waits.reduce((a, b) => a + b, 0) / waits.length)} ms`,
        `server memory: VmRSS ${mem.rssMB.toFixed(0)} MB now, ${peakRss.toFixed(0)} MB max sampled, VmHWM (peak) ${mem.peakMB.toFixed(0)} MB`,
        `server errors logged: ${errors.length}`,
      ].join('\n'),
    );
    for (const m of mismatches.slice(0, 5)) console.log('  mismatch ' + m.slice(0, 1500));
    for (const e of errors.slice(0, 3)) console.log('  ' + e.slice(0, 800));
    assert.deepEqual(mismatches, [], `seed ${SEED}`);
    assert.equal(outOfOrder, 0, 'diagnostics of an older version were published after a newer one');
    assert.ok(mem.peakMB < MEMORY_LIMIT_MB, `peak memory ${mem.peakMB.toFixed(0)} MB`);
    assert.deepEqual(errors, [], `seed ${SEED}: the server logged errors`);
  });
});

describe('fuzzing the language server with big documents, huge calls and a framing error', () => {
  it('answers every version right (or says it could not check it), keeps serving other requests, and exits on a broken header', { timeout: 300_000 }, async () => {
    const seed = (SEED ^ 0x1414) >>> 0;
    console.log(`big-document fuzz seed ${seed} (replay: APIDRIFT_FUZZ_SEED=${SEED})`);
    const rand = prng(seed);
    const int = (n: number): number => Math.floor(rand() * n);
    const target = path.join(VLLM, 'new');
    const engine = await Engine.open({ targets: [target] });
    const client = new TestClient({ targets: [target] }, { APIDRIFT_TYPING_PAUSE_MS: String(PAUSE_MS) });
    const pid = client.proc.pid!;
    try {
      await client.initialize(ROOT);
      const uri = pathToFileURL(path.join(path.dirname(VLLM_USER), 'fuzz_big.py')).href;
      const other = pathToFileURL(path.join(path.dirname(VLLM_USER), 'fuzz_other.py')).href;
      client.open(other, VLLM_TEXT, 1);
      assert.equal((await client.diagnosticsFor(other, 1)).length, 3);
      let version = 1;
      client.open(uri, VLLM_TEXT, version);
      const kinds = { small: 0, hugeCall: 0, tooLarge: 0, nearLimit: 0 };
      const want = (text: string): string[] => {
        try {
          return findingKeys(engine.check(text, VLLM_USER.replace(/[^/]+$/, 'fuzz_big.py')));
        } catch (e) {
          assert.match((e as Error).message, /too large to parse/);
          return ['not-checked'];
        }
      };
      for (let step = 0; step < 40; step++) {
        const r = rand();
        let text: string;
        if (r < 0.25) {
          kinds.hugeCall++;
          const n = 2_000 + int(20_000);
          const arg = (i: number): string => (rand() < 0.5 ? `k${i}=${i}` : `${i}`);
          text = `from vllm.v1.core.sched.scheduler import Scheduler\nScheduler(${Array.from({ length: n }, (_, i) => arg(i)).join(', ')})\n` + VLLM_TEXT;
        } else if (r < 0.35) {
          kinds.tooLarge++;
          text = VLLM_TEXT + 'x = 1\n'.repeat(1_500_000 + int(100_000));
        } else if (r < 0.4) {
          kinds.nearLimit++;
          text = VLLM_TEXT + '# ' + 'y'.repeat(1_000_000 + int(1_000_000)) + '\n';
        } else {
          kinds.small++;
          const at = int(VLLM_TEXT.length);
          text = VLLM_TEXT.slice(0, at) + pick(rand, TOKENS) + VLLM_TEXT.slice(at);
        }
        version++;
        client.change(uri, version, [{ text }]);
        // the other document is still answered while this one is checked
        await within(`hover on the other document at step ${step}`, 60_000, client.conn.sendRequest('textDocument/hover', { textDocument: { uri: other }, position: { line: 0, character: 0 } }));
        await within(`diagnostics of v${version} (step ${step})`, 120_000, client.diagnosticsFor(uri, version));
        const diags = await settled(client, uri, version);
        const expected = want(text);
        const got = expected[0] === 'not-checked' ? diags.map((d) => d.code) : diags.map(diagKey).sort();
        assert.deepEqual(got, expected, `seed ${seed}, step ${step}`);
      }
      console.log(`big-document fuzz: ${JSON.stringify(kinds)}; server peak memory ${memoryOf(pid).peakMB.toFixed(0)} MB`);
      assert.ok(isAlive(pid));
      // a broken header: the server exits by itself (the client then starts a new one)
      const exited = new Promise<number | null>((resolve) => client.proc.on('exit', (code) => resolve(code)));
      client.proc.stdin!.write('Content-Lenght: 12\r\n\r\n{"jsonrpc":"2.0"}');
      assert.equal(await within('the server to exit after a broken header', 30_000, exited), 1);
    } finally {
      if (isAlive(pid)) await client.shutdown();
    }
  });
});

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)];
}
