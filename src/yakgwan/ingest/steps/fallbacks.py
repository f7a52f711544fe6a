"""How ingest steps say what they left as it was, in plain words: pure text helpers shared by
``yakgwan ingest``, ``yakgwan eval`` and the reports (no model or index imports)."""

from __future__ import annotations

from typing import Mapping, Sequence

from yakgwan.messages import Message, joined, msg

# what each ingest step works on: llm_chunk keeps a document's structure chunks, preprocess a chunk
STEP_UNITS = {"llm_chunk": "document", "preprocess": "chunk"}
REASONS_SHOWN = 3  # per step, on the summary line


def left_message(step: str, n: int) -> Message:
    """``"1 document left as it was"``, ``"3 chunks left as they were"`` (``"item"`` for a step
    this module does not know), as a catalogue message."""
    unit = STEP_UNITS.get(step, "item")
    return msg(f"ingest_step.left.{unit}" if n == 1 else f"ingest_step.left.{unit}s", n=n)


def left_as_was(step: str, n: int) -> str:
    """:func:`left_message` in English, as eval reports are written."""
    return left_message(step, n).text("en")


def left_as_was_head(step: str) -> str:
    """A report column's head: ``"llm_chunk: documents left as they were"`` (eval reports are in English)."""
    return f"{step}: {STEP_UNITS.get(step, 'item')}s left as they were"


def fallback_lines(counts: Mapping[str, int], reasons: Mapping[str, Sequence[Message | str]], shown: int = REASONS_SHOWN) -> list[Message]:
    """One line per step that left something as it was: how many, then its first ``shown``
    reasons (``"llm_chunk: 5 documents left as they were: a.md: …; b.md: …; c.md: …; 2 more
    reason(s)"``); a reason is a message, or the English text a saved result holds."""
    lines = []
    for step, n in counts.items():
        if not n:
            continue
        why = list(reasons.get(step) or [])
        left = left_message(step, n)
        if not why:
            lines.append(msg("ingest_step.fallback_no_reason", step=step, left=left))
        elif len(why) > shown:
            lines.append(msg("ingest_step.fallback_more", step=step, left=left, reasons=joined(why[:shown]), n=len(why) - shown))
        else:
            lines.append(msg("ingest_step.fallback_reasons", step=step, left=left, reasons=joined(why)))
    return lines
