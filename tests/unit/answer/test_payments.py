"""Payments a question asks about that no document names (:mod:`yakgwan.answer.payments`): read
from the question's tags, checked against the documents' text and the thesaurus, and an answer
about one capped at ``partial``, saying so first."""

from __future__ import annotations

import pytest

from yakgwan.answer.anchors import normalise
from yakgwan.answer.payments import capped, head_variants, not_promised, payment_nouns, promise_text, unnamed_payments
from yakgwan.answer.records import Citation, Generated
from yakgwan.core.records import Chunk
from yakgwan.text.tokenizer import Morph

pytestmark = pytest.mark.unit


def tags(*pairs: tuple[str, str]) -> list[Morph]:
    """Morphs a space apart (as if each were its own word)."""
    out, pos = [], 0
    for form, tag in pairs:
        out.append(Morph(form, tag, pos, pos + len(form)))
        pos += len(form) + 1
    return out


def words(*spaced: str) -> list[Morph]:
    """Morphs as written: ``"만기+환급금/NNG+NNG"`` is two morphs of one word."""
    out, pos = [], 0
    for word in spaced:
        forms, tags_ = word.split("/")
        for form, tag in zip(forms.split("+"), tags_.split("+")):
            out.append(Morph(form, tag, pos, pos + len(form)))
            pos += len(form)
        pos += 1
    return out


def test_a_noun_with_a_payment_head_is_a_payment_whether_or_not_the_tagger_split_it() -> None:
    # "입원비는 얼마씩 나와요": one noun; "진단 금 일시 금": a head tagged apart makes a compound with the noun before it
    assert payment_nouns(tags(("입원비", "NNG"), ("는", "JX"), ("얼마", "NNG"), ("나오", "VV"))) == ["입원비"]
    assert payment_nouns(tags(("진단", "NNG"), ("금", "NNG"), ("일시", "NNG"), ("금", "NNG"), ("으로", "JKB"))) == ["진단금", "일시금"]
    assert payment_nouns(tags(("차", "NNG"), ("값", "NNG"), ("보상", "NNG"))) == ["차값"]
    assert payment_nouns(tags(("숙소", "NNG"), ("비용", "NNG"), ("도", "JX"))) == ["숙소비용"]
    assert payment_nouns(tags(("취소", "NNG"), ("수수료", "NNG"), ("도", "JX"))) == ["취소수수료"]
    # a head tagged as a suffix, and suffixes between the noun and the head
    assert payment_nouns(tags(("입원", "NNG"), ("비", "XSN"), ("는", "JX"))) == ["입원비"]
    assert payment_nouns(tags(("항공", "NNG"), ("권", "XSN"), ("값", "NNG"), ("도", "JX"))) == ["항공권값"]
    assert payment_nouns(tags(("권", "XSN"), ("값", "NNG"))) == []  # no noun before the suffix


def test_verbal_nouns_time_words_and_nouns_without_a_head_are_not_payments() -> None:
    assert payment_nouns(tags(("준비", "NNG"), ("하", "XSV"), ("어서", "EC"))) == []  # 준비해서: an act
    assert payment_nouns(tags(("지금", "NNG"), ("받", "VV"))) == []  # a time word
    assert payment_nouns(tags(("사고", "NNG"), ("보상", "NNG"), ("금", "MAG"))) == []  # a head that is not a noun
    assert payment_nouns(tags(("금", "NNG"), ("받", "VV"))) == []  # a head with no noun before it
    assert payment_nouns(tags(("벌금", "NNG"), ("벌금", "NNG"))) == ["벌금"]  # once each
    # a last syllable that only looks like a head: 療, 僚, 料 as material, 備
    assert payment_nouns(tags(("동료", "NNG"), ("가", "JKS"), ("치료", "NNG"), ("장비", "NNG"), ("사료", "NNG"))) == []


def test_a_payment_is_named_when_its_characters_or_a_thesaurus_equivalent_occur_in_the_documents() -> None:
    corpus = normalise("회사는 피보험자가 부담하는 벌 금을 보상합니다. 처방조제비는 보상합니다.")
    assert unnamed_payments(["벌금", "수리비", "약값"], corpus) == ["수리비", "약값"]  # spaces ignored
    assert unnamed_payments(["약값"], corpus, lambda w: ("처방조제비",) if w == "약값" else ()) == []
    assert unnamed_payments([], corpus) == []
    # the same stem with another payment head is the same payment: "치료 비용" when the policy says 치료비
    assert unnamed_payments(["치료비용", "수색비용"], normalise("치료비는 실제 부담액을 보상합니다.")) == ["수색비용"]
    assert head_variants("치료비용")[:3] == ["치료비용", "치료수수료", "치료비"] and head_variants("비용") == ["비용"]
    assert head_variants("약값") == ["약값"] and unnamed_payments(["약값"], normalise("계약금을 돌려드립니다")) == ["약값"]


def test_a_thesaurus_equivalent_that_is_only_the_payments_stem_does_not_name_it() -> None:
    # 입원비 → 입원일당 | 입원: a claim clause asking for an 입원치료확인서 names the event, not the payment
    corpus = normalise("보험금 청구 서류: 진단서, 입원치료확인서")
    eq = lambda w: ("입원일당", "입원") if w == "입원비" else ()
    assert unnamed_payments(["입원비"], corpus, eq) == ["입원비"]
    assert unnamed_payments(["입원비"], normalise("입원일당 특별약관 제1조 입원 1일당 보상"), eq) == []


def chunk(doc: str, text: str, yakgwan: str | None = None, follows: str | None = None) -> Chunk:
    return Chunk(f"{doc}:{text[:4]}", doc, f"{doc}.pdf", doc, text, 0, len(text), yakgwan=yakgwan, follows=follows)


def test_payments_are_promised_in_the_yakgwan_and_their_tables_not_in_the_guides_and_laws_after_them() -> None:
    chunks = [chunk("a", "치료비를 보상합니다", yakgwan="치아치료 특별약관"),
              chunk("a", "별표 보철치료비 지급기준", follows="치아치료 특별약관"),
              chunk("a", "보험금 청구서류 안내: 입원일당 청구 시 입퇴원확인서"),  # a claim guide after the 약관
              chunk("b", "위키: 입원비는 하루 단위로 계산합니다")]  # a document with no 약관 counts whole
    text = promise_text(chunks)
    assert "치료비" in text and "보철치료비" in text and "입원비는하루" in text
    assert "입원일당" not in text
    assert unnamed_payments(["입원일당"], promise_text(chunks[:3])) == ["입원일당"]
    assert promise_text([]) == ""


def test_an_answer_about_an_unnamed_payment_becomes_partial_led_by_the_sentence_that_says_so() -> None:
    cite = Citation(1, "c1", "a.txt", "제3조", 3, "회사는 상해 의료비를 보상합니다.", "보통약관")
    lead = "보통약관 제3조(보험금의 지급사유)에 ‘1,000만원 한도’라고 적혀 있습니다. [1]"
    quote = "보통약관 · 제3조 — 회사는 상해 의료비를 1,000만원 한도로 보상합니다. [1]"
    done = Generated("answered", f"{lead} {quote}", [cite], claims_text=f"{lead} {quote}", conclusion=lead)
    out = capped(done, ["수리비", "숙박비"])
    assert out.outcome == "partial" and out.reason == "unnamed_payment"
    assert out.conclusion == not_promised(["수리비", "숙박비"]) == "약관에는 ‘수리비’, ‘숙박비’(이)라는 지급 항목이 나오지 않습니다. 아래는 질문과 가장 가까운 조항입니다."
    # the answer's own lead said what its clause gives to "얼마": that clause is not about a 수리비, so it goes
    assert out.answer == f"{out.conclusion} {quote}" and out.citations == [cite]
    assert out.claims_text == quote  # the answer's own statements: the lead names what is missing
    plain = Generated("answered", "제3조는 상해 의료비를 보상합니다. [1]", [cite])  # an answer without a lead keeps all it said
    assert capped(plain, ["수리비"]).answer == f"{not_promised(['수리비'])} 제3조는 상해 의료비를 보상합니다. [1]"
    assert done.outcome == "answered" and done.notes == []  # the argument is not changed
    assert "수리비, 숙박비" in out.notes[-1].text("ko")
    refused = Generated("refused", "없습니다", [], reason="off_topic")
    kept = capped(refused, ["수리비"])  # nothing near to quote: the refusal stands, noting the word
    assert refused.notes == []
    assert (kept.outcome, kept.reason) == ("refused", "off_topic") and "수리비" in kept.notes[-1].text("ko")
    near = Generated("partial", "보통약관 · 제3조 — 회사는 상해 의료비를 보상합니다. [1]", [cite])
    shown = capped(Generated("refused", "없습니다", [], reason="off_topic"), ["수리비"], near)
    assert (shown.outcome, shown.reason, shown.citations) == ("partial", "unnamed_payment", [cite])
    assert shown.answer == f"{not_promised(['수리비'], on_topic=False)} 보통약관 · 제3조 — 회사는 상해 의료비를 보상합니다. [1]"
    assert shown.conclusion.startswith("약관에는 ‘수리비’(이)라는 지급 항목이 나오지 않고, 찾은 조항도 질문의 주제를 바로 다루지 않습니다.")
    assert near.outcome == "partial" and near.notes == [] and refused.notes == []  # neither argument is changed
    other = Generated("refused", "없습니다", [], reason="unverifiable")  # a refusal for another reason is kept
    assert capped(other, ["수리비"], near).outcome == "refused"
    assert capped(done, []) is done


def test_a_payment_noun_written_together_with_the_noun_before_it_is_one_compound_payment() -> None:
    # "만기환급금을 얼마나": which 환급금 is asked about; "만기 때 환급금": a space keeps them apart
    assert payment_nouns(words("만기+환급금+을/NNG+NNG+JKO", "얼마나/MAG")) == ["만기환급금"]
    assert payment_nouns(words("만기/NNG", "때/NNG", "환급금+을/NNG+JKO")) == ["환급금"]
    assert payment_nouns(words("지금+환급금/NNG+NNG")) == ["환급금"]  # a time word before it says when, not which
    corpus = normalise("해약환급금은 제32조에 따릅니다. 교통사고처리지원금을 지급합니다. 만기가 되면 계약이 끝납니다.")
    equivalents = {"합의금": ("교통사고처리지원금",)}.get
    # named only when the compound is: 만기 and 환급금 apart do not name a 만기환급금
    assert unnamed_payments(["만기환급금", "해약환급금"], corpus) == ["만기환급금"]
    # a compound ending in a payment word the thesaurus maps is named by that word's equivalents
    assert unnamed_payments(["사고합의금", "사고환급금"], corpus, lambda w: equivalents(w) or ()) == ["사고환급금"]


def test_a_payment_is_named_by_a_payment_its_stem_stands_for_in_the_thesaurus() -> None:
    corpus = normalise("변호사선임비용을 보험가입금액 한도로 지급합니다. 입원하여 치료를 받은 경우")
    thesaurus = {"변호사": ("변호사선임비용", "자동차사고 변호사선임비용 특별약관"), "입원": ("입원", "입원치료")}
    equivalents = lambda w: thesaurus.get(w, ())  # noqa: E731
    # 변호사비: its stem 변호사 stands for 변호사선임비용, a payment the documents name
    assert unnamed_payments(["변호사비"], corpus, equivalents) == []
    # 입원비: its stem stands for no payment (입원, 입원치료 name the event): not named by them
    assert unnamed_payments(["입원비"], corpus, equivalents) == ["입원비"]
