"""The swappable roles of yakgwan, one small protocol each.

A new backend implements one of these in one file and registers itself in the matching registry.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Callable, Literal, Protocol, Sequence, TypeVar, runtime_checkable

import numpy as np

from yakgwan.core.records import Chunk, Document, Hit
from yakgwan.messages import Message

EmbedKind = Literal["query", "passage"]

# hears ``(stage, done, total)`` after every step of long work (the HTTP API's job status reads
# it); the stage is a catalogue message, read in the language of whoever shows it
ProgressSink = Callable[[Message, int, int], None]


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
class Loads(Protocol):
    """A component whose model loads explicitly (``load()``, idempotent): an ingest starts it
    while the documents are read and indexed lexically, so that embedding does not wait for it."""

    def load(self) -> None: ...


@runtime_checkable
class Retriever(Protocol):
    """``retrieve(query, k)`` returns at most ``k`` hits in rank order (``Hit.rank`` 1..n), each
    chunk once. A ``k`` below 1 returns ``[]``: every retriever's ``retrieve`` is wrapped in
    :func:`k_below_one_finds_nothing`. ``Hit.score`` is the score of the stage that scored the
    hit (see there): best-first where a retriever orders by its own score, not always where it
    reorders without scoring."""

    name: str

    def retrieve(self, query: str, k: int) -> list[Hit]: ...


_R = TypeVar("_R")


def k_below_one_finds_nothing(retrieve: Callable[[_R, str, int], list[Hit]]) -> Callable[[_R, str, int], list[Hit]]:
    """The ``Retriever`` rule for ``k`` < 1, in one place: wraps a ``retrieve`` method so that it
    returns ``[]`` without running (no search, no LLM call); otherwise it runs as written."""

    @functools.wraps(retrieve)
    def checked(self: _R, query: str, k: int) -> list[Hit]:
        return [] if k < 1 else retrieve(self, query, k)

    return checked


@runtime_checkable
class Reranker(Protocol):
    def rerank(self, query: str, hits: Sequence[Hit], k: int) -> list[Hit]: ...


@runtime_checkable
class QueryTransform(Protocol):
    """Turns one query into one or more queries (rewrite, multi-query, HyDE …)."""

    def transform(self, query: str) -> list[str]: ...
