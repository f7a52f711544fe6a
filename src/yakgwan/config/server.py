"""Typed settings of the HTTP service, built once (from the environment by ``yakgwan serve``,
through ``config.env``) and passed explicitly."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import yakgwan.config.env as environment
from yakgwan.config.settings import Settings
from yakgwan.config.variables import EnvVar, env_field
from yakgwan.core.errors import InputError
from yakgwan.core.location import is_database_uri
from yakgwan.messages import msg


@dataclass(frozen=True)
class ServerConfig:
    settings: Settings  # embedder, tokenizer, LLM and caches: the same objects the CLI builds
    data_dir: Path = env_field(EnvVar(
        "YAKGWAN_DATA_DIR", "`serve`: collections, uploads, appeal packs and eval runs (`--data` overrides it)", values="a folder",
    ))
    api_key: str | None = env_field(EnvVar(
        "YAKGWAN_API_KEY",
        "`serve`: every `/api` route but `/api/health`, and the schema, need this key (header `X-API-Key` or "
        "`Authorization: Bearer KEY`); unset, the API is open and `serve` warns when it binds beyond loopback",
        values="a key of at least 8 characters",
    ), None)
    max_upload_bytes: int = env_field(EnvVar(
        "YAKGWAN_MAX_UPLOAD_MB", "`serve`: the largest upload, in MB", values="a number > 0",
        default=f"`{environment.DEFAULT_MAX_UPLOAD_MB}`",
    ), environment.DEFAULT_MAX_UPLOAD_MB * 1024 * 1024)
    datasets_dir: Path | None = env_field(EnvVar(
        "YAKGWAN_DATASETS",
        "`serve`: a folder of evaluation sets for the workbench (each a BEIR folder, or a seed folder "
        "with `knowledge_base/` and `tests*.jsonl`); unset, the bundled sample only",
        values="a folder",
    ), None)
    clause_sets: tuple[tuple[str, Path, Path], ...] = env_field(EnvVar(
        "YAKGWAN_CLAUSE_SETS",
        "`serve`: question sets the workbench scores by the clauses that govern them (a policy and its questions, kept apart): "
        "`NAME=CORPUS::QUESTIONS`, `;` between sets, paths relative to `YAKGWAN_DATASETS` unless absolute",
        values="e.g. `policy_qa=policies/kb_smart_driver::policy_qa/questions_dev.jsonl`",
    ), ())
    job_stale_s: float = env_field(EnvVar(
        "YAKGWAN_JOB_STALE_S",
        "`serve` on PostgreSQL: a job whose server has not said it is alive for this long is marked failed (its server stopped)",
        values="seconds > 0", default=f"`{environment.DEFAULT_JOB_STALE_S:g}`",
    ), environment.DEFAULT_JOB_STALE_S)
    warm_up: bool = False  # load the shared models in the background at start (yakgwan serve)

    @property
    def database(self) -> str | None:
        """The PostgreSQL collection that holds the server's indexes (``<it>_<collection>``
        each) and its jobs: the index (``serve --index`` or ``YAKGWAN_INDEX``) when it is a
        ``postgresql://`` URI; None: indexes in the data folder, jobs in memory."""
        index = self.settings.index_dir
        return str(index) if is_database_uri(index) else None

    def __post_init__(self) -> None:
        if self.max_upload_bytes <= 0:
            raise InputError(None, msg("serve.upload_limit", value=self.max_upload_bytes))
        if self.api_key is not None and len(self.api_key) < 8:
            raise InputError(None, msg("serve.key_short"))

    @classmethod
    def from_env(cls, settings: Settings, env: Mapping[str, str] | None = None) -> "ServerConfig":
        e = environment.current(env)
        return cls(
            settings,
            environment.server_data_dir(e),
            environment.server_api_key(e),
            environment.max_upload_bytes(e),
            environment.datasets_dir(e),
            environment.clause_sets(e, environment.datasets_dir(e)),
            environment.job_stale_s(e),
        )
