"""Models shared by every request and job of a long-running service (the HTTP server), each
loaded once on first use; and the pipeline context of an index over them.

The Korean analyser, the embedder and a llama.cpp model keep state between calls, so each is
used by one thread at a time (a lock per model). The LLM facade (its response cache is an SQLite
connection, its usage counters are per run) is made fresh for each request around the one shared
provider."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Callable, Generic, Sequence, TypeVar

import numpy as np

from yakgwan.answer.anchors import AnchorFinder
from yakgwan.answer.extract_units import CachingEmbedder
from yakgwan.embedders.cache import EmbeddingCache
from yakgwan.config import Settings
from yakgwan.embedders import make_embedder
from yakgwan.core.errors import UnknownName
from yakgwan.llm import LLM, PROVIDERS
from yakgwan.llm.cache import ResponseCache
from yakgwan.core.protocols import EmbedKind, Embedder
from yakgwan.pipelines import PipelineContext
from yakgwan.query.thesaurus import Thesaurus
from yakgwan.retrieval.clause_map import ClauseMap, build_clause_map
from yakgwan.store import IndexView
from yakgwan.text.registry import make_tokenizer
from yakgwan.websearch.registry import make_search
from yakgwan.text.tokenizer import Tokenizer

T = TypeVar("T")
CLAUSE_MAPS_KEPT = 16  # 약관 maps of this many index views (collections, generations) stay built


class Serialised(Generic[T]):
    """Every method call on the wrapped object holds ``lock``; attributes read through."""

    def __init__(self, target: T, lock: threading.Lock) -> None:
        self._target = target
        self._lock = lock

    def __getattr__(self, name: str) -> object:
        attr = getattr(self._target, name)
        if not callable(attr):
            return attr

        def call(*args: object, **kwargs: object) -> object:  # noqa: ANN401 - a transparent proxy
            with self._lock:
                return attr(*args, **kwargs)

        return call


@dataclass
class _Pending:
    texts: list[str]
    kind: str
    result: np.ndarray | None = None
    error: BaseException | None = None


class BatchingEmbedder:
    """Concurrent ``embed`` calls share forward passes: calls that arrive while one runs wait,
    and the next caller to run takes every waiting call of its kind (up to ``max_texts`` texts)
    into one batch. Under load many one-query searches cost a few batched passes instead of one
    pass each; a lone call runs at once."""

    def __init__(self, inner: Embedder, max_texts: int = 64) -> None:
        if max_texts < 1:
            raise ValueError(f"max_texts must be >= 1, got {max_texts}")
        self.inner = inner
        self.max_texts = max_texts
        self.model_id = inner.model_id
        self.dim = inner.dim
        self._queue: list[_Pending] = []
        self._queue_lock = threading.Lock()
        self._run_lock = threading.Lock()
        self._passthrough = Serialised(inner, self._run_lock)
        self.batches = 0  # forward passes run (for tests and metrics)

    def __getattr__(self, name: str) -> object:  # other methods (token vectors) pass through, serialised
        return getattr(self._passthrough, name)

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> np.ndarray:
        mine = _Pending(list(texts), kind)
        with self._queue_lock:
            self._queue.append(mine)
        with self._run_lock:
            if mine.result is None and mine.error is None:
                self._run_batch(mine)
        if mine.error is not None:
            raise mine.error
        assert mine.result is not None
        return mine.result

    def _run_batch(self, first: _Pending) -> None:
        with self._queue_lock:
            batch, size = [], 0
            for p in list(self._queue):
                if p.kind == first.kind and (p is first or size + len(p.texts) <= self.max_texts):
                    batch.append(p)
                    size += len(p.texts)
            for p in batch:
                self._queue.remove(p)
        try:
            vecs = self.inner.embed([t for p in batch for t in p.texts], first.kind)  # type: ignore[arg-type]
        except BaseException as exc:  # every waiting caller gets the failure
            for p in batch:
                p.error = exc
            return
        self.batches += 1
        at = 0
        for p in batch:
            p.result = vecs[at : at + len(p.texts)]
            at += len(p.texts)


class SharedModels:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._tokenizers: dict[str, Tokenizer] = {}
        self._embedder: Embedder | None = None
        self._ingest_embedder: Embedder | None = None
        self._anchors: AnchorFinder | None = None
        self._provider: object | None = None
        self._thesaurus: Thesaurus | None = None
        self._clause_maps: dict[int, tuple[IndexView, ClauseMap]] = {}  # by view; the views a server keeps
        self._unit_vectors: dict[str, CachingEmbedder] = {}  # by embedder model_id

    def tokenizer(self, name: str) -> Tokenizer:
        with self._lock:
            if name not in self._tokenizers:
                self._tokenizers[name] = Serialised(make_tokenizer(name), threading.Lock())  # type: ignore[assignment]
            return self._tokenizers[name]

    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = BatchingEmbedder(make_embedder(self.settings.embedder, self.settings.cache_dir))  # type: ignore[assignment]
            return self._embedder  # type: ignore[return-value]

    def thesaurus(self) -> Thesaurus:
        """The bundled insurance thesaurus, loaded once."""
        with self._lock:
            if self._thesaurus is None:
                self._thesaurus = Thesaurus.load()
            return self._thesaurus

    def clause_map(self, view: IndexView) -> ClauseMap:
        """The 약관 structure of ``view``, built once per view (a few hundred milliseconds for a
        168-page policy); the maps of the last ``CLAUSE_MAPS_KEPT`` views are kept."""
        with self._lock:
            got = self._clause_maps.get(id(view))
            if got is not None and got[0] is view:
                return got[1]
        built = build_clause_map(view.chunks, self.tokenizer(view.tokenizer), self.settings.cache_dir)
        with self._lock:
            self._clause_maps[id(view)] = (view, built)
            while len(self._clause_maps) > CLAUSE_MAPS_KEPT:
                self._clause_maps.pop(next(iter(self._clause_maps)))
        return built

    def unit_vectors(self, embedder: Embedder) -> CachingEmbedder:
        """The answer units' vectors, kept across requests (one cache per embedder model) and in
        the machine's embedding cache: a policy's units are embedded once, not once per question."""
        with self._lock:
            got = self._unit_vectors.get(embedder.model_id)
            if got is None:
                got = self._unit_vectors[embedder.model_id] = CachingEmbedder(embedder, EmbeddingCache.in_folder(self.settings.cache_dir))
            return got

    def anchor_finder(self) -> AnchorFinder:
        """The question analyser of ``ask`` (Kiwi takes about a second to load: once)."""
        with self._lock:
            if self._anchors is None:
                self._anchors = Serialised(AnchorFinder(), threading.Lock())  # type: ignore[assignment]
            return self._anchors  # type: ignore[return-value]

    def ingest_embedder(self) -> Embedder:
        """A second instance for ingest jobs: a search never waits behind an ingest's batches
        (they still share the CPU)."""
        with self._lock:
            if self._ingest_embedder is None:
                self._ingest_embedder = Serialised(make_embedder(self.settings.embedder, self.settings.cache_dir), threading.Lock())  # type: ignore[assignment]
            return self._ingest_embedder  # type: ignore[return-value]

    def llm(self) -> LLM | None:
        """A fresh facade (own cache connection and counters) around the shared provider; None
        when no LLM is configured."""
        cfg = self.settings.llm
        if cfg.provider == "none":
            return None
        with self._lock:
            if self._provider is None:
                factory = PROVIDERS.get(cfg.provider)
                if factory is None:
                    raise UnknownName("LLM provider", cfg.provider, [*PROVIDERS, "none"])
                self._provider = Serialised(factory(cfg, self.settings.cache_dir), threading.Lock())
            provider = self._provider
        cache = ResponseCache(self.settings.cache_dir / "llm-responses.sqlite") if cfg.use_cache else None
        return LLM(provider, cache=cache)  # type: ignore[arg-type]


def shared_context(view: IndexView, models: SharedModels, make_embedder: Callable[[], Embedder]) -> PipelineContext:
    """A pipeline context for one request over ``view``: the shared tokenizer and LLM provider
    (a fresh facade), the embedder ``make_embedder`` gives (the caller checks it matches the
    index), the configured search provider."""
    settings = models.settings
    return PipelineContext(
        view=view,
        make_tokenizer=lambda: models.tokenizer(view.tokenizer),
        make_embedder=make_embedder,
        make_llm=models.llm,
        make_search=lambda: make_search(settings.search),
        cache_dir=settings.cache_dir,
        make_clause_map=lambda: models.clause_map(view),
        make_thesaurus=models.thesaurus,
    )
