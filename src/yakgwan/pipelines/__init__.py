"""Pipelines as data: ``spec`` (a pipeline's typed stages and parameters), ``registry`` (every
named pipeline, "A+B" composition, the JSON description), ``context`` (what a pipeline is built
from), ``builder`` (building one by name), ``recipes`` (how each technique assembles its
retrievers) and ``stages`` (the stages, with the parameters the code runs with)."""

from yakgwan.pipelines.builder import build_pipeline, llm_fallback_note, ran_as, route_of
from yakgwan.pipelines.context import PipelineContext
from yakgwan.pipelines.registry import DEFAULT_PIPELINE, PIPELINES, POST_STEPS, pipeline_specs_json, resolve_pipeline
from yakgwan.pipelines.spec import PipelineSpec, Stage

__all__ = [
    "DEFAULT_PIPELINE", "PIPELINES", "POST_STEPS", "PipelineContext", "PipelineSpec", "Stage",
    "build_pipeline", "llm_fallback_note", "ran_as", "route_of", "pipeline_specs_json", "resolve_pipeline",
]
