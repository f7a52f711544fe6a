"""The pipeline registry: every named retrieval pipeline, its description, and how to build it.

Error messages and ``yakgwan pipelines`` are generated from ``PIPELINES``; there is no other list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from yakgwan.core.errors import UnknownName, YakgwanError
from yakgwan.llm import LLM
from yakgwan.progress import ProgressSink
from yakgwan.core.protocols import Embedder, Retriever
from yakgwan.retrieval.bm25_retriever import BM25Retriever
from yakgwan.retrieval.dense import DenseRetriever
from yakgwan.retrieval.hybrid import CC_DENSE_WEIGHT, FusionRetriever
from yakgwan.store import IndexView
from yakgwan.text.tokenizer import Tokenizer
from yakgwan.techniques import pipelines as T
from yakgwan.techniques.compress import COMPRESS_TOP_N
from yakgwan.techniques.crag import CRAG_THRESHOLD, CRAG_TOP_N
from yakgwan.techniques.agentic import MAX_STEPS as AGENT_STEPS, TOKEN_BUDGET as AGENT_TOKENS
from yakgwan.techniques.late import LATE_DEPTH
from yakgwan.techniques.raptor import CLUSTER_SIZE as RAPTOR_CLUSTER, NODES_SEARCHED as RAPTOR_NODES
from yakgwan.techniques.multihop import MAX_HOPS
from yakgwan.techniques.self_rag import SELF_RAG_TOP_N
from yakgwan.websearch.provider import SearchProvider
from yakgwan.techniques.rerank_llm import RERANK_TOP_N
from yakgwan.techniques.rerank_pointwise import GATE_MARGIN, GATE_TOP_M
from yakgwan.techniques.ingest_steps import INGEST_STEPS, canonical_steps


@dataclass
class PipelineContext:
    """What a pipeline is built from. Models are created on first use only."""

    view: IndexView
    make_tokenizer: Callable[[], Tokenizer]
    make_embedder: Callable[[], Embedder]
    make_llm: Callable[[], LLM | None] = lambda: None
    make_search: Callable[[], SearchProvider | None] = lambda: None
    cache_dir: Path | None = None  # where model caches live (late interaction's token vectors)
    quiet: bool = True  # no progress bar for the work a pipeline does before its first search (RAPTOR's tree)
    sink: ProgressSink | None = None  # hears that work's progress (the HTTP API's job status, eval's)
    _tokenizer: Tokenizer | None = field(default=None, repr=False)
    _embedder: Embedder | None = field(default=None, repr=False)
    _llm: tuple[LLM | None] | None = field(default=None, repr=False)
    _search: tuple[SearchProvider | None] | None = field(default=None, repr=False)

    @property
    def llm(self) -> LLM | None:
        if self._llm is None:
            self._llm = (self.make_llm(),)
        return self._llm[0]

    @property
    def search(self) -> SearchProvider | None:
        """The search provider for corrective RAG's fallback (None: not configured)."""
        if self._search is None:
            self._search = (self.make_search(),)
        return self._search[0]

    def first_stage(self) -> Retriever:
        """The default first stage that query-side techniques build on."""
        return _hybrid_cc(self)

    @property
    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = self.make_tokenizer()
        return self._tokenizer

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = self.make_embedder()
        return self._embedder

    def bm25(self) -> Retriever:
        return BM25Retriever(self.view, self.tokenizer)

    def dense(self) -> Retriever:
        if not self.view.dense_ready:
            raise YakgwanError(
                "dense vectors are not complete in this index (an ingest is still embedding, or could not embed: run ingest again); use --pipeline bm25 meanwhile"
            )
        return DenseRetriever(self.view, self.embedder)


@dataclass(frozen=True)
class PipelineSpec:
    name: str
    description: str
    build: Callable[[PipelineContext], Retriever]
    needs_dense: bool
    needs_llm: bool = False
    # LLM steps the index must have been built with (``yakgwan.techniques.ingest_steps``)
    ingest_steps: tuple[str, ...] = ()
    # a retrieval-only first stage that techniques are measured against (``eval.rows.FIRST_STAGES``)
    first_stage: bool = False


def _hybrid_rrf(ctx: PipelineContext) -> Retriever:
    return FusionRetriever("hybrid", [ctx.dense(), ctx.bm25()], [1.0, 1.0], method="rrf")


def _hybrid_cc(ctx: PipelineContext) -> Retriever:
    w = CC_DENSE_WEIGHT
    return FusionRetriever("hybrid_cc", [ctx.dense(), ctx.bm25()], [w, 1.0 - w], method="minmax", depth=100)


PIPELINES: dict[str, PipelineSpec] = {
    spec.name: spec
    for spec in [
        PipelineSpec("bm25", "Korean BM25 over morphemes (negation prefixes kept on their noun)", lambda c: c.bm25(), False, first_stage=True),
        PipelineSpec("dense", "multilingual-e5-small cosine similarity (bundled weights)", lambda c: c.dense(), True, first_stage=True),
        PipelineSpec("hybrid", "dense + BM25 fused by Reciprocal Rank Fusion (k=60, equal weights)", _hybrid_rrf, True, first_stage=True),
        PipelineSpec(
            "hybrid_cc",
            "dense + BM25 scores min-max normalised over each top-100 list, 0.3*dense + 0.7*BM25",
            _hybrid_cc,
            True,
            first_stage=True,
        ),
        PipelineSpec("rewrite", "LLM keyword rewrite of the query, fused with the original by RRF", T.rewrite, True, True),
        PipelineSpec("multiquery", "original + 3 LLM query variants, hit lists interleaved", T.multiquery, True, True),
        PipelineSpec("fusion", "original + 3 LLM query variants, fused by RRF", T.fusion, True, True),
        PipelineSpec("expansion", "original + rewrite + 2 expansions -> RRF -> LLM listwise rerank", T.expansion, True, True),
        PipelineSpec("hyde", "dense search with an LLM-written answer passage (HyDE) + BM25 of the query", T.hyde, True, True),
        PipelineSpec("reverse_hyde", "dense search with an LLM-written clause-style passage + BM25 of the query", T.reverse_hyde, True, True),
        PipelineSpec("hybrid_hyde", "default first stage on the query and on a HyDE passage, fused by RRF", T.hybrid_hyde, True, True),
        PipelineSpec("rerank_llm", f"default first stage, top {RERANK_TOP_N} reordered by an LLM (validated permutation)", T.rerank_llm, True, True),
        PipelineSpec(
            "rerank_yesno",
            f"default first stage; only when its top two scores are within {GATE_MARGIN:.0%}, the top {GATE_TOP_M} reordered by the LLM's P(yes, relevant)",
            T.rerank_yesno,
            True,
            True,
        ),
        PipelineSpec(
            "llm_chunk",
            "default retrieval over an index chunked by the LLM (headline + summary indexed, original text cited)",
            _hybrid_cc,
            True,
            True,
            ("llm_chunk",),
        ),
        PipelineSpec(
            "preprocess",
            "default retrieval over an index whose chunks the LLM rewrote for search (original text cited)",
            _hybrid_cc,
            True,
            True,
            ("preprocess",),
        ),
        PipelineSpec("compress", f"default first stage, each of the top {COMPRESS_TOP_N} hits cut to the sentences that bear on the question", T.compress, True, True),
        PipelineSpec(
            "crag",
            f"corrective RAG: the LLM grades the top {CRAG_TOP_N} hits 0-5, keeps those >= {CRAG_THRESHOLD}, rewrites and retries once, "
            "then falls back to the search provider (YAKGWAN_SEARCH) with each result verified",
            T.crag, True, True,
        ),
        PipelineSpec(
            "multihop",
            f"the LLM splits the question into sub-questions and asks for follow-ups until enough (at most {MAX_HOPS} hops); "
            "hop lists fused by RRF with the question's own list weighted double",
            T.multihop, True, True,
        ),
        PipelineSpec(
            "self_rag",
            f"Self-RAG: the LLM decides whether to search, keeps the top {SELF_RAG_TOP_N} hits it judges relevant; "
            "ask also checks the answer's support and usefulness and rewrites it once",
            T.self_rag, True, True,
        ),
        PipelineSpec(
            "agentic",
            f"a ReAct loop: the LLM calls kb_search, article_lookup (제N조) or web_search (YAKGWAN_SEARCH) until it finishes "
            f"(at most {AGENT_STEPS} steps, {AGENT_TOKENS} tokens); tool results fused by RRF with the question's own list",
            T.agentic, True, True,
        ),
        PipelineSpec(
            "late",
            f"late interaction: the top {LATE_DEPTH} hits of the default first stage reranked by MaxSim over e5 token vectors (cached)",
            T.late, True,
        ),
        PipelineSpec(
            "raptor",
            f"RAPTOR: a tree of LLM summaries of k-means clusters (~{RAPTOR_CLUSTER} chunks each, built once and cached); the best "
            f"{RAPTOR_NODES} summary nodes expand to their chunks, fused by RRF with the default first stage (weighted double)",
            T.raptor, True, True,
        ),
    ]
}

# Steps that can follow any pipeline: "NAME+STEP", e.g. "expansion+rerank_llm".
POST_STEPS: dict[str, Callable[[PipelineContext, Retriever, str], Retriever]] = {
    "rerank_llm": lambda ctx, first, name: T.rerank_llm(ctx, first, name),
    "rerank_yesno": lambda ctx, first, name: T.rerank_yesno(ctx, first, name),
    "compress": lambda ctx, first, name: T.compress(ctx, first, name),
    "crag": lambda ctx, first, name: T.crag(ctx, first, name),
    "late": lambda ctx, first, name: T.late(ctx, first, name),
}

DEFAULT_PIPELINE = "hybrid_cc"


def resolve_pipeline(name: str) -> PipelineSpec:
    """The registered pipeline called ``name`` ("default" names the default pipeline; "A+B"
    is pipeline A followed by step B of ``POST_STEPS``)."""
    base, *steps = name.split("+")
    spec = PIPELINES.get(DEFAULT_PIPELINE if base == "default" else base)
    if spec is None:
        raise UnknownName("pipeline", base, [*PIPELINES, "default"])
    ingest = list(spec.ingest_steps)
    post = []
    for step in steps:
        if step in INGEST_STEPS:  # e.g. "llm_chunk+preprocess", "fusion+preprocess"
            ingest.append(step)
        elif step in POST_STEPS:
            post.append(step)
        else:
            raise UnknownName("pipeline step", step, [*POST_STEPS, *INGEST_STEPS])
    ingest_steps = canonical_steps(ingest)
    if not steps:
        return spec
    if not post:
        return PipelineSpec(name, f"{spec.description}, index built with {', '.join(ingest_steps)}", spec.build, spec.needs_dense, True, ingest_steps)
    steps = post

    def build(ctx: PipelineContext) -> Retriever:
        r = spec.build(ctx)
        for step in steps:
            r = POST_STEPS[step](ctx, r, name)
        return r

    return PipelineSpec(name, f"{spec.description}, then {', '.join(steps)}", build, spec.needs_dense, True, ingest_steps)


def build_pipeline(name: str, ctx: PipelineContext) -> tuple[Retriever, str | None]:
    """Build pipeline ``name``. When it fuses dense vectors that are not ready yet, fall back to
    ``bm25`` and return a note saying so (the caller shows it); otherwise the note is None.
    ``dense`` alone never falls back: it raises."""
    spec = resolve_pipeline(name)
    if spec.ingest_steps and tuple(ctx.view.ingest_steps) != spec.ingest_steps:
        built = ", ".join(ctx.view.ingest_steps) or "no LLM step"
        steps = " ".join(f"--step {s}" for s in spec.ingest_steps)
        raise YakgwanError(f"pipeline {name} searches an index built with {steps}; this one was built with {built} (re-ingest with {steps})")
    if spec.needs_dense and not ctx.view.dense_ready and spec.name != "dense":
        return PIPELINES["bm25"].build(ctx), f"{name}: dense vectors not ready yet, answered by bm25 alone"
    return spec.build(ctx), llm_fallback_note(spec, ctx)


def llm_fallback_note(spec: PipelineSpec, ctx: PipelineContext) -> str | None:
    """Says so when an LLM pipeline runs without an LLM (its steps use their fallbacks)."""
    if spec.needs_llm and ctx.llm is None:
        return f"no LLM configured (YAKGWAN_LLM): {spec.name} ran its deterministic fallbacks"
    return None
