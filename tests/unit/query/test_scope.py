"""Which documents a question is about: insurers, groups, product types and product words."""

from __future__ import annotations

import pytest

from yakgwan.ingest.printed import type_covers, types_in
from yakgwan.query.scope import DocLabel, label_words, resolves, scope_of

pytestmark = pytest.mark.unit

# a collection of six documents of five insurers (labels as documents print them)
DOCS = [
    DocLabel("a.pdf", "한화손해보험", "한화 다이렉트 3400운전자보험 무배당", "운전자보험"),
    DocLabel("b.pdf", "한화손해보험주식회사", "한화 더건강한 한아름종합보험 무배당2504", "종합보험"),
    DocLabel("c.pdf", "KB손해보험", "KB 다이렉트치아보험", "치아보험"),
    DocLabel("d.pdf", "KB손해보험", "KB손보 간편가입 실손의료비보장보험(무배당)(25.01)", "실손의료비보험"),
    DocLabel("e.pdf", "캐롯손해보험", "캐롯 해외여행보험", "해외여행보험"),
    DocLabel("f.pdf", "DB손해보험", None, None),
]


def test_a_named_insurer_scopes_to_its_documents():
    s = scope_of("DB손해보험 여권 잃어버리면 재발급 비용 주나요?", DOCS)
    assert s.named == ("DB손해보험",) and s.docs == ("f.pdf",) and not s.refuses


def test_a_brand_names_its_insurer():
    assert scope_of("캐롯 보험 납치되면 얼마 나와요?", DOCS).docs == ("e.pdf",)


def test_an_insurer_the_collection_lacks_refuses_and_lists_what_it_holds():
    s = scope_of("AXA손해보험 운전자보험 벌금 한도가 얼마예요?", DOCS)
    assert s.refuses and s.absent == ("AXA손해보험",)
    assert set(s.held) == {"한화손해보험", "KB손해보험", "캐롯손해보험", "DB손해보험"}  # 한화손해보험주식회사 is 한화손해보험


def test_one_held_and_one_absent_insurer_answers_from_the_held_one():
    s = scope_of("삼성화재와 DB손해보험 해외여행보험 비교", DOCS)
    assert s.absent == ("삼성화재",) and s.docs == ("f.pdf",) and not s.refuses


def test_a_group_word_scopes_to_the_groups_held_insurers_then_product_words_pick():
    s = scope_of("한화 다이렉트 운전자보험 들었는데 벌금 나오면 보상돼요?", DOCS)
    assert s.groups == ("한화",) and s.docs == ("a.pdf",)
    s = scope_of("KB 다이렉트 치아보험 스케일링 되나요?", DOCS)
    assert s.docs == ("c.pdf",) and "다이렉트치아보험" in s.words


def test_a_group_the_collection_does_not_hold_is_an_ordinary_word():
    s = scope_of("삼성 병원에서 치료받았는데 청구되나요?", DOCS)
    assert s.groups == () and s.docs is None and not s.refuses


def test_product_words_weigh_by_how_few_documents_share_them():
    # 간편가입 is one document's word; the insurer's name inside its label is no product word
    s = scope_of("KB손보 간편가입 실손 들었는데 도수치료 청구돼요?", DOCS)
    assert s.docs == ("d.pdf",) and s.words == ("간편가입",)
    assert "kb손보" not in label_words(DOCS[3]) and "간편가입" in label_words(DOCS[3])


def test_a_type_the_named_insurers_documents_lack_refuses_naming_them():
    s = scope_of("캐롯 자동차보험 긴급출동 되나요?", DOCS)
    assert s.refuses and s.absent_types == ("자동차보험",) and s.offered == ("e.pdf",)


def test_unknown_types_are_never_called_absent():
    s = scope_of("DB손해보험 자동차보험 긴급출동 되나요?", DOCS)  # f.pdf's type is unknown
    assert s.docs == ("f.pdf",) and not s.refuses


def test_a_type_alone_narrows_to_documents_of_it_or_of_no_known_type():
    s = scope_of("해외여행자보험 휴대품 도난 보상돼요?", DOCS)
    assert s.named == () and s.docs == ("e.pdf", "f.pdf")


def test_a_question_naming_nothing_keeps_every_document():
    s = scope_of("청약을 철회하면 보험료를 돌려받나요?", DOCS)
    assert s.docs is None and s.named == () and s.types == ()


def test_one_document_or_no_labels_never_narrow():
    assert scope_of("한화 운전자보험 벌금", DOCS[:1]).docs is None
    unlabelled = [DocLabel("x.pdf"), DocLabel("y.pdf")]
    assert scope_of("운전자보험 벌금 한도", unlabelled).docs is None
    general = scope_of("메리츠화재 운전자보험 벌금", unlabelled)  # documents that know no insurer: an ordinary word
    assert general.absent == ("메리츠화재",) and not general.refuses and general.docs is None


def test_resolved_names_are_no_missing_anchors():
    s = scope_of("한화 다이렉트 운전자보험 벌금", DOCS)
    assert resolves(s, "한화") and resolves(s, "다이렉트") and not resolves(s, "벌금")


def test_a_name_every_held_document_answers_to_is_resolved():
    """One policy asked about by its insurer's name (the scope keeps every document, so it does
    not narrow): the name is the policy's, no missing word."""
    one = scope_of("한화손해보험 운전자보험 들었는데 벌금 나와요?", DOCS[:1])
    assert one.docs is None and not one.refuses
    assert resolves(one, "한화손해보험") and not resolves(one, "벌금")
    # an insurer none of the documents is of never resolves, nor does a refused scope's name
    assert not resolves(one, "메리츠화재")
    refused = scope_of("메리츠화재 운전자보험 벌금", DOCS)
    assert refused.refuses and not resolves(refused, "메리츠화재")
    general = scope_of("메리츠화재 운전자보험 벌금", [DocLabel("x.pdf"), DocLabel("y.pdf")])
    assert not general.refuses and not resolves(general, "메리츠화재")


@pytest.mark.parametrize("text, want", [
    ("MG손해보험 여행자보험 항공기 지연", ("여행자보험",)),
    ("해외여행자보험 들었는데", ("해외여행보험",)),  # the most specific word, read once
    ("국민건강보험 적용 안 되는 실손보험", ("실손의료비보험",)),  # a public programme is no product
    ("자동차보험 말고 운전자보험", ("운전자보험", "자동차보험")),
    ("보험금 청구", ()),
])
def test_types_in(text, want):
    assert types_in(text) == want


def test_type_covers_a_narrower_type():
    assert type_covers("여행자보험", "해외여행보험") and type_covers("운전자보험", "운전자보험")
    assert not type_covers("해외여행보험", "여행자보험") and not type_covers("운전자보험", "자동차보험")
