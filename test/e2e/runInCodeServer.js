#!/usr/bin/env node
'use strict';
// Runs a VS Code extension test suite (the module given to @vscode/test-electron as
// extensionTestsPath: it exports `run(): Promise<void>`) inside code-server, driven by headless
// chromium. The web workbench loads the extension from source (payload extensionDevelopmentPath),
// runs the suite in code-server's Node extension host, forwards console output through
// window.codeAutomationLog and reports the result through window.codeAutomationExit(code).
//
// Usage:
//   node test/e2e/runInCodeServer.js --extension <dir> --tests <module.js> --workspace <dir>
//        [--open <file>] [--timeout <seconds>] [--enable-extensions] [--keep] [--verbose]
//
//   --extension  extension folder (its package.json); default: current directory
//   --tests      test module; must live inside the extension folder
//   --workspace  folder to open; default: an empty temp folder
//   --workspace-file  a .code-workspace file to open instead (multi-root; code-server still serves --workspace)
//   --open       file to open in an editor at startup (payload openFile)
//   --timeout    overall limit for the suite in seconds (default 300)
//   --enable-extensions  do not pass disableExtensions (other installed extensions stay on)
//   --keep       keep code-server's temp dir (logs, profile) and print its path
//   --verbose    copy code-server's own output to stderr
//   --screenshot <file.png>  save a screenshot of the workbench when the suite ends
//
// Exit code: the one passed to codeAutomationExit (0 = pass), 1 on timeout or any error.
// Environment variables reach the extension host, so the suite can read its own settings.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { startCodeServer, launchBrowser, withTimeout, DEFAULT_TIMEOUT_MS } = require('./codeServer');

function usage(msg) {
  if (msg) console.error(`runInCodeServer: ${msg}`);
  console.error(
    'usage: node test/e2e/runInCodeServer.js --extension <dir> --tests <module.js> --workspace <dir> ' +
      '[--open <file>] [--timeout <s>] [--enable-extensions] [--keep] [--verbose] [--screenshot <png>]',
  );
  process.exit(2);
}

function parseArgs(argv) {
  const o = { extension: process.cwd(), timeout: 300, disableExtensions: true };
  const valued = { '--extension': 'extension', '--tests': 'tests', '--workspace': 'workspace', '--workspace-file': 'workspaceFile', '--open': 'open', '--timeout': 'timeout', '--screenshot': 'screenshot' };
  for (let i = 0; i < argv.length; i++) {
    let a = argv[i];
    let v;
    const eq = a.indexOf('=');
    if (a.startsWith('--') && eq > 0) {
      v = a.slice(eq + 1);
      a = a.slice(0, eq);
    }
    if (valued[a]) {
      if (v === undefined) v = argv[++i];
      if (v === undefined) usage(`${a} needs a value`);
      o[valued[a]] = v;
    } else if (a === '--enable-extensions') o.disableExtensions = false;
    else if (a === '--keep') o.keep = true;
    else if (a === '--verbose') o.verbose = true;
    else if (a === '-h' || a === '--help') usage();
    else usage(`unknown argument ${a}`);
  }
  if (!o.tests) usage('--tests is required');
  o.extension = path.resolve(o.extension);
  o.tests = path.resolve(o.tests);
  if (o.workspace) o.workspace = path.resolve(o.workspace);
  if (o.open) o.open = path.resolve(o.open);
  if (o.workspaceFile) o.workspaceFile = path.resolve(o.workspaceFile);
  if (o.screenshot) o.screenshot = path.resolve(o.screenshot);
  o.timeout = Number(o.timeout);
  if (!(o.timeout > 0)) usage('--timeout must be a positive number of seconds');
  if (!fs.existsSync(path.join(o.extension, 'package.json'))) usage(`no package.json in ${o.extension}`);
  const testsFile = fs.existsSync(o.tests) ? o.tests : ['.js', '.cjs'].map((x) => o.tests + x).find(fs.existsSync);
  if (!testsFile) usage(`test module not found: ${o.tests}`);
  o.tests = testsFile;
  const rel = path.relative(o.extension, o.tests);
  if (rel.startsWith('..') || path.isAbsolute(rel)) {
    // The workbench picks the extension host by the extension that contains the tests.
    usage(`--tests must be inside the extension folder ${o.extension}`);
  }
  if (o.workspace && !fs.existsSync(o.workspace)) usage(`workspace not found: ${o.workspace}`);
  if (o.open && !fs.existsSync(o.open)) usage(`file to open not found: ${o.open}`);
  return o;
}

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const info = (msg) => console.log(`[runInCodeServer ${elapsed()}] ${msg}`);

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let tempWorkspace;
  if (!o.workspace) {
    tempWorkspace = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-e2e-ws-'));
    o.workspace = tempWorkspace;
  }

  let server;
  let browser;
  let finished = false;
  const cleanup = async () => {
    await Promise.allSettled([browser && browser.close(), server && server.stop()]);
    if (tempWorkspace) fs.rmSync(tempWorkspace, { recursive: true, force: true });
  };
  const onSignal = (sig) => {
    if (finished) return; // a second signal while cleaning up is ignored; cleanup is bounded
    finished = true;
    console.error(`[runInCodeServer] ${sig}: shutting down`);
    cleanup().finally(() => process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[sig] || 0)));
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, onSignal);

  let code = 1;
  try {
    server = await startCodeServer({ workspaceDir: o.workspace, verbose: o.verbose, keepRunDir: o.keep });
    info(`code-server on port ${server.port} (ready in ${server.startupMs} ms)${o.keep ? `, run dir ${server.runDir}` : ''}`);
    browser = await launchBrowser();
    const { page } = browser;
    info('chromium started');

    let resolveExit;
    let rejectExit;
    const exitCode = new Promise((res, rej) => {
      resolveExit = res;
      rejectExit = rej;
    });
    await page.exposeFunction('codeAutomationLog', (type, args) => {
      const line = (Array.isArray(args) ? args : [args]).map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');
      (type === 'error' ? process.stderr : process.stdout).write(line + '\n');
    });
    await page.exposeFunction('codeAutomationExit', (c) => resolveExit(Number(c) || 0));
    page.on('pageerror', (e) => console.error(`[runInCodeServer] page error: ${e.message}`));
    page.on('crash', () => rejectExit(new Error('the workbench page crashed')));

    const payload = [
      ['extensionDevelopmentPath', o.extension],
      ['extensionTestsPath', o.tests],
    ];
    if (o.disableExtensions) payload.push(['disableExtensions', 'true']);
    if (o.open) payload.push(['openFile', o.open]);

    const deadline = o.timeout * 1000;
    await page.goto(server.url(payload, o.workspaceFile ? { workspace: o.workspaceFile } : undefined), { timeout: DEFAULT_TIMEOUT_MS });
    info('workbench loading, running tests');
    code = await withTimeout(exitCode, deadline, `tests did not finish within ${o.timeout} s`);
    info(`tests finished with exit code ${code}`);
    if (o.screenshot) await page.screenshot({ path: o.screenshot }).catch(() => {});
  } catch (e) {
    console.error(`[runInCodeServer ${elapsed()}] ERROR: ${e && e.message ? e.message : e}`);
    if (server) console.error(`[runInCodeServer] last code-server output:\n${server.logTail()}`);
    if (o.screenshot && browser) await browser.page.screenshot({ path: o.screenshot }).catch(() => {});
    code = 1;
  } finally {
    if (!finished) {
      finished = true;
      await cleanup();
    }
  }
  info(`done, exit ${code}`);
  process.exit(code);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
