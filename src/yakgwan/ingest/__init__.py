"""Ingest: load files, chunk them along their structure, run the optional LLM steps, index the
words and the vectors, and commit through the store (``run``); ``plan`` decides what changed."""
