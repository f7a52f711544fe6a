"""Self-RAG with the scripted provider: the need-retrieval decision, relevance filtering (from
log-probabilities, and from yes/no JSON), the rejects labelled, and the answer check that
rewrites once, then refuses an unsupported answer."""

from __future__ import annotations

import pytest

from yakgwan.services.context import open_context
from yakgwan.answer.ask import Asker
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.llm import LLM
from yakgwan.llm.scripted import ScriptedProvider
from yakgwan.core.records import Chunk, Hit
from yakgwan.retrieval.retrievers.self_rag import REJECTED, SelfRagRetriever

pytestmark = pytest.mark.unit


class _Fixed:
    name = "fixed"

    def __init__(self, texts: list[str]) -> None:
        self.hits = [Hit(Chunk(f"c{i}", f"d{i}.md", f"d{i}.md", "t", t, 0, len(t)), 1.0 / i, i, "fixed") for i, t in enumerate(texts, 1)]

    def retrieve(self, query: str, k: int) -> list[Hit]:
        return self.hits[:k]


def test_relevant_first_by_probability_and_rejects_labelled() -> None:
    def scorer(messages, options):  # type: ignore[no-untyped-def]
        text = messages[-1].content
        yes = {"환불 A": -0.2, "환불 B": -0.05, "날씨": -3.0}[next(t for t in ("환불 A", "환불 B", "날씨") if t in text)]
        return {"예": yes, "아니오": -1.0}

    llm = LLM(ScriptedProvider([{"yes": True}], option_scorer=scorer))
    r = SelfRagRetriever("self_rag", _Fixed(["환불 A", "날씨", "환불 B"]), llm)
    hits = r.retrieve("환불 규정?", 3)
    assert [h.chunk.text for h in hits] == ["환불 B", "환불 A", "날씨"] and [h.produced_by for h in hits] == ["self_rag", "self_rag", REJECTED]
    (d,) = r.decisions
    assert d.retrieval_needed and [c for c, _ in d.relevance] == ["c1", "c2", "c3"] and d.relevance[1][1] < 0.5 < d.relevance[2][1]


def test_yes_no_json_without_log_probabilities_and_no_retrieval_needed() -> None:
    answers = [{"yes": True}, {"yes": False}, {"yes": True}]
    r = SelfRagRetriever("self_rag", _Fixed(["a", "b"]), LLM(ScriptedProvider(answers)))
    hits = r.retrieve("q", 2)
    assert [(h.chunk.text, h.produced_by) for h in hits] == [("b", "self_rag"), ("a", REJECTED)]
    greet = SelfRagRetriever("self_rag", _Fixed(["a"]), LLM(ScriptedProvider([{"yes": False}]))).retrieve("안녕하세요", 1)
    assert greet[0].produced_by == "self_rag(retrieval judged unnecessary)"
    assert SelfRagRetriever("self_rag", _Fixed(["a"]), None).retrieve("q", 1)[0].produced_by == "self_rag(no LLM: unfiltered)"


def test_answer_check_rewrites_once_then_refuses_an_unsupported_answer(small_index) -> None:  # type: ignore[no-untyped-def]
    s = small_index({"a.md": "# 회사\n\n- **총 직원 수**: 45명\n- **설립일**: 2008년 3월 15일\n"})
    calls: list[str] = []

    def respond(messages, schema):  # type: ignore[no-untyped-def]
        props = (schema or {}).get("properties", {})
        system = messages[0].content
        if "claims" in props:
            n = next(line[1 : line.index("]")] for m in messages for line in m.content.splitlines() if line.startswith("[") and "45명" in line)
            calls.append("answer")  # unsupported, in the documents' own words (an unknown word would be dropped earlier)
            return {"outcome": "answered", "claims": [{"text": "직원은 45명이고 회사는 직원을 매년 늘립니다.", "cite": [n]}], "missing": ""}
        if "근거 문장" in system:
            calls.append("support")
            return {"yes": False}
        calls.append("other")
        return {"yes": True}

    ctx = open_context(s, embedder=HashingEmbedder())
    llm = LLM(ScriptedProvider(responder=respond))
    ctx.make_llm = lambda: llm
    res = Asker(ctx, pipeline="self_rag", mode="generate").ask("직원 수는?")
    assert calls.count("answer") == 2 and calls.count("support") == 2  # one rewrite, checked again
    assert res.outcome == "refused" and any("rewritten once" in n for n in res.note_texts()) and any("still unsupported" in n for n in res.note_texts())


@pytest.mark.unit
def test_an_answer_computed_by_rule_is_not_sent_to_the_models_check(small_index) -> None:  # type: ignore[no-untyped-def]
    s = small_index({"a.md": "# 지사 현황\n\n- 서울 본사 직원 수: 20명\n- 부산 지사 직원 수: 8명\n"})
    calls: list[str] = []

    def respond(messages, schema):  # type: ignore[no-untyped-def]
        calls.append(messages[0].content[:10])
        return {"yes": False}  # a check that would refuse anything

    ctx = open_context(s, embedder=HashingEmbedder())
    llm = LLM(ScriptedProvider(responder=respond))
    ctx.make_llm = lambda: llm
    res = Asker(ctx, pipeline="self_rag", mode="generate").ask("서울 본사와 부산 지사의 직원 수 차이는 몇 명인가요?")
    assert res.outcome == "answered" and res.answer.endswith("차이는 12명입니다 (20명 − 8명).")  # 20 − 8 = 12
    assert any("self-check skipped" in n for n in res.note_texts())
    assert all("근거 문장" not in c and "답변이 질문" not in c for c in calls)  # retrieval's own checks only
