"""The retrieved passages as numbered sentences, and the checks every citation must pass.

The answerer never writes a quote: it cites sentence numbers, and a citation's quote is that
sentence cut from the chunk. Only the sentences that share most words with the question are shown
(a small model's context is short), in document order, grouped by passage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yakgwan.answer.records import Citation, Sentence
from yakgwan.records import Hit
from yakgwan.text.korean import Tokenizer
from yakgwan.text.sentences import clause_spans

MAX_SENTENCES = 16
SENTENCE_CHARS = 200  # a sentence as shown and quoted
_CONTENT = re.compile(r"[0-9A-Za-z가-힣]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def number_sentences(question: str, hits: Sequence[Hit], tokenizer: Tokenizer, limit: int = MAX_SENTENCES) -> list[Sentence]:
    """The ``limit`` sentences of ``hits`` that share most content words with ``question`` (ties:
    the better-ranked passage, then document order), numbered from 1 in passage order."""
    cands: list[tuple[int, int, str, Hit]] = []  # (hit index, start, text, hit)
    for i, h in enumerate(hits):
        for s, e in clause_spans(h.chunk.text):
            text = h.chunk.text[s : min(e, s + SENTENCE_CHARS)]
            if _CONTENT.search(text):
                cands.append((i, s, text, h))
    if not cands:
        return []
    q = set(tokenizer.tokenize(question))
    overlap = [len(q & set(t)) for t in tokenizer.tokenize_many([c[2] for c in cands])]
    best = sorted(range(len(cands)), key=lambda j: (-overlap[j], cands[j][0], cands[j][1]))[:limit]
    kept = sorted(best, key=lambda j: (cands[j][0], cands[j][1]))
    return [Sentence(str(n), cands[j][3].chunk, cands[j][2]) for n, j in enumerate(kept, 1)]


def passages_block(sentences: Sequence[Sentence]) -> str:
    lines: list[str] = []
    current = None
    for s in sentences:
        if s.chunk.chunk_id != current:
            current = s.chunk.chunk_id
            lines.append(f"<{s.chunk.citation()}>")
        lines.append(f"[{s.number}] {' '.join(s.text.split())}")
    return "\n".join(lines)


def same_text(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def quote_is_verbatim(c: Citation, chunk_text: str) -> bool:
    """The quote occurs in the chunk (whitespace normalised only)."""
    return " ".join(c.quote.split()) in " ".join(chunk_text.split())


def unsupported_numbers(claim: str, cited: Sequence[str]) -> list[str]:
    """Numbers in ``claim`` that none of its cited sentences contains (a made-up figure)."""
    have = {n.replace(",", "") for t in cited for n in _NUMBER.findall(t)}
    return [n for n in _NUMBER.findall(claim) if n.replace(",", "") not in have]
