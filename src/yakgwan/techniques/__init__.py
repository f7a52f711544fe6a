"""LLM-backed retrieval techniques: query transforms, multi-query fusion and reranking.

Each works without an LLM too, through a deterministic fallback that is labelled in results
(``Hit.produced_by`` and the pipeline note), so every pipeline runs on the embedded default.
"""
