"""Whether the chosen units answer the question: a logistic model over general features.

Features (:class:`AnswerFeatures`); the two noun shares read the question with the general
lexicons of :mod:`yakgwan.answer.ko_rules.lexicon` (question words, time nouns, nouns naming the
kind of answer), none of them a list of things to refuse:

- ``cos``: the best unit's cosine with the question (:mod:`yakgwan.answer.select`);
- ``cos_margin``: how far it stands above the mean of the candidate units (a unit that answers
  stands out; one that merely shares the topic does not);
- ``lex``: the share of the question's idf mass that the chosen units carry together;
- ``found``: the share of the question's content terms that occur anywhere in the documents
  (a name or product the documents never mention pulls it down);
- ``asked_found``: the same share over the nouns of the phrase the question asks about
  (:func:`~yakgwan.answer.anchors.asked_phrase`: "회사 직원의 퇴직연금은 얼마인가요?" asks about
  회사, 직원, 퇴직연금): a question about a thing the documents never name is not answered by
  units about its neighbours, while a lay word elsewhere in a long question proves less.

``p = σ(b + Σ wᵢ · (xᵢ − μᵢ) / σᵢ)``, fitted on the tuning halves of the dev sets by
``bench/answerability.py``, which writes :data:`DEFAULT_MODEL` with its provenance and a
reliability table of the checking halves. ``p ≥ answered`` → answered; ``p ≥ partial`` →
partial (the units are quoted, and the answer says they may not hold the point asked);
below → refused. The cosines are the fitted embedder's: a model applies only to an index made
with that embedder (``embedder``, its ``model_id``).
"""

from __future__ import annotations

import json
import math
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from yakgwan.answer.records import Outcome

DEFAULT_MODEL = Path(__file__).parent / "data" / "answerability.json"


@dataclass(frozen=True)
class AnswerFeatures:
    cos: float
    cos_margin: float
    lex: float
    found: float
    asked_found: float

    def vector(self) -> tuple[float, ...]:
        return astuple(self)


FEATURES = tuple(f.name for f in fields(AnswerFeatures))


def shown_p(p: float) -> str:
    """``p`` as a note prints it: cut to two places, not rounded, so that a p just under a
    threshold never reads as the threshold (0.2996 → "0.29"); the 1e-9 keeps a float's error from
    cutting a p that is on two places already (0.29 is 28.999…/100). Not a number prints as such."""
    if not math.isfinite(p):
        return str(p)
    return f"{math.floor(p * 100 + 1e-9) / 100:.2f}"


@dataclass(frozen=True)
class AnswerabilityModel:
    """A fitted logistic model and its two thresholds; ``source`` says how it was fitted."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    answered: float
    partial: float
    source: str
    embedder: str  # the model_id of the embedder whose cosines it was fitted on

    def __post_init__(self) -> None:
        n = len(FEATURES)
        if not (len(self.mean) == len(self.scale) == len(self.weights) == n):
            raise ValueError(f"an answerability model needs {n} means, scales and weights ({', '.join(FEATURES)})")
        if any(s <= 0 for s in self.scale):
            raise ValueError("every feature scale must be > 0")
        if not 0.0 <= self.partial <= self.answered <= 1.0:
            raise ValueError(f"thresholds need 0 <= partial <= answered <= 1, got {self.partial}, {self.answered}")

    def probability(self, x: AnswerFeatures) -> float:
        z = self.bias + sum(w * (v - m) / s for w, v, m, s in zip(self.weights, x.vector(), self.mean, self.scale))
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def outcome(self, p: float) -> Outcome:
        return "answered" if p >= self.answered else "partial" if p >= self.partial else "refused"

    def to_json(self) -> dict[str, Any]:
        return {"features": list(FEATURES), "mean": list(self.mean), "scale": list(self.scale), "weights": list(self.weights),
                "bias": self.bias, "answered": self.answered, "partial": self.partial, "source": self.source, "embedder": self.embedder}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "AnswerabilityModel":
        if tuple(d.get("features", ())) != FEATURES:
            raise ValueError(f"answerability model features {d.get('features')} are not {list(FEATURES)}")
        return cls(tuple(d["mean"]), tuple(d["scale"]), tuple(d["weights"]), float(d["bias"]), float(d["answered"]), float(d["partial"]), str(d["source"]),
                   str(d["embedder"]))

    @classmethod
    def load(cls, path: Path = DEFAULT_MODEL) -> "AnswerabilityModel":
        try:
            return cls.from_json(json.loads(path.read_text("utf-8")))
        except (OSError, ValueError, KeyError) as exc:
            raise ValueError(f"{path}: not a usable answerability model ({exc})") from exc


def reliability(probs: list[float], labels: list[bool], bins: int = 5) -> list[tuple[float, float, float, int]]:
    """(bin low, mean predicted, observed share, n) per equal-width probability bin with rows."""
    if len(probs) != len(labels):
        raise ValueError("one label per probability")
    out = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        idx = [i for i, p in enumerate(probs) if lo <= p < hi or (b == bins - 1 and p == 1.0)]
        if idx:
            out.append((lo, sum(probs[i] for i in idx) / len(idx), sum(labels[i] for i in idx) / len(idx), len(idx)))
    return out
