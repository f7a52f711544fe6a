"""Prompt texts (Korean, few-shot) and the Pydantic schemas their answers must match, one
module per side: ``query`` (rewrite, multi-query, HyDE), ``rerank`` (listwise ranking, yes/no
relevance), ``ingest`` (LLM chunking, pre-processing); ``common`` holds the shared system line."""
