"""``ask``: an answer from the documents with citations, or an honest refusal."""

from __future__ import annotations

from yakgwan.answer.extract_units import CachingEmbedder
from yakgwan.answer.unit_warm import warm_units
from yakgwan.core.protocols import ProgressSink
from yakgwan.core.records import Chunk

from typing import Sequence

from yakgwan.answer.anchors import AnchorFinder, normalise
from yakgwan.answer.ask import Asker
from yakgwan.answer.ko_rules.ruleset import RULES, RuleSet
from yakgwan.answer.records import AskResult
from yakgwan.config import Settings
from yakgwan.services.context import open_context
from yakgwan.store import parse_filters

# what a long-running client keeps across questions (the analyser, the normalised corpus text)
__all__ = ["RULES", "AnchorFinder", "AskResult", "Asker", "RuleSet", "ask_index", "normalise"]


def ask_index(settings: Settings, question: str, pipeline: str, mode: str, k: int, rules: RuleSet | None = None,
              filters: Sequence[str] = ()) -> AskResult:
    """One question over the index at ``settings.index_dir`` (its context opened for it).
    ``rules``: which answer rules are on (default: all); ``filters``: answer from the part of
    the index they keep (``store.filters``)."""
    ctx = open_context(settings, filters=parse_filters(filters))
    return Asker(ctx, pipeline=pipeline, mode=mode, k=k, rules=rules or RuleSet.all()).ask(question)


def warm_answer_units(chunks: Sequence[Chunk], vectors: CachingEmbedder, sink: ProgressSink | None = None) -> int:
    """The answer units of ``chunks`` embedded ahead of the first question (:mod:`yakgwan.answer.unit_warm`)."""
    return warm_units(chunks, vectors, sink=sink)
