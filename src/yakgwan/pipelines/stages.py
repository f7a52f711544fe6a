"""The stages pipelines are made of, as data: each with the parameters it runs with, taken from
the constants the code runs with (so ``yakgwan pipelines --json`` cannot drift from it)."""

from __future__ import annotations

from yakgwan.ingest.steps.registry import INGEST_STEPS
from yakgwan.query.hyde import HYDE_MAX_TOKENS
from yakgwan.rerank.registry import RERANKERS
from yakgwan.retrieval.retrievers import agentic, crag, multihop, raptor, self_rag
from yakgwan.retrieval.grouping import SHINGLE
from yakgwan.retrieval.retrievers.clause import CLAUSE_DEPTH, TITLE_POOL, ClauseWeights
from yakgwan.retrieval.retrievers.compress import COMPRESS_TOP_N
from yakgwan.retrieval.route import NAMED
from yakgwan.retrieval.retrievers.hybrid import CC_DENSE_WEIGHT, FUSION_DEPTH
from yakgwan.retrieval.retrievers.multi_query import MULTI_QUERY_DEPTH
from yakgwan.retrieval.scoring.bm25 import B, K1
from yakgwan.retrieval.scoring.fusion import RRF_K
from yakgwan.pipelines.spec import Stage

BM25 = Stage("first_stage", "bm25", {"variant": "lucene", "k1": K1, "b": B})
DENSE = Stage("first_stage", "dense", {"similarity": "cosine"})
# dense search with a written passage (HyDE) embedded as a passage, not as a query
DENSE_PASSAGE = Stage("first_stage", "dense", {"similarity": "cosine", "embed_as": "passage"})
RRF = Stage("fusion", "rrf", {"k": RRF_K, "dense_weight": 1.0, "bm25_weight": 1.0, "depth": FUSION_DEPTH})
MINMAX = Stage("fusion", "minmax", {"dense_weight": CC_DENSE_WEIGHT, "bm25_weight": 1.0 - CC_DENSE_WEIGHT, "depth": FUSION_DEPTH})
# the default first stage every technique builds on: the documents' profile decides (the auto pipeline)
FIRST = Stage("first_stage", "auto", {"policy": "clause", "general": "hybrid_cc"})
ROUTE = Stage("query", "route", {"named_share": NAMED})
THESAURUS = Stage("query", "thesaurus", {"expanded_share": ClauseWeights.expansion})


def clause_priors(w: ClauseWeights) -> Stage:
    return Stage("post", "clause_priors", {"title": w.title, "scope": w.scope, "none": w.none, "depth": CLAUSE_DEPTH, "title_pool": TITLE_POOL})

GROUP = Stage("post", "group", {"clone_jaccard": ClauseWeights.group, "shingle": SHINGLE})


def query_rrf(original_weight: float = 1.0) -> Stage:
    """RRF over the lists of a query's variants, the original query's list weighted as given."""
    return Stage("fusion", "rrf", {"k": RRF_K, "original_weight": original_weight, "depth": MULTI_QUERY_DEPTH})


INTERLEAVE = Stage("fusion", "interleave", {"depth": MULTI_QUERY_DEPTH})


def rewrite(n: int) -> Stage:
    return Stage("query", "rewrite", {"variants": n})


def multiquery(n: int) -> Stage:
    return Stage("query", "multiquery", {"variants": n})


def hyde(mode: str) -> Stage:
    return Stage("query", "hyde", {"mode": mode, "max_tokens": HYDE_MAX_TOKENS})


def reranker(name: str) -> Stage:
    """A registered reranker (``yakgwan.rerank.registry``) over the first stage's top hits."""
    spec = RERANKERS.get(name)
    return Stage("rerank", name, {**spec.params, "depth": spec.depth})


def ingest(name: str) -> Stage:
    """A registered ingest step (``yakgwan.ingest.steps.registry``) the index is built with."""
    return Stage("ingest", name, INGEST_STEPS.get(name).params)


COMPRESS = Stage("post", "compress", {"top_n": COMPRESS_TOP_N})
CRAG = Stage("control", "crag", {"top_n": crag.CRAG_TOP_N, "threshold": crag.CRAG_THRESHOLD, "min_kept": crag.CRAG_MIN_KEPT,
                                 "web_results": crag.CRAG_WEB_RESULTS})
MULTIHOP = Stage("control", "multihop", {"max_hops": multihop.MAX_HOPS, "hop_depth": multihop.HOP_DEPTH, "original_weight": multihop.DIRECT_WEIGHT, "k": RRF_K})
SELF_RAG = Stage("control", "self_rag", {"top_n": self_rag.SELF_RAG_TOP_N, "relevant_from": self_rag.RELEVANT_FROM})
AGENTIC = Stage("control", "agentic", {"max_steps": agentic.MAX_STEPS, "token_budget": agentic.TOKEN_BUDGET, "tool_results": agentic.TOOL_RESULTS,
                                       "original_weight": agentic.DIRECT_WEIGHT, "k": RRF_K})
RAPTOR = Stage("first_stage", "raptor_tree", {"cluster_size": raptor.CLUSTER_SIZE, "max_levels": raptor.MAX_LEVELS, "top_nodes": raptor.TOP_NODES,
                                              "nodes_searched": raptor.NODES_SEARCHED, "summary_tokens": raptor.SUMMARY_TOKENS})
RAPTOR_RRF = Stage("fusion", "rrf", {"k": RRF_K, "original_weight": raptor.DIRECT_WEIGHT})
