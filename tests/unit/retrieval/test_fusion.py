"""Fusion maths against hand-computed values and ranx."""

from __future__ import annotations

import random

import pytest

from yakgwan.retrieval.scoring.fusion import minmax, ranked, rrf, weighted_sum

pytestmark = pytest.mark.unit


def test_rrf_hand_computed() -> None:
    run = rrf([["d1", "d2", "d3"], ["d3", "d1"]], k=60)
    assert run["d1"] == pytest.approx(1 / (60 + 1) + 1 / (60 + 2))
    assert run["d2"] == pytest.approx(1 / (60 + 2))
    assert run["d3"] == pytest.approx(1 / (60 + 3) + 1 / (60 + 1))
    assert [d for d, _ in ranked(run)] == ["d1", "d3", "d2"]


def test_rrf_weights_and_duplicates() -> None:
    run = rrf([["a", "a", "b"], ["b"]], k=1, weights=[2.0, 0.5])
    assert run["a"] == pytest.approx(2.0 / (1 + 1))  # the repeated "a" counts once
    assert run["b"] == pytest.approx(2.0 / (1 + 3) + 0.5 / (1 + 1))


def test_rrf_rejects_mismatched_weights() -> None:
    with pytest.raises(ValueError, match="weights"):
        rrf([["a"]], weights=[1.0, 2.0])


def test_minmax_and_weighted_sum() -> None:
    assert minmax({"a": 2.0, "b": 4.0, "c": 3.0}) == {"a": 0.0, "b": 1.0, "c": 0.5}
    assert minmax({"a": 5.0}) == {"a": 1.0}
    fused = weighted_sum([{"a": 1.0, "b": 0.5}, {"b": 1.0}], [0.3, 0.7])
    assert fused == pytest.approx({"a": 0.3, "b": 0.3 * 0.5 + 0.7})


def test_rrf_matches_ranx() -> None:
    ranx = pytest.importorskip("ranx")
    rng = random.Random(7)
    docs = [f"d{i}" for i in range(30)]
    runs = []
    for _ in range(3):
        order = rng.sample(docs, 20)
        runs.append(order)
    ours = rrf(runs, k=60)
    ranx_runs = [ranx.Run({"q": {d: float(len(r) - i) for i, d in enumerate(r)}}) for r in runs]
    theirs = ranx.fuse(runs=ranx_runs, method="rrf", params={"k": 60}).to_dict()["q"]
    assert set(ours) == set(theirs)
    for d in ours:
        assert ours[d] == pytest.approx(theirs[d], abs=1e-12)
