"""What every route needs, built once per app and passed explicitly (no module globals)."""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.server.runtime.collections import Collections
from yakgwan.config import ServerConfig
from yakgwan.server.runtime.jobs import JobRunner
from yakgwan.services.models import SharedModels


@dataclass
class Service:
    config: ServerConfig
    models: SharedModels
    collections: Collections
    jobs: JobRunner

    @classmethod
    def build(cls, config: ServerConfig, workers: int = 1) -> "Service":
        models = SharedModels(config.settings)
        return cls(config, models, Collections(config.data_dir, models), JobRunner(workers))
