/**
 * Bad targets: a missing path, a file where a folder is expected, corrupt and truncated archives.
 * The CLI exits 2 with one line on stderr and nothing on stdout; the server reports an `error`
 * status with the reason and logs it, and never claims `ready` for such a target.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'url';
import { ROOT, stdlibZip } from '../helpers';
import { TestClient } from '../server/lspClient';
import { isAlive, removeTree, runCli, sleep, tempDir, VLLM, VLLM_TEXT, VLLM_USER } from './util';

let dir: string;
const bad: Array<{ what: string; target: string; reason: RegExp }> = [];
let damaged: string;

before(() => {
  dir = tempDir('targets');
  const zip = fs.readFileSync(stdlibZip('314'));
  const put = (name: string, bytes: Buffer | string): string => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, bytes);
    return p;
  };
  bad.push({ what: 'a missing path', target: path.join(dir, 'no', 'such', 'site-packages'), reason: /target path does not exist/ });
  fs.mkdirSync(path.join(dir, 'empty'));
  fs.mkdirSync(path.join(dir, 'docs-only'));
  fs.writeFileSync(path.join(dir, 'docs-only', 'README.md'), 'no modules here\n');
  bad.push({ what: 'an empty folder (nothing would be checked)', target: path.join(dir, 'empty'), reason: /holds no Python module or package/ });
  bad.push({ what: 'a folder of no Python files', target: path.join(dir, 'docs-only'), reason: /holds no Python module or package/ });
  bad.push({ what: 'a .py file where a folder is expected', target: put('module.py', 'def f():\n    pass\n'), reason: /not a \.whl or \.zip archive/ });
  bad.push({ what: 'a text file where a folder is expected', target: put('notes.txt', 'hello'), reason: /not a \.whl or \.zip archive/ });
  bad.push({ what: 'a corrupt zip (random bytes)', target: put('random.zip', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251))), reason: /corrupt or truncated/ });
  bad.push({ what: 'an empty zip file', target: put('empty.zip', Buffer.alloc(0)), reason: /corrupt or truncated/ });
  bad.push({ what: 'a zip cut in half', target: put('half.zip', zip.subarray(0, Math.floor(zip.length / 2))), reason: /corrupt or truncated/ });
  bad.push({ what: 'a zip missing its last 10 bytes', target: put('cut10.zip', zip.subarray(0, zip.length - 10)), reason: /corrupt or truncated/ });
  bad.push({ what: 'a wheel that is a corrupt zip', target: put('pkg-1.0-py3-none-any.whl', 'PK\u0003\u0004 not really'), reason: /corrupt or truncated/ });
  // central directory intact, one member's compressed bytes overwritten: found only when read
  const copy = Buffer.from(zip);
  const member = findMember(copy, 'email/utils.py');
  copy.fill(0xff, member.dataStart + 10, member.dataStart + 210);
  damaged = put('damaged.zip', copy);
});
after(() => removeTree(dir));

/** The data offset of a member, from the central directory. */
function findMember(d: Buffer, name: string): { dataStart: number } {
  let eocd = -1;
  for (let i = d.length - 22; i >= 0; i--) if (d.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  let p = d.readUInt32LE(eocd + 16);
  const count = d.readUInt16LE(eocd + 10);
  for (let n = 0; n < count; n++) {
    const nameLen = d.readUInt16LE(p + 28);
    const extraLen = d.readUInt16LE(p + 30);
    const commentLen = d.readUInt16LE(p + 32);
    const local = d.readUInt32LE(p + 42);
    if (d.toString('utf8', p + 46, p + 46 + nameLen) === name) return { dataStart: local + 30 + d.readUInt16LE(local + 26) + d.readUInt16LE(local + 28) };
    p += 46 + nameLen + extraLen + commentLen;
  }
  throw new Error(`${name} not in the archive`);
}

describe('bad targets on the command line', () => {
  it('exit 2, one line on stderr, nothing on stdout', { timeout: 120_000 }, () => {
    const user = path.join(ROOT, 'examples', 'stdlib311_user.py');
    const rows: string[] = [];
    const problems: string[] = [];
    for (const { what, target, reason } of bad) {
      for (const args of [['check', '--target', target, user], ['check', '--target', stdlibZip('312'), '--target', target, user]]) {
        const r = runCli(args, 30_000);
        const lines = r.stderr.split('\n').filter((l) => l !== '');
        const label = `${what}${args.length > 4 ? ' (second of two targets)' : ''}`;
        rows.push(`${label}: exit ${r.code}, ${lines.length} stderr line(s): ${lines[0] ?? ''}`);
        if (r.timedOut) problems.push(`${label}: hung`);
        else if (r.code !== 2) problems.push(`${label}: exit ${r.code}`);
        else if (lines.length !== 1) problems.push(`${label}: ${lines.length} lines on stderr`);
        else if (!reason.test(lines[0]) || !lines[0].startsWith('apidrift: ')) problems.push(`${label}: unexpected message ${lines[0]}`);
        else if (r.stdout !== '') problems.push(`${label}: stdout not empty`);
      }
    }
    console.log(rows.join('\n'));
    assert.deepEqual(problems, []);
  });

  it('a zip whose member is damaged: the member is named on stderr and the run does not pass as clean', { timeout: 60_000 }, () => {
    const user = path.join(dir, 'uses_email_utils.py');
    fs.writeFileSync(user, 'from email.utils import localtime\nlocaltime(1, isdst=-1)\n');
    const r = runCli(['check', '--target', damaged, user], 30_000);
    console.log(`damaged member: exit ${r.code}; stdout: ${r.stdout.trim()}; stderr: ${r.stderr.trim() || '(empty)'}`);
    assert.ok(!r.timedOut);
    assert.doesNotMatch(r.stderr, /internal error/);
    assert.match(r.stderr, /email[/.]utils/, 'stderr names the member that could not be read');
    assert.equal(r.code, 2, 'a target that cannot be read is a target error, not "0 findings"');
  });
});

describe('bad targets in the language server', () => {
  const docUri = pathToFileURL(path.join(ROOT, 'test', 'fixtures', 'virtual', 'robust_user.py')).href;

  it('starting with a bad target: error status with the reason, a log line, never ready', { timeout: 120_000 }, async () => {
    const rows: string[] = [];
    for (const { what, target, reason } of bad.slice(0, 4).concat(bad.slice(5, 6))) {
      const client = new TestClient({ targets: [target] });
      try {
        await client.initialize(ROOT);
        const st = await client.waitFor(`error status for ${what}`, () => client.statuses.find((s) => s.state === 'error'), 30_000);
        assert.match(st.message, reason, what);
        assert.deepEqual(st.targets, [target]);
        await client.waitFor(`log line for ${what}`, () => client.logs.find((l) => l.includes('target error') && reason.test(l)), 10_000);
        client.open(docUri, VLLM_TEXT, 1);
        const diags = await client.diagnosticsFor(docUri, 1);
        assert.ok(!client.statuses.some((s) => s.state === 'ready'), `${what}: a ready status was sent`);
        rows.push(`${what}: status error "${st.message}", ${diags.length} diagnostics published for the open file`);
      } finally {
        await client.shutdown();
      }
    }
    console.log(rows.join('\n'));
  });

  it('switching to each bad target and back: error each time, ready only for good targets', { timeout: 120_000 }, async () => {
    const good = path.join(VLLM, 'new');
    const client = new TestClient({ targets: [good] });
    const uri = pathToFileURL(VLLM_USER).href;
    try {
      await client.initialize(ROOT);
      client.open(uri, VLLM_TEXT, 1);
      assert.equal((await client.diagnosticsFor(uri, 1)).length, 3);
      let version = 1;
      for (const { what, target, reason } of bad) {
        const from = client.statuses.length;
        client.changeSettings({ targets: [target] });
        const st = await client.waitFor(`error status for ${what}`, () => client.statuses.slice(from).find((s) => s.state === 'error' || s.state === 'ready'), 30_000);
        assert.equal(st.state, 'error', `${what}: ${st.message}`);
        assert.match(st.message, reason);
        await client.waitFor(`log for ${what}`, () => client.logs.find((l) => l.includes(`target error: ${st.message}`)), 10_000);
        // the findings of the previous target must not stay on screen as if still valid
        client.change(uri, ++version, [{ text: VLLM_TEXT + `\n# edit ${version}\n` }]);
        const d = await client.diagnosticsFor(uri, version);
        assert.equal(d.length, 0, `${what}: diagnostics for a target that is not there`);
        // and back to a good target
        const back = client.statuses.length;
        client.changeSettings({ targets: [good] });
        await client.waitFor('ready again', () => client.statuses.slice(back).find((s) => s.state === 'ready'), 30_000);
        client.change(uri, ++version, [{ text: VLLM_TEXT }]);
        assert.equal((await client.diagnosticsFor(uri, version)).length, 3, `${what}: checks again after switching back`);
      }
      const readyForBad = client.statuses.filter((s) => s.state === 'ready' && bad.some((b) => s.targets.includes(b.target)));
      console.log(`${bad.length} bad targets switched to and back: ${client.statuses.length} statuses (${client.statuses.filter((s) => s.state === 'error').length} error), ready for a bad target: ${readyForBad.length}`);
      assert.deepEqual(readyForBad, []);
    } finally {
      await client.shutdown();
    }
  });

  it('a target folder deleted while the server runs: recheck reports the error', { timeout: 60_000 }, async () => {
    const copy = path.join(dir, 'vllm-copy');
    fs.cpSync(path.join(VLLM, 'new'), copy, { recursive: true });
    const client = new TestClient({ targets: [copy] });
    const uri = pathToFileURL(VLLM_USER).href;
    try {
      await client.initialize(ROOT);
      client.open(uri, VLLM_TEXT, 1);
      assert.equal((await client.diagnosticsFor(uri, 1)).length, 3);
      fs.rmSync(copy, { recursive: true, force: true });
      const from = client.statuses.length;
      const answer = (await client.conn.sendRequest('apidrift/recheck')) as { state: string };
      const st = await client.waitFor('error after recheck', () => client.statuses.slice(from).find((s) => s.state === 'error'), 20_000);
      console.log(`target deleted, recheck answered ${JSON.stringify(answer)}, status: ${st.state} "${st.message}"`);
      assert.equal(answer.state, 'error');
      assert.match(st.message, /target path does not exist/);
    } finally {
      await client.shutdown();
    }
  });

  it('a target folder with a symlink loop, a dangling link and a FIFO: ready, checks, and keeps watching', { timeout: 60_000 }, async () => {
    const copy = path.join(dir, 'vllm-loopy');
    fs.cpSync(path.join(VLLM, 'new'), copy, { recursive: true });
    fs.symlinkSync('..', path.join(copy, 'vllm', 'loop')); // a folder link to its parent
    fs.symlinkSync('.', path.join(copy, 'vllm', 'v1', 'self'));
    fs.symlinkSync(path.join(copy, 'nowhere'), path.join(copy, 'vllm', 'dangling.py'));
    spawnSync('mkfifo', [path.join(copy, 'vllm', 'pipe.py')]);
    const client = new TestClient({ targets: [copy] });
    const uri = pathToFileURL(VLLM_USER).href;
    try {
      const t0 = Date.now();
      await client.initialize(ROOT);
      const st = await client.waitFor('a status', () => client.statuses.find((s) => s.state === 'ready' || s.state === 'error'), 30_000);
      client.open(uri, VLLM_TEXT, 1);
      const diags = await client.diagnosticsFor(uri, 1);
      // a change on disk under the loop is noticed without the watcher running away
      fs.writeFileSync(path.join(copy, 'vllm', 'touched.py'), 'x = 1\n');
      await sleep(1500);
      const alive = isAlive(client.proc.pid!);
      console.log(`loopy target: ${st.state} after ${Date.now() - t0} ms, ${diags.length} diagnostics, server alive after a change on disk: ${alive}; errors: ${client.logs.filter((l) => /error/i.test(l)).length}`);
      assert.equal(st.state, 'ready');
      assert.equal(diags.length, 3);
      assert.ok(alive);
      assert.ok(!client.logs.some((l) => /uncaught error/.test(l)), client.logs.filter((l) => /uncaught/.test(l)).join('\n'));
    } finally {
      await client.shutdown();
    }
  });

  it('a damaged archive member: error status naming it once a check needs it, and a log line', { timeout: 60_000 }, async () => {
    const client = new TestClient({ targets: [damaged] });
    const uri = pathToFileURL(path.join(dir, 'damaged_user.py')).href;
    try {
      await client.initialize(ROOT);
      await client.waitFor('first status', () => client.statuses.find((s) => s.state === 'ready' || s.state === 'error'), 30_000);
      client.open(uri, 'from email.utils import localtime\nlocaltime(1, isdst=-1)\n', 1);
      const diags = await client.diagnosticsFor(uri, 1);
      const log = await client.waitFor('log naming the member', () => client.logs.find((l) => /email\.utils|email\/utils/.test(l)), 10_000).catch(() => undefined);
      const st = client.statuses[client.statuses.length - 1];
      console.log(`damaged member in the server: ${diags.length} diagnostics, last status ${st.state} "${st.message}", log: ${log ?? '(none)'}`);
      assert.ok(log, 'a log line names the member');
      assert.equal(st.state, 'error', 'the status says the target is damaged instead of ready');
      assert.match(st.message, /email\/utils\.py|email\.utils/);
    } finally {
      await client.shutdown();
    }
  });
});
