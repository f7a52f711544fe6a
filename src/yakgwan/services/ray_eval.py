"""``eval --ray``: a pipeline's questions spread over the actors of a Ray cluster.

Each actor opens the evaluation index (a folder every node can read, or a PostgreSQL
collection), builds the pipeline once with its own models (the LLM answers go through the
response cache in the cache folder, shared by the actors of one machine), warms up, and runs the
questions it is handed; the rows come back in question order and are scored here exactly as a
single process scores them. LLM usage is the sum over the actors.
"""

from __future__ import annotations

import dataclasses

from yakgwan.config import Settings
from yakgwan.core.protocols import ProgressSink
from yakgwan.messages import Message, joined, msg
from yakgwan.eval.datasets import EvalQuery, EvalSet
from yakgwan.eval.result import EvalResult, QueryResult
from yakgwan.eval.runner import EvalOptions, run_query, score_rows, warm_up
from yakgwan.ingest.workers import connect, ordered, start_actors, stop
from yakgwan.llm import UsageStats
from yakgwan.pipelines import resolve_pipeline
from yakgwan.progress import Bar
from yakgwan.services.context import open_context


class _EvalActor:
    def __init__(self, settings: Settings, pipeline: str, opts: EvalOptions, has_keywords: bool) -> None:
        spec = resolve_pipeline(pipeline)
        ctx = open_context(settings)
        self.llm = ctx.llm if spec.needs_llm else None
        self.retriever = spec.build(ctx)
        self.opts, self.has_keywords = opts, has_keywords
        warm_up(self.retriever, opts.depth, self.llm)

    def run(self, q: EvalQuery) -> QueryResult:
        return run_query(self.retriever, q, self.opts.depth, self.opts.k, self.has_keywords, self.llm)

    def usage(self) -> tuple[str | None, UsageStats | None]:
        return (self.llm.name, self.llm.stats) if self.llm is not None else (None, None)


def score_on_ray(
    address: str, workers: int | None, settings: Settings, pipeline: str, evalset: EvalSet, opts: EvalOptions,
    note: Message | None, quiet: bool, sink: ProgressSink | None, lang: str = "en",
) -> EvalResult:
    """The result of ``pipeline`` over ``evalset`` on the index ``settings`` names, its
    questions run by Ray actors (``workers`` of them; default one per CPU)."""
    ray, started = connect(address)
    has_keywords = any(q.keywords for q in evalset.queries)
    actors = start_actors(ray, _EvalActor, (settings, pipeline, opts, has_keywords), workers)
    try:
        bar = Bar(msg("stage.eval_ray", pipeline=pipeline, workers=len(actors)), total=len(evalset.queries), quiet=quiet, unit="q", sink=sink, lang=lang)
        rows = []
        try:
            for row in ordered(ray, actors, "run", [(q,) for q in evalset.queries]):
                rows.append(row)
                bar.update(1)
        finally:
            bar.close()
        usage = ray.get([a.usage.remote() for a in actors])
    finally:
        stop(ray, actors, started)
    names = {name for name, _ in usage if name is not None}
    stats = [s for _, s in usage if s is not None]
    total = stats[0] if stats else None
    for s in stats[1:]:
        total = total.plus(s)  # type: ignore[union-attr]
    res = score_rows(pipeline, evalset, opts.k, tuple(rows), ", ".join(sorted(names)) or None, total, None, note)
    ran = msg("note.ray_workers", n=len(actors))
    return dataclasses.replace(res, note=msg("note.parts", parts=joined([note, ran])) if note is not None else ran)
