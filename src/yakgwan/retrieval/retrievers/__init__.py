"""One retriever per file: first stages (``bm25``, ``dense``, ``hybrid``), query-side
(``multi_query``, ``transformed_query``), a first stage with a reranker (``reranked``),
post-retrieval (``compress``) and control flow (``crag``, ``self_rag``, ``multihop``,
``agentic``, ``raptor``). Pipelines (``yakgwan.pipelines``) assemble them."""
