"""Korean tokenisation: the term rules on hand-made morphemes (unit) and on the real analysers
(integration), including the negation test set in tests/data/negation_cases.jsonl."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from yakgwan.core.errors import UnknownName
from yakgwan.retrieval.scoring.bm25 import BM25Index
from yakgwan.text.registry import TOKENIZERS, make_tokenizer
from yakgwan.text.terms import apply_domain_terms, terms_from_morphs
from yakgwan.text.tokenizer import Morph, Tokenizer, TokenizerConfig

CASES = [json.loads(line) for line in (Path(__file__).resolve().parents[1] / "data" / "negation_cases.jsonl").read_text("utf-8").splitlines() if line.strip()]
ON = TokenizerConfig()
OFF = TokenizerConfig(attach_prefixes=False)


def seq(*items: tuple[str, str], gaps: tuple[int, ...] = ()) -> list[Morph]:
    """Morphs laid out left to right; a space is inserted before the indices in ``gaps``."""
    out, pos = [], 0
    for i, (form, tag) in enumerate(items):
        pos += 1 if i in gaps else 0
        out.append(Morph(form, tag, pos, pos + len(form)))
        pos += len(form)
    return out


# ---------------------------------------------------------------- unit: rules on morphemes
@pytest.mark.unit
def test_negating_prefix_is_merged_without_bare_noun():
    morphs = seq(("비", "XPN"), ("급여", "NNG"), ("항목", "NNG"), ("은", "JX"), gaps=(2,))
    assert terms_from_morphs(morphs, ON) == ["비급여", "항목"]


@pytest.mark.unit
def test_without_the_rule_the_prefix_is_lost_as_in_peer_analysers():
    morphs = seq(("비", "XPN"), ("급여", "NNG"))
    assert terms_from_morphs(morphs, OFF) == ["급여"]


@pytest.mark.unit
def test_other_prefixes_keep_the_bare_noun():
    assert terms_from_morphs(seq(("재", "XPN"), ("가입", "NNG")), ON) == ["재가입", "가입"]


@pytest.mark.unit
def test_noun_tagged_negation_syllable_counts_only_at_word_start():
    # 부/NNG 지급 (kiwi) and 미/NNP 가입 (mecab) start a word: prefixes.
    assert terms_from_morphs(seq(("부", "NNG"), ("지급", "NNG")), ON) == ["부지급"]
    assert terms_from_morphs(seq(("미", "NNP"), ("가입", "NNG")), ON) == ["미가입"]
    # 진단 비 지원: 비 (cost) inside a word is not a prefix.
    assert terms_from_morphs(seq(("진단", "NNG"), ("비", "NNG"), ("지원", "NNG")), TokenizerConfig(min_part_len=1)) == ["진단", "비", "지원"]
    # separated by a space: no merge.
    assert terms_from_morphs(seq(("무", "NNG"), ("보험", "NNG"), gaps=(1,)), ON) == ["무", "보험"]


@pytest.mark.unit
def test_hanja_prefix_is_read_in_hangul():
    assert terms_from_morphs(seq(("非", "SH"), ("급여", "NNG")), ON) == ["비급여"]


@pytest.mark.unit
def test_compound_parts_pass_through_the_prefix_rule():
    compound = [Morph("해외여행", "NNG", 0, 4, (("해외", "NNG"), ("여행", "NNG")))]
    assert terms_from_morphs(compound, ON) == ["해외여행", "해외", "여행"]
    assert terms_from_morphs(compound, TokenizerConfig(compound_parts=False)) == ["해외여행"]
    negated = [Morph("무배당", "NNG", 0, 3, (("무", "NNG"), ("배당", "NNG")))]
    assert terms_from_morphs(negated, ON) == ["무배당"]


@pytest.mark.unit
def test_numbers_keep_their_units():
    # mecab style: 3 , 000 만 원
    morphs = seq(("3", "SN"), (",", "SC"), ("000", "SN"), ("만", "NR"), ("원", "NNB"))
    assert terms_from_morphs(morphs, ON) == ["3000", "3000만원"]
    assert terms_from_morphs(seq(("2008", "SN"), ("년", "NNB")), ON) == ["2008", "2008년"]
    assert terms_from_morphs(seq(("제", "XPN"), ("3", "SN"), ("조", "NNG")), ON) == ["3", "제3조"]
    assert terms_from_morphs(seq(("2.5", "SN"), ("%", "SW")), ON) == ["2.5", "2.5%"]


@pytest.mark.unit
def test_latin_is_lowercased_and_alphanumerics_joined():
    assert terms_from_morphs(seq(("H", "SL"), ("5", "SN"), ("N", "SL"), ("1", "SN")), ON) == ["h5n1"]
    assert terms_from_morphs(seq(("COVID", "SL"), ("-", "SO"), ("19", "SN")), ON) == ["covid", "19"]


@pytest.mark.unit
def test_function_morphemes_are_dropped_and_stems_kept():
    morphs = seq(("보상", "NNG"), ("하", "XSV"), ("지", "EC"), ("않", "VX"), ("습니다", "EF"), ("받", "VV"), ("았", "EP"), gaps=(3, 5))
    assert terms_from_morphs(morphs, ON) == ["보상", "받"]


@pytest.mark.unit
def test_domain_terms_only_where_boundaries_agree():
    text = "질병부담보 부담보다"
    morphs = [Morph("질병", "NNG", 0, 2), Morph("부담", "NNG", 2, 4), Morph("보", "NNG", 4, 5),
              Morph("부담", "NNG", 6, 8), Morph("보다", "JKB", 8, 10)]
    fixed = apply_domain_terms(text, morphs)
    assert [m.form for m in fixed] == ["질병", "부담보", "부담", "보다"]
    assert terms_from_morphs(fixed, ON) == ["질병", "부담보", "부담"]


@pytest.mark.unit
def test_registry_and_errors():
    assert set(TOKENIZERS) >= {"kiwi", "mecab"}
    with pytest.raises(UnknownName, match="available: kiwi, mecab"):
        make_tokenizer("nori")
    with pytest.raises(ValueError, match="min_part_len"):
        TokenizerConfig(min_part_len=0)
    tok = make_tokenizer("kiwi")  # cheap: nothing loaded yet
    assert isinstance(tok, Tokenizer) and tok.name == "kiwi"


# ---------------------------------------------------------------- integration: real analysers
def _available(name: str) -> bool:
    modules = {"kiwi": ["kiwipiepy"], "mecab": ["mecab_ko"], "mecab+kiwi": ["mecab_ko", "kiwipiepy"]}[name]
    return all(importlib.util.find_spec(m) is not None for m in modules)


@pytest.fixture(scope="module", params=sorted(TOKENIZERS))
def tokenizer(request) -> Tokenizer:
    if not _available(request.param):
        pytest.skip(f"{request.param} analyser not installed")
    return make_tokenizer(request.param)


@pytest.mark.integration
@pytest.mark.parametrize(
    "text, expected, absent",
    [
        ("비급여 항목은 보상하지 않습니다", ["비급여", "항목", "보상"], ["급여"]),
        ("특정부위 부담보 조건", ["부담보"], ["담보", "부담"]),
        ("비갱신형 무배당 상품", ["비갱신", "무배당", "상품"], ["갱신", "배당"]),
        ("미지급 보험금과 부지급 통지서", ["미지급", "부지급", "보험금"], ["지급"]),
        ("보험가입금액 3,000만원, 2008년 가입", ["3000만원", "2008년", "2008"], []),
        ("해외여행 중 COVID-19", ["해외", "여행", "covid", "19"], []),
    ],
)
def test_real_analysers(tokenizer, text, expected, absent):
    terms = tokenizer.tokenize(text)
    assert set(expected) <= set(terms), terms
    assert not set(absent) & set(terms), terms


@pytest.mark.integration
def test_tokenize_many_matches_tokenize(tokenizer):
    texts = ["비급여 의료비", "", "보험금을 지급합니다", "   "]
    assert tokenizer.tokenize_many(texts) == [tokenizer.tokenize(t) for t in texts]


@pytest.mark.integration
@pytest.mark.parametrize("case", CASES, ids=[f"{c['query']}|{c['note'][:12]}" for c in CASES])
def test_negation_case_tokens(tokenizer, case):
    term_tokens = set(tokenizer.tokenize(case.get("term", case["query"])))
    assert term_tokens, case
    assert term_tokens <= set(tokenizer.tokenize(case["positive_text"]))
    assert not term_tokens & set(tokenizer.tokenize(case["negative_text"])), case["note"]


@pytest.mark.integration
def test_negation_cases_rank_positive_first(tokenizer):
    texts = [c[key] for c in CASES for key in ("positive_text", "negative_text")]
    index = BM25Index.build(tokenizer.tokenize_many(texts))
    failures = []
    for n, case in enumerate(CASES):
        ranks = {row: r for r, (row, _) in enumerate(index.search(tokenizer.tokenize(case["query"]), k=len(texts)))}
        pos, neg = ranks.get(2 * n), ranks.get(2 * n + 1, len(texts))
        if pos is None or pos >= neg:
            failures.append(case["query"])
    assert not failures


@pytest.mark.integration
def test_without_the_rule_negation_cases_fail(tokenizer):
    """The rule is what fixes the cases: with it off, negated texts contain the bare term."""
    plain = make_tokenizer(tokenizer.name, OFF)
    leaks = [c for c in CASES if set(plain.tokenize(c.get("term", c["query"]))) & set(plain.tokenize(c["negative_text"]))]
    assert len(leaks) >= len(CASES) // 3
