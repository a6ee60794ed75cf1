/**
 * End-to-end tests in a real VS Code (code-server 4.100.3 in headless chromium):
 *   1. the integration suite (test/e2e/suite/index.js) in the extension host, through runInCodeServer.js;
 *   2. the browser-driven UI test (test/e2e/ui.js).
 * Both need what .ci/install-e2e.sh installs; without it these tests FAIL (they never skip).
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { after, describe, it } from 'node:test';

/** The repository root: this file runs as out/test/e2e/integration.test.js. */
const ROOT = path.resolve(__dirname, '..', '..', '..');
const E2E = path.join(ROOT, 'test', 'e2e');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'vllm');
const RUN_TIMEOUT_MS = 4 * 60_000; // per launcher process
const TEST_TIMEOUT_MS = 5 * 60_000;

interface Workspace {
  dir: string;
  file: string;
  cleanup(): void;
}
// Plain CommonJS helpers next to the launchers (not compiled: loaded from the source tree).
const { createWorkspace } = require(path.join(E2E, 'workspace.js')) as { createWorkspace(o?: { version?: string; prefix?: string }): Workspace };
const codeServer = require(path.join(E2E, 'codeServer.js')) as {
  e2eHome(): string;
  codeServerEntry(): string;
  loadPlaywright(): unknown;
  chromiumPath(): string;
};

/** Throws a clear error when code-server, playwright-core or chromium is missing. */
function checkInstalled(): void {
  try {
    codeServer.codeServerEntry();
    codeServer.loadPlaywright();
    codeServer.chromiumPath();
  } catch (e) {
    assert.fail(
      `The end-to-end tests need code-server, playwright-core and chromium: run .ci/install-e2e.sh ` +
        `(installs into ${codeServer.e2eHome()}).\n${(e as Error).message}`,
    );
  }
  assert.ok(fs.existsSync(path.join(ROOT, 'dist', 'client.js')), 'dist/client.js is missing: run npm run build');
}

/** Runs `node <args>` from the repository root, echoing its output; resolves with exit code and output. */
function runNode(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; signal: string | null; output: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      process.stdout.write(chunk);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    let timedOut = false;
    // SIGTERM lets the launcher stop its code-server and chromium; SIGKILL if that hangs.
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 20_000).unref();
    }, RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (timedOut) output += `\n[integration.test] killed after ${RUN_TIMEOUT_MS / 1000} s\n`;
      resolve({ code, signal, output, ms: Date.now() - started });
    });
  });
}

describe('end-to-end in code-server', { timeout: 2 * TEST_TIMEOUT_MS }, () => {
  let ws: Workspace | undefined;

  after(() => {
    ws?.cleanup();
    if (ws) assert.ok(!fs.existsSync(ws.dir), `workspace ${ws.dir} was not removed`);
  });

  it('runs the integration suite in the extension host (runInCodeServer.js)', { timeout: TEST_TIMEOUT_MS }, async () => {
    checkInstalled();
    ws = createWorkspace({ version: 'new', prefix: 'apidrift-e2e-suite-' });
    const r = await runNode(
      [
        path.join(E2E, 'runInCodeServer.js'),
        '--extension', ROOT,
        '--tests', path.join(E2E, 'suite', 'index.js'),
        '--workspace', ws.dir,
      ],
      { APIDRIFT_E2E_FIXTURES: FIXTURES },
    );
    console.log(`[integration.test] runInCodeServer.js: exit ${r.code}${r.signal ? ` (${r.signal})` : ''} in ${(r.ms / 1000).toFixed(1)} s`);
    assert.equal(r.code, 0, `runInCodeServer.js failed (exit ${r.code}, signal ${r.signal}); its output is above`);
    assert.match(r.output, /\[apidrift e2e\] ALL PASSED/);
    assert.doesNotMatch(r.output, /\[apidrift e2e\] FAIL /);
    // The suite puts the workspace back as it found it.
    const settings = JSON.parse(fs.readFileSync(path.join(ws.dir, '.vscode', 'settings.json'), 'utf8'));
    assert.deepEqual(settings['apidrift.targets'], [path.join(FIXTURES, 'new')]);
    assert.equal(fs.readFileSync(ws.file, 'utf8'), fs.readFileSync(path.join(FIXTURES, 'user', 'hidden_states_generator.py'), 'utf8'));
  });

  it('runs the multi-root suite: two folders, two targets, workspace mode, a notebook (suite/multiroot.js)', { timeout: TEST_TIMEOUT_MS }, async () => {
    checkInstalled();
    const { createMultiRootWorkspace } = require(path.join(E2E, 'workspaceMulti.js')) as { createMultiRootWorkspace(): { dir: string; workspaceFile: string; cleanup(): void } };
    const multi = createMultiRootWorkspace();
    try {
      const r = await runNode(
        [path.join(E2E, 'runInCodeServer.js'), '--extension', ROOT, '--tests', path.join(E2E, 'suite', 'multiroot.js'), '--workspace', multi.dir, '--workspace-file', multi.workspaceFile],
        { APIDRIFT_E2E_FIXTURES: FIXTURES },
      );
      console.log(`[integration.test] multiroot: exit ${r.code}${r.signal ? ` (${r.signal})` : ''} in ${(r.ms / 1000).toFixed(1)} s`);
      assert.equal(r.code, 0, `the multi-root suite failed (exit ${r.code}); its output is above`);
      assert.match(r.output, /\[apidrift e2e multiroot\] ALL PASSED/);
    } finally {
      multi.cleanup();
    }
  });

  it('shows no flicker while a call is typed, frame by frame (typing.js)', { timeout: TEST_TIMEOUT_MS }, async () => {
    checkInstalled();
    const r = await runNode([path.join(E2E, 'typing.js')]);
    console.log(`[integration.test] typing.js: exit ${r.code}${r.signal ? ` (${r.signal})` : ''} in ${(r.ms / 1000).toFixed(1)} s`);
    assert.equal(r.code, 0, `typing.js failed (exit ${r.code}); its output is above, screenshots in test-artifacts/e2e/`);
    assert.match(r.output, /\[typing [\d.]+s\] PASS/);
  });

  it('passes the browser-driven UI test (ui.js)', { timeout: TEST_TIMEOUT_MS }, async () => {
    checkInstalled();
    // --no-readme-screenshot: `npm test` must not rewrite the committed media/quick-fix.png.
    const r = await runNode([path.join(E2E, 'ui.js'), '--no-readme-screenshot']);
    console.log(`[integration.test] ui.js: exit ${r.code}${r.signal ? ` (${r.signal})` : ''} in ${(r.ms / 1000).toFixed(1)} s`);
    assert.equal(r.code, 0, `ui.js failed (exit ${r.code}, signal ${r.signal}); its output is above, screenshots in test-artifacts/e2e/`);
    assert.match(r.output, /\[ui [\d.]+s\] PASS/);
  });

  it('installs the packaged .vsix and uses an auto-detected .venv (vsix.js)', { timeout: TEST_TIMEOUT_MS }, async () => {
    checkInstalled();
    // --no-readme-screenshot: `npm test` must not rewrite the committed pictures in media/.
    const r = await runNode([path.join(E2E, 'vsix.js'), '--no-readme-screenshot']);
    console.log(`[integration.test] vsix.js: exit ${r.code}${r.signal ? ` (${r.signal})` : ''} in ${(r.ms / 1000).toFixed(1)} s`);
    assert.equal(r.code, 0, `vsix.js failed (exit ${r.code}, signal ${r.signal}); its output is above, screenshots in test-artifacts/e2e/`);
    assert.match(r.output, /\[vsix [\d.]+s\] PASS/);
  });
});
