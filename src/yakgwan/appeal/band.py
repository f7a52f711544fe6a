"""The success band: a rule a reviewer can read, starting from how 금융감독원 disputes about a
claim payment end and moved only by findings the policy text itself settles.

Base rate: the 97 dispute cases in ``fss_case_labels.jsonl`` (금융감독원 금융분쟁조정사례,
2024–2026; labels by rules + an LLM). Of the 66 about a claim payment (labels PAID, PARTIAL,
DENIED), 7 were paid and 4 partly paid: the claimant got something in 11 of 66 (16.7%); 59 of 66
(89%) ended DENIED or PARTIAL. Counts are fixed here and re-checked against the file by a test.

The rule (:func:`band_for`), in the order it is read:

- **HIGH** when at least one finding shows, from the policy's own text, that the insurer's stated
  ground does not hold as stated (:data:`DECISIVE`: the clause it cites is another 특약's or is
  not printed, its quote or figure is not the policy's, its own figures meet the condition it
  denies on, the definition it relies on says otherwise, the policy cuts the payment where the
  notice refuses all);
- **MEDIUM** when none does but at least one finding leaves the ground open (:data:`ARGUABLE`: a
  proviso of the cited part the notice does not speak to, a 보통약관 exclusion applied to a 특약
  with its own list, a word the policy never defines read against the claimant, a refusal resting
  only on procedure articles that attach no loss of the benefit to their breach, a model's reading);
- **LOW** otherwise: the base rate, where most disputes end.

Findings that bear the insurer out (:data:`BEARS_OUT`) and those only stated (an unresolved name:
what the reader could not read settles nothing) are listed in the rationale and move nothing. No
weight is fitted and no percentage is claimed for one case: the band and the findings that set
it are what the analysis says.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Sequence

from yakgwan.appeal.schema import Band, By, Provenance
from yakgwan.messages import msg

FSS_PAID, FSS_PARTIAL, FSS_DENIED = 7, 4, 55
# the base rate's source as a reader reads it (the file behind it is named in this module's docstring)
FSS_SOURCE = "금융감독원 금융분쟁조정사례(2024–2026) 중 보험금 지급 분쟁"

Effect = Literal["decisive", "arguable", "bears_out", "stated"]


@dataclass(frozen=True)
class Finding:
    """A stated piece of evidence: its ``kind`` (whose :func:`effect` on the band the rule
    reads), and both sides of it: what the notice says (``notice``, as written) and what the
    policy says (``policy``, a verbatim span with its provenance), where it has them. ``moves``:
    False for a model's finding given as advice only (listed, the band unmoved)."""

    text: str
    kind: str = "stated"
    notice: str | None = None
    policy: Provenance | None = None
    by: By = "rules"
    diff: tuple[tuple[str, str], ...] = ()  # the notice's quote against the policy's span: (op, text)
    moves: bool = True


# the rule findings that settle, from the policy's own text, that the ground does not hold as stated
DECISIVE: dict[str, str] = {
    "other_yakgwan": "회사가 든 근거가 청구한 특약이 아닌 다른 특약의 조항임",
    "article_missing": "회사가 인용한 조가 그 약관에 없음",
    "part_missing": "회사가 인용한 항·호가 그 조에 없음",
    "quote_differs": "회사가 인용한 문구가 약관 원문과 다름",
    "threshold_misstated": "회사가 옮긴 기준 수치가 약관과 다름",
    "arithmetic_fails": "통지서 자신의 수치가 거절의 요건을 충족하지 않음",
    "definition_ground_set_aside": "약관의 정의가 회사의 근거를 따지지 않거나 포함함",
    "full_denial_despite_reduction": "약관이 삭감·비례 지급을 정한 경우인데 전액 거절함",
}
# the findings that leave the ground open: a reviewer could go either way
ARGUABLE: dict[str, str] = {
    "proviso_not_addressed": "인용된 조항의 단서를 통지서가 다루지 않음",
    "general_exclusion_on_own_list": "자체 면책 목록이 있는 특약에 보통약관의 면책을 적용함",
    "reading_of_undefined_word": "약관이 정의하지 않은 말을 회사가 스스로 풀이함",
    "procedure_without_consequence": "거절 근거로 든 절차 조항(통지·청구)이 그 위반에 보험금을 지급하지 않는 효과를 정하지 않음",
    "definition_read_narrowly": "모델 판단: 약관의 정의보다 좁게 읽음",
    "ambiguity_read_against_policyholder": "모델 판단: 정하지 않은 말을 계약자에게 불리하게 읽음",
}
# the findings that bear the insurer out
BEARS_OUT: dict[str, str] = {
    "claimed_exclusion": "청구한 특약 자체의 면책 조항을 정확히 인용함",
    "arithmetic_holds": "통지서의 수치가 거절의 요건을 충족함",
}
# the findings an LLM analysis may state, each tied to a clause sentence it was shown: kind ->
# (what it means, its effect when applied). A model's reading of the facts is never decisive:
# the policy text has not settled it.
LLM_FINDINGS: dict[str, tuple[str, Effect]] = {
    "exclusion_conditions_not_met": ("통지서의 사실이 인용된 면책 조항의 요건을 충족하지 않음", "arguable"),
    "clause_lacks_stated_consequence": ("인용된 조항에 회사가 주장하는 효과(지급 거절)가 정해져 있지 않음", "arguable"),
    "insurer_burden_not_met": ("조항상 회사가 입증해야 할 사실을 통지서가 입증하지 않음", "arguable"),
    "coverage_conditions_met": ("통지서의 사실이 청구한 특약의 지급사유를 충족함", "arguable"),
    "exclusion_clearly_applies": ("통지서의 사실이 면책 요건에 명백히 해당함", "bears_out"),
    "coverage_condition_clearly_unmet": ("통지서의 사실이 지급사유 요건을 명백히 충족하지 못함", "bears_out"),
}
# the findings that say the insurer's citation itself is wrong (they add a recommended action)
CITATION_ERRORS = ("other_yakgwan", "article_missing", "part_missing")


def effect(f: Finding) -> Effect:
    """How ``f`` moves the band: by its kind's place in the rule (a model's advice moves nothing)."""
    if not f.moves:
        return "stated"
    if f.kind in LLM_FINDINGS:
        return LLM_FINDINGS[f.kind][1]
    if f.kind in DECISIVE:
        return "decisive"
    if f.kind in ARGUABLE:
        return "arguable"
    return "bears_out" if f.kind in BEARS_OUT else "stated"


def band_for(findings: Sequence[Finding]) -> Band:
    """HIGH with a decisive finding, MEDIUM with an arguable one, LOW otherwise (the module's rule)."""
    effects = {effect(f) for f in findings}
    if "decisive" in effects:
        return "HIGH"
    return "MEDIUM" if "arguable" in effects else "LOW"


def deciding(findings: Sequence[Finding]) -> list[str]:
    """The kinds that set the band (empty: the base rate did)."""
    want = {"HIGH": "decisive", "MEDIUM": "arguable", "LOW": None}[band_for(findings)]
    return list(dict.fromkeys(f.kind for f in findings if want and effect(f) == want))


def base_rate() -> float:
    """P(the claimant gets at least part of the claim) among claim-payment disputes."""
    return (FSS_PAID + FSS_PARTIAL) / (FSS_PAID + FSS_PARTIAL + FSS_DENIED)


_SAYS: dict[Effect, str] = {"decisive": "HIGH의 근거", "arguable": "MEDIUM의 근거", "bears_out": "회사 주장을 뒷받침", "stated": "참고"}


def rationale(findings: Sequence[Finding]) -> str:
    """The band in words: the base rate it starts from, the rule that set it, each finding with
    its effect."""
    paid, cases = FSS_PAID + FSS_PARTIAL, FSS_PAID + FSS_PARTIAL + FSS_DENIED
    band = band_for(findings)
    lines = [f"기준: {FSS_SOURCE} {cases}건 중 {paid}건({base_rate():.0%})만 전부 또는 일부 지급되었으므로, 약관이 회사의 근거를 뒤집는 사실이 없으면 LOW입니다."]
    if band == "HIGH":
        lines.append("약관 문언 자체로 회사의 거절 근거가 그대로 성립하지 않음을 보여 주는 사항이 있어 HIGH입니다.")
    elif band == "MEDIUM":
        lines.append("약관이 회사의 근거를 뒤집지는 않지만 다툴 여지를 남기는 사항이 있어 MEDIUM입니다.")
    lines += [f"{_SAYS[effect(f)]}: {f.text}" for f in findings]
    if not findings:
        lines.append("통지서와 약관에서 기준을 움직일 사항을 찾지 못했습니다.")
    lines.append(f"결론: {msg(f'band.{band}').text('ko')}({band})")  # the analysis is written in Korean
    return " ".join(lines)
