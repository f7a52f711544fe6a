#!/usr/bin/env bash
# Debian's Chromium and a Korean font for the browser tests (Playwright drives /usr/bin/chromium;
# no browser is downloaded). Needs root or sudo the first time; does nothing when both are there.
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
dpkg -s fonts-noto-cjk >/dev/null 2>&1 || need+=(fonts-noto-cjk)
if [ "${#need[@]}" -eq 0 ]; then
  exit 0
fi
exec "$(dirname "$0")/apt-install.sh" install-browser browser "${need[@]}"
