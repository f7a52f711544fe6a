"""The band's fitted weights: the ordinal loss against hand computation, partial pooling, the
bundled weights file."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from yakgwan.appeal import band as B
from yakgwan.appeal.band_fit import band_probabilities, fit, leave_one_out, loss, membership, predict, staged_fit, staged_leave_one_out

pytestmark = pytest.mark.unit


def sig(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def test_the_loss_is_the_ordinal_likelihood_by_hand() -> None:
    z0, t1, t2 = math.log((11 / 66) / (55 / 66)), math.log(0.25 / 0.75), math.log(0.6 / 0.4)
    M = membership(["a", "b"], {"f": ("a", "b")})
    X = np.array([[1.0, 0.0], [0.0, 0.0]])
    y = np.array([2, 0])  # HIGH with one finding "a", LOW with none
    theta = np.array([1.0, 0.5, 0.0])  # family 1.0; own shares a 0.5, b 0
    z = z0 + 1.5
    want = -math.log(sig(z - t2)) - math.log(1 - sig(z0 - t1)) + 0.5 * 0.1 * 1.0 + 0.5 * 2.0 * 0.25
    assert loss(theta, X, y, M, (0.1, 2.0)) == pytest.approx(want)
    p = band_probabilities(np.array([z]))[0]
    assert p.sum() == pytest.approx(1.0) and p[1] == pytest.approx(sig(z - t1) - sig(z - t2))


def test_a_kind_seen_once_borrows_its_familys_weight() -> None:
    kinds = ["seen", "alone", "other"]
    M = membership(kinds, {"errors": ("seen", "alone"), "neutral": ("other",)})
    X = np.array([[1, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=float)
    y = np.array([2, 2, 0, 0, 2, 0])
    w = fit(X, y, M, (0.1, 2.0))
    assert w[0] > 2.0 and w[1] > 2.0 and w[2] < 0.0  # "other" fired on a LOW notice only
    loo = leave_one_out(X, y, M, (0.1, 2.0))
    assert loo[4] == 2  # "alone", left out, still moves the band through its family
    assert predict(np.zeros((1, 3)), w) == [0]  # no finding: the base rate, LOW


def test_the_offset_adds_to_z_and_the_second_stage_keeps_the_first_stages_weights() -> None:
    z0, t1, t2 = math.log((11 / 66) / (55 / 66)), math.log(0.25 / 0.75), math.log(0.6 / 0.4)
    M = membership(["r"], {"f": ("r",)})
    X, y = np.array([[1.0]]), np.array([1])
    theta = np.array([0.0, 0.0])
    assert loss(theta, X, y, M, (0.1, 2.0), offset=np.array([0.7])) == pytest.approx(-math.log(sig(z0 + 0.7 - t1) - sig(z0 + 0.7 - t2)))
    assert predict(np.zeros((1, 1)), np.zeros(1), offset=np.array([5.0])) == [2]  # the offset alone makes it HIGH
    # rule kind "r" fires on two HIGH notices; the read kind "m" on two notices the rules leave LOW but are HIGH
    Mr, Mm = membership(["r"], {"f": ("r",)}), membership(["m"], {"g": ("m",)})
    Xr = np.array([[1], [1], [0], [0], [0], [0], [0]], dtype=float)
    Xm = np.array([[0], [0], [1], [1], [0], [0], [1]], dtype=float)
    y = np.array([2, 2, 2, 2, 0, 0, 2])
    wr, wm = staged_fit(Xr, Xm, y, Mr, Mm, (0.1, 2.0))
    assert np.allclose(wr, fit(Xr, y, Mr, (0.1, 2.0)))  # the first stage sees the rule findings only
    assert wm[0] > 2.0
    assert staged_leave_one_out(Xr, Xm, y, Mr, Mm, (0.1, 2.0)) == [2, 2, 2, 2, 0, 0, 2]
    assert leave_one_out(Xr, y, Mr, (0.1, 2.0))[2:4] == [0, 0]  # without the read kind, LOW


def test_every_kind_needs_one_family() -> None:
    with pytest.raises(ValueError, match="lost"):
        membership(["lost"], {"f": ("a",)})


def test_the_bundled_weights_cover_every_rule_kind_with_provenance() -> None:
    w = B.fitted_weights()
    assert set(w.weights) == set(B.RULE_WEIGHTS) | set(B.READ_WEIGHTS) and "bench/appeal_fit.py" in w.source and "leave-one-out" in w.source
    assert {k for fam in B.FAMILIES.values() for k in fam} == set(B.RULE_WEIGHTS) | set(B.READ_WEIGHTS)
    assert w.of("no such kind") == 0.0


def test_a_broken_weights_file_names_itself(tmp_path: Path) -> None:
    bad = tmp_path / "w.json"
    bad.write_text("{\"weights\": 3}", "utf-8")
    with pytest.raises(ValueError, match="w.json: not a band weights file"):
        B.BandWeights.load(bad)


def test_a_percentage_never_rounds_onto_a_threshold() -> None:
    assert B.percent(0.597) == "59.70%" and B.band_of(0.597) == "MEDIUM"
    assert B.percent(0.2496) == "24.96%" and B.percent(0.17) == "17%" and B.percent(0.6) == "60%"
