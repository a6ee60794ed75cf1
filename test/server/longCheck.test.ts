/**
 * A long check (a huge document) pauses between the units of the file: requests that arrive while
 * it runs are answered before it publishes, and a newer version of the document replaces it.
 * Ordering is asserted, not times.
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { FIXTURES, ROOT } from '../helpers';
import { TestClient } from './lspClient';

const TARGET = path.join(FIXTURES, 'vllm', 'new');

/** Thousands of small functions, each calling into the target (one in ten with a keyword it refuses). */
function huge(functions: number): string {
  const out = ['from vllm.v1.core.sched.scheduler import Scheduler', 'from vllm.v1.executor.abstract import Executor', ''];
  for (let i = 0; i < functions; i++) {
    out.push(`def f_${i}(cfg, kv, som):`, `    s = Scheduler(cfg, kv, som, 16${i % 10 === 0 ? ', bogus=1' : ''})`, '    s.add_request(None)', '    return Executor(cfg)', '');
  }
  return out.join('\n');
}

describe('long checks share the server', () => {
  let client: TestClient;
  /** Every message from the server, in arrival order. */
  const arrivals: string[] = [];

  before(async () => {
    client = new TestClient({ targets: [TARGET] });
    await client.initialize(ROOT);
    client.conn.onNotification('textDocument/publishDiagnostics', (p: { uri: string; version?: number; diagnostics: [] }) => {
      arrivals.push(`publish ${path.basename(p.uri)} v${p.version}`);
      client.diagnostics.set(p.uri, { version: p.version, diagnostics: p.diagnostics });
      (client as unknown as { wake(): void }).wake();
    });
  });
  after(async () => client.shutdown());

  it('answers a hover during the check of a huge document, before that check publishes', { timeout: 180_000 }, async () => {
    const small = pathToFileURL(path.join(FIXTURES, 'virtual', 'small.py')).href;
    const big = pathToFileURL(path.join(FIXTURES, 'virtual', 'huge.py')).href;
    const smallText = 'from vllm.v1.core.sched.scheduler import Scheduler\nScheduler(1, 2, 3)\n';
    client.open(small, smallText, 1);
    const d = await client.diagnosticsFor(small, 1);
    assert.equal(d.length, 1, 'the small document has its finding');
    // the server says when a check starts while tracing
    void client.conn.sendNotification('$/setTrace', { value: 'messages' });
    const text = huge(6000);
    const logsBefore = client.logs.length;
    client.open(big, text, 1);
    await client.waitFor('the check of the huge document to start', () => client.logs.slice(logsBefore).some((l) => /checking test\/fixtures\/virtual\/huge\.py v1/.test(l)), 60_000);
    const hover = await client.conn.sendRequest('textDocument/hover', { textDocument: { uri: small }, position: { line: 1, character: 2 } });
    arrivals.push('hover answered');
    assert.ok(hover, 'the hover on the small document has content');
    const diags = await client.diagnosticsFor(big, 1);
    assert.equal(diags.length, 600, 'every finding of the huge document');
    const order = arrivals.filter((a) => a === 'hover answered' || a === 'publish huge.py v1');
    assert.deepEqual(order, ['hover answered', 'publish huge.py v1'], 'the hover was answered while the huge document was being checked');
  });

  it('a newer version of a document replaces the check of the older one', { timeout: 180_000 }, async () => {
    const big = pathToFileURL(path.join(FIXTURES, 'virtual', 'huge2.py')).href;
    const text = huge(6000);
    const logsBefore = client.logs.length;
    client.open(big, text, 1);
    await client.waitFor('the check of v1 to start', () => client.logs.slice(logsBefore).some((l) => /checking test\/fixtures\/virtual\/huge2\.py v1/.test(l)), 60_000);
    // v2 drops the findings: only its diagnostics are ever published, and v1's check never ends
    client.change(big, 2, [{ text: text.replace(/, bogus=1/g, '') }]);
    assert.equal((await client.diagnosticsFor(big, 2)).length, 0);
    assert.ok(!arrivals.includes('publish huge2.py v1'), 'nothing was published for v1');
    assert.ok(!client.logs.slice(logsBefore).some((l) => /checked test\/fixtures\/virtual\/huge2\.py v1:/.test(l)), 'the check of v1 was cancelled, not finished');
  });
});
