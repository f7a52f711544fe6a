"""Rank fusion as pure functions over ranked id lists."""

from __future__ import annotations

from typing import Hashable, Mapping, Sequence, TypeVar

K = TypeVar("K", bound=Hashable)

RRF_K = 60


def rrf(runs: Sequence[Sequence[K]], k: int = RRF_K, weights: Sequence[float] | None = None) -> dict[K, float]:
    """Reciprocal Rank Fusion.

    ``score(d) = Σ_i w_i / (k + rank_i(d))`` with 1-based ranks; a list that does not contain d
    adds nothing. Cormack, Clarke & Büttcher (SIGIR 2009), k = 60; ranx ``fusion/rrf.py``.
    An id repeated inside one run counts at its first (best) rank only.
    """
    if k < 0:
        raise ValueError(f"k must be >= 0, got {k}")
    if weights is None:
        weights = [1.0] * len(runs)
    if len(weights) != len(runs):
        raise ValueError(f"got {len(weights)} weights for {len(runs)} runs")
    scores: dict[K, float] = {}
    for run, w in zip(runs, weights):
        seen: set[K] = set()
        for rank, item in enumerate(run, start=1):
            if item in seen:
                continue
            seen.add(item)
            scores[item] = scores.get(item, 0.0) + w / (k + rank)
    return scores


def minmax(scores: Mapping[K, float]) -> dict[K, float]:
    """Min–max normalisation to [0, 1]: ``(s - min) / (max - min)``; all-equal scores map to 1."""
    if not scores:
        return {}
    lo, hi = min(scores.values()), max(scores.values())
    if hi == lo:
        return {key: 1.0 for key in scores}
    return {key: (v - lo) / (hi - lo) for key, v in scores.items()}


def weighted_sum(runs: Sequence[Mapping[K, float]], weights: Sequence[float]) -> dict[K, float]:
    """Convex combination of (already normalised) score maps: ``Σ_i w_i · s_i(d)``, missing = 0."""
    if len(weights) != len(runs):
        raise ValueError(f"got {len(weights)} weights for {len(runs)} runs")
    out: dict[K, float] = {}
    for run, w in zip(runs, weights):
        for key, v in run.items():
            out[key] = out.get(key, 0.0) + w * v
    return out


def ranked(scores: Mapping[K, float]) -> list[tuple[K, float]]:
    """Items by descending score; ties keep first-seen order (``sorted`` is stable)."""
    return sorted(scores.items(), key=lambda kv: -kv[1])
