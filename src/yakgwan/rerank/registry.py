"""The rerankers by name: the one list of what can reorder a first stage's hits.

A pipeline ``NAME+rerank_llm`` and the ``rerank_llm`` pipeline both come from here
(``yakgwan.pipelines``). Adding a reranker is one file implementing ``Reranker.rerank`` and one
``RERANKERS.register`` line below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Mapping

from yakgwan.core.protocols import Reranker
from yakgwan.core.registry import Registry
from yakgwan.rerank.late import LATE_DEPTH, late_reranker
from yakgwan.rerank.listwise_llm import RERANK_TOP_N, LLMListwiseReranker
from yakgwan.rerank.sources import RerankerSources
from yakgwan.rerank.yesno import GATE_MARGIN, GATE_TOP_M, GatedPointwiseReranker
from yakgwan.retrieval.retrievers.reranked import RERANK_DEPTH


@dataclass(frozen=True)
class RerankerSpec:
    """A reranker by name: how to make it, how many first-stage hits it reorders (``depth``)
    and the parameters it runs with (for ``yakgwan pipelines --json``)."""

    name: str
    make: Callable[[RerankerSources], Reranker]
    depth: int = RERANK_DEPTH
    params: Mapping[str, float | int | str] = field(default_factory=dict)
    needs_llm: bool = True


RERANKERS: Registry[RerankerSpec] = Registry("reranker")
RERANKERS.register("rerank_llm", RerankerSpec("rerank_llm", lambda src: LLMListwiseReranker(src.llm), params={"top_n": RERANK_TOP_N}))
RERANKERS.register("rerank_yesno", RerankerSpec("rerank_yesno", lambda src: GatedPointwiseReranker(src.llm), params={"top_m": GATE_TOP_M, "margin": GATE_MARGIN}))
RERANKERS.register("late", RerankerSpec("late", late_reranker, depth=LATE_DEPTH, params={"similarity": "maxsim"}, needs_llm=False))
