"""Retrieval: ``scoring/`` (pure BM25 and fusion maths), ``retrievers/`` (one retriever per file,
each implementing ``Retriever.retrieve``) and ``hit_lists`` (merging lists of hits)."""
