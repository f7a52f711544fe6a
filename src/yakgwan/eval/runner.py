"""``yakgwan eval``: index a test set's corpus, run pipelines over its questions, score them.

Doc-level metrics follow trec_eval (a document's rank is the rank of its best chunk);
``seed_metrics`` reproduce the seed tutorial's chunk-level definitions for comparison with its
published figures. Every result names its dataset, k, pipeline and the command that produced it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import platform
import os
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from yakgwan import __version__, app
from yakgwan.config import Settings
from yakgwan.core.errors import InputError, ProviderError
from yakgwan.eval import metrics as M
from yakgwan.eval.datasets import EvalQuery, EvalSet, corpus_sha256, load_beir, load_seed, questions_sha256
from yakgwan.ingest.run import IngestReport
from yakgwan.pipelines import DEFAULT_PIPELINE, PipelineContext, llm_fallback_note, resolve_pipeline
from yakgwan.progress import ProgressSink, progress
from yakgwan.eval.answers import Unanswerable, evaluate_answers, load_unanswerable
from yakgwan.core.protocols import Retriever
from yakgwan.llm import LLM, UsageStats, make_llm
from yakgwan.core.records import sha256_hex
from yakgwan.core.files import atomic_write_text
from yakgwan.techniques.ingest_steps import make_steps
from yakgwan.techniques.step_fallbacks import fallback_lines

METRIC_KEYS = ("mrr", "ndcg", "precision", "recall")
BUILD_RECORD = "eval-build.json"  # beside an eval index: what building it cost
WARM_UP_QUERY = "보험금 청구에 필요한 서류"


@dataclass(frozen=True)
class EvalOptions:
    k: int = 10
    depth_factor: int = 5


def eval_index_dir(settings: Settings, evalset: EvalSet, step_fingerprints: Sequence[str] = ()) -> Path:
    """A per-corpus index under the cache folder, reused (and updated incrementally) across runs.
    Indexes built with LLM ingest steps are kept apart, per step fingerprint (model, prompt)."""
    base = f"{evalset.corpus.resolve()}|{settings.embedder.name}|{settings.embedder.model}|{settings.tokenizer}"
    if step_fingerprints:
        base += "|" + ",".join(step_fingerprints)
    return settings.cache_dir / "eval-index" / sha256_hex(base)[:16]


def score_query(q: EvalQuery, hits_docs: list[str], hits_texts: list[str], k: int, has_keywords: bool) -> tuple[dict, dict]:
    """Doc-level and seed metrics of one query. ``hits_docs``/``hits_texts`` are the retrieved
    chunks' document ids and texts, best first (longer than k, for doc-level de-duplication)."""
    docs = M.dedupe_docs(hits_docs)
    m = {
        "mrr": M.mrr(docs, q.relevant, k),
        "ndcg": M.ndcg(docs, q.relevant, k),
        "precision": M.precision(docs, q.relevant, k),
        "recall": M.recall(docs, q.relevant, k),
    }
    if has_keywords:  # the seed counts a question without keywords as coverage 0
        m["keyword_coverage"] = M.keyword_coverage(hits_texts[:k], q.keywords) if q.keywords else 0.0
    seed = M.seed_metrics(hits_docs[:k], hits_texts[:k], list(q.relevant), list(q.keywords) if has_keywords else None, k)
    return m, seed


def evaluate(
    retriever: Retriever,
    name: str,
    evalset: EvalSet,
    opts: EvalOptions,
    quiet: bool,
    note: str | None = None,
    llm: LLM | None = None,
    sink: ProgressSink | None = None,
) -> dict:
    """Run ``retriever`` over every question and score it. With ``llm`` (the facade the
    pipeline calls), each query's latency is split into LLM time and the rest (retrieval,
    embedding, fusion), and the LLM's usage is reported per step."""
    per_query = []
    latencies = []
    load: list[float] = []  # the 1-minute load average after each question: were the cores shared?
    llm_ms: list[float] = []
    depth = max(opts.k * opts.depth_factor, 50)
    has_keywords = any(q.keywords for q in evalset.queries)
    # warm-up on a question of no test set: models load outside the timings, and no test
    # question's LLM answers are cached before they are timed
    retriever.retrieve(WARM_UP_QUERY, depth)
    if llm is not None:  # usage covers the timed questions only
        llm.stats = UsageStats()
    for q in progress(evalset.queries, f"eval {name}", total=len(evalset.queries), quiet=quiet, unit="q", sink=sink):
        before = llm.stats.latency_ms if llm is not None else 0.0
        t0 = time.perf_counter()
        hits = retriever.retrieve(q.text, depth)
        latencies.append((time.perf_counter() - t0) * 1000)
        if hasattr(os, "getloadavg"):  # not on Windows
            load.append(os.getloadavg()[0])
        llm_ms.append(llm.stats.latency_ms - before if llm is not None else 0.0)
        # keyword coverage reads what a reader would get: the compressed evidence where there is one
        m, seed = score_query(q, [h.chunk.doc_id for h in hits], [h.evidence_text for h in hits], opts.k, has_keywords)
        per_query.append(
            {
                "qid": q.qid,
                "query": q.text,
                "category": q.category,
                "relevant": sorted(q.relevant),
                "retrieved": M.dedupe_docs([h.chunk.doc_id for h in hits])[: opts.k],
                "metrics": m,
                "seed_metrics": seed,
                "latency_ms": latencies[-1],
                "llm_ms": llm_ms[-1],
                "top_produced_by": hits[0].produced_by if hits else None,
                "hits": len(hits),
            }
        )
    keys = list(METRIC_KEYS) + (["keyword_coverage"] if has_keywords else [])
    seed_keys = sorted({key for p in per_query for key in p["seed_metrics"]})
    result = {
        "pipeline": name,
        "dataset": evalset.name,
        "n": len(per_query),
        "k": opts.k,
        "metrics": M.aggregate([p["metrics"] for p in per_query], keys),
        "seed_metrics": M.aggregate([p["seed_metrics"] for p in per_query], seed_keys),
        "latency_ms": M.latency_summary(latencies),
        # above the core count, another process shared the cores and the latencies are inflated
        "load_1m": {"mean": round(sum(load) / len(load), 2) if load else None, "max": round(max(load), 2) if load else None, "cores": os.cpu_count()},
        "stage_ms": stage_breakdown(latencies, llm_ms, llm.stats.by_step_ms if llm is not None else {}),
        "per_query": per_query,
        "source": evalset.source,
        # what produced each question's first hit: shows fallbacks, padding, how often a gate opened
        "top_produced_by": dict(Counter(str(p["top_produced_by"]) for p in per_query).most_common()),
        # a technique must never silently return nothing, nor fewer than k hits
        "short_lists": {"empty": sum(p["hits"] == 0 for p in per_query), "under_k": sum(p["hits"] < opts.k for p in per_query)},
    }
    cats = {p["category"] for p in per_query if p["category"]}
    if cats:
        result["by_category"] = {
            c: M.aggregate([p["metrics"] for p in per_query if p["category"] == c], keys) | {"n": sum(p["category"] == c for p in per_query)}
            for c in sorted(cats)
        }
    if note:
        result["note"] = note
    if llm is not None:
        # what the LLM work cost when it was done: live calls, and cache hits at their recorded time
        as_recorded = (llm.stats.latency_ms + llm.stats.cached_ms) / max(len(per_query), 1)
        result["llm"] = {"model": llm.name, **llm.stats.as_dict(), "ms_per_q_as_recorded": round(as_recorded, 1)}
    return result


def stage_breakdown(total_ms: list[float], llm_ms: list[float], by_step_ms: dict[str, float]) -> dict:
    """Mean milliseconds per query: all, LLM calls (and each LLM step), and the rest
    (retrieval, embedding, fusion). Cache hits cost no LLM time."""
    n = max(len(total_ms), 1)
    rest = [t - m for t, m in zip(total_ms, llm_ms)]
    out = {"total": sum(total_ms) / n, "llm": sum(llm_ms) / n, "retrieval": sum(rest) / n}
    out |= {f"llm:{step}": ms / n for step, ms in sorted(by_step_ms.items())}
    return {k: round(v, 1) for k, v in out.items()}


def load_evalset(args: argparse.Namespace) -> EvalSet:
    if args.beir:
        if args.corpus or args.tests:
            raise InputError(None, "give either --beir DIR or --corpus DIR --tests FILE, not both")
        return load_beir(args.beir)
    if not (args.corpus and args.tests):
        raise InputError(None, "eval needs --corpus DIR --tests FILE.jsonl (seed format) or --beir DIR")
    return load_seed(args.corpus, args.tests)


@dataclass(frozen=True)
class EvalRequest:
    """One evaluation run, as the CLI and the HTTP API describe it."""

    evalset: EvalSet
    pipelines: tuple[str, ...] = (DEFAULT_PIPELINE,)
    k: int = 10
    limit: int | None = None
    answers: bool = False
    unanswerable: tuple[Unanswerable, ...] = ()
    answer_mode: str = "auto"
    judge_runs: int = 3
    command: str | None = None

    def __post_init__(self) -> None:
        if self.k <= 0:
            raise InputError(None, f"--k must be > 0, got {self.k}")
        if self.limit is not None and self.limit <= 0:
            raise InputError(None, f"--limit must be > 0, got {self.limit}")
        if self.unanswerable and not self.answers:
            raise InputError(None, "--unanswerable is used with --answers")
        if self.judge_runs < 0:
            raise InputError(None, f"--judge-runs must be >= 0, got {self.judge_runs}")
        if not self.pipelines:
            raise InputError(None, "no pipeline to evaluate")


def run_eval(
    settings: Settings,
    req: EvalRequest,
    sink: ProgressSink | None = None,
    on_result: Callable[[dict], None] | None = None,
    make_llm_once: Callable[[], LLM | None] | None = None,
) -> list[dict]:
    """Index the corpus (once per set of ingest steps), run every pipeline, score it; one result
    per pipeline. ``sink`` receives the progress of each stage; ``on_result`` each result as it
    is ready; ``make_llm_once`` makes the run's LLM (default: from ``settings``)."""
    evalset = req.evalset
    if req.limit is not None:
        note = f"; first {min(req.limit, len(evalset.queries))} of {len(evalset.queries)} questions (--limit)"
        evalset = dataclasses.replace(evalset, queries=evalset.queries[: req.limit], source=evalset.source + note)
    names = [DEFAULT_PIPELINE if n == "default" else n for n in req.pipelines]
    specs = [resolve_pipeline(n) for n in names]  # a typo fails before minutes of ingest
    machine = f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}"
    # what makes results of separate runs comparable (``yakgwan report`` checks it)
    same_set = {"questions_sha256": questions_sha256(evalset.queries), "corpus_sha256": corpus_sha256(evalset.corpus)}
    contexts: dict[tuple[str, ...], tuple[PipelineContext, IngestReport, dict | None]] = {}
    shared: list[LLM | None] = []

    def get_llm() -> LLM | None:  # one model for every index and pipeline of this run
        if not shared:
            shared.append(make_llm_once() if make_llm_once is not None else make_llm(settings.llm, settings.cache_dir))
        return shared[0]

    results = []
    for spec in specs:
        if spec.ingest_steps not in contexts:  # one index per set of ingest steps, built when first needed
            contexts[spec.ingest_steps] = _eval_index(settings, evalset, spec.ingest_steps, any(s.needs_dense for s in specs), get_llm, sink)
        ctx, built_index = contexts[spec.ingest_steps]
        llm = ctx.llm if spec.needs_llm else None
        if llm is not None:
            llm.stats = UsageStats()
        note = llm_fallback_note(spec, ctx)
        retriever = spec.build(ctx)
        res = evaluate(retriever, spec.name, evalset, EvalOptions(k=req.k), settings.quiet, note, llm, sink)
        built = getattr(retriever, "built", None)
        if callable(built) and (what := built()):  # what the pipeline built beside the index (RAPTOR's tree, late's token vectors)
            res["built"] = what
        res["command"], res["machine"] = req.command, machine
        res |= same_set | {"measured_at": time.strftime("%Y-%m-%d", time.gmtime()), "yakgwan": __version__}
        res["index"] = {"chunks": len(ctx.view.chunks), "ingest_steps": list(ctx.view.ingest_steps), **built_index}
        if req.answers:
            res["answers"] = _answers(req, ctx, spec.name, evalset, settings.quiet, sink)
        results.append(res)
        if on_result is not None:
            on_result(res)
    return results


def run_eval_command(args: argparse.Namespace, settings: Settings) -> int:
    unanswerable = load_unanswerable(args.unanswerable) if getattr(args, "unanswerable", None) else []
    command = "yakgwan " + " ".join(sys.argv[1:]) if sys.argv and "yakgwan" in sys.argv[0] else None
    req = EvalRequest(
        load_evalset(args), tuple(args.pipelines or ["default"]), args.k, getattr(args, "limit", None), getattr(args, "answers", False),
        tuple(unanswerable), getattr(args, "answer_mode", "auto"), getattr(args, "judge_runs", 3), command,
    )
    results = run_eval(settings, req, on_result=print_result_line)
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(results, ensure_ascii=False, indent=1), "utf-8")
    if args.report:
        from yakgwan.eval.report import render_report

        render_report(results, args.report, title=f"yakgwan eval — {req.evalset.name}")
    return 0


def _answers(req: EvalRequest, ctx: PipelineContext, pipeline: str, evalset: EvalSet, quiet: bool, sink: ProgressSink | None) -> dict:
    """Answer evaluation for one pipeline (``--answers``); the judge is the configured LLM."""
    from yakgwan.answer.ask import Asker
    from yakgwan.progress import Bar

    llm = ctx.llm  # the run's one LLM (``_eval_index`` set it), whatever the retrieval pipeline
    if llm is not None:
        llm.stats = UsageStats()
    runs = req.judge_runs if llm is not None else 0
    asker = Asker(ctx, pipeline=pipeline, mode=req.answer_mode)
    bar = Bar(f"answers {pipeline}", len(evalset.queries) + len(req.unanswerable), quiet, unit="q", sink=sink)
    last = [0]

    def step(i: int, total: int) -> None:
        bar.update(i - last[0])
        last[0] = i

    try:
        out = evaluate_answers(asker, evalset.queries, req.unanswerable, llm if runs else None, runs, step)
    finally:
        bar.close()
    if llm is None:
        out["note"] = "no LLM configured (YAKGWAN_LLM): extractive answers by word overlap, no judge"
    if llm is not None:
        out["llm"] = {"model": llm.name, **llm.stats.as_dict()}
    return out


def built_record(report: IngestReport, ingest_llm: dict | None) -> dict:
    """What building (or updating) an eval index cost: seconds, the documents the ingest steps
    saw, what they left as it was and why, and their LLM usage."""
    out: dict = {"ingest_seconds": round(report.seconds_total, 2), "documents": len(report.added) + len(report.replaced)}
    if report.unchanged:  # an update of an index built before: the cost of this update only
        out["incremental"] = True
    if report.step_fallbacks:
        out["step_fallbacks"] = report.step_fallbacks
    if report.step_reasons:  # which documents, and why (ids and error messages, no text)
        out["step_fallback_reasons"] = report.step_reasons
    if ingest_llm is not None:
        out["llm"] = ingest_llm
    return out


def _eval_index(
    settings: Settings, evalset: EvalSet, steps: tuple[str, ...], needs_dense: bool, get_llm: Callable[[], LLM | None], sink: ProgressSink | None = None
) -> tuple[PipelineContext, dict]:
    """The eval index for ``steps`` (built, updated or reused) and what building it cost. A
    reused index reports the cost recorded when it was built (``BUILD_RECORD`` in its folder;
    none for an index built before records were kept), marked ``reused``."""
    llm = get_llm() if steps else None
    if llm is None:
        steps = ()  # no LLM: the plain index (the pipeline's note says it ran its fallback)
    else:
        llm.stats = UsageStats()
    isettings = settings.with_(index_dir=eval_index_dir(settings, evalset, [st.fingerprint for st in make_steps(steps, llm)]))
    report = app.ingest(isettings, [evalset.corpus], sync=True, steps=steps, llm=llm, sink=sink)
    for problem in report.failed:
        print(f"warning: not indexed: {problem}", file=sys.stderr)
    if not report.dense_ready and needs_dense:
        raise ProviderError(f"dense vectors could not be computed for {evalset.corpus}: {report.dense_error or 'incomplete'}")
    record_path = isettings.index_dir / BUILD_RECORD
    if report.added or report.replaced or report.removed:  # this run built or updated the index
        ingest_llm = {"model": llm.name, **llm.stats.as_dict(), "seconds": round(llm.stats.latency_ms / 1000, 1)} if llm is not None else None
        built = built_record(report, ingest_llm)
        atomic_write_text(record_path, json.dumps(built, ensure_ascii=False, indent=1))
    else:  # reused as it was: the cost recorded when it was built, if it was
        built = json.loads(record_path.read_text("utf-8")) if record_path.exists() else {}
        built |= {"reused": True, "reuse_seconds": round(report.seconds_total, 2)}
    ctx = app.pipeline_context(isettings)
    ctx.make_llm, ctx.sink = get_llm, sink
    check_judged_documents(evalset, {c.doc_id for c in ctx.view.chunks})
    return ctx, built


def check_judged_documents(evalset: EvalSet, indexed: set[str]) -> None:
    """Judged documents must be in the index, or every metric silently reads 0."""
    judged = {d for q in evalset.queries for d in q.relevant}
    missing = judged - indexed
    if missing == judged:
        example = next(iter(sorted(missing)))
        raise InputError(
            str(evalset.corpus),
            f"none of the {len(judged)} judged documents is in the corpus (e.g. {example!r}); for the seed format --corpus must be the folder the source_docs paths are relative to",
        )
    if missing:
        print(f"warning: {len(missing)} of {len(judged)} judged documents are not in the corpus, e.g. {sorted(missing)[0]!r}", file=sys.stderr)


def print_result_line(res: dict) -> None:
    m = res["metrics"]
    parts = "  ".join(f"{k}@{res['k']}={v:.4f}" if k in METRIC_KEYS else f"{k}={v:.4f}" for k, v in m.items())
    lat = res["latency_ms"]
    llm = ""
    if res.get("llm"):
        u = res["llm"]
        llm = f"  llm calls={u['calls']} cached={u['cache_hits']} tokens={u['prompt_tokens']}/{u['completion_tokens']} llm_ms/q={res['stage_ms']['llm']:.0f}"
        if u.get("cache_hits") and "ms_per_q_as_recorded" in u:  # what the cached answers cost when they were made
            untimed = f", {u['cached_untimed']} hits untimed" if u.get("cached_untimed") else ""
            llm += f" (as recorded, cache included: {u['ms_per_q_as_recorded']:.0f}{untimed})"
    if (res.get("index") or {}).get("llm"):
        u = res["index"]["llm"]
        when = " (recorded when the index was built)" if res["index"].get("reused") else ""
        recorded = f" ({(u.get('latency_ms', 0) + u['cached_ms']) / 1000:.0f}s as recorded, cache included)" if u.get("cached_ms") else ""
        llm += f"  ingest({', '.join(res['index']['ingest_steps'])}) llm calls={u['calls']} cached={u.get('cache_hits', 0)} {u['seconds']:.0f}s{recorded}{when}"
    print(f"{res['pipeline']:<16} {res['dataset']} n={res['n']}  {parts}  p50={lat['p50']:.1f}ms p95={lat['p95']:.1f}ms{llm}")
    index = res.get("index") or {}
    for line in fallback_lines(index.get("step_fallbacks") or {}, index.get("step_fallback_reasons") or {}):
        print(f"  {line}")
    if b := res.get("built"):
        cost = f", built with {b['llm_calls']} LLM calls in {b['seconds']:.0f} s" if "llm_calls" in b else ""
        print(f"  built beside the index: {b['structure']}, {b['mb']:.2f} MB{cost}")
    short = res.get("short_lists") or {}
    if short.get("under_k"):
        print(f"  warning: fewer than k={res['k']} hits on {short['under_k']} question(s), none at all on {short.get('empty', 0)}")
    if res.get("note"):
        print(f"  note: {res['note']}")
    if res.get("answers"):
        a = res["answers"]
        shown = "  ".join(f"{k}={v:.4f}" for k, v in a["metrics"].items() if v is not None)
        print(f"  answers ({a['mode']}, {a['n_answerable']} answerable + {a['n_unanswerable']} unanswerable): {shown}")
        for key, v in (a.get("judge") or {}).get("scores", {}).items():
            print(f"    judge {key} {v['mean']:.2f} ± {v['spread']:.2f} over {v['runs']} runs ({a['judge']['model']})")
        if a.get("note"):
            print(f"  note: {a['note']}")
