"""Checks on an analysis: every evidence item, and every finding's and reading check's policy side, points to a real
chunk and quotes it verbatim.

Items that fail are removed (the removal is reported); the four metrics are computed on the
analysis as produced, before removal, so a bad analysis cannot score well by being cleaned.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from yakgwan.appeal.schema import REQUIRED_KEYS, Analysis, EvidenceItem, Provenance
from yakgwan.core.records import Chunk


@dataclass
class Validation:
    analysis: Analysis
    metrics: dict[str, float]
    removed: list[str] = field(default_factory=list)


def item_problem(item: EvidenceItem, chunks: Mapping[str, Chunk]) -> str | None:
    """Why an evidence item's provenance is not valid, or None."""
    return provenance_problem(item.provenance, chunks)


def provenance_problem(p: Provenance, chunks: Mapping[str, Chunk]) -> str | None:
    """Why a provenance (an evidence item's, a finding's policy side) is not valid, or None."""
    chunk = chunks.get(p.chunk_id)
    if chunk is None:
        return f"chunk {p.chunk_id} is not in the policy index"
    if chunk.doc_id != p.doc or (chunk.yakgwan or "") != p.yakgwan:
        return f"chunk {p.chunk_id} belongs to {chunk.doc_id} / {chunk.yakgwan}, not {p.doc} / {p.yakgwan}"
    if p.quote not in chunk.text:
        return f"the quote is not a verbatim span of chunk {p.chunk_id}"
    if not p.article or (chunk.article and chunk.article not in p.article):
        return f"article {p.article!r} does not match the chunk's {chunk.article!r}"
    return None


def validate(analysis: Analysis, chunks: Mapping[str, Chunk]) -> Validation:
    data = analysis.model_dump()
    completeness = sum(bool(data.get(k)) for k in REQUIRED_KEYS) / len(REQUIRED_KEYS)
    items = analysis.evidence_pack
    problems = [item_problem(i, chunks) for i in items]
    quotes_ok = [i.provenance.chunk_id in chunks and i.provenance.quote in chunks[i.provenance.chunk_id].text for i in items]
    metrics = {
        "schema_completeness": completeness,
        "provenance_coverage": sum(p is None for p in problems) / len(items) if items else 0.0,
        "band_validity": 1.0 if analysis.success_probability.band in ("LOW", "MEDIUM", "HIGH") else 0.0,
        "quote_validity": sum(quotes_ok) / len(items) if items else 0.0,
    }
    kept = [i for i, p in zip(items, problems) if p is None]
    removed = [f"{i.claim}: {p}" for i, p in zip(items, problems) if p is not None]
    findings = []
    for f in analysis.findings:  # a finding keeps its words; a policy side that fails the checks is dropped and reported
        why = provenance_problem(f.policy, chunks) if f.policy is not None else None
        if why is not None:
            removed.append(f"finding {f.kind} (policy side): {why}")
            f = f.model_copy(update={"policy": None})
        findings.append(f)
    checks = []
    for c in analysis.checks:  # likewise a reading check's policy side
        why = provenance_problem(c.policy, chunks) if c.policy is not None else None
        if why is not None:
            removed.append(f"check {c.check} (policy side): {why}")
            c = c.model_copy(update={"policy": None})
        checks.append(c)
    return Validation(analysis.model_copy(update={"evidence_pack": kept, "findings": findings, "checks": checks}), metrics, removed)
