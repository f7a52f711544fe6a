"""Rerankers: each reorders a first stage's top hits (``Reranker.rerank``), one file each —
``listwise_llm`` (an LLM's validated permutation), ``yesno`` (gated P(yes, relevant) from
log-probabilities), ``late`` (ColBERT-style MaxSim) — and ``registry``, the one list of them."""
