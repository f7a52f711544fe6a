"""The ingest steps that run after chunking (``yakgwan ingest --step``): LLM chunking
(``llm_chunk``), pre-processing for retrieval (``preprocess``), their registry (``registry``) and
the wording of what a step left as it was (``fallbacks``)."""
