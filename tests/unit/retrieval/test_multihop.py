"""Multi-hop retrieval with the scripted provider: decomposition, a follow-up hop the model asks
for, the stop when it says enough, the hop limit, RRF with the question's own list weighted
double, the chain kept; without an LLM one hop."""

from __future__ import annotations

import pytest

from yakgwan.llm import LLM
from yakgwan.llm.scripted import ScriptedProvider
from yakgwan.core.records import Chunk, Hit
from yakgwan.retrieval.retrievers.multihop import MultiHopRetriever
from yakgwan.text.registry import make_tokenizer

pytestmark = pytest.mark.unit
TOK = make_tokenizer("mecab")


class _ByQuery:
    """Each query finds its own chunks: {query: [chunk ids]}."""

    name = "by_query"

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.queries: list[str] = []

    def retrieve(self, query: str, k: int) -> list[Hit]:
        self.queries.append(query)
        ids = self.table.get(query, ["z"])
        return [Hit(Chunk(c, f"{c}.md", f"{c}.md", "t", f"text {c}", 0, 6), 1.0 / r, r, "by_query") for r, c in enumerate(ids[:k], 1)]


def test_decompose_follow_up_then_enough_and_the_chain() -> None:
    q = "김하늘 대표와 박민수 COO 중 누가 먼저 입사했나요?"
    first = _ByQuery({q: ["a", "b"], "김하늘 대표 입사일": ["k"], "박민수 COO 입사일": ["p"], "박민수 COO 이전 직장": ["x"]})
    answers = [{"questions": ["김하늘 대표 입사일", "박민수 COO 입사일"]}, {"enough": False, "query": "박민수 COO 이전 직장"}, {"enough": True, "query": ""}]
    llm = LLM(ScriptedProvider(answers))
    r = MultiHopRetriever("multihop", first, llm, TOK)
    hits = r.retrieve(q, 5)
    assert first.queries == [q, "김하늘 대표 입사일", "박민수 COO 입사일", "박민수 COO 이전 직장"]
    (chain,) = r.chains
    assert [h.query for h in chain] == first.queries and chain[1].found == ["k"]
    # RRF, the question's own list weighted 2: a (2/61), then b (2/62) ahead of k, p, x (1/61 each, in list order)
    assert [h.chunk.chunk_id for h in hits] == ["a", "b", "k", "p", "x"] and hits[0].components["hops"] == 3.0


def test_hop_limit_and_unrelated_sub_questions() -> None:
    q = "제주 힐링 상품 가격은?"
    first = _ByQuery({q: ["a"]})
    llm = LLM(ScriptedProvider([{"questions": ["날씨 어때", "제주 힐링 성수기 가격", "제주 힐링 비수기 가격"]}, {"enough": False, "query": "제주 힐링 연휴 가격"}]))
    r = MultiHopRetriever("multihop", first, llm, TOK, max_hops=2)
    r.retrieve(q, 3)
    # "날씨 어때" shares no content word with the question and is dropped; two hops is the limit
    assert first.queries == [q, "제주 힐링 성수기 가격", "제주 힐링 비수기 가격"]


def test_without_an_llm_one_hop_labelled() -> None:
    hits = MultiHopRetriever("multihop", _ByQuery({"q": ["a", "b"]}), None, TOK).retrieve("q", 2)
    assert [h.produced_by for h in hits] == ["multihop(no LLM: one hop)"] * 2


def test_no_usable_split_still_asks_for_a_follow_up() -> None:
    q = "제주 힐링 담당자의 연봉은?"
    first = _ByQuery({q: ["a"], "송민지 연봉": ["s"]})
    llm = LLM(ScriptedProvider([{"questions": [q]}, {"enough": False, "query": "송민지 연봉"}, {"enough": True, "query": ""}]))
    r = MultiHopRetriever("multihop", first, llm, TOK)
    hits = r.retrieve(q, 2)
    assert first.queries == [q, "송민지 연봉"] and [h.chunk.chunk_id for h in hits] == ["a", "s"]
    assert len(llm.provider.calls) == 3  # split, follow-up, enough  # type: ignore[attr-defined]
