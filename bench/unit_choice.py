"""Benchmark: which answer units the offline answer quotes, by the choosing rule's weights.

Not a test. For each dev set of ``bench/answerability.py`` (policy_qa dev over the KB policy,
skytravel dev over its knowledge base) it retrieves with the default pipeline (k = 5), scores
the candidate units once (:func:`yakgwan.answer.select.score_units`) and then, for each
setting of :class:`~yakgwan.answer.select.SelectWeights` (``keep`` and ``cover``), counts the
answerable questions whose chosen units, as the answer shows them, hold the row's keywords
(policy_qa: every keyword; skytravel: at least 80%; ``eval --answers``' keyword recall), and
the mean length of what is quoted. The answerability decision is left out: this measures the
choice of units alone. Halves: even rows of each file tune, odd rows check; a setting is kept
only when it helps on the checking half.

Two ceilings are printed under the table, for each set and half: the questions whose keywords
are held by **every** candidate unit quoted together (no choice of units from the first five
hits can do better), and by the whole text of the documents searched (no verbatim quote of any
passage can do better; a figure the documents never print, a sum or a difference, needs a
sentence of its own). The multi gold questions are asked within their document, halved by
insurer as in ``bench/answerability.py``.

    .venv/bin/python bench/unit_choice.py [--work DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
# the same dev sets, halves, indexes and keyword rule as the answerability benchmark
from answerability import _held, each_question  # noqa: E402

from yakgwan.answer.answerability import FEATURES, AnswerabilityModel  # noqa: E402
from yakgwan.answer.extract_units import UnitAnswerer, shown_unit  # noqa: E402
from yakgwan.answer.select import Scored, SelectWeights, chosen, unit_scores  # noqa: E402
from yakgwan.answer.units import Unit  # noqa: E402
from yakgwan.pipelines import build_pipeline  # noqa: E402

SETTINGS = ([SelectWeights(keep=k, cover=0.0) for k in (1, 2, 3, 4)] + [SelectWeights(keep=3, cover=c) for c in (0.05, 0.1, 0.2, 0.3)]
            + [SelectWeights(keep=3, cover=0.1, rank=r, lex=x) for r in (0.0, 0.02, 0.05, 0.1) for x in (0.0, 0.01, 0.02, 0.05, 0.1, 0.25)
               if (r, x) != (0.0, SelectWeights().lex)])  # that one is the default, the keep 3 / cover 0.1 row above


@dataclass
class Question:
    dataset: str
    half: str
    keywords: list[str]
    rule: str
    units: list[Unit]
    scored: Scored
    searched: str  # the text of every document the question was asked over


def collect(work: Path) -> list[Question]:
    out: list[Question] = []
    prepared: dict[int, tuple[Any, UnitAnswerer, str]] = {}
    for name, rule, r, half, ctx in each_question(work):
        if name.endswith("_unanswerable") or not r.get("answerable", "absent" not in r):
            continue
        if id(ctx) not in prepared:
            retriever, _ = build_pipeline("default", ctx)
            unfitted = AnswerabilityModel((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), 0.0, 1.0, 0.0, "unfitted", ctx.view.embedder)
            prepared[id(ctx)] = (retriever, UnitAnswerer(ctx.embedder, ctx.tokenizer, unfitted, lambda q: (1.0, 1.0)), "\n".join(c.text for c in ctx.view.chunks))
        retriever, answerer, searched = prepared[id(ctx)]
        units, scored, _ = answerer.choose(r["question"], retriever.retrieve(r["question"], 5))
        out.append(Question(name, half, r.get("keywords", []), rule, units, scored, searched))
    return out


def measure(questions: list[Question], w: SelectWeights) -> dict[tuple[str, str], tuple[int, int, float]]:
    """(dataset, half) → (questions whose quotes hold the keywords, questions, mean quoted characters)."""
    cells: dict[tuple[str, str], list[tuple[bool, int]]] = {}
    for q in questions:
        score = unit_scores(q.scored.cos, q.scored.lex, np.array([u.rank for u in q.units], dtype=float), w)
        picked = chosen(score, w, q.scored.terms, q.scored.idf)
        shown = [shown_unit(q.units[j]) for j in picked]
        cells.setdefault((q.dataset, q.half), []).append((_held(q.keywords, " ".join(shown), q.rule), sum(map(len, shown))))
    return {k: (sum(h for h, _ in v), len(v), float(np.mean([n for _, n in v]))) for k, v in cells.items()}


def ceilings(questions: list[Question]) -> dict[tuple[str, str], tuple[int, int, int]]:
    """(dataset, half) → (questions whose keywords every candidate unit quoted together holds,
    those the whole text searched holds, questions)."""
    cells: dict[tuple[str, str], list[tuple[bool, bool]]] = {}
    for q in questions:
        every = " ".join(shown_unit(u) for u in q.units)
        cells.setdefault((q.dataset, q.half), []).append((_held(q.keywords, every, q.rule), _held(q.keywords, q.searched, q.rule)))
    return {k: (sum(a for a, _ in v), sum(b for _, b in v), len(v)) for k, v in cells.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", type=Path, help="keep the indexes in this folder between runs (as bench/answerability.py --work)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        questions = collect(args.work or Path(tmp))
    keys = sorted({(q.dataset, q.half) for q in questions}, key=lambda k: (k[0], k[1] != "tune"))
    print("| keep | cover | rank | lex | " + " | ".join(f"{d} {h}" for d, h in keys) + " |")
    print("|---|---|---|---|" + "---|" * len(keys))
    for w in SETTINGS:
        got = measure(questions, w)
        print(f"| {w.keep} | {w.cover} | {w.rank} | {w.lex} | " + " | ".join(f"{got[k][0]}/{got[k][1]} ({got[k][2]:.0f} chars)" for k in keys) + " |")
    print(f"(default: {replace(SelectWeights())})")
    top = ceilings(questions)
    print("\nceilings: | set | every candidate unit quoted | the whole text searched |")
    for k in keys:
        every, whole, n = top[k]
        print(f"| {k[0]} {k[1]} | {every}/{n} = {every / n:.3f} | {whole}/{n} = {whole / n:.3f} |")


if __name__ == "__main__":
    main()
