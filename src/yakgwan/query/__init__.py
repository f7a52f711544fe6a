"""Query-side transforms: a query in, the queries (or passage) to search with out.

``expander`` (rewrite, multi-query), ``expansion`` (original + rewrite + expansions), ``hyde``
(hypothetical passages). Each works without an LLM through a labelled fallback."""
