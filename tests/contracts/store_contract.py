"""The contract every ``Store`` backend passes (``yakgwan.store.Store``): a subclass gives
``make_store(tmp_path)``, a handle on an empty store at a location of its own for ``tmp_path``
(called twice with one ``tmp_path``, two handles on that one location), and inherits every test.

Modelled on Haystack's ``testing/document_store.py``: one class of behaviour, run by each backend.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from yakgwan.core.errors import IndexStoreError
from yakgwan.core.records import Chunk
from yakgwan.retrieval.scoring.bm25 import BM25Index
from yakgwan.store import DocRecord, IndexData, IndexView, Store

TIMEOUT_S = 20.0


def _chunk(i: int, text: str, **extra: object) -> Chunk:
    return Chunk(f"c{i:02d}", f"doc{i % 2}.md", f"kb/doc{i % 2}.md", f"문서 {i % 2}", text, 10 * i, 10 * i + len(text), **extra)  # type: ignore[arg-type]


def sample_data(variant: int = 0) -> IndexData:
    """A small index with every chunk field set somewhere, one row not embedded yet, and
    Korean, newline and non-BMP text. ``variant`` 1 is a different index of another size."""
    chunks = [
        _chunk(0, "제1조(목적) 이 약관은 보험금 지급을 정합니다.", pages=(1,), kind="text", yakgwan="보통약관", part="제1관",
               article="제1조", article_title="목적", paragraph="①", section="총칙", doc_type="약관"),
        _chunk(1, "비급여 치료비는\n보상하지 않습니다. 😀", pages=(2, 3), retrieval_text="비급여 치료비 보상 제외"),
        _chunk(2, "| 구분 | 금액 |\n|---|---|\n| 벌금 | 2천만원 |", kind="table", yakgwan="벌금 특별약관"),
        _chunk(3, "출발 30일 전 취소 시 전액 환불합니다."),
    ]
    tokens = [["약관", "보험금", "지급", "목적"], ["비급여", "치료비", "보상", "제외", "치료비"], ["벌금", "금액", "2천만원"], ["출발", "취소", "전액", "환불"]]
    if variant == 1:
        chunks = [replace(c, chunk_id=f"v{c.chunk_id}", text=c.text + " (개정)") for c in chunks[:3]]
        tokens = [[*t, "개정"] for t in tokens[:3]]
    rng = np.random.default_rng(7 + variant)
    vectors = rng.standard_normal((len(chunks), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    mask = np.ones(len(chunks), dtype=bool)
    mask[1] = False
    vectors[1] = 0.0
    docs = {
        "doc0.md": DocRecord("doc0.md", "kb/doc0.md", "문서 0", "markdown", f"h0-{variant}", 2, 2, doc_type="약관", origin="upload"),
        "doc1.md": DocRecord("doc1.md", "kb/doc1.md", "문서 1", "markdown", f"h1-{variant}", 3, len(chunks) - 2),
    }
    extra = {"ingest_steps": [], "note": f"variant {variant}"}
    return IndexData(chunks, tokens, docs, "mecab", f"hashing-bigram-8-v{variant}", 8, vectors, mask, extra)


def lucene_bm25(corpus: list[list[str]], query: list[str], k1: float = 1.2, b: float = 0.75) -> list[float]:
    """The formula in ``yakgwan.retrieval.scoring.bm25`` written out in plain Python, as a second reference."""
    n = len(corpus)
    avgdl = sum(len(d) for d in corpus) / n
    out = []
    for d in corpus:
        s = 0.0
        for t in query:
            tf = d.count(t)
            if tf:
                df = sum(1 for e in corpus if t in e)
                idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
                s += idf * tf / (tf + k1 * (1 - b + b * len(d) / avgdl))
        out.append(s)
    return out


def assert_same_index(got: IndexData, want: IndexData) -> None:
    assert got.chunks == want.chunks
    assert all(isinstance(c.pages, tuple) for c in got.chunks)
    assert got.tokens == want.tokens
    assert got.docs == want.docs
    assert (got.tokenizer, got.embedder, got.dim) == (want.tokenizer, want.embedder, want.dim)
    assert got.vectors.dtype == np.float32 and got.vectors.shape == want.vectors.shape
    np.testing.assert_array_equal(got.vectors, want.vectors)
    assert got.dense_mask.dtype == np.bool_
    np.testing.assert_array_equal(got.dense_mask, want.dense_mask)
    assert {k: got.extra[k] for k in want.extra} == want.extra


def _in_thread(target, name: str) -> threading.Thread:  # type: ignore[no-untyped-def]
    t = threading.Thread(target=target, name=name, daemon=True)
    t.start()
    return t


class StoreContract:
    """Inherit and implement ``make_store``."""

    def make_store(self, tmp_path: Path) -> Store:
        raise NotImplementedError

    @pytest.fixture()
    def store(self, tmp_path: Path) -> Store:
        return self.make_store(tmp_path)

    # ---- existence and round trip ----------------------------------------------------------
    def test_is_a_store_with_a_location(self, store: Store) -> None:
        assert isinstance(store, Store)
        assert isinstance(store.location, str) and store.location

    def test_an_empty_store_does_not_exist_and_cannot_be_read(self, store: Store) -> None:
        assert store.exists() is False
        assert store.generation() is None
        with pytest.raises(IndexStoreError):
            store.read()
        with pytest.raises(IndexStoreError):
            store.view()

    def test_commit_then_read_round_trips_exactly(self, store: Store) -> None:
        data = sample_data()
        store.commit(data)
        assert store.exists() is True
        assert_same_index(store.read(), data)
        assert_same_index(store.read(), data)  # reading twice (or viewing) changes nothing
        store.view()
        assert_same_index(store.read(), data)

    def test_another_handle_on_the_location_sees_the_commit(self, store: Store, tmp_path: Path) -> None:
        other = self.make_store(tmp_path)
        assert other.exists() is False
        store.commit(sample_data())
        assert other.exists() is True and other.generation() == store.generation()
        assert_same_index(other.read(), sample_data())

    def test_a_second_commit_replaces_the_first_and_changes_the_generation(self, store: Store) -> None:
        store.commit(sample_data(0))
        first = store.generation()
        store.commit(sample_data(1))
        second = store.generation()
        assert first is not None and second is not None and first != second
        assert_same_index(store.read(), sample_data(1))
        assert [c.chunk_id for c in store.view().chunks] == [c.chunk_id for c in sample_data(1).chunks]

    def test_readers_see_the_old_index_or_the_new_one_never_a_mix(self, store: Store) -> None:
        versions = [sample_data(0), sample_data(1)]
        fingerprints = {tuple(c.chunk_id for c in v.chunks): v for v in versions}
        store.commit(versions[0])
        stop = threading.Event()
        errors: list[BaseException] = []
        seen: set[tuple[str, ...]] = set()

        def read_loop() -> None:
            try:
                while not stop.is_set():
                    got = store.read()
                    key = tuple(c.chunk_id for c in got.chunks)
                    assert key in fingerprints, f"a read saw chunks {key}"
                    assert_same_index(got, fingerprints[key])
                    seen.add(key)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

        readers = [_in_thread(read_loop, f"reader{i}") for i in range(2)]
        for i in range(12):
            store.commit(versions[(i + 1) % 2])
        deadline = time.monotonic() + TIMEOUT_S
        while not seen and not errors and time.monotonic() < deadline:  # a starved reader gets its turn
            time.sleep(0.01)
        stop.set()
        for t in readers:
            t.join(TIMEOUT_S)
        assert not errors, errors[0]
        assert seen  # the readers did read
        assert_same_index(store.read(), versions[0])  # twelve commits: back to version 0

    def test_a_failed_commit_leaves_the_store_as_it_was(self, store: Store) -> None:
        data = sample_data()
        store.commit(data)
        generation = store.generation()
        bad = sample_data(1)
        bad.extra["unserialisable"] = object()
        with pytest.raises(Exception):
            store.commit(bad)
        assert store.exists() and store.generation() == generation
        assert_same_index(store.read(), data)
        assert [c.chunk_id for c in store.view().chunks] == [c.chunk_id for c in data.chunks]

    def test_a_failed_first_commit_leaves_no_index(self, store: Store) -> None:
        bad = sample_data()
        bad.extra["unserialisable"] = object()
        with pytest.raises(Exception):
            store.commit(bad)
        assert store.exists() is False and store.generation() is None

    def test_restore_brings_back_the_generation_before_the_last_commit(self, store: Store) -> None:
        store.restore(None)  # nothing committed: nothing to undo
        assert store.exists() is False
        store.commit(sample_data(0))
        first = store.generation()
        store.commit(sample_data(1))
        store.restore(first)
        assert store.generation() == first
        assert_same_index(store.read(), sample_data(0))
        assert [c.chunk_id for c in store.view().chunks] == [c.chunk_id for c in sample_data(0).chunks]
        store.commit(sample_data(1))  # the next commit gets a generation no reader has seen
        assert store.generation() not in (None, first)
        assert_same_index(store.read(), sample_data(1))
        with pytest.raises(IndexStoreError, match="no longer kept"):
            store.restore("g99999999")
        store.restore(None)  # back to before the first commit
        assert store.exists() is False and store.generation() is None

    def test_a_commit_whose_rows_do_not_align_is_refused(self, store: Store) -> None:
        """``IndexData`` rows of tokens, vectors and dense_mask align with chunks; a commit that
        breaks this would persist an index whose searches return wrong rows."""
        store.commit(sample_data())
        for broken in (
            replace(sample_data(1), tokens=sample_data(1).tokens[:-1]),
            replace(sample_data(1), vectors=sample_data(1).vectors[:-1]),
            replace(sample_data(1), dense_mask=sample_data(1).dense_mask[:-1]),
        ):
            with pytest.raises(Exception):
                store.commit(broken)
        assert_same_index(store.read(), sample_data())

    # ---- writer ------------------------------------------------------------------------------
    def test_writer_is_re_entrant_in_one_thread(self, store: Store) -> None:
        done = threading.Event()

        def nested() -> None:
            with store.writer():
                with store.writer():
                    store.commit(sample_data())
                store.commit(sample_data(1))
            done.set()

        t = _in_thread(nested, "nested-writer")
        t.join(TIMEOUT_S)
        assert done.is_set(), "a nested writer() or a commit inside writer() did not return"
        assert_same_index(store.read(), sample_data(1))

    def _assert_exclusive(self, first: Store, second: Store) -> None:
        """While ``first`` holds writer(), ``second.writer()`` waits (calling on_wait once) and
        gets in only after ``first`` lets go."""
        events: list[str] = []
        holding, moved, release = threading.Event(), threading.Event(), threading.Event()

        def note(event: str) -> None:
            events.append(event)
            moved.set()

        def hold() -> None:
            with first.writer():
                events.append("first in")
                holding.set()
                release.wait(TIMEOUT_S)
                events.append("first out")

        def contend() -> None:
            holding.wait(TIMEOUT_S)
            with second.writer(on_wait=lambda: note("second waits")):
                note("second in")

        a, b = _in_thread(hold, "holder"), _in_thread(contend, "contender")
        moved.wait(TIMEOUT_S)  # the second writer waits, or (wrongly) gets in
        time.sleep(0.1)
        release.set()
        a.join(TIMEOUT_S)
        b.join(TIMEOUT_S)
        assert events == ["first in", "second waits", "first out", "second in"]

    def test_writer_is_exclusive_across_threads_with_two_handles(self, store: Store, tmp_path: Path) -> None:
        self._assert_exclusive(store, self.make_store(tmp_path))

    def test_writer_is_exclusive_across_threads_sharing_one_handle(self, store: Store) -> None:
        self._assert_exclusive(store, store)

    # ---- view ----------------------------------------------------------------------------------
    def test_view_is_an_index_view_over_the_committed_data(self, store: Store) -> None:
        data = sample_data()
        store.commit(data)
        view = store.view()
        assert isinstance(view, IndexView)
        assert list(view.chunks) == data.chunks
        assert dict(view.docs) == data.docs
        assert (view.tokenizer, view.embedder, tuple(view.ingest_steps)) == (data.tokenizer, data.embedder, ())
        assert view.dense_ready is False and view.dense_embedded == 3
        np.testing.assert_array_equal(view.vectors, data.vectors)
        np.testing.assert_array_equal(view.dense_mask, data.dense_mask)

    @pytest.mark.parametrize("query", [["치료비"], ["치료비", "보상", "약관"], ["벌금", "벌금"], ["없는말"], []])
    @pytest.mark.parametrize("k", [1, 2, 10])
    def test_lexical_search_is_exact_bm25_best_first(self, store: Store, query: list[str], k: int) -> None:
        data = sample_data()
        store.commit(data)
        got = store.view().lexical_search(query, k)
        assert got == BM25Index.build(data.tokens).search(query, k)
        assert len(got) <= k and all(isinstance(r, int) and isinstance(s, float) for r, s in got)
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        reference = lucene_bm25(data.tokens, query)
        assert all(s > 0 for _, s in got)
        assert {r for r, _ in got} <= {i for i, s in enumerate(reference) if s > 0}
        for row, score in got:
            assert score == pytest.approx(reference[row], rel=1e-6)
        if query == ["치료비"]:
            assert [r for r, _ in got] == [1]

    @pytest.mark.parametrize("k", [1, 2, 3, 10])
    def test_dense_search_scores_are_dot_products_best_first(self, store: Store, k: int) -> None:
        data = sample_data()
        store.commit(data)
        q = data.vectors[2] * 0.6 + data.vectors[0] * 0.4
        got = store.view().dense_search(q, k)
        embedded = [i for i in range(len(data.chunks)) if data.dense_mask[i]]
        want = sorted(embedded, key=lambda i: (-float(data.vectors[i] @ q), i))[:k]
        assert [r for r, _ in got] == want
        for row, score in got:
            assert isinstance(score, float)
            assert score == pytest.approx(float(data.vectors[row] @ q), abs=1e-6)
        assert 1 not in [r for r, _ in got]  # the row without a vector is never found

    @pytest.mark.parametrize("rows", [[0, 2, 3], [3], [1, 2], []])
    @pytest.mark.parametrize("k", [1, 10])
    def test_searches_restricted_to_rows_rank_only_those_rows(self, store: Store, rows: list[int], k: int) -> None:
        """``rows`` keeps the whole index's BM25 statistics: the scores are the unrestricted
        ones, the list is the unrestricted list less the other rows, cut at k."""
        data = sample_data()
        store.commit(data)
        view = store.view()
        allowed = np.array(rows, dtype=np.int64)
        query = ["치료비", "보상", "약관", "벌금", "출발", "지급"]
        full = BM25Index.build(data.tokens).search(query, 100)
        assert view.lexical_search(query, k, allowed) == [(r, s) for r, s in full if r in rows][:k]
        q = data.vectors[2] * 0.6 + data.vectors[0] * 0.4
        want = sorted((i for i in rows if data.dense_mask[i]), key=lambda i: (-float(data.vectors[i] @ q), i))[:k]
        assert [r for r, _ in view.dense_search(q, k, allowed)] == want

    def test_searches_on_an_index_without_vectors_or_terms(self, store: Store) -> None:
        data = sample_data()
        data.dense_mask[:] = False
        data.vectors[:] = 0.0
        store.commit(data)
        view = store.view()
        assert view.dense_search(np.ones(8, dtype=np.float32), 3) == []
        assert view.lexical_search(["없는말"], 3) == []
