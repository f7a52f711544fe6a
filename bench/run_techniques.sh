#!/usr/bin/env bash
# Measure retrieval pipelines one at a time and keep each result's summary in
# bench/results/SET/PIPELINE.json (what `yakgwan report --summary` keeps: no per-question rows).
# A pipeline whose summary is already kept is skipped, so the command can be run again after an
# interruption; a pipeline stopped half way resumes from the LLM response cache.
#
#   bench/run_techniques.sh skytravel-dev|autorag-dev [PIPELINE ...]    (default: every pipeline)
#
# The model-backed techniques need YAKGWAN_LLM (local or openai); without it they run their
# labelled fallbacks, which are not worth keeping, so the script refuses. Full results (with the
# per-question rows) go to ${BENCH_OUT:-/tmp/yakgwan-bench}/SET/. Then the table:
#   .venv/bin/yakgwan report bench/results/SET/*.json --markdown SET.md --out SET.html
set -euo pipefail
cd "$(dirname "$0")/.."
set_name=${1:?usage: bench/run_techniques.sh skytravel-dev|autorag-dev [PIPELINE ...]}
shift
shared=${YAKGWAN_SHARED:-../shared/data}
case "$set_name" in
  skytravel-dev) data=(--corpus "$shared/skytravel/knowledge_base" --tests "$shared/skytravel/tests_dev.jsonl") ;;
  autorag-dev) data=(--beir "$shared/autorag_ko") ;;
  *) echo "run_techniques: unknown set '$set_name' (skytravel-dev or autorag-dev)" >&2; exit 2 ;;
esac
[ -e "${data[1]}" ] || { echo "run_techniques: ${data[1]} not found (set YAKGWAN_SHARED to the shared data folder)" >&2; exit 2; }
[ -n "${YAKGWAN_LLM:-}" ] || { echo "run_techniques: set YAKGWAN_LLM=local (or openai): without an LLM the techniques run their fallbacks" >&2; exit 2; }
yk=.venv/bin/yakgwan
[ -x "$yk" ] || { echo "run_techniques: no .venv; run scripts/setup.sh first" >&2; exit 2; }
if [ "$#" -eq 0 ]; then
  mapfile -t pipelines < <("$yk" pipelines | awk '{print $1}')
else
  pipelines=("$@")
fi
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}  # llama.cpp beside another process
out=${BENCH_OUT:-/tmp/yakgwan-bench}/$set_name
kept=bench/results/$set_name
mkdir -p "$out" "$kept"
for p in "${pipelines[@]}"; do
  if [ -e "$kept/$p.json" ]; then
    echo "run_techniques: $p: kept already ($kept/$p.json), skipped" >&2
    continue
  fi
  echo "run_techniques: $p on $set_name ($(date -u +%H:%M:%S) UTC)" >&2
  start=$SECONDS
  "$yk" eval "${data[@]}" --pipeline "$p" --json "$out/$p.json"
  "$yk" report "$out/$p.json" --summary "$kept/$p.json" --quiet
  echo "run_techniques: $p done in $((SECONDS - start)) s, kept in $kept/$p.json" >&2
done
