"""Fitting the band's per-finding weights (pure maths; ``bench/appeal_fit.py`` runs it on the
scenario notices).

The band reads z = logit(base rate) + Σ w_kind · count_kind at fixed thresholds (``band``:
LOW < 0.25 <= MEDIUM < 0.6 <= HIGH). The weights are fitted as an ordinal logistic model with
those cut points and no intercept:

    P(LOW) = 1 − σ(z − t₁),  P(MEDIUM) = σ(z − t₁) − σ(z − t₂),  P(HIGH) = σ(z − t₂)

with t₁ = logit(0.25), t₂ = logit(0.6). A kind's weight is its family's weight (``band.FAMILIES``)
plus its own share, each under an L2 penalty, so that a kind seen on few notices borrows its
family's weight (partial pooling).

The reading checks' kinds found by a model (``band.READ_WEIGHTS``) are fitted in a second stage,
on top of the rule weights (``offset``: each notice's z from its rule findings), so that the band
without a model keeps the weights fitted without one (:func:`staged_leave_one_out`); their weights
are kept at 0 or above (each says the insurer erred).
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np
from scipy.optimize import minimize

from yakgwan.appeal import band as B

BANDS = ("LOW", "MEDIUM", "HIGH")


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def cut_points() -> tuple[float, float, float]:
    """(z of the base rate, t₁, t₂)."""
    return _logit(B.base_rate()), _logit(B.LOW_BELOW), _logit(B.HIGH_FROM)


def membership(kinds: Sequence[str], families: Mapping[str, Sequence[str]]) -> np.ndarray:
    """kinds x families: 1 where a kind belongs to a family; every kind needs exactly one."""
    names = list(families)
    M = np.array([[float(k in families[f]) for f in names] for k in kinds]).reshape(len(kinds), len(names))
    lost = [k for k, row in zip(kinds, M) if row.sum() != 1]
    if lost:
        raise ValueError(f"finding kinds without exactly one family: {', '.join(lost)}")
    return M


def band_probabilities(z: np.ndarray) -> np.ndarray:
    """rows of (P(LOW), P(MEDIUM), P(HIGH)) for each z."""
    _, t1, t2 = cut_points()
    up1, up2 = 1 / (1 + np.exp(-(z - t1))), 1 / (1 + np.exp(-(z - t2)))
    return np.stack([1 - up1, up1 - up2, up2], axis=-1)


def loss(theta: np.ndarray, X: np.ndarray, y: np.ndarray, M: np.ndarray, l2: tuple[float, float], offset: np.ndarray | None = None) -> float:
    """The negative log-likelihood of the expected bands ``y`` (0, 1, 2) plus the penalties;
    ``theta`` is the family weights then the kinds' own shares; ``offset`` adds to each row's z."""
    fam, own = theta[: M.shape[1]], theta[M.shape[1] :]
    z0, _, _ = cut_points()
    z = z0 + X @ (M @ fam + own) + (0.0 if offset is None else offset)
    p = band_probabilities(z)[np.arange(len(y)), y]
    return float(-np.log(np.clip(p, 1e-12, None)).sum() + 0.5 * l2[0] * float(fam @ fam) + 0.5 * l2[1] * float(own @ own))


def fit(X: np.ndarray, y: np.ndarray, M: np.ndarray, l2: tuple[float, float], offset: np.ndarray | None = None, nonneg: bool = False) -> np.ndarray:
    """Per-kind weights (family weight + own share) minimising :func:`loss`; ``nonneg`` keeps
    every part at 0 or above (a finding that says the insurer erred cannot count against the
    claimant)."""
    n = M.shape[1] + M.shape[0]
    res = minimize(loss, np.zeros(n), args=(X, y, M, l2, offset), method="L-BFGS-B", bounds=[(0.0, None)] * n if nonneg else None)
    fam, own = res.x[: M.shape[1]], res.x[M.shape[1] :]
    return np.asarray(M @ fam + own)


def predict(X: np.ndarray, w: np.ndarray, offset: np.ndarray | None = None) -> list[int]:
    """The band (0, 1, 2) each row's findings give with weights ``w`` (plus ``offset`` per row)."""
    z0, _, _ = cut_points()
    off = np.zeros(len(X)) if offset is None else offset
    return [BANDS.index(B.band_of(1 / (1 + math.exp(-(z0 + float(x @ w) + float(o)))))) for x, o in zip(X, off)]


def leave_one_out(X: np.ndarray, y: np.ndarray, M: np.ndarray, l2: tuple[float, float]) -> list[int]:
    """Each row's band predicted by weights fitted on all the other rows."""
    out = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        out.append(predict(X[i : i + 1], fit(X[keep], y[keep], M, l2))[0])
    return out


def staged_fit(Xr: np.ndarray, Xm: np.ndarray, y: np.ndarray, Mr: np.ndarray, Mm: np.ndarray, l2: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """The rule weights fitted on the rule findings ``Xr`` alone, then the model's findings'
    weights fitted on ``Xm`` with the rule weights fixed, each 0 or above: every one of them says
    the insurer misread the policy, so none may count against the claimant."""
    wr = fit(Xr, y, Mr, l2)
    return wr, fit(Xm, y, Mm, l2, offset=Xr @ wr, nonneg=True)


def staged_leave_one_out(Xr: np.ndarray, Xm: np.ndarray, y: np.ndarray, Mr: np.ndarray, Mm: np.ndarray, l2: tuple[float, float]) -> list[int]:
    """Each row's band predicted by both stages fitted on all the other rows."""
    out = []
    for i in range(len(y)):
        keep = np.arange(len(y)) != i
        wr, wm = staged_fit(Xr[keep], Xm[keep], y[keep], Mr, Mm, l2)
        out.append(predict(Xm[i : i + 1], wm, offset=Xr[i : i + 1] @ wr)[0])
    return out
