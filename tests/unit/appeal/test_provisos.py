"""The 단서 of the part a citation points to, and whether a notice speaks to it (hand-built
articles, the bundled analyser)."""

from __future__ import annotations

import pytest

from yakgwan.appeal.citations import parse_clause_refs
from yakgwan.appeal.provisos import ADDRESSED_SHARE, candidate_spans, cited_span, provisos, unaddressed
from yakgwan.core.records import Chunk
from yakgwan.text.registry import make_tokenizer

TOK = make_tokenizer("mecab")
EXCLUSIONS = Chunk("c5", "p.pdf", "p.pdf", "t", (
    "제5조(보험금을 지급하지 않는 사유)\n① 회사는 다음 중 어느 한가지로 보험금 지급사유가 발생한 때에는 보험금을 지급하지 않습니다.\n"
    "1. 피보험자가 고의로 자신을 해친 경우. 다만, 피보험자가 심신상실 등으로 자유로운 의사결정을 할 수 없는 상태에서 자신을 해친 경우에는 보험금을 지급합니다.\n"
    "2. 계약자가 고의로 피보험자를 해친 경우\n"
    "② 회사는 전문등반 중 생긴 손해는 보상하지 않습니다.\n"
), 0, 300)


def ref(text: str):
    (r,) = parse_clause_refs(text)
    return r


@pytest.mark.unit
def test_the_cited_part_and_its_proviso() -> None:
    c, s, e = cited_span([EXCLUSIONS], ref("제5조 제1항 제1호"))
    assert c is EXCLUSIONS and EXCLUSIONS.text[s:e].startswith("1. 피보험자가 고의로") and EXCLUSIONS.text[s:e].rstrip().endswith("지급합니다.")
    (p,) = provisos(c, s, e, "피보험자가 스스로 목숨을 끊어 보험금을 지급하지 않습니다.", TOK)
    assert p.text.startswith("다만, 피보험자가 심신상실") and p.text in EXCLUSIONS.text  # verbatim
    assert "심신" in p.own_terms and "피보험자" not in p.own_terms and "하" not in p.own_terms  # the rule's own words are not the proviso's
    assert p.share_in_notice < ADDRESSED_SHARE
    # a notice that argues about the proviso speaks to it
    told = "심신상실 상태가 아니었고 자유로운 의사결정을 할 수 있는 상태에서 자신을 해친 것으로 확인되었습니다."
    assert unaddressed([EXCLUSIONS], ref("제5조 제1항 제1호"), told, TOK) == []
    assert [q.text[:10] for q in unaddressed([EXCLUSIONS], ref("제5조 제1항 제1호"), "고의 사고입니다.", TOK)] == ["다만, 피보험자가 "]


@pytest.mark.unit
def test_parts_without_a_proviso_or_too_broad_give_none() -> None:
    assert unaddressed([EXCLUSIONS], ref("제5조 제1항 제2호"), "고의", TOK) == []  # 제2호 has no 다만
    assert unaddressed([EXCLUSIONS], ref("제5조 제2항"), "등반", TOK) == []
    assert cited_span([EXCLUSIONS], ref("제5조")) is None  # a whole article of two 항 points to nothing in particular
    assert cited_span([EXCLUSIONS], ref("제5조 제1항 제9호")) is None and cited_span([EXCLUSIONS], ref("제5조 제3항")) is None
    one = Chunk("c3", "p.pdf", "p.pdf", "t", "제3조(준용규정)\n이 특별약관에 정하지 않은 사항은 보통약관을 따릅니다. 다만, 제2조는 따로 정합니다.", 0, 60)
    c, s, e = cited_span([one], ref("제3조"))
    assert (s, e) == (0, len(one.text)) and [p.text for p in provisos(c, s, e, "", TOK)] == ["다만, 제2조는 따로 정합니다."]


@pytest.mark.unit
def test_a_proviso_in_parentheses_ends_with_them() -> None:
    c = Chunk("c1", "p.pdf", "p.pdf", "t", "제1조(보험금의 지급사유)\n① 사고일부터 2년 이내에 수술(다만, 만 15세 미만자는 2년이 지난 후 수술이 가능하다는 진단으로\n대체할 수 있습니다)을 받은 경우 지급합니다.", 0, 90)
    (p,) = provisos(c, 0, len(c.text), "수술을 2년 안에 받지 않았습니다.", TOK)
    assert p.text == "다만, 만 15세 미만자는 2년이 지난 후 수술이 가능하다는 진단으로\n대체할 수 있습니다"


@pytest.mark.unit
def test_a_proviso_that_narrows_the_clause_is_no_finding() -> None:
    c = Chunk("c4", "p.pdf", "p.pdf", "t", "제4조(지급한도)\n골절 진단 시 위로금을 지급합니다. 다만, 같은 사고로 여러 골절이 생긴 때에도 1회에 한하여 지급합니다.", 0, 80)
    (p,) = provisos(c, 0, len(c.text), "치아 파절입니다.", TOK)  # found ...
    assert unaddressed([c], ref("제4조"), "치아 파절입니다.", TOK) == []  # ... but a cap helps no claimant


@pytest.mark.unit
def test_a_proviso_that_releases_the_rule_or_takes_a_case_out_of_an_exclusion_is_reported() -> None:
    grant = Chunk("c6", "p.pdf", "p.pdf", "t", "제6조(통지의무)\n사고를 알리지 않아 늘어난 손해는 지급하지 않습니다. 다만, 회사가 그 사실을 안 경우에는 그러하지 아니합니다.", 0, 70)
    assert [p.text[:6] for p in unaddressed([grant], ref("제6조"), "늦게 알렸습니다.", TOK)] == ["다만, 회사"]
    excl = Chunk("c2", "p.pdf", "p.pdf", "t", "제2조(보험금을 지급하지 않는 사유)\n운동경기 중 생긴 손해는 보상하지 않습니다. 다만, 이 특약이 보장하는 사고로 인한 경우는 제외합니다.", 0, 80)
    excl = Chunk(excl.chunk_id, excl.doc_id, excl.source, excl.title, excl.text, excl.start, excl.end, article_title="보험금을 지급하지 않는 사유")
    assert len(unaddressed([excl], ref("제2조"), "운동경기 중 사고입니다.", TOK)) == 1


def test_a_proviso_whose_consequence_is_not_the_claimants_is_no_finding() -> None:
    """In an article on the duty to disclose, "건강진단서로 건강진단을 대신할 수 있습니다" concerns how a
    contract is made; in a 지급사유 article the same kind of words let a condition of payment be met
    another way, and are the claimant's."""
    text = ("제13조(계약 전 알릴 의무)\n계약자는 청약할 때 회사가 서면으로 질문한 사항에 대해 사실대로 알려야 합니다. "
            "다만, 진단계약의 경우 병원에서 실시한 건강진단서 사본으로 건강진단을 대신할 수 있습니다.")
    disclosure = Chunk("c13", "p.pdf", "p.pdf", "t", text, 0, len(text), article_title="계약 전 알릴 의무")
    assert provisos(disclosure, 0, len(text), "청약서 질문에 사실과 다르게 답하셨습니다.", TOK)  # it is a proviso ...
    assert unaddressed([disclosure], ref("제13조"), "청약서 질문에 사실과 다르게 답하셨습니다.", TOK) == []  # ... but not the claimant's
    pay = ("제1조(보험금의 지급사유) 회사는 사고일부터 2년 이내에 성형수술을 받은 경우 수술비를 지급합니다. "
           "다만, 2년이 지난 후에 수술이 가능하다는 진단을 받은 경우에는 그 진단으로 대체할 수 있습니다.")
    cover = Chunk("c1", "p.pdf", "p.pdf", "t", pay, 0, len(pay), article_title="보험금의 지급사유")
    assert len(unaddressed([cover], ref("제1조"), "사고일부터 3년 뒤 수술을 받으셨습니다.", TOK)) == 1


@pytest.mark.unit
def test_a_notice_that_states_the_condition_in_its_own_examples_speaks_to_the_proviso() -> None:
    """The condition's terms are counted, not its consequence (which every notice states) nor the
    examples listed before 등."""
    text = ("제2조(보험금을 지급하지 않는 사유)\n① 회사는 피보험자가 이륜자동차를 운전하는 중 생긴 손해는 보상하지 않습니다. "
            "다만, 피보험자가 이륜자동차를 직업, 직무 또는 동호회 활동 등 주기적으로 운전하는 사실을 회사가 입증하지 못한 때에는 보험금을 지급합니다.")
    excl = Chunk("c2", "p.pdf", "p.pdf", "t", text, 0, len(text), article_title="보험금을 지급하지 않는 사유")
    (p,) = provisos(excl, 0, len(text), "", TOK)
    assert "주기" in p.own_terms and "입증" in p.own_terms
    assert not {"직업", "직무", "동호회", "지급"} & set(p.own_terms)  # examples and the consequence are not the condition
    established = "업무상 이륜자동차를 주기적으로 운전한 사실이 운행기록으로 확인되어 보험금이 지급되지 않습니다."
    assert unaddressed([excl], ref("제2조 제1항"), established, TOK) == []
    silent = "이륜자동차 탑승 중 사고로 보험금을 지급하지 않습니다. 사용 사실은 가입 때 알리셨습니다."
    assert len(unaddressed([excl], ref("제2조 제1항"), silent, TOK)) == 1  # stating the consequence is not speaking to it


@pytest.mark.unit
def test_a_list_of_one_example_or_a_condition_made_only_of_examples_keeps_its_terms() -> None:
    one = "제3조(지급사유) 보상하지 않습니다. 다만, 심신상실 등으로 의사결정을 할 수 없는 경우에는 지급합니다."
    c = Chunk("c3", "p.pdf", "p.pdf", "t", one, 0, len(one))
    (p,) = provisos(c, 0, len(one), "", TOK)
    assert "심신" in p.own_terms  # "심신상실 등": one example is the condition itself
    only = "제4조(지급사유) 보상하지 않습니다. 다만, 골절, 화상 또는 파열 등의 경우에는 지급합니다."
    c = Chunk("c4", "p.pdf", "p.pdf", "t", only, 0, len(only))
    (p,) = provisos(c, 0, len(only), "", TOK)
    assert "골절" in p.own_terms and "화상" in p.own_terms
    some = "제5조(지급사유) 보상하지 않습니다. 다만, 골절, 화상 또는 파열 등의 부상을 입원하여 치료한 경우에는 지급합니다."
    c = Chunk("c5", "p.pdf", "p.pdf", "t", some, 0, len(some))
    (p,) = provisos(c, 0, len(some), "", TOK)
    assert "입원" in p.own_terms and "화상" not in p.own_terms  # the examples give way to the rest of the condition


@pytest.mark.unit
def test_a_substitute_for_a_period_is_moot_where_the_notice_counts_no_period() -> None:
    """A proviso that lets a diagnosis stand in for the 2-year deadline matters to a denial on the
    deadline, not to one on where the scar is."""
    pay = ("제1조(보험금의 지급사유) 회사는 사고일부터 2년 이내에 안면부, 상지 또는 하지에 성형수술을 받은 경우 수술비를 지급합니다. "
           "다만, 만 15세 미만자가 2년이 지난 후에 수술이 가능하다는 진단을 받은 경우에는 그 진단으로 대체할 수 있습니다.")
    cover = Chunk("c1", "p.pdf", "p.pdf", "t", pay, 0, len(pay), article_title="보험금의 지급사유")
    (p,) = provisos(cover, 0, len(pay), "", TOK)
    assert p.stands_for == {"개월"}  # the 2년 it shares with the rule (15세 is its own)
    elsewhere = "2024. 12. 18. 사고로 2025. 7. 30. 둔부에 9.0cm 흉터 수술을 받으셨으나 둔부는 하지가 아니어서 지급하지 않습니다."
    assert unaddressed([cover], ref("제1조"), elsewhere, TOK) == []
    late = "사고일부터 2년 3개월이 지난 뒤 수술을 받으셔서 지급하지 않습니다."
    assert len(unaddressed([cover], ref("제1조"), late, TOK)) == 1


@pytest.mark.unit
def test_a_case_taken_out_of_an_exclusion_and_paid_within_a_limit_is_the_claimants() -> None:
    """"그러나 … 인명보호장구에 한하여 … 200만원의 한도에서 … 보상합니다" (no comma after 그러나): the cap
    limits what is paid, the case is still paid."""
    text = ("제8조(보상하지 않는 손해)\n③ 다음 중 어느 하나에 해당하는 손해는 보상하지 않습니다.\n"
            "4. 탑승자와 통행인의 의류나 휴대품에 생긴 손해. 그러나 탑승자의 신체를 보호할 인명보호장구에 한하여 피해자 1인당 200만원의 한도에서 실제 손해를 보상합니다.\n"
            "5. 피보험자동차에 싣고 있는 물품에 생긴 손해\n")
    excl = Chunk("c8", "p.pdf", "p.pdf", "t", text, 0, len(text), article_title="보상하지 않는 손해")
    (p,) = unaddressed([excl], ref("제8조 제3항 제4호"), "안전모와 조끼는 탑승자의 휴대품이므로 보상하지 않습니다.", TOK)
    assert p.text.startswith("그러나 탑승자의 신체를")
    said = "안전모는 인명보호장구이나 피해자 1인당 200만원 한도를 이미 모두 실제 손해로 보상하였습니다."
    assert unaddressed([excl], ref("제8조 제3항 제4호"), said, TOK) == []


@pytest.mark.unit
def test_a_proviso_whose_condition_is_the_list_that_follows_is_spoken_to_through_the_list() -> None:
    text = ("제8조(보상하지 않는 손해)\n① 다음 중 어느 하나에 해당하는 손해는 보상하지 않습니다.\n"
            "6. 요금을 받고 피보험자동차를 반복적으로 사용한 때에 생긴 손해. 다만, 다음 각목의 어느 하나에 해당하는 경우에는 보상합니다.\n"
            "가. 임대차계약(계약기간이 30일을 초과하는 경우에 한함)에 따라 임차인이 전속적으로 사용하는 경우\n"
            "나. 평일 출·퇴근 시간대에 자택과 직장 사이를 이동하면서 승용차 함께 타기를 실시한 경우\n"
            "7. 시험용으로 사용하던 중 생긴 손해\n")
    excl = Chunk("c8", "p.pdf", "p.pdf", "t", text, 0, len(text), article_title="보상하지 않는 손해")
    (p,) = provisos(excl, *cited_span([excl], ref("제8조 제1항 제6호"))[1:], "", TOK)
    assert p.text.startswith("다만, 다음 각목") and p.text.rstrip().endswith("실시한 경우")  # the list is the proviso's
    assert "임차인" in p.own_terms and "각목" not in p.own_terms
    argued = "평일 출퇴근 시간대에 자택과 직장 사이를 함께 타고 이동한 것이 아니었고, 30일을 초과하는 임대차계약으로 임차인이 사용한 것도 아닙니다."
    assert unaddressed([excl], ref("제8조 제1항 제6호"), argued, TOK) == []
    assert len(unaddressed([excl], ref("제8조 제1항 제6호"), "요금을 받고 반복적으로 사용하셨습니다.", TOK)) == 1


@pytest.mark.unit
def test_what_a_proviso_pays_is_its_condition_and_that_it_pays_is_not() -> None:
    """"…다른 보험의 목적에 생긴 손해는 보상하여 드립니다": a notice that says it does not 보상 has
    not spoken to the proviso; one that speaks of the other property burnt has."""
    c = Chunk("c4", "p.pdf", "p.pdf", "t", (
        "제4조(보상하지 않는 손해)\n회사는 아래의 사유로 생긴 손해는 보상하여 드리지 않습니다.\n"
        "3. 보험의 목적의 발효, 자연발열, 자연발화로 생긴 손해. 그러나, 자연발열 또는 자연발화로 연소된 다른 보험의 목적에 생긴 손해는 보상하여 드립니다.\n"
        "4. 화재로 생긴 것이든 아니든 파열 또는 폭발로 생긴 손해\n"), 0, 200, article_title="보상하지 않는 손해")
    r = ref("제4조 제3호")
    (p,) = unaddressed([c], r, "자연발화로 생긴 화재이므로 보상하여 드리지 않습니다.", TOK)
    assert p.own_terms == ("연소",) and p.share_in_notice == 0.0
    assert unaddressed([c], r, "자연발화로 불이 나 주택이 연소되었으나 보상하지 않습니다.", TOK) == []


@pytest.mark.unit
def test_in_an_article_whose_circled_numbers_are_items_the_cited_item_is_the_one_list_that_long() -> None:
    lead = Chunk("a", "p.pdf", "p.pdf", "t", "제2조(보험금을 지급하지 않는 사유)\n① 회사는 다음의 손해는 보상하지 않습니다.\n① 고의\n② 지진\n", 0, 60,
                 article_title="보험금을 지급하지 않는 사유")
    items = Chunk("b", "p.pdf", "p.pdf", "t", "회사는 다음 비용은 보상하지 않습니다.\n① 미용 비용\n② 목욕비용\n③ 기생충 치료비. 다만, 상해로 생긴 경우에는 보상합니다.\n", 60, 140,
                  article_title="보험금을 지급하지 않는 사유")
    c, s, e = cited_span([items, lead], ref("제2조 제2항 제3호"))
    assert c is items and c.text[s:e].startswith("③ 기생충 치료비")
    assert cited_span([items, lead], ref("제2조 제2항 제2호")) is None  # two lists hold a ②: which one is not read
    assert cited_span([items, lead], ref("제2조 제2항")) is None


@pytest.mark.unit
def test_a_paragraph_that_cannot_be_told_among_circled_numbers_that_start_again_gives_its_candidates() -> None:
    """"제1조 ③" of an article whose ① ② ③ start again inside an example box: both ③ are candidates."""
    a = Chunk("a", "p.pdf", "p.pdf", "t", "제1조(보험금의 지급사유)\n① 고급형\n② 회사는 치료비를 보상합니다.\n③ 회사가 보상하는 비용은 1일당 30만원 한도입니다.\n", 0, 80)
    b = Chunk("b", "p.pdf", "p.pdf", "t", "【예시】\n① 수술하지 않은 경우\n② 수술한 경우\n③ 제1항에도 불구하고 보장개시일부터 30일 이내에 발생한 질병은 보상하지 않습니다.\n", 80, 160)
    r = ref("제1조 ③")
    assert cited_span([a, b], r) is None
    got = [c.text[s:e].split()[1] for c, s, e in candidate_spans([a, b], r)]
    assert got == ["회사가", "제1항에도"]
    assert candidate_spans([a], ref("제1조 ③")) == []  # one run of circled numbers: the 항 is read as it is
