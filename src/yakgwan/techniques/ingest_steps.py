"""The ingest steps that run after chunking, by name (``yakgwan ingest --step``, and the
``llm_chunk`` / ``preprocess`` pipelines of ``yakgwan eval``). Order is fixed: LLM chunking
first, then pre-processing of the chunks it made."""

from __future__ import annotations

from typing import Callable, Sequence

from yakgwan.core.errors import UnknownName
from yakgwan.llm import LLM
from yakgwan.core.protocols import ChunkStep
from yakgwan.techniques.llm_chunk import LLMChunker
from yakgwan.techniques.preprocess import Preprocessor

INGEST_STEPS: dict[str, tuple[str, Callable[[LLM | None], ChunkStep]]] = {
    "llm_chunk": ("LLM splits documents into topical chunks with a headline and a summary; the text stays verbatim", LLMChunker),
    "preprocess": ("LLM rewrites each chunk for retrieval (questions it answers, key terms), indexed beside the original", Preprocessor),
}


def canonical_steps(names: Sequence[str]) -> tuple[str, ...]:
    """Known step names, de-duplicated, in the fixed order; raises ``UnknownName``."""
    for n in names:
        if n not in INGEST_STEPS:
            raise UnknownName("ingest step", n, list(INGEST_STEPS))
    return tuple(n for n in INGEST_STEPS if n in names)


def make_steps(names: Sequence[str], llm: LLM | None) -> list[ChunkStep]:
    return [INGEST_STEPS[n][1](llm) for n in canonical_steps(names)]
