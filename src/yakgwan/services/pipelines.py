"""``pipelines``: every registered pipeline, as the CLI and the HTTP API list them."""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.messages import Message

from yakgwan.pipelines import DEFAULT_PIPELINE, PIPELINES, resolve_pipeline
from yakgwan.pipelines import pipeline_specs_json

__all__ = ["DEFAULT_PIPELINE", "PipelineRow", "pipeline_name", "pipeline_rows", "pipeline_specs_json"]


@dataclass(frozen=True)
class PipelineRow:
    name: str
    description: Message
    needs_llm: bool
    default: bool


def pipeline_rows() -> list[PipelineRow]:
    """Every registered pipeline in registration order, the default one marked."""
    return [PipelineRow(name, spec.description, spec.needs_llm, name == DEFAULT_PIPELINE) for name, spec in PIPELINES.items()]


def pipeline_name(name: str) -> str:
    """The registered name of pipeline ``name`` ("default" resolved); ``UnknownName``, listing
    the registered names, when there is none."""
    return resolve_pipeline(name).name
