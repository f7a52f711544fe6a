"""The pipeline registry: every named retrieval pipeline, its description, its stages, and how
to build it; "A+B" composition; the JSON description of them all.

Error messages, ``yakgwan pipelines`` and ``yakgwan pipelines --json`` are generated from
``PIPELINES``, ``POST_STEPS`` and the ingest steps' registry; there is no other list.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from yakgwan.core.errors import UnknownName
from yakgwan.core.protocols import Retriever
from yakgwan.core.registry import Registry
from yakgwan.ingest.steps.registry import INGEST_STEPS, canonical_steps
import yakgwan.pipelines.recipes as R
import yakgwan.pipelines.stages as S
from yakgwan.pipelines.context import PipelineContext
from yakgwan.pipelines.spec import PipelineSpec, Stage
from yakgwan.rerank.late import LATE_DEPTH
from yakgwan.rerank.listwise_llm import RERANK_TOP_N
from yakgwan.rerank.registry import RERANKERS
from yakgwan.rerank.yesno import GATE_MARGIN, GATE_TOP_M
from yakgwan.retrieval.retrievers.agentic import MAX_STEPS as AGENT_STEPS, TOKEN_BUDGET as AGENT_TOKENS
from yakgwan.retrieval.retrievers.compress import COMPRESS_TOP_N
from yakgwan.retrieval.retrievers.crag import CRAG_THRESHOLD, CRAG_TOP_N
from yakgwan.retrieval.retrievers.clause import ROUTE_WEIGHTS, ClauseWeights
from yakgwan.retrieval.retrievers.hybrid import FUSION_DEPTH
from yakgwan.retrieval.retrievers.multihop import MAX_HOPS
from yakgwan.retrieval.retrievers.raptor import CLUSTER_SIZE as RAPTOR_CLUSTER, NODES_SEARCHED as RAPTOR_NODES
from yakgwan.retrieval.retrievers.self_rag import SELF_RAG_TOP_N
from yakgwan.retrieval.scoring.fusion import RRF_K

DEFAULT_PIPELINE = "auto"
PIPELINES: Registry[PipelineSpec] = Registry("pipeline")


def _add(spec: PipelineSpec) -> None:
    PIPELINES.register(spec.name, spec)


_add(PipelineSpec("bm25", "Korean BM25 over morphemes (negation prefixes kept on their noun)", lambda c: c.bm25(), False, first_stage=True,
                  stages=(S.BM25,)))
_add(PipelineSpec("dense", "multilingual-e5-small cosine similarity (bundled weights)", lambda c: c.dense(), True, first_stage=True, stages=(S.DENSE,)))
_add(PipelineSpec("hybrid", "dense + BM25 fused by Reciprocal Rank Fusion (k=60, equal weights)", lambda c: c.hybrid_rrf(), True, first_stage=True,
                  stages=(S.DENSE, S.BM25, S.RRF)))
_add(PipelineSpec("hybrid_cc", "dense + BM25 scores min-max normalised over each top-100 list, 0.3*dense + 0.7*BM25", lambda c: c.hybrid_cc(), True,
                  first_stage=True, stages=(S.DENSE, S.BM25, S.MINMAX)))
_add(PipelineSpec("clause", "on a policy: the question and its thesaurus expansion through hybrid_cc, a title-field prior, "
                  "copies of one clause grouped into one hit", lambda c: c.clause(), True, first_stage=True,
                  stages=(S.THESAURUS, S.DENSE, S.BM25, S.MINMAX, S.clause_priors(ClauseWeights()), S.GROUP)))
_add(PipelineSpec("route", "clause, with the question routed to the 약관 it names and those 약관 lifted (the route is in search --json)",
                  lambda c: c.clause("route", ROUTE_WEIGHTS), True, first_stage=True,
                  stages=(S.THESAURUS, S.ROUTE, S.DENSE, S.BM25, S.MINMAX, S.clause_priors(ROUTE_WEIGHTS), S.GROUP)))
_add(PipelineSpec("auto", "the documents decide: clause on 약관 (the structure chunker found them), hybrid_cc on other documents",
                  lambda c: c.first_stage(), True, first_stage=True, stages=(S.FIRST,)))
_add(PipelineSpec("rewrite", "LLM keyword rewrite of the query, fused with the original by RRF", R.rewrite, True, True,
                  stages=(S.rewrite(1), S.FIRST, S.query_rrf())))
_add(PipelineSpec("multiquery", "original + 3 LLM query variants, hit lists interleaved", R.multiquery, True, True,
                  stages=(S.multiquery(3), S.FIRST, S.INTERLEAVE)))
_add(PipelineSpec("fusion", "original + 3 LLM query variants, fused by RRF", R.fusion, True, True, stages=(S.multiquery(3), S.FIRST, S.query_rrf())))
_add(PipelineSpec("expansion", "original + rewrite + 2 expansions -> RRF -> LLM listwise rerank", R.expansion, True, True,
                  stages=(S.rewrite(1), S.multiquery(2), S.FIRST, S.query_rrf(), S.reranker("rerank_llm"))))
_add(PipelineSpec("hyde", "dense search with an LLM-written answer passage (HyDE) + BM25 of the query (on a policy, inside the clause stage)", R.hyde, True, True,
                  stages=(S.hyde("lay"), S.DENSE_PASSAGE, S.BM25, S.MINMAX)))
_add(PipelineSpec("reverse_hyde", "dense search with an LLM-written clause-style passage + BM25 of the query (on a policy, inside the clause stage)", R.reverse_hyde, True, True,
                  stages=(S.hyde("clause"), S.DENSE_PASSAGE, S.BM25, S.MINMAX)))
_add(PipelineSpec("hybrid_hyde", "default first stage on the query and on a HyDE passage, fused by RRF", R.hybrid_hyde, True, True,
                  stages=(S.FIRST, S.hyde("lay"), Stage("fusion", "rrf", {"k": RRF_K, "query_weight": 1.0, "hyde_weight": 1.0, "depth": FUSION_DEPTH}))))
_add(PipelineSpec("rerank_llm", f"default first stage, top {RERANK_TOP_N} reordered by an LLM (validated permutation)",
                  lambda c: R.reranked(c, "rerank_llm"), True, True, stages=(S.FIRST, S.reranker("rerank_llm"))))
_add(PipelineSpec(
    "rerank_yesno",
    f"default first stage; only when its top two scores are within {GATE_MARGIN:.0%}, the top {GATE_TOP_M} reordered by the LLM's P(yes, relevant)",
    lambda c: R.reranked(c, "rerank_yesno"), True, True, stages=(S.FIRST, S.reranker("rerank_yesno")),
))
_add(PipelineSpec("llm_chunk", "default retrieval over an index chunked by the LLM (headline + summary indexed, original text cited)",
                  lambda c: c.first_stage(), True, True, ("llm_chunk",), stages=(S.ingest("llm_chunk"), S.FIRST)))
_add(PipelineSpec("preprocess", "default retrieval over an index whose chunks the LLM rewrote for search (original text cited)",
                  lambda c: c.first_stage(), True, True, ("preprocess",), stages=(S.ingest("preprocess"), S.FIRST)))
_add(PipelineSpec("compress", f"default first stage, each of the top {COMPRESS_TOP_N} hits cut to the sentences that bear on the question",
                  R.compress, True, True, stages=(S.FIRST, S.COMPRESS)))
_add(PipelineSpec(
    "crag",
    f"corrective RAG: the LLM grades the top {CRAG_TOP_N} hits 0-5, keeps those >= {CRAG_THRESHOLD}, rewrites and retries once, "
    "then falls back to the search provider (YAKGWAN_SEARCH) with each result verified",
    R.crag, True, True, stages=(S.FIRST, S.CRAG),
))
_add(PipelineSpec(
    "multihop",
    f"the LLM splits the question into sub-questions and asks for follow-ups until enough (at most {MAX_HOPS} hops); "
    "hop lists fused by RRF with the question's own list weighted double",
    R.multihop, True, True, stages=(S.FIRST, S.MULTIHOP),
))
_add(PipelineSpec(
    "self_rag",
    f"Self-RAG: the LLM decides whether to search, keeps the top {SELF_RAG_TOP_N} hits it judges relevant; "
    "ask also checks the answer's support and usefulness and rewrites it once",
    R.self_rag, True, True, stages=(S.FIRST, S.SELF_RAG),
))
_add(PipelineSpec(
    "agentic",
    f"a ReAct loop: the LLM calls kb_search, article_lookup (제N조) or web_search (YAKGWAN_SEARCH) until it finishes "
    f"(at most {AGENT_STEPS} steps, {AGENT_TOKENS} tokens); tool results fused by RRF with the question's own list",
    R.agentic, True, True, stages=(S.FIRST, S.AGENTIC),
))
_add(PipelineSpec(
    "late",
    f"late interaction: the top {LATE_DEPTH} hits of the default first stage reranked by MaxSim over e5 token vectors (cached)",
    lambda c: R.reranked(c, "late"), True, stages=(S.FIRST, S.reranker("late")),
))
_add(PipelineSpec(
    "raptor",
    f"RAPTOR: a tree of LLM summaries of k-means clusters (~{RAPTOR_CLUSTER} chunks each, built once and cached); the best "
    f"{RAPTOR_NODES} summary nodes expand to their chunks, fused by RRF with the default first stage (weighted double)",
    R.raptor, True, True, stages=(S.FIRST, S.RAPTOR, S.RAPTOR_RRF),
))


@dataclass(frozen=True)
class PostStep:
    """A step that can follow any pipeline ("NAME+STEP"): its stage, and how it wraps the
    pipeline's retriever (``first``) under the composed pipeline's name."""

    stage: Stage
    wrap: Callable[[PipelineContext, Retriever, str], Retriever]


def _post_steps() -> Registry[PostStep]:
    steps: Registry[PostStep] = Registry("pipeline step")
    for reranker in RERANKERS:  # every registered reranker, e.g. "expansion+rerank_llm"
        steps.register(reranker, PostStep(S.reranker(reranker), lambda ctx, first, name, r=reranker: R.reranked(ctx, r, first, name)))
    steps.register("compress", PostStep(S.COMPRESS, R.compress))
    steps.register("crag", PostStep(S.CRAG, R.crag))
    return steps


POST_STEPS = _post_steps()


def resolve_pipeline(name: str) -> PipelineSpec:
    """The registered pipeline called ``name`` ("default" names the default pipeline; "A+B"
    is pipeline A followed by step B of ``POST_STEPS``, or built over an index made with ingest
    step B)."""
    base, *steps = name.split("+")
    base = DEFAULT_PIPELINE if base == "default" else base
    if base not in PIPELINES:
        raise UnknownName("pipeline", base, [*PIPELINES, "default"])
    spec = PIPELINES.get(base)
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
    added = tuple(S.ingest(s) for s in ingest_steps if s not in spec.ingest_steps)
    if not post:
        return PipelineSpec(name, f"{spec.description}, index built with {', '.join(ingest_steps)}", spec.build, spec.needs_dense, True, ingest_steps,
                            stages=added + spec.stages)

    def build(ctx: PipelineContext) -> Retriever:
        r = spec.build(ctx)
        for step in post:
            r = POST_STEPS.get(step).wrap(ctx, r, name)
        return r

    return PipelineSpec(name, f"{spec.description}, then {', '.join(post)}", build, spec.needs_dense, True, ingest_steps,
                        stages=added + spec.stages + tuple(POST_STEPS.get(s).stage for s in post))


COMPOSITION = (
    "NAME+STEP[+STEP...]: pipeline NAME followed by each post step in turn (a reranker, compress, crag), "
    "or built over an index made with an ingest step (llm_chunk, preprocess); 'default' names the default pipeline"
)


def pipeline_specs_json() -> list[dict]:
    """Every registered pipeline's spec (``"type": "pipeline"``, the default one marked), then
    every step a pipeline can be composed with (``"type": "post_step"`` or ``"ingest_step"``,
    with its ``usage``): what ``yakgwan pipelines --json`` prints."""
    out: list[dict] = [{"type": "pipeline", **spec.to_dict(), "default": name == DEFAULT_PIPELINE} for name, spec in PIPELINES.items()]
    out += [{"type": "post_step", "name": n, "usage": f"NAME+{n}", "composition": COMPOSITION, "stages": [step.stage.to_dict()]}
            for n, step in POST_STEPS.items()]
    out += [{"type": "ingest_step", "name": n, "usage": f"NAME+{n}", "composition": COMPOSITION, "description": st.description,
             "stages": [S.ingest(n).to_dict()]} for n, st in INGEST_STEPS.items()]
    return out
