/** package.json and the code agree: settings, commands, activation, entry points. */
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { describe, it } from 'node:test';
import { SETTINGS_KEYS } from '../server/src/lsp/settings';
import { ROOT } from './helpers';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));

describe('package.json', () => {
  it('declares every setting the server reads, and the trace setting', () => {
    const declared = Object.keys(pkg.contributes.configuration.properties).sort();
    assert.deepEqual(declared, [...SETTINGS_KEYS, 'apidrift.trace.server'].sort());
  });

  it('declares every command the client registers', () => {
    const src = fs.readFileSync(path.join(ROOT, 'client', 'src', 'extension.ts'), 'utf8');
    const registered = [...src.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]);
    const declared = pkg.contributes.commands.map((c: { command: string }) => c.command);
    for (const c of declared) assert.ok(registered.includes(c), `${c} is declared but not registered`);
  });

  it('points main and bin at the bundles that the build makes', () => {
    assert.ok(fs.existsSync(path.join(ROOT, pkg.main)), pkg.main);
    assert.ok(fs.existsSync(path.join(ROOT, pkg.bin.apidrift)), pkg.bin.apidrift);
    assert.match(fs.readFileSync(path.join(ROOT, pkg.bin.apidrift), 'utf8').split('\n')[0], /^#!\/usr\/bin\/env node/);
    assert.deepEqual(pkg.activationEvents, ['onLanguage:python']);
  });
});
