"""How each technique pipeline assembles its retrievers; registered in ``yakgwan.pipelines.registry``.

Every technique runs on the default first stage (``hybrid_cc``) and keeps the original query's
ranking in its fusion, so it cannot fall far below the first stage on recall.
"""

from __future__ import annotations

import numpy as np

from yakgwan.core.protocols import Retriever
from yakgwan.core.records import HitStatus
from yakgwan.pipelines.context import PipelineContext
from yakgwan.query.expander import QueryExpander
from yakgwan.query.expansion import ExpansionTransform
from yakgwan.query.hyde import HydeWriter
from yakgwan.rerank.listwise_llm import LLMListwiseReranker
from yakgwan.rerank.registry import RERANKERS
from yakgwan.retrieval.retrievers.agentic import AgenticRetriever
from yakgwan.retrieval.retrievers.compress import CompressingRetriever, Compressor
from yakgwan.retrieval.retrievers.crag import CorrectiveRetriever
from yakgwan.retrieval.retrievers.dense import DenseRetriever
from yakgwan.retrieval.retrievers.hybrid import CC_DENSE_WEIGHT, FusionRetriever
from yakgwan.retrieval.retrievers.multi_query import MultiQueryRetriever
from yakgwan.retrieval.retrievers.multihop import MultiHopRetriever
from yakgwan.retrieval.retrievers.raptor import RaptorRetriever, build_tree, load_tree, save_tree, tree_fingerprint
from yakgwan.retrieval.retrievers.reranked import RerankedRetriever
from yakgwan.retrieval.retrievers.self_rag import SelfRagRetriever
from yakgwan.retrieval.retrievers.transformed_query import TransformedQueryRetriever


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
    fused = FusionRetriever(name, [on_passage, ctx.bm25()], [CC_DENSE_WEIGHT, 1 - CC_DENSE_WEIGHT], method="minmax")
    return ctx.profiled(fused, name)  # on a policy, inside the clause stage


def hyde(ctx: PipelineContext) -> Retriever:
    return _hyde(ctx, "hyde", "lay")


def reverse_hyde(ctx: PipelineContext) -> Retriever:
    return _hyde(ctx, "reverse_hyde", "clause")


def hybrid_hyde(ctx: PipelineContext) -> Retriever:
    base = ctx.first_stage()
    on_passage = TransformedQueryRetriever("hyde_passage", base, HydeWriter(ctx.llm, "lay"))
    return FusionRetriever("hybrid_hyde", [base, on_passage], [1.0, 1.0], method="rrf")


def reranked(ctx: PipelineContext, reranker: str, first: Retriever | None = None, name: str | None = None) -> Retriever:
    """``first`` (the default first stage) followed by the registered ``reranker``."""
    spec = RERANKERS.get(reranker)
    made = spec.make(ctx)
    return RerankedRetriever(name or reranker, first or ctx.first_stage(), made, depth=spec.depth)


def compress(ctx: PipelineContext, first: Retriever | None = None, name: str = "compress") -> Retriever:
    return CompressingRetriever(name, first or ctx.first_stage(), Compressor(ctx.llm, ctx.tokenizer))


def crag(ctx: PipelineContext, first: Retriever | None = None, name: str = "crag") -> Retriever:
    titles = sorted({c.title for c in ctx.view.chunks if c.title})[:5]
    return CorrectiveRetriever(name, first or ctx.first_stage(), ctx.llm, ctx.tokenizer, ctx.search, subject=", ".join(titles) or "이 지식 베이스")


def multihop(ctx: PipelineContext) -> Retriever:
    return MultiHopRetriever("multihop", ctx.first_stage(), ctx.llm, ctx.tokenizer)


def self_rag(ctx: PipelineContext) -> Retriever:
    return SelfRagRetriever("self_rag", ctx.first_stage(), ctx.llm)


def agentic(ctx: PipelineContext) -> Retriever:
    return AgenticRetriever("agentic", ctx.first_stage(), ctx.llm, list(ctx.view.chunks), ctx.search)


def raptor(ctx: PipelineContext) -> Retriever:
    first = ctx.first_stage()
    llm = ctx.llm
    if llm is None:
        return TransformedQueryRetriever("raptor", first, lambda q: q, HitStatus.NO_LLM_FIRST_STAGE)
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
