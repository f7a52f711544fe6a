"""Search, ask (JSON or a server-sent-events stream), a chunk by id, and the pipeline list."""

from __future__ import annotations

import asyncio
import json
import queue
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import StreamingResponse
from starlette.concurrency import run_in_threadpool

from yakgwan.core.errors import YakgwanError
from yakgwan.server.schemas import AskIn, AskOut, ChunkOut, HitOut, PipelineOut, SearchIn, SearchOut
from yakgwan.services.ask import Asker, RuleSet
from yakgwan.services.pipelines import pipeline_name, pipeline_rows
from yakgwan.services.context import parse_filters
from yakgwan.services.search import hit_json
from yakgwan.services.search import search as run_search
from yakgwan.messages import msg, said
from yakgwan.server.problems import Lang, Problem, from_yakgwan, log, request_lang
from yakgwan.server.runtime.service import Service

STREAM_PIECE = 12  # characters per answer event: the validated answer is sent in small pieces


def router(service: Service) -> APIRouter:
    r = APIRouter(prefix="/api", tags=["query"])
    _search_routes(r, service)
    _ask_routes(r, service)
    return r


def _search_routes(r: APIRouter, service: Service) -> None:
    @r.get("/pipelines", response_model=list[PipelineOut], summary="Every pipeline by name")
    def pipelines(lang: Lang) -> list[PipelineOut]:
        return [PipelineOut(name=p.name, description=p.description.text(lang), needs_llm=p.needs_llm) for p in pipeline_rows()]

    @r.post("/collections/{name}/search", response_model=SearchOut, summary="Search a collection")
    def search(name: str, body: SearchIn, lang: Lang) -> SearchOut:
        col = service.collections.get(name)
        res = service.collections.fresh(col, lambda: run_search(service.collections.context(col, body.filters), body.query, body.pipeline, body.k))
        names = col.display_names()
        fields = HitOut.model_fields
        out = [HitOut(**{k: v for k, v in hit_json(h).items() if k in fields}, doc_name=names.get(h.chunk.doc_id, h.chunk.doc_id)) for h in res.hits]
        route = res.route.to_json() if res.route is not None else None
        scope = None if res.scope is None else _named_scope({**res.scope.to_json(), "note": said(res.scope_note, lang)}, names)
        return SearchOut(pipeline=res.pipeline, latency_ms=round(res.latency_ms, 2), note=said(res.note, lang), dense=res.dense, hits=out, route=route,
                         filters=[str(f) for f in parse_filters(body.filters)], scope=scope)

    @r.get("/collections/{name}/chunks/{chunk_id}", response_model=ChunkOut, summary="One chunk's full text and provenance")
    def chunk(name: str, chunk_id: str) -> ChunkOut:
        col = service.collections.get(name)
        view = service.collections.view(col)
        found = next((c for c in view.chunks if c.chunk_id == chunk_id), None)
        if found is None:
            raise Problem(404, msg("error.no_chunk", chunk=repr(chunk_id), name=repr(name)), "unknown-chunk")
        names = col.display_names()
        return ChunkOut(chunk_id=found.chunk_id, doc=found.doc_id, doc_name=names.get(found.doc_id, found.doc_id), title=found.title,
                        pages=list(found.pages), yakgwan=found.yakgwan, article=found.article, article_title=found.article_title,
                        paragraph=found.paragraph, section=found.section, text=found.text)


def _answer(service: Service, name: str, body: AskIn, lang: str, on_stage: Callable[[str, dict], None] | None = None) -> dict[str, Any]:
    """The answer's JSON (its notes in ``lang``), its citations naming each document as it was uploaded."""
    col = service.collections.get(name)

    def run() -> dict[str, Any]:
        ctx = service.collections.context(col, body.filters)
        asker = Asker(ctx, pipeline=body.pipeline, mode=body.mode, k=body.k, rules=RuleSet.parse(body.rules), anchors=service.models.anchor_finder(),
                      corpus=service.collections.corpus_text(ctx.view), unit_vectors=service.models.unit_vectors(ctx.embedder))
        return asker.ask(body.question, on_stage).to_json(lang)

    res = service.collections.fresh(col, run)
    names = col.display_names()
    for c in [*res["citations"], *res.get("instructions", [])]:
        c["doc_name"] = names.get(c["doc"], c["doc"])
    if res.get("scope"):
        res["scope"] = _named_scope(res["scope"], names)
        res["notes"] = [_as_uploaded(n, names) for n in res["notes"]]
        if res.get("by") == "scope":  # a refusal that lists the documents the collection holds
            res["answer"] = _as_uploaded(res["answer"], names)
    return res


def _as_uploaded(text: str, names: dict[str, str]) -> str:
    """``text`` with every document id in it written as the document was uploaded."""
    for doc_id, name in names.items():
        text = text.replace(doc_id, name)
    return text


def _named_scope(scope: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """A scope's JSON with the documents' names as uploaded beside their ids, and its note in them."""
    docs = scope.get("docs")
    note = scope.get("note")
    return {**scope, "doc_names": None if docs is None else [names.get(d, d) for d in docs],
            **({"note": _as_uploaded(note, names)} if isinstance(note, str) else {})}


def _ask_routes(r: APIRouter, service: Service) -> None:
    @r.post("/collections/{name}/ask", response_model=AskOut, summary="Answer from the collection's documents, with citations, or refuse")
    def ask(name: str, body: AskIn, lang: Lang) -> AskOut:
        return AskOut(**_answer(service, name, body, lang))

    @r.post(
        "/collections/{name}/ask/stream",
        summary="The same answer as a server-sent-events stream",
        response_class=StreamingResponse,
        responses={200: {"content": {"text/event-stream": {}}, "description": "events: status, answer (text pieces), citations, done; or error"}},
    )
    async def ask_stream(name: str, body: AskIn, request: Request) -> StreamingResponse:
        # what would fail at once fails as a problem+json answer, not inside a 200 stream
        def check() -> None:
            service.collections.view(service.collections.get(name))
            pipeline_name(body.pipeline)
            RuleSet.parse(body.rules)

        await run_in_threadpool(check)  # an index may load from disk: not on the event loop
        lang = request_lang(request)
        box: queue.Queue[tuple[str, Any]] = queue.Queue()

        def work() -> None:  # the answer runs in its own thread; its stages come through the queue
            try:
                box.put(("result", _answer(service, name, body, lang, lambda stage, facts: box.put(("status", {"stage": stage, **facts})))))
            except (Problem, YakgwanError) as exc:
                p = exc if isinstance(exc, Problem) else from_yakgwan(exc)
                box.put(("error", {"status": p.status, "detail": p.detail(lang)}))
            except Exception:  # noqa: BLE001 - the stream reports it instead of breaking off
                log.exception("ask stream failed")
                box.put(("error", {"status": 500, "detail": msg("error.internal").text(lang)}))

        return StreamingResponse(_events(work, box, request), media_type="text/event-stream", headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def _events(work: Callable[[], None], box: "queue.Queue[tuple[str, Any]]", request: Request) -> AsyncIterator[str]:
    """Runs ``work`` in a thread and sends what it puts in ``box``: its stages, then the checked
    answer in small pieces, its citations and the rest; or the error."""
    threading.Thread(target=work, name="yakgwan-ask", daemon=True).start()
    yield _event("status", {"stage": "retrieving"})
    while True:
        try:
            kind, data = box.get_nowait()
        except queue.Empty:
            if await request.is_disconnected():  # the reader left: stop waiting (the answer finishes unseen)
                return
            await asyncio.sleep(0.05)
            continue
        if kind != "result":
            yield _event(kind, data)
            if kind == "error":
                return
            continue
        # the answer is checked (citations verbatim, claims supported) before any of it is sent
        text = data["answer"]
        for i in range(0, len(text), STREAM_PIECE):
            yield _event("answer", {"delta": text[i : i + STREAM_PIECE]})
        yield _event("citations", {"citations": data["citations"]})
        yield _event("done", {k: v for k, v in data.items() if k not in ("answer", "citations")})
        return


def _event(kind: str, data: dict[str, Any]) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
