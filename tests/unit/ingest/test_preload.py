"""The embedder's model loads on its own thread while an ingest reads and indexes the documents;
a failure to load is raised where the dense phase embeds, so it is reported like any embedder
failure and the BM25 index stays usable."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from yakgwan.config import EmbedderConfig, Settings
from yakgwan.ingest.run import _Preload

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
    _Preload(ok).wait()
    assert ok.loaded_on == "embedder-load"
    with pytest.raises(RuntimeError, match="weights missing"):
        _Preload(SlowModel(fail=True)).wait()


def test_an_embedder_without_load_is_left_alone() -> None:
    class NoLoad:
        model_id, dim = "fake", 8

    _Preload(NoLoad()).wait()  # type: ignore[arg-type]  # nothing to start, nothing to join


def test_a_model_that_cannot_load_leaves_a_bm25_index_and_says_why(tmp_path: Path) -> None:
    from yakgwan.services.ingest import ingest

    doc = tmp_path / "doc.md"
    doc.write_text("# 벌금\n\n벌금은 2천만원 한도로 보상합니다.\n", "utf-8")
    settings = Settings(index_dir=tmp_path / "index", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    report = ingest(settings, [doc], sync=True, embedder=SlowModel(fail=True))  # type: ignore[arg-type]
    assert not report.dense_ready and "weights missing" in (report.dense_error or "") and report.index is not None and report.index.chunks
