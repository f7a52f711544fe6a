"""Fixtures of the answer tests: the sample 약관 indexed with the hashing embedder."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from yakgwan.answer.answerability import FEATURES, AnswerabilityModel
from yakgwan.config import EmbedderConfig, Settings
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.services.context import open_context
from yakgwan.services.ingest import ingest

SAMPLE = Path(__file__).resolve().parents[3] / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"


@pytest.fixture()
def answering_sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A context over the sample 약관 (no LLM) whose answerability decision answers, fitted on
    this index's embedder so that the unit answerers run (the bundled model is fitted on another)."""
    s = Settings(index_dir=tmp_path / "i", cache_dir=tmp_path / "c", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    ingest(s, [SAMPLE], embedder=HashingEmbedder())
    ctx = open_context(s, embedder=HashingEmbedder())
    ctx.make_llm = lambda: None
    fitted = AnswerabilityModel((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), 5.0, 0.5, 0.1, "test", ctx.view.embedder)
    monkeypatch.setattr(AnswerabilityModel, "load", classmethod(lambda cls, path=None: fitted))
    return ctx
