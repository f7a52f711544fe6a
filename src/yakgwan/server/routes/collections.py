"""Collections, their documents (upload → ingest job) and jobs."""

from __future__ import annotations

from typing import Annotated, Any, Callable

from fastapi import APIRouter, File, UploadFile

from yakgwan.core.errors import InputError, YakgwanError
from yakgwan.core.protocols import ProgressSink
from yakgwan.server.schemas import CollectionIn, CollectionOut, DocumentOut, JobOut, OutlineOut
from yakgwan.server.runtime.collections import Collection
from yakgwan.server.runtime.jobs import Cancelled
from yakgwan.messages import msg, said
from yakgwan.server.problems import Lang, Problem
from yakgwan.server.runtime.service import Service
from yakgwan.server.runtime.uploads import PICTURES, Sniffed, display_name, renamed, sniff
from yakgwan.services.context import open_store
from yakgwan.services.outline import outline_of
from yakgwan.services.ask import warm_answer_units
from yakgwan.services.ingest import ingest


def read_upload(service: Service, upload: UploadFile) -> bytes:
    limit = service.config.max_upload_bytes
    data = upload.file.read(limit + 1)
    if len(data) > limit:
        raise Problem(413, msg("error.upload_too_large", file=display_name(upload.filename), limit=f"{limit:,}"), "too-large")
    return data


def collection_out(service: Service, col: Collection) -> CollectionOut:
    meta = col.meta()
    store = open_store(col.index_dir)
    docs = chunks = 0
    if store.exists():
        view = service.collections.view(col)
        docs, chunks = len(view.docs), len(view.chunks)
    return CollectionOut(name=col.name, title=meta.get("title", col.name), created=meta.get("created", 0.0), documents=docs, chunks=chunks,
                         busy=service.jobs.busy(col.name))


def router(service: Service) -> APIRouter:
    r = APIRouter(prefix="/api", tags=["collections"])
    _collection_routes(r, service)
    _document_routes(r, service)
    _job_routes(r, service)
    return r


def _collection_routes(r: APIRouter, service: Service) -> None:
    @r.get("/collections", response_model=list[CollectionOut], summary="List collections")
    def list_collections() -> list[CollectionOut]:
        return [collection_out(service, c) for c in service.collections.list()]

    @r.post("/collections", response_model=CollectionOut, status_code=201,
            summary="Create a collection: a title people read (any text) and an id for URLs (made from the title when not given)")
    def create_collection(body: CollectionIn) -> CollectionOut:
        return collection_out(service, service.collections.create(body.name, body.title))

    @r.get("/collections/{name}", response_model=CollectionOut, summary="One collection")
    def get_collection(name: str) -> CollectionOut:
        return collection_out(service, service.collections.get(name))

    @r.delete("/collections/{name}", status_code=204, summary="Delete a collection, its index and its uploads")
    def delete_collection(name: str) -> None:
        service.collections.get(name)
        with service.collections.lock_for(name):
            if service.jobs.busy(name):
                raise Problem(409, msg("error.collection_busy", name=repr(name)), "busy")
            service.collections.delete(name)


def _document_routes(r: APIRouter, service: Service) -> None:
    @r.get("/collections/{name}/documents", response_model=list[DocumentOut], summary="Documents in a collection")
    def list_documents(name: str) -> list[DocumentOut]:
        col = service.collections.get(name)
        if not open_store(col.index_dir).exists():
            return []
        files = col.files()
        view = service.collections.view(col)
        return [
            DocumentOut(doc_id=d.doc_id, name=files.get(d.doc_id, {}).get("name", d.doc_id), kind=d.kind, title=d.title, pages=d.n_pages, chunks=d.n_chunks,
                        labels={k: v for k in ("insurer", "product", "version") if (v := d.label(k))},
                        printed_from={k: w for k, w in d.printed_from.items() if k not in d.meta})
            for d in sorted(view.docs.values(), key=lambda d: d.doc_id)
        ]

    @r.get("/collections/{name}/outline", response_model=OutlineOut,
           summary="What the index read of each document (or of the one ?doc= names): identity, each 약관 with its pages and 조, "
                   "appendices, pages read by OCR, warnings (docs/outline.md)")
    def get_outline(name: str, lang: Lang, doc: str | None = None) -> dict[str, Any]:
        col = service.collections.get(name)
        names = {d: str(f.get("name", d)) for d, f in col.files().items()}
        view = service.collections.view(col) if open_store(col.index_dir).exists() else None
        try:
            return outline_of(col.name, view.chunks if view else [], view.docs if view else {}, doc, names).to_json(lang)
        except InputError as exc:
            raise Problem(404, exc, "not-found") from None

    @r.post("/collections/{name}/documents", response_model=JobOut, status_code=202,
            summary="Upload a document (PDF, DOCX, HTML, Markdown, text) and ingest it in the background")
    def upload_document(name: str, file: Annotated[UploadFile, File(description="the document")], lang: Lang) -> JobOut:
        service.collections.get(name)
        data = read_upload(service, file)
        sniffed = sniff(data, file.filename)
        if sniffed.kind in PICTURES:
            raise Problem(415, msg("error.picture_not_indexed", file=sniffed.display_name), "unsupported-type")
        col = service.collections.get(name)
        work = _ingest_job(service, col, sniffed)
        with service.collections.lock_for(name):  # a delete waits until the job is queued, then sees it busy
            service.collections.get(name)
            known = sniffed.stored_name in col.files()
            service.collections.store_upload(col, data, sniffed)
            try:
                job = service.jobs.submit("ingest", work, col.name)
            except Exception:  # a full queue (503): an upload no job will read is not kept
                if not known:
                    service.collections.forget_upload(col, sniffed.stored_name)
                raise
        return JobOut(**service.jobs.snapshot(job.id, lang=lang))


def _ingest_job(service: Service, col: Collection, sniffed: Sniffed) -> Callable[[ProgressSink], dict[str, Any]]:
    """The background job that ingests one stored upload into ``col``; a file that cannot be
    read is forgotten again and fails the job with the name the client gave it."""
    settings = service.config.settings.with_(index_dir=col.index_dir, quiet=True)
    path = col.files_dir / sniffed.stored_name

    def work(sink: ProgressSink) -> dict[str, Any]:
        if not (col.root / "collection.json").is_file():
            raise Problem(409, msg("error.collection_deleted", name=repr(col.name)), "deleted")
        known = col.files()
        try:
            report = ingest(settings, [path], embedder=service.models.ingest_embedder(), sink=sink)
        except Cancelled:
            if not _indexed(col, sniffed.stored_name):
                service.collections.forget_upload(col, sniffed.stored_name)
            raise
        except Exception as exc:
            if not _indexed(col, sniffed.stored_name):
                service.collections.forget_upload(col, sniffed.stored_name)
            if isinstance(exc, InputError):  # named by what the client called the file, not where it is stored
                raise Problem(422, msg("error.at_file", file=sniffed.display_name, reason=exc.given_reason), "unreadable") from None
            if isinstance(exc, YakgwanError) and exc.message is None:
                raise YakgwanError(str(exc).replace(str(path), sniffed.display_name)) from None
            raise
        if report.failed:  # the file could not be read: the index is as it was
            service.collections.forget_upload(col, sniffed.stored_name)
            failed = report.failed[0]
            reason = failed.given_reason if isinstance(failed, InputError) else str(failed)
            raise Problem(422, msg("error.at_file", file=sniffed.display_name, reason=reason), "unreadable")
        units = _warm_units(service, col, set(report.added) | set(report.replaced), sink) if report.dense_ready else 0
        return {"document": sniffed.stored_name, "name": sniffed.display_name, "kind": sniffed.kind, "added": len(report.added),
                "replaced": len(report.replaced), "unchanged": len(report.unchanged), "chunks": report.new_chunks,
                "pages": report.new_pages, "seconds": round(report.seconds_total, 2), "dense_ready": report.dense_ready,
                "answer_units": units,
                # kept as messages, said in each reader's language; the file by the name the client gave it
                "warnings": [renamed(said(w, None), str(path), sniffed.display_name) for w in report.warnings],
                "already_uploaded": sniffed.stored_name in known and not report.added and not report.replaced}

    return work


def _warm_units(service: Service, col: Collection, docs: set[str], sink: ProgressSink) -> int:
    """The answer units of the documents just indexed, embedded now (:mod:`yakgwan.answer.unit_warm`)
    so that the first questions about them do not wait for it; how many there are (0 when the
    index was made by another embedder than the one that answers)."""
    view = service.collections.view(col)
    embedder = service.models.embedder()
    if not docs or view.embedder != embedder.model_id:
        return 0
    return warm_answer_units([c for c in view.chunks if c.doc_id in docs], service.models.unit_vectors(embedder), sink=sink)


def _job_routes(r: APIRouter, service: Service) -> None:
    @r.get("/jobs", response_model=list[JobOut], summary="Recent jobs, newest first (without results)")
    def list_jobs(lang: Lang) -> list[JobOut]:
        return [JobOut(**j) for j in service.jobs.snapshots(lang)]

    @r.get("/jobs/{job_id}", response_model=JobOut, summary="A job's status, progress and (when finished) result")
    def get_job(job_id: str, lang: Lang) -> JobOut:
        return JobOut(**service.jobs.snapshot(job_id, lang=lang))

    @r.delete("/jobs/{job_id}", response_model=JobOut, status_code=202,
              summary="Cancel a job: a queued one never starts, a running one stops at its next progress step")
    def cancel_job(job_id: str, lang: Lang) -> JobOut:
        service.jobs.cancel(job_id)
        return JobOut(**service.jobs.snapshot(job_id, lang=lang))


def _indexed(col: Collection, doc_id: str) -> bool:
    store = open_store(col.index_dir)
    return store.exists() and doc_id in store.read().docs
