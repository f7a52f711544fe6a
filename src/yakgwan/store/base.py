"""The records and protocols of the store layer: the index seen by retrieval code
(``IndexView``) and the backend that persists it (``Store``).

Retrieval code only uses ``IndexView``: chunk records, a lexical search over query tokens and a
dense search over a query vector. How they are stored (files, a database) stays in the backend.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, ContextManager, Iterator, Mapping, Protocol, Sequence, runtime_checkable

import numpy as np

from yakgwan.core.errors import IndexStoreError
from yakgwan.messages import msg
from yakgwan.core.records import Chunk


@dataclass(frozen=True)
class DocRecord:
    """What the index remembers about one ingested document."""

    doc_id: str
    source: str
    title: str
    kind: str
    content_hash: str
    n_pages: int
    n_chunks: int
    doc_type: str | None = None
    origin: str = ""
    # what the user said of the document at ingest (``--meta insurer=… product=… version=…``);
    # filters read it (``store.filters``) before what the document prints
    meta: dict[str, str] = field(default_factory=dict)
    # what the document prints about itself (``ingest.printed``: product, insurer, version) and
    # where, by key ("p.2: KB스마트운전자보험 보통약관")
    printed: dict[str, str] = field(default_factory=dict)
    printed_from: dict[str, str] = field(default_factory=dict)
    # how the document's pages were read (``ingest.run.page_reading``): version, total_pages, ocr_pages,
    # unread_pages, textless_pages, toc_pages, ocr_engine, ocr_confidence, and the page warnings
    # as tagged catalogue messages (``messages.said``); empty in an index built before it was kept
    reading: dict[str, object] = field(default_factory=dict)

    def label(self, key: str) -> str | None:
        """The document's ``key`` (insurer, product, product_type, doc_type, version): as set at ingest, else as printed."""
        return self.meta.get(key) or self.printed.get(key)


@dataclass
class IndexData:
    """Everything an index holds, in memory. Rows of ``tokens`` and ``vectors`` align with ``chunks``;
    ``dense_mask[i]`` says whether row i of ``vectors`` holds a real embedding yet."""

    chunks: list[Chunk]
    tokens: list[list[str]]
    docs: dict[str, DocRecord]
    tokenizer: str
    embedder: str
    dim: int
    vectors: np.ndarray
    dense_mask: np.ndarray
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def dense_ready(self) -> bool:
        return bool(len(self.chunks)) and bool(self.dense_mask.all())


@runtime_checkable
class IndexView(Protocol):
    """Read-only, query-time view of an index."""

    chunks: Sequence[Chunk]
    docs: Mapping[str, DocRecord]
    tokenizer: str
    embedder: str
    ingest_steps: tuple[str, ...]  # LLM steps the index was built with (empty: none)

    @property
    def dense_ready(self) -> bool: ...

    @property
    def dense_embedded(self) -> int:
        """How many chunks have their dense vector (all of them once ingest has finished)."""
        ...

    @property
    def vectors(self) -> np.ndarray:
        """The chunks' dense vectors, one row per chunk (zero rows not embedded yet)."""
        ...

    @property
    def dense_mask(self) -> np.ndarray:
        """Whether row i of ``vectors`` holds a real embedding yet (bool, one per chunk)."""
        ...

    def lexical_search(self, query_tokens: list[str], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        """BM25 (row, score), best first, scores above zero; ``rows``: only these rows compete
        (the whole index's statistics still apply)."""
        ...

    def dense_search(self, query_vector: np.ndarray, k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        """Dot-product (row, score) over embedded rows, best first; ``rows``: only these rows."""
        ...


@runtime_checkable
class Store(Protocol):
    """Persists an index atomically: readers see the old or the new version, never a mix."""

    @property
    def location(self) -> str:
        """Where the index lives, as a user would name it (a folder path, a URI)."""
        ...

    def exists(self) -> bool: ...

    def generation(self) -> str | None:
        """An opaque name of the committed version (changes with every commit); None when
        nothing has been committed yet. Readers compare it to know when to reload."""
        ...

    def read(self) -> IndexData: ...

    def commit(self, data: IndexData) -> None:
        """Replace the index with ``data``. ``IndexStoreError`` (naming the counts), and the store
        left as it was, when its tokens, vectors or dense_mask do not have one row per chunk."""
        ...

    def restore(self, generation: str | None) -> None:
        """Make ``generation`` current again: the one that was current before the last commit
        (always kept), so that work of several commits (an ingest: words, then vectors) whose
        later commit fails leaves the store as it found it; None: no index, as before a first
        commit. ``IndexStoreError`` when that generation is no longer kept."""
        ...

    def writer(self, on_wait: Callable[[], None] | None = None) -> ContextManager[None]:
        """Exclusive write access for a whole read–plan–commit cycle: across processes, handles
        and the threads sharing one handle (``on_wait`` is called once when it has to wait);
        re-entrant only in the thread that holds it."""
        ...

    def view(self) -> IndexView: ...


def chunk_to_json(chunk: Chunk) -> str:
    """One chunk as a JSON object (every field; what ``chunk_from_json`` reads back). Pure."""
    return json.dumps(dataclasses.asdict(chunk), ensure_ascii=False)


def chunk_from_json(d: dict) -> Chunk:
    """The chunk of a ``chunk_to_json`` object, already parsed (``pages`` back to a tuple)."""
    d["pages"] = tuple(d.get("pages") or ())
    return Chunk(**d)


def check_rows(location: str, data: IndexData) -> None:
    """Refuse ``data`` whose tokens, vectors or dense_mask do not have one row per chunk: its
    searches would return the wrong chunks (``IndexStoreError`` naming the counts)."""
    n = len(data.chunks)
    rows = {"tokens": len(data.tokens), "vectors": len(data.vectors), "dense_mask": len(data.dense_mask)}
    bad = [f"{count} rows of {name}" for name, count in rows.items() if count != n]
    if bad:
        raise IndexStoreError(msg("index.rows", where=str(location), n=n, bad=", ".join(bad)))


class WriterTurns:
    """``Store.writer`` for one handle: its threads take turns, the thread holding it may enter
    again, and inside the turn ``exclusive(on_wait)`` takes the backend's own lock across
    processes (``on_wait`` is called once, by whichever lock makes this writer wait first)."""

    def __init__(self, exclusive: Callable[[Callable[[], None] | None], ContextManager[None]]) -> None:
        self._exclusive = exclusive
        self._threads = threading.Lock()
        self._owner: int | None = None

    @contextmanager
    def writer(self, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
        if self._owner == threading.get_ident():
            yield
            return
        if not self._threads.acquire(blocking=False):
            if on_wait is not None:
                on_wait()
                on_wait = None
            self._threads.acquire()
        try:
            with self._exclusive(on_wait):
                self._owner = threading.get_ident()
                try:
                    yield
                finally:
                    self._owner = None
        finally:
            self._threads.release()
