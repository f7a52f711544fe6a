"""Typed settings of the HTTP service, built once (from the environment by ``yakgwan serve``) and
passed explicitly.

Environment (all optional):
  YAKGWAN_DATA_DIR         where collections, uploads and runs live (else $XDG_DATA_HOME/yakgwan/server)
  YAKGWAN_API_KEY          when set, every /api route but /api/health needs it (header X-API-Key
                           or Authorization: Bearer KEY)
  YAKGWAN_MAX_UPLOAD_MB    the largest upload accepted (default 50)
  YAKGWAN_DATASETS         a folder of evaluation sets for the workbench (each a BEIR folder, or a
                           seed folder with knowledge_base/ and tests*.jsonl)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from yakgwan.config import Settings
from yakgwan.core.errors import InputError

DEFAULT_MAX_UPLOAD_MB = 50


@dataclass(frozen=True)
class ServerConfig:
    settings: Settings  # embedder, tokenizer, LLM and caches: the same objects the CLI builds
    data_dir: Path
    api_key: str | None = None
    max_upload_bytes: int = DEFAULT_MAX_UPLOAD_MB * 1024 * 1024
    datasets_dir: Path | None = None
    warm_up: bool = False  # load the shared models in the background at start (yakgwan serve)

    def __post_init__(self) -> None:
        if self.max_upload_bytes <= 0:
            raise InputError(None, f"the upload limit must be > 0 bytes, got {self.max_upload_bytes}")
        if self.api_key is not None and len(self.api_key) < 8:
            raise InputError(None, "YAKGWAN_API_KEY must be at least 8 characters")

    @classmethod
    def from_env(cls, settings: Settings, env: Mapping[str, str] | None = None) -> "ServerConfig":
        env = os.environ if env is None else env
        base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
        data_dir = Path(env["YAKGWAN_DATA_DIR"]) if env.get("YAKGWAN_DATA_DIR") else Path(base) / "yakgwan" / "server"
        raw_mb = env.get("YAKGWAN_MAX_UPLOAD_MB") or str(DEFAULT_MAX_UPLOAD_MB)
        try:
            mb = float(raw_mb)
        except ValueError:
            raise InputError(None, f"YAKGWAN_MAX_UPLOAD_MB must be a number, got {raw_mb!r}") from None
        datasets = Path(env["YAKGWAN_DATASETS"]) if env.get("YAKGWAN_DATASETS") else None
        if datasets is not None and not datasets.is_dir():
            raise InputError(str(datasets), "YAKGWAN_DATASETS is not a folder")
        return cls(settings, data_dir, env.get("YAKGWAN_API_KEY") or None, int(mb * 1024 * 1024), datasets)
