"""Background jobs (ingest, appeal, evaluation) with progress and status.

One worker by default: the work is CPU-bound and a laptop has few cores, so jobs queue rather
than compete. A job's function receives a progress sink and returns its JSON result; an error it
raises on purpose becomes the job's ``error`` message, anything else is logged and reported as an
internal error. A job can be cancelled: a queued one never starts, a running one stops at its next
progress report (the sink raises :class:`Cancelled`), so work that reports progress (ingest,
evaluation, appeal) stops within one step; what it had committed stays, as after any failure.
Jobs live in memory (a restart forgets them); results that must outlive the
process are written by the job itself."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from yakgwan.core.errors import YakgwanError, storage_problem
from yakgwan.core.protocols import ProgressSink
from yakgwan.server.problems import Problem

KEEP_FINISHED = 200
MAX_WAITING = 20  # queued jobs; more is refused (503) rather than piled up
FINISHED = ("succeeded", "failed", "cancelled")


class Cancelled(BaseException):
    """Raised by a job's progress sink once the job was asked to stop. Like KeyboardInterrupt it
    is no ``Exception``: a step that keeps going after an error of its own (ingest's embedding,
    which leaves a keyword index behind) does not keep going after a cancel."""
log = logging.getLogger("yakgwan.server")


@dataclass
class Job:
    id: str
    kind: str
    collection: str | None
    status: str = "queued"  # queued | running | succeeded | failed | cancelled
    stage: str = ""
    done: int = 0
    total: int = 0
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    error: str | None = None
    result: dict[str, Any] | None = None
    cancel_requested: bool = False

    @property
    def finished_yet(self) -> bool:
        return self.status in FINISHED

    def view(self, with_result: bool = True) -> dict[str, Any]:
        out = asdict(self)
        out.pop("cancel_requested")
        if not with_result:
            out.pop("result")
        return out


class JobRunner:
    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="yakgwan-job")
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()

    @staticmethod
    def new_id() -> str:
        return uuid.uuid4().hex[:12]

    def submit(self, kind: str, work: Callable[[ProgressSink], dict[str, Any]], collection: str | None = None, job_id: str | None = None) -> Job:
        """Queue ``work``; ``job_id`` (from :meth:`new_id`) when the work must know its own id."""
        job = Job(job_id or self.new_id(), kind, collection)
        with self._lock:
            waiting = sum(j.status == "queued" for j in self._jobs.values())
            if waiting >= MAX_WAITING:
                raise Problem(503, f"{waiting} jobs are already waiting; try again when some have finished", "busy")
            self._jobs[job.id] = job
            self._forget_old()
        self._pool.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Callable[[ProgressSink], dict[str, Any]]) -> None:
        def sink(stage: str, done: int, total: int) -> None:
            with self._lock:
                if job.cancel_requested:
                    raise Cancelled()
                job.stage, job.done, job.total = stage, done, total

        with self._lock:
            if job.status == "cancelled":  # cancelled while it waited
                return
            job.status, job.started = "running", time.time()
        try:
            result = work(sink)
        except Cancelled:
            outcome = ("cancelled", "cancelled by request", None)
        except (YakgwanError, Problem) as exc:
            outcome = ("failed", str(exc), None)
        except Exception as exc:  # noqa: BLE001 - a job must never take the server down
            if isinstance(exc, OSError) and (said := storage_problem(exc)) is not None:  # the disk: full, read-only
                outcome = ("failed", said, None)
            else:
                log.exception("job %s (%s) failed", job.id, job.kind)
                outcome = ("failed", f"internal error ({type(exc).__name__}); the server log has the details", None)
        else:
            outcome = ("succeeded", None, result)
        with self._lock:
            job.status, job.error, job.result = outcome
            job.finished = time.time()

    def cancel(self, job_id: str) -> Job:
        """Ask a job to stop: a queued one is cancelled at once, a running one at its next
        progress report; a finished one cannot be (409)."""
        job = self.get(job_id)
        with self._lock:
            if job.finished_yet:
                raise Problem(409, f"job {job_id!r} has already {job.status}", "finished")
            job.cancel_requested = True
            if job.status == "queued":
                job.status, job.error, job.finished = "cancelled", "cancelled before it started", time.time()
        return job

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise Problem(404, f"no such job: {job_id!r}", "unknown-job")
        return job

    def list(self) -> list[Job]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: -j.created)

    def snapshot(self, job_id: str, with_result: bool = True) -> dict[str, Any]:
        """The job's fields as one consistent copy (never a status without its result)."""
        job = self.get(job_id)
        with self._lock:
            return job.view(with_result)

    def snapshots(self) -> list[dict[str, Any]]:
        with self._lock:
            return [j.view(with_result=False) for j in sorted(self._jobs.values(), key=lambda j: -j.created)]

    def busy(self, collection: str) -> bool:
        with self._lock:
            return any(j.collection == collection and j.status in ("queued", "running") for j in self._jobs.values())

    def wait(self, job_id: str, timeout_s: float) -> Job:
        """Block until the job has finished or ``timeout_s`` passed (tests and scripts)."""
        end = time.monotonic() + timeout_s
        while time.monotonic() < end:
            job = self.get(job_id)
            if job.finished_yet:
                return job
            time.sleep(0.05)
        return self.get(job_id)

    def shutdown(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _forget_old(self) -> None:
        finished = sorted((j for j in self._jobs.values() if j.finished), key=lambda j: j.finished or 0)
        for j in finished[: max(0, len(finished) - KEEP_FINISHED)]:
            del self._jobs[j.id]
