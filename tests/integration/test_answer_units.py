"""The offline unit answer with the real default embedder over the bundled sample 약관, and its
figures on the policy_qa dev halves (needs ../shared)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from yakgwan.answer.answerability import AnswerabilityModel
from yakgwan.answer.ask import Asker
from yakgwan.config import Settings
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


def test_a_policy_question_is_answered_with_the_clause_item_and_its_ho(tmp_path: Path) -> None:
    asker = _asker(tmp_path, SAMPLE)
    res = asker.ask("보험금을 청구하려면 어떤 서류를 내야 하나요?")
    assert res.by == "units" and res.outcome == "answered" and res.llm_calls == 0
    first = res.citations[0]
    assert (first.yakgwan, first.article) == ("보통약관", "제5조")
    assert first.quote.startswith("① 보험수익자는 다음의 서류를") and "1. 청구서(회사 양식)" in first.quote
    chunks = {c.chunk_id: c.text for c in asker.ctx.view.chunks}
    assert all(c.quote in chunks[c.chunk_id] for c in res.citations)


def test_policy_qa_dev_halves_with_the_unit_answer(tmp_path: Path) -> None:
    pdf = SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"
    questions = SHARED / "policy_qa" / "questions_dev.jsonl"
    if not pdf.exists() or not questions.exists():
        pytest.skip(f"needs {pdf} and {questions} (the ../shared folder beside the repository)")
    asker = _asker(tmp_path, pdf)
    rows = [json.loads(line) for line in questions.read_text("utf-8").splitlines() if line.strip()]
    good = {"tune": 0, "check": 0}
    for i, r in enumerate(rows):
        if not r["answerable"]:
            continue
        res = asker.ask(r["question"])
        quoted = re.sub(r"\s+", "", " ".join(c.quote for c in res.citations))
        good["tune" if i % 2 == 0 else "check"] += res.outcome == "answered" and all(re.sub(r"\s+", "", k) in quoted for k in r["keywords"])
    # measured 2026-12-02: 8/21 tuning, 6/19 checking on one install, 9/21 and 4/19 on a later fresh
    # install of the same commit (the word-overlap answer: 0 and 0); the guard allows both
    assert good["tune"] >= 7 and good["check"] >= 4 and good["tune"] + good["check"] >= 13, good


def test_the_written_unanswerable_policy_questions_are_refused(tmp_path: Path) -> None:
    pdf = SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"
    if not pdf.exists():
        pytest.skip(f"needs {pdf} (the ../shared folder beside the repository)")
    asker = _asker(tmp_path, pdf)
    chunks = re.sub(r"\s+", "", "".join(c.text for c in asker.ctx.view.chunks))
    rows = [json.loads(line) for line in (REPO / "tests" / "data" / "answers" / "unanswerable_policy.jsonl").read_text("utf-8").splitlines()]
    assert len(rows) == 20 and all(re.sub(r"\s+", "", w) not in chunks for r in rows for w in r["absent"] if r["made_by"] != "absent_article")
    outcomes = {r["id"]: asker.ask(r["question"]).outcome for r in rows}
    assert all(outcomes[r["id"]] == "refused" for r in rows if r["made_by"] == "absent_article")
    # measured 2026-12-02: 16/20 refused (5 structure, 4 by the answerability model, 3 left to the contract, 4 with no figure stated)
    assert sum(o == "refused" for o in outcomes.values()) >= 15, outcomes
