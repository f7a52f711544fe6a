"""The success band, calibrated: start from how 금융감독원 disputes about a claim payment end,
and move only on evidence the analysis states.

Base rate: the 97 dispute cases in ``fss_case_labels.jsonl`` (금융감독원 금융분쟁조정사례,
2024–2026; labels by rules + an LLM). Of the 66 about a claim payment (labels PAID, PARTIAL,
DENIED), 7 were paid and 4 partly paid: the claimant got something in 11 of 66 (16.7%); 59 of 66
(89%) ended DENIED or PARTIAL. Counts are fixed here and re-checked against the file by a test.

Moves are in log-odds, one per stated finding, and the rationale lists them; the band is read
off the final probability (LOW < 0.25 <= MEDIUM < 0.6 <= HIGH).
"""

from __future__ import annotations

import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from yakgwan.appeal.schema import Band, By, Provenance
from yakgwan.messages import msg

FSS_PAID, FSS_PARTIAL, FSS_DENIED = 7, 4, 55
# the base rate's source as a reader reads it (the file behind it is named in this module's docstring)
FSS_SOURCE = "금융감독원 금융분쟁조정사례(2024–2026) 중 보험금 지급 분쟁"
LOW_BELOW, HIGH_FROM = 0.25, 0.6


@dataclass(frozen=True)
class Finding:
    """A stated piece of evidence and how far it moves the odds (log-odds; + favours the
    claimant): its ``kind``, and both sides of it: what the notice says (``notice``, as written)
    and what the policy says (``policy``, a verbatim span with its provenance), where it has them."""

    text: str
    logit: float
    kind: str = "stated"
    notice: str | None = None
    policy: Provenance | None = None
    by: By = "rules"
    diff: tuple[tuple[str, str], ...] = ()  # the notice's quote against the policy's span: (op, text)


# the findings the rule-based analysis states, by kind, and the weights they were first given by
# hand (kept to compare the fitted ones with: bench/appeal_fit.py). The weights the band uses are
# fitted on the scenario notices (``BandWeights``, data/band_weights.json).
RULE_WEIGHTS: dict[str, float] = {
    "other_yakgwan": 3.0,  # the insurer's ground is another 특약's article
    "article_missing": 2.0,  # the cited article does not exist in the named 약관
    "part_missing": 2.0,  # the article exists, the cited 항 or 호 does not (a list copied from another 약관)
    "name_unresolved": 0.5,  # the notice's 약관 name fits no 약관 or several
    "claimed_exclusion": -0.5,  # an exclusion of the claimed 특약, cited correctly
    "proviso_not_addressed": 0.0,  # the cited part's 단서 the notice does not speak to
    "general_exclusion_on_own_list": 0.0,  # a 보통약관 exclusion on a 특약 with its own exclusion list
    "quote_differs": 1.0,  # the notice quotes the cited clause with other words than it prints
    "threshold_misstated": 2.0,  # the notice restates the clause's numeric threshold with another figure
    "arithmetic_fails": 2.0,  # the notice's own figures meet the coverage condition it denies on (or fail the exclusion's)
    "arithmetic_holds": -0.5,  # the notice's figures fall short of the coverage condition (or meet the exclusion's)
    "definition_ground_set_aside": 2.0,  # the notice's ground is what the definition says does not matter, or includes
    "full_denial_despite_reduction": 2.0,  # the notice refuses all where the policy cuts the payment for its case
    "reading_of_undefined_word": 1.0,  # the notice reads a word the policy never defines (작성자 불이익)
}
# the reading checks' findings the model states (appeal/model_checks.py: a model's yes to a narrow
# question on shown sentences), with the weights first given by hand; fitted on top of the rule weights
# (bench/appeal_fit.py --findings of a run with a model).
READ_WEIGHTS: dict[str, float] = {
    "definition_read_narrowly": 1.5,  # the notice reads a term more narrowly than the policy defines it
    "ambiguity_read_against_policyholder": 1.0,  # an open word read against the policyholder (작성자 불이익)
}
# what each kind of finding says, in four families whose members are weighed together before
# each gets its own share (partial pooling, bench/appeal_fit.py): a kind seen on few notices
# borrows its family's weight instead of none. The families follow what a finding means, not the
# scenarios: the notice misstates the policy (a clause it cites is not there or not the claimed
# 특약's, its quote or figures are not the clause's); it leaves out what the policy also says; its
# ground is the claimed 특약's own and its figures bear it out; a model reads it misreading the policy.
FAMILIES: dict[str, tuple[str, ...]] = {
    "misstates_policy": ("other_yakgwan", "article_missing", "part_missing", "quote_differs", "threshold_misstated", "arithmetic_fails",
                         "definition_ground_set_aside", "full_denial_despite_reduction"),
    "leaves_out": ("proviso_not_addressed", "general_exclusion_on_own_list", "name_unresolved", "reading_of_undefined_word"),
    "bears_out": ("claimed_exclusion", "arithmetic_holds"),
    "misreads_policy": tuple(READ_WEIGHTS),
}
# the findings that say the insurer's citation itself is wrong (they add a recommended action)
CITATION_ERRORS = ("other_yakgwan", "article_missing", "part_missing")
DEFAULT_WEIGHTS = Path(__file__).parent / "data" / "band_weights.json"


@dataclass(frozen=True)
class BandWeights:
    """How far each kind of rule finding moves the log-odds, and where the figures come from. A
    kind without a weight is stated beside the band (weight 0)."""

    weights: Mapping[str, float]
    source: str
    label: str = ""  # the source in a sentence of Korean, for the rationale a reader sees

    def of(self, kind: str) -> float:
        return float(self.weights.get(kind, 0.0))

    @classmethod
    def load(cls, path: Path) -> "BandWeights":
        try:
            raw = json.loads(path.read_text("utf-8"))
            return cls({str(k): float(v) for k, v in raw["weights"].items()}, str(raw["source"]), str(raw.get("label", "")))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"{path}: not a band weights file ({e})") from e


@functools.cache
def fitted_weights(path: Path = DEFAULT_WEIGHTS) -> BandWeights:
    """The weights fitted by bench/appeal_fit.py (read once)."""
    return BandWeights.load(path)


# the findings an LLM analysis may state, each tied to a clause sentence it was shown: kind ->
# (what it means, weight). Smaller than the rule findings: a model's reading of the facts is
# less sure than a citation that does not resolve. One move per kind.
LLM_FINDINGS: dict[str, tuple[str, float]] = {
    "exclusion_conditions_not_met": ("통지서의 사실이 인용된 면책 조항의 요건을 충족하지 않음", 1.5),
    "clause_lacks_stated_consequence": ("인용된 조항에 회사가 주장하는 효과(지급 거절)가 정해져 있지 않음", 1.5),
    "insurer_burden_not_met": ("조항상 회사가 입증해야 할 사실을 통지서가 입증하지 않음", 1.0),
    "coverage_conditions_met": ("통지서의 사실이 청구한 특약의 지급사유를 충족함", 1.0),
    "exclusion_clearly_applies": ("통지서의 사실이 면책 요건에 명백히 해당함", -1.0),
    "coverage_condition_clearly_unmet": ("통지서의 사실이 지급사유 요건을 명백히 충족하지 못함", -1.0),
}

LLM_MOVE_CAP = 2.5  # the model's findings together move the log-odds by at most this much


def cap_llm_moves(moves: Sequence[Finding], cap: float = LLM_MOVE_CAP) -> list[Finding]:
    """``moves`` plus, when their sum exceeds ``cap`` in size, one stated correction back to it."""
    total = sum(f.logit for f in moves)
    if abs(total) <= cap:
        return list(moves)
    back = math.copysign(cap, total) - total
    return [*moves, Finding(f"모델 판단의 합({total:+.1f})은 ±{cap:.1f}로 제한", back, kind="llm_cap", by="llm")]


def base_rate() -> float:
    """P(the claimant gets at least part of the claim) among claim-payment disputes."""
    return (FSS_PAID + FSS_PARTIAL) / (FSS_PAID + FSS_PARTIAL + FSS_DENIED)


def probability(findings: Sequence[Finding], prior: float | None = None) -> float:
    """The prior moved by every finding's log-odds."""
    p = base_rate() if prior is None else prior
    if not 0.0 < p < 1.0:
        raise ValueError(f"prior must be in (0, 1), got {p}")
    z = math.log(p / (1 - p)) + sum(f.logit for f in findings)
    return 1.0 / (1.0 + math.exp(-z))


def band_of(p: float) -> Band:
    if p < LOW_BELOW:
        return "LOW"
    return "HIGH" if p >= HIGH_FROM else "MEDIUM"


def percent(p: float) -> str:
    """``p`` as a percentage, with a decimal where whole percents would round it onto a band's
    threshold (0.597 is "59.70%", not "60%", which reads HIGH)."""
    whole = f"{p:.0%}"
    near = any(abs(p - t) < 0.005 and (p < t) != (round(p, 2) < t) for t in (LOW_BELOW, HIGH_FROM))
    return f"{p:.2%}" if near else whole


def rationale(findings: Sequence[Finding], p: float, weights: BandWeights | None = None) -> str:
    paid, cases = FSS_PAID + FSS_PARTIAL, FSS_PAID + FSS_PARTIAL + FSS_DENIED
    lines = [f"기준: {FSS_SOURCE} {cases}건 중 {paid}건({base_rate():.0%})이 전부 또는 일부 지급되었습니다."]
    if weights is not None and any(f.by == "rules" and f.logit for f in findings):
        lines.append(f"발견 사항의 가중치: {weights.label or weights.source}.")
    if findings:
        lines += [f"{'가능성을 높이는 점' if f.logit > 0 else '가능성을 낮추는 점'}({f.logit:+.1f}): {f.text}" if f.logit else f"참고: {f.text}" for f in findings]
    else:
        lines.append("통지서와 약관에서 기준 비율을 움직일 근거를 찾지 못했습니다.")
    lines.append(f"추정 {percent(p)}, {msg(f'band.{band_of(p)}').text('ko')}({band_of(p)})")  # the analysis is written in Korean
    return " ".join(lines)
