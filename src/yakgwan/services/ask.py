"""``ask``: an answer from the documents with citations, or an honest refusal."""

from __future__ import annotations

from yakgwan.answer.anchors import AnchorFinder, normalise
from yakgwan.answer.ask import Asker
from yakgwan.answer.records import AskResult
from yakgwan.config import Settings
from yakgwan.services.context import open_context

# what a long-running client keeps across questions (the analyser, the normalised corpus text)
__all__ = ["AnchorFinder", "AskResult", "Asker", "ask_index", "normalise"]


def ask_index(settings: Settings, question: str, pipeline: str, mode: str, k: int) -> AskResult:
    """One question over the index at ``settings.index_dir`` (its context opened for it)."""
    return Asker(open_context(settings), pipeline=pipeline, mode=mode, k=k).ask(question)
