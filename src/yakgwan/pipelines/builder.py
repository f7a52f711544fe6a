"""Building a pipeline by name over an index, with the notes a caller shows beside its results."""

from __future__ import annotations

from yakgwan.core.errors import YakgwanError
from yakgwan.core.protocols import Retriever
from yakgwan.core.records import Route
from yakgwan.pipelines.context import PipelineContext
from yakgwan.pipelines.registry import PIPELINES, resolve_pipeline
from yakgwan.pipelines.spec import PipelineSpec
from yakgwan.messages import Message, msg


def build_pipeline(name: str, ctx: PipelineContext) -> tuple[Retriever, Message | None]:
    """Build pipeline ``name``. When it fuses dense vectors that are not ready yet, fall back to
    ``bm25`` and return a note saying so (the caller shows it); otherwise the note is None.
    ``dense`` alone never falls back: it raises."""
    spec = resolve_pipeline(name)
    if spec.ingest_steps and tuple(ctx.view.ingest_steps) != spec.ingest_steps:
        built = ", ".join(ctx.view.ingest_steps) or msg("pipeline.no_step")
        steps = " ".join(f"--step {s}" for s in spec.ingest_steps)
        raise YakgwanError(msg("pipeline.needs_steps", name=name, steps=steps, built=built))
    if spec.needs_dense and not ctx.view.dense_ready and spec.name != "dense":
        return PIPELINES.get("bm25").build(ctx), msg("note.dense_not_ready", name=name)
    return spec.build(ctx), llm_fallback_note(spec, ctx)


def ran_as(name: str, ctx: PipelineContext) -> str:
    """The registered name of what pipeline ``name`` runs over ``ctx``'s documents: ``auto``
    (and "default") is ``clause`` on a policy and ``hybrid_cc`` on other documents."""
    spec = resolve_pipeline(name)
    return ctx.first_stage_name if spec.name == "auto" else spec.name


def route_of(name: str, query: str, ctx: PipelineContext) -> Route | None:
    """Where the ``route`` step sends ``query`` when pipeline ``name`` has that step; None when
    it does not."""
    spec = resolve_pipeline(name)
    return ctx.clause().route(query) if any(st.name == "route" for st in spec.stages) else None


def llm_fallback_note(spec: PipelineSpec, ctx: PipelineContext) -> Message | None:
    """Says so when an LLM pipeline runs without an LLM (its steps use their fallbacks)."""
    if spec.needs_llm and ctx.llm is None:
        return msg("note.no_llm_fallback", name=spec.name)
    return None
