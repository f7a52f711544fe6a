"""Scoring a retriever over a test set (``score_retriever``) and the answers of an asker
(``answer_eval``); building the indexes and running every pipeline is the ``evaluate``
service's job (``yakgwan.services.evaluate``). Nothing here parses arguments or prints.

Doc-level metrics follow trec_eval (a document's rank is the rank of its best chunk);
``seed_metrics`` reproduce the seed tutorial's chunk-level definitions for comparison with its
published figures. Every result names its dataset, k, pipeline and the command that produced it.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from yakgwan.core.errors import InputError
from yakgwan.core.protocols import Retriever
from yakgwan.core.records import Chunk, Hit
from yakgwan.eval import metrics as M
from yakgwan.answer.ko_rules.ruleset import RuleSet
from yakgwan.eval import clauses as C
from yakgwan.eval.answers import Unanswerable, evaluate_answers
from yakgwan.eval.datasets import EvalQuery, EvalSet
from yakgwan.eval.result import AnswersResult, EvalResult, Latency, LoadAverage, QueryResult, ShortLists
from yakgwan.llm import LLM, UsageStats
from yakgwan.pipelines import DEFAULT_PIPELINE, PipelineContext
from yakgwan.progress import ProgressSink, progress
from yakgwan.messages import Message, msg

METRIC_KEYS = ("mrr", "ndcg", "precision", "recall")
WARM_UP_QUERY = "보험금 청구에 필요한 서류"


@dataclass(frozen=True)
class EvalOptions:
    k: int = 10
    depth_factor: int = 5

    @property
    def depth(self) -> int:
        """Hits retrieved per question (scored at k)."""
        return max(self.k * self.depth_factor, 50)


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


def score_retriever(
    retriever: Retriever,
    name: str,
    evalset: EvalSet,
    opts: EvalOptions,
    quiet: bool,
    note: Message | None = None,
    llm: LLM | None = None,
    sink: ProgressSink | None = None,
    lang: str = "en",
) -> EvalResult:
    """Run ``retriever`` over every question and score it. With ``llm`` (the facade the
    pipeline calls), each query's latency is split into LLM time and the rest (retrieval,
    embedding, fusion), and the LLM's usage is reported per step."""
    depth = opts.depth
    has_keywords = any(q.keywords for q in evalset.queries)
    warm_up(retriever, depth, llm)
    load: list[float] = []  # the 1-minute load average after each question: were the cores shared?
    per_query = []
    for q in progress(evalset.queries, msg("stage.eval", pipeline=name), total=len(evalset.queries), quiet=quiet, unit="q", sink=sink, lang=lang):
        per_query.append(run_query(retriever, q, depth, opts.k, has_keywords, llm))
        if hasattr(os, "getloadavg"):  # not on Windows
            load.append(os.getloadavg()[0])
    # above the core count, another process shared the cores and the latencies are inflated
    load_1m = LoadAverage(round(sum(load) / len(load), 2) if load else None, round(max(load), 2) if load else None, os.cpu_count())
    return score_rows(name, evalset, opts.k, tuple(per_query), llm.name if llm is not None else None, llm.stats if llm is not None else None,
                      load_1m, note)


def warm_up(retriever: Retriever, depth: int, llm: LLM | None) -> None:
    """A question of no test set first: models load outside the timings, and no test
    question's LLM answers are cached before they are timed; LLM usage counts from here."""
    retriever.retrieve(WARM_UP_QUERY, depth)
    if llm is not None:
        llm.stats = UsageStats()


def score_rows(
    name: str, evalset: EvalSet, k: int, per_query: tuple[QueryResult, ...], llm_name: str | None, stats: UsageStats | None,
    load_1m: LoadAverage | None = None, note: Message | None = None,
) -> EvalResult:
    """The result of one pipeline from its per-question rows (made here or by workers) and the
    LLM usage that made them."""
    has_keywords = any(q.keywords for q in evalset.queries)
    usage = None
    if llm_name is not None and stats is not None:
        # what the LLM work cost when it was done: live calls, and cache hits at their recorded time
        as_recorded = (stats.latency_ms + stats.cached_ms) / max(len(per_query), 1)
        usage = {"model": llm_name, **stats.as_dict(), "ms_per_q_as_recorded": round(as_recorded, 1)}
    return dataclasses.replace(_summary(name, evalset, k, per_query, has_keywords, stats), load_1m=load_1m, note=note or None, llm=usage)


def hit_places(hits: list[Hit]) -> list[list[C.Place]]:
    """Each hit's chunk place, then those of the chunks it stands for (a grouping step's members)."""
    return [[C.Place.of(h.chunk), *(C.Place.of(m) for m in h.members)] for h in hits]


def run_query(retriever: Retriever, q: EvalQuery, depth: int, k: int, has_keywords: bool, llm: LLM | None) -> QueryResult:
    """One question: its hits (``depth`` of them), scores, and timings."""
    before = llm.stats.latency_ms if llm is not None else 0.0
    t0 = time.perf_counter()
    hits = retriever.retrieve(q.text, depth)
    latency = (time.perf_counter() - t0) * 1000
    llm_ms = llm.stats.latency_ms - before if llm is not None else 0.0
    if q.governing:  # a clause-level set: (약관, 조) units instead of documents
        units = C.rank_units(hit_places(hits))
        return QueryResult(
            qid=q.qid, query=q.text, category=q.category, relevant=tuple(g.label() for g in q.governing),
            retrieved=tuple(u[0].label() for u in units[:k]), metrics=C.clause_metrics(units, q.governing, k), seed_metrics={},
            latency_ms=latency, llm_ms=llm_ms, top_produced_by=hits[0].produced_by if hits else None, hits=len(hits), topic=q.topic,
        )
    # keyword coverage reads what a reader would get: the compressed evidence where there is one
    m, seed = score_query(q, [h.chunk.doc_id for h in hits], [h.evidence_text for h in hits], k, has_keywords)
    return QueryResult(
        qid=q.qid, query=q.text, category=q.category, relevant=tuple(sorted(q.relevant)),
        retrieved=tuple(M.dedupe_docs([h.chunk.doc_id for h in hits])[:k]), metrics=m, seed_metrics=seed,
        latency_ms=latency, llm_ms=llm_ms, top_produced_by=hits[0].produced_by if hits else None, hits=len(hits),
    )


def _breakdown(per_query: tuple[QueryResult, ...], keys: list[str], field: str) -> dict[str, dict[str, float]]:
    """The metrics per value of a row's ``field`` (category, topic), with each group's ``n``."""
    rows = [{**p.metrics, field: getattr(p, field)} for p in per_query if getattr(p, field)]
    counts = Counter(str(r[field]) for r in rows)
    return {group: metrics | {"n": counts[group]} for group, metrics in M.by_category(rows, keys, field=field).items()}


def _summary(name: str, evalset: EvalSet, k: int, per_query: tuple[QueryResult, ...], has_keywords: bool, stats: UsageStats | None) -> EvalResult:
    """The aggregate result of one pipeline over its per-question rows."""
    clause = evalset.clause_level
    keys = list(C.CLAUSE_KEYS) if clause else list(METRIC_KEYS) + (["keyword_coverage"] if has_keywords else [])
    seed_keys = sorted({key for p in per_query for key in p.seed_metrics})
    latencies = [p.latency_ms for p in per_query]
    lat = M.latency_summary(latencies)
    by_category = _breakdown(per_query, keys, "category")
    return EvalResult(
        pipeline=name,
        dataset=evalset.name,
        n=len(per_query),
        n_unanswerable=len(evalset.unanswerable) if clause else None,
        k=k,
        level="clause" if clause else None,
        metrics=M.aggregate([p.metrics for p in per_query], keys),
        seed_metrics=M.aggregate([p.seed_metrics for p in per_query], seed_keys) if seed_keys or not clause else None,
        latency_ms=Latency(lat["p50"], lat["p95"]),
        stage_ms=stage_breakdown(latencies, [p.llm_ms for p in per_query], stats.by_step_ms if stats is not None else {}),
        per_query=per_query,
        source=evalset.source,
        # what produced each question's first hit: shows fallbacks, padding, how often a gate opened
        top_produced_by=dict(Counter(str(p.top_produced_by) for p in per_query).most_common()),
        # a technique must never silently return nothing, nor fewer than k hits
        short_lists=ShortLists(sum(p.hits == 0 for p in per_query), sum(p.hits < k for p in per_query)),
        by_category=by_category or None,
        by_topic=(_breakdown(per_query, keys, "topic") or None) if clause else None,
    )


def stage_breakdown(total_ms: list[float], llm_ms: list[float], by_step_ms: dict[str, float]) -> dict:
    """Mean milliseconds per query: all, LLM calls (and each LLM step), and the rest
    (retrieval, embedding, fusion). Cache hits cost no LLM time."""
    n = max(len(total_ms), 1)
    rest = [t - m for t, m in zip(total_ms, llm_ms)]
    out = {"total": sum(total_ms) / n, "llm": sum(llm_ms) / n, "retrieval": sum(rest) / n}
    out |= {f"llm:{step}": ms / n for step, ms in sorted(by_step_ms.items())}
    return {k: round(v, 1) for k, v in out.items()}


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
    rules: RuleSet = RuleSet.all()  # with ``answers``: which answer rules are on
    ray: str | None = None  # run each pipeline's questions on a Ray cluster (local, auto or an address)
    ray_workers: int | None = None

    def __post_init__(self) -> None:
        if self.k <= 0:
            raise InputError(None, msg("query.k", k=self.k))
        if self.limit is not None and self.limit <= 0:
            raise InputError(None, msg("eval.limit", value=self.limit))
        if self.unanswerable and not self.answers:
            raise InputError(None, msg("eval.unanswerable_needs_answers"))
        if self.rules != RuleSet.all() and not self.answers:
            raise InputError(None, msg("eval.rules_needs_answers"))
        if self.ray_workers is not None and (self.ray is None or self.ray_workers < 1):
            raise InputError(None, msg("eval.ray_workers", value=str(self.ray_workers)))
        if self.judge_runs < 0:
            raise InputError(None, msg("eval.judge_runs", value=self.judge_runs))
        if not self.pipelines:
            raise InputError(None, msg("eval.no_pipeline"))


def answer_eval(req: EvalRequest, ctx: PipelineContext, pipeline: str, evalset: EvalSet, quiet: bool, sink: ProgressSink | None,
                lang: str = "en") -> AnswersResult:
    """Answer evaluation for one pipeline (``--answers``); the judge is the configured LLM."""
    from yakgwan.answer.ask import Asker
    from yakgwan.progress import Bar

    llm = ctx.llm  # the run's one LLM (the service set it), whatever the retrieval pipeline
    if llm is not None:
        llm.stats = UsageStats()
    runs = req.judge_runs if llm is not None else 0
    asker = Asker(ctx, pipeline=pipeline, mode=req.answer_mode, rules=req.rules)
    # a clause-level file's own unanswerable rows are asked too, before the --unanswerable file's
    unanswerable = [Unanswerable(q.qid, q.text, "tests_file") for q in evalset.unanswerable] + list(req.unanswerable)
    bar = Bar(msg("stage.answers", pipeline=pipeline), len(evalset.queries) + len(unanswerable), quiet, unit="q", sink=sink, lang=lang)
    last = [0]

    def step(i: int, total: int) -> None:
        bar.update(i - last[0])
        last[0] = i

    try:
        out = evaluate_answers(asker, evalset.queries, unanswerable, llm if runs else None, runs, step)
    finally:
        bar.close()
    note = msg("note.eval_no_llm") if llm is None else None
    usage = {"model": llm.name, **llm.stats.as_dict()} if llm is not None else None
    return dataclasses.replace(out, note=note, llm=usage, rules=req.rules.spec())


def _missing_judged(evalset: EvalSet, total: int, missing: list[str], what: str, absent: str, hint: str) -> list[str]:
    """None of ``total`` judged items in the index is an error naming the corpus (with ``hint``);
    some missing is a warning (returned)."""
    if total and len(missing) == total:
        raise InputError(str(evalset.corpus), msg("eval.none_in_corpus", total=total, what=what, example=missing[0], hint=hint))
    return [f"{len(missing)} of {total} {what} {absent}, e.g. {missing[0]}"] if missing else []


def check_governing_units(evalset: EvalSet, chunks: Sequence[Chunk]) -> list[str]:
    """A clause-level set's governing units must be found in the index (``clauses.matches``),
    or every metric on them silently reads 0: none found is an error; some missing is a warning
    (returned)."""
    governing = list(dict.fromkeys(g for q in evalset.queries for g in q.governing))
    missing = [g.label() for g in C.missing_units(governing, list({C.Place.of(c) for c in chunks}))]
    return _missing_judged(evalset, len(governing), missing, "governing units", "match no chunk of the corpus",
                           "--corpus must be the policy the questions are about")


def check_judged_documents(evalset: EvalSet, indexed: set[str]) -> list[str]:
    """Judged documents must be in the index, or every metric silently reads 0: none of them
    there is an error; some missing is a warning (returned). A clause-level set judges units,
    not documents (:func:`check_governing_units`): nothing to check here."""
    if evalset.clause_level:
        return []
    judged = {d for q in evalset.queries for d in q.relevant}
    missing = [repr(d) for d in sorted(judged - indexed)]
    return _missing_judged(evalset, len(judged), missing, "judged documents", "are not in the corpus",
                           "for the seed format --corpus must be the folder the source_docs paths are relative to")
    judged = {d for q in evalset.queries for d in q.relevant}
    missing = judged - indexed
    if missing == judged:
        example = next(iter(sorted(missing)))
        raise InputError(str(evalset.corpus), msg("eval.judged_not_in_corpus", n=len(judged), example=repr(example)))
    if missing:
        return [f"{len(missing)} of {len(judged)} judged documents are not in the corpus, e.g. {sorted(missing)[0]!r}"]
    return []


