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

from yakgwan.appeal.schema import Band, By, Provenance

FSS_PAID, FSS_PARTIAL, FSS_DENIED = 7, 4, 55
FSS_SOURCE = "금융감독원 금융분쟁조정사례 97건 중 보험금 지급 분쟁 66건 (fss_case_labels.jsonl)"
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


# the findings the rule-based analysis can state, and their weight
CITED_CLAUSE_NOT_IN_CLAIMED_COVER = 3.0  # the insurer's ground is another 특약's article
CITED_CLAUSE_NOT_FOUND = 2.0  # the cited article does not exist in the named 약관
CITED_PART_NOT_FOUND = 2.0  # the article exists, the cited 항 or 호 does not (a list copied from another 약관)
CITED_NAME_UNRESOLVED = 0.5  # the notice's 약관 name fits no 약관 or several
EXCLUSION_OF_CLAIMED_COVER = -0.5  # an exclusion of the claimed 특약, cited correctly
# the cited part's 단서 the notice does not speak to: stated for the reader to weigh, the odds
# unmoved (on the scenarios it fired on provisos beside the point as often as on decisive ones:
# whether a proviso fits the facts is a reading the rules cannot make)
PROVISO_NOT_ADDRESSED = 0.0
# a 보통약관 exclusion applied to a 특약 whose own exclusion list names no 보통약관 article: stated,
# the odds unmoved until scenarios of this kind are there to weigh it
GENERAL_EXCLUSION_ON_OWN_LIST = 0.0

# the notice quotes the cited clause with other terms than it prints (a qualifier, a condition or
# a figure dropped or added)
QUOTE_DIFFERS = 1.0
# the notice restates the clause's numeric threshold with another figure than the clause prints
THRESHOLD_MISSTATED = 2.0
# the notice's own figures meet the coverage condition it denies on (or fail the exclusion's)
ARITHMETIC_FAILS = 2.0
# the notice's figures fall short of the coverage condition (or meet the exclusion's): it holds
ARITHMETIC_HOLDS = -0.5

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


def rationale(findings: Sequence[Finding], p: float) -> str:
    lines = [f"기준: {FSS_SOURCE}에서 신청인이 전부 또는 일부를 지급받은 비율 {base_rate():.1%}."]
    if findings:
        lines += [f"{'상향' if f.logit > 0 else '하향'}({f.logit:+.1f}): {f.text}" if f.logit else f"참고: {f.text}" for f in findings]
    else:
        lines.append("통지서와 약관에서 기준 비율을 움직일 근거를 찾지 못했습니다.")
    lines.append(f"추정 {p:.0%} → {band_of(p)}")
    return " ".join(lines)
