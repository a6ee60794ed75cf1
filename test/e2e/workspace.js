'use strict';
// Builds the fresh workspace the end-to-end tests open: a temp folder holding a copy of the vllm
// user file and a .vscode/settings.json whose apidrift.targets is the ABSOLUTE path of one of the
// fixture versions (test/fixtures/vllm/{old,new,nightly}).
//
// Used by test/e2e/ui.js and test/e2e/integration.test.ts. Plain CommonJS, no dependencies.

const fs = require('fs');
const os = require('os');
const path = require('path');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const VLLM_FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'vllm');
const USER_FILE_NAME = 'hidden_states_generator.py';

/**
 * @param {object} [opts]
 * @param {'old'|'new'|'nightly'} [opts.version]  target version, default 'new'
 * @param {string} [opts.prefix]                   temp dir name prefix
 * @param {string} [opts.name]                     put the workspace in a subfolder with this name (what
 *                                                 the Explorer shows) instead of the temp dir itself
 * @returns {{ dir: string, file: string, target: string, settingsFile: string, cleanup: () => void }}
 */
function createWorkspace({ version = 'new', prefix = 'apidrift-e2e-ws-', name } = {}) {
  const target = path.join(VLLM_FIXTURES, version);
  const source = path.join(VLLM_FIXTURES, 'user', USER_FILE_NAME);
  if (!fs.existsSync(path.join(target, 'vllm'))) throw new Error(`fixture target missing: ${target}/vllm`);
  if (!fs.existsSync(source)) throw new Error(`fixture user file missing: ${source}`);
  // realpath: /tmp may be a symlink; the workbench and the server should see one spelling.
  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const dir = name ? path.join(tmp, name) : tmp;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, USER_FILE_NAME);
  fs.copyFileSync(source, file);
  const settingsFile = path.join(dir, '.vscode', 'settings.json');
  fs.mkdirSync(path.dirname(settingsFile), { recursive: true });
  fs.writeFileSync(settingsFile, JSON.stringify({ 'apidrift.targets': [target] }, null, 2) + '\n');
  return {
    dir,
    file,
    target,
    settingsFile,
    cleanup: () => fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 }),
  };
}

module.exports = { REPO_ROOT, VLLM_FIXTURES, USER_FILE_NAME, createWorkspace };
