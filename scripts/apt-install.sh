#!/usr/bin/env bash
# apt-get install the Debian packages named after LABEL and WHAT (the tests that need them):
#   scripts/apt-install.sh LABEL WHAT PACKAGE...
# Needs root or sudo; without either it says which tests will be skipped and exits 0.
set -euo pipefail
label=$1 what=$2
shift 2
if [ "$(id -u)" -eq 0 ]; then
  run=()
elif command -v sudo >/dev/null 2>&1; then
  run=(sudo)
else
  echo "$label: need root to apt-get install $*; the $what tests will be skipped" >&2
  exit 0
fi
echo "$label: apt-get install $* (first time: a minute or two)" >&2
export DEBIAN_FRONTEND=noninteractive
"${run[@]}" apt-get update -qq >/dev/null
"${run[@]}" apt-get install -y -qq --no-install-recommends "$@" >/dev/null
