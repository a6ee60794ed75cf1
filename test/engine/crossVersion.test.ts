/** With a baseline: each finding says what changed, and the fixes follow the change. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { Engine, type Finding } from '../../server/src/engine';
import { diffParams } from '../../server/src/engine/report/diff';
import { readParams } from '../../server/src/engine/syntax';
import { initParser, parsePython } from '../../server/src/engine/parser';
import { applyEdits, FIXTURES, stdlibZip } from '../helpers';

const DRIFT = path.join(FIXTURES, 'drift');
const USER = path.join(DRIFT, 'user.py');
const TEXT = fs.readFileSync(USER, 'utf8');

async function driftFindings(): Promise<Finding[]> {
  const engine = await Engine.open({ targets: [path.join(DRIFT, 'v2')], baseline: [path.join(DRIFT, 'v1')] });
  return engine.check(TEXT, USER).findings;
}

function byLine(fs_: Finding[], line: number, code?: string): Finding {
  const f = fs_.find((x) => x.range.start.line + 1 === line && (!code || x.code === code));
  assert.ok(f, `no finding on line ${line}`);
  return f;
}

async function params(src: string): Promise<ReturnType<typeof readParams>> {
  await initParser();
  const tree = parsePython(src);
  try {
    return readParams(tree.rootNode.namedChildren[0]!.childForFieldName('parameters'));
  } finally {
    tree.delete();
  }
}

describe('change detection', () => {
  it('reports added, removed, renamed, kind and default changes', async () => {
    const d = diffParams(await params('def f(a, b=1, host_name="x", *, k=2): pass'), await params('def f(a, b, host="x", *, k=2, z): pass'));
    assert.deepEqual(
      d.map((c) => `${c.kind}:${c.param}${c.to ? '>' + c.to : ''}`).sort(),
      ['added-required:z', 'default-removed:b', 'renamed:host_name>host'].sort(),
    );
    // in a short list a rename needs no similar name, in a long one it does
    const short = diffParams(await params('def f(host="x"): pass'), await params('def f(address="x"): pass'));
    assert.deepEqual(short.map((c) => c.kind), ['renamed']);
    const long = diffParams(await params('def f(a, b, c, host="x"): pass'), await params('def f(a, b, c, address="x"): pass'));
    assert.deepEqual(long.map((c) => c.kind).sort(), ['added-optional', 'removed']);
  });

  it('does not call a change of meaning a rename (same position, other type and default)', async () => {
    const d = diffParams(await params('def reset_prefix_cache(self, device: Device | None = None): pass'), await params('def reset_prefix_cache(self, reset_running_requests: bool = False): pass'));
    assert.deepEqual(d.map((c) => c.kind).sort(), ['added-optional', 'removed']);
  });

  it('does not guess a rename in a long list of unrelated names', async () => {
    const d = diffParams(await params('def f(a, b, c, d, old_thing=1): pass'), await params('def f(a, b, c, d, fresh=1): pass'));
    assert.deepEqual(d.map((c) => c.kind).sort(), ['added-optional', 'removed']);
  });

  it('sees parameters that became keyword-only or positional-only, and reordering', async () => {
    const d = diffParams(await params('def f(a, b, c): pass'), await params('def f(b, a, /, *, c): pass'));
    assert.deepEqual(d.map((c) => `${c.kind}:${c.param}`).sort(), ['became-keyword-only:c', 'became-positional-only:a', 'became-positional-only:b', 'reordered:a']);
  });
});

describe('findings explained against a baseline', () => {
  it('explains every finding with the change between the versions', async () => {
    const f = await driftFindings();
    const got = f.map((x) => `${x.range.start.line + 1}:${x.code}:${x.change ?? ''}`);
    assert.deepEqual(got, [
      '2:unknown-import:`cdiv` moved from `drift.utils` to `drift.utils.math_utils`',
      '2:unknown-import:`round_up` moved from `drift.utils` to `drift.utils.math_utils`',
      '5:unknown-module:module `drift.oldio` was removed',
      '9:changed-override:`priority` was added as an optional parameter',
      '14:missing-argument:`block_size` lost its default (it was `16`)',
      '15:unexpected-keyword:keyword `device` was removed',
      '16:missing-argument:`port` became keyword-only',
      '16:too-many-positional:`port` became keyword-only',
      '17:unexpected-keyword:keyword `host` was renamed to `address`',
      '18:deprecated:',
    ]);
    assert.equal(byLine(f, 18).severity, 'hint');
    assert.deepEqual(byLine(f, 18).tags, ['deprecated']);
    assert.match(byLine(f, 18).message, /legacy_start is deprecated; call Engine\.step/);
  });

  it('offers a rename fix only for a safe rename, and the old default for a lost default', async () => {
    const f = await driftFindings();
    const rename = byLine(f, 17);
    assert.equal(rename.fixes[0].title, 'Rename keyword host= to address=');
    assert.ok(applyEdits(TEXT, rename.fixes[0].edits).includes('open_port(address="0.0.0.0")'));
    assert.ok(!byLine(f, 15).fixes.some((x) => x.title.startsWith('Rename')), 'device= is removed, not renamed');
    const insert = byLine(f, 14).fixes[0];
    assert.ok(!insert.snippet);
    assert.ok(applyEdits(TEXT, insert.edits).includes('Engine(model, block_size=16)'));
  });

  it('rewrites a moved import, splitting the line and keeping its comment', async () => {
    const f = await driftFindings();
    const fixed = applyEdits(TEXT, byLine(f, 2).fixes[0].edits);
    assert.ok(fixed.includes('from drift.utils import round_up  # math helpers\nfrom drift.utils.math_utils import cdiv\n'), fixed.split('\n').slice(0, 4).join('\n'));
  });

  it('reports a standard-library module removed between two versions', async () => {
    const engine = await Engine.open({ targets: [stdlibZip('313')], baseline: [stdlibZip('311')] });
    const r = engine.check('import telnetlib\nimport asyncore\nfrom pipes import quote\nimport no_such_module_anywhere\n', 'u.py');
    assert.deepEqual(r.findings.map((x) => `${x.range.start.line + 1}:${x.code}:${x.callee}`), ['1:unknown-module:telnetlib', '2:unknown-module:asyncore', '3:unknown-module:pipes']);
    // without a baseline a module the target never had cannot be told apart: silent
    const plain = await Engine.open({ targets: [stdlibZip('313')] });
    assert.deepEqual(plain.check('import telnetlib\n', 'u.py').findings, []);
  });
});
