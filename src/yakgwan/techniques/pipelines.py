"""Builders for the LLM-technique pipelines; registered in ``yakgwan.pipelines``.

Every technique runs on the default first stage (``hybrid_cc``) and keeps the original query's
ranking in its fusion, so it cannot fall far below the first stage on recall.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from yakgwan.core.errors import YakgwanError
from yakgwan.core.protocols import Retriever
from yakgwan.retrieval.dense import DenseRetriever
from yakgwan.retrieval.hybrid import CC_DENSE_WEIGHT, FusionRetriever
from yakgwan.techniques.multi import MultiQueryRetriever, TransformedQueryRetriever
from yakgwan.techniques.query_transforms import HydeWriter, QueryExpander
from yakgwan.techniques.rerank_llm import LLMListwiseReranker, RerankedRetriever

if TYPE_CHECKING:
    from yakgwan.pipelines import PipelineContext



@dataclass
class ExpansionTransform:
    """The seed's 3-stage expansion: original + one rewrite + two expansions."""

    rewrite: QueryExpander
    expand: QueryExpander

    def transform(self, query: str) -> list[str]:
        return list(dict.fromkeys([*self.rewrite.transform(query), *self.expand.transform(query)]))


def rewrite(ctx: PipelineContext) -> Retriever:
    return MultiQueryRetriever("rewrite", ctx.first_stage(), QueryExpander(ctx.llm, ctx.tokenizer, "rewrite"), merge="rrf")


def multiquery(ctx: PipelineContext) -> Retriever:
    expander = QueryExpander(ctx.llm, ctx.tokenizer, "multiquery", n=3)
    return MultiQueryRetriever("multiquery", ctx.first_stage(), expander, merge="interleave")


def fusion(ctx: PipelineContext) -> Retriever:
    expander = QueryExpander(ctx.llm, ctx.tokenizer, "multiquery", n=3)
    return MultiQueryRetriever("fusion", ctx.first_stage(), expander, merge="rrf")


def expansion(ctx: PipelineContext) -> Retriever:
    transform = ExpansionTransform(
        QueryExpander(ctx.llm, ctx.tokenizer, "rewrite"), QueryExpander(ctx.llm, ctx.tokenizer, "multiquery", n=2)
    )
    merged = MultiQueryRetriever("expansion", ctx.first_stage(), transform, merge="rrf")
    return RerankedRetriever("expansion", merged, LLMListwiseReranker(ctx.llm))


def _hyde(ctx: PipelineContext, name: str, mode: str) -> Retriever:
    passage_dense = DenseRetriever(ctx.view, ctx.embedder, kind="passage", name=f"{name}_dense")
    on_passage = TransformedQueryRetriever(f"{name}_dense", passage_dense, HydeWriter(ctx.llm, mode))
    return FusionRetriever(name, [on_passage, ctx.bm25()], [CC_DENSE_WEIGHT, 1 - CC_DENSE_WEIGHT], method="minmax")


def hyde(ctx: PipelineContext) -> Retriever:
    return _hyde(ctx, "hyde", "lay")


def reverse_hyde(ctx: PipelineContext) -> Retriever:
    return _hyde(ctx, "reverse_hyde", "clause")


def hybrid_hyde(ctx: PipelineContext) -> Retriever:
    base = ctx.first_stage()
    on_passage = TransformedQueryRetriever("hyde_passage", base, HydeWriter(ctx.llm, "lay"))
    return FusionRetriever("hybrid_hyde", [base, on_passage], [1.0, 1.0], method="rrf")


def rerank_llm(ctx: PipelineContext, first: Retriever | None = None, name: str = "rerank_llm") -> Retriever:
    return RerankedRetriever(name, first or ctx.first_stage(), LLMListwiseReranker(ctx.llm))


def rerank_yesno(ctx: PipelineContext, first: Retriever | None = None, name: str = "rerank_yesno") -> Retriever:
    from yakgwan.techniques.rerank_pointwise import GatedPointwiseReranker

    return RerankedRetriever(name, first or ctx.first_stage(), GatedPointwiseReranker(ctx.llm))


def compress(ctx: PipelineContext, first: Retriever | None = None, name: str = "compress") -> Retriever:
    from yakgwan.techniques.compress import CompressingRetriever, Compressor

    return CompressingRetriever(name, first or ctx.first_stage(), Compressor(ctx.llm, ctx.tokenizer))


def crag(ctx: PipelineContext, first: Retriever | None = None, name: str = "crag") -> Retriever:
    from yakgwan.techniques.crag import CorrectiveRetriever

    titles = sorted({c.title for c in ctx.view.chunks if c.title})[:5]
    return CorrectiveRetriever(name, first or ctx.first_stage(), ctx.llm, ctx.tokenizer, ctx.search, subject=", ".join(titles) or "이 지식 베이스")


def multihop(ctx: PipelineContext) -> Retriever:
    from yakgwan.techniques.multihop import MultiHopRetriever

    return MultiHopRetriever("multihop", ctx.first_stage(), ctx.llm, ctx.tokenizer)


def self_rag(ctx: PipelineContext) -> Retriever:
    from yakgwan.techniques.self_rag import SelfRagRetriever

    return SelfRagRetriever("self_rag", ctx.first_stage(), ctx.llm)


def agentic(ctx: PipelineContext) -> Retriever:
    from yakgwan.techniques.agentic import AgenticRetriever

    return AgenticRetriever("agentic", ctx.first_stage(), ctx.llm, list(ctx.view.chunks), ctx.search)


def late(ctx: PipelineContext, first: Retriever | None = None, name: str = "late") -> Retriever:
    from yakgwan.techniques.late import LATE_DEPTH, LateInteractionReranker, TokenVectorCache

    encoder = ctx.embedder
    if not hasattr(encoder, "token_vectors"):
        raise YakgwanError(f"late needs token vectors from the bundled e5 encoder; the index's embedder {encoder.model_id!r} gives none")
    cache = TokenVectorCache(ctx.cache_dir / "late-tokens.sqlite") if ctx.cache_dir else None
    return RerankedRetriever(name, first or ctx.first_stage(), LateInteractionReranker(encoder, cache), depth=LATE_DEPTH)


def raptor(ctx: PipelineContext) -> Retriever:
    from yakgwan.techniques.raptor import RaptorRetriever, build_tree, load_tree, save_tree, tree_fingerprint

    first = ctx.first_stage()
    llm = ctx.llm
    if llm is None:
        return TransformedQueryRetriever("raptor(no LLM: first stage)", first, lambda q: q)
    chunks = list(ctx.view.chunks)
    vectors = np.asarray(ctx.view.vectors, dtype=np.float32)
    fp = tree_fingerprint(chunks, llm, ctx.view.embedder)
    folder = ctx.cache_dir / "raptor" if ctx.cache_dir else None
    tree = load_tree(folder, fp) if folder else None
    if tree is None:  # built once per index and LLM; kept only where a cache folder is given
        tree = build_tree(chunks, vectors, llm, ctx.embedder, ctx.quiet, ctx.sink)
        tree.fingerprint = fp
        if folder:
            save_tree(tree, folder)
    return RaptorRetriever("raptor", first, tree, ctx.embedder, {c.chunk_id: c for c in chunks}, {c.chunk_id: v for c, v in zip(chunks, vectors)})
