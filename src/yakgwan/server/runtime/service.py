"""What every route needs, built once per app and passed explicitly (no module globals)."""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.server.runtime.collections import Collections
from yakgwan.config import ServerConfig
from yakgwan.server.runtime.jobs import JobRunner
from yakgwan.server.runtime.resume import resume
from yakgwan.services.models import SharedModels
from yakgwan.services.context import open_records


@dataclass
class Service:
    config: ServerConfig
    models: SharedModels
    collections: Collections
    jobs: JobRunner

    @classmethod
    def build(cls, config: ServerConfig, workers: int = 1) -> "Service":
        models = SharedModels(config.settings)
        collections = Collections(config.data_dir, models, config.database)
        if config.database is None:  # the only server on this data folder
            jobs = JobRunner(workers, open_records(config.data_dir, "jobs"), config.job_stale_s, shared=False)
        else:  # every server process on the database shares its jobs
            jobs = JobRunner(workers, open_records(config.database, "jobs"), config.job_stale_s)
        resume(jobs, collections, models, config.settings)  # what a stopped server left unfinished goes on
        return cls(config, models, collections, jobs)
