"""The retrieval-only first stages (BM25, dense, hybrid RRF, hybrid min-max) pass the Retriever
contract over an index built with the hashing embedder.

The fused retrievers answer ``retrieve(q, -1)`` with every hit but the last (``ranked(...)[:k]``
with a negative k): listed in ``KNOWN_DEFECTS`` until it raises or returns [].
"""

from __future__ import annotations

import pytest
from retriever_contract import NEGATIVE_K, RetrieverContract


@pytest.mark.unit
class TestBM25Retriever(RetrieverContract):
    PIPELINE = "bm25"
    NONPOSITIVE_K = ValueError  # BM25Index.search: "k must be greater than 0"
    EMPTY_QUERY_FINDS_NOTHING = True  # no query terms, no score above zero


@pytest.mark.unit
class TestDenseRetriever(RetrieverContract):
    PIPELINE = "dense"


@pytest.mark.unit
class TestHybridRRFRetriever(RetrieverContract):
    PIPELINE = "hybrid"
    KNOWN_DEFECTS = {"test_k_below_one[-1]": NEGATIVE_K}


@pytest.mark.unit
class TestHybridMinMaxRetriever(RetrieverContract):
    PIPELINE = "hybrid_cc"
    KNOWN_DEFECTS = {"test_k_below_one[-1]": NEGATIVE_K}
