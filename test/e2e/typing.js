#!/usr/bin/env node
'use strict';
// Browser-driven typing test: no flicker while a call is typed, checked frame by frame as a person
// sees it (code-server 4.100.3 in headless chromium, the extension loaded from this repository).
//
//   1. fresh workspace (a copy of the vllm user file, targets -> fixtures/vllm/new); the file opens
//      and its three findings show (problems counter "Errors: 3")
//   2. Ctrl+End (the empty last line), then a new call is typed one key at a time, as a person
//      types it (70 ms between keys; VS Code closes the bracket, the final `)` types over it):
//        sched = Scheduler(vllm_config=cfg, kv_cache_config=kv, structured_output_manager=som)
//      Almost every intermediate text is a call with missing arguments or a broken statement
//      (`kv_cache_config=`): before the typing pause, the squiggle went on and off with the keys.
//   3. on every animation frame from the first key until the squiggle has settled, the page
//      records whether an error squiggle is drawn on the typed line
//   4. asserts: the squiggle never goes off once on (no on-off-on), it comes on once, at least
//      350 ms after the last change of the text (block_size is missing), and the file saved has the typed line
//
// Screenshot: test-artifacts/e2e/typing-after.png (typing-failure.png on error).
// Usage: node test/e2e/typing.js [--keep] [--verbose]. Exit code 0 = pass. Waits are bounded (60 s).

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { startCodeServer, launchBrowser, openWorkbench, DEFAULT_TIMEOUT_MS } = require('./codeServer');
const { REPO_ROOT, createWorkspace } = require('./workspace');

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'e2e');
const TYPED = 'sched = Scheduler(vllm_config=cfg, kv_cache_config=kv, structured_output_manager=som)';
const KEY_DELAY_MS = 70;
const WAIT = DEFAULT_TIMEOUT_MS;

const argv = new Set(process.argv.slice(2));
for (const a of argv) {
  if (!['--keep', '--verbose'].includes(a)) {
    console.error(`typing.js: unknown argument ${a}\nusage: node test/e2e/typing.js [--keep] [--verbose]`);
    process.exit(2);
  }
}
const t0 = Date.now();
const info = (msg) => console.log(`[typing ${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}`);

// Installed in the page: a light per-frame probe (is an error squiggle drawn on the line whose
// gutter number is `line`?) and a recorder that runs it on every animation frame.
function installRecorder() {
  window.__apidriftSquiggleOn = (line) => {
    const editor = document.querySelector('.editor-instance .monaco-editor, .monaco-editor');
    if (!editor) return false;
    const num = [...editor.querySelectorAll('.margin-view-overlays .line-numbers')].find((el) => el.textContent.trim() === String(line));
    if (!num) return false;
    const r = num.getBoundingClientRect();
    return [...editor.querySelectorAll('.squiggly-error')].some((sq) => {
      const b = sq.getBoundingClientRect();
      const y = b.top + b.height / 2;
      return b.width > 0 && y >= r.top && y < r.bottom;
    });
  };
  window.__apidriftRecord = (line) => {
    const frames = [];
    let running = true;
    const tick = () => {
      if (!running) return;
      frames.push({ t: performance.now(), on: window.__apidriftSquiggleOn(line) });
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    window.__apidriftStop = () => {
      running = false;
      return frames;
    };
  };
  window.__apidriftProblems = () => {
    const item = document.querySelector('.statusbar-item[id="status.problems"]');
    return item ? item.getAttribute('aria-label') || '' : '';
  };
}

async function main() {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  const shot = async (page, name) => {
    await page.screenshot({ path: path.join(ARTIFACTS, name), animations: 'disabled' });
    info(`screenshot test-artifacts/e2e/${name}`);
  };
  const ws = createWorkspace({ version: 'new', prefix: 'apidrift-e2e-typing-', name: 'typing' });
  let server;
  let browser;
  let page;
  let code = 1;
  const cleanup = async () => {
    await Promise.allSettled([browser && browser.close(), server && server.stop()]);
    if (argv.has('--keep')) info(`kept workspace ${ws.dir}`);
    else ws.cleanup();
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => cleanup().finally(() => process.exit(1)));
  try {
    // no completion popups: every key goes into the text as typed
    server = await startCodeServer({
      workspaceDir: ws.dir,
      verbose: argv.has('--verbose'),
      keepRunDir: argv.has('--keep'),
      settings: { 'editor.quickSuggestions': { other: 'off', comments: 'off', strings: 'off' }, 'editor.suggestOnTriggerCharacters': false, 'editor.wordBasedSuggestions': 'off', 'editor.parameterHints.enabled': false },
    });
    browser = await launchBrowser({ viewport: { width: 1400, height: 900 } });
    page = browser.page;
    await openWorkbench(page, server.url([['extensionDevelopmentPath', REPO_ROOT], ['openFile', ws.file]]));
    await page.evaluate(installRecorder);
    const editorText = page.locator('.monaco-editor .view-lines');
    await editorText.filter({ hasText: 'import' }).first().waitFor();
    await page.waitForFunction(() => /^Errors: 3\b/.test(window.__apidriftProblems()), undefined, { timeout: WAIT });
    info('file open, three findings shown');

    const lastLine = fs.readFileSync(ws.file, 'utf8').split('\n').length; // the empty line after the final newline
    const first = await editorText.locator('.view-line').first().boundingBox();
    await page.mouse.click(first.x + 5, first.y + first.height / 2);
    await page.keyboard.press('Control+End');
    await page.locator('.margin-view-overlays .active-line-number', { hasText: new RegExp(`^${lastLine}$`) }).waitFor();
    assert.strictEqual(await page.evaluate((l) => window.__apidriftSquiggleOn(l), lastLine), false);

    await page.evaluate((l) => window.__apidriftRecord(l), lastLine);
    const keys = [];
    for (const ch of TYPED) {
      keys.push(await page.evaluate(() => performance.now()));
      await page.keyboard.type(ch);
      await page.waitForTimeout(KEY_DELAY_MS);
    }
    const lastKey = keys[keys.length - 1];
    info(`typed ${TYPED.length} keys in ${Math.round(lastKey - keys[0])} ms; largest gap between keys ${Math.round(Math.max(...keys.slice(1).map((k, i) => k - keys[i])))} ms`);
    // the squiggle comes once typing pauses; then a second more of frames to see it stays
    await page.waitForFunction((l) => window.__apidriftSquiggleOn(l), lastLine, { timeout: WAIT, polling: 'raf' });
    await page.waitForTimeout(1000);
    const frames = await page.evaluate(() => window.__apidriftStop());
    const changes = [];
    for (let i = 1; i < frames.length; i++) if (frames[i].on !== frames[i - 1].on) changes.push({ at: Math.round(frames[i].t - lastKey), on: frames[i].on });
    info(`${frames.length} frames recorded; squiggle on the typed line changed ${changes.length} times: ${JSON.stringify(changes)} (ms after the last key)`);
    assert.ok(frames.length > TYPED.length, `too few frames recorded (${frames.length})`);
    assert.ok(!frames[0].on, 'no squiggle on the empty line before typing');
    assert.deepStrictEqual(changes.map((c) => c.on), [true], `the squiggle should come on once and stay (never on and off): ${JSON.stringify(changes)}`);
    // the last key types over the bracket VS Code closed: the text last changed with the one before
    const lastChange = keys[keys.length - 2];
    const afterChange = Math.round(changes[0].at + lastKey - lastChange);
    assert.ok(afterChange >= 350, `the squiggle should wait for the pause in typing: it came ${afterChange} ms after the last change of the text`);
    assert.ok(frames[frames.length - 1].on, 'the squiggle stays on');
    info(`squiggle on ${afterChange} ms after the last change of the text (${changes[0].at} ms after the last key)`);

    await page.waitForFunction(() => /^Errors: 4\b/.test(window.__apidriftProblems()), undefined, { timeout: WAIT });
    await shot(page, 'typing-after.png');
    await page.keyboard.press('Control+S');
    const deadline = Date.now() + WAIT;
    let lines;
    for (;;) {
      lines = fs.readFileSync(ws.file, 'utf8').split('\n');
      if (lines[lastLine - 1] === TYPED || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.strictEqual(lines[lastLine - 1], TYPED, 'the typed line on disk');
    code = 0;
  } catch (e) {
    console.error(`[typing] FAIL: ${e && e.stack ? e.stack : e}`);
    if (page) await shot(page, 'typing-failure.png').catch(() => {});
    if (server) console.error(`[typing] last code-server output:\n${server.logTail()}`);
  } finally {
    await cleanup();
  }
  info(code === 0 ? 'PASS' : 'FAILED');
  process.exit(code);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
