"""A pipeline as data: its stages (typed, with their parameters) and how to build it.

``PipelineSpec.to_dict()`` is what ``yakgwan pipelines --json`` prints for one pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Literal, Mapping, get_args

from yakgwan.core.protocols import Retriever
from yakgwan.messages import Message
from yakgwan.pipelines.context import PipelineContext

# first_stage: searches the index; query: rewrites the query; fusion: merges lists; rerank:
# reorders the top hits; post: edits hits (compression); control: an LLM decides what to search
# and what to keep; ingest: a step the index must have been built with
StageKind = Literal["first_stage", "query", "fusion", "rerank", "post", "control", "ingest"]
Param = float | int | str


@dataclass(frozen=True)
class Stage:
    """One stage of a pipeline: what kind, which (a registered name), with which parameters."""

    kind: StageKind
    name: str
    params: Mapping[str, Param] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in get_args(StageKind):
            raise ValueError(f"stage {self.name!r}: unknown kind {self.kind!r}; available: {', '.join(get_args(StageKind))}")
        for key, value in self.params.items():
            if isinstance(value, bool) or not isinstance(value, (int, float, str)):
                raise ValueError(f"stage {self.name!r}: parameter {key!r} must be a number or a string, got {value!r}")
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def to_dict(self) -> dict:
        return {"kind": self.kind, "name": self.name, "params": dict(self.params)}


@dataclass(frozen=True)
class PipelineSpec:
    """A named pipeline: its one-line description (a catalogue message), its stages, and ``build`` (the retriever it
    runs, assembled from those stages' parts). ``first_stage`` marks the retrieval-only first
    stages techniques are measured against (``eval.rows.FIRST_STAGES``); ``ingest_steps`` the LLM
    steps the index must have been built with (``yakgwan.ingest.steps``)."""

    name: str
    description: Message
    build: Callable[[PipelineContext], Retriever] = field(compare=False, repr=False)
    needs_dense: bool
    needs_llm: bool = False
    ingest_steps: tuple[str, ...] = ()
    first_stage: bool = False
    stages: tuple[Stage, ...] = ()

    def has_stage(self, name: str) -> bool:
        """Whether a stage of this pipeline is ``name`` (e.g. "self_rag", whose answers ``ask`` checks)."""
        return any(s.name == name for s in self.stages)

    def to_dict(self, lang: str = "en") -> dict:
        """A JSON-serialisable description: name, description (in ``lang``), what it needs, its stages."""
        return {
            "name": self.name,
            "description": self.description.text(lang),
            "needs_dense": self.needs_dense,
            "needs_llm": self.needs_llm,
            "first_stage": self.first_stage,
            "ingest_steps": list(self.ingest_steps),
            "stages": [s.to_dict() for s in self.stages],
        }
