"""The agentic loop with the scripted provider: tool calls (KB search, exact article lookup, web
search), finish, the step bound, the token budget, an unknown tool, the trace; RRF keeps the
question's own list first."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.llm import LLM
from yakgwan.llm.scripted import ScriptedProvider
from yakgwan.core.records import Chunk, Hit
from yakgwan.retrieval.retrievers.agentic import AgenticRetriever
from yakgwan.websearch.offline import OfflineSearch

pytestmark = pytest.mark.unit

CHUNKS = [
    Chunk("g5", "p.pdf", "p.pdf", "t", "제5조(보험금의 지급사유) 회사는 ...", 0, 10, yakgwan="보통약관", article="제5조"),
    Chunk("f5", "p.pdf", "p.pdf", "t", "제5조(보험기간) 벌금 특약 ...", 20, 30, yakgwan="벌금 특별약관", article="제5조"),
    Chunk("x", "p.pdf", "p.pdf", "t", "다른 조항", 40, 50, yakgwan="보통약관", article="제9조"),
]


class _Fixed:
    name = "fixed"

    def __init__(self) -> None:
        self.queries: list[str] = []

    def retrieve(self, query: str, k: int) -> list[Hit]:
        self.queries.append(query)
        return [Hit(CHUNKS[2], 1.0, 1, "fixed")]


def test_tools_trace_and_fusion(tmp_path: Path) -> None:
    web = tmp_path / "web"
    web.mkdir()
    (web / "n.md").write_text("# 공지\n\n벌금 특약 안내", "utf-8")
    actions = [{"tool": "article_lookup", "input": "벌금 특별약관 제5조"}, {"tool": "kb_search", "input": "보험기간"},
               {"tool": "web_search", "input": "벌금 특약"}, {"tool": "finish", "input": ""}]
    llm = LLM(ScriptedProvider(actions))
    first = _Fixed()
    r = AgenticRetriever("agentic", first, llm, CHUNKS, OfflineSearch(web))
    hits = r.retrieve("벌금 특약 보험기간은?", 4)
    (trace,) = r.traces
    assert [(s.tool, s.found) for s in trace] == [("article_lookup", ["f5", "g5"]), ("kb_search", ["x"]), ("web_search", [trace[2].found[0]]), ("finish", [])]
    assert first.queries == ["벌금 특약 보험기간은?", "보험기간"] and trace[2].found[0].startswith("web:")
    assert hits[0].chunk.chunk_id == "x" and {h.chunk.chunk_id for h in hits} >= {"x", "f5", "g5"}  # the direct hit first (weight 2 + found again)
    assert "벌금 특별약관 제5조" in llm.provider.calls[1][0][-1].content  # the trace is shown to the model  # type: ignore[attr-defined]


def test_bounds_and_bad_tools() -> None:
    lookups = [{"tool": "article_lookup", "input": "아무 조항"}, {"tool": "web_search", "input": "x"}, {"tool": "kb_search", "input": "q"}]
    r = AgenticRetriever("agentic", _Fixed(), LLM(ScriptedProvider(lookups)), CHUNKS, None, max_steps=3)
    r.retrieve("q", 2)
    (trace,) = r.traces
    assert [s.tool for s in trace] == ["article_lookup", "web_search", "kb_search"]  # three steps, the bound
    assert trace[0].note == "no article number in '아무 조항'" and trace[1].note == "web_search is not available"
    budget = AgenticRetriever("agentic", _Fixed(), LLM(ScriptedProvider([{"tool": "kb_search", "input": "q"}] * 5)), CHUNKS, token_budget=1)
    budget.retrieve("q", 1)
    assert [s.tool for s in budget.traces[0]] == ["kb_search", "stop"] and "token budget" in (budget.traces[0][1].note or "")
    assert AgenticRetriever("agentic", _Fixed(), None, CHUNKS).retrieve("q", 1)[0].produced_by == "agentic(no LLM: first stage)"
