"""What the contract suites found and how it was mended, pinned at the unit level: the local
store refuses misaligned rows (naming the counts), every retriever applies the one rule for a k
below 1, a hit moved by a reranker keeps its evidence, and the OpenAI-compatible embedder knows
its dimension before it embeds, with one request, and ingests as before."""

from __future__ import annotations

import inspect
from dataclasses import replace
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import pytest
from store_contract import assert_same_index, sample_data
from stub_server import JsonHandler, serve

from yakgwan.core.errors import IndexStoreError
from yakgwan.core.protocols import k_below_one_finds_nothing
from yakgwan.core.records import Chunk, Hit, HitStatus
from yakgwan.retrieval.hit_lists import at_rank
from yakgwan.store import open_store

pytestmark = pytest.mark.unit


# ---- local store: rows must align with chunks ---------------------------------------------------
@pytest.mark.parametrize(("field", "message"), [("tokens", "3 rows of tokens"), ("vectors", "3 rows of vectors"), ("dense_mask", "3 rows of dense_mask")])
def test_a_misaligned_commit_names_the_counts_and_changes_nothing(tmp_path: Path, field: str, message: str) -> None:
    store = open_store(tmp_path / "index")
    store.commit(sample_data())
    before = store.generation()
    data = sample_data()
    with pytest.raises(IndexStoreError, match=f"refusing to commit 4 chunks with {message}"):
        store.commit(replace(data, **{field: getattr(data, field)[:-1]}))
    assert store.generation() == before
    assert_same_index(store.read(), sample_data())


def test_a_misaligned_first_commit_leaves_no_folder(tmp_path: Path) -> None:
    data = sample_data()
    with pytest.raises(IndexStoreError, match="4 chunks with 3 rows of tokens, 2 rows of vectors"):
        open_store(tmp_path / "index").commit(replace(data, tokens=data.tokens[:3], vectors=data.vectors[:2]))
    assert not (tmp_path / "index").exists()


# ---- retrievers: k below 1 ------------------------------------------------------------------------
class _Counting:
    name = "counting"

    def __init__(self) -> None:
        self.calls = 0

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        self.calls += 1
        return [Hit(Chunk(f"c{i}", "d", "d", "t", "x", 0, 1), 1.0 / i, i, self.name) for i in range(1, 4)][:k]


@pytest.mark.parametrize(("k", "hits", "calls"), [(-5, 0, 0), (-1, 0, 0), (0, 0, 0), (1, 1, 1), (2, 2, 1), (10, 3, 1)])
def test_k_below_one_returns_nothing_without_running(k: int, hits: int, calls: int) -> None:
    r = _Counting()
    assert len(r.retrieve("q", k)) == hits and r.calls == calls


def test_every_retriever_in_retrieval_applies_the_k_rule() -> None:
    import importlib
    import pkgutil

    import yakgwan.retrieval.retrievers as package

    found = []
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for cls in vars(module).values():
            if inspect.isclass(cls) and cls.__module__ == module.__name__ and "retrieve" in vars(cls):
                found.append(cls.__name__)
                source = inspect.getsource(cls.retrieve)
                assert source.lstrip().startswith("@k_below_one_finds_nothing"), f"{cls.__name__}.retrieve does not apply the k rule"
    assert len(found) >= 12, found


# ---- rerankers: a moved hit keeps what it carries ---------------------------------------------------
def test_a_hit_at_a_new_rank_keeps_its_chunk_evidence_and_rejected_mark() -> None:
    h = Hit(Chunk("c", "d", "d", "t", "가나다. 라마.", 0, 7), 0.7, 4, "crag", {"rejected": 1.0}, ((0, 4),), HitStatus.REJECTED, True)
    moved = at_rank(h, 1, "rerank_llm", HitStatus.ORDER_UNCHANGED)
    assert (moved.chunk, moved.score, moved.rank, moved.produced_by, moved.evidence, moved.rejected) == (
        h.chunk, 0.7, 1, "rerank_llm(order unchanged)", ((0, 4),), True)
    assert moved.components == h.components
    scored = at_rank(h, 2, "late", score=3.5, components={"maxsim": 3.5})
    assert (scored.score, scored.components, scored.status, scored.evidence, scored.rejected) == (3.5, {"maxsim": 3.5}, HitStatus.RANKED, ((0, 4),), True)


# ---- the OpenAI-compatible embedder's dimension -------------------------------------------------------
class _Recording(JsonHandler):
    """Embeddings of dimension 12 for key "k"; every request's inputs are recorded."""

    requests: list[list[str]] = []

    def do_POST(self) -> None:  # noqa: N802
        body: dict[str, Any] = self.body()
        type(self).requests.append(list(body["input"]))
        assert self.auth_or_embeddings(body, "k", 12)


@pytest.fixture()
def endpoint() -> Iterator[str]:
    _Recording.requests = []
    with serve(_Recording) as url:
        yield url


def _registered(url: str):  # type: ignore[no-untyped-def]
    from yakgwan.config import EmbedderConfig
    from yakgwan.embedders import make_embedder

    return make_embedder(EmbedderConfig("openai", base_url=url, model="m", api_key="k"))


def test_dim_is_learnt_with_one_probe_and_kept(endpoint: str) -> None:
    emb = _registered(endpoint)
    assert _Recording.requests == []  # constructing it asks nothing
    assert emb.dim == 12 and emb.dim == 12
    assert emb.embed([], "query").shape == (0, 12)
    assert _Recording.requests == [["dimension probe"]]


def test_embed_of_nothing_first_probes_once(endpoint: str) -> None:
    emb = _registered(endpoint)
    out = emb.embed([], "passage")
    assert out.shape == (0, 12) and out.dtype == np.float32
    emb.embed(["가"], "query")
    assert _Recording.requests == [["dimension probe"], ["가"]]


def test_embedding_first_learns_the_dimension_without_a_probe(endpoint: str) -> None:
    emb = _registered(endpoint)
    assert emb.embed(["가", "나"], "passage").shape == (2, 12)
    assert emb.dim == 12
    assert _Recording.requests == [["가", "나"]]


def test_ingest_with_a_fresh_served_embedder_probes_once_then_embeds(endpoint: str, tmp_path: Path) -> None:
    from yakgwan.config import EmbedderConfig, Settings
    from yakgwan.services.ingest import ingest

    (tmp_path / "kb").mkdir()
    (tmp_path / "kb" / "a.md").write_text("# 보험\n\n상해 보험금을 지급합니다.\n\n비급여 치료비는 보상하지 않습니다.\n", "utf-8")
    settings = Settings(index_dir=tmp_path / "index", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("openai"), tokenizer="mecab", quiet=True)
    report = ingest(settings, [tmp_path / "kb"], embedder=_registered(endpoint))
    data = open_store(settings.index_dir).read()
    assert report.dense_ready and data.dim == 12 and data.vectors.shape == (len(data.chunks), 12)
    assert [len(r) for r in _Recording.requests] == [1, len(data.chunks)] and _Recording.requests[0] == ["dimension probe"]
