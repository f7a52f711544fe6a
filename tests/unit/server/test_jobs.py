"""JobRunner: cancelling a queued job, a running one, and a finished one."""

from __future__ import annotations

import json
import threading
import time

import pytest

from yakgwan.messages import msg
from yakgwan.server.problems import Problem
from yakgwan.server.runtime.jobs import JobRunner

pytestmark = pytest.mark.unit


def test_a_running_job_stops_at_its_next_progress_step_and_a_queued_one_never_starts() -> None:
    runner = JobRunner(workers=1)
    started, steps, ran_after = threading.Event(), [], []
    go_on = threading.Event()

    def long(sink):  # type: ignore[no-untyped-def]
        for i in range(1000):
            if i == 1:  # step 0 has been reported: the test cancels now
                started.set()
                go_on.wait(5)
            sink(msg("stage.embedding"), i, 1000)
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
    assert err.value.status == 409 and "already finished (cancelled)" in err.value.detail("en") and err.value.detail("ko") == f"작업 {running.id}은(는) 이미 끝났습니다(취소됨)."
    finished = runner.submit("ingest", lambda sink: {"ok": True})
    assert runner.wait(finished.id, 5).status == "succeeded"
    with pytest.raises(Problem, match="already finished"):
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


class _Log:
    """Records in a dict, as JSON (what the PostgreSQL table keeps)."""

    def __init__(self) -> None:
        self.rows: dict[str, dict] = {}

    def put(self, key: str, record: dict) -> None:
        self.rows[key] = json.loads(json.dumps(record))

    def put_if(self, key: str, record: dict, expect: dict | None) -> bool:
        if self.rows.get(key) != (None if expect is None else json.loads(json.dumps(expect))):
            return False
        self.put(key, record)
        return True

    def all(self) -> dict[str, dict]:
        return {k: dict(v) for k, v in self.rows.items()}

    def get(self, key: str) -> dict | None:
        return dict(self.rows[key]) if key in self.rows else None

    def delete(self, key: str) -> None:
        self.rows.pop(key, None)


def test_with_a_log_jobs_outlive_their_runner_and_a_dead_one_is_failed_saying_why() -> None:
    import threading

    from yakgwan.server.runtime.jobs import JobRunner

    log, gate = _Log(), threading.Event()
    first = JobRunner(log=log, stale_s=0.5)
    first.owner = "another-host:4321:99"  # a server of another host: known stopped only by its silence
    done = first.submit("ingest", lambda sink: {"chunks": 3}, "kb")
    assert first.wait(done.id, 10).status == "succeeded"
    stuck = first.submit("ingest", lambda sink: (sink(msg("stage.embedding"), 1, 4), gate.wait(10), {})[-1], "kb")
    end = time.monotonic() + 10
    while log.rows.get(stuck.id, {}).get("status") != "running" and time.monotonic() < end:
        time.sleep(0.02)
    assert log.rows[done.id]["status"] == "succeeded" and log.rows[done.id]["result"] == {"chunks": 3}
    assert log.rows[stuck.id]["status"] == "running"
    first._stop.set()  # the process dies: no more heartbeats (its thread is left blocked)
    second = JobRunner(log=log, stale_s=0.5)
    assert second.recover() == []  # heard from moments ago: not failed yet
    assert second.busy("kb")  # another server may still be on it
    time.sleep(0.8)
    again = second.snapshot(stuck.id, lang="en")
    assert again["status"] == "failed" and "the server stopped while this job was running" in again["error"]
    assert second.snapshot(stuck.id)["error"].startswith("이 작업이 진행 중 상태일 때 서버가 멈췄습니다")  # Korean unless asked
    assert second.snapshot(done.id)["status"] == "succeeded" and not second.busy("kb")
    assert log.rows[stuck.id]["status"] == "failed"
    with pytest.raises(Exception, match=r"already finished \(failed\)"):
        second.cancel(stuck.id)
    gate.set()
    first.shutdown()
    second.shutdown()


def test_a_job_of_a_live_process_of_this_host_is_not_failed_for_a_late_heartbeat() -> None:
    """Its beat thread may be held up by the work; the process is asked directly."""
    import threading

    from yakgwan.server.runtime.jobs import JobRunner

    log, gate = _Log(), threading.Event()
    first = JobRunner(log=log, stale_s=0.3)
    stuck = first.submit("ingest", lambda sink: (sink(msg("stage.embedding"), 1, 4), gate.wait(10), {})[-1], "kb")
    end = time.monotonic() + 10
    while log.rows.get(stuck.id, {}).get("status") != "running" and time.monotonic() < end:
        time.sleep(0.02)
    first._stop.set()  # no more heartbeats, but the process (this one) is alive
    second = JobRunner(log=log, stale_s=0.3)
    time.sleep(0.6)
    assert second.snapshot(stuck.id)["status"] == "running" and second.take_over() == []
    gate.set()
    assert first.wait(stuck.id, 10).status == "succeeded"
    first.shutdown()
    second.shutdown()


def test_a_live_job_keeps_its_heartbeat() -> None:
    import threading

    from yakgwan.server.runtime.jobs import JobRunner

    log, gate = _Log(), threading.Event()
    runner = JobRunner(log=log, stale_s=0.3)
    job = runner.submit("eval", lambda sink: (gate.wait(10), {})[-1])
    time.sleep(0.6)
    other = JobRunner(log=log, stale_s=0.3)
    other.recover()
    assert other.snapshot(job.id)["status"] == "running"  # its server is alive: never failed
    gate.set()
    assert runner.wait(job.id, 10).status == "succeeded"
    assert other.snapshot(job.id)["status"] == "succeeded"  # what its process wrote, read by the other
    runner.shutdown()
    other.shutdown()


def test_a_cancel_sent_through_another_process_stops_the_job_at_its_next_step() -> None:
    from yakgwan.server.runtime.jobs import JobRunner

    log = _Log()
    runner, other = JobRunner(log=log, stale_s=5), JobRunner(log=log, stale_s=5)
    steps = []

    def work(sink):  # type: ignore[no-untyped-def]
        for i in range(200):
            sink(msg("stage.embedding"), i, 200)
            steps.append(i)
            time.sleep(0.02)
        return {}

    job = runner.submit("ingest", work, "kb")
    time.sleep(0.2)
    other.cancel(job.id)  # the other process does not run it: the request goes through the log
    assert runner.wait(job.id, 10).status == "cancelled" and len(steps) < 200
    end = time.monotonic() + 5
    while other.snapshot(job.id)["status"] != "cancelled" and time.monotonic() < end:
        time.sleep(0.05)
    assert other.snapshot(job.id)["status"] == "cancelled"
    runner.shutdown()
    other.shutdown()


def test_records_of_another_version_are_read_by_what_this_one_knows() -> None:
    """A job written by an older server (no messages) or a newer one (more fields, a key this
    catalogue lacks) is listed with what it stored, never a 500."""
    log = _Log()
    old = {"id": "old1", "kind": "ingest", "collection": "kb", "status": "succeeded", "stage": "embedding", "done": 4, "total": 4,
           "created": 1.0, "started": 1.0, "finished": 2.0, "error": None, "result": {}, "cancel_requested": False, "heartbeat": 2.0}
    newer = {**old, "id": "new1", "status": "failed", "stage": "re-ranking", "error": "it broke", "stage_message": {"key": "stage.renamed", "params": {}},
             "error_message": {"key": "error.renamed", "params": {}}, "priority": 3}
    log.put("old1", old)
    log.put("new1", newer)
    runner = JobRunner(log=log, stale_s=30)
    runner.recover()
    a, b = runner.snapshot("old1"), runner.snapshot("new1", lang="en")
    assert (a["stage"], a["status_text"], a["stage_key"]) == ("embedding", "완료", "")
    assert (b["stage"], b["error"], b["status_text"]) == ("re-ranking", "it broke", "failed")


def test_a_results_notes_are_said_in_each_readers_language_also_after_a_restart() -> None:
    """A job's result keeps its notes as messages (said(…, None)); each reader reads them in
    their own language, from the runner or from the log another runner wrote."""
    from yakgwan.messages import said

    log = _Log()
    runner = JobRunner(workers=1, log=log)
    note = msg("note.dense_not_ready", name="hybrid")
    job = runner.wait(runner.submit("appeal", lambda sink: {"notes": [said(note, None)], "name": "통지서.pdf"}).id, 5)
    assert job.status == "succeeded"
    ko, en = runner.snapshot(job.id, lang="ko")["result"], runner.snapshot(job.id, lang="en")["result"]
    assert ko == {"notes": ["hybrid: 의미 벡터가 아직 준비되지 않아 bm25만으로 답했습니다"], "name": "통지서.pdf"}
    assert en == {"notes": ["hybrid: dense vectors not ready yet, answered by bm25 alone"], "name": "통지서.pdf"}
    runner.shutdown()
    again = JobRunner(workers=1, log=log)
    assert again.snapshot(job.id, lang="en")["result"] == en and again.snapshot(job.id, lang="ko")["result"] == ko
    assert log.rows[job.id]["result"]["notes"] == [{"$message": {"key": "note.dense_not_ready", "params": {"name": "hybrid"}}}]  # stored once, as a message
    again.shutdown()


def test_a_runner_on_a_folder_log_takes_over_the_jobs_of_the_process_before(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from yakgwan.store.local.records import FileRecords

    log = FileRecords(tmp_path / "jobs")
    first = JobRunner(workers=1, log=log, shared=False)
    gate = threading.Event()
    running = first.submit("eval", lambda sink: gate.wait(10) and {})
    queued = first.submit("ingest", lambda sink: {"never": True}, "faq")
    end = time.time() + 5
    # what the next process reads is the log: wait until the running job's record says so (the
    # worker thread writes it just after it sets the status in memory)
    while (log.get(running.id) or {}).get("status") != "running" and time.time() < end:
        time.sleep(0.01)
    first.shutdown()  # the process stops: the queued job never runs
    log.put("cancel:" + running.id, {"requested": time.time()})  # a cancel request the process never read
    second = JobRunner(workers=1, log=log, shared=False)
    left = second.take_over()
    assert [j.id for j in left] == [running.id, queued.id] and {j.status for j in left} == {"running", "queued"}
    assert "cancel:" + running.id not in log.all()
    second.interrupted(left[0], msg("error.job_restarted", status="running"))
    again = second.submit("ingest", lambda sink: {"resumed": True}, "faq", job_id=queued.id)  # resumed under its id
    assert second.wait(again.id, 5).status == "succeeded" and second.get(queued.id).result == {"resumed": True}
    failed = second.get(running.id)
    assert failed.status == "failed" and "server restarted" in (failed.error or "")
    third = JobRunner(workers=1, log=log, shared=False)  # and it is all in the log
    assert third.take_over() == [] and third.get(running.id).status == "failed" and third.get(queued.id).status == "succeeded"
    gate.set()


def _gone_owner() -> str:
    """The owner string of a process of this host that has ended."""
    import socket
    import subprocess
    import sys

    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True)
    return f"{socket.gethostname()}:{child.stdout.strip()}:"


def test_on_a_shared_log_the_jobs_of_a_gone_process_are_taken_over_at_once_and_a_live_ones_are_not() -> None:
    log = _Log()
    gate = threading.Event()
    live = JobRunner(log=log, stale_s=60)
    running = live.submit("ingest", lambda sink: (gate.wait(10), {})[-1], "faq")
    end = time.time() + 5
    while log.rows.get(running.id, {}).get("status") != "running" and time.time() < end:
        time.sleep(0.01)
    dead = {"id": "deadjob00001", "kind": "ingest", "collection": "kb", "status": "running", "created": time.time(),
            "heartbeat": time.time(), "owner": _gone_owner()}  # heard from a moment ago, but its process is gone
    silent = {**dead, "id": "silentjob001", "collection": "auto", "owner": "elsewhere:1:1", "heartbeat": time.time() - 120}
    log.put(dead["id"], dead)
    log.put(silent["id"], silent)
    starting = JobRunner(log=log, stale_s=60)
    left = starting.take_over()
    assert [j.id for j in left] == ["deadjob00001", "silentjob001"]
    assert starting.running_elsewhere("faq", left) and not starting.running_elsewhere("kb", left)
    assert starting.claim("kb") and not live.claim("kb")  # one process resumes a collection
    starting.release("kb")
    assert live.claim("kb")
    log.put("resume:auto", {"owner": _gone_owner(), "at": time.time()})  # the claim of a process that is gone
    assert starting.claim("auto")
    # the job resumed under its id by one process is not failed by another that read it before
    other = JobRunner(log=log, stale_s=60)
    assert {j.id for j in other.take_over()} == {"deadjob00001", "silentjob001"}
    again = starting.submit("ingest", lambda sink: {"resumed": True}, "kb", job_id="deadjob00001")
    assert starting.wait(again.id, 5).status == "succeeded"
    other.interrupted(next(j for j in left if j.id == "deadjob00001"), msg("error.job_restarted", status="running"))
    assert log.rows["deadjob00001"]["status"] == "succeeded" and other.get("deadjob00001").status == "succeeded"
    other.interrupted(next(j for j in left if j.id == "silentjob001"), msg("error.job_restarted", status="running"))
    assert log.rows["silentjob001"]["status"] == "failed"
    gate.set()
    for runner in (live, starting, other):
        runner.shutdown()


def test_a_job_whose_process_on_this_host_is_gone_is_failed_without_waiting_for_it_to_go_stale() -> None:
    log = _Log()
    log.put("deadjob00002", {"id": "deadjob00002", "kind": "eval", "collection": None, "status": "running", "created": time.time(),
                             "heartbeat": time.time(), "owner": _gone_owner()})
    runner = JobRunner(log=log, stale_s=60)
    assert runner.snapshot("deadjob00002", lang="en")["status"] == "failed"
    runner.shutdown()
