"""A server on a data folder killed (SIGKILL) in the middle of an ingest and started again: the
upload is kept, the job id the client was given keeps answering, and the ingest goes on to the
end — killed before the first commit (while the files are read) and while embedding (the words
committed, the vectors not) and during the second commit (the vectors' generation written, the
manifest not yet moved: the server it runs has the store's generation writer wrapped so that it
pauses there, a marker file saying so). The real bundled embedder, with an embedding cache of the test's own:
empty, so that embedding the KB policy takes long enough to be caught (and the words are committed before
the vectors); only the kill while reading, which comes before any embedding, reuses the cache the kill
while embedding filled when that ran first."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from live_server import free_port

from yakgwan.store import open_store

pytestmark = pytest.mark.integration


# the server, its last commit held between writing the generation and moving the manifest
_PAUSED_COMMIT = """
import sys, time
from pathlib import Path
import yakgwan.store.local.store as store
from yakgwan.cli import main
write, marker = store._write_generation, Path(sys.argv[1])
def paused(gen, data):
    write(gen, data)
    if data.dense_ready:
        marker.write_text(str(gen))
        time.sleep(600)
store._write_generation = paused
sys.exit(main(sys.argv[2:]))
"""


def _serve(tmp: Path, port: int, cache: Path, pause_last_commit: bool = False) -> subprocess.Popen[bytes]:
    env = {**os.environ, "YAKGWAN_CACHE_DIR": str(cache)}
    env.pop("YAKGWAN_EMBEDDER", None)
    args = ["serve", "--data", str(tmp / "data"), "--port", str(port), "--quiet"]
    launch = [sys.executable, "-c", _PAUSED_COMMIT, str(tmp / "committing")] if pause_last_commit else [sys.executable, "-m", "yakgwan.cli"]
    server = subprocess.Popen(launch + args,
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    end = time.monotonic() + 120
    while time.monotonic() < end:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/api/health", timeout=2).status_code == 200:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    os.killpg(server.pid, signal.SIGKILL)
    raise AssertionError("the server did not start")


def _kill(server: subprocess.Popen[bytes]) -> None:
    os.killpg(server.pid, signal.SIGKILL)
    server.wait(10)


def _job(url: str, job: str) -> dict[str, Any]:
    return httpx.get(f"{url}/api/jobs/{job}", timeout=10).json()


def _until(url: str, job: str, done: Any, timeout_s: float) -> dict[str, Any]:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        state = _job(url, job)
        if done(state):
            return state
        time.sleep(0.05)
    raise AssertionError(f"job {job}: {state}")


@pytest.fixture(scope="module")
def filled() -> dict[str, Path]:
    """The embedding cache the kill while embedding filled (empty until that run has passed)."""
    return {}


@pytest.mark.parametrize("phase", ["embedding", "reading", "second commit"])
def test_a_server_killed_mid_ingest_goes_on_with_the_same_job_after_a_restart(phase: str, tmp_path: Path, kb_policy_pdf: Path,
                                                                              filled: dict[str, Path]) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    cache = filled.get("cache", tmp_path / "cache") if phase == "reading" else tmp_path / "cache"
    server = _serve(tmp_path, port, cache, pause_last_commit=phase == "second commit")
    try:
        name = httpx.post(f"{url}/api/collections", json={"title": "내 운전자보험"}, timeout=10).json()["name"]
        job = httpx.post(f"{url}/api/collections/{name}/documents", files={"file": ("kb.pdf", kb_policy_pdf.read_bytes())}, timeout=60).json()["id"]
        created = _job(url, job)["created"]
        if phase == "reading":  # before the first commit: nothing of the document is in the index yet
            _until(url, job, lambda j: j["status"] == "running", 60)
        elif phase == "embedding":  # the words committed, the vectors being made
            _until(url, job, lambda j: j["stage_key"] == "stage.embedding" and j["done"] > 0, 300)
        else:  # every vector made, their generation written, the manifest not moved yet
            marker = tmp_path / "committing"
            end = time.monotonic() + 600
            while not marker.exists() and time.monotonic() < end:
                time.sleep(0.1)
            assert marker.exists(), _job(url, job)
            assert Path(marker.read_text()).is_dir()  # the written generation, not yet the index's
    finally:
        _kill(server)
    index = tmp_path / "data" / "collections" / name / "index"
    store = open_store(index)
    if phase == "reading":
        assert not store.exists() or not store.read().docs
    else:
        assert store.read().docs and not store.read().dense_ready
    server = _serve(tmp_path, port, cache)
    try:
        done = _until(url, job, lambda j: j["status"] in ("succeeded", "failed", "cancelled"), 600)
        assert done["status"] == "succeeded" and done["result"]["resumed"] and done["result"]["dense_ready"], done
        assert done["result"]["name"] == "kb.pdf" and done["result"]["document"] and done["created"] == created  # the same job, about the same file
        docs = httpx.get(f"{url}/api/collections/{name}/documents", timeout=10).json()
        assert [d["name"] for d in docs] == ["kb.pdf"]
        hits = httpx.post(f"{url}/api/collections/{name}/search", json={"query": "청약의 철회", "k": 3}, timeout=60).json()["hits"]
        assert hits and hits[0]["doc_name"] == "kb.pdf"
    finally:
        _kill(server)
    if phase == "embedding":
        filled["cache"] = cache
    assert open_store(index).read().dense_ready
