/**
 * `[tool.apidrift]` in pyproject.toml, default excludes, .gitignore, notebooks and files that are
 * not Python, through the CLI.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { ConfigError, readConfig } from '../../server/src/engine/config/pyproject';
import { DIST, FIXTURES, stdlibZip, tempTree } from '../helpers';

const CLI = path.join(DIST, 'cli.js');
const DRIFT = path.join(FIXTURES, 'drift');

function run(args: string[], cwd: string): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/** `file:line:code` of each finding of a JSON run. */
function found(stdout: string): string[] {
  return JSON.parse(stdout).diagnostics.map((d: { file: string; range: { start: { line: number } }; code: string; severity: string }) => `${d.file.split(path.sep).join('/')}:${d.range.start.line + 1}:${d.code}:${d.severity}`);
}

const BROKEN = 'from drift.utils import open_port\n\nopen_port(host="0.0.0.0")\n';

function project(): string {
  const dir = tempTree({
    'pyproject.toml': '[project]\nname = "demo"\n\n[tool.apidrift]\n' + 'target = "TARGET"\nbaseline = ["BASELINE"]\nexclude = ["legacy/"]\n' + 'per-file-ignores = { "tests/*" = ["unexpected-keyword"] }\nseverity = { deprecated = "off", unknown-import = "warning" }\n',
    '.gitignore': 'generated/\n*.tmp.py\n',
    'src/app.py': BROKEN,
    'src/scratch.tmp.py': BROKEN,
    'tests/test_app.py': BROKEN,
    'venv/lib/python3.12/site-packages/other.py': BROKEN,
    '.venv/lib/x.py': BROKEN,
    'build/lib/app.py': BROKEN,
    'dist/app.py': BROKEN,
    'site-packages/y.py': BROKEN,
    'generated/g.py': BROKEN,
    'legacy/old.py': BROKEN,
    'sub/pyproject.toml': '[tool.apidrift]\nselect = ["unknown-import"]\n',
    'sub/m.py': 'from drift.utils import cdiv\n' + BROKEN,
    'README.md': 'open_port(host=1)\n',
  });
  const toml = path.join(dir, 'pyproject.toml');
  fs.writeFileSync(toml, fs.readFileSync(toml, 'utf8').replace('TARGET', path.relative(dir, path.join(DRIFT, 'v2'))).replace('BASELINE', path.relative(dir, path.join(DRIFT, 'v1'))));
  return dir;
}

describe('[tool.apidrift] and which files are read', () => {
  it('takes target and baseline from pyproject.toml; skips venv, build, dot-folders, excludes and .gitignore', () => {
    const dir = project();
    const r = run(['check', '--output-format', 'json', '.'], dir);
    assert.equal(r.code, 1, r.stderr);
    // tests/ ignores unexpected-keyword; sub/ has its own config (nearest wins) that selects unknown-import,
    // whose severity is the default there (the parent's severity table does not apply)
    assert.deepEqual(found(r.stdout), ['src/app.py:3:unexpected-keyword:error', 'sub/m.py:1:unknown-import:error']);
    assert.equal(JSON.parse(r.stdout).stats.files, 3);
    // with a baseline (from the config), the keyword is known to be renamed
    assert.match(JSON.parse(r.stdout).diagnostics[0].message, /renamed/);
  });

  it('a path named explicitly is checked whatever the excludes say', () => {
    const dir = project();
    const r = run(['check', '--output-format', 'json', 'venv/lib/python3.12/site-packages/other.py', 'build', 'generated/g.py'], dir);
    assert.equal(r.code, 1, r.stderr);
    assert.deepEqual(found(r.stdout), [
      'venv/lib/python3.12/site-packages/other.py:3:unexpected-keyword:error',
      'build/lib/app.py:3:unexpected-keyword:error',
      'generated/g.py:3:unexpected-keyword:error',
    ]);
  });

  it('the command line overrides the config; the severity table applies', () => {
    const dir = project();
    fs.writeFileSync(path.join(dir, 'src', 'moved.py'), 'from drift.utils import cdiv\n');
    const r = run(['check', '--output-format', 'json', '--baseline', path.join(DRIFT, 'v2'), 'src'], dir);
    assert.equal(r.code, 1, r.stderr);
    // baseline = target: nothing is known to be renamed or moved any more
    const out = JSON.parse(r.stdout);
    assert.doesNotMatch(out.diagnostics.find((d: { code: string }) => d.code === 'unexpected-keyword').message, /renamed/);
    assert.deepEqual(found(r.stdout).filter((f) => f.includes('moved')), ['src/moved.py:1:unknown-import:warning']);
  });

  it('.gitignore rules from the work tree root apply below it; the root folder itself is never excluded', () => {
    const dir = project();
    fs.mkdirSync(path.join(dir, '.git'));
    fs.appendFileSync(path.join(dir, '.gitignore'), 'src/\n');
    const r = run(['check', '--output-format', 'json', 'tests', '.'], dir);
    assert.deepEqual(found(r.stdout), ['sub/m.py:1:unknown-import:error']);
    // inside src/, named explicitly
    assert.equal(run(['check', 'src'], dir).code, 1);
  });

  it('a config error is a usage error; a file without a target in reach too', () => {
    const dir = project();
    fs.writeFileSync(path.join(dir, 'pyproject.toml'), '[tool.apidrift]\nselect = ["no-such-code"]\n');
    const r = run(['check', '--target', stdlibZip('312'), 'src'], dir);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown code 'no-such-code'/);
    const bare = tempTree({ 'a.py': 'import os\n' });
    const n = run(['check', 'a.py'], bare);
    assert.equal(n.code, 2);
    assert.match(n.stderr, /at least one --target is required/);
    assert.throws(() => readConfig('x/pyproject.toml', '[tool.apidrift\n'), ConfigError);
    assert.equal(readConfig('x/pyproject.toml', '[tool.ruff]\nline-length = 1\n'), undefined);
  });

  it('a file that is neither Python nor a notebook, named explicitly, is a usage error; a notebook that cannot be read is an input skipped', () => {
    const dir = project();
    const r = run(['check', 'README.md'], dir);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /README\.md is not a Python file/);
    fs.writeFileSync(path.join(dir, 'bad.ipynb'), 'not json');
    const b = run(['check', 'bad.ipynb'], dir);
    assert.equal(b.code, 2);
    assert.match(b.stderr, /not a notebook/);
    // in a folder, it is one input skipped: the rest is checked and reported, and the run is incomplete
    fs.mkdirSync(path.join(dir, 'nb'));
    fs.writeFileSync(path.join(dir, 'nb', 'bad.ipynb'), 'not json');
    fs.writeFileSync(path.join(dir, 'nb', 'good.py'), BROKEN);
    const f = run(['check', '--output-format', 'json', 'nb'], dir);
    assert.equal(f.code, 2, f.stderr);
    assert.match(f.stderr, /skipped nb[\\/]bad\.ipynb: not a notebook/);
    assert.deepEqual(found(f.stdout), ['nb/good.py:3:unexpected-keyword:error']);
    assert.equal(JSON.parse(f.stdout).stats.skipped, 1);
    // a script without an extension that runs Python is checked
    fs.writeFileSync(path.join(dir, 'tool'), '#!/usr/bin/env python3\n' + BROKEN);
    assert.deepEqual(found(run(['check', '--output-format', 'json', 'tool'], dir).stdout), ['tool:4:unexpected-keyword:error']);
  });
});

function notebook(cells: Array<[string, string]>): string {
  return (
    JSON.stringify(
      {
        cells: cells.map(([type, src]) => ({ cell_type: type, metadata: {}, source: src.split(/(?<=\n)/), ...(type === 'code' ? { execution_count: null, outputs: [] } : {}) })),
        metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
        nbformat: 4,
        nbformat_minor: 5,
      },
      null,
      1,
    ) + '\n'
  );
}

describe('notebooks', () => {
  const nb = notebook([
    ['markdown', '# Serving\n\nCall `open_port(host=...)` here.\n'],
    ['code', '%matplotlib inline\nfrom drift.utils import open_port\n!pip install drift\n'],
    ['code', '%%bash\nopen_port(host="in a bash cell")\n'],
    ['code', 'files = !ls\nopen_port?\nport = open_port(\n    host="0.0.0.0")\nprint(port)'],
  ]);
  const target = ['--target', path.join(DRIFT, 'v2'), '--baseline', path.join(DRIFT, 'v1')];

  it('checks the code cells as one module and places findings in their cell', () => {
    const dir = tempTree({ 'serve.ipynb': nb });
    const t = run(['check', ...target, 'serve.ipynb'], dir);
    assert.equal(t.code, 1, t.stderr);
    assert.match(t.stdout, /^serve\.ipynb:cell 4:4:5: error \[unexpected-keyword\] /m);
    assert.match(t.stdout, /^1 finding in 1 file/m);
    const j = JSON.parse(run(['check', ...target, '--output-format', 'json', 'serve.ipynb'], dir).stdout);
    assert.equal(j.diagnostics.length, 1);
    assert.equal(j.diagnostics[0].file, 'serve.ipynb');
    assert.equal(j.diagnostics[0].cell, 3);
    assert.deepEqual(j.diagnostics[0].range.start, { line: 3, character: 4 });
    assert.deepEqual(j.diagnostics[0].fixes[0].edits[0].range.start, { line: 3, character: 4 });
    const s = JSON.parse(run(['check', ...target, '--output-format', 'sarif', 'serve.ipynb'], dir).stdout);
    const res = s.runs[0].results[0];
    assert.equal(res.locations[0].physicalLocation.artifactLocation.uri, 'serve.ipynb');
    assert.equal(res.properties.cell, 3);
    assert.equal(res.locations[0].physicalLocation.region.startLine, 4);
  });

  it('folders are searched for notebooks; --fix edits the cell and keeps the notebook', () => {
    const dir = tempTree({ 'nb/serve.ipynb': nb, 'nb/.ipynb_checkpoints/serve-checkpoint.ipynb': nb });
    const r = run(['check', ...target, '--fix', 'nb'], dir);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^0 findings in 1 file/m);
    const after = JSON.parse(fs.readFileSync(path.join(dir, 'nb', 'serve.ipynb'), 'utf8'));
    const before = JSON.parse(nb);
    assert.equal(after.cells[3].source.join(''), 'files = !ls\nopen_port?\nport = open_port(\n    address="0.0.0.0")\nprint(port)');
    for (const i of [0, 1, 2]) assert.deepEqual(after.cells[i], before.cells[i]);
    assert.deepEqual(after.metadata, before.metadata);
    assert.equal(fs.readFileSync(path.join(dir, 'nb', '.ipynb_checkpoints', 'serve-checkpoint.ipynb'), 'utf8'), nb, 'checkpoints are not touched');
  });
});

describe('suppressions through the CLI', () => {
  it('an unused `# apidrift: ignore` is a hint that --fix removes; ignore-file silences a file', () => {
    const dir = tempTree({
      'a.py': 'from drift.utils import open_port  # apidrift: ignore\n\nopen_port(host="x")  # apidrift: ignore[unexpected-keyword, unknown-import]\nopen_port(host="y")  # type: ignore[call-arg]\nopen_port(host="z")  # type: ignore[misc]\n',
      'b.py': '# apidrift: ignore-file\nfrom drift.utils import open_port\n\nopen_port(host="x")\n',
    });
    const j = JSON.parse(run(['check', '--target', path.join(DRIFT, 'v2'), '--output-format', 'json', 'a.py', 'b.py'], dir).stdout);
    assert.deepEqual(
      j.diagnostics.map((d: { range: { start: { line: number } }; code: string; severity: string }) => `${d.range.start.line + 1}:${d.code}:${d.severity}`),
      ['1:unused-ignore:hint', '3:unused-ignore:hint', '5:unexpected-keyword:error'],
    );
    const r = run(['check', '--target', path.join(DRIFT, 'v2'), '--fix', 'a.py'], dir);
    assert.equal(r.code, 1, 'the [misc] line is still reported');
    assert.equal(
      fs.readFileSync(path.join(dir, 'a.py'), 'utf8'),
      'from drift.utils import open_port\n\nopen_port(host="x")  # apidrift: ignore[unexpected-keyword]\nopen_port(host="y")  # type: ignore[call-arg]\nopen_port(host="z")  # type: ignore[misc]\n',
    );
  });
});
