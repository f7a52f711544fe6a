"""Prompt texts (Korean, few-shot) and the Pydantic schemas their answers must match, one module
per technique: ``query`` (rewrite, multi-query, HyDE), ``rerank`` (listwise ranking, yes/no
relevance), ``ingest`` (LLM chunking, pre-processing), ``compress``, ``crag``, ``self_rag``,
``multihop``, ``agentic``, ``raptor``; ``common`` holds the shared system line."""
