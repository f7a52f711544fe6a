"""Shared fixtures: where ../shared lives, and a skip with a clear message when it is absent."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
SHARED_DATA = SHARED / "data"


@pytest.fixture(autouse=True, scope="session")
def _english_command_line() -> Iterator[None]:
    """The tests read the command line in English: a Korean locale on the machine (LANG=ko_KR.*)
    must not change what they read. A test of the Korean output sets YAKGWAN_LANG=ko itself."""
    before = os.environ.get("YAKGWAN_LANG")
    os.environ["YAKGWAN_LANG"] = "en"
    yield
    if before is None:
        os.environ.pop("YAKGWAN_LANG", None)
    else:
        os.environ["YAKGWAN_LANG"] = before


def _need(path: Path) -> Path:
    if not path.exists():
        pytest.skip(f"needs {path} (the read-only ../shared folder beside the repository); absent here")
    return path


@pytest.fixture(scope="session")
def shared_data() -> Path:
    return _need(SHARED_DATA)


@pytest.fixture(scope="session")
def kb_policy_pdf() -> Path:
    return _need(SHARED_DATA / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf")


@pytest.fixture(scope="session")
def skytravel_dir() -> Path:
    return _need(SHARED_DATA / "skytravel")


@pytest.fixture(scope="session")
def autorag_dir() -> Path:
    return _need(SHARED_DATA / "autorag_ko")


@pytest.fixture(scope="session")
def local_llm_8k():  # type: ignore[no-untyped-def]
    """The bundled Qwen2.5-Coder-1.5B in llama.cpp with an 8192-token context (the product default) (2 threads), loaded
    once for the session; skips when llama-cpp-python or the weight packages are missing."""
    import importlib.util
    from importlib import metadata

    from yakgwan.config import Settings
    from yakgwan.llm.gguf_assets import get_model
    from yakgwan.llm.local_llama import LocalLlamaProvider

    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed; run scripts/install-local-llm.sh")
    spec = get_model("qwen2.5-coder-1.5b")
    try:
        for dist in spec.parts:
            metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        pytest.skip(f"the weight packages of {spec.name} are not installed; run: {spec.pip_command()}")
    provider = LocalLlamaProvider(spec.name, cache_dir=Settings.from_env().cache_dir, n_ctx=8192, n_threads=2)
    yield provider
    provider.close()


@pytest.fixture()
def small_index(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A factory: ``small_index({"a.md": "…"})`` writes the files, ingests them with the hashing
    embedder and the mecab analyzer into ``tmp_path`` and returns the ``Settings``."""
    from yakgwan.services.ingest import ingest
    from yakgwan.config import EmbedderConfig, Settings
    from yakgwan.embedders.hashing import HashingEmbedder

    def make(files: dict[str, str]) -> Settings:
        kb = tmp_path / "kb"
        for name, text in files.items():
            (kb / name).parent.mkdir(parents=True, exist_ok=True)
            (kb / name).write_text(text, "utf-8")
        s = Settings(index_dir=tmp_path / "i", cache_dir=tmp_path / "c", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
        ingest(s, [kb], embedder=HashingEmbedder())
        return s

    return make


@pytest.fixture(scope="session")
def postgres_uri():  # type: ignore[no-untyped-def]
    """A PostgreSQL database with pgvector for the session: the one YAKGWAN_TEST_PG names, else a
    server that pgserver (PostgreSQL 16 + pgvector from its wheel) starts in a temporary folder
    of its own (not pytest's, whose old folders another pytest run may delete under it) and
    stops, and removes, at the end. Skips, saying what to install, when neither is there."""
    import os
    import shutil
    import tempfile

    given = os.environ.get("YAKGWAN_TEST_PG")
    if given:
        yield given
        return
    try:
        import pgserver
    except ImportError:
        pytest.skip("needs a PostgreSQL server: pip install pgserver (in the test extra), or set YAKGWAN_TEST_PG=postgresql://…")
    import psycopg  # noqa: F401 - the postgres extra, needed by every test that uses this

    folder = tempfile.mkdtemp(prefix="yakgwan-test-pg-")
    server = pgserver.get_server(folder, cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()
        shutil.rmtree(folder, ignore_errors=True)
