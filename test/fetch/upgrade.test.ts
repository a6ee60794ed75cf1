/**
 * `apidrift check --upgrade NAME==VERSION` against a package index on 127.0.0.1: the target is
 * fetched, the baseline is the version installed in the project's environment, the findings say
 * what changed, and a second run makes no request.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { after, before, describe, it } from 'node:test';
import { DIST, FIXTURES } from '../helpers';
import { IndexServer, installInto, wheelOf } from './indexServer';

const CLI = path.join(DIST, 'cli.js');
const V1 = path.join(FIXTURES, 'drift', 'v1');
const V2 = path.join(FIXTURES, 'drift', 'v2');

/** Runs the CLI without blocking this process (the index answers from another process, but the test awaits it). */
function run(args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...process.env, VIRTUAL_ENV: '', PIP_INDEX_URL: '', UV_INDEX_URL: '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

describe('apidrift check --upgrade', () => {
  let tmp: string;
  let project: string;
  let server: IndexServer;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-upgrade-'));
    const files = path.join(tmp, 'files');
    fs.mkdirSync(files);
    fs.writeFileSync(path.join(files, 'drift-1.0-cp312-cp312-manylinux_2_17_x86_64.whl'), wheelOf('drift', '1.0', V1, 200_000));
    fs.writeFileSync(path.join(files, 'drift-2.0-cp312-cp312-manylinux_2_17_x86_64.whl'), wheelOf('drift', '2.0', V2, 600_000));
    server = new IndexServer(files);
    await server.start();
    // a project written for drift 1.0, with 1.0 installed in its .venv
    project = path.join(tmp, 'project');
    fs.mkdirSync(project);
    fs.copyFileSync(path.join(FIXTURES, 'drift', 'user.py'), path.join(project, 'user.py'));
    installInto(path.join(project, '.venv', 'lib', 'python3.12', 'site-packages'), 'drift', '1.0', V1);
    env = { XDG_CACHE_HOME: path.join(tmp, 'cache'), PIP_INDEX_URL: server.url, HOME: tmp };
  });

  after(async () => {
    await server.stop();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('reports the breaks between the installed version and the new one, with what changed; the second run makes no request', async () => {
    await server.configure();
    const r = await run(['check', '--format', 'json', '--upgrade', 'drift==2.0', 'user.py'], project, env);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /^apidrift: baseline: drift 1\.0 \(installed in .*\.venv[\\/]lib[\\/]python3\.12[\\/]site-packages\)$/m);
    const out = JSON.parse(r.stdout) as { diagnostics: Array<{ code: string; param: string | null; message: string }> };
    const messages = out.diagnostics.map((d) => d.message).join('\n');
    assert.match(messages, /keyword `host` was renamed to `address`/);
    assert.match(messages, /`block_size` lost its default/);
    assert.match(messages, /moved from `drift\.utils` to `drift\.utils\.math_utils`/);
    assert.ok(out.diagnostics.some((d) => d.code === 'changed-override'));
    const stats = await server.stats();
    assert.ok(stats.requests.length > 0);
    assert.equal(stats.perFile['drift-1.0-cp312-cp312-manylinux_2_17_x86_64.whl'], undefined, 'the installed version is not fetched');

    await server.configure();
    const again = await run(['check', '--format', 'json', '--upgrade', 'drift==2.0', 'user.py'], project, env);
    assert.equal(again.code, 1, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout).diagnostics, out.diagnostics);
    assert.deepEqual((await server.stats()).requests, []);
  });

  it('takes no baseline when the version asked for is the installed one', async () => {
    await server.configure();
    const r = await run(['check', '--target', 'drift==1.0', 'user.py'], project, env);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.doesNotMatch(r.stderr, /baseline/);
    assert.deepEqual((await server.stats()).requests, []);
  });

  it('fails in one line with exit code 2: an unknown version, nothing installed, no network', async () => {
    await server.configure();
    const unknown = await run(['check', '--upgrade', 'drift==9.0', 'user.py'], project, env);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr.trim().split('\n').pop()!, /^apidrift: no version of drift matches ==9\.0 on http:\/\/127\.0\.0\.1:\d+\/simple\/ \(it has 2\.0, 1\.0\)$/);
    const elsewhere = fs.mkdtempSync(path.join(tmp, 'bare-'));
    fs.copyFileSync(path.join(project, 'user.py'), path.join(elsewhere, 'user.py'));
    const none = await run(['check', '--upgrade', 'drift==2.0', 'user.py'], elsewhere, env);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /^apidrift: --upgrade: drift is not installed in the environment \(\$VIRTUAL_ENV, \.venv or venv\): give --baseline$/m);
    const offline = await run(['check', '--index-url', 'http://127.0.0.1:9/simple/', '--target', 'drift==3.0', 'user.py'], project, { ...env, XDG_CACHE_HOME: path.join(tmp, 'cache-offline') });
    assert.equal(offline.code, 2);
    assert.match(offline.stderr, /^apidrift: cannot reach http:\/\/127\.0\.0\.1:9\/simple\/drift\/: ECONNREFUSED$/m);
  });
});
