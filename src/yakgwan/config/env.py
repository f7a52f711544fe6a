"""Every environment variable yakgwan reads, read here and nowhere else.

Each reader takes the environment as a mapping (``os.environ`` when it is None), so a test can
pass a dict. docs/configuration.md lists every variable with its default, allowed values and
meaning (generated from the config classes by ``scripts/config_table.py``;
tests/unit/project/test_config_table.py checks that every name read here is listed there).

An empty value counts as unset except where noted: ``YAKGWAN_EMBEDDER=""``, ``YAKGWAN_TOKENIZER=""``,
``YAKGWAN_LLM=""`` and ``YAKGWAN_SEARCH=""`` name no registered component and fail when it is built.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from yakgwan.config.embedder import DEFAULT_EMBEDDER, EmbedderConfig
from yakgwan.config.runtime import RuntimeConfig
from yakgwan.core.errors import InputError, YakgwanError
from yakgwan.core.location import IndexLocation, is_database_uri
from yakgwan.llm import LLMConfig
from yakgwan.messages import LANGS, locale_language, msg
from yakgwan.text.registry import DEFAULT_TOKENIZER
from yakgwan.websearch.provider import SearchConfig

DEFAULT_MAX_UPLOAD_MB = 50


def current(env: Mapping[str, str] | None = None) -> Mapping[str, str]:
    """``env``, or the process environment when it is None."""
    return os.environ if env is None else env


def _xdg(env: Mapping[str, str], var: str, fallback: str) -> Path:
    base = env.get(var) or str(Path(env.get("HOME", str(Path.home()))) / fallback)
    return Path(base) / "yakgwan"


def _path(env: Mapping[str, str], name: str) -> Path | None:
    value = env.get(name)
    return Path(value) if value else None


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise YakgwanError(msg("env.flag", name=name, value=repr(raw)))


def index_dir(env: Mapping[str, str]) -> IndexLocation:
    value = env.get("YAKGWAN_INDEX")
    if value and is_database_uri(value):
        return value
    return _path(env, "YAKGWAN_INDEX") or _xdg(env, "XDG_DATA_HOME", ".local/share") / "index"


def language(env: Mapping[str, str]) -> str:
    """``YAKGWAN_LANG`` (``ko`` or ``en``), else the locale's language (:func:`locale_language`)."""
    chosen = env.get("YAKGWAN_LANG")
    if chosen:
        if chosen not in LANGS:
            raise YakgwanError(msg("env.lang", value=repr(chosen), langs=", ".join(LANGS)))
        return chosen
    return locale_language((env.get("LC_ALL"), env.get("LC_MESSAGES"), env.get("LANG")))


def cache_dir(env: Mapping[str, str]) -> Path:
    return _path(env, "YAKGWAN_CACHE_DIR") or _xdg(env, "XDG_CACHE_HOME", ".cache")


def tokenizer(env: Mapping[str, str]) -> str:
    return env.get("YAKGWAN_TOKENIZER", DEFAULT_TOKENIZER)


def embedder(env: Mapping[str, str]) -> EmbedderConfig:
    return EmbedderConfig(
        name=env.get("YAKGWAN_EMBEDDER", DEFAULT_EMBEDDER),
        base_url=env.get("YAKGWAN_EMBED_BASE_URL"),
        model=env.get("YAKGWAN_EMBED_MODEL"),
        api_key=env.get("YAKGWAN_EMBED_API_KEY"),
    )


def llm(env: Mapping[str, str]) -> LLMConfig:
    return LLMConfig(
        provider=env.get("YAKGWAN_LLM", "none"),
        model=env.get("YAKGWAN_LLM_MODEL"),
        base_url=env.get("YAKGWAN_LLM_BASE_URL"),
        api_key=env.get("YAKGWAN_LLM_API_KEY"),
        logprobs=_flag(env, "YAKGWAN_LLM_LOGPROBS", True),
    )


def search(env: Mapping[str, str]) -> SearchConfig:
    return SearchConfig(
        provider=env.get("YAKGWAN_SEARCH", "none"),
        api_key=env.get("YAKGWAN_SEARCH_API_KEY"),
        base_url=env.get("YAKGWAN_SEARCH_BASE_URL"),
        folder=_path(env, "YAKGWAN_SEARCH_DIR"),
    )


def server_data_dir(env: Mapping[str, str]) -> Path:
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return _path(env, "YAKGWAN_DATA_DIR") or Path(base) / "yakgwan" / "server"


def server_api_key(env: Mapping[str, str]) -> str | None:
    return env.get("YAKGWAN_API_KEY") or None


def _number(env: Mapping[str, str], name: str, default: float, what: str = "env.a_number") -> float:
    """``name``'s number (``default`` when unset); ``what`` is the catalogue key of what it must be."""
    raw = env.get(name) or str(default)
    try:
        return float(raw)
    except ValueError:
        raise InputError(None, msg("env.number", name=name, what=msg(what), value=repr(raw))) from None


def max_upload_bytes(env: Mapping[str, str]) -> int:
    return int(_number(env, "YAKGWAN_MAX_UPLOAD_MB", DEFAULT_MAX_UPLOAD_MB) * 1024 * 1024)


DEFAULT_JOB_STALE_S = 30.0


def job_stale_s(env: Mapping[str, str]) -> float:
    seconds = _number(env, "YAKGWAN_JOB_STALE_S", DEFAULT_JOB_STALE_S, "env.seconds")
    if seconds <= 0:
        raise InputError(None, msg("env.stale", value=repr(env.get("YAKGWAN_JOB_STALE_S"))))
    return seconds


def hand_to_workers(index: str, data_dir: Path) -> None:
    """``serve --workers N``: the worker processes it starts build their settings from the
    environment, so the database and data folder it was given go there (YAKGWAN_INDEX,
    YAKGWAN_DATA_DIR)."""
    os.environ.update({"YAKGWAN_INDEX": index, "YAKGWAN_DATA_DIR": str(data_dir)})


def datasets_dir(env: Mapping[str, str]) -> Path | None:
    datasets = _path(env, "YAKGWAN_DATASETS")
    if datasets is not None and not datasets.is_dir():
        raise InputError(str(datasets), msg("env.datasets"))
    return datasets


def clause_sets(env: Mapping[str, str], datasets: Path | None) -> tuple[tuple[str, Path, Path], ...]:
    """``YAKGWAN_CLAUSE_SETS``: question sets scored by the clauses that govern them, each
    ``NAME=CORPUS::QUESTIONS`` (``;`` between sets), paths relative to ``YAKGWAN_DATASETS`` unless
    absolute: (name, the policy's folder or PDF, the questions' JSONL)."""
    raw = (env.get("YAKGWAN_CLAUSE_SETS") or "").strip()
    out = []
    for entry in (e.strip() for e in raw.split(";") if e.strip()):
        name, _, paths = entry.partition("=")
        corpus, _, questions = paths.partition("::")
        if not (name.strip() and corpus.strip() and questions.strip()):
            raise InputError(None, msg("env.clause_set", entry=repr(entry)))
        found = tuple(Path(p.strip()) if Path(p.strip()).is_absolute() or datasets is None else datasets / p.strip() for p in (corpus, questions))
        for path in found:
            if not path.exists():
                raise InputError(str(path), msg("env.clause_set_missing", entry=repr(entry)))
        out.append((name.strip(), found[0], found[1]))
    return tuple(out)


def runtime(env: Mapping[str, str] | None = None) -> RuntimeConfig:
    env = current(env)
    return RuntimeConfig(debug=bool(env.get("YAKGWAN_DEBUG")), shared_dir=_path(env, "YAKGWAN_SHARED"))


def blas_threads(env: Mapping[str, str] | None = None) -> int | None:
    """The thread budget ``OPENBLAS_NUM_THREADS`` or ``OMP_NUM_THREADS`` sets (the first positive
    whole number of either, in that order), else None."""
    env = current(env)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        value = env.get(var, "").split(",")[0].strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return None
