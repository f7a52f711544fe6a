"""The ingest steps that run after chunking, by name (``yakgwan ingest --step``, and the
``llm_chunk`` / ``preprocess`` pipelines of ``yakgwan eval``). Order is fixed: LLM chunking
first, then pre-processing of the chunks it made."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

from yakgwan.core.protocols import ChunkStep
from yakgwan.core.registry import Registry
from yakgwan.ingest.steps.llm_chunk import LLM_CHUNK_MAX_TOKENS, WINDOW_CHARS, LLMChunker
from yakgwan.ingest.steps.preprocess import PREPROCESS_MAX_TOKENS, Preprocessor
from yakgwan.llm import LLM
from yakgwan.messages import Message, msg


@dataclass(frozen=True)
class IngestStepSpec:
    """A step by name: what it does, how to make it from the configured LLM (None: it keeps
    its input and counts a fallback), and the bounds it runs under."""

    name: str
    description: Message
    make: Callable[[LLM | None], ChunkStep]
    params: Mapping[str, float | int | str] = field(default_factory=dict)


INGEST_STEPS: Registry[IngestStepSpec] = Registry("ingest step")
INGEST_STEPS.register("llm_chunk", IngestStepSpec(
    "llm_chunk", msg("ingest_step.llm_chunk"), LLMChunker,
    {"window_chars": WINDOW_CHARS, "max_tokens": LLM_CHUNK_MAX_TOKENS},
))
INGEST_STEPS.register("preprocess", IngestStepSpec(
    "preprocess", msg("ingest_step.preprocess"), Preprocessor,
    {"max_tokens": PREPROCESS_MAX_TOKENS},
))


def canonical_steps(names: Sequence[str]) -> tuple[str, ...]:
    """Known step names, de-duplicated, in the fixed order; raises ``UnknownName``."""
    for n in names:
        INGEST_STEPS.get(n)
    return tuple(n for n in INGEST_STEPS if n in names)


def make_steps(names: Sequence[str], llm: LLM | None) -> list[ChunkStep]:
    return [INGEST_STEPS.get(n).make(llm) for n in canonical_steps(names)]
