"""JobRunner: cancelling a queued job, a running one, and a finished one."""

from __future__ import annotations

import threading

import pytest

from yakgwan.server.problems import Problem
from yakgwan.server.runtime.jobs import JobRunner

pytestmark = pytest.mark.unit


def test_a_running_job_stops_at_its_next_progress_step_and_a_queued_one_never_starts() -> None:
    runner = JobRunner(workers=1)
    started, steps, ran_after = threading.Event(), [], []
    go_on = threading.Event()

    def long(sink):  # type: ignore[no-untyped-def]
        started.set()
        for i in range(1000):
            if i == 1:
                go_on.wait(5)
            sink("working", i, 1000)
            steps.append(i)
        return {"steps": len(steps)}

    running = runner.submit("ingest", long)
    queued = runner.submit("ingest", lambda sink: ran_after.append(1) or {})
    assert started.wait(5)
    assert runner.cancel(queued.id).status == "cancelled"
    runner.cancel(running.id)
    go_on.set()
    done = runner.wait(running.id, 5)
    assert (done.status, done.error, done.result) == ("cancelled", "cancelled by request", None)
    assert steps == [0]  # the step after the cancel never ran
    assert runner.wait(queued.id, 5).status == "cancelled" and ran_after == []
    with pytest.raises(Problem) as err:
        runner.cancel(running.id)
    assert err.value.status == 409 and "already cancelled" in err.value.detail
    finished = runner.submit("ingest", lambda sink: {"ok": True})
    assert runner.wait(finished.id, 5).status == "succeeded"
    with pytest.raises(Problem, match="already succeeded"):
        runner.cancel(finished.id)
    assert "cancel_requested" not in runner.snapshot(finished.id)
    runner.shutdown()


def test_a_full_disk_fails_a_job_in_words_and_another_os_error_as_internal() -> None:
    import errno

    runner = JobRunner(workers=1)

    def full(sink):  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device", "/data/collections/a/index/g3")

    def broken(sink):  # type: ignore[no-untyped-def]
        raise OSError(errno.EIO, "Input/output error")

    done = runner.wait(runner.submit("ingest", full).id, 5)
    assert (done.status, done.error) == ("failed", "disk full (/data/collections/a/index/g3): free some space and try again")
    other = runner.wait(runner.submit("ingest", broken).id, 5)
    assert other.status == "failed" and other.error == "internal error (OSError); the server log has the details"
    runner.shutdown()
