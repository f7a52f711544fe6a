"""The retrieval-only first stages (BM25, dense, hybrid RRF, hybrid min-max, clause, route, auto) pass the Retriever
contract over an index built with the hashing embedder."""

from __future__ import annotations

import pytest
from retriever_contract import RetrieverContract


@pytest.mark.unit
class TestBM25Retriever(RetrieverContract):
    PIPELINE = "bm25"
    EMPTY_QUERY_FINDS_NOTHING = True  # no query terms, no score above zero


@pytest.mark.unit
class TestDenseRetriever(RetrieverContract):
    PIPELINE = "dense"


@pytest.mark.unit
class TestHybridRRFRetriever(RetrieverContract):
    PIPELINE = "hybrid"


@pytest.mark.unit
class TestHybridMinMaxRetriever(RetrieverContract):
    PIPELINE = "hybrid_cc"


@pytest.mark.unit
class TestClauseRetriever(RetrieverContract):
    PIPELINE = "clause"


@pytest.mark.unit
class TestRouteRetriever(RetrieverContract):
    PIPELINE = "route"


@pytest.mark.unit
class TestAutoRetriever(RetrieverContract):
    PIPELINE = "auto"
