"""Pure functions over eval results (:class:`~yakgwan.eval.result.EvalResult`): which results
make the rows of a table, and the comparisons the report states — per-category deltas against
the default pipeline, and each technique's recall against plain hybrid retrieval."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from yakgwan.eval.result import EvalResult

# the retrieval-only first stages (``first_stage`` in ``yakgwan.pipelines``): what techniques are measured against
FIRST_STAGES = ("bm25", "dense", "hybrid", "hybrid_cc", "clause", "route", "auto")
RECALL_FLOOR_BASE = "hybrid"
RECALL_FLOOR_MARGIN = 0.02


def num(value: object) -> float | None:
    """A finite float, or None for missing, non-numeric or non-finite values."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def value_at(m: Mapping | None, *path: str) -> object:
    """The value at ``path`` in nested mappings (a result's LLM usage, its answers), None where
    a level is missing."""
    cur: object = m
    for key in path:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(key)
    return cur


def llm_model(r: EvalResult) -> str | None:
    """The LLM the pipeline called, None without one."""
    return r.llm.get("model") if r.llm else None


def run_key(result: EvalResult) -> tuple[object, ...]:
    """What one row of the table stands for: the pipeline, its LLM, and for an answers run the
    answer mode and its LLM (a run of the same pipeline that also answered is another row)."""
    answers = result.answers
    return (result.pipeline, llm_model(result) or "no LLM",
            f"answers {answers.mode} by {value_at(answers.llm, 'model') or 'rules'}" if answers is not None else "retrieval")


def retrieval_rows(results: Sequence[EvalResult]) -> list[EvalResult]:
    """One row per pipeline and LLM for the retrieval tables: the retrieval run, else an answers
    run of that pipeline (its retrieval metrics are the same)."""
    plain = {r.pipeline for r in results if not r.answers}
    seen: set[object] = set()
    out = []
    for r in results:
        if (r.answers and r.pipeline in plain) or run_key(r)[:2] in seen:
            continue
        seen.add(run_key(r)[:2])
        out.append(r)
    return out


def row_label(r: EvalResult) -> str:
    """A row's name: the pipeline, and for an answers run its mode ("hybrid_cc · answers (generate)")."""
    return f"{r.pipeline} · answers ({r.answers.mode or '?'})" if r.answers is not None else r.pipeline


@dataclass(frozen=True)
class CategoryDeltas:
    """Each pipeline's ``metric`` per category minus the baseline's (None where either is missing)."""

    base: EvalResult
    categories: list[str]
    rows: list[tuple[EvalResult, list[float | None]]]


def category_deltas(results: Sequence[EvalResult], metric: str) -> CategoryDeltas | None:
    """Per category, each result's ``metric`` minus the baseline's (``hybrid_cc`` when present,
    else the first result with categories): where a technique helps or hurts. None with fewer
    than two results with categories."""
    with_cats = [r for r in results if r.by_category]
    if len(with_cats) < 2:
        return None
    base = next((r for r in with_cats if r.pipeline == "hybrid_cc"), with_cats[0])
    cats = sorted(base.by_category or {})
    rows = []
    for r in with_cats:
        if r is base:
            continue
        pairs = [(num(value_at(r.by_category, c, metric)), num(value_at(base.by_category, c, metric))) for c in cats]
        rows.append((r, [None if v is None or b is None else v - b for v, b in pairs]))
    return CategoryDeltas(base, cats, rows)


@dataclass(frozen=True)
class RecallFloor:
    """Each technique's overall recall minus the plain ``base`` pipeline's, rounded to the 4
    decimals shown, lowest first; ``below`` are those more than ``margin`` under it (a technique
    must not lose recall against plain hybrid retrieval). ``other_sets`` counts results of
    another dataset, n or k, left out."""

    base: EvalResult
    margin: float
    rows: list[tuple[EvalResult, float]]
    other_sets: int = 0

    @property
    def below(self) -> list[tuple[EvalResult, float]]:
        return [(r, d) for r, d in self.rows if d < -self.margin]


def recall_floor(results: Sequence[EvalResult], base: str = RECALL_FLOOR_BASE, margin: float = RECALL_FLOOR_MARGIN) -> RecallFloor | None:
    """:class:`RecallFloor` of the techniques in ``results`` (every pipeline but the first
    stages) against the retrieval run named ``base`` (else its answers run); None when there is
    no such run with a recall. Differences are rounded to 4 decimals before the comparison, so
    that the verdict agrees with the figures printed."""
    recall = [(r, v) for r in results if (v := num(r.metrics.get("recall"))) is not None]
    bases = sorted((x for x in recall if x[0].pipeline == base), key=lambda x: bool(x[0].answers))
    if not bases:
        return None
    ref, ref_recall = bases[0]
    same = [(r, v) for r, v in recall if (r.dataset, r.n, r.k) == (ref.dataset, ref.n, ref.k)]
    techniques = [(r, v) for r, v in same if r.pipeline not in FIRST_STAGES]
    rows = sorted(((r, round(v - ref_recall, 4)) for r, v in techniques), key=lambda x: x[1])
    return RecallFloor(ref, margin, rows, other_sets=len(recall) - len(same))


def _names(rows: Sequence[tuple[EvalResult, float]]) -> dict[int, str]:
    """Each row's pipeline, with its LLM where two rows share a pipeline."""
    counts: dict[str, int] = {}
    for r, _ in rows:
        counts[r.pipeline] = counts.get(r.pipeline, 0) + 1
    return {id(r): f"{r.pipeline} ({llm_model(r) or 'no LLM'})" if counts[r.pipeline] > 1 else r.pipeline for r, _ in rows}


def recall_floor_text(results: Sequence[EvalResult]) -> str:
    """One sentence on :func:`recall_floor`: the base's overall recall, the lowest technique,
    and every technique more than the margin below (or that none is). Empty when there is no
    plain hybrid run with a recall, or no technique beside it."""
    f = recall_floor(results)
    if f is None or not f.rows:
        return ""
    name = _names(f.rows)
    low, d = f.rows[0]
    text = (f"Overall Recall@{f.base.k if f.base.k is not None else '?'} of each technique against plain {f.base.pipeline} "
            f"({f.base.metrics['recall']:.4f}): the lowest is {name[id(low)]} ({d:+.4f}); ")
    if f.below:
        text += f"more than {f.margin:.2f} below: " + ", ".join(f"{name[id(r)]} ({x:+.4f})" for r, x in f.below) + "."
    else:
        text += f"none is more than {f.margin:.2f} below."
    if f.other_sets:
        text += f" {f.other_sets} result(s) of another test set or k left out."
    return text
