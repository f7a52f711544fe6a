"""The appeal workflow on a notice and an opened policy: find the evidence for each reason,
draft the analysis (rules, or the LLM on top), validate it. Opening the policy (indexing a PDF
on first use) is the ``appeal`` service's job (``yakgwan.services.appeal``)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

from yakgwan.appeal.analysis import analyse
from yakgwan.appeal.llm_analysis import FINDINGS_USE, analyse_with_llm
from yakgwan.appeal.model_checks import run_checks
from yakgwan.appeal.notice import DenialNotice, NoDenialReason, parse_notice
from yakgwan.appeal.policy import Policy
from yakgwan.appeal.result import AppealResult, PolicyRef
from yakgwan.appeal.retrieve import MODES, evidence_for
from yakgwan.appeal.validate import validate
from yakgwan.core.errors import InputError, NoTextLayer
from yakgwan.ingest.loaders.pdf import PdfLoader
from yakgwan.core.location import display_location
from yakgwan.ingest.loaders import SourceFile, load_file, not_a_file_reason
from yakgwan.ingest.pdf.ocr import IMAGE_SUFFIXES, OcrText, ocr_image, ocr_pdf
from yakgwan.messages import msg

ANALYSES = ("auto", "rules", "llm")
SEARCHES = ("single", "fused")


@dataclass(frozen=True)
class AppealOptions:
    """``analysis``: ``rules`` (templates only), ``llm`` (the configured LLM's analysis on top;
    an error without one), ``auto`` (``llm`` when an LLM is configured). ``llm_findings``:
    ``advise`` (listed, the band unmoved) or ``apply`` (they move the band). ``mode``: how each
    reason is searched (plain, hyde, reverse_hyde, hybrid_hyde); ``search``: ``single`` or
    ``fused`` (plus two LLM-written variants, RRF, gated yes/no rerank)."""

    mode: str = "plain"
    analysis: str = "auto"
    llm_findings: str = "advise"
    search: str = "single"

    def __post_init__(self) -> None:
        for flag, value, allowed in (("--search", self.search, SEARCHES), ("--llm-findings", self.llm_findings, FINDINGS_USE),
                                     ("--mode", self.mode, MODES), ("--analysis", self.analysis, ANALYSES)):
            if value not in allowed:
                raise InputError(None, msg("appeal.unknown_option", flag=flag, value=repr(value), available=", ".join(allowed)))


def read_notice(path: Path, reasons: Sequence[str] = ()) -> DenialNotice:
    """A notice from a text, PDF or picture file: a scanned PDF or a PNG/JPEG photo is read by
    OCR (:mod:`yakgwan.ingest.pdf.ocr`), and the notice keeps how (engine, confidence). An
    empty, unreadable or illegible file is an ``InputError`` naming it. ``reasons``: the denial
    reasons a reader gave (marked in the notice or typed), used instead of those recognised."""
    if path.suffix.lower() in IMAGE_SUFFIXES:
        if not path.is_file():
            raise InputError(str(path), not_a_file_reason(path))
        if path.stat().st_size == 0:
            raise InputError(str(path), msg("load.empty"))
        return _parsed_ocr(ocr_image(path), path, reasons)
    try:
        if path.suffix.lower() == ".pdf" and path.is_file():
            # a notice's pages are read by the OCR below when it is a scan: it keeps how (engine, confidence)
            docs = PdfLoader(ocr=False).load(path, path.parent)
        else:
            docs = load_file(SourceFile(path, path.parent))
    except NoTextLayer:
        return _parsed_ocr(ocr_pdf(path), path, reasons)
    return parse_notice("\n".join(d.text for d in docs), str(path), reasons)


def _parsed_ocr(ocr: OcrText, path: Path, reasons: Sequence[str]) -> DenialNotice:
    try:
        notice = parse_notice(ocr.text, str(path), reasons)
    except NoDenialReason as exc:
        said = msg("error.ocr_note", reason=exc.given_reason, confidence=f"{ocr.confidence:.0f}")
        raise NoDenialReason(str(path), said, exc.sentences) from None
    except InputError as exc:
        said = msg("error.ocr_note", reason=exc.given_reason, confidence=f"{ocr.confidence:.0f}")
        raise InputError(str(path), said) from None
    return replace(notice, ocr=ocr)


def analyse_notice(notice: DenialNotice, policy: Policy, opts: AppealOptions) -> AppealResult:
    """The validated analysis of ``notice`` against ``policy``."""
    if not policy.covers_product(notice.product, misread=notice.ocr is not None):
        raise InputError(notice.source, msg("appeal.other_product", product=repr(notice.product), policy=repr(", ".join(policy.products))))
    llm = policy.ctx.llm
    if opts.analysis == "llm" and llm is None:
        raise InputError(None, msg("appeal.llm_needed"))
    evidence = evidence_for(notice, policy, opts.mode, fused=opts.search == "fused")
    notes = [e.note for e in evidence if e.note][:1]
    read = run_checks(notice, evidence, policy, llm if opts.analysis != "rules" else None)
    if opts.llm_findings != "apply":  # a model's reading is advice unless asked to count: listed, the band unmoved
        read = replace(read, findings=tuple(f if f.by != "llm" else replace(f, moves=False) for f in read.findings))
    if opts.analysis != "rules" and llm is not None:
        done = analyse_with_llm(notice, evidence, policy, llm, opts.llm_findings, read)
        drafted, by = done.analysis, done.by
        notes += [done.note] if done.note else []
    else:
        drafted, by = analyse(notice, evidence, policy, read=read.findings, checks=read.statuses), "rules"
    checked = validate(drafted, {c.chunk_id: c for c in policy.chunks})
    return AppealResult(
        denial=notice, analysis=checked.analysis, metrics=checked.metrics, removed_evidence=tuple(checked.removed), evidence=tuple(evidence),
        mode=opts.mode, search=opts.search, analysis_by=by, llm_findings=opts.llm_findings if by != "rules" else None,
        policy=PolicyRef(policy.source, policy.products, display_location(policy.index_dir)), notes=tuple(notes),
    )
