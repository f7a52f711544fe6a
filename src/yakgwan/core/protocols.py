"""The swappable roles of yakgwan, one small protocol each.

A new backend implements one of these in one file and registers itself in the matching registry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Literal, Protocol, Sequence, runtime_checkable

import numpy as np

from yakgwan.core.records import Chunk, Document, Hit

EmbedKind = Literal["query", "passage"]

# hears ``(stage, done, total)`` after every step of long work (the HTTP API's job status reads it)
ProgressSink = Callable[[str, int, int], None]


@runtime_checkable
class Loader(Protocol):
    """Reads one file into documents (a BEIR corpus yields many). Raises ``InputError``."""

    def load(self, path: Path, root: Path) -> list[Document]: ...


@runtime_checkable
class Chunker(Protocol):
    def split(self, doc: Document) -> list[Chunk]: ...


@runtime_checkable
class ChunkStep(Protocol):
    """An ingest step after chunking (LLM chunking, pre-processing): takes one document and its
    structure chunks, returns the chunks to index. ``fallbacks`` counts documents or chunks it
    left as they were (no LLM, or an unusable answer); ``reasons`` says which and why, one line
    each, naming the document (never quoting its text)."""

    name: str
    fallbacks: int
    reasons: list[str]

    @property
    def fingerprint(self) -> str:
        """Changes when the step would produce other chunks (model, prompt, bounds)."""
        ...

    def apply(self, doc: Document, chunks: list[Chunk]) -> list[Chunk]: ...


@runtime_checkable
class Embedder(Protocol):
    """Maps texts to L2-normalised vectors.

    ``model_id`` identifies the weights and recipe (it keys the embedding cache); two embedders
    with equal ``model_id`` must produce interchangeable vectors.
    """

    model_id: str
    dim: int

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> np.ndarray: ...


@runtime_checkable
class Retriever(Protocol):
    name: str

    def retrieve(self, query: str, k: int) -> list[Hit]: ...


@runtime_checkable
class Reranker(Protocol):
    def rerank(self, query: str, hits: Sequence[Hit], k: int) -> list[Hit]: ...


@runtime_checkable
class QueryTransform(Protocol):
    """Turns one query into one or more queries (rewrite, multi-query, HyDE …)."""

    def transform(self, query: str) -> list[str]: ...
