/**
 * Faults in the language server: an exception while checking one document must not affect the
 * others, and stale checks never overwrite newer results.
 *
 * Two triggers for an exception: deeply nested code (today the engine's recursion overflows the
 * stack on it), and the test hook APIDRIFT_TEST_FAIL_ON=<marker>: the server's check throws for
 * documents containing the marker (to be added to the server).
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { Engine } from '../../server/src/engine';
import { ROOT } from '../helpers';
import { TestClient } from '../server/lspClient';
import { diagKey, findingKeys, isAlive, type Published, prng, recordPublished, sleep, VLLM, VLLM_TEXT, VLLM_USER, within } from './util';

const MARKER = '__apidrift_test_crash__';
const NEW = path.join(VLLM, 'new');
const uriOf = (name: string): string => pathToFileURL(path.join(VLLM, 'user', name)).href;

/** The user file with the kv_cache_specs argument removed (2 findings) or block_size added (2 findings). */
const WITHOUT_KV = VLLM_TEXT.replace('            kv_cache_specs=per_layer_specs,\n', '');
const WITH_BLOCK = VLLM_TEXT.replace('            structured_output_manager=grammar,\n', '            structured_output_manager=grammar,\n            block_size=16,\n');
const DEEP = 'from vllm.config import SchedulerConfig\nx = ' + '('.repeat(6000) + 'SchedulerConfig(max_num_seqs=1)' + ')'.repeat(6000) + '\n';

function close(client: TestClient, uri: string): void {
  void client.conn.sendNotification('textDocument/didClose', { textDocument: { uri } });
}

/** Versions published for `uri` must never go down (a close, which publishes without a version, resets). */
function outOfOrder(history: Published[], uri: string): string[] {
  const bad: string[] = [];
  let last = -1;
  for (const h of history) {
    if (h.uri !== uri) continue;
    if (h.version === undefined) {
      last = -1;
      continue;
    }
    if (h.version < last) bad.push(`v${h.version} published after v${last}`);
    last = Math.max(last, h.version);
  }
  return bad;
}

describe('an exception while checking one document', () => {
  it('deeply nested code in one document: the other documents are checked and the server lives', { timeout: 60_000 }, async () => {
    const client = new TestClient({ targets: [NEW] });
    try {
      await client.initialize(ROOT);
      const [a, b, c] = [uriOf('a.py'), uriOf('deep.py'), uriOf('c.py')];
      client.open(a, VLLM_TEXT, 1);
      client.open(b, DEEP, 1);
      client.open(c, VLLM_TEXT, 1);
      assert.equal((await client.diagnosticsFor(a, 1)).length, 3);
      assert.equal((await client.diagnosticsFor(c, 1)).length, 3);
      client.change(a, 2, [{ text: WITHOUT_KV }]);
      assert.equal((await client.diagnosticsFor(a, 2)).length, 2, 'a later edit of another document is still checked');
      // the same document, first fine, then deep: what stays on screen for it?
      client.change(c, 2, [{ text: DEEP }]);
      await sleep(600);
      const cState = client.diagnostics.get(c);
      const crashed = client.logs.filter((l) => l.includes('error while checking') && l.includes('deep.py'));
      console.log(`deep nesting (6000 parentheses): ${crashed.length ? 'the check threw: ' + crashed[0].split('\n').slice(0, 2).join(' ') : 'checked without an exception'}; diagnostics for it: ${JSON.stringify(client.diagnostics.get(b)?.diagnostics.length ?? 'none published')}`);
      console.log(`c.py changed to deep code (v2): the last diagnostics it has are for v${cState?.version} (${cState?.diagnostics.length} findings)`);
      assert.ok(isAlive(client.proc.pid!));
    } finally {
      await client.shutdown();
    }
  });

  it('deeply nested code is checked without an exception (Python rejects it; the engine should just skip it)', { timeout: 60_000 }, async () => {
    const client = new TestClient({ targets: [NEW] });
    try {
      await client.initialize(ROOT);
      const b = uriOf('deep.py');
      client.open(b, DEEP, 1);
      const published = await within('diagnostics for the deep document', 5_000, client.diagnosticsFor(b, 1)).catch((e: Error) => e);
      const errors = client.logs.filter((l) => l.includes('error while checking'));
      console.log(`deep document: ${published instanceof Error ? 'no diagnostics published' : `${published.length} diagnostics`}; errors logged: ${errors.length}`);
      assert.deepEqual(errors.map((e) => e.split('\n')[0]), []);
      assert.ok(!(published instanceof Error), 'diagnostics are published for the deep document');
    } finally {
      await client.shutdown();
    }
  });

  describe(`with the hook APIDRIFT_TEST_FAIL_ON=${MARKER}`, () => {
    let client: TestClient;
    let history: Published[];
    before(async () => {
      client = new TestClient({ targets: [NEW] }, { APIDRIFT_TEST_FAIL_ON: MARKER });
      history = recordPublished(client);
      await client.initialize(ROOT);
    });
    after(async () => client.shutdown());

    it('a check that throws for one document leaves the others checked, and the failing one recovers', { timeout: 60_000 }, async () => {
      const [a, b, c] = [uriOf('hook_a.py'), uriOf('hook_b.py'), uriOf('hook_c.py')];
      client.open(a, VLLM_TEXT, 1);
      client.open(b, VLLM_TEXT + `\n# ${MARKER}\n`, 1);
      client.open(c, VLLM_TEXT, 1);
      assert.equal((await client.diagnosticsFor(a, 1)).length, 3);
      assert.equal((await client.diagnosticsFor(c, 1)).length, 3);
      const crash = await within(
        'the hook to make the check of hook_b.py throw (is APIDRIFT_TEST_FAIL_ON implemented in server.ts?)',
        10_000,
        client.waitFor('an error log for hook_b.py', () => client.logs.find((l) => l.includes('error while checking') && l.includes('hook_b.py'))),
      );
      console.log(`hook: ${crash.split('\n')[0]}`);
      // the others keep working, before and after
      client.change(a, 2, [{ text: WITHOUT_KV }]);
      assert.equal((await client.diagnosticsFor(a, 2)).length, 2);
      // the failing document is checked again once the marker is gone
      client.change(b, 2, [{ text: VLLM_TEXT }]);
      assert.equal((await client.diagnosticsFor(b, 2)).length, 3);
      // hover on it while it fails does not break anything
      client.change(b, 3, [{ text: VLLM_TEXT + `\n# ${MARKER}\n` }]);
      const hover = await within('hover on a failing document', 10_000, client.conn.sendRequest('textDocument/hover', { textDocument: { uri: b }, position: { line: 109, character: 27 } }));
      console.log(`hover on the failing document: ${JSON.stringify(hover)?.slice(0, 120)}`);
      client.change(c, 2, [{ text: WITH_BLOCK }]);
      assert.equal((await client.diagnosticsFor(c, 2)).length, 2);
      assert.ok(isAlive(client.proc.pid!));
    });

    it('a failed check does not leave the diagnostics of an older version in place', { timeout: 60_000 }, async () => {
      const b = uriOf('hook_stale.py');
      client.open(b, VLLM_TEXT, 1);
      assert.equal((await client.diagnosticsFor(b, 1)).length, 3);
      // version 2 moves every line down and makes the check throw: the v1 positions are wrong now
      client.change(b, 2, [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: `# ${MARKER}\n\n\n` }]);
      await client.waitFor('an error log for hook_stale.py', () => client.logs.find((l) => l.includes('error while checking') && l.includes('hook_stale.py')), 10_000);
      const v2 = await within('a publish for v2 after the failure', 5_000, client.diagnosticsFor(b, 2)).catch((e: Error) => e);
      const latest = history.filter((h) => h.uri === b).pop();
      console.log(`after a failed check of v2: last publish is v${latest?.version} with ${latest?.diagnostics.length} diagnostics`);
      assert.ok(!(v2 instanceof Error), 'the server publishes something for the version it failed on');
      assert.ok(v2.every((d) => !['missing-argument', 'unexpected-keyword'].includes(d.code)), 'no findings of v1 are republished at stale positions');
    });
  });
});

describe('stale checks', () => {
  let client: TestClient;
  let history: Published[];
  let engine: Engine;
  let nightly: Engine;
  before(async () => {
    engine = await Engine.open({ targets: [NEW] });
    nightly = await Engine.open({ targets: [path.join(VLLM, 'nightly')] });
    client = new TestClient({ targets: [NEW] });
    history = recordPublished(client);
    await client.initialize(ROOT);
  });
  after(async () => client.shutdown());

  const expectLatest = async (uri: string, version: number, text: string, eng = engine): Promise<void> => {
    await client.diagnosticsFor(uri, version);
    // anything older still on its way would arrive now; so would findings new on the edited
    // statement, which wait for the typing pause (500 ms)
    await sleep(800);
    const last = history.filter((h) => h.uri === uri).pop()!;
    assert.equal(last.version, version, `the last publish is for v${version}`);
    assert.deepEqual(last.diagnostics.map(diagKey).sort(), findingKeys(eng.check(text, VLLM_USER)));
  };

  it('versions 2, 3, 4 sent at once: only v4 is published last, and nothing older after it', { timeout: 60_000 }, async () => {
    const uri = uriOf('stale_rapid.py');
    client.open(uri, VLLM_TEXT, 1);
    await client.diagnosticsFor(uri, 1);
    client.change(uri, 2, [{ text: WITHOUT_KV }]);
    client.change(uri, 3, [{ text: VLLM_TEXT }]);
    client.change(uri, 4, [{ text: WITH_BLOCK }]);
    await expectLatest(uri, 4, WITH_BLOCK);
    const versions = history.filter((h) => h.uri === uri).map((h) => h.version);
    console.log(`rapid v2..v4: published versions ${versions.join(', ')}`);
    assert.deepEqual(outOfOrder(history, uri), []);
  });

  it('versions sent while the server is busy with a 50,000-line document', { timeout: 120_000 }, async () => {
    const big = uriOf('stale_big.py');
    const uri = uriOf('stale_busy.py');
    client.open(uri, VLLM_TEXT, 1);
    await client.diagnosticsFor(uri, 1);
    const bigText = Array.from({ length: 300 }, () => VLLM_TEXT).join('\n');
    const t0 = Date.now();
    client.open(big, bigText, 1);
    await sleep(150); // the debounce of 0 ms has fired: the big check runs now
    client.change(uri, 2, [{ text: WITHOUT_KV }]);
    client.change(uri, 3, [{ text: WITH_BLOCK }]);
    client.change(uri, 4, [{ text: VLLM_TEXT }]);
    await expectLatest(uri, 4, VLLM_TEXT);
    const bigDiags = await client.diagnosticsFor(big, 1);
    console.log(`busy server: big document (${bigText.split('\n').length} lines) got ${bigDiags.length} diagnostics, ${Date.now() - t0} ms; small one published ${history.filter((h) => h.uri === uri).map((h) => h.version).join(', ')}`);
    assert.equal(bigDiags.length, 900);
    assert.deepEqual(outOfOrder(history, uri), []);
    close(client, big);
  });

  it('random pauses between versions (20 rounds): the last publish is always the last version, never out of order', { timeout: 120_000 }, async () => {
    const seed = Number(process.env.APIDRIFT_FUZZ_SEED ?? Date.now() >>> 0);
    const rand = prng(seed);
    const texts = [VLLM_TEXT, WITHOUT_KV, WITH_BLOCK, VLLM_TEXT.replace('Scheduler(', 'Scheduler(\n')];
    const uri = uriOf('stale_pauses.py');
    client.open(uri, VLLM_TEXT, 1);
    await client.diagnosticsFor(uri, 1);
    let version = 1;
    for (let round = 0; round < 20; round++) {
      let text = VLLM_TEXT;
      const n = 2 + Math.floor(rand() * 4);
      for (let i = 0; i < n; i++) {
        text = texts[Math.floor(rand() * texts.length)];
        client.change(uri, ++version, [{ text }]);
        await sleep(Math.floor(rand() * 250)); // around the 120 ms debounce
      }
      await expectLatest(uri, version, text);
    }
    console.log(`pauses (seed ${seed}): ${version - 1} versions in 20 rounds, ${history.filter((h) => h.uri === uri).length} publishes, out of order: ${outOfOrder(history, uri).length}`);
    assert.deepEqual(outOfOrder(history, uri), []);
  });

  it('a document closed while its check is pending gets nothing after the close', { timeout: 60_000 }, async () => {
    const uri = uriOf('stale_closed.py');
    client.open(uri, VLLM_TEXT, 1);
    await client.diagnosticsFor(uri, 1);
    client.change(uri, 2, [{ text: WITHOUT_KV }]);
    close(client, uri);
    await client.waitFor('the close clears the diagnostics', () => history.filter((h) => h.uri === uri).pop()?.version === undefined, 5_000);
    const at = history.length;
    await sleep(600);
    const after = history.slice(at).filter((h) => h.uri === uri);
    console.log(`closed while pending: ${after.length} publishes after the close`);
    assert.deepEqual(after, []);
    // reopened, it starts again at its new version 1
    client.open(uri, WITH_BLOCK, 1);
    assert.equal((await client.diagnosticsFor(uri, 1)).length, 2);
  });

  it('edits racing a change of target: the last publish uses the new target', { timeout: 60_000 }, async () => {
    const uri = uriOf('stale_target.py');
    client.open(uri, VLLM_TEXT, 1);
    await client.diagnosticsFor(uri, 1);
    const from = client.statuses.length;
    client.change(uri, 2, [{ text: WITHOUT_KV }]);
    client.changeSettings({ targets: [path.join(VLLM, 'nightly')] });
    client.change(uri, 3, [{ text: VLLM_TEXT }]);
    await sleep(10);
    client.change(uri, 4, [{ text: VLLM_TEXT + '\n' }]);
    await client.waitFor('ready on nightly', () => client.statuses.slice(from).find((s) => s.state === 'ready'), 30_000);
    await client.waitFor('v4 with the nightly findings', () => {
      const d = client.diagnostics.get(uri);
      return d?.version === 4 && d.diagnostics.length === 4;
    }, 20_000).catch(() => undefined);
    await sleep(600);
    const last = history.filter((h) => h.uri === uri).pop()!;
    console.log(`target change during edits: last publish v${last.version} with ${last.diagnostics.length} diagnostics (nightly gives 4, new gives 3)`);
    assert.equal(last.version, 4);
    assert.deepEqual(last.diagnostics.map(diagKey).sort(), findingKeys(nightly.check(VLLM_TEXT + '\n', VLLM_USER)));
    client.changeSettings({ targets: [NEW] });
  });
});
