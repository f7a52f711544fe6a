"""Corrective RAG with the scripted provider: grading keeps the good chunks, the rejected ones
follow labelled; nothing good -> one rewrite and regrade -> the offline search provider, each
result verified; every decision logged; without an LLM the first stage passes through."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.llm import LLM
from yakgwan.llm.scripted import ScriptedProvider
from yakgwan.core.records import Chunk, Hit
from yakgwan.llm.prompts.crag import grades_schema
from yakgwan.retrieval.retrievers.crag import REJECTED, CorrectiveRetriever
from yakgwan.text.registry import make_tokenizer
from yakgwan.websearch.offline import OfflineSearch
from yakgwan.websearch.provider import SearchConfig
from yakgwan.websearch.registry import make_search

pytestmark = pytest.mark.unit


def _chunk(i: int, text: str) -> Chunk:
    return Chunk(f"c{i}", f"d{i}.md", f"d{i}.md", "t", text, 0, len(text))


class _Fixed:
    name = "fixed"

    def __init__(self, texts: list[str]) -> None:
        self.hits = [Hit(_chunk(i, t), 1.0 / i, i, "fixed") for i, t in enumerate(texts, 1)]
        self.queries: list[str] = []

    def retrieve(self, query: str, k: int) -> list[Hit]:
        self.queries.append(query)
        return self.hits[:k]


TOK = make_tokenizer("mecab")


def test_grades_keep_the_good_chunks_best_first_and_label_the_rest() -> None:
    first = _Fixed(["환불 규정 A", "여권 발급", "환불 규정 B", "날씨"])
    llm = LLM(ScriptedProvider([{"scores": [3, 0, 5, 1]}]))
    r = CorrectiveRetriever("crag", first, llm, TOK, top_n=4)
    hits = r.retrieve("환불 규정은?", 4)
    assert [h.chunk.chunk_id for h in hits] == ["c3", "c1", "c2", "c4"] and [h.rank for h in hits] == [1, 2, 3, 4]
    assert [h.produced_by for h in hits] == ["crag", "crag", REJECTED, REJECTED] and hits[0].components["crag_grade"] == 5.0
    (d,) = r.decisions
    assert d.grades == [("c1", 3), ("c2", 0), ("c3", 5), ("c4", 1)] and d.kept == 2 and d.rewritten is None and d.fallback is None
    with pytest.raises(Exception):
        grades_schema(4).model_validate({"scores": [1, 2, 3]})  # exactly one score per passage
    with pytest.raises(Exception):
        grades_schema(1).model_validate({"scores": [6]})


def test_nothing_good_rewrites_once_then_searches_and_verifies(tmp_path: Path) -> None:
    web = tmp_path / "web"
    web.mkdir()
    (web / "ours.md").write_text("# 하늘여행사 공지\n\n하늘여행사 반려동물 동반 요금은 1만원입니다.", "utf-8")
    (web / "other.md").write_text("# 파랑여행사\n\n파랑여행사 반려동물 동반 요금은 2만원입니다.", "utf-8")
    first = _Fixed(["환불 규정", "여권 발급"])

    def respond(messages, schema):  # type: ignore[no-untyped-def]
        props = (schema or {}).get("properties", {})
        if "scores" in props:
            return {"scores": [0, 1]}
        if "queries" in props:
            return {"queries": ["반려동물 동반 요금"]}
        about = "하늘여행사 공지" in messages[-1].content
        return {"about_this": about, "reason": "같은 회사" if about else "다른 회사"}

    llm = LLM(ScriptedProvider(responder=respond))
    r = CorrectiveRetriever("crag", first, llm, TOK, OfflineSearch(web), subject="하늘여행사", top_n=2)
    hits = r.retrieve("반려동물 동반 요금은?", 3)
    (d,) = r.decisions
    assert d.rewritten == "반려동물 동반 요금" and first.queries == ["반려동물 동반 요금은?", "반려동물 동반 요금"]
    assert d.regrades == [("c1", 0), ("c2", 1)] and d.fallback == "offline"
    assert sorted(d.verdicts) == [("other.md#1", False, "다른 회사"), ("ours.md#1", True, "같은 회사")]
    assert hits[0].chunk.doc_id == "web:ours.md#1" and hits[0].produced_by == "crag(web:offline)" and "1만원" in hits[0].chunk.text
    assert [h.produced_by for h in hits[1:]] == [REJECTED, REJECTED] and d.kept == 1


def test_without_an_llm_the_first_stage_passes_through_labelled() -> None:
    hits = CorrectiveRetriever("crag", _Fixed(["a", "b"]), None, TOK).retrieve("q", 2)
    assert [h.produced_by for h in hits] == ["crag(no LLM: ungraded)"] * 2


def test_unusable_grades_keep_the_first_stage_order() -> None:
    llm = LLM(ScriptedProvider(["not json", "still not json"]))
    r = CorrectiveRetriever("crag", _Fixed(["a", "b"]), llm, TOK, top_n=2)
    hits = r.retrieve("q", 2)
    assert [h.chunk.chunk_id for h in hits] == ["c1", "c2"] and r.decisions[0].grades == [("c1", -1), ("c2", -1)]


def test_the_offline_provider_returns_passages_not_whole_files(tmp_path: Path) -> None:
    long = "\n\n".join(f"{i}번째 문단: 일반 여행 안내 문장입니다. " * 6 for i in range(1, 6))
    (tmp_path / "notice.md").write_text(f"# 하늘여행사 공지\n\n## 환불\n\n출발 30일 전 취소는 전액 환불합니다.\n\n## 안내\n\n{long}\n\n## 반려동물\n\n반려동물 동반 요금은 1만원입니다.\n", "utf-8")
    (top,) = OfflineSearch(tmp_path).search("반려동물 동반 요금", 1)
    assert top.content == "## 반려동물\n\n반려동물 동반 요금은 1만원입니다." and top.title == "하늘여행사 공지 — 반려동물"
    assert top.url.startswith("notice.md#") and int(top.url.split("#")[1]) > 2  # after 환불 and at least one piece of 안내
    every = OfflineSearch(tmp_path).search("안내 문장 환불 반려동물", 20)
    assert len(every) >= 4 and all(len(r.content) <= 600 for r in every) and len({r.url for r in every}) == len(every)


def test_search_provider_configuration_errors(tmp_path: Path) -> None:
    from yakgwan.core.errors import InputError

    assert make_search(SearchConfig()) is None
    with pytest.raises(InputError, match="YAKGWAN_SEARCH_API_KEY"):
        make_search(SearchConfig("tavily"))
    with pytest.raises(InputError, match="YAKGWAN_SEARCH_DIR"):
        make_search(SearchConfig("offline"))
    with pytest.raises(InputError, match="unknown YAKGWAN_SEARCH"):
        make_search(SearchConfig("bing"))
    with pytest.raises(InputError, match="no .md or .txt files"):
        OfflineSearch(tmp_path).search("x", 1)
