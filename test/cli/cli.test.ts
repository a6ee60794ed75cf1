/** The CLI as users run it: the bundled dist/cli.js, exit codes, text and JSON output. */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, describe, it } from 'node:test';
import { DIST, FIXTURES, ROOT, stdlibZip, tempTree } from '../helpers';

const CLI = path.join(DIST, 'cli.js');
const USER = path.join(FIXTURES, 'stdlib', 'py311_user.py');

// a cache of these runs' own: results another run left in the user's cache would answer instead
const CACHE_HOME = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-cli-test-'));
after(() => fs.rmSync(CACHE_HOME, { recursive: true, force: true }));

function run(args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: { ...process.env, XDG_CACHE_HOME: CACHE_HOME } });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('apidrift check', () => {
  it('exits 1 with findings, one line each, and a summary', () => {
    const r = run(['check', '--target', stdlibZip('312'), path.join(ROOT, 'examples', 'stdlib311_user.py')]);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.match(lines[0], /stdlib311_user\.py:\d+:\d+: error \[unknown-import\] .*SafeConfigParser/);
    assert.match(lines[lines.length - 1], /^5 findings in 1 file \(\d+ calls checked, \d+ unknown, \d+ untraced, \d+ target modules read, \d+ ms\)$/);
  });

  it('exits 0 when the code binds', () => {
    const r = run(['check', '--target', stdlibZip('311'), USER]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    // two deprecation hints, which inform but do not fail the run
    assert.match(r.stdout, /hint \[deprecated\]/);
    assert.match(r.stdout, /^2 findings in 1 file/m);
  });

  it('prints the documented JSON object', () => {
    const r = run(['check', '--format', 'json', '--target', stdlibZip('314'), USER]);
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(out.version, 1);
    assert.deepEqual(Object.keys(out.stats).sort(), ['callsChecked', 'callsUnknown', 'callsUntraced', 'files', 'ms', 'skipped', 'targetErrors', 'targetModulesRead']);
    assert.equal(out.stats.files, 1);
    assert.ok(out.stats.callsChecked > 0 && out.stats.targetModulesRead > 0);
    const kw = out.diagnostics.find((d: { code: string; param: string }) => d.code === 'unexpected-keyword' && d.param === 'isdst');
    assert.ok(kw, 'the isdst keyword finding is present');
    assert.deepEqual(Object.keys(kw).sort(), ['callee', 'code', 'definition', 'file', 'fixes', 'message', 'param', 'range', 'severity']);
    assert.equal(kw.severity, 'error');
    assert.equal(kw.callee, 'email.utils.localtime');
    assert.deepEqual(Object.keys(kw.range.start), ['line', 'character']);
    assert.equal(kw.fixes.length, 1);
    assert.match(kw.fixes[0].title, /Remove argument isdst/);
    assert.equal(kw.definition.file.endsWith('email/utils.py'), true);
    for (const d of out.diagnostics) assert.ok(['error', 'warning', 'information', 'hint'].includes(d.severity));
  });

  it('recurses into folders and checks only Python files', () => {
    const dir = tempTree({ 'a.py': 'import configparser\nconfigparser.SafeConfigParser()\n', 'sub/b.py': 'import imaplib\n', 'notes.txt': 'configparser.SafeConfigParser()' });
    try {
      const r = run(['check', '--format', 'json', '--target', stdlibZip('312'), dir]);
      const out = JSON.parse(r.stdout);
      assert.equal(out.stats.files, 2);
      assert.deepEqual(out.diagnostics.map((d: { code: string }) => d.code), ['unknown-attribute']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('warns when a target folder is itself a package: the code imports it from the folder above', () => {
    const dir = tempTree({ 'lib/__init__.py': '', 'lib/core.py': 'def run(n):\n    return n\n', 'user.py': 'from lib.core import run\nrun(1, 2)\n' });
    try {
      const inside = run(['check', '--target', path.join(dir, 'lib'), path.join(dir, 'user.py')]);
      assert.equal(inside.code, 0, inside.stderr);
      assert.match(inside.stderr, new RegExp(`^apidrift: .*lib is itself a package \\(it has __init__\\.py\\): imports of \`lib\` .* do not reach it.*; give the folder that contains it \\(${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\)$`, 'm'));
      // the folder above: the call is checked, and no warning
      const above = run(['check', '--target', dir, path.join(dir, 'user.py')]);
      assert.equal(above.code, 1, above.stderr);
      assert.match(above.stdout, /too-many-positional/);
      assert.doesNotMatch(above.stderr, /is itself a package/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const [what, args, message] of [
    ['a missing target', ['check', '--target', '/nonexistent/site-packages', USER], /target path does not exist: \/nonexistent\/site-packages/],
    ['a target file that is no archive', ['check', '--target', USER, USER], /not a \.whl or \.zip archive/],
    ['no target', ['check', USER], /at least one --target is required/],
    ['no files', ['check', '--target', stdlibZip('311')], /no files to check/],
    ['an unknown option', ['check', '--bogus', '--target', stdlibZip('311'), USER], /unknown option '--bogus'/],
    ['a missing file', ['check', '--target', stdlibZip('311'), '/nonexistent.py'], /no such file or folder/],
    ['an unknown command', ['lint'], /unknown command 'lint'/],
  ] as const) {
    it(`exits 2 with one line on stderr for ${what}`, () => {
      const r = run([...args]);
      assert.equal(r.code, 2);
      assert.match(r.stderr.split('\n')[0], message);
      assert.equal(r.stdout, '');
    });
  }

  it('exits 2 for a corrupt archive', () => {
    const dir = tempTree({ 'broken.zip': 'PK\u0003\u0004 this is not really a zip file' });
    try {
      const r = run(['check', '--target', path.join(dir, 'broken.zip'), USER]);
      assert.equal(r.code, 2);
      assert.match(r.stderr, /corrupt or truncated/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('--list-calls lists every call into the target with its status and reason (JSON and text)', () => {
    const user = path.join(FIXTURES, 'receivers', 'user.py');
    const target = path.join(FIXTURES, 'receivers', 'v2');
    const r = run(['check', '--format', 'json', '--list-calls', '--target', target, user]);
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout);
    const byStatus = (s: string): Array<{ reason: string | null }> => out.calls.filter((c: { status: string }) => c.status === s);
    assert.equal(byStatus('checked').length, out.stats.callsChecked);
    assert.equal(byStatus('unknown').length, out.stats.callsUnknown);
    assert.equal(byStatus('untraced').length, out.stats.callsUntraced);
    assert.ok(out.stats.callsUntraced > 0 && out.stats.callsUnknown > 0);
    for (const c of [...byStatus('unknown'), ...byStatus('untraced')]) assert.ok(c.reason, JSON.stringify(c));
    for (const c of out.calls) assert.deepEqual(Object.keys(c).sort(), ['callee', 'file', 'range', 'reason', 'status']);
    const text = run(['check', '--list-calls', '--target', target, user]);
    assert.match(text.stdout, /user\.py:\d+:\d+: unknown rlib\.runner\.HelperA\.help \(it may hold an instance of HelperA or HelperB, whose help bind the call differently\)/);
    assert.match(text.stdout, /user\.py:\d+:\d+: checked rlib\.runner\.Scheduler\.schedule\n/);
  });
});

describe('apidrift check --target-version', () => {
  it('decides the version tests of a source checkout that does not say its version; refuses a value that is no PACKAGE=VERSION', () => {
    const target = tempTree({
      'lib/__init__.py': 'try:\n    from ._version import __version__\nexcept ImportError:\n    __version__ = "dev"\n',
      'lib/engine.py': 'def start(config, block_size):\n    return config\n',
    });
    const user = path.join(tempTree({ 'user.py': 'import lib\nfrom packaging.version import Version\nfrom lib.engine import start\n\nif Version(lib.__version__) >= Version("2.0"):\n    start(1)\nelse:\n    start()\n' }), 'user.py');
    const plain = run(['check', '--no-cache', '--target', target, user]);
    assert.equal(plain.code, 0, plain.stderr);
    const stated = run(['check', '--no-cache', '--target', target, '--target-version', 'lib=2.0.0', user]);
    assert.equal(stated.code, 1, stated.stderr);
    assert.match(stated.stdout, /user\.py:6:5: error \[missing-argument\]/);
    assert.doesNotMatch(stated.stdout, /user\.py:8:/);
    const older = run(['check', '--no-cache', '--target', target, '--target-version=lib=1.5', user]);
    assert.match(older.stdout, /user\.py:8:5: error \[missing-argument\]/);
    assert.doesNotMatch(older.stdout, /user\.py:6:/);
    const bad = run(['check', '--target', target, '--target-version', 'lib', user]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--target-version needs PACKAGE=VERSION/);
  });
});
