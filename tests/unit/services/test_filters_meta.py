"""Metadata given at ingest and filters on search and ask, through the services (folder index,
hashing embedder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.config import EmbedderConfig, Settings
from yakgwan.core.errors import InputError
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.services.ask import ask_index
from yakgwan.services.ingest import ingest
from yakgwan.services.search import search_index
from yakgwan.store import open_store

pytestmark = pytest.mark.unit


def test_metadata_lands_on_documents_and_filters_keep_their_chunks(tmp_path: Path) -> None:
    old, new = tmp_path / "약관_2023.md", tmp_path / "약관_2024.md"
    for path, amount in ((old, "1천만원"), (new, "2천만원")):
        path.write_text(f"# 벌금 특별약관\n\n벌금은 {amount} 한도로 보상합니다.\n", "utf-8")
    s = Settings(index_dir=tmp_path / "index", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    ingest(s, [old], embedder=HashingEmbedder(), meta={"version": "2023-07", "insurer": "가나손해보험"})
    ingest(s, [new], embedder=HashingEmbedder(), meta={"version": "2024-01"})
    docs = {k: d.meta for k, d in open_store(s.index_dir).read().docs.items()}
    assert docs == {"약관_2023.md": {"version": "2023-07", "insurer": "가나손해보험"}, "약관_2024.md": {"version": "2024-01"}}

    both = search_index(s, "벌금 한도", "bm25", 10)
    assert len(both.hits) == 2 and both.filters == ()
    res = search_index(s, "벌금 한도", "bm25", 10, ["version>=2024-01"])
    assert [h.chunk.text.count("2천만원") for h in res.hits] == [1] and res.filters == ("version>=2024-01",)
    assert res.to_json()["filters"] == ["version>=2024-01"]
    assert [h.chunk.text.count("1천만원") for h in search_index(s, "벌금 한도", "bm25", 10, ["insurer=가나손해보험"]).hits] == [1]
    answer = ask_index(s, "벌금은 얼마까지 보상하나요?", "bm25", "extract", 5, filters=["version<2024-01"])
    assert answer.citations and {c.doc for c in answer.citations} == {"약관_2023.md"}
    with pytest.raises(InputError, match="no chunk matches version>=2025"):
        search_index(s, "벌금", "bm25", 10, ["version>=2025"])


def test_re_ingesting_an_unchanged_document_with_metadata_sets_it(tmp_path: Path) -> None:
    doc = tmp_path / "kb" / "a.md"
    doc.parent.mkdir()
    doc.write_text("# 벌금\n\n벌금은 2천만원 한도로 보상합니다.\n", "utf-8")
    s = Settings(index_dir=tmp_path / "index", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    ingest(s, [doc], embedder=HashingEmbedder())
    store = open_store(s.index_dir)
    before = store.generation()
    assert ingest(s, [doc], embedder=HashingEmbedder()).unchanged and store.generation() == before  # nothing new: no commit
    report = ingest(s, [doc], embedder=HashingEmbedder(), meta={"product": "가나운전자보험"})
    assert report.unchanged == ["a.md"] and store.generation() != before
    data = store.read()
    assert data.docs["a.md"].meta == {"product": "가나운전자보험"} and data.dense_ready
    with pytest.raises(InputError, match="unknown key 'colour'"):
        ingest(s, [doc], embedder=HashingEmbedder(), meta={"colour": "red"})


def test_a_changed_document_keeps_its_labels_unless_given_new_ones(tmp_path: Path) -> None:
    doc = tmp_path / "a.md"
    doc.write_text("# 벌금\n\n벌금은 2천만원 한도로 보상합니다.\n", "utf-8")
    s = Settings(index_dir=tmp_path / "index", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    ingest(s, [doc], embedder=HashingEmbedder(), meta={"insurer": "가나손해보험", "version": "2023-07"})
    doc.write_text("# 벌금\n\n벌금은 3천만원 한도로 보상합니다.\n", "utf-8")
    assert ingest(s, [doc], embedder=HashingEmbedder(), meta={"version": "2024-01"}).replaced == ["a.md"]
    assert open_store(s.index_dir).read().docs["a.md"].meta == {"insurer": "가나손해보험", "version": "2024-01"}
