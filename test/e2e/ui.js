#!/usr/bin/env node
'use strict';
// Browser-driven UI test: what a user sees and does in VS Code (code-server 4.100.3 in headless
// chromium, driven with playwright-core from the e2e cache; see .ci/install-e2e.sh).
//
//   1. fresh workspace: a copy of the vllm user file + .vscode/settings.json (targets -> fixtures/vllm/new)
//   2. code-server on it, extension loaded from this repository (payload extensionDevelopmentPath)
//   3. the file opens; Ctrl+G 110; a red squiggle under `Scheduler` on line 110
//   4. hover it: the problem part names block_size (source apidrift), the server part shows the signature
//   5. caret in it, Ctrl+. , choose "Add argument block_size=VLLM_BLOCK_SIZE", Enter, Ctrl+S
//   6. the file ON DISK has the new argument line inside Scheduler(...); the squiggle goes, the other
//      two findings stay (squiggles on lines 104 and 63; problems counter "Errors: 3" -> "Errors: 2")
//   7. the status bar item (id apidrift.status) reads "apidrift: new"
//
// Screenshots: test-artifacts/e2e/{1-squiggle,2-hover,3-quick-fix,4-after-fix}.png (failure.png on
// error); the hover picture is also copied to media/quick-fix.png (shown in the README) unless
// --no-readme-screenshot is given (integration.test.ts passes it so `npm test` leaves that file alone).
//
// Usage: node test/e2e/ui.js [--keep] [--verbose] [--no-readme-screenshot]
//   --keep     keep the workspace and code-server's run dir (logs) and print their paths
//   --verbose  copy code-server's output to stderr
// Exit code 0 = pass. Every wait is bounded (60 s) and waits for a condition (DOM state, or the file
// on disk, polled every 100 ms); no fixed sleeps.

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { startCodeServer, launchBrowser, openWorkbench, DEFAULT_TIMEOUT_MS } = require('./codeServer');
const { REPO_ROOT, createWorkspace } = require('./workspace');

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'e2e');
const README_SCREENSHOT = path.join(REPO_ROOT, 'media', 'quick-fix.png');
const FIX_TITLE = 'Add argument block_size=VLLM_BLOCK_SIZE';
const ADDED_LINE = '            block_size=VLLM_BLOCK_SIZE,';
const WAIT = DEFAULT_TIMEOUT_MS; // 60 s
const FILE_POLL_MS = 100;

const argv = new Set(process.argv.slice(2));
for (const a of argv) {
  if (!['--keep', '--verbose', '--no-readme-screenshot'].includes(a)) {
    console.error(`ui.js: unknown argument ${a}\nusage: node test/e2e/ui.js [--keep] [--verbose] [--no-readme-screenshot]`);
    process.exit(2);
  }
}

const t0 = Date.now();
const elapsed = () => `${((Date.now() - t0) / 1000).toFixed(1)}s`;
const info = (msg) => console.log(`[ui ${elapsed()}] ${msg}`);

// Installed in the page: where the error squiggles of the visible editor are, as
// [{ line, text, box }] (line number from the gutter, text = the characters under the squiggle,
// box = its client rect),
// and the aria-label of the status bar's problems counter ("Errors: 3, Warnings: 0"-like).
function installPageHelpers() {
  window.__apidriftProblems = () => {
    const item = document.querySelector('.statusbar-item[id="status.problems"]');
    return item ? item.getAttribute('aria-label') || (item.querySelector('[aria-label]') || {}).ariaLabel || '' : '';
  };
  window.__apidriftSquiggles = () => {
    const editor = document.querySelector('.editor-instance .monaco-editor, .monaco-editor');
    if (!editor) return [];
    const lineNumbers = [...editor.querySelectorAll('.margin-view-overlays .line-numbers')];
    const viewLines = [...editor.querySelectorAll('.view-lines .view-line')];
    const within = (el, y) => {
      const r = el.getBoundingClientRect();
      return r.height > 0 && y >= r.top && y < r.bottom;
    };
    const out = [];
    for (const sq of editor.querySelectorAll('.squiggly-error')) {
      const r = sq.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      const y = r.top + r.height / 2;
      const num = lineNumbers.find((el) => within(el, y));
      const vl = viewLines.find((el) => within(el, y));
      let text = '';
      if (vl) {
        const walker = document.createTreeWalker(vl, NodeFilter.SHOW_TEXT);
        const range = document.createRange();
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          for (let i = 0; i < n.data.length; i++) {
            range.setStart(n, i);
            range.setEnd(n, i + 1);
            const c = range.getBoundingClientRect();
            const cx = c.left + c.width / 2;
            if (cx >= r.left && cx <= r.right) text += n.data[i];
          }
        }
      }
      out.push({ line: num ? Number(num.textContent.trim()) : -1, text: text.replace(/\u00a0/g, ' '), box: { x: r.left, y: r.top, width: r.width, height: r.height } });
    }
    return out;
  };
}

async function squiggles(page) {
  return page.evaluate(() => window.__apidriftSquiggles());
}

const brief = (list) => list.map(({ line, text }) => ({ line, text }));

async function waitForSquiggles(page, pred, what) {
  try {
    await page.waitForFunction(pred, undefined, { timeout: WAIT, polling: 'raf' });
  } catch (e) {
    throw new Error(`timed out waiting for ${what}; squiggles now: ${JSON.stringify(await squiggles(page).then(brief, () => '?'))}`);
  }
}

/** Waits until the status bar's problems counter reads "Errors: <n>"; returns its label. */
async function waitForProblems(page, n) {
  try {
    await page.waitForFunction((want) => new RegExp(`^Errors: ${want}\\b`).test(window.__apidriftProblems()), n, { timeout: WAIT });
  } catch {
    throw new Error(`problems counter should say "Errors: ${n}": ${JSON.stringify(await page.evaluate(() => window.__apidriftProblems()))}`);
  }
  return page.evaluate(() => window.__apidriftProblems());
}

async function goToLine(page, line) {
  await page.keyboard.press('Control+G');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor({ state: 'visible' });
  await page.keyboard.type(String(line));
  await page.locator('.quick-input-widget', { hasText: `line ${line}` }).first().waitFor();
  await page.keyboard.press('Enter');
  await input.waitFor({ state: 'hidden' });
  await page.locator('.margin-view-overlays .active-line-number', { hasText: new RegExp(`^${line}$`) }).waitFor();
}

async function boxOfSquiggle(page, line) {
  const sq = (await squiggles(page)).find((s) => s.line === line);
  assert.ok(sq, `no squiggle on line ${line}`);
  return sq.box;
}

/** Waits until `file` on disk satisfies `pred(text)`. */
async function waitForFile(file, pred, what) {
  const deadline = Date.now() + WAIT;
  for (;;) {
    const text = fs.readFileSync(file, 'utf8');
    if (pred(text)) return text;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} in ${file}`);
    await new Promise((r) => setTimeout(r, FILE_POLL_MS));
  }
}

async function main() {
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  fs.rmSync(path.join(ARTIFACTS, 'failure.png'), { force: true }); // from an earlier failed run
  const shot = async (page, name) => {
    const p = path.join(ARTIFACTS, name);
    await page.screenshot({ path: p, animations: 'disabled' });
    info(`screenshot ${path.relative(REPO_ROOT, p)}`);
    return p;
  };

  const ws = createWorkspace({ version: 'new', prefix: 'apidrift-e2e-ui-', name: 'hidden-states' });
  let server;
  let browser;
  let finished = false;
  const cleanup = async () => {
    await Promise.allSettled([browser && browser.close(), server && server.stop()]);
    if (argv.has('--keep')) info(`kept workspace ${ws.dir}`);
    else ws.cleanup();
  };
  const onSignal = (sig) => {
    if (finished) return;
    finished = true;
    console.error(`[ui] ${sig}: shutting down`);
    cleanup().finally(() => process.exit(128 + ({ SIGHUP: 1, SIGINT: 2, SIGTERM: 15 }[sig] || 0)));
  };
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, onSignal);

  let page;
  let code = 1;
  try {
    server = await startCodeServer({ workspaceDir: ws.dir, verbose: argv.has('--verbose'), keepRunDir: argv.has('--keep') });
    info(`code-server on port ${server.port} (ready in ${server.startupMs} ms)${argv.has('--keep') ? `, run dir ${server.runDir}` : ''}`);
    browser = await launchBrowser({ viewport: { width: 1400, height: 900 } });
    page = browser.page;
    page.on('pageerror', (e) => console.error(`[ui] page error: ${e.message}`));

    const url = server.url([
      ['extensionDevelopmentPath', REPO_ROOT],
      ['openFile', ws.file],
    ]);
    const loadMs = await openWorkbench(page, url);
    info(`workbench up in ${loadMs} ms`);
    await page.evaluate(installPageHelpers);

    // The file is open (payload openFile) and the extension reports its state in the status bar.
    const tab = page.locator('.tabs-container .tab.active', { hasText: 'hidden_states_generator.py' });
    await tab.waitFor();
    const editorText = page.locator('.monaco-editor .view-lines');
    await editorText.filter({ hasText: 'import' }).first().waitFor();
    // The extension's item (createStatusBarItem id 'apidrift.status'; the DOM id is prefixed with the extension id).
    const statusItem = page.locator('.statusbar-item[id$="apidrift.status"]');
    await statusItem.first().waitFor();
    info(`file open; status bar: "${(await statusItem.first().innerText()).trim()}"`);

    // Focus the editor and scroll the Scheduler( call into view.
    const firstLine = await editorText.locator('.view-line').first().boundingBox();
    await page.mouse.click(firstLine.x + 5, firstLine.y + firstLine.height / 2);
    await goToLine(page, 110);
    await editorText.filter({ hasText: 'self.scheduler = Scheduler(' }).waitFor();

    const tSquiggle = Date.now();
    await waitForSquiggles(page, () => window.__apidriftSquiggles().some((s) => s.line === 110 && s.text === 'Scheduler'), 'a squiggle under Scheduler on line 110');
    info(`squiggle under Scheduler on line 110 (${Date.now() - tSquiggle} ms after go-to-line, ${Date.now() - t0} ms from start)`);
    // Line 104 (kv_cache_specs=) is in view too.
    await waitForSquiggles(page, () => window.__apidriftSquiggles().some((s) => s.line === 104), 'a squiggle on line 104');
    info(`squiggles in view: ${JSON.stringify(brief(await squiggles(page)))}`);
    await waitForProblems(page, 3);
    await shot(page, '1-squiggle.png');

    // Hover: the problem message.
    let b = await boxOfSquiggle(page, 110);
    await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2);
    await page.mouse.move(b.x + b.width / 2 + 2, b.y + b.height / 2);
    const hover = page.locator('.monaco-editor .monaco-hover:not(.hidden)', { hasText: 'block_size' });
    // Two parts: the problem (from the diagnostic) and the language server's hover (signature).
    const problemPart = hover.locator('.marker.hover-contents');
    // the signature, once, with the missing parameter in bold (Markdown, not a code block)
    const serverPart = hover.locator('.hover-contents:not(.marker)', { hasText: 'Scheduler(vllm_config' });
    await problemPart.waitFor();
    await serverPart.first().waitFor();
    const problemText = await problemPart.innerText();
    assert.match(problemText, /missing 1 required positional argument: 'block_size'/, `hover problem text: ${problemText}`);
    // with a documentation link the code is a link whose brackets are drawn around it, not text
    assert.match(problemText, /apidrift\(?missing-argument\)?/, `hover should name source and code: ${problemText}`);
    info(`hover problem: ${JSON.stringify(problemText.slice(0, 160))}...`);
    const serverText = (await serverPart.first().innerText()).replace(/\s+/g, ' ');
    assert.equal(await serverPart.first().locator('strong', { hasText: 'block_size' }).count(), 1, `the missing parameter in bold: ${serverText}`);
    info(`hover server part: ${JSON.stringify(serverText.slice(0, 160))}...`);
    const hoverShot = await shot(page, '2-hover.png');
    await page.keyboard.press('Escape');
    await hover.waitFor({ state: 'hidden' });

    // Quick fix: caret in the squiggle, Ctrl+., pick the fix, Enter.
    b = await boxOfSquiggle(page, 110);
    await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
    await page.locator('.margin-view-overlays .active-line-number', { hasText: /^110$/ }).waitFor();
    await page.keyboard.press('Control+.');
    const rows = page.locator('.action-widget .monaco-list-row[role="option"]');
    await rows.first().waitFor();
    const titles = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    info(`quick-fix menu: ${JSON.stringify(titles)}`);
    assert.ok(titles.includes(FIX_TITLE), `"${FIX_TITLE}" is not in the quick-fix menu: ${JSON.stringify(titles)}`);
    const wanted = page.locator(`.action-widget .monaco-list-row.focused[aria-label="${FIX_TITLE}"]`);
    for (let i = 0; i < titles.length && !(await wanted.count()); i++) await page.keyboard.press('ArrowDown');
    await wanted.waitFor();
    await shot(page, '3-quick-fix.png');
    await page.keyboard.press('Enter');
    await page.locator('.action-widget').waitFor({ state: 'hidden' });
    await editorText.filter({ hasText: 'block_size=VLLM_BLOCK_SIZE,' }).waitFor();
    info('fix applied in the editor');

    // Save; the file on disk has the new line inside the Scheduler( call.
    await page.keyboard.press('Control+S');
    const onDisk = await waitForFile(ws.file, (t) => t.split('\n').includes(ADDED_LINE), 'the inserted argument line');
    const lines = onDisk.split('\n');
    const open = lines.findIndex((l) => l.trimEnd().endsWith('self.scheduler = Scheduler('));
    const added = lines.indexOf(ADDED_LINE);
    let close = open + 1;
    while (close < lines.length && lines[close].trim() !== ')') close++;
    assert.ok(open >= 0 && added > open && added < close, `"${ADDED_LINE.trim()}" should be a line of its own inside Scheduler(...):\n${lines.slice(open, close + 1).join('\n')}`);
    assert.strictEqual(lines[added - 1].trim(), 'structured_output_manager=grammar,', 'the argument goes after the last one');
    info(`on disk, line ${added + 1}: ${JSON.stringify(lines[added])}`);

    // The block_size squiggle goes; kv_cache_specs (line 104, in view) stays ...
    await waitForSquiggles(page, () => !window.__apidriftSquiggles().some((s) => s.line === 110), 'the squiggle on line 110 to go away');
    await waitForSquiggles(page, () => window.__apidriftSquiggles().some((s) => s.line === 104), 'the squiggle on line 104 to stay');
    const inView = await squiggles(page);
    assert.deepStrictEqual(inView.map((s) => s.line).sort((x, y) => x - y), [104], `squiggles in view after the fix: ${JSON.stringify(brief(inView))}`);
    // ... and the problems counter in the status bar says 2 errors.
    info(`problems counter: ${JSON.stringify(await waitForProblems(page, 2))}`);
    // The editor tab's problem badge follows (it lags the counter a little).
    await tab.locator('.monaco-icon-label[aria-label$="2 problems in this file"]').waitFor();
    await shot(page, '4-after-fix.png');

    // ... and so does line 63 (SchedulerConfig), out of view until we go there.
    await goToLine(page, 63);
    await waitForSquiggles(page, () => window.__apidriftSquiggles().some((s) => s.line === 63 && s.text === 'SchedulerConfig'), 'the squiggle under SchedulerConfig on line 63');
    const all = [...new Set([...inView, ...(await squiggles(page))].map((s) => s.line))].sort((x, y) => x - y);
    assert.deepStrictEqual(all, [63, 104], `remaining squiggles: ${JSON.stringify(all)}`);
    info(`remaining squiggles: lines ${all.join(', ')}`);

    // Status bar item.
    // ("$(check) apidrift: new" when ready; the icon renders as a codicon span.)
    const ready = statusItem.filter({ hasText: /apidrift: new/ });
    try {
      await ready.first().waitFor();
    } catch {
      throw new Error(`status bar item should read "apidrift: new": ${JSON.stringify(await statusItem.first().innerText().catch(() => '?'))}`);
    }
    const statusText = (await ready.first().innerText()).trim();
    assert.match(statusText, /apidrift/, `status bar item: ${statusText}`);
    info(`status bar: "${statusText}" (item id ${await ready.first().getAttribute("id")})`);

    if (!argv.has('--no-readme-screenshot')) {
      fs.copyFileSync(hoverShot, README_SCREENSHOT);
      info(`copied ${path.relative(REPO_ROOT, hoverShot)} to ${path.relative(REPO_ROOT, README_SCREENSHOT)}`);
    }
    code = 0;
  } catch (e) {
    console.error(`[ui ${elapsed()}] FAIL: ${e && e.stack ? e.stack : e}`);
    if (page) await shot(page, 'failure.png').catch(() => {});
    if (server) console.error(`[ui] last code-server output:\n${server.logTail()}`);
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
