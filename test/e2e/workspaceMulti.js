'use strict';
// Builds the multi-root workspace of test/e2e/suite/multiroot.js: a temp folder holding
//   a/  (.vscode/settings.json: apidrift.targets = fixtures/vllm/new)
//       hidden_states_generator.py, pkg/unopened.py (never opened by the suite), calls.ipynb
//   b/  (.vscode/settings.json: apidrift.targets = fixtures/vllm/nightly)
//       hidden_states_generator.py, unopened_b.py
//   multi.code-workspace  (folders a and b; apidrift.diagnosticMode = workspace)
// Plain CommonJS, no dependencies.

const fs = require('fs');
const os = require('os');
const path = require('path');
const { VLLM_FIXTURES, USER_FILE_NAME } = require('./workspace');

/** A notebook whose second code cell calls Scheduler without block_size (a finding against `new`). */
function notebook() {
  const cell = (type, source) => ({ cell_type: type, metadata: {}, source, ...(type === 'code' ? { execution_count: null, outputs: [] } : {}) });
  return {
    cells: [
      cell('code', ['from vllm.v1.core.sched.scheduler import Scheduler\n']),
      cell('markdown', ['Scheduler() in prose is not checked\n']),
      cell('code', ['%load_ext autoreload\n', 'sched = Scheduler(vllm_config=None, kv_cache_config=None, structured_output_manager=None)\n']),
    ],
    metadata: { kernelspec: { display_name: 'Python 3', language: 'python', name: 'python3' }, language_info: { name: 'python' } },
    nbformat: 4,
    nbformat_minor: 5,
  };
}

function createMultiRootWorkspace({ prefix = 'apidrift-e2e-multi-' } = {}) {
  const user = fs.readFileSync(path.join(VLLM_FIXTURES, 'user', USER_FILE_NAME), 'utf8');
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const write = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), text);
  };
  write('a/.vscode/settings.json', JSON.stringify({ 'apidrift.targets': [path.join(VLLM_FIXTURES, 'new')] }, null, 2) + '\n');
  write(`a/${USER_FILE_NAME}`, user);
  write('a/pkg/unopened.py', user);
  write('a/calls.ipynb', JSON.stringify(notebook(), null, 1) + '\n');
  write('b/.vscode/settings.json', JSON.stringify({ 'apidrift.targets': [path.join(VLLM_FIXTURES, 'nightly')] }, null, 2) + '\n');
  write(`b/${USER_FILE_NAME}`, user);
  write('b/unopened_b.py', user);
  write('multi.code-workspace', JSON.stringify({ folders: [{ path: 'a' }, { path: 'b' }], settings: { 'apidrift.diagnosticMode': 'workspace' } }, null, 2) + '\n');
  return {
    dir: root,
    workspaceFile: path.join(root, 'multi.code-workspace'),
    cleanup: () => fs.rmSync(root, { recursive: true, force: true, maxRetries: 3 }),
  };
}

module.exports = { createMultiRootWorkspace };
