"""What the claimed 특약 itself says where the insurer's citation does not hold.

When a notice grounds the denial on another 특약's article (the wording copied from there) or on
a 호 the article does not have, the question a claimant and an adjuster ask next is whether the
claimed 특약 has a clause to the same effect. This module finds the claimed 특약's closest clause
with the policy's own first-stage search, restricted to that 특약: searched with the text of the
cited part for a clause of another 특약, with the reason as the notice states it for a part that
does not exist. It finds; it does not judge: whether the closest clause says the same is shown
for the reader (the evidence pack quotes it beside the citation), and moves no band.
"""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.appeal.article_parts import missing_part, parts_of_chunks
from yakgwan.appeal.policy import Policy
from yakgwan.appeal.provisos import cited_span
from yakgwan.appeal.retrieve import ReasonEvidence, ScopedRetriever
from yakgwan.core.records import Hit


@dataclass(frozen=True)
class Equivalent:
    """The claimed 특약's clause closest to a citation that does not hold there: ``cited`` names
    the citation ("교통사고처리지원금(Ⅰ) 특별약관 제1조 제1항"), ``why`` says how it fails, ``query``
    is what was searched, ``hit`` what was found."""

    cited: str
    why: str  # "another 특약" or "no such part"
    query: str
    hit: Hit


def _foreign(yakgwan: str, claimed: set[str]) -> bool:
    return bool(claimed) and yakgwan not in claimed and yakgwan != "보통약관" and "보장제외" not in yakgwan


def equivalents(evidence: list[ReasonEvidence], policy: Policy) -> list[Equivalent]:
    """For every cited clause of another 특약, and every cited part its article does not print,
    the closest clause of the claimed 특약 (of the cited 약관 itself for a missing part when
    nothing is claimed)."""
    claimed = {cc.yakgwan for ev in evidence for cc in ev.coverage if cc.yakgwan}
    base = policy.ctx.first_stage()
    out: list[Equivalent] = []
    seen: set[tuple[str, str]] = set()
    for ev in evidence:
        for cc in ev.cited:
            if cc.yakgwan is None or not cc.chunks:
                continue
            name = f"{cc.yakgwan} {cc.ref.label}"
            if missing_part(cc.ref, parts_of_chunks(cc.chunks)) is not None:
                why, query, scope = "no such part", ev.reason.text, tuple(sorted(claimed)) or (cc.yakgwan,)
            elif _foreign(cc.yakgwan, claimed):
                span = cited_span(cc.chunks, cc.ref)
                why, scope = "another 특약", tuple(sorted(claimed))
                query = (span[0].text[span[1] : span[2]] if span else cc.chunks[0].text).strip()
            else:
                continue
            if (name, why) in seen:
                continue
            seen.add((name, why))
            hits = ScopedRetriever("equivalent", base, scope).retrieve(query, 1)
            if hits:
                out.append(Equivalent(name, why, query, hits[0]))
    return out
