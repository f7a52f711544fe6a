"""What the reading checks look at, found without a model: the policy's definition sentences
and the terms a reason leans on, the sentences that cut a payment (and those that send a case to
one), the interpretation article and the notice's stated readings (hand-built chunks)."""

from __future__ import annotations

import pytest

from yakgwan.appeal.definitions import definitions, leaned_on
from yakgwan.appeal.interpretation import interpretation_article, stated_readings
from yakgwan.appeal.reduced_payment import reduced_payments
from yakgwan.core.records import Chunk


def chunk(cid: str, yakgwan: str, article: str, text: str, title: str = "t", paragraph: str | None = None, start: int = 0) -> Chunk:
    return Chunk(cid, "p.pdf", "p.pdf", "t", text, start, start + len(text), yakgwan=yakgwan, article=article, article_title=title, paragraph=paragraph)


SPECIAL = chunk("s2", "주차중사고 특별약관", "제2조", (
    "제2조(용어의 정의)\n① 제1조에서 ‘차량에 탑승한 중’이라 함은 시동 여부를 불문하고 피보험자가 차량 안에 있는 것을 말합니다.\n"
    "② 제1항에서 주차장이라 함은 차량을 세워 두도록 마련된 장소를 말합니다.\n"
    "③ “입원”이란 의사의 관리를 받으며 치료에 전념하는 것을 말합니다.\n"
), "용어의 정의", start=100)
GENERAL = chunk("g3", "보통약관", "제3조", "제3조(보험금의 지급사유)\n【용어풀이】 “차량에 탑승한 중”이라 함은 차량의 좌석에 앉아 있는 것을 말합니다.\n", start=0)


@pytest.mark.unit
def test_definitions_quoted_and_bare_terms_without_the_reference_before_them() -> None:
    found = {(d.chunk.yakgwan, d.term): d for d in definitions([SPECIAL, GENERAL])}
    assert set(found) == {("주차중사고 특별약관", "차량에 탑승한 중"), ("주차중사고 특별약관", "주차장"), ("주차중사고 특별약관", "입원"),
                          ("보통약관", "차량에 탑승한 중")}
    d = found["주차중사고 특별약관", "주차장"]
    assert d.sentence.startswith("② 제1항에서 주차장이라 함은") and d.sentence in SPECIAL.text  # verbatim
    # "대중교통수단이라 함은": the 이 belongs to 이라, not to the term
    (bare,) = definitions([chunk("x", "A 특별약관", "제1조", "② 제1항에서 대중교통수단이라 함은 누구나 이용할 수 있는 교통수단을 말합니다.")])
    assert bare.term == "대중교통수단"
    # a sentence that names a term without saying what it means is no definition
    assert definitions([chunk("y", "A 특별약관", "제1조", "① 이 약관에서 “보험금”이라 함은 아래와 같이")]) == []


@pytest.mark.unit
def test_a_reason_leans_on_a_term_as_a_word_the_special_terms_own_definition_first() -> None:
    defs = definitions([GENERAL, SPECIAL])
    used = leaned_on(defs, "사고 당시 피보험자는 차량에 탑승한 중이 아니었고 주차장도 아닌 곳에 세워 두었습니다.")
    assert [(d.term, d.chunk.yakgwan) for d in used] == [("차량에 탑승한 중", "주차중사고 특별약관"), ("주차장", "주차중사고 특별약관")]
    assert leaned_on(defs, "교통상해 골절입원일당을 지급하지 않습니다.") == []  # 입원 inside a longer word is not the term
    assert [d.term for d in leaned_on(defs, "입원 치료로 보기 어렵습니다.")] == ["입원"]
    assert [d.term for d in leaned_on(defs, "차량에탑승한중 아님", limit=1)] == ["차량에 탑승한 중"]  # spacing aside


CUTS = [
    chunk("a4", "보통약관", "제14조", "④ 추가보험료를 내지 않았을 때 회사는 변경전 요율의 변경후 요율에 대한 비율에 따라 보험금을 삭감하여 지급합니다.",
          "계약 후 알릴 의무", "④", 10),
    chunk("a5", "보통약관", "제15조", "⑤ 제1항 제2호에 의한 해지가 지급사유 발생 후에 이루어진 경우에는 제14조(계약 후 알릴 의무) 제4항 또는 제5항에 따라 보험금을 지급합니다.",
          "알릴 의무 위반의 효과", "⑤", 20),
    chunk("a6", "보통약관", "제15조", "④ 제1항 제1호에 의한 해지가 지급사유 발생 후에 이루어진 경우에는 보험금을 지급하지 않습니다.", "알릴 의무 위반의 효과", "④", 30),
    chunk("a2", "보통약관", "제2조", "【보험금 삭감】 정해진 비율로 보험금을 감액하여 지급하는 방법", "용어의 정의", None, 0),
    chunk("b1", "입원일당 특별약관", "제1조", "⑥ 정당한 이유없이 의사의 지시를 따르지 않은 때에는 입원일당의 전부 또는 일부를 지급하지 않습니다.", "보험금의 지급사유", "⑥", 40),
]


@pytest.mark.unit
def test_sentences_that_cut_a_payment_and_those_that_send_a_case_to_one() -> None:
    found = reduced_payments(CUTS)
    direct = [(r.chunk.chunk_id, r.via) for r in found if r.via is None]
    assert direct == [("a4", None)]  # the glossary box prescribes nothing; "전부 또는 일부를 지급하지 않" lets the insurer refuse all: no cut
    (sent,) = [r for r in found if r.via is not None]
    assert sent.chunk.chunk_id == "a5" and sent.via.chunk.chunk_id == "a4" and sent.sentence in CUTS[1].text


@pytest.mark.unit
def test_the_interpretation_article_and_a_notices_stated_reading() -> None:
    art = chunk("i36", "보통약관", "제36조", (
        "제36조(약관의 해석)\n① 회사는 신의성실의 원칙에 따라 공정하게 약관을 해석하여야 합니다.\n② 회사는 약관의 뜻이 명백하지 않은 경우에는 계약자에게 유리하게 해석합니다.\n"
    ), "약관의 해석")
    other = chunk("x1", "A 특별약관", "제9조", "제9조(약관의 해석)\n① 회사는 해석합니다.", "약관의 해석")  # only the 보통약관's counts
    spans = interpretation_article([other, art])
    assert [art.text[s:e][:2] for _, s, e in spans] == ["① ", "② "]
    reason = "당사는 ‘대기실’을 개찰구 안쪽의 구획된 공간으로 보고 있으며, 역 광장은 이에 포함되지 않습니다. 따라서 지급하지 않습니다."
    assert stated_readings(reason) == ["당사는 ‘대기실’을 개찰구 안쪽의 구획된 공간으로 보고 있으며, 역 광장은 이에 포함되지 않습니다."]
    assert stated_readings("사고일이 보장기간 밖이므로 지급하지 않습니다.") == []


@pytest.mark.unit
def test_what_a_definition_sets_aside_or_lists_and_not_what_it_lists_as_excluded() -> None:
    from yakgwan.appeal.definitions import sets_aside_or_lists

    d = definitions([chunk("d1", "A 특별약관", "제2조", "① ‘운전 중’이라 함은 도로 여부, 엔진의 시동 여부를 불문하고 운전석에 앉아 있는 것을 말합니다.")])[0]
    assert "시동" in sets_aside_or_lists(d) and "운전석" not in sets_aside_or_lists(d)
    d = definitions([chunk("d2", "A 특별약관", "제2조", "② “차량”이라 함은 승용자동차, 승합자동차, 화물자동차 및 자동차관리법 시행규칙에 정한 건설기계를 말합니다.")])[0]
    listed = sets_aside_or_lists(d)
    assert "승합자동차" in listed and "건설기계" in listed and "시행규칙" not in listed  # the law it refers to names no ground
    d = definitions([chunk("d3", "A 특별약관", "제2조", "③ 『개복수술』이라 함은 복부를 여는 수술을 말하며, 복강경, 내시경, 천공술 등의 시술은\n개복수술로 보지 않습니다.")])[0]
    assert "복강경" not in sets_aside_or_lists(d)  # a list of what the term is not


@pytest.mark.unit
def test_a_final_이_before_라_함은_goes_with_the_noun_only_when_the_document_says_so() -> None:
    def term(text: str) -> list[str]:
        return [d.term for d in definitions([chunk("e", "A 특별약관", "제1조", text)])]

    assert term("① 이 특약에서 어린이라 함은 만 13세 미만인 사람을 말합니다.\n② 어린이가 탑승한 경우에 지급합니다.") == ["어린이"]  # 어린이가
    assert term("② 대중교통수단이라 함은 누구나 이용하는 교통수단을 말합니다.\n③ 대중교통수단은 아래와 같습니다.") == ["대중교통수단"]  # 대중교통수단은
    assert term("② 대중교통수단이라 함은 누구나 이용하는 교통수단을 말합니다.") == ["대중교통수단"]  # no evidence: 이 goes with 이라


def test_the_terms_of_a_definitions_list_are_definitions() -> None:
    """표준약관's 용어의 정의 article lists its terms: "나. 해외여행 중: … 말합니다". A notice that reads
    such a term reads a defined word (the definition check's), not an open one."""
    text = ("제2조(용어의 정의)\n4. 기간과 날짜 관련 용어\n가. 보험기간: 계약에 따라 보장을 받는 기간을 말합니다.\n"
            "나. 해외여행 중: 주거지를 출발하여 도착할 때까지의 기간을 말합니다.\n1. 계약자 : 보험료를 납입할 의무를 지는 사람을 말합니다.\n"
            "2. 비고: 아래 표를 참고하십시오.\n")
    chunk = Chunk("d", "p.pdf", "p.pdf", "t", text, 0, len(text), yakgwan="보통약관", article="제2조")
    assert [d.term for d in definitions([chunk])] == ["보험기간", "해외여행 중", "계약자"]  # "비고" says what to read, not what a word means
    note = "제3조(보험금의 지급사유)\n주) 통원: 의사의 치료를 받는 것을 말합니다.\n"
    assert definitions([Chunk("n", "p.pdf", "p.pdf", "t", note, 0, len(note), yakgwan="보통약관", article="제3조")]) == []  # a footnote, not a list item
