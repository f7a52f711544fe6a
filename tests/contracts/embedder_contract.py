"""The contract every ``Embedder`` backend passes (``yakgwan.core.protocols.Embedder``): a
subclass names its backend in the embedder registry (``REGISTERED``), gives ``make_embedder()``
(usually ``registered_embedder``) and inherits every test."""

from __future__ import annotations

import numpy as np
import pytest

from yakgwan.config import EmbedderConfig
from yakgwan.core.protocols import Embedder

TEXTS = [
    "비급여 치료비는 보상하지 않습니다.",
    "출발 30일 전까지 취소하면 전액 환불합니다.",
    "제3조(보험금의 지급사유) 회사는 피보험자가 골절 진단을 받은 경우 보험금을 지급합니다.",
    "The policy covers theft of a phone while travelling abroad.",
]


def registered_embedder(name: str, base_url: str | None = None, model: str | None = None, api_key: str | None = None) -> Embedder:
    """The embedder ``yakgwan.embedders.EMBEDDERS`` makes for a configuration naming ``name``."""
    from yakgwan.embedders import EMBEDDERS

    return EMBEDDERS.get(name)(EmbedderConfig(name, base_url=base_url, model=model, api_key=api_key), None)


class EmbedderContract:
    """Inherit and implement ``make_embedder``; ``BATCH_ATOL`` bounds how much a vector may move
    with the batch it is computed in (0 for an exact backend)."""

    REGISTERED = ""
    BATCH_ATOL = 1e-5

    def make_embedder(self) -> Embedder:
        raise NotImplementedError

    @pytest.fixture()
    def embedder(self) -> Embedder:
        return self.make_embedder()

    def test_names_its_model(self, embedder: Embedder) -> None:
        assert isinstance(embedder, Embedder)
        assert isinstance(embedder.model_id, str) and embedder.model_id

    def test_knows_its_dimension_before_embedding(self, embedder: Embedder) -> None:
        assert isinstance(embedder.dim, int) and embedder.dim > 0

    @pytest.mark.parametrize("kind", ["query", "passage"])
    def test_rows_are_float32_unit_vectors_of_dim(self, embedder: Embedder, kind: str) -> None:
        out = embedder.embed(TEXTS, kind)  # type: ignore[arg-type]
        assert isinstance(out, np.ndarray) and out.dtype == np.float32
        assert out.shape == (len(TEXTS), embedder.dim)
        assert np.all(np.isfinite(out))
        np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1.0, atol=1e-5)

    def test_different_texts_get_different_vectors(self, embedder: Embedder) -> None:
        out = embedder.embed(TEXTS, "passage")
        sims = out @ out.T
        assert np.all(sims[~np.eye(len(TEXTS), dtype=bool)] < 0.999)

    def test_deterministic_across_calls(self, embedder: Embedder) -> None:
        np.testing.assert_array_equal(embedder.embed(TEXTS, "query"), embedder.embed(TEXTS, "query"))

    def test_a_vector_does_not_depend_on_its_batch(self, embedder: Embedder) -> None:
        batch = embedder.embed(TEXTS, "passage")
        alone = np.concatenate([embedder.embed([t], "passage") for t in reversed(TEXTS)])[::-1]
        np.testing.assert_allclose(alone, batch, atol=self.BATCH_ATOL, rtol=0)

    def test_an_empty_list_gives_zero_rows(self, embedder: Embedder) -> None:
        out = embedder.embed([], "query")
        assert isinstance(out, np.ndarray) and out.dtype == np.float32
        assert out.shape == (0, embedder.dim)
