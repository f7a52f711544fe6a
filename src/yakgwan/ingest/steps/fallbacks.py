"""How ingest steps say what they left as it was, in plain words: pure text helpers shared by
``yakgwan ingest``, ``yakgwan eval`` and the reports (no model or index imports)."""

from __future__ import annotations

# what each ingest step works on: llm_chunk keeps a document's structure chunks, preprocess a chunk
STEP_UNITS = {"llm_chunk": "document", "preprocess": "chunk"}
REASONS_SHOWN = 3  # per step, on the summary line


def left_as_was(step: str, n: int) -> str:
    """``"1 document left as it was"``, ``"3 chunks left as they were"`` (``"item"`` for a step
    this module does not know)."""
    unit = STEP_UNITS.get(step, "item")
    return f"{n} {unit} left as it was" if n == 1 else f"{n} {unit}s left as they were"


def left_as_was_head(step: str) -> str:
    """A report column's head: ``"llm_chunk: documents left as they were"``."""
    return f"{step}: {STEP_UNITS.get(step, 'item')}s left as they were"


def fallback_lines(counts: dict[str, int], reasons: dict[str, list[str]], shown: int = REASONS_SHOWN) -> list[str]:
    """One line per step that left something as it was: how many, then its first ``shown``
    reasons (``"llm_chunk: 5 documents left as they were: a.md: …; b.md: …; c.md: …; 2 more
    reasons"``)."""
    lines = []
    for step, n in counts.items():
        if not n:
            continue
        why = reasons.get(step) or []
        line = f"{step}: {left_as_was(step, n)}"
        if why:
            line += ": " + "; ".join(why[:shown])
            if len(why) > shown:
                line += f"; {len(why) - shown} more reason{'s' if len(why) - shown > 1 else ''}"
        else:
            line += " (no LLM or an unusable answer)"
        lines.append(line)
    return lines
