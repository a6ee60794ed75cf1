'use strict';
// Helpers to run VS Code (code-server) headlessly and drive it with playwright-core.
//
// Everything is installed by .ci/install-e2e.sh into one cache directory:
//   $APIDRIFT_CODE_SERVER_HOME, else $APIDRIFT_E2E_HOME, else ~/.cache/apidrift-e2e/code-server-4.100.3
// It holds node_modules/code-server and node_modules/playwright-core.
//
// Plain CommonJS, no build step, no dependencies besides Node and the cache directory.

const cp = require('child_process');
const fs = require('fs');
const http = require('http');
const net = require('net');
const os = require('os');
const path = require('path');

const CODE_SERVER_VERSION = '4.100.3';
const DEFAULT_TIMEOUT_MS = 60_000;
const POLL_MS = 100;

// Settings that keep a fresh profile quiet: no welcome tab, no trust dialog, no update or
// telemetry traffic. Merged with the caller's settings (the caller wins).
const DEFAULT_SETTINGS = Object.freeze({
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'workbench.enableExperiments': false,
  'workbench.tips.enabled': false,
  'workbench.welcomePage.walkthroughs.openOnInstall': false,
  'editor.hover.delay': 100,
  'files.autoSave': 'off',
  'chat.commandCenter.enabled': false,
  'window.commandCenter': false,
  'git.enabled': false,
});

function e2eHome() {
  const fromEnv = process.env.APIDRIFT_CODE_SERVER_HOME || process.env.APIDRIFT_E2E_HOME;
  return path.resolve(
    fromEnv || path.join(os.homedir(), '.cache', 'apidrift-e2e', `code-server-${CODE_SERVER_VERSION}`),
  );
}

function notInstalled(what) {
  return new Error(
    `${what} not found under ${e2eHome()}. Run .ci/install-e2e.sh first ` +
      '(or point APIDRIFT_E2E_HOME / APIDRIFT_CODE_SERVER_HOME at the install).',
  );
}

function codeServerEntry() {
  const entry = path.join(e2eHome(), 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!fs.existsSync(entry)) throw notInstalled('code-server');
  return entry;
}

function loadPlaywright() {
  const dir = path.join(e2eHome(), 'node_modules', 'playwright-core');
  if (!fs.existsSync(path.join(dir, 'package.json'))) throw notInstalled('playwright-core');
  return require(dir);
}

function chromiumPath() {
  const candidates = [process.env.APIDRIFT_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  for (const c of candidates) if (c && fs.existsSync(c)) return c;
  throw new Error('chromium not found: install it (.ci/install-e2e.sh) or set APIDRIFT_CHROMIUM');
}

/** `vscode-remote://127.0.0.1:<port>/abs/path`: how the web workbench names a file on the server. */
function remoteUri(port, absPath) {
  const p = path.resolve(absPath).split(path.sep).map(encodeURIComponent).join('/');
  return `vscode-remote://127.0.0.1:${port}${p.startsWith('/') ? p : '/' + p}`;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Resolves with `promise`, or rejects with `message` after `ms`. */
function withTimeout(promise, ms, message) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(message)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

function httpStatus(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

function groupAlive(pid) {
  try {
    process.kill(-pid, 0);
    return true;
  } catch (e) {
    return e.code === 'EPERM';
  }
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

// Process groups to kill if this Node process exits without calling stop().
const liveGroups = new Set();
process.on('exit', () => {
  for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
});

/**
 * Starts a fresh code-server: new user-data-dir, XDG dirs and config in a temp dir, free port,
 * no auth, no gallery. Resolves once /healthz answers 200.
 *
 * @param {object} opts
 * @param {string} [opts.workspaceDir]   folder to open (also used by url())
 * @param {string} [opts.extensionsDir]  default: an empty dir inside the run dir
 * @param {object} [opts.settings]       merged over DEFAULT_SETTINGS into User/settings.json
 * @param {object} [opts.env]            extra environment (reaches the extension host too)
 * @param {number} [opts.timeoutMs]      startup timeout, default 60 s
 * @param {boolean} [opts.verbose]       copy server output to stderr (also APIDRIFT_E2E_VERBOSE=1)
 * @param {boolean} [opts.keepRunDir]    keep the temp dir after stop() (also APIDRIFT_E2E_KEEP=1)
 */
async function startCodeServer(opts = {}) {
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const verbose = opts.verbose ?? process.env.APIDRIFT_E2E_VERBOSE === '1';
  const keepRunDir = opts.keepRunDir ?? process.env.APIDRIFT_E2E_KEEP === '1';
  const workspaceDir = opts.workspaceDir ? path.resolve(opts.workspaceDir) : undefined;
  if (workspaceDir && !fs.statSync(workspaceDir, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`workspace folder does not exist: ${workspaceDir}`);
  }
  const entry = codeServerEntry();

  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-e2e-'));
  const userDataDir = path.join(runDir, 'data');
  const extensionsDir = path.resolve(opts.extensionsDir || path.join(runDir, 'extensions'));
  const configFile = path.join(runDir, 'config.yaml');
  const logFile = path.join(runDir, 'code-server.log');
  fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
  fs.mkdirSync(extensionsDir, { recursive: true });
  fs.mkdirSync(path.join(runDir, 'xdg-data'), { recursive: true });
  fs.mkdirSync(path.join(runDir, 'xdg-config'), { recursive: true });
  fs.mkdirSync(path.join(runDir, 'xdg-cache'), { recursive: true });
  fs.mkdirSync(path.join(runDir, 'tmp'), { recursive: true });
  fs.writeFileSync(
    path.join(userDataDir, 'User', 'settings.json'),
    JSON.stringify({ ...DEFAULT_SETTINGS, ...(opts.settings || {}) }, null, 2),
  );

  const port = await freePort();
  fs.writeFileSync(configFile, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);

  const args = [
    entry,
    '--bind-addr', `127.0.0.1:${port}`,
    '--auth', 'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--user-data-dir', userDataDir,
    '--extensions-dir', extensionsDir,
    '--config', configFile,
  ];
  if (workspaceDir) args.push(workspaceDir);

  const env = {
    ...process.env,
    ...(opts.env || {}),
    XDG_DATA_HOME: path.join(runDir, 'xdg-data'),
    XDG_CONFIG_HOME: path.join(runDir, 'xdg-config'),
    XDG_CACHE_HOME: path.join(runDir, 'xdg-cache'), // @vscode/deviceid writes here
    TMPDIR: path.join(runDir, 'tmp'), // vscode-ipc-*.sock, vscode-git-*.sock, ... go away with the run dir
    EXTENSIONS_GALLERY: '{}', // no open-vsx lookups
  };
  delete env.PORT; // code-server would let $PORT override --bind-addr
  delete env.PASSWORD;
  delete env.HASHED_PASSWORD;

  const logStream = fs.createWriteStream(logFile);
  const tail = [];
  const child = cp.spawn(process.execPath, args, {
    cwd: runDir,
    env,
    detached: true, // own process group: stop() takes down extension hosts and watchers too
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  liveGroups.add(child.pid);
  const onData = (chunk) => {
    logStream.write(chunk);
    if (verbose) process.stderr.write(chunk);
    for (const line of chunk.toString().split('\n')) if (line.trim()) tail.push(line);
    if (tail.length > 40) tail.splice(0, tail.length - 40);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exitInfo = null;
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exitInfo = { code, signal };
      resolve(exitInfo);
    });
  });

  let stopped = null;
  async function stop() {
    if (stopped) return stopped;
    stopped = (async () => {
      if (groupAlive(child.pid)) {
        killGroup(child.pid, 'SIGTERM');
        const deadline = Date.now() + 10_000;
        while (groupAlive(child.pid) && Date.now() < deadline) await sleep(POLL_MS);
        if (groupAlive(child.pid)) killGroup(child.pid, 'SIGKILL');
      }
      await withTimeout(exited, 5_000, 'code-server did not exit').catch(() => {});
      liveGroups.delete(child.pid);
      await new Promise((r) => logStream.end(r));
      if (!keepRunDir) fs.rmSync(runDir, { recursive: true, force: true, maxRetries: 3 });
    })();
    return stopped;
  }

  const base = `http://127.0.0.1:${port}`;
  const started = Date.now();
  try {
    for (;;) {
      if (exitInfo) {
        throw new Error(
          `code-server exited during startup (code ${exitInfo.code}, signal ${exitInfo.signal}):\n${tail.join('\n')}`,
        );
      }
      if ((await httpStatus(`${base}/healthz`)) === 200) break;
      if (Date.now() - started > timeoutMs) {
        throw new Error(`code-server did not answer ${base}/healthz within ${timeoutMs} ms:\n${tail.join('\n')}`);
      }
      await sleep(POLL_MS);
    }
  } catch (e) {
    await stop();
    throw e;
  }

  return {
    port,
    baseUrl: base,
    pid: child.pid,
    runDir,
    userDataDir,
    extensionsDir,
    workspaceDir,
    logFile,
    startupMs: Date.now() - started,
    /** Last lines of server output (for error messages). */
    logTail: () => tail.join('\n'),
    /** Remote URI of an absolute path on this server. */
    remoteUri: (absPath) => remoteUri(port, absPath),
    /**
     * Workbench URL. `payload`: array of [key, value] pairs or a plain object; values that are
     * absolute paths are turned into vscode-remote URIs, so
     * url({ extensionDevelopmentPath: dir, openFile: file }) works as is.
     */
    url(payload = [], { folder = workspaceDir, workspace } = {}) {
      const pairs = Array.isArray(payload) ? payload : Object.entries(payload);
      const fixed = pairs
        .filter(([, v]) => v !== undefined && v !== null)
        .map(([k, v]) => [k, typeof v === 'string' && path.isAbsolute(v) ? remoteUri(port, v) : String(v)]);
      const q = [];
      // a .code-workspace file (multi-root) instead of a folder
      if (workspace) q.push(`workspace=${encodeURIComponent(path.resolve(workspace))}`);
      else if (folder) q.push(`folder=${encodeURIComponent(path.resolve(folder))}`);
      if (fixed.length) q.push(`payload=${encodeURIComponent(JSON.stringify(fixed))}`);
      return `${base}/${q.length ? '?' + q.join('&') : ''}`;
    },
    stop,
  };
}

/**
 * Launches headless Debian chromium through playwright-core (from the e2e cache dir) and opens
 * one page. Resolves to { playwright, browser, context, page, close() }; close() never hangs.
 */
async function launchBrowser({ headless = true, viewport = { width: 1400, height: 900 }, timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
  const playwright = loadPlaywright();
  // Chromium writes crash-report settings and dconf files under $XDG_CONFIG_HOME/$XDG_CACHE_HOME
  // and org.chromium.Chromium.* under $TMPDIR: keep them out of $HOME and /tmp.
  const xdgDir = fs.mkdtempSync(path.join(os.tmpdir(), 'apidrift-e2e-chromium-'));
  fs.mkdirSync(path.join(xdgDir, 'tmp'));
  const removeXdgDir = () => fs.rmSync(xdgDir, { recursive: true, force: true, maxRetries: 3 });
  let browser;
  try {
    browser = await playwright.chromium.launch({
      executablePath: chromiumPath(),
      headless,
      timeout: timeoutMs,
      // The caller owns signal handling (playwright's SIGINT handler would process.exit(130)
      // before the caller has stopped code-server). Playwright still kills chromium on exit.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-dev-shm-usage'],
      env: {
        ...process.env,
        XDG_CONFIG_HOME: path.join(xdgDir, 'config'),
        XDG_CACHE_HOME: path.join(xdgDir, 'cache'),
        TMPDIR: path.join(xdgDir, 'tmp'),
      },
    });
  } catch (e) {
    removeXdgDir();
    throw e;
  }
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(timeoutMs);
  const page = await context.newPage();
  let closing = null;
  const close = () => {
    if (!closing) {
      closing = withTimeout(browser.close(), 15_000, 'browser.close() timed out')
        .catch(() => killChromiumChildren())
        .finally(removeXdgDir);
    }
    return closing;
  };
  return { playwright, browser, context, page, close };
}

// Last resort when browser.close() hangs: chromium processes started by this Node process.
function killChromiumChildren() {
  let out = '';
  try {
    out = cp.execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  } catch {
    return;
  }
  for (const line of out.split('\n')) {
    const [pid, comm] = line.trim().split(/\s+/);
    if (pid && /chrom/i.test(comm || '')) killGroup(Number(pid), 'SIGKILL');
  }
}

/**
 * Opens the workbench at `url` and waits until the editor area is rendered.
 * Returns the time it took in ms.
 */
async function openWorkbench(page, url, { timeoutMs = DEFAULT_TIMEOUT_MS } = {}) {
  const t0 = Date.now();
  await page.goto(url, { timeout: timeoutMs });
  await page.locator('.monaco-workbench .part.editor').waitFor({ timeout: timeoutMs });
  return Date.now() - t0;
}

module.exports = {
  CODE_SERVER_VERSION,
  DEFAULT_SETTINGS,
  DEFAULT_TIMEOUT_MS,
  e2eHome,
  codeServerEntry,
  loadPlaywright,
  chromiumPath,
  remoteUri,
  startCodeServer,
  launchBrowser,
  openWorkbench,
  withTimeout,
};
