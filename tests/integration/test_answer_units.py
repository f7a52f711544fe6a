"""The offline unit answer with the real default embedder over the bundled sample 약관, and its
figures on the policy_qa dev halves (needs ../shared)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Callable

import pytest

from yakgwan.answer.answerability import AnswerabilityModel
from yakgwan.answer.ask import Asker
from yakgwan.answer.records import AskResult
from yakgwan.config import Settings
from yakgwan.eval.keywords import keyword_recall
from yakgwan.services.context import open_context
from yakgwan.services.ingest import ingest

pytestmark = pytest.mark.integration

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"
SHARED = REPO.parent / "shared" / "data"


def _asker(tmp: Path, corpus: Path) -> Asker:
    s = Settings.from_env().with_(index_dir=tmp / "index", quiet=True)
    ingest(s, [corpus])
    ctx = open_context(s)
    ctx.make_llm = lambda: None
    if AnswerabilityModel.load().embedder != ctx.view.embedder:
        pytest.skip(f"the bundled answerability model was fitted on another embedder than {ctx.view.embedder}")
    return Asker(ctx)


@pytest.fixture(scope="module")
def asker_of(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], Asker]:
    """One asker per corpus for the whole module (indexing the policy or the wiki once)."""
    made: dict[Path, Asker] = {}

    def get(corpus: Path) -> Asker:
        if corpus not in made:
            made[corpus] = _asker(tmp_path_factory.mktemp("index"), corpus)
        return made[corpus]

    return get


def test_a_policy_question_is_answered_with_the_clause_item_and_its_ho(asker_of: Callable[[Path], Asker]) -> None:
    asker = asker_of(SAMPLE)
    res = asker.ask("보험금을 청구하려면 어떤 서류를 내야 하나요?")
    assert res.by == "units" and res.outcome == "answered" and res.llm_calls == 0
    first = res.citations[0]
    assert (first.yakgwan, first.article) == ("보통약관", "제5조")
    assert first.quote.startswith("① 보험수익자는 다음의 서류를") and "1. 청구서(회사 양식)" in first.quote
    chunks = {c.chunk_id: c.text for c in asker.ctx.view.chunks}
    assert all(c.quote in chunks[c.chunk_id] for c in res.citations)


def _halves(asker_of: Callable[[Path], Asker], corpus: Path, questions: Path, good: Callable[[dict, AskResult], bool]) -> dict[str, int]:
    """How many answerable rows of each half (even rows tune, odd rows check) ``good`` accepts."""
    if not corpus.exists() or not questions.exists():
        pytest.skip(f"needs {corpus} and {questions} (the ../shared folder beside the repository)")
    asker = asker_of(corpus)
    rows = [json.loads(line) for line in questions.read_text("utf-8").splitlines() if line.strip()]
    counts = {"tune": 0, "check": 0}
    for i, r in enumerate(rows):
        if r.get("answerable", True):
            counts["tune" if i % 2 == 0 else "check"] += good(r, asker.ask(r["question"]))
    return counts


def test_policy_qa_dev_halves_with_the_unit_answer(asker_of: Callable[[Path], Asker]) -> None:
    def quoted(r: dict, res: AskResult) -> bool:
        text = re.sub(r"\s+", "", " ".join(c.quote for c in res.citations))
        return res.outcome == "answered" and all(re.sub(r"\s+", "", k) in text for k in r["keywords"])

    pdf = SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"
    good = _halves(asker_of, pdf, SHARED / "policy_qa" / "questions_dev.jsonl", quoted)
    # measured 2026-12-03: 14/21 tuning, 9/19 checking (8/21 and 6/19 before units were read
    # with table headers and the model refitted; the word-overlap answer: 0 and 0)
    assert good["tune"] >= 12 and good["check"] >= 7 and good["tune"] + good["check"] >= 20, good


def test_the_written_unanswerable_policy_questions_are_refused(asker_of: Callable[[Path], Asker]) -> None:
    pdf = SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"
    if not pdf.exists():
        pytest.skip(f"needs {pdf} (the ../shared folder beside the repository)")
    asker = asker_of(pdf)
    chunks = re.sub(r"\s+", "", "".join(c.text for c in asker.ctx.view.chunks))
    rows = [json.loads(line) for line in (REPO / "tests" / "data" / "answers" / "unanswerable_policy.jsonl").read_text("utf-8").splitlines()]
    assert len(rows) == 20 and all(re.sub(r"\s+", "", w) not in chunks for r in rows for w in r["absent"] if r["made_by"] != "absent_article")
    results = {r["id"]: asker.ask(r["question"]) for r in rows}
    outcomes = {i: (res.outcome, res.reason) for i, res in results.items()}
    # a 조 the 약관 lacks is answered from the structure: a partial answer, listing the 조 there are
    assert all(outcomes[r["id"]] == ("partial", "no_such_article") for r in rows if r["made_by"] == "absent_article"), outcomes
    # every answer that is not "answered" says why
    assert all(reason for outcome, reason in outcomes.values() if outcome != "answered"), outcomes
    # measured 2026-12-06: 17/20 refused or partial (2026-12-03: 17/20 refused, when a 조 that does
    # not exist and an amount left to the certificate were refusals)
    assert sum(o != "answered" for o, _ in outcomes.values()) >= 16, outcomes


def test_a_wiki_question_is_answered_by_units_with_the_heading_it_sits_under(asker_of: Callable[[Path], Asker]) -> None:
    """Over Markdown pages (not a policy) the unit answer runs too: a list item is quoted with the
    headings above it, which hold the half of the answer the item does not (the year of a dated
    entry). The questions are written for this test, not taken from the dev set."""
    kb = SHARED / "skytravel" / "knowledge_base"
    if not kb.exists():
        pytest.skip(f"needs {kb} (the ../shared folder beside the repository)")
    asker = asker_of(kb)
    res = asker.ask("하늘여행사가 온라인 예약 시스템을 구축한 것은 몇 년인가요?")
    assert res.by == "units" and res.llm_calls == 0 and res.outcome in ("answered", "partial")
    first = res.citations[0]
    assert first.doc == "company/history.md" and "온라인 예약 시스템 구축" in first.quote
    assert "2012년" in (first.heading or "") and "2012년" in res.claims_text and not first.quote.lstrip().startswith("#")
    chunks = {c.chunk_id: c.text for c in asker.ctx.view.chunks}
    assert all(c.quote in chunks[c.chunk_id] for c in res.citations)
    # a question about two named things is still searched side by side and compared by rule
    two = asker.ask("제주 힐링 상품과 베트남 다낭 상품 중 최소 출발 인원이 더 적은 것은?")
    assert two.by == "rules"


def test_skytravel_dev_halves_with_the_unit_answer(asker_of: Callable[[Path], Asker]) -> None:
    """What ``ask`` answers on skytravel dev: ≥ 80% of a row's keywords (spellings of one number
    counted once) in an ``answered`` answer, per half."""
    kb, questions = SHARED / "skytravel" / "knowledge_base", SHARED / "skytravel" / "tests_dev.jsonl"
    good = _halves(asker_of, kb, questions, lambda r, res: res.outcome == "answered" and (keyword_recall(res.claims_text, r["keywords"]) or 0) >= 0.8)
    # measured 2026-12-03: 34/51 tuning, 34/51 checking (the word-overlap answer it replaced: 26 and 29)
    assert good["tune"] >= 31 and good["check"] >= 31, good


def test_with_the_real_local_model_the_unit_decision_gates_it_and_cot_answers_from_units(asker_of: Callable[[Path], Asker], local_llm_8k) -> None:  # type: ignore[no-untyped-def]
    """With the bundled model (``--mode cot``) over the sample 약관: the model reads the best answer
    units, reasons in a scratchpad that is not the answer, and its citations are verbatim; a
    question the calibrated decision refuses never reaches it. Questions written for this test."""
    import dataclasses

    from yakgwan.llm import LLM

    asker = asker_of(SAMPLE)
    llm = LLM(local_llm_8k)  # no response cache: the model's own answers
    cot = Asker(dataclasses.replace(asker.ctx, make_llm=lambda: llm, _llm=None), mode="cot")
    res = cot.ask("보험금을 청구하려면 어떤 서류를 내야 하나요?")
    print(f"\ncot: {res.outcome} {res.answer!r} scratchpad={res.scratchpad!r} {res.notes} ({res.latency_ms / 1000:.0f} s)")
    assert res.mode == "cot" and res.llm_calls >= 1 and any("best units" in n for n in res.note_texts())
    assert res.outcome in ("answered", "partial") and res.citations and res.scratchpad
    assert res.scratchpad not in res.answer
    chunks = {c.chunk_id: c.text for c in asker.ctx.view.chunks}
    assert all(c.quote in chunks[c.chunk_id] for c in res.citations)
    assert any(c.article == "제5조" for c in res.citations)  # 보험금의 청구
    calls = llm.stats.calls
    off = cot.ask("이 회사의 대표이사 연봉은 얼마인가요?")
    print(f"gated: {off.outcome} {off.by} {off.notes}")
    assert off.outcome == "refused" and off.by == "units" and llm.stats.calls == calls


def test_a_which_rider_question_lists_every_rider_whose_coverage_article_pays(asker_of: Callable[[Path], Asker]) -> None:
    """tests/data/answers/which_rider_policy.jsonl, first and seventh rows (tuning half): the list
    names each 특약 with a verbatim quote of its coverage article."""
    pdf = SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"
    if not pdf.exists():
        pytest.skip(f"needs {pdf} (the ../shared folder beside the repository)")
    asker = asker_of(pdf)
    chunks = {c.chunk_id: c.text for c in asker.ctx.view.chunks}
    rows = [json.loads(line) for line in (REPO / "tests" / "data" / "answers" / "which_rider_policy.jsonl").read_text("utf-8").splitlines()]
    for r in (rows[0], rows[6]):
        res = asker.ask(r["question"])
        print(f"\n{r['question']} -> {res.outcome} {[c.yakgwan for c in res.citations]}")
        assert res.by == "units (which 특약)" and res.outcome == "answered", res.notes
        assert {c.yakgwan for c in res.citations} == set(r["riders"])
        assert all(c.quote in chunks[c.chunk_id] and c.article == "제1조" for c in res.citations)
    # a question that names its 특약 is not a which-특약 question
    named = asker.ask("벌금 특별약관은 어떤 것을 보장하나요?")
    assert named.by != "units (which 특약)"
