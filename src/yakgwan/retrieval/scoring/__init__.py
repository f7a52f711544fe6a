"""Scoring maths as pure functions and arrays: BM25 (``bm25``), rank fusion (``fusion``)."""
