"""Ingest into the local store: incremental, atomic, and bad input never changes the index."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from yakgwan.services.context import open_context

from yakgwan.services.ingest import ingest
from yakgwan.config import EmbedderConfig, Settings
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.core.errors import IndexStoreError, InputError, ProviderError
from yakgwan.pipelines import build_pipeline
from yakgwan.store.local import store as local_store
from yakgwan.store import Store, open_store

pytestmark = pytest.mark.unit

DOC_A = "# 여행자 보험\n\n## 기본 보험\n\n해외 의료비는 3,000만원까지 보장합니다. 비급여 항목은 보장하지 않습니다.\n"
DOC_B = "# 취소 규정\n\n## 환불\n\n출발 30일 전 취소 시 전액 환불합니다. 출발 7일 전에는 50%를 환불합니다.\n"


def _settings(tmp: Path) -> Settings:
    return Settings(index_dir=tmp / "index", cache_dir=tmp / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)


def _snapshot(folder: Path) -> dict[str, str]:
    if not folder.exists():
        return {}
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir" for p in sorted(folder.rglob("*"))}


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    kb = tmp_path / "kb"
    (kb / "policies").mkdir(parents=True)
    (kb / "policies" / "insurance.md").write_text(DOC_A, "utf-8")
    (kb / "policies" / "cancel.md").write_text(DOC_B, "utf-8")
    return kb


def test_ingest_then_search_with_provenance(tmp_path: Path, corpus: Path) -> None:
    s = _settings(tmp_path)
    r = ingest(s, [corpus], embedder=HashingEmbedder())
    assert sorted(r.added) == ["policies/cancel.md", "policies/insurance.md"]
    assert r.dense_ready and r.embedded == r.new_chunks > 0
    ctx = open_context(s, embedder=HashingEmbedder())
    for name in ("bm25", "dense", "hybrid"):
        retriever, note = build_pipeline(name, ctx)
        hits = retriever.retrieve("전액 환불", 3)
        assert note is None
        assert hits[0].chunk.doc_id == "policies/cancel.md", name
        assert hits[0].rank == 1 and hits[0].produced_by == name


def test_ingest_reports_each_stage_to_a_progress_sink(tmp_path: Path, corpus: Path) -> None:
    seen: list[tuple[str, int, int]] = []
    r = ingest(_settings(tmp_path), [corpus], embedder=HashingEmbedder(), sink=lambda stage, done, total: seen.append((stage.key.removeprefix("stage."), done, total)))
    stages = list(dict.fromkeys(s for s, _, _ in seen))
    assert stages == ["loading", "chunking", "tokenising", "embedding"]
    last = {s: (d, t) for s, d, t in seen}
    assert last["loading"] == (2, 2) and last["chunking"] == (2, 2) and last["embedding"] == (r.new_chunks, r.new_chunks)
    assert all(0 <= d <= t for _, d, t in seen) and seen[0] == ("loading", 0, 2)


def test_unchanged_is_skipped_and_changed_is_replaced(tmp_path: Path, corpus: Path) -> None:
    s = _settings(tmp_path)
    ingest(s, [corpus], embedder=HashingEmbedder())
    before = _snapshot(s.index_dir)
    r2 = ingest(s, [corpus], embedder=HashingEmbedder())
    assert sorted(r2.unchanged) == ["policies/cancel.md", "policies/insurance.md"] and not r2.added
    assert _snapshot(s.index_dir) == before  # nothing rewritten
    (corpus / "policies" / "cancel.md").write_text(DOC_B.replace("50%", "70%"), "utf-8")
    r3 = ingest(s, [corpus], embedder=HashingEmbedder())
    assert r3.replaced == ["policies/cancel.md"] and r3.unchanged == ["policies/insurance.md"]
    data = open_store(s.index_dir).read()
    texts = " ".join(c.text for c in data.chunks)
    assert "70%" in texts and "50%" not in texts
    # the unchanged document's vectors were kept, the changed one embedded again (nothing from the cache)
    assert r3.embedded == r3.new_chunks and data.dense_ready


def test_embedding_cache_is_used_across_indexes(tmp_path: Path, corpus: Path) -> None:
    s = _settings(tmp_path)
    ingest(s, [corpus], embedder=HashingEmbedder())
    other = s.with_(index_dir=tmp_path / "index2")
    r = ingest(other, [corpus], embedder=HashingEmbedder())
    assert r.embedded == 0 and r.from_cache == r.new_chunks


@pytest.mark.parametrize(
    "name, content",
    [
        ("corrupt.pdf", b"%PDF-1.4\n garbage without objects"),
        ("empty.txt", b""),
        ("binary.md", bytes(range(256)) * 8),
        ("unknown.xyz", b"text"),
    ],
)
def test_bad_file_leaves_index_byte_for_byte(tmp_path: Path, corpus: Path, name: str, content: bytes) -> None:
    s = _settings(tmp_path)
    ingest(s, [corpus], embedder=HashingEmbedder())
    before = _snapshot(s.index_dir)
    bad = tmp_path / name
    bad.write_bytes(content)
    with pytest.raises(InputError) as e:
        ingest(s, [bad], embedder=HashingEmbedder())
    assert str(bad) in str(e.value)
    assert _snapshot(s.index_dir) == before


def test_failed_first_ingest_creates_nothing(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    bad = tmp_path / "x.txt"
    bad.write_bytes(b"")
    with pytest.raises(InputError):
        ingest(s, [bad], embedder=HashingEmbedder())
    assert not s.index_dir.exists()


def test_mixed_folder_ingests_good_and_lists_bad(tmp_path: Path, corpus: Path) -> None:
    (corpus / "broken.pdf").write_bytes(b"not a pdf at all")
    s = _settings(tmp_path)
    r = ingest(s, [corpus], embedder=HashingEmbedder())
    assert len(r.added) == 2
    assert [Path(e.path).name for e in r.failed] == ["broken.pdf"]
    with pytest.raises(InputError, match="--strict"):
        ingest(s.with_(index_dir=tmp_path / "strict"), [corpus], strict=True, embedder=HashingEmbedder())
    assert not (tmp_path / "strict").exists()


def test_crash_while_writing_keeps_old_index(tmp_path: Path, corpus: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = _settings(tmp_path)
    ingest(s, [corpus], embedder=HashingEmbedder())
    before = _snapshot(s.index_dir)
    (corpus / "policies" / "new.md").write_text("# 새 문서\n\n새로운 내용입니다. 보장 범위를 설명합니다.", "utf-8")

    def boom(gen: Path, data: object) -> None:
        gen.mkdir()
        (gen / "chunks.jsonl").write_text("partial")
        raise OSError("disk full")

    monkeypatch.setattr(local_store, "_write_generation", boom)
    with pytest.raises(OSError, match="disk full"):
        ingest(s, [corpus], embedder=HashingEmbedder())
    assert _snapshot(s.index_dir) == before


class _FailingEmbedder(HashingEmbedder):
    def embed(self, texts, kind):  # type: ignore[no-untyped-def]
        raise ProviderError("endpoint unreachable")


def test_dense_failure_keeps_bm25_usable(tmp_path: Path, corpus: Path) -> None:
    s = _settings(tmp_path)
    r = ingest(s, [corpus], embedder=_FailingEmbedder())
    assert not r.dense_ready and "unreachable" in str(r.dense_error or "")
    ctx = open_context(s, embedder=HashingEmbedder())
    retriever, note = build_pipeline("hybrid", ctx)
    assert note is not None and "bm25 alone" in note.text("en") and "bm25만으로" in note.text("ko")
    assert retriever.retrieve("환불", 2)[0].chunk.doc_id == "policies/cancel.md"
    from yakgwan.services.search import search

    found = search(ctx, "환불", "hybrid", 2)  # the command line says how far the dense list is
    assert found.pending is not None and found.pending[0] < found.pending[1] == len(ctx.view.chunks) and found.note == note
    # a second ingest finishes the dense phase without reloading documents
    r2 = ingest(s, [corpus], embedder=HashingEmbedder())
    assert r2.dense_ready and r2.embedded > 0
    assert open_store(s.index_dir).read().dense_mask.all()


def test_vectors_align_with_chunks(tmp_path: Path, corpus: Path) -> None:
    s = _settings(tmp_path)
    ingest(s, [corpus], embedder=HashingEmbedder())
    data = open_store(s.index_dir).read()
    from yakgwan.ingest.indexing import index_text

    expect = HashingEmbedder().embed([index_text(c) for c in data.chunks], "passage")
    assert np.allclose(data.vectors, expect)


def _enter_in_thread(store: Store) -> tuple["threading.Thread", "threading.Event", list[str]]:
    """A thread that enters ``store.writer()``, records whether it had to wait, and leaves."""
    import threading

    entered, said = threading.Event(), []

    def run() -> None:
        with store.writer(on_wait=lambda: said.append("waiting")):
            entered.set()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, entered, said


def test_writers_of_different_indexes_in_one_folder_do_not_wait(tmp_path: Path) -> None:
    a, b = open_store(tmp_path / "a"), open_store(tmp_path / "b")
    with a.writer():
        t, entered, said = _enter_in_thread(b)
        assert entered.wait(5), "a writer of index b waited for the writer of index a"
        t.join(5)
    assert said == []


def test_a_second_writer_of_one_index_waits_and_says_so(tmp_path: Path) -> None:
    store = open_store(tmp_path / "a")
    with store.writer():
        t, entered, said = _enter_in_thread(open_store(tmp_path / "a"))
        assert not entered.wait(0.5), "two writers held one index's lock at once"
        assert said == ["waiting"]
    assert entered.wait(5)
    t.join(5)


def test_writer_that_commits_nothing_leaves_no_folder_and_one_that_commits_keeps_it(tmp_path: Path) -> None:
    empty, kept = open_store(tmp_path / "empty"), open_store(tmp_path / "kept")
    with empty.writer():
        assert (tmp_path / "empty").is_dir()  # the lock's folder exists while it is held
    assert not (tmp_path / "empty").exists()
    (tmp_path / "file").write_text("x")
    with pytest.raises(IndexStoreError, match="not a folder"):
        with open_store(tmp_path / "file").writer():
            pass
    with kept.writer():
        (tmp_path / "kept" / "note.txt").write_text("not empty")  # as a commit would leave it
    assert (tmp_path / "kept").is_dir()


def test_a_failed_first_commit_leaves_no_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(gen: Path, data: object) -> None:
        gen.mkdir()
        raise OSError("disk full")

    monkeypatch.setattr(local_store, "_write_generation", full)
    with pytest.raises(OSError, match="disk full"):
        open_store(tmp_path / "new").commit(None)  # type: ignore[arg-type]
    assert not (tmp_path / "new").exists()
