"""What every route needs, built once per app and passed explicitly (no module globals)."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from yakgwan.server.runtime.collections import Collections
from yakgwan.config import ServerConfig
from yakgwan.server.runtime.jobs import JobRunner
from yakgwan.server.runtime.resume import resume
from yakgwan.services.models import SharedModels
from yakgwan.services.context import open_records

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
        collections = Collections(config.data_dir, models, config.database)
        if config.database is None:  # the only server on this data folder: what the one before left goes on
            jobs = JobRunner(workers, open_records(config.data_dir, "jobs"), config.job_stale_s, shared=False)
            resume(jobs, collections, models, config.settings)
            return cls(config, models, collections, jobs)
        jobs = JobRunner(workers, open_records(config.database, "jobs"), config.job_stale_s)
        for job in jobs.recover():  # on PostgreSQL: the jobs of the server before, those it left unfinished failed
            log.warning("job %s (%s of %s) failed: %s", job.id, job.kind, job.collection, job.error)
        for name, stored in collections.forget_unindexed(jobs.busy):  # their jobs died with the last process
            log.warning("collection %s: upload %s was never ingested (the server stopped first); forgotten", name, stored)
        return cls(config, models, collections, jobs)
