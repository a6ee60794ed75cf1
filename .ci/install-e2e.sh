#!/usr/bin/env bash
# Installs everything the apidrift end-to-end tests need, without internet access
# beyond the npm registry and the Debian apt mirrors:
#
#   * apt packages: chromium, ripgrep, libkrb5-dev, pkg-config
#   * code-server (default 4.100.3), installed offline into a cache directory
#     (the GitHub downloads done by its postinstall scripts are replaced by local steps)
#   * playwright-core, installed into the same cache directory (not into the repo)
#
# Cache directory: $APIDRIFT_CODE_SERVER_HOME, else $APIDRIFT_E2E_HOME,
# else $HOME/.cache/apidrift-e2e/code-server-<version>.
# test/e2e/codeServer.js resolves the same directory the same way.
#
# Idempotent: a marker file is written at the end; when it is present and matches the
# requested versions the script only checks the apt packages and exits. `npm test` runs it
# first (pretest), so the README's test command works on a fresh machine.
#
# Environment:
#   APIDRIFT_CODE_SERVER_HOME / APIDRIFT_E2E_HOME   cache directory (see above)
#   APIDRIFT_CODE_SERVER_VERSION                    default 4.100.3
#   APIDRIFT_PLAYWRIGHT_VERSION                     default 1.65.1
#   APIDRIFT_SKIP_APT=1                             do not touch apt at all
#   APIDRIFT_E2E_FORCE=1                            ignore the marker and redo every step
set -euo pipefail

CS_VERSION="${APIDRIFT_CODE_SERVER_VERSION:-4.100.3}"
PW_VERSION="${APIDRIFT_PLAYWRIGHT_VERSION:-1.65.1}"
CACHE="${APIDRIFT_CODE_SERVER_HOME:-${APIDRIFT_E2E_HOME:-$HOME/.cache/apidrift-e2e/code-server-$CS_VERSION}}"
MARKER="$CACHE/.apidrift-e2e-installed"
MARKER_CONTENT="code-server=$CS_VERSION playwright-core=$PW_VERSION"
APT_PACKAGES=(chromium ripgrep libkrb5-dev pkg-config)

START_TS=$(date +%s)

# Two test runs at once (two work trees of one machine) install one after the other.
mkdir -p "$(dirname "$CACHE")"
if command -v flock >/dev/null 2>&1; then
  exec 9>"$CACHE.lock"
  flock 9
fi
log() { printf '[install-e2e] %s\n' "$*"; }
die() { printf '[install-e2e] ERROR: %s\n' "$*" >&2; exit 1; }
run() { log "+ $*"; "$@"; }

# ---------------------------------------------------------------- apt packages
as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else die "need root (or sudo) to run: $*"; fi
}

pkg_installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

install_apt_packages() {
  if [ "${APIDRIFT_SKIP_APT:-0}" = 1 ]; then
    log "apt: skipped (APIDRIFT_SKIP_APT=1)"
    return
  fi
  command -v dpkg-query >/dev/null 2>&1 || die "dpkg-query not found: this script expects Debian/Ubuntu"
  local missing=() p
  for p in "${APT_PACKAGES[@]}"; do
    pkg_installed "$p" || missing+=("$p")
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "apt: ${APT_PACKAGES[*]} already installed"
    return
  fi
  log "apt: installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

check_tools() {
  local t
  for t in node npm rg; do
    command -v "$t" >/dev/null 2>&1 || die "'$t' not found on PATH"
  done
  [ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || die "chromium not found"
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" = 20 ] || log "WARNING: code-server $CS_VERSION declares engines.node=20, found node $(node -v)"
}

# ---------------------------------------------------------------- code-server
CS_PKG="$CACHE/node_modules/code-server"
VSCODE_DIR="$CS_PKG/lib/vscode"

installed_version() { # <package.json> -> version or empty
  if [ -f "$1" ]; then node -p "require(process.argv[1]).version" "$1" 2>/dev/null || true; fi
}

install_npm_packages() {
  mkdir -p "$CACHE"
  # A package.json of its own stops npm from walking up into a parent project.
  if [ ! -f "$CACHE/package.json" ]; then
    printf '{\n  "name": "apidrift-e2e-cache",\n  "private": true\n}\n' > "$CACHE/package.json"
  fi
  if [ "$(installed_version "$CS_PKG/package.json")" = "$CS_VERSION" ] \
     && [ "$(installed_version "$CACHE/node_modules/playwright-core/package.json")" = "$PW_VERSION" ] \
     && [ "${APIDRIFT_E2E_FORCE:-0}" != 1 ]; then
    log "npm: code-server@$CS_VERSION and playwright-core@$PW_VERSION already present"
    return
  fi
  if [ "$(installed_version "$CS_PKG/package.json")" != "$CS_VERSION" ] || [ "${APIDRIFT_E2E_FORCE:-0}" = 1 ]; then
    # A (re)installed code-server package needs the lib/vscode steps again.
    rm -f "$CACHE"/.step-*
  fi
  log "npm: installing code-server@$CS_VERSION playwright-core@$PW_VERSION into $CACHE"
  (cd "$CACHE" && run npm install --no-audit --no-fund --ignore-scripts \
      "code-server@$CS_VERSION" "playwright-core@$PW_VERSION")
}

install_vscode_deps() {
  [ -f "$VSCODE_DIR/package.json" ] || die "$VSCODE_DIR/package.json missing: code-server install is broken"
  local step="$CACHE/.step-vscode-deps"
  if [ -f "$step" ] && [ "${APIDRIFT_E2E_FORCE:-0}" != 1 ]; then
    log "vscode: server dependencies already installed"
  else
    log "vscode: installing server dependencies (lib/vscode, --omit=dev, no scripts)"
    # (The recipe's --unsafe-perm is a no-op that npm 11 warns about, so it is left out.)
    (cd "$VSCODE_DIR" && run npm install --no-audit --no-fund --omit=dev --ignore-scripts)
    touch "$step"
  fi

  # @vscode/ripgrep's postinstall downloads rg from GitHub: use the system one instead.
  local rgdir="$VSCODE_DIR/node_modules/@vscode/ripgrep/bin"
  if [ ! -x "$rgdir/rg" ]; then
    log "vscode: copying $(command -v rg) to lib/vscode/node_modules/@vscode/ripgrep/bin/rg"
    mkdir -p "$rgdir"
    cp "$(command -v rg)" "$rgdir/rg"
    chmod +x "$rgdir/rg"
  fi

  step="$CACHE/.step-vscode-rebuild"
  if [ -f "$step" ] && [ "${APIDRIFT_E2E_FORCE:-0}" != 1 ]; then
    log "vscode: native modules already built"
  else
    log "vscode: building native modules (node-pty, spdlog, native-watchdog, kerberos, ...); can take a minute"
    (cd "$VSCODE_DIR" && run env npm_config_yes=true npm rebuild)
    local mod
    for mod in pty.node spdlog.node watchdog.node; do
      [ -n "$(find "$VSCODE_DIR/node_modules" -name "$mod" -print -quit)" ] || die "native module $mod was not built"
    done
    touch "$step"
  fi

  # code-server loads lib/vscode/node_modules.asar; the unpacked folder works in its place.
  if [ ! -e "$VSCODE_DIR/node_modules.asar" ]; then
    log "vscode: linking node_modules.asar -> node_modules"
    ln -sfn node_modules "$VSCODE_DIR/node_modules.asar"
  fi

  step="$CACHE/.step-argon2"
  if [ -f "$step" ] && [ "${APIDRIFT_E2E_FORCE:-0}" != 1 ]; then
    log "code-server: argon2 already built"
  else
    log "code-server: building argon2"
    (cd "$CACHE" && run npm rebuild argon2)
    [ -n "$(find "$CACHE/node_modules/argon2" -name 'argon2.node' -print -quit)" ] || die "argon2.node was not built"
    touch "$step"
  fi
}

smoke_test() {
  log "check: node $CS_PKG/out/node/entry.js --version"
  local out
  out=$(cd "$CACHE" && XDG_DATA_HOME="$CACHE/.smoke/data" XDG_CONFIG_HOME="$CACHE/.smoke/config" \
        node "$CS_PKG/out/node/entry.js" --version 2>&1) || die "code-server --version failed: $out"
  rm -rf "$CACHE/.smoke"
  log "check: $(printf '%s\n' "$out" | tail -n1)"
  (cd "$CACHE" && node -e "require('playwright-core')") || die "playwright-core cannot be loaded from $CACHE"
}

# ---------------------------------------------------------------- main
log "cache directory: $CACHE"
install_apt_packages
check_tools

if [ -f "$MARKER" ] && [ "$(cat "$MARKER")" = "$MARKER_CONTENT" ] && [ "${APIDRIFT_E2E_FORCE:-0}" != 1 ] \
   && [ -f "$CS_PKG/out/node/entry.js" ] && [ -f "$CACHE/node_modules/playwright-core/package.json" ]; then
  log "already installed ($MARKER_CONTENT); nothing to do"
else
  rm -f "$MARKER"
  install_npm_packages
  install_vscode_deps
  smoke_test
  printf '%s' "$MARKER_CONTENT" > "$MARKER"
  log "wrote marker $MARKER"
fi

log "code-server entry: $CS_PKG/out/node/entry.js"
log "playwright-core:   $CACHE/node_modules/playwright-core"
log "done in $(( $(date +%s) - START_TS )) s"
