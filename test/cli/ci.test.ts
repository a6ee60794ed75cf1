/**
 * The CLI in CI: output formats (SARIF checked by the official 2.1.0 schema, GitHub workflow
 * commands by a parser of our own, JUnit by an XML parser), --output-file, --version,
 * --exit-zero, and the exit code of `diff`.
 */
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import Ajv from 'ajv-draft-04';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { escapeData, escapeProperty, formatGithub } from '../../server/src/cli/formats';
import { DIST, FIXTURES, ROOT, tempTree } from '../helpers';

const CLI = path.join(DIST, 'cli.js');
const VLLM = path.join(FIXTURES, 'vllm');
const USER_DIR = path.join(VLLM, 'user');
const STORY = 'hidden_states_generator.py';

export function run(args: string[], cwd = ROOT): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function story(format: string, extra: string[] = []): { code: number; stdout: string; stderr: string } {
  return run(['check', '--target', path.join(VLLM, 'new'), '--output-format', format, ...extra, STORY], USER_DIR);
}

interface JsonDiag {
  file: string;
  code: string;
  message: string;
  severity: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  fixes: Array<{ title: string; applicability: string; snippet?: boolean; edits: unknown[] }>;
}

function jsonDiagnostics(): JsonDiag[] {
  const r = story('json');
  assert.equal(r.code, 1, r.stderr);
  return JSON.parse(r.stdout).diagnostics;
}

/** Parses GitHub workflow commands (`::level k=v,k=v::message`) and undoes their escaping. */
function parseWorkflowCommands(text: string): Array<{ level: string; props: Record<string, string>; message: string }> {
  const unescape = (s: string): string => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const m = /^::(\w+)(?: ([^:]*))?::(.*)$/.exec(l);
      assert.ok(m, `not a workflow command: ${l}`);
      // a raw ':' or newline inside a property or a raw newline in a message would break the command
      const props: Record<string, string> = {};
      for (const kv of (m[2] ?? '').split(',').filter((x) => x)) {
        const eq = kv.indexOf('=');
        assert.ok(eq > 0, `bad property ${kv}`);
        props[kv.slice(0, eq)] = unescape(kv.slice(eq + 1));
      }
      return { level: m[1], props, message: unescape(m[3]) };
    });
}

describe('output formats on the speculators example', () => {
  it('SARIF 2.1.0 that the official schema accepts, with rules, fingerprints and fixes', () => {
    const r = story('sarif');
    assert.equal(r.code, 1, r.stderr);
    const sarif = JSON.parse(r.stdout) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    const schema = JSON.parse(fs.readFileSync(path.join(ROOT, 'node_modules', '@microsoft', 'jest-sarif', 'lib', 'schemas', 'sarif-2.1.0-rtm.5.json'), 'utf8'));
    const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: false });
    // the formats the schema names, checked with the URL parser
    ajv.addFormat('uri', (s: string) => URL.canParse(s));
    ajv.addFormat('uri-reference', (s: string) => URL.canParse(s, 'file:///base/'));
    ajv.addFormat('date-time', (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s));
    const validate = ajv.compile(schema);
    assert.ok(validate(JSON.parse(r.stdout)), JSON.stringify(validate.errors, null, 2));
    // the schema is really applied: a result without a message is refused
    const broken = JSON.parse(r.stdout);
    delete broken.runs[0].results[0].message;
    assert.equal(validate(broken), false);

    assert.equal(sarif.version, '2.1.0');
    const run0 = sarif.runs[0];
    const rules = run0.tool.driver.rules as Array<{ id: string; help: { text: string }; helpUri: string }>;
    assert.deepEqual(rules.map((x) => x.id), ['missing-argument', 'unexpected-keyword']);
    for (const rule of rules) {
      assert.ok(rule.help.text.length > 20);
      assert.match(rule.helpUri, /#finding-codes$/);
    }
    const diags = jsonDiagnostics();
    assert.equal(run0.results.length, diags.length);
    const prints = new Set<string>();
    run0.results.forEach((res: any, i: number) => {
      const d = diags[i];
      assert.equal(res.ruleId, d.code);
      assert.equal(rules[res.ruleIndex].id, d.code);
      assert.equal(res.message.text, d.message);
      const loc = res.locations[0].physicalLocation;
      assert.equal(loc.artifactLocation.uri, STORY);
      assert.equal(loc.region.startLine, d.range.start.line + 1);
      assert.equal(loc.region.startColumn, d.range.start.character + 1);
      prints.add(res.partialFingerprints['apidrift/v1']);
      // fixes with a placeholder are left out; the others are artifact changes
      const concrete = d.fixes.filter((x) => !x.snippet);
      assert.equal((res.fixes ?? []).length, concrete.length);
      for (const fx of res.fixes ?? []) assert.ok(fx.artifactChanges[0].replacements.length > 0);
    });
    assert.equal(prints.size, diags.length, 'fingerprints are distinct');
    // the fingerprint is stable from one run to the next
    assert.deepEqual(JSON.parse(story('sarif').stdout).runs[0].results.map((x: any) => x.partialFingerprints), run0.results.map((x: any) => x.partialFingerprints));
  });

  it('GitHub workflow commands, one per finding, that parse back to the findings', () => {
    const r = story('github');
    assert.equal(r.code, 1, r.stderr);
    const commands = parseWorkflowCommands(r.stdout);
    const diags = jsonDiagnostics();
    assert.equal(commands.length, diags.length);
    commands.forEach((c, i) => {
      assert.equal(c.level, 'error');
      assert.equal(c.props.file, STORY);
      assert.equal(Number(c.props.line), diags[i].range.start.line + 1);
      assert.equal(Number(c.props.col), diags[i].range.start.character + 1);
      assert.equal(c.props.title, `apidrift (${diags[i].code})`);
      assert.equal(c.message, diags[i].message);
    });
  });

  it('escapes what would break a workflow command', () => {
    assert.equal(escapeData('100% sure\r\nnext'), '100%25 sure%0D%0Anext');
    assert.equal(escapeProperty('a:b,c%'), 'a%3Ab%2Cc%25');
    const finding = {
      file: path.join(ROOT, 'odd, name:1.py'),
      range: { start: { line: 2, character: 4 }, end: { line: 2, character: 9 } },
      severity: 'warning' as const,
      code: 'changed-override' as const,
      message: 'line one: 50% of it\nline two, with :: inside',
      callee: null,
      param: null,
      fixes: [],
      definition: null,
    };
    const text = formatGithub({ findings: [finding], files: [], stats: { files: 1, callsChecked: 0, callsUnknown: 0, callsUntraced: 0, targetModulesRead: 0, ms: 0 }, version: '0', cwd: ROOT });
    assert.equal(text.split('\n').filter((l) => l).length, 1, 'one line per command');
    const [c] = parseWorkflowCommands(text);
    assert.equal(c.level, 'warning');
    assert.equal(c.props.file, 'odd, name:1.py');
    assert.equal(c.props.line, '3');
    assert.equal(c.message, finding.message);
  });

  it('GitLab code quality: one issue per finding with a unique fingerprint', () => {
    const r = story('gitlab');
    assert.equal(r.code, 1, r.stderr);
    const issues = JSON.parse(r.stdout) as Array<{ description: string; check_name: string; fingerprint: string; severity: string; location: { path: string; lines: { begin: number } } }>;
    const diags = jsonDiagnostics();
    assert.equal(issues.length, diags.length);
    assert.equal(new Set(issues.map((x) => x.fingerprint)).size, issues.length);
    issues.forEach((x, i) => {
      assert.equal(x.check_name, diags[i].code);
      assert.equal(x.severity, 'major');
      assert.equal(x.location.path, STORY);
      assert.equal(x.location.lines.begin, diags[i].range.start.line + 1);
      assert.equal(x.description, diags[i].message);
    });
  });

  it('JUnit XML that an XML parser reads: a failing test case per finding', () => {
    const r = story('junit');
    assert.equal(r.code, 1, r.stderr);
    assert.equal(XMLValidator.validate(r.stdout), true);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '', isArray: (name) => name === 'testsuite' || name === 'testcase' }).parse(r.stdout);
    const suites = doc.testsuites.testsuite;
    assert.equal(suites.length, 1);
    assert.equal(suites[0].name, STORY);
    const cases = suites[0].testcase;
    const diags = jsonDiagnostics();
    assert.equal(cases.length, diags.length);
    assert.equal(Number(doc.testsuites.failures), diags.length);
    cases.forEach((c: any, i: number) => {
      assert.equal(c.failure.type, diags[i].code);
      assert.equal(c.failure.message, diags[i].message);
    });
  });

  it('JUnit: a clean file is a passing test case', () => {
    const dir = tempTree({ 'ok.py': 'import os\nos.getcwd()\n' });
    const r = run(['check', '--target', path.join(VLLM, 'new'), '--output-format', 'junit', 'ok.py'], dir);
    assert.equal(r.code, 0, r.stderr);
    const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(r.stdout);
    assert.equal(doc.testsuites.failures, '0');
    assert.equal(doc.testsuites.testsuite.testcase.name, 'apidrift');
    assert.equal(doc.testsuites.testsuite.testcase.failure, undefined);
  });

  it('--format stays an alias; an unknown format is a usage error', () => {
    assert.deepEqual(JSON.parse(run(['check', '--target', path.join(VLLM, 'new'), '--format', 'json', STORY], USER_DIR).stdout).diagnostics, jsonDiagnostics());
    const r = story('xml');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /--output-format must be text, json, sarif, github, gitlab, junit/);
  });

  it('--output-file writes there and nothing on stdout', () => {
    const dir = tempTree({});
    const file = path.join(dir, 'out.sarif');
    const r = story('sarif', ['--output-file', file]);
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).runs[0].results.length, 3);
  });

  it('--exit-zero keeps the output and exits 0', () => {
    const r = story('text', ['--exit-zero']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^3 findings in 1 file/m);
  });

  it('--version prints the package version', () => {
    const r = run(['--version']);
    assert.equal(r.code, 0);
    assert.equal(r.stdout, `apidrift ${JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}\n`);
  });
});

describe('apidrift diff in CI', () => {
  const args = ['diff', '--baseline', path.join(VLLM, 'old'), '--target', path.join(VLLM, 'new'), '--package', 'vllm.v1.core'];

  it('exits 1 on a breaking change and reports it as GitHub annotations', () => {
    const r = run([...args, '--output-format', 'github']);
    assert.equal(r.code, 1, r.stderr);
    const commands = parseWorkflowCommands(r.stdout);
    const scheduler = commands.find((c) => /Scheduler\.__init__|Scheduler:/.test(c.message) && /block_size/.test(c.message));
    assert.ok(scheduler, r.stdout);
    assert.equal(scheduler.level, 'error');
    assert.match(scheduler.message, /\nwas: .*\nnow: /);
    const kv = commands.find((c) => /get_kv_cache_config_from_groups/.test(c.message));
    assert.ok(kv && kv.level === 'error' && /kv_cache_specs/.test(kv.message));
  });

  it('--exit-zero opts out; a version against itself exits 0', () => {
    assert.equal(run([...args, '--exit-zero']).code, 0);
    const same = run(['diff', '--baseline', path.join(VLLM, 'new'), '--target', path.join(VLLM, 'new'), '--output-format', 'github']);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(same.stdout, '');
  });
});
