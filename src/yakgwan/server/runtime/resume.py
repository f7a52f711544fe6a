"""At a server's start: what a stopped server left unfinished goes on.

An upload is kept until its ingest ends. When the server stopped before (or while) an upload was
ingested — before its first commit, while it was embedding, during the second commit — the
collection holds an upload its index does not, or an index whose vectors are pending. Each such
collection gets one ingest job over all its uploads: unchanged documents are skipped, a new one
is read and committed, the missing vectors are embedded. The job takes the id of the collection's
interrupted ingest, so a client polling that id sees it finish; every other job left unfinished
(an appeal, an evaluation, a second ingest of the same collection) fails, saying the server
restarted and naming the job that goes on where there is one. On PostgreSQL, where several server
processes share the jobs (``serve --workers``, or a server started again beside the others), a
collection another live process works on is left to it, and of the processes starting together
the one that claims a collection resumes it (:meth:`JobRunner.claim`)."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Callable

from yakgwan.core.protocols import ProgressSink
from yakgwan.messages import msg, said
from yakgwan.server.runtime.collections import Collection, Collections
from yakgwan.server.runtime.jobs import Job, JobRunner, status_words
from yakgwan.server.runtime.uploads import renamed
from yakgwan.services.context import open_store
from yakgwan.services.ingest import ingest
from yakgwan.services.models import SharedModels
from yakgwan.config import Settings

log = logging.getLogger("yakgwan.server")


def unfinished(col: Collection) -> tuple[list[str], list[str]]:
    """The uploads of ``col`` its index does not hold, and the documents of its index some of
    whose chunks have no vector yet (in index order): one read of the index."""
    store = open_store(col.index_dir)
    if not store.exists():
        return sorted(col.files()), []
    data = store.read()
    waiting = list(dict.fromkeys(c.doc_id for c, ready in zip(data.chunks, data.dense_mask) if not ready))
    return sorted(set(col.files()) - set(data.docs)), waiting


def resume_work(settings: Settings, col: Collection, collections: Collections, models: SharedModels, waiting: list[str],
                done: Callable[[], None] = lambda: None) -> Callable[[ProgressSink], dict[str, Any]]:
    """The job that finishes ``col``: an ingest of all its uploads (an unreadable one forgotten,
    as after an upload); its result names the documents it added and those whose vectors were
    ``waiting`` (committed before the stop), as uploaded. ``done`` runs when it ends, however it ends."""
    where = settings.with_(index_dir=col.index_dir, quiet=True)

    def work(sink: ProgressSink) -> dict[str, Any]:
        try:
            return _finish(sink)
        finally:
            done()

    def _finish(sink: ProgressSink) -> dict[str, Any]:
        files = col.files()
        paths = [col.files_dir / stored for stored in sorted(files) if (col.files_dir / stored).is_file()]
        report = ingest(where, paths, embedder=models.ingest_embedder(), sink=sink)
        for failed in report.failed:
            if failed.path:
                collections.forget_upload(col, Path(failed.path).name)
        finished = [*report.added, *(d for d in waiting if d not in report.added)]  # what the interrupted ingest was about
        names = [str(files.get(d, {}).get("name", d)) for d in finished]
        warnings = [said(w, None) for w in report.warnings]
        for stored, f in files.items():  # the files by the names the client gave them
            warnings = [renamed(w, str(col.files_dir / stored), str(f.get("name", stored))) for w in warnings]
        return {"document": finished[0] if finished else None, "name": ", ".join(names), "kind": None,
                "added": len(report.added), "replaced": len(report.replaced), "unchanged": len(report.unchanged),
                "chunks": report.new_chunks, "pages": report.new_pages, "seconds": round(report.seconds_total, 2),
                "dense_ready": report.dense_ready, "answer_units": 0, "warnings": warnings, "already_uploaded": False, "resumed": True}

    return work


def resume(jobs: JobRunner, collections: Collections, models: SharedModels, settings: Settings) -> list[Job]:
    """Take the jobs of the process before over (:meth:`JobRunner.take_over`), queue one ingest
    for each collection left unfinished (under the id of its interrupted ingest, when it had
    one), and fail every other job left unfinished. Returns the jobs queued."""
    left = jobs.take_over()
    queued: list[Job] = []
    for col in collections.list():
        if jobs.running_elsewhere(col.name, left):
            continue
        pending, waiting = unfinished(col)
        if not pending and not waiting:
            continue
        if not jobs.claim(col.name):  # another process starting beside this one resumes it
            left = [j for j in left if j.collection != col.name]
            continue
        old = next((j for j in left if j.kind == "ingest" and j.collection == col.name), None)
        work = resume_work(settings, col, collections, models, waiting, done=lambda name=col.name: jobs.release(name))
        job = jobs.submit("ingest", work, col.name, job_id=old.id if old else None, created=old.created if old else None)
        if old is not None:
            left.remove(old)
        log.warning("collection %s: %s left unfinished by the server before; resumed as job %s", col.name,
                    f"{len(pending)} upload(s)" if pending else "its vectors", job.id)
        queued.append(job)
    by_collection = {j.collection: j.id for j in queued}
    for job in left:
        goes_on = by_collection.get(job.collection) if job.kind == "ingest" else None
        said_ = (msg("error.job_restarted_resumed", status=status_words(job.status), job=goes_on) if goes_on
                 else msg("error.job_restarted", status=status_words(job.status)))
        jobs.interrupted(job, said_)
    return queued
