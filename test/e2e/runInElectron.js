#!/usr/bin/env node
'use strict';
// Runs the same extension test suite as runInCodeServer.js, in desktop VS Code (Electron)
// through @vscode/test-electron.
//
// Usage:
//   node test/e2e/runInElectron.js --extension <dir> --tests <module.js> --workspace <dir>
//
// VSCODE_EXECUTABLE=/path/to/code   use this VS Code build instead of downloading one
// VSCODE_VERSION=1.100.3            version to download when VSCODE_EXECUTABLE is not set
//                                   (default: latest stable)
// On a Linux machine without a display, run it under xvfb-run.
//
// Exit code: VS Code's exit code (0 = all tests passed), 1 on any other error.
// @vscode/test-electron keeps the VS Code download and the profile (user-data, extensions) in
// ./.vscode-test under the current directory.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { runTests } = require('@vscode/test-electron');

function usage(msg) {
  if (msg) console.error(`runInElectron: ${msg}`);
  console.error('usage: node test/e2e/runInElectron.js --extension <dir> --tests <module.js> --workspace <dir>');
  process.exit(2);
}

function parseArgs(argv) {
  const o = { extension: process.cwd() };
  const valued = { '--extension': 'extension', '--tests': 'tests', '--workspace': 'workspace' };
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
    } else if (a === '-h' || a === '--help') usage();
    else usage(`unknown argument ${a}`);
  }
  if (!o.tests) usage('--tests is required');
  o.extension = path.resolve(o.extension);
  o.tests = path.resolve(o.tests);
  if (o.workspace) o.workspace = path.resolve(o.workspace);
  if (!fs.existsSync(path.join(o.extension, 'package.json'))) usage(`no package.json in ${o.extension}`);
  if (o.workspace && !fs.existsSync(o.workspace)) usage(`workspace not found: ${o.workspace}`);
  return o;
}

async function main() {
  const o = parseArgs(process.argv.slice(2));
  let tempWorkspace;
  if (!o.workspace) {
    tempWorkspace = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-e2e-ws-'));
    o.workspace = tempWorkspace;
  }
  const options = {
    extensionDevelopmentPath: o.extension,
    extensionTestsPath: o.tests,
    launchArgs: [o.workspace, '--disable-extensions'],
  };
  if (process.env.VSCODE_EXECUTABLE) options.vscodeExecutablePath = process.env.VSCODE_EXECUTABLE;
  else if (process.env.VSCODE_VERSION) options.version = process.env.VSCODE_VERSION;

  try {
    const code = await runTests(options);
    return code;
  } catch (e) {
    // runTests rejects with TestRunFailedError when VS Code exits non-zero.
    console.error(`runInElectron: ${e && e.message ? e.message : e}`);
    return e && Number.isInteger(e.code) && e.code > 0 ? e.code : 1;
  } finally {
    if (tempWorkspace) fs.rmSync(tempWorkspace, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code || 0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
