"""What a reranker is made from, as a protocol (so that ``rerank`` never imports ``pipelines``)."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from yakgwan.core.protocols import Embedder
from yakgwan.llm import LLM


class RerankerSources(Protocol):
    """What a reranker is made from; ``yakgwan.pipelines.PipelineContext`` is one. Models are
    created when a reranker asks for them."""

    @property
    def llm(self) -> LLM | None: ...

    @property
    def embedder(self) -> Embedder: ...

    @property
    def cache_dir(self) -> Path | None: ...
