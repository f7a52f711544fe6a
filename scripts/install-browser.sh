#!/usr/bin/env bash
# Debian's Chromium and a Korean font for the browser tests (Playwright drives /usr/bin/chromium;
# no browser is downloaded), and axe-core from npm (tests/browser/package-lock.json), which the
# tests inject into every page to check its accessibility. Needs root or sudo the first time for
# the Debian packages; does nothing that is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
command -v npm >/dev/null 2>&1 || need+=(npm)
if [ "${#need[@]}" -gt 0 ]; then
  scripts/apt-install.sh install-browser browser "${need[@]}"
fi
if [ ! -f tests/browser/node_modules/axe-core/axe.min.js ]; then
  if command -v npm >/dev/null 2>&1; then
    echo "install-browser: npm ci (axe-core, for the accessibility checks)" >&2
    npm ci --prefix tests/browser --no-audit --no-fund --silent
  else
    echo "install-browser: no npm; the accessibility checks of the browser tests will be skipped" >&2
  fi
fi
