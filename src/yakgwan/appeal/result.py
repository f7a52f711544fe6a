"""The typed result of an appeal analysis, and its JSON (the ``appeal --json`` object)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from yakgwan.appeal.citations import parse_clause_refs
from yakgwan.appeal.notice import DenialNotice
from yakgwan.appeal.retrieve import ReasonEvidence
from yakgwan.appeal.schema import Analysis
from yakgwan.messages import Message, said


@dataclass(frozen=True)
class PolicyRef:
    """Which policy the notice was read against: what the user gave, its products, its index."""

    source: str
    products: tuple[str, ...]
    index: str


@dataclass(frozen=True)
class AppealResult:
    """A denial notice analysed against a policy. ``analysis`` is the validated analysis (items
    whose provenance failed are removed, and named in ``removed_evidence``); ``metrics`` were
    computed before removal; ``evidence`` is what retrieval found for each reason."""

    denial: DenialNotice
    analysis: Analysis
    metrics: dict[str, float]
    removed_evidence: tuple[str, ...]
    evidence: tuple[ReasonEvidence, ...]
    mode: str
    search: str
    analysis_by: str
    llm_findings: str | None
    policy: PolicyRef
    notes: tuple[Message, ...]

    def to_json(self, lang: str | None = "en") -> dict[str, Any]:
        """The analysis object, its notes in ``lang`` (None: kept as messages, for a job's readers; :func:`said`)."""
        return {
            "denial": denial_json(self.denial),
            **self.analysis.model_dump(),
            "metrics": self.metrics,
            "removed_evidence": list(self.removed_evidence),
            "retrieval": [evidence_json(e) for e in self.evidence],
            "mode": self.mode,
            "search": self.search,
            "analysis_by": self.analysis_by,
            "llm_findings": self.llm_findings,
            "policy": {"source": self.policy.source, "products": list(self.policy.products), "index": self.policy.index},
            "notes": [said(n, lang) for n in self.notes],
        }


def denial_json(n: DenialNotice) -> dict[str, Any]:
    return {
        "source": n.source,
        "insurer": n.insurer,
        "product": n.product,
        "policy_no": n.policy_no,
        "claim_no": n.claim_no,
        "claim_items": list(n.claim_items),
        "amount_won": n.amount_won,
        "dates": n.dates,
        "diagnosis": n.diagnosis,
        "reasons": [{"text": r.text, "heading": r.heading, "cited": [r.raw for r in r.refs], "laws": laws_cited(r.text)} for r in n.reasons],
        "ocr": None if n.ocr is None else {
            "engine": n.ocr.engine, "confidence": round(n.ocr.confidence, 1), "text": n.ocr.text,
            "pages": [{"page": p.number, "confidence": round(p.confidence, 1), "words": p.words} for p in n.ocr.pages],
        },
    }


def laws_cited(text: str) -> list[str]:
    """The statutes' articles ``text`` cites, as the law they are: "도로교통법 제44조 제1항"."""
    return list(dict.fromkeys(f"{r.statute} {r.label}" for r in parse_clause_refs(text) if r.statute))


def evidence_json(e: ReasonEvidence) -> dict[str, Any]:
    return {
        "reason": e.reason.text[:120],
        "scope": list(e.scope),
        "cited": [{"as_written": c.ref.raw, "yakgwan": c.yakgwan, "article": c.ref.label, "found": bool(c.chunks)} for c in e.cited],
        "retrieved": [{"rank": h.rank, "yakgwan": h.chunk.yakgwan, "article": h.chunk.article, "page": h.chunk.pages[0] if h.chunk.pages else None,
                       "chunk_id": h.chunk.chunk_id, "score": round(h.score, 4)} for h in e.retrieved],
    }
