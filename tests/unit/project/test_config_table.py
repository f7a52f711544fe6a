"""The configuration table in docs/configuration.md is generated from the config classes, and
all environment reading is in ``yakgwan.config.env``."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SRC = REPO / "src" / "yakgwan"
ENV_MODULE = SRC / "config" / "env.py"

# Reading the environment: os.environ, getenv, or a mapping read by a YAKGWAN_ name.
READS = re.compile(r"os\.environ|getenv\(|\benv(?:\.get\(|\[)\s*[\"']YAKGWAN_")
# Files that still read the environment themselves; each is to call yakgwan.config.env instead
# (env.runtime().debug, env.runtime().shared_dir, env.blas_threads(), env.llm(), env.search()).
# local_llama sets OMP_WAIT_POLICY for libgomp before llama_cpp loads: a write, not configuration.
PENDING = {
    "embedders/e5_numpy.py": "OPENBLAS_NUM_THREADS/OMP_NUM_THREADS → config.env.blas_threads()",
    "llm/local_llama.py": "sets OMP_WAIT_POLICY for libgomp (a write)",
}


def _script():
    spec = importlib.util.spec_from_file_location("config_table", REPO / "scripts" / "config_table.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _listed(page: str) -> set[str]:
    return set(re.findall(r"^\| `(YAKGWAN_[A-Z0-9_]+)` \|", page, flags=re.M))


@pytest.mark.unit
def test_docs_table_is_generated_from_the_config_classes() -> None:
    script = _script()
    page = script.PAGE.read_text(encoding="utf-8")
    assert script.splice(page, script.table()) == page, script.STALE


@pytest.mark.unit
def test_every_variable_read_in_config_env_is_in_the_table_and_no_other() -> None:
    read = set(re.findall(r"[\"'](YAKGWAN_[A-Z0-9_]+)[\"']", ENV_MODULE.read_text(encoding="utf-8")))
    listed = _listed(_script().table())
    assert read - listed == set(), f"read in config/env.py but not in the table: {sorted(read - listed)}"
    assert listed - read == set(), f"in the table but never read in config/env.py: {sorted(listed - read)}"


@pytest.mark.unit
def test_no_module_but_config_env_reads_the_environment() -> None:
    readers = {
        p.relative_to(SRC).as_posix()
        for p in SRC.rglob("*.py")
        if p != ENV_MODULE and READS.search(p.read_text(encoding="utf-8"))
    }
    new = sorted(readers - set(PENDING))
    assert not new, f"these modules read the environment; read it in yakgwan/config/env.py instead: {new}"
    gone = sorted(set(PENDING) - readers)
    assert not gone, f"these no longer read the environment: remove them from PENDING in {Path(__file__).name}: {gone}"


@pytest.mark.unit
def test_splice_needs_both_markers() -> None:
    script = _script()
    page = f"intro\n{script.BEGIN}\nold\n{script.END}\nafter\n"
    assert script.splice(page, "new\n") == f"intro\n{script.BEGIN}\nnew\n{script.END}\nafter\n"
    with pytest.raises(ValueError, match="config-table:begin"):
        script.splice("no markers\n", "new\n")


@pytest.mark.unit
def test_check_mode_names_the_fix(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    script = _script()
    stale = tmp_path / "configuration.md"
    stale.write_text(f"{script.BEGIN}\n| old |\n{script.END}\n", encoding="utf-8")
    monkeypatch.setattr(script, "PAGE", stale)
    assert script.main(["--check"]) == 1
    assert "run scripts/config_table.py --write" in capsys.readouterr().err
    assert script.main(["--write"]) == 0
    assert script.main(["--check"]) == 0
    assert "`YAKGWAN_TOKENIZER` | `mecab+kiwi` | `kiwi`, `mecab`, `mecab+kiwi` |" in stale.read_text(encoding="utf-8")
