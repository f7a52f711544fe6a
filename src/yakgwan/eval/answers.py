"""Answer evaluation (``eval --answers``): ask every question, then score the answers.

Deterministic, per pipeline:
- ``answer_rate``: answerable questions answered (``partial_rate`` apart);
- ``refusal_rate``: unanswerable questions refused; ``non_answer_rate`` also counts ``partial``
  (an answer that says the documents lack the point asked);
- ``citation_validity``: citations whose quote is verbatim (whitespace normalised) in the cited
  chunk, checked here against the index, not taken from the answerer;
- ``citation_support``: citations of answerable questions whose document is one of the
  question's source documents; on a clause-level set, whose 약관 and 조 (a table: its page) are
  one of the question's governing units;
- ``keyword_recall``: the share of a question's keywords found in its answer, spellings of one
  number counted once (:mod:`yakgwan.eval.keywords`);
- ``answered_with_keywords`` / ``answered_with_all_keywords``: the share of answerable questions
  with keywords that were ``answered`` with at least 80% / all of their keywords.

LLM-as-judge (optional, ``judge_runs`` > 0): accuracy, completeness and relevance on the seed's
1–5 rubric against the reference answer, run ``judge_runs`` times with different seeds
(temperature ``JUDGE_TEMPERATURE``); reported as the mean over runs and the spread (standard
deviation of the per-run means), with the judge model named.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, Field

from yakgwan.answer.ask import Asker
from yakgwan.answer.records import AskResult
from yakgwan.core.errors import InputError
from yakgwan.eval.clauses import GoverningUnit, Place, matches
from yakgwan.eval.datasets import EvalQuery, in_half
from yakgwan.eval.keywords import keyword_recall
from yakgwan.eval.metrics import latency_summary
from yakgwan.eval.result import AnswersResult, Latency
from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.llm.types import GenParams, Message
from yakgwan.messages import msg

JUDGE_TEMPERATURE = 0.7
JUDGE_KEYS = ("accuracy", "completeness", "relevance")


@dataclass(frozen=True)
class Unanswerable:
    qid: str
    text: str
    made_by: str | None = None


def load_unanswerable(path: Path, half: str | None = None) -> list[Unanswerable]:
    """Questions the knowledge base cannot answer (JSONL with ``question``; ``id``, ``made_by``
    optional); ``half`` keeps the tuning or checking half by the test files' rule
    (:func:`~yakgwan.eval.datasets.in_half`)."""
    if not path.is_file():
        raise InputError(str(path), msg("eval.no_file"))
    out = []
    position = 0
    for i, line in enumerate(path.read_text("utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            item = Unanswerable(str(row.get("id", f"u{i}")), str(row["question"]), row.get("made_by"))
        except (ValueError, KeyError, TypeError) as exc:
            raise InputError(str(path), msg("eval.bad_question_line", line=i, why=str(exc))) from None
        if in_half(position, half):
            out.append(item)
        position += 1
    if not out:
        raise InputError(str(path), msg("eval.no_questions", half=msg("eval.in_half", half=half) if half else ""))
    return out


def citation_checks(res: AskResult, chunk_text: Mapping[str, str], relevant: Mapping[str, int] | None,
                    governing: Sequence[GoverningUnit] = (), places: Mapping[str, Place] | None = None) -> tuple[list[bool], list[bool]]:
    """(verbatim?, supporting?) per citation of an indexed chunk; citations of web results
    (``web:`` chunks, not in the index) are left to ``web_citations``. Supporting: the cited
    chunk's document is one of ``relevant``; for a clause-level question (``governing`` given,
    ``places`` the index's chunks by id), the cited chunk is evidence of a governing unit (same
    약관 and 조, or a table's page: :func:`~yakgwan.eval.clauses.matches`). The second list is
    empty without judgements."""
    indexed = [c for c in res.citations if not c.chunk_id.startswith("web:")]
    valid = [" ".join(c.quote.split()) in " ".join(chunk_text.get(c.chunk_id, "").split()) for c in indexed]
    if governing and places is not None:
        support = [c.chunk_id in places and any(matches(places[c.chunk_id], g) for g in governing) for c in indexed]
    else:
        support = [c.doc in relevant for c in indexed] if relevant else []
    return valid, support


class Judgement(BaseModel):
    accuracy: int = Field(ge=1, le=5)
    completeness: int = Field(ge=1, le=5)
    relevance: int = Field(ge=1, le=5)


JUDGE_SYSTEM = (
    "당신은 답변을 채점하는 평가자입니다. 질문, 모범 답안, 평가할 답변을 읽고 1~5점으로 채점하세요. "
    "accuracy: 모범 답안과 사실이 일치하는 정도(틀린 사실이 있으면 낮게). completeness: 모범 답안의 핵심 내용을 빠짐없이 담은 정도. "
    "relevance: 질문에 직접 답하는 정도. 답변이 '문서에 없다'고 거절했으면 세 항목 모두 1점."
)


def judge_messages(question: str, reference: str, answer: str) -> list[Message]:
    return [Message("system", JUDGE_SYSTEM), Message("user", f"질문: {question}\n모범 답안: {reference}\n평가할 답변: {answer}")]


def judge(llm: LLM, q: EvalQuery, answer: str, run: int) -> dict[str, int] | None:
    """One judgement (seed ``run``); None when the judge's answer is unusable."""
    params = GenParams(max_tokens=48, temperature=JUDGE_TEMPERATURE, seed=run)
    try:
        out = llm.complete(judge_messages(q.text, q.reference_answer or "", answer), schema=Judgement, params=params, step="judge")
    except StructuredOutputError:
        return None
    return out.model_dump()


def judge_summary(per_run: list[list[dict[str, int]]]) -> dict[str, dict[str, float]]:
    """Per key: the mean over runs of each run's mean score, and the spread (population standard
    deviation of those run means; 0 for one run)."""
    out = {}
    for key in JUDGE_KEYS:
        means = [statistics.fmean(j[key] for j in run) for run in per_run if run]
        if means:
            out[key] = {"mean": round(statistics.fmean(means), 4), "spread": round(statistics.pstdev(means), 4), "runs": len(means)}
    return out


def evaluate_answers(
    asker: Asker,
    answerable: Sequence[EvalQuery],
    unanswerable: Sequence[Unanswerable],
    judge_llm: LLM | None,
    judge_runs: int,
    progress: Callable[[int, int], None] | None = None,
) -> AnswersResult:
    """Ask every question with ``asker`` and score the answers (see the module docstring)."""
    chunk_text = {c.chunk_id: c.text for c in asker.ctx.view.chunks}
    places = {c.chunk_id: Place.of(c) for c in asker.ctx.view.chunks} if any(q.governing for q in answerable) else None
    rows: list[dict] = []
    valid: list[bool] = []
    support: list[bool] = []
    total = len(answerable) + len(unanswerable)
    runs: list[list[dict[str, int]]] = [[] for _ in range(judge_runs if judge_llm is not None else 0)]
    failed_judgements = 0
    for i, q in enumerate(answerable, 1):
        res = asker.ask(q.text)
        v, s = citation_checks(res, chunk_text, q.relevant, q.governing, places)
        valid += v
        support += s
        row = {"qid": q.qid, "set": "answerable", "category": q.category, "question": q.text, **res.to_json(),
               "keyword_recall": keyword_recall(res.claims_text, q.keywords)}  # what it states, not what it says is missing
        if runs and q.reference_answer:
            scores = [judge(judge_llm, q, res.answer, r) for r in range(1, len(runs) + 1)]  # type: ignore[arg-type]
            failed_judgements += sum(x is None for x in scores)
            for r, sc in enumerate(scores):
                if sc is not None:
                    runs[r].append(sc)
            row["judge"] = scores
        rows.append(row)
        if progress:
            progress(i, total)
    for j, u in enumerate(unanswerable, len(answerable) + 1):
        res = asker.ask(u.text)
        v, _ = citation_checks(res, chunk_text, None)
        valid += v
        rows.append({"qid": u.qid, "set": "unanswerable", "made_by": u.made_by, "question": u.text, **res.to_json()})
        if progress:
            progress(j, total)
    ans = [r for r in rows if r["set"] == "answerable"]
    un = [r for r in rows if r["set"] == "unanswerable"]
    latency = latency_summary([r["latency_ms"] for r in rows])
    judged = None
    if runs:
        judged = {"model": judge_llm.name, "runs": len(runs), "temperature": JUDGE_TEMPERATURE,  # type: ignore[union-attr]
                  "scores": judge_summary(runs), "failed_judgements": failed_judgements}
    return AnswersResult(
        n_answerable=len(ans),
        n_unanswerable=len(un),
        mode=rows[0]["mode"] if rows else asker.mode,  # what "auto" resolved to
        metrics=answer_metrics(ans, un, valid, support),
        unanswerable_by_kind=unanswerable_by_kind(un),
        latency_ms=Latency(latency["p50"], latency["p95"]),
        llm_calls=sum(r["llm_calls"] for r in rows),
        web_citations=sum(c["chunk_id"].startswith("web:") for r in rows for c in r["citations"]),
        per_question=tuple(rows),
        judge=judged,
    )


def answer_metrics(ans: list[dict], un: list[dict], valid: list[bool], support: list[bool]) -> dict[str, float | None]:
    """The rates over the answerable rows ``ans`` and the unanswerable rows ``un``, and the
    share of valid and supporting citations."""
    recalls = [r["keyword_recall"] for r in ans if r["keyword_recall"] is not None]
    with_kw = [r for r in ans if r["keyword_recall"] is not None]
    return {
        "answer_rate": _share(ans, "answered"),
        "answered_with_keywords": _answered_holding(with_kw, 0.8),
        "answered_with_all_keywords": _answered_holding(with_kw, 1.0),
        "partial_rate": _share(ans, "partial"),
        "refusal_rate": _share(un, "refused"),
        "non_answer_rate": (sum(r["outcome"] in ("refused", "partial") for r in un) / len(un)) if un else None,
        "citation_validity": sum(valid) / len(valid) if valid else None,
        "citation_support": sum(support) / len(support) if support else None,
        "keyword_recall": statistics.fmean(recalls) if recalls else None,
    }


def unanswerable_by_kind(un: list[dict]) -> dict[str, dict[str, int]]:
    """Per way an unanswerable question was made: how many, refused, partial, refused by anchor."""
    by_made = {}
    for kind in sorted({r.get("made_by") or "?" for r in un}):
        part = [r for r in un if (r.get("made_by") or "?") == kind]
        by_made[kind] = {"n": len(part), "refused": sum(r["outcome"] == "refused" for r in part), "partial": sum(r["outcome"] == "partial" for r in part),
                         "refused_by_anchor": sum(bool(r["missing"]) for r in part)}
    return by_made


def _answered_holding(rows: list[dict], share: float) -> float | None:
    """The share of ``rows`` answered (outcome ``answered``) with at least ``share`` of their
    keywords in the answer; None without rows."""
    return sum(r["outcome"] == "answered" and r["keyword_recall"] >= share - 1e-9 for r in rows) / len(rows) if rows else None


def _share(rows: list[dict], outcome: str) -> float | None:
    return sum(r["outcome"] == outcome for r in rows) / len(rows) if rows else None
