/**
 * Calm typing over JSON-RPC: findings that are new on the statement being typed wait for a pause
 * in typing; findings elsewhere and findings already shown update at once. The pause is set long
 * (APIDRIFT_TYPING_PAUSE_MS) so that "at once" and "after the pause" are told apart by the order
 * of publications, not by timing.
 */
import * as assert from 'node:assert/strict';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { ROOT, stdlibZip, tempTree } from '../helpers';
import { type Diagnostic, TestClient } from './lspClient';
import { editedRegion, toWithhold } from '../../server/src/lsp/typingPause';

const brief = (ds: Diagnostic[]): string[] => ds.map((d) => `${d.range.start.line}:${d.code}`).sort();

describe('typing pause (unit)', () => {
  it('finds the changed region of two texts', () => {
    assert.deepEqual(editedRegion('f()\n', 'f(a)\n'), { start: 2, oldEnd: 2, newEnd: 3 });
    assert.deepEqual(editedRegion('aa', 'aaa'), { start: 2, oldEnd: 2, newEnd: 3 });
    assert.equal(editedRegion('x', 'x'), undefined);
  });

  it('holds back only findings new on the edited lines', () => {
    const r = (line: number, a: number, b: number) => ({ start: { line, character: a }, end: { line, character: b } });
    const old = 'x = f()\ny = 1\n';
    const now = 'x = f()\ny = g(\n';
    // f's finding was shown (code missing-argument at offset 4); g's is new on the edited line
    const shown = { text: old, keys: new Set(['missing-argument@4']) };
    const { held } = toWithhold(shown, now, [
      { code: 'missing-argument', range: r(0, 4, 5) },
      { code: 'missing-argument', range: r(1, 4, 5) },
    ]);
    assert.deepEqual(held, [false, true]);
    // the same finding, shown before, moved down by an inserted line
    const moved = toWithhold({ text: 'y = g()\n', keys: new Set(['missing-argument@4']) }, '\ny = g()\n', [{ code: 'missing-argument', range: r(1, 4, 5) }]);
    assert.deepEqual(moved.held, [false]);
    // another code at the same place is new
    assert.deepEqual(toWithhold({ text: 'y = g()\n', keys: new Set(['missing-argument@4']) }, 'y = g(1, 2, 3)\n', [{ code: 'too-many-positional', range: r(0, 4, 5) }]).held, [true]);
    // typing over a closing bracket leaves the text as it was: the lines typed before still count
    const typed = toWithhold({ text: 'y = g()\n', keys: new Set(), edited: [0, 0] }, 'y = g()\n', [{ code: 'missing-argument', range: r(0, 4, 5) }]);
    assert.deepEqual(typed.held, [true]);
    // a paste is not typing
    assert.deepEqual(toWithhold({ text: '', keys: new Set() }, 'y = g()\n'.repeat(40), [{ code: 'missing-argument', range: r(0, 4, 5) }]).held, [false]);
  });
});

describe('typing pause (language server)', () => {
  let client: TestClient;
  const uri = pathToFileURL(path.join(ROOT, 'test', 'fixtures', 'virtual', 'typing.py')).href;
  const published = (version: number) => client.published.filter((p) => p.uri === uri && p.version === version).map((p) => brief(p.diagnostics));

  before(async () => {
    client = new TestClient({ targets: [stdlibZip('314')] }, { APIDRIFT_TYPING_PAUSE_MS: '4000' });
    // an empty workspace: no other file's classes arrive (and re-check the document) meanwhile
    await client.initialize(tempTree({}));
  });
  after(async () => client.shutdown());

  it('shows a finding new on the typed statement only after the pause, and one elsewhere at once', async () => {
    client.open(uri, 'from textwrap import dedent\nz = dedent(1, 2)\n', 1);
    assert.deepEqual(brief(await client.diagnosticsFor(uri, 1)), ['1:too-many-positional']);
    // a call typed on a new line (the editor closed the bracket): dedent() misses its argument
    client.change(uri, 2, [{ range: { start: { line: 2, character: 0 }, end: { line: 2, character: 0 } }, text: 'y = dedent()\n' }]);
    await client.waitFor('the second publication of v2', () => published(2).length >= 2);
    const [first, second] = published(2);
    // at once: the finding elsewhere stays, the new one on the typed line waits ...
    assert.deepEqual(first, ['1:too-many-positional']);
    // ... and comes after the pause
    assert.deepEqual(second, ['1:too-many-positional', '2:missing-argument']);
  });

  it('updates a finding that was already shown at once, even on the typed statement', async () => {
    // more arguments on line 1: still too many positional, at the same place
    client.change(uri, 3, [{ range: { start: { line: 1, character: 15 }, end: { line: 1, character: 15 } }, text: ', 3' }]);
    await client.waitFor('v3', () => published(3).length >= 1);
    assert.deepEqual(published(3)[0], ['1:too-many-positional', '2:missing-argument']);
    const msg = client.published.filter((p) => p.uri === uri && p.version === 3)[0].diagnostics.find((d) => d.range.start.line === 1)!.message;
    assert.match(msg, /3 were given/);
  });

  it('a finding that goes away goes at once', async () => {
    client.change(uri, 4, [{ range: { start: { line: 2, character: 11 }, end: { line: 2, character: 11 } }, text: '"x"' }]);
    await client.waitFor('v4', () => published(4).length >= 1);
    assert.deepEqual(published(4)[0], ['1:too-many-positional']);
  });
});
