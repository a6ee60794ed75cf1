#!/usr/bin/env node
'use strict';
// Browser-driven test of the PACKAGED extension as a new user meets it: the .vsix is built with
// vsce, installed into code-server with `--install-extension`, and the workspace has no
// apidrift.targets: the target is the workspace's .venv (a fake environment holding the fixture
// library `new` with a vllm-0.16.0.dist-info), found by automatic detection; the baseline setting
// names the fixture `old`.
//
//   1. the extension's page files: README.md and every image it shows are in the installed folder
//   2. the user file opens; 3 errors; the status bar item reads "apidrift: .venv · vllm 0.16.0" and
//      its accessibility label says it in plain words (automatic detection); so does the language
//      status item
//   3. "apidrift: Show API changes" (command palette) opens "API changes.apidrift-report": it starts
//      with what the file uses, most used first ([4 uses] before [1 use]), the places are links, the
//      whole report follows; typing into it changes nothing (read-only); closing it asks nothing
//   4. "apidrift: Select target…": "Automatic" is marked current and focused; choosing the .venv
//      pins its site-packages in .vscode/settings.json; the picker then marks that entry; choosing
//      "Automatic" removes apidrift.targets from settings.json again, and the status says the
//      target comes from automatic detection
//   5. "apidrift: Select baseline…": the baseline in use is marked; "None" removes apidrift.baseline
//
// Screenshots: test-artifacts/e2e/vsix-*.png; the report and the status bar picture are copied to
// media/ (shown in the README) unless --no-readme-screenshot is given.
//
// Usage: node test/e2e/vsix.js [--keep] [--verbose] [--no-readme-screenshot]
// Exit code 0 = pass. Every wait is bounded (60 s) and waits for a condition.

const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { startCodeServer, launchBrowser, openWorkbench, codeServerEntry, DEFAULT_TIMEOUT_MS } = require('./codeServer');
const { REPO_ROOT, VLLM_FIXTURES, createWorkspace } = require('./workspace');

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'e2e');
const MEDIA = path.join(REPO_ROOT, 'media');
const WAIT = DEFAULT_TIMEOUT_MS;
const VERSION = '0.16.0';

const argv = new Set(process.argv.slice(2));
for (const a of argv) {
  if (!['--keep', '--verbose', '--no-readme-screenshot'].includes(a)) {
    console.error(`vsix.js: unknown argument ${a}\nusage: node test/e2e/vsix.js [--keep] [--verbose] [--no-readme-screenshot]`);
    process.exit(2);
  }
}

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const info = (msg) => console.log(`[vsix ${elapsed()}] ${msg}`);

function copyDir(from, to) {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const a = path.join(from, e.name);
    const b = path.join(to, e.name);
    if (e.isDirectory()) copyDir(a, b);
    else fs.copyFileSync(a, b);
  }
}

/** A fake virtual environment in the workspace: the fixture library and its dist-info, nothing to run. */
function makeVenv(wsDir) {
  const sp = path.join(wsDir, '.venv', 'lib', 'python3.12', 'site-packages');
  copyDir(path.join(VLLM_FIXTURES, 'new', 'vllm'), path.join(sp, 'vllm'));
  const di = path.join(sp, `vllm-${VERSION}.dist-info`);
  fs.mkdirSync(di, { recursive: true });
  fs.writeFileSync(path.join(di, 'METADATA'), `Metadata-Version: 2.1\nName: vllm\nVersion: ${VERSION}\nSummary: fixture\n`);
  fs.writeFileSync(path.join(di, 'top_level.txt'), 'vllm\n');
  fs.writeFileSync(path.join(wsDir, '.venv', 'pyvenv.cfg'), 'home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.0\n');
  return sp;
}

function run(cmd, args, opts) {
  const r = cp.spawnSync(cmd, args, { encoding: 'utf8', timeout: 180_000, input: '', ...opts });
  if (r.status !== 0) throw new Error(`${path.basename(args[0] || cmd)} ${args.slice(1).join(' ')} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout + r.stderr;
}

/** The settings.json of the workspace, as on disk (it may be rewritten while read). */
function readSettings(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

async function waitForFile(pred, what) {
  const deadline = Date.now() + WAIT;
  for (;;) {
    const v = pred();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main() {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.rmSync(path.join(ARTIFACTS, 'vsix-failure.png'), { force: true });
  const shot = async (page, name) => {
    const p = path.join(ARTIFACTS, name);
    await page.screenshot({ path: p, animations: 'disabled' });
    info(`screenshot ${path.relative(REPO_ROOT, p)}`);
    return p;
  };

  const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-e2e-vsix-')));
  const ws = createWorkspace({ version: 'new', prefix: 'apidrift-e2e-vsix-ws-', name: 'hidden-states' });
  let server;
  let browser;
  let finished = false;
  const cleanup = async () => {
    await Promise.allSettled([browser && browser.close(), server && server.stop()]);
    if (argv.has('--keep')) info(`kept workspace ${ws.dir} and ${tmp}`);
    else {
      ws.cleanup();
      fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 });
    }
  };
  const onSignal = (sig) => {
    if (finished) return;
    finished = true;
    console.error(`[vsix] ${sig}: shutting down`);
    cleanup().finally(() => process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[sig] || 0)));
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, onSignal);

  let page;
  let code = 1;
  try {
    // --- the package, and its installation into code-server
    assert.ok(fs.existsSync(path.join(REPO_ROOT, 'dist', 'client.js')), 'dist/client.js is missing: run npm run build');
    const vsix = path.join(tmp, 'apidrift.vsix');
    run(process.execPath, [path.join(REPO_ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'package', '--no-dependencies', '--no-rewrite-relative-links', '--allow-missing-repository', '-o', vsix], { cwd: REPO_ROOT });
    info(`packaged ${path.basename(vsix)} (${(fs.statSync(vsix).size / 1024).toFixed(0)} KiB)`);
    const extensionsDir = path.join(tmp, 'extensions');
    const home = path.join(tmp, 'install');
    for (const d of ['data', 'xdg-data', 'xdg-config', 'xdg-cache']) fs.mkdirSync(path.join(home, d), { recursive: true });
    const said = run(process.execPath, [codeServerEntry(), '--user-data-dir', path.join(home, 'data'), '--extensions-dir', extensionsDir, '--install-extension', vsix], {
      cwd: home,
      env: { ...process.env, XDG_DATA_HOME: path.join(home, 'xdg-data'), XDG_CONFIG_HOME: path.join(home, 'xdg-config'), XDG_CACHE_HOME: path.join(home, 'xdg-cache'), EXTENSIONS_GALLERY: '{}' },
    });
    const installed = fs.readdirSync(extensionsDir).find((d) => /^apidrift\.apidrift-/.test(d));
    assert.ok(installed, `the extension is not in ${extensionsDir}: ${said}`);
    info(`installed: ${said.trim().split('\n').pop()}`);
    // the extension page: the README and every image it shows ship in the package
    const extDir = path.join(extensionsDir, installed);
    // (vsce stores it as readme.md; VS Code finds it whatever its case)
    const readmeName = fs.readdirSync(extDir).find((f) => /^readme\.md$/i.test(f));
    assert.ok(readmeName, `no README in ${extDir}`);
    const readme = fs.readFileSync(path.join(extDir, readmeName), 'utf8');
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]);
    assert.ok(images.length > 0, 'the README shows no image');
    for (const img of images) {
      assert.ok(!/^[a-z]+:/.test(img), `README image ${img} is not a file of the package`);
      assert.ok(fs.existsSync(path.join(extDir, img)), `README image ${img} is not in the installed extension`);
    }
    assert.ok(/npm run package/.test(readme) && /--install-extension/.test(readme), 'the README says how to build and install the .vsix');
    info(`README images in the package: ${images.join(', ')}`);

    // --- the workspace: no target setting, a .venv, the baseline
    const sitePackages = makeVenv(ws.dir);
    // the baseline: a copy of the fixture `old`, outside the workspace
    const baseline = path.join(tmp, 'vllm-0.11.0');
    copyDir(path.join(VLLM_FIXTURES, 'old', 'vllm'), path.join(baseline, 'vllm'));
    fs.writeFileSync(ws.settingsFile, JSON.stringify({ 'apidrift.baseline': [baseline] }, null, 2) + '\n');

    server = await startCodeServer({ workspaceDir: ws.dir, extensionsDir, verbose: argv.has('--verbose'), keepRunDir: argv.has('--keep') });
    info(`code-server on port ${server.port} (ready in ${server.startupMs} ms)`);
    browser = await launchBrowser({ viewport: { width: 1400, height: 900 } });
    page = browser.page;
    page.on('pageerror', (e) => console.error(`[vsix] page error: ${e.message}`));
    // no extensionDevelopmentPath: the installed extension runs
    const loadMs = await openWorkbench(page, server.url([['openFile', ws.file]]));
    info(`workbench up in ${loadMs} ms`);

    const editorText = page.locator('.monaco-editor .view-lines');
    await editorText.filter({ hasText: 'import' }).first().waitFor();
    const problems = () => page.evaluate(() => {
      const item = document.querySelector('.statusbar-item[id="status.problems"]');
      return item ? item.getAttribute('aria-label') || '' : '';
    });
    await page.waitForFunction(() => /^Errors: 3\b/.test(document.querySelector('.statusbar-item[id="status.problems"]')?.getAttribute('aria-label') || ''), undefined, { timeout: WAIT }).catch(async () => {
      throw new Error(`the problems counter should say "Errors: 3": ${await problems()}`);
    });
    info(`problems: ${await problems()}`);

    // --- the status bar: environment and version, in plain words for screen readers
    const statusItem = page.locator('.statusbar-item[id$="apidrift.status"]');
    const wantText = `apidrift: .venv · vllm ${VERSION}`;
    try {
      await statusItem.filter({ hasText: wantText }).first().waitFor();
    } catch {
      throw new Error(`the status bar item should read "${wantText}": ${JSON.stringify(await statusItem.first().innerText().catch(() => '?'))}`);
    }
    const aria = async () => (await statusItem.first().getAttribute('aria-label')) || (await statusItem.first().locator('[aria-label]').first().getAttribute('aria-label').catch(() => '')) || '';
    let label = await aria();
    assert.match(label, new RegExp(`checks your Python files against vllm ${VERSION.replace(/\./g, '\\.')} in the \\.venv environment\\. The target comes from automatic detection`), `status accessibility label: ${label}`);
    info(`status bar: "${(await statusItem.first().innerText()).trim()}"; label: ${JSON.stringify(label)}`);
    const sb = await statusItem.first().boundingBox();
    await page.mouse.move(sb.x + sb.width / 2, sb.y + sb.height / 2);
    await page.locator('.monaco-hover:not(.hidden)', { hasText: 'apidrift checks your Python files' }).first().waitFor();
    const statusShot = await shot(page, 'vsix-1-status.png');
    await page.mouse.move(700, 400);
    // the language status item ({} next to the language) says the same, and where the target comes from
    const languageStatus = page.locator('.statusbar-item[id="status.languageStatus"]');
    await languageStatus.first().waitFor();
    const ls = await languageStatus.first().boundingBox();
    await page.mouse.click(ls.x + ls.width / 2, ls.y + ls.height / 2);
    const languageHover = page.locator('.monaco-hover:not(.hidden)', { hasText: wantText });
    await languageHover.first().waitFor();
    const languageText = (await languageHover.first().innerText()).replace(/\s+/g, ' ');
    assert.match(languageText, /found automatically \(\.venv in the workspace\)/, `language status: ${languageText}`);
    info(`language status: ${JSON.stringify(languageText.slice(0, 160))}`);
    await page.keyboard.press('Escape');
    await page.mouse.move(700, 400);
    await languageHover.first().waitFor({ state: 'hidden' }).catch(() => {});

    // --- Show API changes: a read-only document, what the workspace uses first
    const palette = async (command) => {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible' });
      await page.keyboard.type(command);
      await page.locator(`.quick-input-list .monaco-list-row.focused`, { hasText: command }).first().waitFor();
      await page.keyboard.press('Enter');
    };
    await palette('apidrift: Show API changes');
    const reportTab = page.locator('.tabs-container .tab', { hasText: 'API changes.apidrift-report' });
    await reportTab.first().waitFor();
    await page.locator('.tabs-container .tab.active', { hasText: 'API changes.apidrift-report' }).waitFor();
    const reportEditor = page.locator('.editor-instance .monaco-editor', { hasText: 'Used by this workspace' });
    await reportEditor.first().waitFor();
    const visible = async () => (await reportEditor.first().locator('.view-lines').innerText()).replace(/\u00a0/g, ' ');
    let text = await visible();
    const lines = text.split('\n');
    assert.match(lines[0], /^apidrift API changes: /, text);
    assert.match(lines[1], /^This workspace uses \d+ of the \d+ changes/, text);
    const ranked = lines.filter((l) => /^\s*~ .*\[\d+ uses?\]$/.test(l)).map((l) => Number(/\[(\d+) uses?\]/.exec(l)[1]));
    assert.ok(ranked.length >= 2, `ranked entries in view: ${text}`);
    for (let i = 1; i < ranked.length; i++) assert.ok(ranked[i] <= ranked[i - 1], `not ranked by uses: ${ranked.join(', ')}`);
    assert.ok(ranked[0] > ranked[ranked.length - 1], `the first entry should be used more than the last: ${ranked.join(', ')}`);
    assert.match(lines.find((l) => /^\s*~ /.test(l)), /MultiprocExecutor\.collective_rpc .*\[4 uses\]/, text);
    assert.ok(text.includes('used at hidden_states_generator.py:'), text);
    // the places are links (the link detector decorates them)
    await reportEditor.first().locator('.detected-link', { hasText: 'hidden_states_generator.py:' }).first().waitFor();
    info(`report ranked: ${ranked.join(', ')} uses`);
    const reportShot = await shot(page, 'vsix-2-report.png');
    // read-only: a keystroke changes nothing, the editor says why
    const firstLine = await reportEditor.first().locator('.view-line').first().boundingBox();
    await page.mouse.click(firstLine.x + 40, firstLine.y + firstLine.height / 2);
    await page.keyboard.type('xyz');
    await page.locator('.monaco-editor-overlaymessage', { hasText: /read-only/i }).first().waitFor();
    text = await visible();
    assert.match(text.split('\n')[0], /^apidrift API changes: /, 'the report changed');
    assert.ok(!text.includes('xyz'), 'typed text went into the report');
    assert.equal(await page.locator('.tabs-container .tab.active.dirty').count(), 0, 'the report tab is dirty');
    await shot(page, 'vsix-3-read-only.png');
    // closing asks nothing
    await page.keyboard.press('Escape');
    const closeButton = page.locator('.tabs-container .tab.active .tab-actions .action-label');
    await closeButton.first().click();
    await reportTab.first().waitFor({ state: 'detached' });
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'closing the report opened a dialog');
    info('report closed without a prompt');

    // --- Select target: Automatic marked; pin the .venv; Automatic clears it again
    const rows = page.locator('.quick-input-list .monaco-list-row');
    const focusedRow = page.locator('.quick-input-list .monaco-list-row.focused');
    const rowLabel = async (loc) => (await loc.first().getAttribute('aria-label')) || (await loc.first().innerText());
    const moveTo = async (re) => {
      for (let i = 0; i < 20; i++) {
        if (re.test(await rowLabel(focusedRow))) return;
        await page.keyboard.press('ArrowDown');
      }
      throw new Error(`no row ${re} in the picker: ${JSON.stringify(await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label'))))}`);
    };
    await palette('apidrift: Select target');
    await focusedRow.first().waitFor();
    let current = await rowLabel(focusedRow);
    assert.match(current, /Automatic/, `the focused entry should be Automatic: ${current}`);
    assert.match(current, /\(current\)/, `Automatic should be marked current: ${current}`);
    const all = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label') || e.textContent));
    info(`picker: ${JSON.stringify(all)}`);
    assert.equal(all.filter((l) => /\(current\)/.test(l)).length, 1, `one entry marked current: ${JSON.stringify(all)}`);
    await shot(page, 'vsix-4-select-target.png');
    await moveTo(/site-packages/);
    await page.keyboard.press('Enter');
    await waitForFile(() => {
      const s = readSettings(ws.settingsFile);
      return s && Array.isArray(s['apidrift.targets']) && s['apidrift.targets'][0] === sitePackages;
    }, `apidrift.targets = [${sitePackages}] in settings.json`);
    info(`pinned: ${JSON.stringify(readSettings(ws.settingsFile))}`);
    await page.waitForFunction(() => /comes from apidrift\.targets/.test(document.querySelector('.statusbar-item[id$="apidrift.status"]')?.getAttribute('aria-label') || ''), undefined, { timeout: WAIT }).catch(async () => {
      throw new Error(`the status should say the target comes from the setting: ${await aria()}`);
    });

    await palette('apidrift: Select target');
    await focusedRow.first().waitFor();
    current = await rowLabel(focusedRow);
    assert.match(current, /site-packages.*\(current\)/, `the pinned environment should be focused and marked: ${current}`);
    for (let i = 0; i < 20 && !/Automatic/.test(await rowLabel(focusedRow)); i++) await page.keyboard.press('ArrowUp');
    assert.match(await rowLabel(focusedRow), /Automatic/);
    await page.keyboard.press('Enter');
    await waitForFile(() => {
      const s = readSettings(ws.settingsFile);
      return s && !('apidrift.targets' in s) && s['apidrift.baseline'];
    }, 'apidrift.targets to be removed from settings.json (the baseline stays)');
    info(`after Automatic: ${JSON.stringify(readSettings(ws.settingsFile))}`);
    await page.waitForFunction(() => /comes from automatic detection/.test(document.querySelector('.statusbar-item[id$="apidrift.status"]')?.getAttribute('aria-label') || ''), undefined, { timeout: WAIT }).catch(async () => {
      throw new Error(`the status should say the target comes from automatic detection again: ${await aria()}`);
    });
    label = await aria();
    await page.waitForFunction(() => /^Errors: 3\b/.test(document.querySelector('.statusbar-item[id="status.problems"]')?.getAttribute('aria-label') || ''), undefined, { timeout: WAIT });
    info(`status: ${JSON.stringify(label)}; ${await problems()}`);

    // --- Select baseline: the baseline set now is marked; None removes it
    await palette('apidrift: Select baseline');
    await focusedRow.first().waitFor();
    current = await rowLabel(focusedRow);
    assert.match(current, /vllm-0\.11\.0.*\(current\)/, `the baseline in use should be focused and marked: ${current}`);
    for (let i = 0; i < 20 && !/^\W*None\b/.test(await rowLabel(focusedRow)); i++) await page.keyboard.press('ArrowUp');
    assert.match(await rowLabel(focusedRow), /None/);
    await page.keyboard.press('Enter');
    await waitForFile(() => {
      const s = readSettings(ws.settingsFile);
      return s && !('apidrift.baseline' in s);
    }, 'apidrift.baseline to be removed from settings.json');
    info(`after None: ${JSON.stringify(readSettings(ws.settingsFile))}`);

    if (!argv.has('--no-readme-screenshot')) {
      fs.mkdirSync(MEDIA, { recursive: true });
      fs.copyFileSync(reportShot, path.join(MEDIA, 'api-changes.png'));
      fs.copyFileSync(statusShot, path.join(MEDIA, 'status.png'));
      info('copied the report and status pictures to media/');
    }
    code = 0;
  } catch (e) {
    console.error(`[vsix ${elapsed()}] FAIL: ${e && e.stack ? e.stack : e}`);
    if (page) await shot(page, 'vsix-failure.png').catch(() => {});
    if (server) console.error(`[vsix] last code-server output:\n${server.logTail()}`);
    code = 1;
  } finally {
    if (!finished) {
      finished = true;
      await cleanup();
    }
  }
  info(code === 0 ? 'PASS' : 'FAILED');
  process.exit(code);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
