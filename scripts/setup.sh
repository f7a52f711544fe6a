#!/usr/bin/env bash
# Create .venv (Python >= 3.11) and install yakgwan with the given extras into it.
# Usage: scripts/setup.sh [EXTRAS]   e.g. scripts/setup.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
py="${PYTHON:-}"
if [ -z "$py" ]; then
  for cand in python3.11 python3.12 python3.13 python3; do
    if command -v "$cand" >/dev/null 2>&1 && "$cand" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
      py="$cand"; break
    fi
  done
fi
[ -n "$py" ] || { echo "setup: need Python >= 3.11 (set PYTHON=/path/to/python3.11)" >&2; exit 1; }
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv with $("$py" --version)" >&2
  "$py" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
spec="."
[ -n "$extras" ] && spec=".[${extras}]"
echo "setup: installing yakgwan${extras:+[$extras]} into .venv (first time: a few minutes)" >&2
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e "$spec"
