"""The embedder's model loads on its own thread while an ingest reads and indexes the documents;
a failure to load is raised where the dense phase embeds, so it is reported like any embedder
failure and the BM25 index stays usable."""

from __future__ import annotations

import errno

import threading
from pathlib import Path

import numpy as np
import pytest

from yakgwan.config import EmbedderConfig, Settings
from yakgwan.embedders.preload import Preload

pytestmark = pytest.mark.unit


class SlowModel:
    model_id, dim = "fake-loads", 8

    def __init__(self, fail: bool = False) -> None:
        self.fail, self.loaded_on = fail, None

    def load(self) -> None:
        self.loaded_on = threading.current_thread().name
        if self.fail:
            raise RuntimeError("weights missing")

    def embed(self, texts: list[str], kind: str) -> np.ndarray:
        v = np.ones((len(texts), self.dim), np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_the_model_loads_on_a_thread_of_its_own_and_a_failure_comes_back_on_wait() -> None:
    ok = SlowModel()
    Preload(ok).wait()
    assert ok.loaded_on == "embedder-load"
    with pytest.raises(RuntimeError, match="weights missing"):
        Preload(SlowModel(fail=True)).wait()


def test_an_embedder_without_load_is_left_alone() -> None:
    class NoLoad:
        model_id, dim = "fake", 8

    Preload(NoLoad()).wait()  # type: ignore[arg-type]  # nothing to start, nothing to join


def test_a_model_that_cannot_load_leaves_a_bm25_index_and_says_why(tmp_path: Path) -> None:
    from yakgwan.services.ingest import ingest

    doc = tmp_path / "doc.md"
    doc.write_text("# 벌금\n\n벌금은 2천만원 한도로 보상합니다.\n", "utf-8")
    settings = Settings(index_dir=tmp_path / "index", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    report = ingest(settings, [doc], sync=True, embedder=SlowModel(fail=True))  # type: ignore[arg-type]
    assert not report.dense_ready and "weights missing" in str(report.dense_error or "") and report.index is not None and report.index.chunks


class _FullDisk:
    """An index of one document, and a second document whose ingest meets a full disk at its
    second commit (the words landed; the vectors do not)."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        from yakgwan.services.context import open_store
        from yakgwan.services.ingest import ingest
        from yakgwan.store.local.store import LocalStore

        self.settings = Settings(index_dir=tmp_path / "index", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
        first, self.second = tmp_path / "a.md", tmp_path / "b.md"
        first.write_text("# 벌금\n\n벌금은 2천만원 한도로 보상합니다.\n", "utf-8")
        self.second.write_text("# 청약 철회\n\n증권을 받은 날부터 15일 이내에 철회할 수 있습니다.\n", "utf-8")
        assert ingest(self.settings, [first]).dense_ready
        self.store = open_store(self.settings.index_dir)
        self.before, self.docs = self.store.generation(), set(self.store.read().docs)
        self.real, self.calls, self.monkeypatch = LocalStore._commit, [], monkeypatch
        real, calls = self.real, self.calls

        def full_on_second(store: LocalStore, data) -> None:  # type: ignore[no-untyped-def]
            calls.append(1)
            if len(calls) == 2:  # the words landed; the vectors meet a full disk
                raise OSError(errno.ENOSPC, "No space left on device", str(store.root / "g3" / "vectors.npy"))
            real(store, data)

        monkeypatch.setattr(LocalStore, "_commit", full_on_second)

    def ingest_second(self):  # type: ignore[no-untyped-def]
        from yakgwan.services.ingest import ingest

        return ingest(self.settings, [self.second])

    def space_again(self) -> None:
        from yakgwan.store.local.store import LocalStore

        self.monkeypatch.setattr(LocalStore, "_commit", self.real)


def test_a_full_disk_at_the_second_commit_leaves_the_index_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = _FullDisk(tmp_path, monkeypatch)
    with pytest.raises(OSError, match="No space left"):
        disk.ingest_second()
    assert len(disk.calls) == 2
    assert disk.store.generation() == disk.before and set(disk.store.read().docs) == disk.docs  # not the new document keyword-only
    disk.space_again()
    report = disk.ingest_second()  # space again: the ingest goes through
    assert report.dense_ready and set(disk.store.read().docs) == disk.docs | {"b.md"}


def test_a_full_disk_that_also_takes_the_restore_says_the_words_were_committed_and_the_vectors_not(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from yakgwan.core.errors import IndexStoreError
    from yakgwan.store.local.store import LocalStore

    disk = _FullDisk(tmp_path, monkeypatch)

    def no_restore(store: LocalStore, generation) -> None:  # type: ignore[no-untyped-def]
        raise OSError(errno.ENOSPC, "No space left on device", str(store.root / "manifest.json"))

    monkeypatch.setattr(LocalStore, "restore", no_restore)
    with pytest.raises(IndexStoreError) as info:
        disk.ingest_second()
    said = info.value.localized("en")
    assert "words of this ingest are committed (BM25-searchable)" in said and "disk full" in said and "run ingest again" in said
    # and it is so: the new document is in the index, keyword-searchable, its vectors pending
    data = disk.store.read()
    assert disk.store.generation() != disk.before and "b.md" in data.docs and not data.dense_ready
    disk.space_again()
    assert disk.ingest_second().dense_ready  # space again: the vectors are finished


def test_an_ingest_that_needs_no_new_vector_still_joins_the_load_it_started(tmp_path: Path) -> None:
    """Every vector from the cache or the old index: the dense phase never waits for the model, so
    the ingest joins the load itself before returning (a process that exits while a native library
    builds its model on another thread is aborted, exit 134)."""
    from yakgwan.services.ingest import ingest

    class VerySlowModel(SlowModel):
        def __init__(self) -> None:
            super().__init__()
            self.done = threading.Event()

        def load(self) -> None:
            super().load()
            self.done.wait(0.5)  # still loading when the ingest has nothing left to do
            self.done.set()

    doc = tmp_path / "doc.md"
    doc.write_text("# 벌금\n\n벌금은 2천만원 한도로 보상합니다.\n", "utf-8")
    settings = Settings(index_dir=tmp_path / "index", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    assert ingest(settings, [doc], sync=True, embedder=SlowModel()).dense_ready  # type: ignore[arg-type]
    again = settings.with_(index_dir=tmp_path / "other")  # another index: every vector comes from the machine's cache
    slow = VerySlowModel()
    report = ingest(again, [doc], sync=True, embedder=slow)  # type: ignore[arg-type]
    assert report.dense_ready and report.embedded == 0
    assert slow.done.is_set() and not [t for t in threading.enumerate() if t.name == "embedder-load"]
    # unchanged documents, nothing to do at all: joined too
    slow = VerySlowModel()
    assert ingest(again, [doc], sync=True, embedder=slow).unchanged == ["doc.md"]  # type: ignore[arg-type]
    assert slow.done.is_set()


def test_a_load_while_another_thread_loads_waits_for_it_instead_of_loading_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from yakgwan.embedders.e5_onnx import E5Onnx

    e = E5Onnx()
    calls: list[str] = []

    def slow() -> None:
        calls.append(threading.current_thread().name)
        time.sleep(0.2)
        e._session = object()

    monkeypatch.setattr(e, "_load", slow)
    threads = [threading.Thread(target=e.load, name=f"t{i}") for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and e._session is not None
