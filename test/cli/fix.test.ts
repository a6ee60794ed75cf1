/** `check --fix`, `--diff` and `--unsafe-fixes`: what is applied, what is never written, and the result. */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { applyEdits, unifiedDiff } from '../../server/src/cli/fix';
import { DIST, FIXTURES, stdlibZip, tempTree } from '../helpers';

const CLI = path.join(DIST, 'cli.js');
const VLLM = path.join(FIXTURES, 'vllm');
const DRIFT = path.join(FIXTURES, 'drift');

function run(args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** Applies a unified diff made by unifiedDiff to the text it was made from. */
function patch(text: string, diff: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let at = 0;
  for (const hunk of diff.split(/^(?=@@ )/m).slice(1)) {
    const [header, ...body] = hunk.split('\n');
    const start = Number(/^@@ -(\d+)/.exec(header)![1]) - 1;
    while (at < start) out.push(lines[at++]);
    for (const l of body) {
      if (l.startsWith(' ')) {
        assert.equal(lines[at], l.slice(1), 'context matches');
        out.push(lines[at++]);
      } else if (l.startsWith('-')) {
        assert.equal(lines[at], l.slice(1), 'removed line matches');
        at++;
      } else if (l.startsWith('+')) out.push(l.slice(1));
    }
  }
  while (at < lines.length) out.push(lines[at++]);
  return out.join('\n');
}

describe('apidrift check --fix / --diff', () => {
  it('the block_size story: --diff writes nothing; --fix --unsafe-fixes leaves a file that checks clean', () => {
    const original = fs.readFileSync(path.join(VLLM, 'user', 'hidden_states_generator.py'), 'utf8');
    const dir = tempTree({ 'gen.py': original });
    const target = ['--target', path.join(VLLM, 'new'), '--baseline', path.join(VLLM, 'old')];

    // none of the three fixes is safe: the safe diff is empty
    const safe = run(['check', ...target, '--diff', 'gen.py'], dir);
    assert.equal(safe.stdout, '');
    assert.equal(safe.code, 1, 'the findings remain');

    const d = run(['check', ...target, '--diff', '--unsafe-fixes', 'gen.py'], dir);
    assert.equal(d.code, 1, d.stderr);
    assert.match(d.stdout, /^--- a\/gen\.py\n\+\+\+ b\/gen\.py\n@@ /);
    assert.match(d.stdout, /^\+ {12}block_size=VLLM_BLOCK_SIZE,$/m);
    assert.match(d.stdout, /^- {12}kv_cache_specs=per_layer_specs,$/m);
    assert.match(d.stdout, /^\+ {12}is_encoder_decoder=False,$/m);
    assert.match(d.stderr, /3 findings would be fixed in 1 file/);
    assert.equal(fs.readFileSync(path.join(dir, 'gen.py'), 'utf8'), original, '--diff writes nothing');

    const f = run(['check', ...target, '--fix', '--unsafe-fixes', 'gen.py'], dir);
    assert.equal(f.code, 0, f.stdout + f.stderr);
    assert.match(f.stderr, /fixed 3 findings in 1 file/);
    const fixed = fs.readFileSync(path.join(dir, 'gen.py'), 'utf8');
    assert.equal(fixed, patch(original, d.stdout), 'the diff is what --fix writes');
    assert.ok(!fixed.includes('${'), 'no placeholder');
    const again = run(['check', ...target, 'gen.py'], dir);
    assert.equal(again.code, 0, again.stdout);
    assert.match(again.stdout, /^0 findings in 1 file/m);
  });

  it('safe fixes only by default: moved imports and renamed keywords; the rest stays reported', () => {
    const user = fs.readFileSync(path.join(DRIFT, 'user.py'), 'utf8');
    const dir = tempTree({ 'user.py': user });
    const target = ['--target', path.join(DRIFT, 'v2'), '--baseline', path.join(DRIFT, 'v1')];
    const r = run(['check', ...target, '--fix', '--output-format', 'json', 'user.py'], dir);
    assert.equal(r.code, 1, r.stderr);
    const fixed = fs.readFileSync(path.join(dir, 'user.py'), 'utf8');
    assert.match(fixed, /^from drift\.utils\.math_utils import cdiv, round_up|^from drift\.utils\.math_utils import (cdiv|round_up)$/m);
    assert.match(fixed, /open_port\(address="0\.0\.0\.0"\)/);
    assert.match(fixed, /engine\.reset_cache\(device="cuda"\)/, 'an unsafe fix is not applied');
    const left = JSON.parse(r.stdout).diagnostics.map((d: { code: string }) => d.code);
    assert.ok(!left.includes('unknown-import'), left.join());
    assert.ok(left.includes('unexpected-keyword'), 'the removed keyword is still reported');
    assert.ok(!JSON.parse(r.stdout).diagnostics.some((d: { param: string }) => d.param === 'host'));
  });

  it('the stdlib example: a file whose fixes are all safe checks clean once fixed', () => {
    const dir = tempTree({
      'old.py': 'from importlib.abc import Traversable\nimport configparser\n\n\ndef files(t: Traversable):\n    return configparser.ConfigParser()\n',
    });
    const target = ['--target', stdlibZip('314'), '--baseline', stdlibZip('311')];
    const before = run(['check', ...target, 'old.py'], dir);
    assert.equal(before.code, 1, before.stdout + before.stderr);
    const r = run(['check', ...target, '--fix', 'old.py'], dir);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(fs.readFileSync(path.join(dir, 'old.py'), 'utf8'), /^from importlib\.resources\.abc import Traversable$/m);
    assert.equal(run(['check', ...target, 'old.py'], dir).code, 0);
  });

  it('a placeholder is never written, even with --unsafe-fixes', () => {
    const dir = tempTree({ 'a.py': 'import email.utils\n\nemail.utils.format_datetime()\n' });
    const text = fs.readFileSync(path.join(dir, 'a.py'), 'utf8');
    const json = run(['check', '--target', stdlibZip('312'), '--output-format', 'json', 'a.py'], dir);
    const d = JSON.parse(json.stdout).diagnostics[0];
    assert.equal(d.code, 'missing-argument');
    assert.deepEqual(d.fixes.map((x: { snippet?: boolean; applicability: string }) => [x.snippet, x.applicability]), [[true, 'unsafe']]);
    const r = run(['check', '--target', stdlibZip('312'), '--fix', '--unsafe-fixes', 'a.py'], dir);
    assert.equal(r.code, 1);
    assert.equal(fs.readFileSync(path.join(dir, 'a.py'), 'utf8'), text);
  });

  it('--unsafe-fixes alone and --fix with --diff are usage errors', () => {
    assert.equal(run(['check', '--target', stdlibZip('312'), '--unsafe-fixes', 'a.py'], DRIFT).code, 2);
    assert.equal(run(['check', '--target', stdlibZip('312'), '--fix', '--diff', 'a.py'], DRIFT).code, 2);
  });

  it('unified diffs: hunks with context, merged when close, applied back exactly', () => {
    const before = Array.from({ length: 30 }, (_, i) => `line ${i}`).join('\n') + '\n';
    const after = applyEdits(before, [
      { range: { start: { line: 2, character: 0 }, end: { line: 3, character: 0 } }, newText: '' },
      { range: { start: { line: 6, character: 5 }, end: { line: 6, character: 6 } }, newText: 'six' },
      { range: { start: { line: 25, character: 0 }, end: { line: 25, character: 0 } }, newText: 'new\n' },
    ]);
    const diff = unifiedDiff('f.py', before, after);
    assert.equal((diff.match(/^@@ /gm) ?? []).length, 2);
    assert.match(diff, /^@@ -1,10 \+1,9 @@$/m);
    assert.match(diff, /^@@ -23,6 \+22,7 @@$/m);
    assert.equal(patch(before, diff), after);
    assert.equal(unifiedDiff('f.py', before, before), '');
  });
});
