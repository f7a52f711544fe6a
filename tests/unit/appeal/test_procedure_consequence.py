"""A refusal resting only on procedure articles (통지, 청구) that attach nothing to their breach
(hand-built articles): what must fire and what must not."""

from __future__ import annotations

import pytest

from yakgwan.appeal import band as B
from yakgwan.appeal.analysis import procedure_without_consequence
from yakgwan.appeal.citations import parse_clause_refs
from yakgwan.appeal.retrieve import CitedClause
from yakgwan.core.records import Chunk

pytestmark = pytest.mark.unit


def chunk(cid: str, article: str, title: str, text: str, start: int, yakgwan: str = "보통약관") -> Chunk:
    return Chunk(cid, "p.pdf", "p.pdf", "t", text, start, start + len(text), yakgwan=yakgwan, article=article, article_title=title)


NOTICE = chunk("n6", "제6조", "보험금 지급사유의 통지", "제6조(보험금 지급사유의 통지) 계약자 또는 피보험자는 보험금 지급사유의 발생을 안 때에는 지체 없이 회사에 알려야 합니다.", 0)
CLAIM = chunk("c7", "제7조", "보험금의 청구", "제7조(보험금의 청구) 보험금을 청구할 때에는 다음의 서류를 제출하여야 합니다.\n1. 청구서\n2. 사고증명서", 200)
# a 손해보험 통지 article that does attach an effect, and the 소멸시효 article
NOTICE_EFFECT = chunk("f6", "제6조", "손해방지의무 및 통지의무", "제6조(통지의무) 지체 없이 알려야 합니다. 이를 게을리하여 손해가 증가된 때에는 그 증가된 손해는 보상하지 않습니다.", 400)
LIMITATION = chunk("l35", "제35조", "소멸시효", "제35조(소멸시효) 보험금청구권은 3년간 행사하지 않으면 소멸시효가 완성됩니다.", 600)
EXCLUSION = chunk("x5", "제5조", "보험금을 지급하지 않는 사유", "제5조(보험금을 지급하지 않는 사유) 회사는 고의로 생긴 손해는 보상하지 않습니다.", 800)


def cited(text: str, *chunks: Chunk) -> CitedClause:
    (ref,) = parse_clause_refs(text)
    return CitedClause(ref, "보통약관", chunks)


def test_a_refusal_on_duty_articles_alone_is_open() -> None:
    both = [cited("보통약관 제6조", NOTICE), cited("보통약관 제7조", CLAIM)]
    assert procedure_without_consequence(both) == both
    assert "procedure_without_consequence" in B.ARGUABLE and B.band_for([B.Finding("…", "procedure_without_consequence")]) == "MEDIUM"


def test_it_does_not_fire_where_the_article_attaches_an_effect_or_another_ground_is_cited() -> None:
    assert procedure_without_consequence([cited("보통약관 제6조", NOTICE_EFFECT)]) == []  # the increased loss is not paid
    assert procedure_without_consequence([cited("보통약관 제35조", LIMITATION)]) == []  # the claim is extinguished
    assert procedure_without_consequence([cited("보통약관 제6조", NOTICE), cited("보통약관 제5조", EXCLUSION)]) == []  # an exclusion beside it
    assert procedure_without_consequence([cited("보통약관 제5조", EXCLUSION)]) == []
    assert procedure_without_consequence([CitedClause(parse_clause_refs("보통약관 제9조")[0], "보통약관", ())]) == []  # nothing resolved
    assert procedure_without_consequence([]) == []
