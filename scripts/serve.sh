#!/usr/bin/env bash
# Set up, then start the HTTP API and the web app on this machine only (127.0.0.1) and print its
# URL. The workbench offers the bundled sample set, plus ../shared/data's sets when that folder
# exists beside the repository (the policy questions paired with their policy). Stop with Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
if [ -z "${YAKGWAN_DATASETS:-}" ] && [ -d ../shared/data ]; then
  export YAKGWAN_DATASETS="$(cd ../shared/data && pwd)"
  # the policy question set lives apart from the policy it is about: paired here
  if [ -z "${YAKGWAN_CLAUSE_SETS:-}" ] && [ -f ../shared/data/policy_qa/questions_dev.jsonl ] && [ -d ../shared/data/policies/kb_smart_driver ]; then
    export YAKGWAN_CLAUSE_SETS="policy_qa=policies/kb_smart_driver::policy_qa/questions_dev.jsonl"
  fi
fi
export YAKGWAN_DATA_DIR="${YAKGWAN_DATA_DIR:-$PWD/.yakgwan/server}"
exec .venv/bin/yakgwan serve --port "${PORT:-8000}" "$@"
