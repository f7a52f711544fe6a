"""The workbench's API: datasets, evaluation runs (background jobs), their HTML report, and 2-D
maps of chunk embeddings."""

from __future__ import annotations

import dataclasses
import json
import threading
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from yakgwan.core.errors import InputError
from yakgwan.core.protocols import ProgressSink
from yakgwan.server.runtime import datasets as ds
from yakgwan.server.schemas import DatasetOut, EvalIn, JobOut, MapOut, MapPoint
from yakgwan.server.runtime.embedding_map import project_2d, sample_rows
from yakgwan.messages import msg
from yakgwan.server.problems import Lang, Problem, log
from yakgwan.server.runtime.service import Service
from yakgwan.services.context import IndexView, open_store
from yakgwan.services.evaluate import EvalRequest, EvalResult, EvalSet, eval_index_dir, evaluate
from yakgwan.services.pipelines import pipeline_name
from yakgwan.services.report import build_html


QUESTIONS = "questions"  # in a job's summary of a result: how many questions its rows had


def job_summary(res: EvalResult) -> dict[str, Any]:
    """A result as a finished job reports it: its JSON without the per-question rows, and their count."""
    return dataclasses.replace(res, per_query=None).to_json(None) | {QUESTIONS: len(res.per_query or ())}  # notes said in each reader's language


class _Workbench:
    """What the workbench routes share: the datasets found, their loaded sets, where runs are
    saved, and the maps computed (a few, newest last; one t-SNE at a time)."""

    def __init__(self, service: Service) -> None:
        self.found = ds.discover(service.config.datasets_dir, service.config.clause_sets)
        self.runs = service.config.data_dir / "runs"
        self.maps: dict[str, MapOut] = {}
        self.maps_lock = threading.Lock()  # the same map asked twice is computed once
        self.loaded: dict[str, EvalSet] = {}

    def load(self, ref: ds.DatasetRef) -> EvalSet:
        if ref.name not in self.loaded:
            self.loaded[ref.name] = ref.load()
        return self.loaded[ref.name]

    def map(self, key: str, view: IndexView, source: str) -> MapOut:
        with self.maps_lock:
            if key not in self.maps:
                self.maps[key] = map_of(view, source)
                while len(self.maps) > 8:
                    self.maps.pop(next(iter(self.maps)))
            return self.maps[key]


def router(service: Service) -> APIRouter:
    r = APIRouter(prefix="/api", tags=["workbench"])
    wb = _Workbench(service)
    _eval_routes(r, service, wb)
    _map_routes(r, service, wb)
    return r


def _eval_routes(r: APIRouter, service: Service, wb: _Workbench) -> None:
    @r.get("/datasets", response_model=list[DatasetOut], summary="Evaluation sets the workbench can run")
    def datasets(lang: Lang) -> list[DatasetOut]:
        out = []
        for ref in wb.found.values():
            try:
                es = wb.load(ref)
            except InputError as exc:  # one set that cannot be read is listed with why, the others still are
                out.append(DatasetOut(name=ref.name, format=ref.format, questions=0, categories=[], source=str(ref.tests or ref.folder),  # type: ignore[arg-type]
                                      problem=exc.localized(lang)))
                continue
            cats = sorted({q.category for q in es.queries if q.category})
            out.append(DatasetOut(name=ref.name, format=ref.format, questions=len(es.queries), categories=cats, source=es.source))  # type: ignore[arg-type]
        return out

    @r.post("/evals", response_model=JobOut, status_code=202, summary="Evaluate pipelines on a dataset, in the background")
    def start_eval(body: EvalIn, lang: Lang) -> JobOut:
        ref = ds.get(wb.found, body.dataset)
        names = tuple(pipeline_name(n) for n in body.pipelines)  # an unknown name is a 422 now
        req = EvalRequest(wb.load(ref), names, body.k, body.limit, command=f"POST /api/evals {body.model_dump_json()}")
        settings = service.config.settings.with_(quiet=True)
        job_id = service.jobs.new_id()

        def work(sink: ProgressSink) -> dict[str, Any]:
            results = evaluate(settings, req, sink=sink, make_llm_once=service.models.llm, on_warning=lambda message: log.warning(message))
            wb.runs.mkdir(parents=True, exist_ok=True)
            (wb.runs / f"{job_id}.json").write_text(json.dumps([res.to_json() for res in results], ensure_ascii=False, indent=1), "utf-8")
            return {"dataset": ref.name, "results": [job_summary(res) for res in results]}

        return JobOut(**service.jobs.snapshot(service.jobs.submit("eval", work, job_id=job_id).id, lang=lang))

    @r.get("/evals/{job_id}/report.html", response_class=HTMLResponse, summary="The HTML report of a finished evaluation")
    def report(job_id: str) -> HTMLResponse:
        job = service.jobs.snapshot(job_id, lang="en")  # the report is in English, its notes too
        if job["kind"] != "eval":
            raise Problem(404, msg("error.not_an_eval", job=job_id), "not-an-eval")
        if job["status"] != "succeeded" or job["result"] is None:
            raise Problem(409, msg("error.eval_not_ready", job=job_id, status=msg(f"job.status.{job['status']}")), "not-ready")
        saved = wb.runs / f"{job_id}.json"
        if saved.is_file():
            results = [EvalResult.from_json(d) for d in json.loads(saved.read_text("utf-8"))]
        else:  # the job's summaries: without their rows, with the count of questions
            results = [EvalResult.from_json({k: v for k, v in d.items() if k != QUESTIONS}) for d in job["result"]["results"]]
        return HTMLResponse(build_html(results, title=f"yakgwan eval — {job['result']['dataset']}"))


def map_of(view: IndexView, source: str) -> MapOut:
    """A 2-D t-SNE map of (a sample of) the view's embedded chunks."""
    rows = [int(i) for i in sample_rows(len(view.chunks)) if view.dense_mask[int(i)]]
    if not rows:
        raise Problem(409, msg("error.not_embedded"), "not-embedded")
    xy = project_2d(view.vectors[rows])
    docs = view.docs
    points = []
    for (x, y), i in zip(xy, rows):
        c = view.chunks[i]
        rec = docs.get(c.doc_id)
        kind = (rec.doc_type if rec is not None and rec.doc_type else None) or c.yakgwan or (rec.kind if rec else "document")
        label = f"{c.doc_id} · {c.section or c.article or ''} · {' '.join(c.text.split())[:80]}"
        points.append(MapPoint(x=float(x), y=float(y), doc=c.doc_id, doc_type=kind, label=label))
    shown = f"{len(rows)} of {len(view.chunks)} chunks" if len(rows) < len(view.chunks) else f"{len(rows)} chunks"
    return MapOut(method="t-SNE (scikit-learn), perplexity min(30, (n-1)/3), PCA init, seed 0", source=f"{source}: {shown}, {view.embedder}", points=points)


def _map_routes(r: APIRouter, service: Service, wb: _Workbench) -> None:
    @r.get("/datasets/{name:path}/map", response_model=MapOut, summary="2-D map of a dataset's chunk embeddings (after it has been evaluated once)")
    def dataset_map(name: str) -> MapOut:
        ref = ds.get(wb.found, name)
        index_dir = eval_index_dir(service.config.settings, wb.load(ref))
        store = open_store(index_dir)
        generation = store.generation()
        if generation is None:
            raise Problem(409, msg("error.dataset_not_indexed", name=repr(name)), "not-indexed")
        return wb.map(f"dataset:{name}:{generation}", store.view(), f"dataset {name}")

    @r.get("/collections/{name}/map", response_model=MapOut, summary="2-D map of a collection's chunk embeddings")
    def collection_map(name: str) -> MapOut:
        col = service.collections.get(name)
        view = service.collections.view(col)
        generation = open_store(col.index_dir).generation()
        return wb.map(f"collection:{col.meta().get('uid', name)}:{generation}", view, f"collection {name}")
