"""The denial-appeal workflow over a collection that holds the policy: upload a notice, follow the
job, read the analysis, download the evidence pack."""

from __future__ import annotations

import os
import tempfile
import uuid
from pathlib import Path
from typing import Annotated, Any, Callable, Literal

from fastapi import APIRouter, File, Form, UploadFile
from fastapi.responses import FileResponse, HTMLResponse, PlainTextResponse, Response

from yakgwan.core.errors import InputError
from yakgwan.core.protocols import ProgressSink
from yakgwan.server.schemas import JobOut
from yakgwan.messages import msg
from yakgwan.server.problems import Lang, Problem
from yakgwan.server.routes.collections import read_upload
from yakgwan.server.runtime.collections import Collection
from yakgwan.server.runtime.service import Service
from yakgwan.server.runtime.uploads import KINDS, PICTURES, Sniffed, describe, sniff
from yakgwan.services.appeal import AppealOptions, NoDenialReason, appeal, evidence_pack_text, letter_file_name, write_evidence_pack, write_letter

NOTICE_KINDS = ("pdf", "text", "markdown", "png", "jpeg")  # a scan or photo is read by OCR


def router(service: Service) -> APIRouter:
    r = APIRouter(prefix="/api", tags=["appeal"])
    root = service.config.data_dir / "appeals"
    _start_route(r, service, root)
    _pack_route(r, service, root)
    _letter_route(r, service, root)
    return r


def _start_route(r: APIRouter, service: Service, root: Path) -> None:
    @r.post("/collections/{name}/appeals", response_model=JobOut, status_code=202,
            summary="Analyse a denial notice (PDF, text, or a scan or photo read by OCR) against the policy in this collection, in the background")
    def start_appeal(
        name: str,
        lang: Lang,
        notice: Annotated[UploadFile, File(description="the denial notice: PDF, text or Markdown, or a PNG/JPEG picture (read by OCR)")],
        mode: Annotated[Literal["plain", "hyde", "reverse_hyde", "hybrid_hyde"], Form()] = "plain",
        analysis: Annotated[Literal["auto", "rules", "llm"], Form()] = "auto",
        llm_findings: Annotated[Literal["advise", "apply"], Form()] = "advise",
        search: Annotated[Literal["single", "fused"], Form()] = "single",
        filters: Annotated[list[str] | None, Form(description="analyse against the part of the collection these keep: "
                                                   "KEY=VALUE as in search (yakgwan, doc, product, insurer, version; =, !=, >=, <=, >, <)")] = None,
        reasons: Annotated[list[str] | None, Form(description="the denial reasons as the reader marked them in the notice or typed them, "
                                                   "used instead of those recognised (after a job failed with 'no-reason')", max_length=100)] = None,
    ) -> JobOut:
        col = service.collections.get(name)
        kept = list(filters or [])
        service.collections.context(col, kept)  # no documents (409) or bad filters (422) now, not a failed job later
        data = read_upload(service, notice)
        sniffed = sniff(data, notice.filename)
        if sniffed.kind not in NOTICE_KINDS:
            raise Problem(415, msg("error.notice_type", file=sniffed.display_name, content=describe(sniffed.kind)), "unsupported-type")
        root.mkdir(parents=True, exist_ok=True)
        folder = Path(tempfile.mkdtemp(prefix="appeal-", dir=root))
        path = folder / f"notice{KINDS[sniffed.kind] if sniffed.kind in ('pdf', *PICTURES) else '.txt'}"
        path.write_bytes(data)
        given = [r[:2000] for r in (reasons or []) if r.strip()]
        work = _appeal_job(service, col, path, sniffed, lambda: AppealOptions(mode=mode, analysis=analysis, llm_findings=llm_findings, search=search), kept, given)
        return JobOut(**service.jobs.snapshot(service.jobs.submit("appeal", work, col.name).id, lang=lang))


def _appeal_job(service: Service, col: Collection, path: Path, sniffed: Sniffed, options: Callable[[], AppealOptions],
                filters: list[str], reasons: list[str]) -> Callable[[ProgressSink], dict[str, Any]]:
    """The background job that analyses the stored notice ``path`` against ``col``'s policy (the
    part ``filters`` keep); an unusable notice fails it with the name the client gave the notice."""
    settings = service.config.settings.with_(quiet=True)

    def work(sink: ProgressSink) -> dict[str, Any]:
        sink(msg("stage.appeal"), 0, 1)
        try:
            result = appeal(path, col.index_dir, settings, options(), make_context=lambda _index, _parsed: service.collections.context(col, filters),
                            filters=filters, reasons=reasons).to_json(None)  # its notes said in each reader's language
        except NoDenialReason as exc:  # the reader can finish it: mark the reason among the sentences, or type it
            reason = exc.given_reason
            raise Problem(422, msg("error.at_file", file=sniffed.display_name, reason=reason), "no-reason",
                          details={"sentences": list(exc.sentences)}) from None
        except InputError as exc:  # named by what the client called the notice, not where it is kept
            where = sniffed.display_name if exc.path in (str(path), None) else col.name
            raise Problem(422, msg("error.at_file", file=where, reason=exc.given_reason), "unusable-notice") from None
        sink(msg("stage.appeal"), 1, 1)
        result["notice_name"] = sniffed.display_name
        result["denial"]["source"] = sniffed.display_name  # not where the server keeps it
        result["collection"] = col.name
        name_documents(result, col.display_names())
        result["policy"]["source"] = col.name + "".join(f" [{f}]" for f in filters)  # not where the server keeps it
        result["policy"]["index"] = col.name
        result["file_names"] = {"letter": letter_file_name(result, ""), "pack": letter_file_name(result, "", stem=msg("result.pack_name").text("ko"))}
        return result

    return work


def _pack_route(r: APIRouter, service: Service, root: Path) -> None:
    @r.get("/appeals/{job_id}/pack.{fmt}", summary="The evidence pack of a finished appeal job (md, html or pdf)",
           responses={200: {"content": {"text/markdown": {}, "text/html": {}, "application/pdf": {}}}})
    def pack(job_id: str, fmt: Literal["md", "html", "pdf"], lang: Lang) -> Response:
        job, result = _finished(service, job_id, lang)
        if fmt == "md":
            return PlainTextResponse(evidence_pack_text(result, "md", lang), media_type="text/markdown; charset=utf-8", headers={"Content-Language": lang})
        if fmt == "html":
            return HTMLResponse(evidence_pack_text(result, "html", lang), headers={"Content-Language": lang})
        out = root / f"pack-{job['id']}-{lang}.pdf"
        if not out.exists():  # written aside, then moved into place: a reader never gets half a file
            root.mkdir(parents=True, exist_ok=True)
            tmp = root / f".pack-{job['id']}.{uuid.uuid4().hex[:6]}.tmp"
            try:
                write_evidence_pack(result, tmp, "pdf", lang)
                os.replace(tmp, out)
            finally:
                tmp.unlink(missing_ok=True)
        return FileResponse(out, media_type="application/pdf", filename=letter_file_name(result, "pdf", stem=msg("result.pack_name").text(lang)),
                            headers={"Content-Language": lang})


def _finished(service: Service, job_id: str, lang: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A finished appeal job and its analysis (404 for another kind of job, 409 before it ends)."""
    job = service.jobs.snapshot(job_id, lang=lang)
    if job["kind"] != "appeal":
        raise Problem(404, msg("error.not_an_appeal", job=job_id), "not-an-appeal")
    result = job["result"]
    if job["status"] != "succeeded" or result is None:
        raise Problem(409, msg("error.appeal_not_ready", job=job_id, status=msg(f"job.status.{job['status']}")), "not-ready")
    return job, result


LETTER_TYPES = {"md": "text/markdown; charset=utf-8", "pdf": "application/pdf",
                "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document"}


def _letter_route(r: APIRouter, service: Service, root: Path) -> None:
    @r.get("/appeals/{job_id}/letter.{fmt}", summary="The letters of a finished appeal job: the 이의신청서 to the insurer and the "
           "금융감독원 분쟁조정 신청 text (md, pdf or docx), named from the case (이의신청서_<특약>_<사고일>)",
           responses={200: {"content": {t.split(";")[0]: {} for t in LETTER_TYPES.values()}}})
    def letter(job_id: str, fmt: Literal["md", "pdf", "docx"], lang: Lang) -> Response:
        job, result = _finished(service, job_id, lang)
        name = letter_file_name(result, fmt)
        out = root / f"letter-{job['id']}.{fmt}"
        if not out.exists():  # written aside, then moved into place: a reader never gets half a file
            root.mkdir(parents=True, exist_ok=True)
            tmp = root / f".letter-{job['id']}.{uuid.uuid4().hex[:6]}.{fmt}"
            try:
                write_letter(result, tmp)
                os.replace(tmp, out)
            finally:
                tmp.unlink(missing_ok=True)
        return FileResponse(out, media_type=LETTER_TYPES[fmt], filename=name)


def name_documents(result: dict[str, Any], names: dict[str, str]) -> None:
    """Beside every document id the analysis cites (``doc``, what ``--filter doc=`` takes), the
    name it was uploaded with (``doc_name``, what a reader sees): evidence, findings, checks."""
    spans = [e["provenance"] for e in result.get("evidence_pack") or []]
    spans += [f["policy"] for f in result.get("findings") or [] if f.get("policy")]
    spans += [c["policy"] for c in result.get("checks") or [] if c.get("policy")]
    for p in spans:
        p["doc_name"] = names.get(p["doc"], p["doc"])
