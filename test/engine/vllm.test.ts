/**
 * The block_size story on our own miniature of a fast-moving library in three versions:
 * the user file was written for `old`; `new` and `nightly` break it in known ways.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine, type Finding } from '../../server/src/engine';
import { applyEdits, FIXTURES } from '../helpers';

const USER = path.join(FIXTURES, 'vllm', 'user', 'hidden_states_generator.py');
const TEXT = fs.readFileSync(USER, 'utf8');
const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'vllm', 'user', 'expected.json'), 'utf8')) as Record<string, Array<{ line: number; code: string; callee: string; param: string }>>;

async function check(version: string): Promise<{ findings: Finding[]; engine: Engine }> {
  const engine = await Engine.open({ targets: [path.join(FIXTURES, 'vllm', version)] });
  return { findings: engine.check(TEXT, USER).findings, engine };
}

function find(findings: Finding[], param: string): Finding {
  const f = findings.find((x) => x.param === param);
  assert.ok(f, `no finding for ${param}`);
  return f;
}

describe('the block_size story', () => {
  for (const version of ['old', 'new', 'nightly']) {
    it(`gives exactly the expected findings against ${version}`, async () => {
      const { findings, engine } = await check(version);
      assert.deepEqual(
        findings.map((f) => ({ line: f.range.start.line + 1, code: f.code, callee: f.callee, param: f.param })),
        EXPECTED[version],
      );
      // lazy: only the modules the file needs (and what they need) are read
      assert.ok(engine.modulesRead <= 30, `${engine.modulesRead} modules read`);
    });
  }

  it('does not flag SamplingParams(max_tokens=..., temperature=...) on a msgspec.Struct with a mixin first', async () => {
    const { findings } = await check('new');
    assert.ok(!findings.some((f) => f.callee?.endsWith('SamplingParams')));
    const engine = await Engine.open({ targets: [path.join(FIXTURES, 'vllm', 'new')] });
    const r = engine.check('from vllm.sampling_params import SamplingParams\nSamplingParams(max_tokens=1, temperature=0.0, bogus=1)\n', 'x.py');
    assert.deepEqual(r.findings.map((f) => f.param), ['bogus']); // the signature is real, not empty
  });

  it('explains the missing argument with the target signature and its definition', async () => {
    const { findings } = await check('new');
    const f = find(findings, 'block_size');
    assert.match(f.message, /missing 1 required positional argument: 'block_size'/);
    assert.match(f.message, /Scheduler\(vllm_config.*block_size: int/);
    assert.ok(f.definition?.file.endsWith(path.join('v1', 'core', 'sched', 'scheduler.py')));
    // the range is the callee name
    assert.equal(TEXT.split('\n')[f.range.start.line].slice(f.range.start.character, f.range.end.character), 'Scheduler');
  });

  it('inserts block_size=VLLM_BLOCK_SIZE as a new argument line', async () => {
    const { findings } = await check('new');
    const fix = find(findings, 'block_size').fixes[0];
    assert.equal(fix.title, 'Add argument block_size=VLLM_BLOCK_SIZE');
    assert.ok(!fix.snippet);
    const fixed = applyEdits(TEXT, fix.edits);
    assert.ok(fixed.includes('            structured_output_manager=grammar,\n            block_size=VLLM_BLOCK_SIZE,\n        )'), fixed.slice(fixed.indexOf('Scheduler('), fixed.indexOf('Scheduler(') + 250));
  });

  it('offers a snippet placeholder when no name in scope fits', async () => {
    const { findings } = await check('new');
    const fix = find(findings, 'is_encoder_decoder').fixes[0];
    assert.equal(fix.snippet, true);
    assert.match(fix.edits[0].newText, /is_encoder_decoder=\$\{1:\.\.\.\},$/);
  });

  it('removes the kv_cache_specs argument line cleanly', async () => {
    const { findings } = await check('new');
    const fixed = applyEdits(TEXT, find(findings, 'kv_cache_specs').fixes[0].edits);
    assert.equal(fixed, TEXT.replace('            kv_cache_specs=per_layer_specs,\n', ''));
  });

  it('applies all fixes and then finds nothing but the placeholder', async () => {
    const { findings } = await check('nightly');
    let text = TEXT;
    // apply from the bottom up so that earlier edits do not move later ones
    for (const f of [...findings].reverse()) text = applyEdits(text, f.fixes[0].edits);
    text = text.replace('${1:...}', 'False');
    const engine = await Engine.open({ targets: [path.join(FIXTURES, 'vllm', 'nightly')] });
    assert.deepEqual(engine.check(text, USER).findings, []);
  });
});
