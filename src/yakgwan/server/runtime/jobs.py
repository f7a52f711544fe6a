"""Background jobs (ingest, appeal, evaluation) with progress and status.

One worker by default: the work is CPU-bound and a laptop has few cores, so jobs queue rather
than compete. A job's function receives a progress sink and returns its JSON result; an error it
raises on purpose becomes the job's ``error`` message, anything else is logged and reported as an
internal error. A job can be cancelled: a queued one never starts, a running one stops at its next
progress report (the sink raises :class:`Cancelled`), so work that reports progress (ingest,
evaluation, appeal) stops within one step; what it had committed stays, as after any failure.
Jobs live in memory, and every change of a job is written to a ``Records`` log too: a server on
PostgreSQL writes to the database (``shared``: every server process sharing it reads the log, and
a job whose server stopped — no heartbeat for ``stale_s``, or its process on this host gone — is
marked failed with that reason); a server on a data folder writes to its ``jobs/`` folder. Both
take the jobs a stopped server left unfinished over at start (:meth:`JobRunner.take_over`: the
caller resumes each interrupted ingest under the same id, or fails the job saying the server
restarted; on a shared log a collection is resumed by the one process that claims it, :meth:`claim`).
A job id keeps answering across restarts."""

from __future__ import annotations

import logging
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Callable

from yakgwan.core.errors import YakgwanError, as_message, storage_problem
from yakgwan.core.protocols import ProgressSink
from yakgwan.messages import DEFAULT_LANG, Message, catalogue, msg, render_said
from yakgwan.server.problems import Problem
from yakgwan.server.runtime.owner import on_this_host, stopped, this_process
from yakgwan.services.context import Records

KEEP_FINISHED = 200
MAX_WAITING = 20  # queued jobs; more is refused (503) rather than piled up
FINISHED = ("succeeded", "failed", "cancelled")
CANCEL = "cancel:"  # the log's key of a cancel request sent to the process that runs the job
CLAIM = "resume:"  # the log's key of the process resuming a collection a stopped server left unfinished


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
    stage: str = ""  # in English; the stage's catalogue message is ``stage_message``
    done: int = 0
    total: int = 0
    created: float = field(default_factory=time.time)
    started: float | None = None
    finished: float | None = None
    error: str | None = None  # in English; the catalogue message, where there is one, is ``error_message``
    result: dict[str, Any] | None = None
    stage_message: dict[str, Any] | None = None  # Message.to_json()
    error_message: dict[str, Any] | None = None
    error_kind: str | None = None  # a failed job's problem type ("no-reason", "unreadable", …)
    details: dict[str, Any] | None = None  # what the client needs to finish a failed job itself
    cancel_requested: bool = False
    heartbeat: float | None = None  # last time its server said it was alive (with a log)
    owner: str | None = None  # the server process that runs it (:func:`~yakgwan.server.runtime.owner.this_process`)

    @property
    def finished_yet(self) -> bool:
        return self.status in FINISHED

    def view(self, with_result: bool = True, lang: str = DEFAULT_LANG) -> dict[str, Any]:
        """The job as the API shows it: its stage and error in ``lang`` (where they are catalogue
        messages), ``status_text`` the status in words, ``stage_key`` the stage's catalogue key."""
        out = asdict(replace(self, result=None))  # the result is copied once, below, or not at all
        for private in ("cancel_requested", "heartbeat", "owner", "stage_message", "error_message"):
            out.pop(private)
        if not with_result:
            out.pop("result")
        else:  # a new copy, its notes and warnings (kept as messages) in the reader's language
            out["result"] = render_said(self.result, lang)
        stage = _message(self.stage_message)
        if stage is not None:
            out["stage"], out["stage_key"] = stage.text(lang), stage.key
        elif self.stage:  # written before stages were messages, or by a newer server: as it was stored
            out["stage_key"] = ""
        else:
            out["stage"], out["stage_key"] = msg("stage.waiting").text(lang), "stage.waiting"
        said = status_words(self.status)
        out["status_text"] = said.text(lang) if isinstance(said, Message) else said
        if (said := _message(self.error_message)) is not None:
            out["error"] = said.text(lang)
        return out

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> "Job":
        """A job as the log stored it, by the fields this version knows (a record of another
        version may have more or fewer)."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in record.items() if k in known})


def status_words(status: str) -> Message | str:
    """A job status in words; a status this version does not know (a record of another) as it is."""
    return msg(f"job.status.{status}") if catalogue().has(f"job.status.{status}") else status


def _message(data: dict[str, Any] | None) -> Message | None:
    """A stored message, or None when there is none or this catalogue does not know it (the
    English text stored beside it is shown instead)."""
    if not data:
        return None
    try:
        return Message.from_json(data)
    except (KeyError, TypeError, ValueError):
        return None


def error_message(exc: BaseException) -> Message | None:
    """The catalogue message of an error a job failed with (``as_message``; a ``Problem``'s own,
    or that of the error it wraps), when it has one."""
    if isinstance(exc, Problem):
        return exc.message or (error_message(exc.error) if exc.error is not None else None)
    said = as_message(exc)
    return said if isinstance(said, Message) else None


class JobRunner:
    def __init__(self, workers: int = 1, log: Records | None = None, stale_s: float = 30.0, shared: bool = True) -> None:
        """``shared``: other server processes write to ``log`` too (a database): it is read again
        on every look at the jobs, and running jobs say they are alive; else (a data folder's own
        log) it is only written, and read once at start (:meth:`take_over`)."""
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if stale_s <= 0:
            raise ValueError(f"stale_s must be > 0, got {stale_s}")
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="yakgwan-job")
        self._jobs: dict[str, Job] = {}
        self._lock = threading.Lock()
        self._log = log
        self._stale_s = stale_s
        self._mine: set[str] = set()  # jobs this process runs (the others came from the log)
        self._saved: dict[str, float] = {}  # when each job was last written to the log
        self._stop = threading.Event()
        self._shared = log is not None and shared
        self.owner = this_process()
        self._taken: dict[str, dict[str, Any]] = {}  # the records of the jobs taken over, as read (shared log)
        if self._shared:
            threading.Thread(target=self._beat, name="yakgwan-job-heartbeat", daemon=True).start()

    # ---- the log ---------------------------------------------------------------------------
    def recover(self) -> list[Job]:
        """Read the log's jobs (at start, and on every read: other server processes sharing the
        database write there too): each is listed; one that was queued or running in a server
        that has stopped is failed, saying so. Returns the jobs failed now."""
        if self._log is None:
            return []
        records = self._log.all()
        with self._lock:
            for key, record in records.items():
                if key.startswith((CANCEL, CLAIM)):
                    continue
                if key not in self._mine:  # this process's own jobs are current in memory
                    self._jobs[key] = Job.from_record(record)
        return self._expire()

    def take_over(self) -> list[Job]:
        """At a server's start: every job of the log is listed again (its id keeps answering), and
        those a stopped server left queued or running are returned — none of them runs any more;
        the caller resumes each (:meth:`submit` with its id) or fails it (:meth:`interrupted`).
        On a data folder (the only server there) that is every unfinished job, and cancel
        requests left in the log are dropped; on a shared log, the unfinished jobs of a process
        on this host that is gone or of any server silent for ``stale_s`` (the others run)."""
        if self._log is None:
            return []
        left: list[Job] = []
        now = time.time()
        for key, record in self._log.all().items():
            if key.startswith(CLAIM) or (key.startswith(CANCEL) and self._shared):
                continue
            if key.startswith(CANCEL):
                self._log.delete(key)
                continue
            job = Job.from_record(record)
            with self._lock:
                self._jobs[key] = job
            if job.finished_yet:
                continue
            if not self._shared or self._gone(job, now):
                left.append(job)
                self._taken[key] = record
        return sorted(left, key=lambda j: j.created)

    def running_elsewhere(self, collection: str, left: list[Job]) -> bool:
        """Whether a job of another live process is on ``collection`` (as the log read by
        :meth:`take_over` said; ``left``: what that returned)."""
        gone = {j.id for j in left}
        with self._lock:
            return any(j.collection == collection and not j.finished_yet and j.id not in gone and j.id not in self._mine
                       for j in self._jobs.values())

    def claim(self, collection: str) -> bool:
        """Whether this process is the one to resume ``collection``: always on a data folder; on a
        shared log, the first to write its claim (a claim whose process stopped, or older than
        ``stale_s``, is taken over). :meth:`release` ends it."""
        if not self._shared or self._log is None:
            return True
        key = CLAIM + collection
        held = self._log.get(key)
        if held is not None and not stopped(held.get("owner")) and time.time() - float(held.get("at", 0)) <= self._stale_s:
            return False
        return self._log.put_if(key, {"owner": self.owner, "at": time.time()}, held)

    def release(self, collection: str) -> None:
        if self._shared and self._log is not None:
            try:
                self._log.delete(CLAIM + collection)
            except Exception:  # noqa: BLE001 - a claim left behind expires after stale_s
                log.exception("collection %s: could not remove its resume claim", collection)

    def interrupted(self, job: Job, said: Message) -> None:
        """Fail a job a stopped server left unfinished, saying why (``said``). On a shared log only
        while its record is still as :meth:`take_over` read it (another process may have resumed it)."""
        with self._lock:
            job.status, job.finished = "failed", time.time()
            job.error, job.error_message = str(said), said.to_json()
            record = asdict(job)
        if self._shared and self._log is not None and job.id in self._taken:
            try:
                if not self._log.put_if(job.id, record, self._taken.pop(job.id)):
                    fresh = self._log.get(job.id)
                    if fresh is not None:
                        with self._lock:
                            self._jobs[job.id] = Job.from_record(fresh)
            except Exception:  # noqa: BLE001 - it is failed as stale later
                log.exception("job %s: could not write its record", job.id)
            return
        self._save(job, force=True)

    def _gone(self, job: Job, now: float) -> bool:
        """Whether the process that owns ``job`` has stopped: one of this host is asked directly (a
        live one whose heartbeat is late, its beat thread held up by work, still runs the job);
        one of another host once it has been silent for ``stale_s``."""
        if on_this_host(job.owner):
            return stopped(job.owner)
        return now - (job.heartbeat or job.created) > self._stale_s

    def _expire(self) -> list[Job]:
        """Fail the jobs of other servers that stopped saying they are alive."""
        now, failed = time.time(), []
        with self._lock:
            for job in self._jobs.values():
                if job.id in self._mine or job.finished_yet:
                    continue
                if self._gone(job, now):
                    was = job.status
                    job.status, job.finished = "failed", now
                    said = msg("error.job_server_stopped", status=status_words(was), seconds=f"{now - (job.heartbeat or job.created):.0f}")
                    job.error, job.error_message = str(said), said.to_json()
                    failed.append(job)
        for job in failed:
            self._save(job, force=True)
        return failed

    def _save(self, job: Job, force: bool = False) -> None:
        """Write ``job`` to the log (progress at most once a second unless ``force``)."""
        if self._log is None:
            return
        now = time.time()
        with self._lock:
            if not force and now - self._saved.get(job.id, 0.0) < 1.0:
                return
            self._saved[job.id] = now
            if self._shared and job.id in self._mine and not job.finished_yet:
                job.heartbeat = now
            record = asdict(job)
        try:
            self._log.put(job.id, record)
        except Exception:  # noqa: BLE001 - the job goes on; its record catches up at the next write
            log.exception("job %s: could not write its record", job.id)

    def _beat(self) -> None:
        """Every few seconds: the running jobs of this process say they are alive."""
        while not self._stop.wait(min(5.0, self._stale_s / 3)):
            with self._lock:
                alive = [j for j in self._jobs.values() if j.id in self._mine and not j.finished_yet]
            for job in alive:
                self._save(job, force=True)

    @staticmethod
    def new_id() -> str:
        return uuid.uuid4().hex[:12]

    def submit(self, kind: str, work: Callable[[ProgressSink], dict[str, Any]], collection: str | None = None, job_id: str | None = None,
               created: float | None = None) -> Job:
        """Queue ``work``; ``job_id`` (from :meth:`new_id`) when the work must know its own id, or
        to go on with a job a stopped server left (with its ``created`` time)."""
        job = Job(job_id or self.new_id(), kind, collection, owner=self.owner)
        if created is not None:
            job.created = created
        with self._lock:
            waiting = sum(j.status == "queued" for j in self._jobs.values())
            if waiting >= MAX_WAITING:
                raise Problem(503, msg("error.queue_full", waiting=waiting), "busy")
            self._jobs[job.id] = job
            self._mine.add(job.id)
            forgotten = self._forget_old()
        self._save(job, force=True)
        for old in forgotten:
            self._unlog(old)
        self._pool.submit(self._run, job, work)
        return job

    def _run(self, job: Job, work: Callable[[ProgressSink], dict[str, Any]]) -> None:
        asked = [time.monotonic()]

        def sink(stage: Message, done: int, total: int) -> None:
            if self._shared and self._log is not None and time.monotonic() - asked[0] >= 1.0:  # a cancel sent to another process
                asked[0] = time.monotonic()
                if self._log.get(CANCEL + job.id) is not None:
                    with self._lock:
                        job.cancel_requested = True
            with self._lock:
                if job.cancel_requested:
                    raise Cancelled()
                job.stage, job.stage_message, job.done, job.total = str(stage), stage.to_json(), done, total
            self._save(job)

        with self._lock:
            if job.status == "cancelled":  # cancelled while it waited
                return
            job.status, job.started = "running", time.time()
        self._save(job, force=True)
        said: Message | None = None
        kind: str | None = None
        details: dict[str, Any] | None = None
        try:
            result = work(sink)
        except Cancelled:
            said = msg("error.job_cancelled")
            outcome = ("cancelled", str(said), None)
        except (YakgwanError, Problem) as exc:
            said = error_message(exc)
            if isinstance(exc, Problem):
                kind, details = exc.kind, exc.details
            outcome = ("failed", str(exc), None)
        except Exception as exc:  # noqa: BLE001 - a job must never take the server down
            if isinstance(exc, OSError) and (said := storage_problem(exc)) is not None:  # the disk: full, read-only
                outcome = ("failed", str(said), None)
            else:
                log.exception("job %s (%s) failed", job.id, job.kind)
                said = msg("error.job_internal", kind=type(exc).__name__)
                outcome = ("failed", str(said), None)
        else:
            outcome = ("succeeded", None, result)
        with self._lock:
            job.status, job.error, job.result = outcome
            job.error_message = said.to_json() if said is not None else None
            job.error_kind, job.details = kind, details
            job.finished = time.time()
        self._save(job, force=True)

    def cancel(self, job_id: str) -> Job:
        """Ask a job to stop: a queued one is cancelled at once, a running one at its next
        progress report; a finished one cannot be (409)."""
        job = self.get(job_id)
        with self._lock:
            if job.finished_yet:
                raise Problem(409, msg("error.job_finished", job=job_id, status=status_words(job.status)), "finished")
            elsewhere = job.id not in self._mine
        if elsewhere and self._shared and self._log is not None:  # its process reads the request at its next progress step
            self._log.put(CANCEL + job.id, {"requested": time.time()})
            return job
        with self._lock:
            job.cancel_requested = True
            if job.status == "queued":
                said = msg("error.job_cancelled_early")
                job.status, job.error, job.error_message, job.finished = "cancelled", str(said), said.to_json(), time.time()
        self._save(job, force=True)
        return job

    def get(self, job_id: str) -> Job:
        if self._shared:
            self.recover()
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise Problem(404, msg("error.no_job", job=job_id), "unknown-job")
        return job

    def list(self) -> list[Job]:
        with self._lock:
            return sorted(self._jobs.values(), key=lambda j: -j.created)

    def snapshot(self, job_id: str, with_result: bool = True, lang: str = DEFAULT_LANG) -> dict[str, Any]:
        """The job's fields as one consistent copy (never a status without its result)."""
        job = self.get(job_id)
        with self._lock:
            return job.view(with_result, lang)

    def snapshots(self, lang: str = DEFAULT_LANG) -> list[dict[str, Any]]:
        if self._shared:
            self.recover()
        with self._lock:
            return [j.view(with_result=False, lang=lang) for j in sorted(self._jobs.values(), key=lambda j: -j.created)]

    def busy(self, collection: str) -> bool:
        if self._shared:
            self.recover()
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
        self._stop.set()
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _forget_old(self) -> list[str]:
        """Drop the oldest finished jobs past ``KEEP_FINISHED`` (under the lock); their ids."""
        finished = sorted((j for j in self._jobs.values() if j.finished), key=lambda j: j.finished or 0)
        gone = [j.id for j in finished[: max(0, len(finished) - KEEP_FINISHED)]]
        for key in gone:
            del self._jobs[key]
            self._mine.discard(key)
            self._saved.pop(key, None)
        return gone

    def _unlog(self, job_id: str) -> None:
        if self._log is not None:
            try:
                self._log.delete(job_id)
                self._log.delete(CANCEL + job_id)
            except Exception:  # noqa: BLE001 - an old record left behind is harmless
                log.exception("job %s: could not remove its record", job_id)
