"""What a pipeline is built from: the index view and factories of the models it may need."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from yakgwan.core.errors import YakgwanError
from yakgwan.core.protocols import Embedder, Retriever
from yakgwan.llm import LLM
from yakgwan.progress import ProgressSink
from yakgwan.query.thesaurus import Thesaurus
from yakgwan.retrieval.clause_map import ClauseMap, build_clause_map, is_policy
from yakgwan.retrieval.retrievers.bm25 import BM25Retriever
from yakgwan.retrieval.retrievers.clause import ClauseRetriever, ClauseWeights
from yakgwan.retrieval.retrievers.dense import DenseRetriever
from yakgwan.retrieval.retrievers.hybrid import CC_DENSE_WEIGHT, FusionRetriever
from yakgwan.store import IndexView
from yakgwan.text.tokenizer import Tokenizer
from yakgwan.websearch.provider import SearchProvider
from yakgwan.messages import msg


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
    # the index's 약관 structure and the thesaurus, when a caller keeps them across contexts (the
    # server builds a context per request); built on first use otherwise
    make_clause_map: Callable[[], ClauseMap] | None = None
    make_thesaurus: Callable[[], Thesaurus] | None = None
    _tokenizer: Tokenizer | None = field(default=None, repr=False)
    _embedder: Embedder | None = field(default=None, repr=False)
    _llm: tuple[LLM | None] | None = field(default=None, repr=False)
    _search: tuple[SearchProvider | None] | None = field(default=None, repr=False)
    _clause_map: ClauseMap | None = field(default=None, repr=False)
    _thesaurus: Thesaurus | None = field(default=None, repr=False)
    _profile: str | None = field(default=None, repr=False)

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

    @property
    def profile(self) -> str:
        """``policy`` when the documents are 약관 (the structure chunker named the 약관 of most
        chunks), else ``general``: decided from the documents, never from a flag (once per context)."""
        if self._profile is None:
            self._profile = "policy" if is_policy(self.view.chunks) else "general"
        return self._profile

    @property
    def first_stage_name(self) -> str:
        """The registered pipeline the default first stage is on these documents."""
        return "clause" if self.profile == "policy" else "hybrid_cc"

    def first_stage(self) -> Retriever:
        """The default first stage that query-side techniques build on: the clause-aware stage
        on a policy, ``hybrid_cc`` on other documents."""
        return self.clause() if self.first_stage_name == "clause" else self.hybrid_cc()

    @property
    def clause_map(self) -> ClauseMap:
        """The index's 약관 structure, built on first use and kept."""
        if self._clause_map is None:
            self._clause_map = self.make_clause_map() if self.make_clause_map else build_clause_map(self.view.chunks, self.tokenizer, self.cache_dir)
        return self._clause_map

    @property
    def thesaurus(self) -> Thesaurus:
        """The bundled insurance thesaurus (everyday words to clause terms), loaded on first use."""
        if self._thesaurus is None:
            self._thesaurus = self.make_thesaurus() if self.make_thesaurus else Thesaurus.load()
        return self._thesaurus

    def clause(self, name: str = "clause", weights: ClauseWeights = ClauseWeights()) -> ClauseRetriever:
        """Thesaurus, ``hybrid_cc``, structure priors, clone grouping (the ``clause`` pipeline; with
        ``ROUTE_WEIGHTS``, the ``route`` pipeline)."""
        return ClauseRetriever(name, self.hybrid_cc(), self.clause_map, self.tokenizer, weights, expand=self.thesaurus.expanded)

    def profiled(self, first: Retriever, name: str) -> Retriever:
        """``first`` (a technique's own first stage, HyDE's) as the documents' profile wants it:
        inside the clause stage on a policy (searched once, on the question), as it is elsewhere."""
        if self.profile != "policy":
            return first
        return ClauseRetriever(name, first, self.clause_map, self.tokenizer, expand=self.thesaurus.expanded, search_expanded=False)

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

    def within(self, view: IndexView) -> "PipelineContext":
        """This context over ``view`` (a part of its own view): the same models and thesaurus,
        the structure of ``view``'s chunks (built on first use)."""
        return PipelineContext(
            view=view,
            make_tokenizer=lambda: self.tokenizer,
            make_embedder=lambda: self.embedder,
            make_llm=lambda: self.llm,
            make_search=lambda: self.search,
            cache_dir=self.cache_dir,
            quiet=self.quiet,
            sink=self.sink,
            make_thesaurus=lambda: self.thesaurus,
        )

    def bm25(self) -> Retriever:
        return BM25Retriever(self.view, self.tokenizer)

    def dense(self) -> Retriever:
        if not self.view.dense_ready:
            raise YakgwanError(msg("pipeline.dense_incomplete"))
        return DenseRetriever(self.view, self.embedder)

    def hybrid_rrf(self) -> Retriever:
        """Dense + BM25 by Reciprocal Rank Fusion, equal weights (the ``hybrid`` pipeline)."""
        return FusionRetriever("hybrid", [self.dense(), self.bm25()], [1.0, 1.0], method="rrf")

    def hybrid_cc(self) -> Retriever:
        """Dense + BM25 min-max normalised, ``CC_DENSE_WEIGHT`` on dense (``hybrid_cc``)."""
        w = CC_DENSE_WEIGHT
        return FusionRetriever("hybrid_cc", [self.dense(), self.bm25()], [w, 1.0 - w], method="minmax", depth=100)
