"""Scoring answer units against the question: the bundled embedder and the lexical match together.

For unit *u* from the hit ranked *r*::

    s(u) = cos(q, u) + w_lex · lex(q, u) + w_rank / r

``cos``: the embedder's cosine between the question (as a query) and the unit read with its
heading (약관 · 조 · 항, or the page's section path) as a passage; ``lex``: the share of the
question's idf mass that the unit and its heading carry, idf taken over the candidate units (a
term every unit shares weighs little); ``1 / r``: the retrieval's own order, so that a unit of
the clause retrieval ranked first wins a near tie. The maths is pure; the embedder and
tokenizer are passed in.

Choosing: the best unit first; then, while fewer than ``keep`` are chosen, the unit (within
``margin`` of the best) with the highest ``s(u) + w_cover · new(u)``, where ``new(u)`` is the
share of the question's idf mass that ``u`` carries and no chosen unit does yet. A question
that asks two things ("61–90일 구간 및 91일 이후") gets a unit for each rather than two near
copies of the first.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from yakgwan.answer.units import Unit
from yakgwan.core.protocols import Embedder
from yakgwan.retrieval.clause_map import lucene_idf
from yakgwan.text.tokenizer import Tokenizer


@dataclass(frozen=True)
class SelectWeights:
    # the cosines of one question's units lie within a few hundredths of each other, so the word
    # share counts at that scale: on the tuning halves (bench/unit_choice.py's measure, quoted
    # units alone) lex 0 / 0.02 / 0.05 / 0.1 / 0.25 gave skytravel 30/31/30/29/29 of 51, policy_qa
    # 16 of 21 and the multi documents 11 or 12 of 15 throughout; 0.02 on the checking halves:
    # skytravel 32/51 against 30/51, policy_qa 15/19 and multi 16/30 unchanged (2026-12-07; an
    # earlier grid of 0.25/0.5/1 lost on the policy). The retrieval rank did not help (0)
    lex: float = 0.02
    rank: float = 0.0
    keep: int = 3  # units quoted at most
    margin: float = 0.15  # a further unit only when it scores within this of the best
    # weight of the question's idf mass a further unit adds to the chosen ones (the choosing
    # rule, module docstring): on the same tuning halves 0.05/0.1/0.2/0.3 gave policy 14/15/14/14
    # of 21 and skytravel 28/29/28/28 of 51 (0: 15 and 29); on the checking halves 0.1 gave
    # 11/19 and 29/51 against 9/19 and 28/51 without it (bench/unit_choice.py)
    cover: float = 0.1

    def __post_init__(self) -> None:
        if self.lex < 0 or self.rank < 0 or self.margin < 0 or self.keep < 1 or self.cover < 0:
            raise ValueError(f"SelectWeights needs lex, rank, margin, cover >= 0 and keep >= 1, got {self}")


@dataclass(frozen=True)
class Scored:
    """Each unit's score parts, in the order of the units given."""

    cos: np.ndarray
    lex: np.ndarray
    score: np.ndarray
    idf: dict[str, float]  # the question's terms, weighted over the units
    terms: tuple[set[str], ...]  # each unit's terms (heading included)


def idf_weights(query_terms: Sequence[str], unit_terms: Sequence[set[str]]) -> dict[str, float]:
    """The idf of each distinct query term over the units (:func:`~yakgwan.retrieval.clause_map.lucene_idf`)."""
    q = set(query_terms)
    df = Counter(t for terms in unit_terms for t in terms & q)
    return {t: lucene_idf(df[t], len(unit_terms)) for t in q}


def covered(idf: dict[str, float], terms: set[str]) -> float:
    """The share of the idf mass that ``terms`` carry (0 when there is none)."""
    total = sum(idf.values())
    return sum(w for t, w in idf.items() if t in terms) / total if total > 0 else 0.0


def unit_scores(cos: np.ndarray, lex: np.ndarray, ranks: np.ndarray, w: SelectWeights) -> np.ndarray:
    """``cos + w.lex · lex + w.rank / rank`` (ranks 1-based)."""
    if not (cos.shape == lex.shape == ranks.shape):
        raise ValueError(f"cos, lex and ranks need one value per unit, got {cos.shape}, {lex.shape}, {ranks.shape}")
    if ranks.size and ranks.min() < 1:
        raise ValueError("ranks are 1-based")
    return cos + w.lex * lex + w.rank / ranks


def chosen(score: np.ndarray, w: SelectWeights, terms: Sequence[set[str]] = (), idf: dict[str, float] | None = None) -> list[int]:
    """The best unit, then up to ``w.keep - 1`` more within ``w.margin`` of it, each the one with
    the highest score plus ``w.cover`` times the share of ``idf``'s mass its ``terms`` add to the
    units chosen before it (module docstring); in the order chosen (ties: earlier unit). Without
    ``terms`` and ``idf``, or at ``w.cover == 0``: the best-scoring ones."""
    if score.size == 0:
        return []
    if terms and len(terms) != score.size:
        raise ValueError(f"one term set per unit: {len(terms)} for {score.size} scores")
    order = sorted(range(score.size), key=lambda i: (-score[i], i))
    best = score[order[0]]
    near = [i for i in order if score[i] >= best - w.margin]
    total = sum(idf.values()) if idf else 0.0
    if not terms or total <= 0 or w.cover == 0:
        return near[: w.keep]
    picked, have = [near[0]], set(terms[near[0]])
    while len(picked) < min(w.keep, len(near)):
        def gain(i: int) -> float:
            return score[i] + w.cover * sum(v for t, v in idf.items() if t in terms[i] and t not in have) / total

        nxt = max((i for i in near if i not in picked), key=lambda i: (gain(i), -i))
        picked.append(nxt)
        have |= terms[nxt]
    return picked


def read_as(u: Unit) -> str:
    """The unit as scored: its heading, then its text as read (a table row with its header)."""
    head = u.heading()
    return f"{head}\n{u.readable()}" if head else u.readable()


def score_units(question: str, units: Sequence[Unit], embedder: Embedder, tokenizer: Tokenizer, w: SelectWeights) -> Scored:
    """Every unit's score parts for ``question`` (see the module docstring)."""
    if not units:
        empty = np.zeros(0)
        return Scored(empty, empty, empty, {}, ())
    texts = [read_as(u) for u in units]
    q = np.asarray(embedder.embed([question], "query"), dtype=np.float32)[0]
    v = np.asarray(embedder.embed(texts, "passage"), dtype=np.float32)
    norms = np.linalg.norm(v, axis=1) * (np.linalg.norm(q) or 1.0)
    cos = (v @ q) / np.where(norms > 0, norms, 1.0)
    terms = tuple(set(t) for t in tokenizer.tokenize_many(texts))
    idf = idf_weights(tokenizer.tokenize(question), terms)
    lex = np.array([covered(idf, t) for t in terms])
    ranks = np.array([u.rank for u in units], dtype=float)
    return Scored(cos, lex, unit_scores(cos, lex, ranks, w), idf, terms)
