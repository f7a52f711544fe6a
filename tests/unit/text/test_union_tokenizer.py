"""The default analyzer: the multiset union of mecab-ko and kiwi terms."""

from __future__ import annotations

import pytest

from yakgwan.text.registry import DEFAULT_TOKENIZER, make_tokenizer
from yakgwan.text.analyzers.union import merge_terms


@pytest.mark.unit
def test_merge_terms_is_multiset_union_in_first_seen_order() -> None:
    assert merge_terms(["a", "b", "a"], ["b", "c", "b", "b"]) == ["a", "a", "b", "b", "b", "c"]
    assert merge_terms([], ["x"]) == ["x"]


@pytest.mark.integration
def test_union_recovers_terms_one_analyzer_misses() -> None:
    tok = make_tokenizer(DEFAULT_TOKENIZER)
    assert tok.name == "mecab+kiwi"
    assert "벌금" in tok.tokenize("확정판결에 의하여 정해진 벌금액")  # mecab alone: 벌 + 금액
    assert "골절" in tok.tokenize("골절진단비")  # mecab alone: 골 + 절진 + 단비
    # the negation rule holds in both analyzers, so the union adds no bare 급여 / 담보
    assert "급여" not in tok.tokenize("비급여 항목") and "비급여" in tok.tokenize("비급여 항목")
    assert "담보" not in tok.tokenize("질병부담보 조건")


@pytest.mark.unit
def test_the_tagger_of_a_union_is_its_kiwi_part_and_a_mecab_alone_has_none() -> None:
    from yakgwan.text.analyzers.kiwi import KiwiTokenizer
    from yakgwan.text.analyzers.mecab import MecabTokenizer
    from yakgwan.text.registry import make_tokenizer, tagger_of

    union = make_tokenizer("mecab+kiwi")
    found = tagger_of(union)
    assert isinstance(found, KiwiTokenizer) and found is union.second  # type: ignore[attr-defined]
    kiwi = KiwiTokenizer()
    assert tagger_of(kiwi) is kiwi
    assert tagger_of(MecabTokenizer()) is None


@pytest.mark.integration
def test_kiwi_reads_a_multi_word_name_as_its_words_and_says_so_in_its_spec() -> None:
    from yakgwan.text.analyzers.kiwi import KiwiTokenizer

    kiwi = KiwiTokenizer()
    # with Kiwi's multi-word dictionary, 급성 스트레스 장애 would be one proper noun
    terms = kiwi.tokenize("급성 스트레스 장애 진단을 받았다")
    assert {"급성", "스트레스", "장애"} <= set(terms) and "급성 스트레스 장애" not in terms
    assert kiwi.spec.endswith(",multi=0")
