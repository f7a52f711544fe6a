"""``ingest``: add files, folders or a BEIR corpus to the configured index, and what it holds."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping, Sequence

from yakgwan.config import Settings, env
from yakgwan.core.errors import InputError
from yakgwan.messages import msg
from yakgwan.core.protocols import Embedder
from yakgwan.embedders import make_embedder
from yakgwan.embedders.cache import EmbeddingCache
from yakgwan.ingest.run import Ingestor, IngestReport
from yakgwan.ingest.steps.fallbacks import fallback_lines
from yakgwan.ingest.steps.registry import make_steps
from yakgwan.llm import LLM, make_llm
from yakgwan.ingest.workers import RayWorkers, WorkerSpec
from yakgwan.ingest.loaders.archive import ArchiveVerdict, docx_verdict
from yakgwan.ingest.loaders.textdecode import DecodeFailure, decode_prefix, decode_text, looks_binary
from yakgwan.progress import ProgressSink
from yakgwan.store import IndexData, check_meta, open_store, parse_meta
from yakgwan.text.registry import make_tokenizer

# what the CLI and the server print about an ingest comes with it
# (and how an upload's text is told from binary content, and a Word archive from a bomb)
__all__ = ["ArchiveVerdict", "DecodeFailure", "IndexSummary", "IngestReport", "decode_prefix", "decode_text", "docx_verdict", "embedding_cache", "fallback_lines",
           "index_summary", "ingest", "looks_binary"]


def embedding_cache(settings: Settings) -> EmbeddingCache:
    return EmbeddingCache.in_folder(settings.cache_dir)


def ingest(
    settings: Settings,
    paths: list[Path],
    strict: bool = False,
    sync: bool = False,
    on_lexical_ready: Callable[[IngestReport], None] | None = None,
    embedder: Embedder | None = None,
    steps: Sequence[str] = (),
    llm: LLM | None = None,
    sink: ProgressSink | None = None,
    meta: Mapping[str, str] | None = None,
    ray: str | None = None,
    ray_workers: int | None = None,
) -> IngestReport:
    """Ingest ``paths`` into ``settings.index_dir``. ``steps`` names LLM ingest steps
    (``llm_chunk``, ``preprocess``); they use ``llm`` or the configured one. ``meta`` is set on
    every document of this ingest (``store.filters.META_KEYS``; unchanged documents get it too). ``sync``
    mirrors ``paths`` exactly: indexed documents that are not among them are removed (an evaluation
    corpus, a policy read alone); without it they stay. ``on_lexical_ready`` is called once the
    words are committed, before the vectors are made. ``ray``
    (``local``, ``auto`` or an address) reads, tokenises and embeds on the actors of a Ray cluster
    (``ray_workers`` of them; default: one per CPU), each building the configured tokenizer and
    embedder once; the documents are committed from here, as without it."""
    if steps and llm is None:
        llm = make_llm(settings.llm, settings.cache_dir)
        if llm is None:
            raise InputError(None, msg("ingest.steps_need_llm", steps=", ".join(steps)))
    chunk_steps = make_steps(steps, llm)
    workers = RayWorkers(ray, WorkerSpec(settings.tokenizer, settings.embedder, settings.cache_dir), ray_workers) if ray else None
    ingestor = Ingestor(
        store=open_store(settings.index_dir),
        tokenizer=make_tokenizer(settings.tokenizer),
        embedder=embedder or make_embedder(settings.embedder, settings.cache_dir),
        cache=embedding_cache(settings),
        quiet=settings.quiet,
        lang=settings.language,
        strict=strict,
        sync=sync,
        on_lexical_ready=on_lexical_ready,
        chunk_steps=chunk_steps,
        sink=sink,
        meta=check_meta(meta or {}),
        debug=env.runtime().debug,
        workers=workers,
    )
    try:
        return ingestor.run(paths)
    finally:
        ingestor.cache.close()
        if workers is not None:
            workers.close()


@dataclass(frozen=True)
class IndexSummary:
    """What an index holds, counted from its chunks and documents."""

    documents: int
    pages: int
    yakgwan: int  # distinct (document, 약관) pairs
    articles: int  # distinct (document, 약관, 조) triples
    chunks: int
    dense_embedded: int


def index_summary(data: IndexData) -> IndexSummary:
    return IndexSummary(
        documents=len(data.docs),
        pages=sum(d.n_pages for d in data.docs.values()),
        yakgwan=len({(c.doc_id, c.yakgwan) for c in data.chunks if c.yakgwan}),
        articles=len({(c.doc_id, c.yakgwan, c.article) for c in data.chunks if c.article}),
        chunks=len(data.chunks),
        dense_embedded=int(data.dense_mask.sum()),
    )
