"""``report``: one side-by-side table from eval results saved by separate runs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from yakgwan.eval import combine
from yakgwan.eval.report import build_html, render_report
from yakgwan.eval.result import AnswersResult, EvalResult
from yakgwan.messages import Message

__all__ = ["AnswersResult", "Combined", "EvalResult", "build_html", "combine_results", "render_report"]


@dataclass(frozen=True)
class Combined:
    """Results of one test set and k, read from ``eval --json`` files; ``warnings`` say where
    they may not compare (other questions, corpus or k); ``markdown`` is the table with the
    recall floor, per-category deltas and the answer rows."""

    results: tuple[EvalResult, ...]
    warnings: tuple[Message, ...]
    markdown: str

    def write_markdown(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(self.markdown, "utf-8")

    def write_summary(self, path: Path) -> None:
        """The results without their per-question rows (no question or document text)."""
        combine.write_summary(list(self.results), path)

    def write_html(self, path: Path, title: str | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        dataset = self.results[0].dataset
        render_report(list(self.results), path, title=title or f"yakgwan eval — {'?' if dataset is None else dataset}")


def combine_results(paths: Sequence[Path]) -> Combined:
    loaded = combine.load_results(paths)
    results = [item.result for item in loaded]
    parts = (combine.markdown_table(results), combine.markdown_floor(results), combine.markdown_deltas(results, "recall"),
             combine.markdown_deltas(results, "mrr"), combine.markdown_answers(results))
    return Combined(tuple(results), tuple(combine.check_same_set(loaded)), "\n".join(t for t in parts if t))
