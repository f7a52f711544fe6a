"""``yakgwan appeal NOTICE --policy PATH_OR_INDEX``: the whole workflow, and its JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from yakgwan.appeal.analysis import analyse
from yakgwan.appeal.llm_analysis import FINDINGS_USE, analyse_with_llm
from yakgwan.appeal.notice import DenialNotice, parse_notice
from yakgwan.appeal.policy import open_policy
from yakgwan.appeal.retrieve import MODES, ReasonEvidence, evidence_for
from yakgwan.appeal.validate import validate
from yakgwan.config import Settings
from yakgwan.core.errors import InputError
from yakgwan.pipelines import PipelineContext
from yakgwan.loaders import SourceFile, load_file


def read_notice(path: Path) -> DenialNotice:
    """A notice from a text or PDF file (a scanned PDF, an empty or unreadable file is an
    ``InputError`` naming it)."""
    docs = load_file(SourceFile(path, path.parent))
    return parse_notice("\n".join(d.text for d in docs), str(path))


ANALYSES = ("auto", "rules", "llm")


SEARCHES = ("single", "fused")


def run_appeal(
    notice_path: Path, policy_path: Path, settings: Settings, mode: str = "plain", analysis: str = "auto", llm_findings: str = "advise",
    search: str = "single",
    make_context: Callable[[Path], PipelineContext] | None = None,
) -> dict:
    """``analysis``: ``rules`` (templates only), ``llm`` (the configured LLM's analysis on top;
    an error without one), ``auto`` (``llm`` when an LLM is configured). ``llm_findings``:
    ``advise`` (listed, the band unmoved) or ``apply`` (they move the band)."""
    if search not in SEARCHES:
        raise InputError(None, f"unknown --search {search!r}; available: {', '.join(SEARCHES)}")
    if llm_findings not in FINDINGS_USE:
        raise InputError(None, f"unknown --llm-findings {llm_findings!r}; available: {', '.join(FINDINGS_USE)}")
    if mode not in MODES:
        raise InputError(None, f"unknown --mode {mode!r}; available: {', '.join(MODES)}")
    if analysis not in ANALYSES:
        raise InputError(None, f"unknown --analysis {analysis!r}; available: {', '.join(ANALYSES)}")
    notice = read_notice(notice_path)
    policy = open_policy(policy_path, settings, make_context)
    if not policy.covers_product(notice.product):
        raise InputError(
            str(notice_path),
            f"the notice is about {notice.product!r}, but the policy given is {', '.join(policy.products)!r}: give that product's 약관 with --policy",
        )
    llm = policy.ctx.llm
    if analysis == "llm" and llm is None:
        raise InputError(None, "--analysis llm needs an LLM: set YAKGWAN_LLM (local or openai)")
    evidence = evidence_for(notice, policy, mode, fused=search == "fused")
    notes = [e.note for e in evidence if e.note][:1]
    if analysis != "rules" and llm is not None:
        done = analyse_with_llm(notice, evidence, policy, llm, llm_findings)
        drafted, by = done.analysis, done.by
        notes += [done.note] if done.note else []
    else:
        drafted, by = analyse(notice, evidence, policy), "rules"
    checked = validate(drafted, {c.chunk_id: c for c in policy.chunks})
    out = checked.analysis.model_dump()
    return {
        "denial": _denial_json(notice),
        **out,
        "metrics": checked.metrics,
        "removed_evidence": checked.removed,
        "retrieval": [_evidence_json(e) for e in evidence],
        "mode": mode,
        "search": search,
        "analysis_by": by,
        "llm_findings": llm_findings if by != "rules" else None,
        "policy": {"source": policy.source, "products": list(policy.products), "index": str(policy.index_dir)},
        "notes": notes,
    }


def _denial_json(n: DenialNotice) -> dict:
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
        "reasons": [{"text": r.text, "heading": r.heading, "cited": [r.raw for r in r.refs]} for r in n.reasons],
    }


def _evidence_json(e: ReasonEvidence) -> dict:
    return {
        "reason": e.reason.text[:120],
        "scope": list(e.scope),
        "cited": [{"as_written": c.ref.raw, "yakgwan": c.yakgwan, "article": c.ref.label, "found": bool(c.chunks)} for c in e.cited],
        "retrieved": [{"rank": h.rank, "yakgwan": h.chunk.yakgwan, "article": h.chunk.article, "page": h.chunk.pages[0] if h.chunk.pages else None,
                       "chunk_id": h.chunk.chunk_id, "score": round(h.score, 4)} for h in e.retrieved],
    }

