"""What every route needs, built once per app and passed explicitly (no module globals)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from yakgwan.server.runtime.collections import Collections
from yakgwan.config import ServerConfig
from yakgwan.server.runtime.jobs import JobRunner
from yakgwan.services.models import SharedModels

log = logging.getLogger("yakgwan.server")


@dataclass
class Service:
    config: ServerConfig
    models: SharedModels
    collections: Collections
    jobs: JobRunner

    @classmethod
    def build(cls, config: ServerConfig, workers: int = 1) -> "Service":
        models = SharedModels(config.settings)
        collections = Collections(config.data_dir, models)
        for name, stored in collections.forget_unindexed():  # their jobs died with the last process
            log.warning("collection %s: upload %s was never ingested (the server stopped first); forgotten", name, stored)
        return cls(config, models, collections, JobRunner(workers))
