"""``ask``: an answer from the documents with citations, or an honest refusal."""

from __future__ import annotations

from yakgwan.answer.anchors import AnchorFinder, normalise
from yakgwan.answer.ask import Asker
from yakgwan.answer.ko_rules.ruleset import RULES, RuleSet
from yakgwan.answer.records import AskResult
from yakgwan.config import Settings
from yakgwan.services.context import open_context

# what a long-running client keeps across questions (the analyser, the normalised corpus text)
__all__ = ["RULES", "AnchorFinder", "AskResult", "Asker", "RuleSet", "ask_index", "normalise"]


def ask_index(settings: Settings, question: str, pipeline: str, mode: str, k: int, rules: RuleSet | None = None) -> AskResult:
    """One question over the index at ``settings.index_dir`` (its context opened for it).
    ``rules``: which answer rules are on (default: all)."""
    return Asker(open_context(settings), pipeline=pipeline, mode=mode, k=k, rules=rules or RuleSet.all()).ask(question)
