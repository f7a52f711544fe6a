#!/usr/bin/env bash
# Set up with the test extras, then run every test except the long benchmarks (marked slow).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
exec .venv/bin/python -m pytest "$@"
