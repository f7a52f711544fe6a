"""The answer rules by name: a RuleSet parses and validates names against the registry, every rule
names a function that exists, and switching one rule off changes the outcome of a small case
that it decides, while all rules on give the answer of the default (today's) answerers."""

from __future__ import annotations

import dataclasses
import importlib
from typing import Any

import pytest

from yakgwan.core.errors import InputError

from yakgwan.answer.anchors import Anchor, AnchorFinder
from yakgwan.answer.compare import side_queries
from yakgwan.answer.extract import ExtractiveAnswerer
from yakgwan.answer.generate import GenerativeAnswerer, claim_problems
from yakgwan.answer.ko_rules import RULES, RuleSet
from yakgwan.answer.ko_rules.point import point_nouns
from yakgwan.answer.records import Generated, Sentence
from yakgwan.core.errors import UnknownName
from yakgwan.core.records import Chunk
from yakgwan.llm import LLM
from yakgwan.llm.scripted import ScriptedProvider
from yakgwan.text.registry import make_tokenizer

_FINDER = AnchorFinder()


def _problems_en(*args: Any) -> dict[int, str]:
    """claim_problems, each problem in English."""
    return {i: said.text("en") for i, said in claim_problems(*args).items()}


def _terms(text: str, verbal: bool = False) -> list[Anchor]:
    return _FINDER.terms(text, verbal)


def _sentences(*texts: str, title: str = "t", section: str | None = None) -> list[Sentence]:
    text = "\n".join(texts)
    chunk = Chunk("c", "d.md", "d.md", title, text, 0, len(text), section=section)
    return [Sentence(str(i), chunk, t) for i, t in enumerate(texts, 1)]


def _shape(done: Generated) -> tuple[Any, ...]:
    return done.outcome, done.answer, [dataclasses.astuple(c) for c in done.citations], done.notes, done.quoted, done.computed


@pytest.mark.unit
def test_a_rule_set_parses_names_and_changes() -> None:
    every = RuleSet.all()
    assert every.enabled == frozenset(RULES.names()) and RuleSet.parse("all") == every and every.spec() == "all"
    assert RuleSet.parse("none") == RuleSet.none() and not RuleSet.none().on("compare") and RuleSet.none().spec() == "none"
    assert RuleSet.parse("compare, titles").enabled == {"compare", "titles"}  # names alone: only those
    off = RuleSet.parse("all,-compare")
    assert not off.on("compare") and off.on("titles") and off == every.without("compare") == RuleSet.parse("-compare")
    assert RuleSet.parse(off.spec()) == off and off.spec() == "all,-compare"
    assert RuleSet.parse("none,compare,+titles").enabled == {"compare", "titles"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        off.enabled = frozenset()  # type: ignore[misc]


@pytest.mark.unit
def test_an_unknown_rule_name_lists_the_registered_ones() -> None:
    with pytest.raises(UnknownName) as caught:
        RuleSet.parse("all,-comparee")
    message = str(caught.value)
    assert message.startswith("unknown answer rule 'comparee'; available: ") and all(name in message for name in RULES.names())
    with pytest.raises(UnknownName, match="unknown answer rule 'nope'"):
        RuleSet.all().on("nope")
    with pytest.raises(UnknownName):
        RuleSet(frozenset({"nope"}))
    for bad in ("", " ", "all,,compare"):
        with pytest.raises(InputError, match="answer rules"):
            RuleSet.parse(bad)


@pytest.mark.unit
def test_every_rule_names_a_function_that_exists() -> None:
    for name, rule in RULES.items():
        module, attr = _split(rule.where)
        target: Any = importlib.import_module(module)
        for part in attr.split("."):
            target = getattr(target, part)
        assert callable(target), name
        assert rule.line().startswith(f"{name}: ")


def _split(where: str) -> tuple[str, str]:
    """(module, attribute path) of a dotted name, the module being the longest importable prefix."""
    parts = where.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return ".".join(parts[:cut]), ".".join(parts[cut:])
    raise AssertionError(f"{where}: no module")


def _pay() -> list[Sentence]:
    return _sentences("| 이름 | 직책 | 연봉 |", "|---|---|---|", "| 권나라 | 팀장 | 52,000,000원 |", "| 송민지 | 대리 | 41,000,000원 |", title="급여 현황")


@pytest.mark.unit
def test_compare_off_leaves_a_choice_to_the_ordinary_answer() -> None:
    question, pay = "권나라와 송민지 중 누가 더 높은 연봉을 받나요?", _pay()
    tokenizer = make_tokenizer("kiwi")
    by_rule = ExtractiveAnswerer(None, tokenizer, terms=_terms, rules=RuleSet.all()).answer(question, pay)
    assert _shape(by_rule) == _shape(ExtractiveAnswerer(None, tokenizer, terms=_terms).answer(question, pay))
    assert by_rule.computed and by_rule.answer.endswith("권나라 쪽이 더 높습니다 (52,000,000원 > 41,000,000원).")
    plain = ExtractiveAnswerer(None, tokenizer, terms=_terms, rules=RuleSet.parse("all,-compare")).answer(question, pay)
    assert plain.outcome == "partial" and not plain.computed and "쪽이 더" not in plain.answer
    # the side searches are their own rule
    assert side_queries(question, _terms) == side_queries(question, _terms, RuleSet.parse("all,-compare")) != []
    assert side_queries(question, _terms, RuleSet.parse("all,-side_search")) == []


@pytest.mark.unit
def test_unknown_terms_off_keeps_a_claim_naming_what_no_document_says() -> None:
    sentences = _sentences("- 옵션 가격: 80,000원")
    provider = ScriptedProvider(responder=lambda m, s: {"outcome": "answered", "claims": [{"text": "드론 촬영 옵션 가격은 80,000원입니다.", "cite": ["1"]}], "missing": ""})

    def unknown(text: str) -> list[str]:
        return ["드론"] if "드론" in text else []

    def answer(rules: RuleSet | None) -> Generated:
        extra = {} if rules is None else {"rules": rules}
        return GenerativeAnswerer(LLM(provider), unknown, _terms, **extra).answer("드론 촬영 옵션 가격은 얼마인가요?", sentences)

    checked = answer(RuleSet.all())
    assert _shape(checked) == _shape(answer(None))
    assert checked.outcome == "refused" and any("names 드론, which no document mentions" in n for n in checked.note_texts())
    kept = answer(RuleSet.parse("all,-unknown_terms"))
    assert kept.outcome == "answered" and kept.answer == "드론 촬영 옵션 가격은 80,000원입니다. [1]"


@pytest.mark.unit
def test_point_sentence_off_answers_by_word_overlap_alone() -> None:
    sentences = _sentences("- 총 직원 수: 45명", "- 본사 직원은 모두 정규직입니다.")
    tokenizer = make_tokenizer("kiwi")
    question = "부산 지사의 직원 수는 몇 명인가요?"  # no sentence names 부산 지사
    strict = ExtractiveAnswerer(None, tokenizer, terms=_terms, rules=RuleSet.all()).answer(question, sentences)
    assert _shape(strict) == _shape(ExtractiveAnswerer(None, tokenizer, terms=_terms).answer(question, sentences))
    assert strict.outcome == "partial"
    loose = ExtractiveAnswerer(None, tokenizer, terms=_terms, rules=RuleSet.parse("all,-point_sentence")).answer(question, sentences)
    assert loose.outcome == "answered" and "45명" in loose.answer


@pytest.mark.unit
def test_titles_and_arithmetic_off() -> None:
    point = "박민수 COO의 연봉"
    assert "COO" not in point_nouns(point, _terms) and point_nouns(point, _terms) == point_nouns(point, _terms, RuleSet.all())
    assert "COO" in point_nouns(point, _terms, RuleSet.parse("all,-titles"))
    by = {s.number: s for s in _sentences("김하늘 대표 연봉: 240,000,000원", "박민수 COO 연봉: 180,000,000원")}
    claim = [{"text": "연봉 차이는 60,000,000원입니다.", "cite": ["1", "2"]}]
    assert _problems_en(claim, by) == _problems_en(claim, by, None, RuleSet.all()) == {}
    assert _problems_en(claim, by, None, RuleSet.parse("all,-arithmetic")) == {1: "claim 1 states 60,000,000, which its cited sentences do not contain"}


@pytest.mark.unit
def test_the_cli_switches_rules_off_by_name_and_names_them_on_a_typo(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import os
    import subprocess
    import sys

    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "a.md").write_text("# 회사\n\n하늘여행사의 대표는 김하늘입니다.\n", "utf-8")
    env = dict(os.environ, YAKGWAN_INDEX=str(tmp_path / "i"), YAKGWAN_CACHE_DIR=str(tmp_path / "c"), YAKGWAN_EMBEDDER="hashing")
    env.pop("YAKGWAN_LLM", None)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "yakgwan.cli", *args, "--quiet"], env=env, capture_output=True, text=True, timeout=300)

    assert cli("ingest", str(kb)).returncode == 0
    # a year no document contains: the anchors rule refuses before retrieval; without it, retrieval runs
    on = json.loads(cli("ask", "2031년 대표는 누구인가요?", "--json").stdout)
    off = json.loads(cli("ask", "2031년 대표는 누구인가요?", "--json", "--rules", "all,-anchors").stdout)
    assert on["outcome"] == "refused" and on["missing"]
    assert not off["missing"]
    bad = cli("ask", "대표는 누구인가요?", "--rules", "all,-anchorz")
    assert bad.returncode == 2 and "unknown answer rule 'anchorz'; available:" in bad.stderr and "anchors" in bad.stderr
    assert "Traceback" not in bad.stderr
    tests = tmp_path / "t.jsonl"
    tests.write_text(json.dumps({"question": "대표는 누구인가요?", "keywords": ["김하늘"], "category": "direct_fact", "source_docs": ["a.md"]}, ensure_ascii=False) + "\n", "utf-8")
    alone = cli("eval", "--corpus", str(kb), "--tests", str(tests), "--rules", "none")
    assert alone.returncode == 2 and "--rules is used with --answers" in alone.stderr
    answered = cli("eval", "--corpus", str(kb), "--tests", str(tests), "--answers", "--rules", "all,-anchors", "--json", str(tmp_path / "r.json"))
    assert answered.returncode == 0, answered.stderr
    assert json.loads((tmp_path / "r.json").read_text("utf-8"))[0]["answers"]["rules"] == "all,-anchors"


@pytest.mark.unit
def test_every_rule_is_documented() -> None:
    from pathlib import Path

    from yakgwan.answer.ko_rules.ruleset import RULES

    page = (Path(__file__).resolve().parents[3] / "docs" / "answers.md").read_text("utf-8")
    assert [n for n in RULES.names() if f"| `{n}` |" not in page] == [], "add the rule to the table in docs/answers.md"


def test_the_found_share_counts_what_a_question_is_about_not_when_it_asks() -> None:
    """Question words and time nouns (며칠, 작년, 지금, 열흘) say when or ask; a document need not
    print them. A lay word the thesaurus maps to a clause word counts as found. Hand-written."""
    from yakgwan.answer.anchors import found_share, normalise, subject_terms

    def a(*forms: str) -> list[Anchor]:
        return [Anchor(f, "NNG") for f in forms]

    assert subject_terms(a("작년", "보험금", "며칠", "지금", "열흘", "청구서류")) == ["보험금", "청구서류"]
    corpus = normalise("회사는 보험금 청구서류를 접수한 날부터 3영업일 이내에 보험금을 지급합니다.")
    assert found_share(a("작년", "보험금", "며칠", "청구서류"), corpus) == 1.0
    assert found_share(a("보험금", "병원비"), corpus) == 0.5
    # a thesaurus that maps 병원비 to a clause word the documents print
    assert found_share(a("보험금", "병원비"), corpus, lambda form: ("보험금",) if form == "병원비" else ()) == 1.0
    assert found_share(a("며칠", "언제"), corpus) == 1.0  # nothing asked about: nothing missing


def test_the_asked_phrase_is_the_noun_run_before_the_question_word_or_the_ending() -> None:
    """Hand-tagged tokens (Kiwi's tags), the questions invented: the nouns joined by 의 or a
    suffix just before the question word; with none, just before the ending; nouns that only name
    the kind of answer (차이, 기간) and a verbal noun (설명하면) are not what is asked about."""
    from yakgwan.answer.anchors import asked_phrase
    from yakgwan.text.tokenizer import Morph

    def tags(*pairs: str) -> list[Morph]:
        return [Morph(p.split("/")[0], p.split("/")[1], 0, 0) for p in pairs]

    forms = lambda toks: [a.form for a in asked_phrase(toks)]  # noqa: E731
    # 회사 직원의 퇴직연금은 얼마인가요?
    assert forms(tags("회사/NNG", "직원/NNG", "의/JKG", "퇴직연금/NNG", "은/JX", "얼마/NNG", "이/VCP", "ᆫ가요/EF", "?/SF")) == ["회사", "직원", "퇴직연금"]
    # 이 상품에 골프 특약이 있나요? (no question word: the run before the ending; 상품에 is not in it)
    assert forms(tags("이/MM", "상품/NNG", "에/JKB", "골프/NNG", "특약/NNG", "이/JKS", "있/VA", "나요/EF", "?/SF")) == ["골프", "특약"]
    # 신형 모델의 무게 차이는 얼마인가요? (차이 names the operation, not a thing)
    assert forms(tags("신형/NNG", "모델/NNG", "의/JKG", "무게/NNG", "차이/NNG", "는/JX", "얼마/NNG", "이/VCP", "ᆫ가요/EF")) == ["신형", "모델", "무게"]
    # 가입 기간은 몇 년인가요? (기간 names the kind of number)
    assert forms(tags("가입/NNG", "기간/NNG", "은/JX", "몇/NR", "년/NNB", "이/VCP", "ᆫ가/EF", "요/JX", "?/SF")) == ["가입"]
    # 주차장 위치를 설명하면? (the verbal noun is the predicate: nothing named before it stands in the run)
    assert forms(tags("주차장/NNG", "위치/NNG", "를/JKO", "설명/NNG", "하/XSV", "면/EC", "?/SF")) == []
    # 언제까지 청구하면 되나요? (the question word comes first: nothing before it)
    assert forms(tags("언제/NP", "까지/JX", "청구/NNG", "하/XSV", "면/EC", "되/VV", "나요/EF", "?/SF")) == []
    # 보험금은 어떻게 받나요? (어떻게 is 어떻/VA-I to Kiwi: a question word, irregular mark and all)
    assert forms(tags("보험금/NNG", "은/JX", "어떻/VA-I", "게/EC", "받/VV-R", "나요/EF", "?/SF")) == ["보험금"]
    # 보험료는 얼마나 올라요? / 환급금은 언제쯤 들어와요? (a question word with 나 or 쯤 grown onto it)
    assert forms(tags("보험료/NNG", "는/JX", "얼마나/MAG", "오르/VV", "어요/EF", "?/SF")) == ["보험료"]
    assert forms(tags("환급금/NNG", "은/JX", "언제쯤/NNG", "들어오/VV", "어요/EF", "?/SF")) == ["환급금"]
    # 사진 왜곡 보정 비용은 얼마인가요? (왜곡 starts like 왜 but is no question word)
    assert forms(tags("사진/NNG", "왜곡/NNG", "보정/NNG", "비용/NNG", "은/JX", "얼마/NNG", "이/VCP", "ᆫ가요/EF")) == ["사진", "왜곡", "보정", "비용"]
    # the gap: four tokens between the noun and the question word are read, five are not
    assert forms(tags("보험료/NNG", "를/JKO", "내/VV", "고/EC", "나/VX", "얼마/NNG", "이/VCP", "ᆫ가요/EF")) == ["보험료"]
    assert forms(tags("보험료/NNG", "를/JKO", "내/VV", "고/EC", "나/VX", "면/EC", "얼마/NNG", "이/VCP", "ᆫ가요/EF")) == []
    # … a run goes on through 의 (a one-letter noun, 돈, is not kept) …
    assert forms(tags("가족/NNG", "의/JKG", "돈/NNG", "을/JKO", "받/VV", "으면/EC", "얼마/NNG")) == ["가족"]
    # … but a 의 five tokens away does not stretch the gap to the noun before it
    assert forms(tags("가족/NNG", "의/JKG", "은/JX", "받/VV", "으면/EC", "나/VX", "얼마/NNG")) == []


def test_the_asked_phrase_with_the_real_tagger() -> None:
    """Kiwi, on questions written for this test."""
    assert [a.form for a in _FINDER.asked("환자의 간병인 비용은 누가 내나요?")] == ["환자", "간병인", "비용"]
    assert [a.form for a in _FINDER.asked("수영장 이용료도 나오나요?")] == ["수영장", "이용료"]
    assert [a.form for a in _FINDER.asked("입원비 청구는 언제까지 하면 되나요?")] == ["입원비", "청구"]
    assert [a.form for a in _FINDER.asked("보험금은 어떻게 받나요?")] == ["보험금"]
