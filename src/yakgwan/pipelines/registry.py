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
from yakgwan.messages import msg
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


_add(PipelineSpec("bm25", msg("pipeline.desc.bm25"), lambda c: c.bm25(), False, first_stage=True,
                  stages=(S.BM25,)))
_add(PipelineSpec("dense", msg("pipeline.desc.dense"), lambda c: c.dense(), True, first_stage=True, stages=(S.DENSE,)))
_add(PipelineSpec("hybrid", msg("pipeline.desc.hybrid", k=RRF_K), lambda c: c.hybrid_rrf(), True, first_stage=True,
                  stages=(S.DENSE, S.BM25, S.RRF)))
_add(PipelineSpec("hybrid_cc", msg("pipeline.desc.hybrid_cc"), lambda c: c.hybrid_cc(), True,
                  first_stage=True, stages=(S.DENSE, S.BM25, S.MINMAX)))
_add(PipelineSpec("clause", msg("pipeline.desc.clause"), lambda c: c.clause(), True, first_stage=True,
                  stages=(S.THESAURUS, S.DENSE, S.BM25, S.MINMAX, S.clause_priors(ClauseWeights()), S.GROUP)))
_add(PipelineSpec("route", msg("pipeline.desc.route"),
                  lambda c: c.clause("route", ROUTE_WEIGHTS), True, first_stage=True,
                  stages=(S.THESAURUS, S.ROUTE, S.DENSE, S.BM25, S.MINMAX, S.clause_priors(ROUTE_WEIGHTS), S.GROUP)))
_add(PipelineSpec("auto", msg("pipeline.desc.auto"),
                  lambda c: c.first_stage(), True, first_stage=True, stages=(S.FIRST,)))
_add(PipelineSpec("rewrite", msg("pipeline.desc.rewrite"), R.rewrite, True, True,
                  stages=(S.rewrite(1), S.FIRST, S.query_rrf())))
_add(PipelineSpec("multiquery", msg("pipeline.desc.multiquery", n=3), R.multiquery, True, True,
                  stages=(S.multiquery(3), S.FIRST, S.INTERLEAVE)))
_add(PipelineSpec("fusion", msg("pipeline.desc.fusion", n=3), R.fusion, True, True, stages=(S.multiquery(3), S.FIRST, S.query_rrf())))
_add(PipelineSpec("expansion", msg("pipeline.desc.expansion", n=2), R.expansion, True, True,
                  stages=(S.rewrite(1), S.multiquery(2), S.FIRST, S.query_rrf(), S.reranker("rerank_llm"))))
_add(PipelineSpec("hyde", msg("pipeline.desc.hyde"), R.hyde, True, True,
                  stages=(S.hyde("lay"), S.DENSE_PASSAGE, S.BM25, S.MINMAX)))
_add(PipelineSpec("reverse_hyde", msg("pipeline.desc.reverse_hyde"), R.reverse_hyde, True, True,
                  stages=(S.hyde("clause"), S.DENSE_PASSAGE, S.BM25, S.MINMAX)))
_add(PipelineSpec("hybrid_hyde", msg("pipeline.desc.hybrid_hyde"), R.hybrid_hyde, True, True,
                  stages=(S.FIRST, S.hyde("lay"), Stage("fusion", "rrf", {"k": RRF_K, "query_weight": 1.0, "hyde_weight": 1.0, "depth": FUSION_DEPTH}))))
_add(PipelineSpec("rerank_llm", msg("pipeline.desc.rerank_llm", n=RERANK_TOP_N),
                  lambda c: R.reranked(c, "rerank_llm"), True, True, stages=(S.FIRST, S.reranker("rerank_llm"))))
_add(PipelineSpec(
    "rerank_yesno",
    msg("pipeline.desc.rerank_yesno", margin=f"{GATE_MARGIN:.0%}", n=GATE_TOP_M),
    lambda c: R.reranked(c, "rerank_yesno"), True, True, stages=(S.FIRST, S.reranker("rerank_yesno")),
))
_add(PipelineSpec("llm_chunk", msg("pipeline.desc.llm_chunk"),
                  lambda c: c.first_stage(), True, True, ("llm_chunk",), stages=(S.ingest("llm_chunk"), S.FIRST)))
_add(PipelineSpec("preprocess", msg("pipeline.desc.preprocess"),
                  lambda c: c.first_stage(), True, True, ("preprocess",), stages=(S.ingest("preprocess"), S.FIRST)))
_add(PipelineSpec("compress", msg("pipeline.desc.compress", n=COMPRESS_TOP_N),
                  R.compress, True, True, stages=(S.FIRST, S.COMPRESS)))
_add(PipelineSpec(
    "crag",
    msg("pipeline.desc.crag", n=CRAG_TOP_N, threshold=CRAG_THRESHOLD),
    R.crag, True, True, stages=(S.FIRST, S.CRAG),
))
_add(PipelineSpec(
    "multihop",
    msg("pipeline.desc.multihop", hops=MAX_HOPS),
    R.multihop, True, True, stages=(S.FIRST, S.MULTIHOP),
))
_add(PipelineSpec(
    "self_rag",
    msg("pipeline.desc.self_rag", n=SELF_RAG_TOP_N),
    R.self_rag, True, True, stages=(S.FIRST, S.SELF_RAG),
))
_add(PipelineSpec(
    "agentic",
    msg("pipeline.desc.agentic", steps=AGENT_STEPS, tokens=AGENT_TOKENS),
    R.agentic, True, True, stages=(S.FIRST, S.AGENTIC),
))
_add(PipelineSpec(
    "late",
    msg("pipeline.desc.late", n=LATE_DEPTH),
    lambda c: R.reranked(c, "late"), True, stages=(S.FIRST, S.reranker("late")),
))
_add(PipelineSpec(
    "raptor",
    msg("pipeline.desc.raptor", cluster=RAPTOR_CLUSTER, nodes=RAPTOR_NODES),
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
        return PipelineSpec(name, msg("pipeline.with_ingest", base=spec.description, steps=", ".join(ingest_steps)), spec.build, spec.needs_dense, True, ingest_steps,
                            stages=added + spec.stages)

    def build(ctx: PipelineContext) -> Retriever:
        r = spec.build(ctx)
        for step in post:
            r = POST_STEPS.get(step).wrap(ctx, r, name)
        return r

    return PipelineSpec(name, msg("pipeline.then", base=spec.description, steps=", ".join(post)), build, spec.needs_dense, True, ingest_steps,
                        stages=added + spec.stages + tuple(POST_STEPS.get(s).stage for s in post))


def pipeline_specs_json(lang: str = "en") -> list[dict]:
    """Every registered pipeline's spec (``"type": "pipeline"``, the default one marked, its
    description in ``lang``), then every step a pipeline can be composed with (``"type":
    "post_step"`` or ``"ingest_step"``, with its ``usage``): what ``yakgwan pipelines --json`` prints."""
    out: list[dict] = [{"type": "pipeline", **spec.to_dict(lang), "default": name == DEFAULT_PIPELINE} for name, spec in PIPELINES.items()]
    composition = msg("pipeline.composition").text(lang)
    out += [{"type": "post_step", "name": n, "usage": f"NAME+{n}", "composition": composition, "stages": [step.stage.to_dict()]}
            for n, step in POST_STEPS.items()]
    out += [{"type": "ingest_step", "name": n, "usage": f"NAME+{n}", "composition": composition, "description": st.description.text(lang),
             "stages": [S.ingest(n).to_dict()]} for n, st in INGEST_STEPS.items()]
    return out
