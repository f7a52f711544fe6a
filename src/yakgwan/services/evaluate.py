"""``evaluate``: index a test set's corpus (once per set of ingest steps), run every pipeline
over its questions and score it; one result per pipeline.

Doc-level metrics follow trec_eval (a document's rank is the rank of its best chunk);
``seed_metrics`` reproduce the seed tutorial's chunk-level definitions for comparison with its
published figures. Every result names its dataset, k, pipeline and the command that produced it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import platform
import time
from pathlib import Path
from typing import Callable, Sequence

from yakgwan import __version__
from yakgwan.config import Settings
from yakgwan.core.errors import InputError, ProviderError
from yakgwan.messages import msg
from yakgwan.core.files import atomic_write_text
from yakgwan.core.location import IndexLocation, is_database_uri
from yakgwan.core.records import sha256_hex
from yakgwan.eval.answers import load_unanswerable
from yakgwan.eval.datasets import HALVES, EvalSet, corpus_sha256, is_clause_file, load_beir, load_clauses, load_seed, questions_sha256
from yakgwan.eval.result import BuildRecord, EvalResult, IndexInfo
from yakgwan.eval.runner import METRIC_KEYS, EvalOptions, EvalRequest, answer_eval, check_governing_units, check_judged_documents, score_retriever
from yakgwan.ingest.run import IngestReport
from yakgwan.ingest.steps.registry import make_steps
from yakgwan.llm import LLM, UsageStats, make_llm
from yakgwan.pipelines import DEFAULT_PIPELINE, PipelineContext, PipelineSpec, llm_fallback_note, resolve_pipeline
from yakgwan.progress import ProgressSink
from yakgwan.services.context import open_context
from yakgwan.services.ingest import ingest
from yakgwan.store import sibling_collection

# what the CLI and the server need beside the service itself
__all__ = ["HALVES", "METRIC_KEYS", "EvalRequest", "EvalResult", "EvalSet", "eval_index_dir", "evaluate", "load_beir", "load_evalset", "load_seed", "load_unanswerable"]

BUILD_RECORD = "eval-build.json"  # beside an eval index: what building it cost
Warn = Callable[[str], None]


def load_evalset(corpus: Path | None, tests: Path | None, beir: Path | None, half: str | None = None) -> EvalSet:
    """A seed-format set (``corpus`` folder + ``tests`` JSONL), a clause-level set (``corpus``
    a policy PDF or its folder + ``tests`` JSONL whose rows have ``governing``), either with
    ``half`` keeping its tuning or checking half, or a BEIR folder."""
    if beir:
        if corpus or tests:
            raise InputError(None, msg("eval.beir_or_corpus"))
        if half is not None:
            raise InputError(None, msg("eval.half_beir"))
        return load_beir(beir)
    if not (corpus and tests):
        raise InputError(None, msg("eval.needs_set"))
    if is_clause_file(tests):
        return load_clauses(corpus, tests, half)
    return load_seed(corpus, tests, half)


def eval_index_dir(settings: Settings, evalset: EvalSet, step_fingerprints: Sequence[str] = ()) -> IndexLocation:
    """A per-corpus index, reused (and updated incrementally) across runs: under the cache
    folder, or, when the index is a database (``--index postgresql://…``), in a collection of
    that database named after the given one (``NAME_eval_<key>``). Indexes built with LLM ingest
    steps are kept apart, per step fingerprint (model, prompt)."""
    base = f"{evalset.corpus.resolve()}|{settings.embedder.name}|{settings.embedder.model}|{settings.tokenizer}"
    if step_fingerprints:
        base += "|" + ",".join(step_fingerprints)
    key = sha256_hex(base)[:16]
    if is_database_uri(settings.index_dir):
        return sibling_collection(str(settings.index_dir), f"eval_{key[:12]}")
    return settings.cache_dir / "eval-index" / key


def build_record_path(settings: Settings, index: IndexLocation) -> Path:
    """Where the cost of building the eval index at ``index`` is kept: beside a folder index, in
    the cache folder for a database collection."""
    if is_database_uri(index):
        return settings.cache_dir / "eval-index" / f"{sha256_hex(str(index))[:16]}.{BUILD_RECORD}"
    return Path(index) / BUILD_RECORD


def evaluate(
    settings: Settings,
    req: EvalRequest,
    sink: ProgressSink | None = None,
    on_result: Callable[[EvalResult], None] | None = None,
    make_llm_once: Callable[[], LLM | None] | None = None,
    on_warning: Warn | None = None,
) -> list[EvalResult]:
    """Index the corpus (once per set of ingest steps), run every pipeline, score it; one result
    per pipeline. ``sink`` receives the progress of each stage; ``on_result`` each result as it
    is ready; ``make_llm_once`` makes the run's LLM (default: from ``settings``); ``on_warning``
    hears what is wrong but not fatal (files not indexed, judged documents missing)."""
    evalset = _limited(req.evalset, req.limit)
    specs = [resolve_pipeline(DEFAULT_PIPELINE if n == "default" else n) for n in req.pipelines]  # a typo fails before minutes of ingest
    warn = on_warning or (lambda message: None)
    # what makes results of separate runs comparable (``yakgwan report`` checks it)
    same_set = {"questions_sha256": questions_sha256(evalset.queries), "corpus_sha256": corpus_sha256(evalset.corpus)}
    about = {"command": req.command, "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"}
    contexts: dict[tuple[str, ...], tuple[PipelineContext, BuildRecord, Settings]] = {}
    shared: list[LLM | None] = []

    def get_llm() -> LLM | None:  # one model for every index and pipeline of this run
        if not shared:
            shared.append(make_llm_once() if make_llm_once is not None else make_llm(settings.llm, settings.cache_dir))
        return shared[0]

    results = []
    for spec in specs:
        if spec.ingest_steps not in contexts:  # one index per set of ingest steps, built when first needed
            needs_dense = any(s.needs_dense for s in specs)
            contexts[spec.ingest_steps] = _eval_index(settings, evalset, spec.ingest_steps, needs_dense, get_llm, sink, warn)
        ctx, built_index, isettings = contexts[spec.ingest_steps]
        res = dataclasses.replace(
            _run_pipeline(spec, ctx, evalset, req, settings.quiet, sink, isettings, settings.language), **about, **same_set,
            measured_at=time.strftime("%Y-%m-%d", time.gmtime()), yakgwan=__version__,
            index=IndexInfo(len(ctx.view.chunks), tuple(ctx.view.ingest_steps), built_index),
        )
        if req.answers:
            res = dataclasses.replace(res, answers=answer_eval(req, ctx, spec.name, evalset, settings.quiet, sink, settings.language))
        results.append(res)
        if on_result is not None:
            on_result(res)
    return results


def _limited(evalset: EvalSet, limit: int | None) -> EvalSet:
    if limit is None:
        return evalset
    note = f"; first {min(limit, len(evalset.queries))} of {len(evalset.queries)} questions (--limit)"
    return dataclasses.replace(evalset, queries=evalset.queries[:limit], source=evalset.source + note)


def _run_pipeline(spec: PipelineSpec, ctx: PipelineContext, evalset: EvalSet, req: EvalRequest, quiet: bool, sink: ProgressSink | None,
                  isettings: Settings, lang: str = "en") -> EvalResult:
    """One pipeline's scores over the set, with what it built beside the index (``req.ray``:
    its questions run by the actors of a Ray cluster, ``services.ray_eval``)."""
    if req.ray:
        from yakgwan.services.ray_eval import score_on_ray

        return score_on_ray(req.ray, req.ray_workers, isettings, spec.name, evalset, EvalOptions(k=req.k), llm_fallback_note(spec, ctx), quiet, sink, lang)
    llm = ctx.llm if spec.needs_llm else None
    if llm is not None:
        llm.stats = UsageStats()
    note = llm_fallback_note(spec, ctx)
    retriever = spec.build(ctx)
    res = score_retriever(retriever, spec.name, evalset, EvalOptions(k=req.k), quiet, note, llm, sink, lang)
    built = getattr(retriever, "built", None)
    if callable(built) and (what := built()):  # what the pipeline built beside the index (RAPTOR's tree, late's token vectors)
        return dataclasses.replace(res, built=what)
    return res


def built_record(report: IngestReport, ingest_llm: dict | None) -> dict:
    """What building (or updating) an eval index cost, as ``BUILD_RECORD`` keeps it (the JSON
    of a :class:`BuildRecord`): seconds, the documents the ingest steps saw, what they left as it
    was and why, and their LLM usage."""
    out: dict = {"ingest_seconds": round(report.seconds_total, 2), "documents": len(report.added) + len(report.replaced)}
    if report.unchanged:  # an update of an index built before: the cost of this update only
        out["incremental"] = True
    if report.step_fallbacks:
        out["step_fallbacks"] = report.step_fallbacks
    if report.step_reasons:  # which documents, and why (ids and error messages, no text)
        out["step_fallback_reasons"] = {step: [str(why) for why in reasons] for step, reasons in report.step_reasons.items()}  # in English, as results are
    if ingest_llm is not None:
        out["llm"] = ingest_llm
    return out


def _eval_index(
    settings: Settings, evalset: EvalSet, steps: tuple[str, ...], needs_dense: bool, get_llm: Callable[[], LLM | None],
    sink: ProgressSink | None, warn: Warn,
) -> tuple[PipelineContext, BuildRecord, Settings]:
    """The eval index for ``steps`` (built, updated or reused) and what building it cost. A
    reused index reports the cost recorded when it was built (``BUILD_RECORD`` in its folder;
    none for an index built before records were kept), marked ``reused``."""
    llm = get_llm() if steps else None
    if llm is None:
        steps = ()  # no LLM: the plain index (the pipeline's note says it ran its fallback)
    else:
        llm.stats = UsageStats()
    isettings = settings.with_(index_dir=eval_index_dir(settings, evalset, [st.fingerprint for st in make_steps(steps, llm)]))
    report = ingest(isettings, [evalset.corpus], sync=True, steps=steps, llm=llm, sink=sink)
    for problem in report.failed:
        warn(f"not indexed: {problem}")
    if not report.dense_ready and needs_dense:
        raise ProviderError(msg("eval.no_dense", corpus=str(evalset.corpus), why=report.dense_error or msg("cli.incomplete")))
    record_path = build_record_path(settings, isettings.index_dir)
    if report.added or report.replaced or report.removed:  # this run built or updated the index
        ingest_llm = {"model": llm.name, **llm.stats.as_dict(), "seconds": round(llm.stats.latency_ms / 1000, 1)} if llm is not None else None
        built = built_record(report, ingest_llm)
        record_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_text(record_path, json.dumps(built, ensure_ascii=False, indent=1))
    else:  # reused as it was: the cost recorded when it was built, if it was
        built = json.loads(record_path.read_text("utf-8")) if record_path.exists() else {}
        built |= {"reused": True, "reuse_seconds": round(report.seconds_total, 2)}
    ctx = open_context(isettings)
    ctx.make_llm, ctx.sink = get_llm, sink
    problems = check_governing_units(evalset, ctx.view.chunks) if evalset.clause_level else check_judged_documents(evalset, {c.doc_id for c in ctx.view.chunks})
    for message in problems:
        warn(message)
    return ctx, BuildRecord.from_json(built), isettings
