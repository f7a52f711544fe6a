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
if [ "$(id -u)" -eq 0 ]; then
  run=()
elif command -v sudo >/dev/null 2>&1; then
  run=(sudo)
else
  echo "install-browser: need root to apt-get install ${need[*]}; the browser tests will be skipped" >&2
  exit 0
fi
echo "install-browser: apt-get install ${need[*]} (first time: a minute or two)" >&2
export DEBIAN_FRONTEND=noninteractive
"${run[@]}" apt-get update -qq >/dev/null
"${run[@]}" apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
