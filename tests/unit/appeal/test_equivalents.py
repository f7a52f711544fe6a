"""The claimed 특약's closest clause, searched only where a citation does not hold (fake search)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from yakgwan.appeal.citations import parse_clause_refs
from yakgwan.appeal.equivalents import equivalents
from yakgwan.appeal.notice import DenialReason
from yakgwan.appeal.retrieve import CitedClause, ReasonEvidence
from yakgwan.core.records import Chunk, Hit


def chunk(cid: str, yakgwan: str, article: str, text: str) -> Chunk:
    return Chunk(cid, "p.pdf", "p.pdf", "t", text, 0, len(text), yakgwan=yakgwan, article=article)


FINE_1 = chunk("f1", "벌금 특별약관", "제1조", "제1조(보험금의 지급사유)\n회사는 벌금액을 지급합니다.")
FINE_2 = chunk("f2", "벌금 특별약관", "제2조", "제2조(보험금을 지급하지 않는 사유)\n1. 피보험자의 고의\n2. 계약자의 고의")
AID_1 = chunk("a1", "지원금 특별약관", "제1조", "제1조(보험금의 지급사유)\n① 피해자에서 피보험자의 배우자는 제외합니다.\n② 그 밖의 사항")


class Search:
    """Every query it is asked, and the first chunk of the scope as its answer."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def retrieve(self, query: str, k: int) -> list[Hit]:
        self.asked.append(query)
        return [Hit(c, 1.0 - i / 10, i + 1, "fake") for i, c in enumerate((FINE_1, FINE_2, AID_1))][:k + 5]


def evidence(ref_text: str, chunks: tuple[Chunk, ...], reason: str = "배우자가 다친 사고") -> ReasonEvidence:
    (ref,) = parse_clause_refs(ref_text)
    name = ref_text.split(" 제")[0]
    coverage = CitedClause(parse_clause_refs("벌금 특별약관 제1조")[0], "벌금 특별약관", (FINE_1,))
    return ReasonEvidence(DenialReason(reason, None, (ref,)), "plain", (), [CitedClause(ref, name, chunks)], [coverage])


@pytest.mark.unit
def test_only_a_citation_that_does_not_hold_is_searched() -> None:
    search = Search()
    policy = SimpleNamespace(ctx=SimpleNamespace(first_stage=lambda: search))
    # another 특약's 항: searched with that 항's own text, within the claimed 특약 only
    (eq,) = equivalents([evidence("지원금 특별약관 제1조 제1항", (AID_1,))], policy)  # type: ignore[arg-type]
    assert (eq.cited, eq.why, eq.hit.chunk.chunk_id) == ("지원금 특별약관 제1조 제1항", "another 특약", "f1")
    assert search.asked == ["① 피해자에서 피보험자의 배우자는 제외합니다."]
    # a 호 the claimed 특약's article does not have: searched with the reason as the notice states it
    (eq,) = equivalents([evidence("벌금 특별약관 제2조 제8호", (FINE_2,), "음주운전 사고")], policy)  # type: ignore[arg-type]
    assert eq.why == "no such part" and search.asked[-1] == "음주운전 사고"
    # a citation that holds is not searched
    assert equivalents([evidence("벌금 특별약관 제2조 제2호", (FINE_2,))], policy) == [] and len(search.asked) == 2  # type: ignore[arg-type]
