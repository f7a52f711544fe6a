#!/usr/bin/env bash
# Set up, then run the main job on the embedded default (no server, no API key):
# ingest the KB policy PDF from ../shared (or the bundled sample) and run example searches.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export YAKGWAN_INDEX="${YAKGWAN_INDEX:-$PWD/.yakgwan/demo-index}"
exec .venv/bin/yakgwan demo "$@"
