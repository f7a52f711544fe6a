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

import math
from dataclasses import dataclass
from typing import Sequence

from yakgwan.appeal.schema import Band

FSS_PAID, FSS_PARTIAL, FSS_DENIED = 7, 4, 55
FSS_SOURCE = "금융감독원 금융분쟁조정사례 97건 중 보험금 지급 분쟁 66건 (fss_case_labels.jsonl)"
LOW_BELOW, HIGH_FROM = 0.25, 0.6


@dataclass(frozen=True)
class Finding:
    """A stated piece of evidence and how far it moves the odds (log-odds; + favours the
    claimant)."""

    text: str
    logit: float


# the findings the rule-based analysis can state, and their weight
CITED_CLAUSE_NOT_IN_CLAIMED_COVER = 3.0  # the insurer's ground is another 특약's article
CITED_CLAUSE_NOT_FOUND = 2.0  # the cited article does not exist in the named 약관
CITED_NAME_UNRESOLVED = 0.5  # the notice's 약관 name fits no 약관 or several
EXCLUSION_OF_CLAIMED_COVER = -0.5  # an exclusion of the claimed 특약, cited correctly


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


def rationale(findings: Sequence[Finding], p: float) -> str:
    lines = [f"기준: {FSS_SOURCE}에서 신청인이 전부 또는 일부를 지급받은 비율 {base_rate():.1%}."]
    if findings:
        lines += [f"{'상향' if f.logit > 0 else '하향'}({f.logit:+.1f}): {f.text}" for f in findings]
    else:
        lines.append("통지서와 약관에서 기준 비율을 움직일 근거를 찾지 못했습니다.")
    lines.append(f"추정 {p:.0%} → {band_of(p)}")
    return " ".join(lines)
