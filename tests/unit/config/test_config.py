"""The typed configs built from the environment: the same defaults, names and meanings as before
they moved into ``yakgwan.config``; every reader takes the environment as a dict."""

from __future__ import annotations

from pathlib import Path

import pytest

import yakgwan.config.env as environment
from yakgwan.config import EmbedderConfig, RuntimeConfig, ServerConfig, Settings
from yakgwan.core.errors import InputError, YakgwanError


@pytest.mark.unit
def test_defaults_follow_home_and_xdg() -> None:
    s = Settings.from_env({"HOME": "/h"})
    assert s.index_dir == Path("/h/.local/share/yakgwan/index")
    assert s.cache_dir == Path("/h/.cache/yakgwan")
    assert s.embedder == EmbedderConfig("e5-small-int8")
    assert s.tokenizer == "mecab+kiwi"
    assert (s.llm.provider, s.llm.model, s.llm.logprobs, s.llm.use_cache) == ("none", None, True, True)
    assert (s.search.provider, s.search.folder) == ("none", None)
    assert s.quiet is False
    x = Settings.from_env({"HOME": "/h", "XDG_DATA_HOME": "/d", "XDG_CACHE_HOME": "/c"})
    assert (x.index_dir, x.cache_dir) == (Path("/d/yakgwan/index"), Path("/c/yakgwan"))


@pytest.mark.unit
def test_every_variable_reaches_its_field(tmp_path: Path) -> None:
    env = {
        "YAKGWAN_INDEX": "/i", "YAKGWAN_CACHE_DIR": "/c", "YAKGWAN_TOKENIZER": "kiwi",
        "YAKGWAN_EMBEDDER": "openai", "YAKGWAN_EMBED_BASE_URL": "http://e/v1", "YAKGWAN_EMBED_MODEL": "m", "YAKGWAN_EMBED_API_KEY": "ek",
        "YAKGWAN_LLM": "openai", "YAKGWAN_LLM_MODEL": "lm", "YAKGWAN_LLM_BASE_URL": "http://l/v1", "YAKGWAN_LLM_API_KEY": "lk", "YAKGWAN_LLM_LOGPROBS": "0",
        "YAKGWAN_SEARCH": "offline", "YAKGWAN_SEARCH_API_KEY": "sk", "YAKGWAN_SEARCH_BASE_URL": "http://s", "YAKGWAN_SEARCH_DIR": "/w",
    }
    s = Settings.from_env(env)
    assert (s.index_dir, s.cache_dir, s.tokenizer) == (Path("/i"), Path("/c"), "kiwi")
    assert s.embedder == EmbedderConfig("openai", "http://e/v1", "m", "ek")
    assert (s.llm.provider, s.llm.model, s.llm.base_url, s.llm.api_key, s.llm.logprobs) == ("openai", "lm", "http://l/v1", "lk", False)
    assert (s.search.provider, s.search.api_key, s.search.base_url, s.search.folder) == ("offline", "sk", "http://s", Path("/w"))
    (tmp_path / "sets").mkdir()
    server = ServerConfig.from_env(s, {"YAKGWAN_DATA_DIR": "/data", "YAKGWAN_API_KEY": "a-long-key", "YAKGWAN_MAX_UPLOAD_MB": "2.5", "YAKGWAN_DATASETS": str(tmp_path / "sets")})
    assert server == ServerConfig(s, Path("/data"), "a-long-key", int(2.5 * 1024 * 1024), tmp_path / "sets")


@pytest.mark.unit
def test_empty_values() -> None:
    """An empty folder or key counts as unset; an empty component name stays, and fails when built."""
    s = Settings.from_env({"HOME": "/h", "YAKGWAN_INDEX": "", "YAKGWAN_CACHE_DIR": "", "YAKGWAN_SEARCH_DIR": "", "YAKGWAN_LLM_LOGPROBS": "", "YAKGWAN_EMBEDDER": "", "YAKGWAN_TOKENIZER": ""})
    assert (s.index_dir, s.cache_dir, s.search.folder, s.llm.logprobs) == (Path("/h/.local/share/yakgwan/index"), Path("/h/.cache/yakgwan"), None, True)
    assert (s.embedder.name, s.tokenizer) == ("", "")
    server = ServerConfig.from_env(s, {"XDG_DATA_HOME": "/d", "YAKGWAN_DATA_DIR": "", "YAKGWAN_API_KEY": "", "YAKGWAN_MAX_UPLOAD_MB": "", "YAKGWAN_DATASETS": ""})
    assert server == ServerConfig(s, Path("/d/yakgwan/server"), None, 50 * 1024 * 1024, None)


@pytest.mark.unit
@pytest.mark.parametrize("raw, value", [("1", True), ("yes", True), ("ON", True), ("0", False), ("false", False), ("off", False)])
def test_logprobs_flag(raw: str, value: bool) -> None:
    assert environment.llm({"YAKGWAN_LLM_LOGPROBS": raw}).logprobs is value


@pytest.mark.unit
def test_bad_values_name_the_variable(tmp_path: Path) -> None:
    with pytest.raises(YakgwanError, match="YAKGWAN_LLM_LOGPROBS must be 1 or 0, got 'maybe'"):
        Settings.from_env({"YAKGWAN_LLM_LOGPROBS": "maybe"})
    s = Settings.from_env({"HOME": "/h"})
    with pytest.raises(InputError, match="YAKGWAN_MAX_UPLOAD_MB must be a number, got 'lots'"):
        ServerConfig.from_env(s, {"YAKGWAN_MAX_UPLOAD_MB": "lots"})
    with pytest.raises(InputError, match="YAKGWAN_DATASETS is not a folder"):
        ServerConfig.from_env(s, {"YAKGWAN_DATASETS": str(tmp_path / "missing")})
    with pytest.raises(InputError, match="at least 8 characters"):
        ServerConfig.from_env(s, {"YAKGWAN_API_KEY": "short"})
    with pytest.raises(InputError, match="> 0 bytes"):
        ServerConfig.from_env(s, {"YAKGWAN_MAX_UPLOAD_MB": "0"})


@pytest.mark.unit
def test_runtime_and_threads() -> None:
    assert environment.runtime({}) == RuntimeConfig(debug=False, shared_dir=None)
    assert environment.runtime({"YAKGWAN_DEBUG": "0", "YAKGWAN_SHARED": "/s"}) == RuntimeConfig(debug=True, shared_dir=Path("/s"))
    assert environment.blas_threads({}) is None
    assert environment.blas_threads({"OPENBLAS_NUM_THREADS": "x", "OMP_NUM_THREADS": "3,2"}) == 3
    assert environment.blas_threads({"OPENBLAS_NUM_THREADS": "2", "OMP_NUM_THREADS": "8"}) == 2
    assert environment.blas_threads({"OMP_NUM_THREADS": "0"}) is None


@pytest.mark.unit
def test_configs_are_frozen_and_keys_stay_out_of_repr() -> None:
    s = Settings.from_env({"HOME": "/h", "YAKGWAN_EMBED_API_KEY": "embed-secret", "YAKGWAN_LLM_API_KEY": "llm-secret"})
    with pytest.raises(AttributeError):
        s.tokenizer = "kiwi"  # type: ignore[misc]
    assert "embed-secret" not in repr(s) and "llm-secret" not in repr(s)
    assert s.with_(quiet=True).quiet is True
