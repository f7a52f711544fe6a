"""Pure functions over ``eval --json`` results (plain mappings): reading values, which results
make the rows of a table, and the comparisons the report states — per-category deltas against
the default pipeline, and each technique's recall against plain hybrid retrieval."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# the retrieval-only first stages (``first_stage`` in ``yakgwan.pipelines``): what techniques are measured against
FIRST_STAGES = ("bm25", "dense", "hybrid", "hybrid_cc")
RECALL_FLOOR_BASE = "hybrid"
RECALL_FLOOR_MARGIN = 0.02
SET_KEYS = ("dataset", "n", "k")


def num(value: object) -> float | None:
    """A finite float, or None for missing, non-numeric or non-finite values."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def value_at(r: Mapping, *path: str) -> object:
    cur: object = r
    for key in path:
        if not isinstance(cur, Mapping):
            return None
        cur = cur.get(key)
    return cur


def run_key(result: Mapping) -> tuple[object, ...]:
    """What one row of the table stands for: the pipeline, its LLM, and for an answers run the
    answer mode and its LLM (a run of the same pipeline that also answered is another row)."""
    answers = result.get("answers") if isinstance(result.get("answers"), Mapping) else None
    return (result.get("pipeline", "?"), value_at(result, "llm", "model") or "no LLM",
            f"answers {answers.get('mode')} by {value_at(answers, 'llm', 'model') or 'rules'}" if answers else "retrieval")


def retrieval_rows(results: Sequence[Mapping]) -> list[Mapping]:
    """One row per pipeline and LLM for the retrieval tables: the retrieval run, else an answers
    run of that pipeline (its retrieval metrics are the same)."""
    plain = {r.get("pipeline") for r in results if not r.get("answers")}
    seen: set[object] = set()
    out = []
    for r in results:
        if (r.get("answers") and r.get("pipeline") in plain) or run_key(r)[:2] in seen:
            continue
        seen.add(run_key(r)[:2])
        out.append(r)
    return out


def row_label(r: Mapping) -> str:
    """A row's name: the pipeline, and for an answers run its mode ("hybrid_cc · answers (generate)")."""
    answers = r.get("answers")
    return f"{r.get('pipeline', '?')} · answers ({answers.get('mode', '?')})" if isinstance(answers, Mapping) else str(r.get("pipeline", "?"))


@dataclass(frozen=True)
class CategoryDeltas:
    """Each pipeline's ``metric`` per category minus the baseline's (None where either is missing)."""

    base: Mapping
    categories: list[str]
    rows: list[tuple[Mapping, list[float | None]]]


def category_deltas(results: Sequence[Mapping], metric: str) -> CategoryDeltas | None:
    """Per category, each result's ``metric`` minus the baseline's (``hybrid_cc`` when present,
    else the first result with categories): where a technique helps or hurts. None with fewer
    than two results with categories."""
    with_cats = [r for r in results if isinstance(r.get("by_category"), Mapping) and r.get("by_category")]
    if len(with_cats) < 2:
        return None
    base = next((r for r in with_cats if r.get("pipeline") == "hybrid_cc"), with_cats[0])
    cats = sorted(base["by_category"])
    rows = []
    for r in with_cats:
        if r is base:
            continue
        pairs = [(num(value_at(r, "by_category", c, metric)), num(value_at(base, "by_category", c, metric))) for c in cats]
        rows.append((r, [None if v is None or b is None else v - b for v, b in pairs]))
    return CategoryDeltas(base, cats, rows)


@dataclass(frozen=True)
class RecallFloor:
    """Each technique's overall recall minus the plain ``base`` pipeline's, rounded to the 4
    decimals shown, lowest first; ``below`` are those more than ``margin`` under it (a technique
    must not lose recall against plain hybrid retrieval). ``other_sets`` counts results of
    another dataset, n or k, left out."""

    base: Mapping
    margin: float
    rows: list[tuple[Mapping, float]]
    other_sets: int = 0

    @property
    def below(self) -> list[tuple[Mapping, float]]:
        return [(r, d) for r, d in self.rows if d < -self.margin]


def recall_floor(results: Sequence[Mapping], base: str = RECALL_FLOOR_BASE, margin: float = RECALL_FLOOR_MARGIN) -> RecallFloor | None:
    """:class:`RecallFloor` of the techniques in ``results`` (every pipeline but the first
    stages) against the retrieval run named ``base`` (else its answers run); None when there is
    no such run with a recall. Differences are rounded to 4 decimals before the comparison, so
    that the verdict agrees with the figures printed."""
    recall = [(r, v) for r in results if (v := num(value_at(r, "metrics", "recall"))) is not None]
    bases = sorted((x for x in recall if x[0].get("pipeline") == base), key=lambda x: bool(x[0].get("answers")))
    if not bases:
        return None
    ref, ref_recall = bases[0]
    same = [(r, v) for r, v in recall if all(r.get(key) == ref.get(key) for key in SET_KEYS)]
    techniques = [(r, v) for r, v in same if r.get("pipeline") not in FIRST_STAGES]
    rows = sorted(((r, round(v - ref_recall, 4)) for r, v in techniques), key=lambda x: x[1])
    return RecallFloor(ref, margin, rows, other_sets=len(recall) - len(same))


def _names(rows: Sequence[tuple[Mapping, float]]) -> dict[int, str]:
    """Each row's pipeline, with its LLM where two rows share a pipeline."""
    counts: dict[object, int] = {}
    for r, _ in rows:
        counts[r.get("pipeline")] = counts.get(r.get("pipeline"), 0) + 1
    return {id(r): f"{r.get('pipeline')} ({value_at(r, 'llm', 'model') or 'no LLM'})" if counts[r.get("pipeline")] > 1 else str(r.get("pipeline"))
            for r, _ in rows}


def recall_floor_text(results: Sequence[Mapping]) -> str:
    """One sentence on :func:`recall_floor`: the base's overall recall, the lowest technique,
    and every technique more than the margin below (or that none is). Empty when there is no
    plain hybrid run with a recall, or no technique beside it."""
    f = recall_floor(results)
    if f is None or not f.rows:
        return ""
    name = _names(f.rows)
    low, d = f.rows[0]
    text = (f"Overall Recall@{f.base.get('k', '?')} of each technique against plain {f.base.get('pipeline')} "
            f"({value_at(f.base, 'metrics', 'recall'):.4f}): the lowest is {name[id(low)]} ({d:+.4f}); ")
    if f.below:
        text += f"more than {f.margin:.2f} below: " + ", ".join(f"{name[id(r)]} ({x:+.4f})" for r, x in f.below) + "."
    else:
        text += f"none is more than {f.margin:.2f} below."
    if f.other_sets:
        text += f" {f.other_sets} result(s) of another test set or k left out."
    return text
