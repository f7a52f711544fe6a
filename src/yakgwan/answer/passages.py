"""The retrieved passages as numbered sentences, and the Markdown tables those sentences are rows of.

The answerer never writes a quote: it cites sentence numbers, and a citation's quote is that
sentence cut from the chunk. Only the sentences that share most words with the question are shown
(a small model's context is short), in document order, grouped by passage.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from yakgwan.text.instructions import without_instructions
from yakgwan.answer.records import Sentence
from yakgwan.core.records import Hit
from yakgwan.text.tokenizer import Tokenizer
from yakgwan.text.sentences import clause_spans

MAX_SENTENCES = 16
SENTENCE_CHARS = 200  # a sentence as shown and quoted
_CONTENT = re.compile(r"[0-9A-Za-z가-힣]")
_PLAIN_NUMBER = re.compile(r"(?:^|[^+\d,.])\d")  # a number not written as an addition ("+350,000원")


def number_sentences(
    question: str, hits: Sequence[Hit], tokenizer: Tokenizer, limit: int = MAX_SENTENCES, reserve: Sequence[tuple[str, Sequence[str]]] = ()
) -> list[Sentence]:
    """The ``limit`` sentences of ``hits`` that share most content words with ``question`` (ties:
    the better-ranked passage, then document order), numbered from 1 in passage order; a table
    row comes with its table's header row. For each search in ``reserve`` (one per side of a
    question about two named things, with the chunk ids it found), the best sentence of each of
    those passages is shown whatever the question's overlap: the one sharing most words with the
    search, counting its passage's heading and title ("| 비수기 | 1,290,000원 |" under "일본 오사카-도쿄 5박6일 > 가격 안내"), a sentence with a
    number (not one written as an addition, "+350,000원") first, never a heading, a table's header
    row or its rule (:func:`labels_only`)."""
    cands: list[tuple[int, int, str, Hit]] = []  # (hit index, start, text, hit)
    for i, h in enumerate(hits):
        # a sentence that addresses the reader or a model is cut out: never shown to answer from
        for s, e in (span for cs, ce in clause_spans(h.chunk.text) for span in without_instructions(h.chunk.text, cs, ce)):
            text = h.chunk.text[s : min(e, s + SENTENCE_CHARS)]
            if _CONTENT.search(text):
                cands.append((i, s, text, h))
    if not cands:
        return []
    q = set(tokenizer.tokenize(question))
    words = [set(t) for t in tokenizer.tokenize_many([c[2] for c in cands])]
    overlap = [len(q & w) for w in words]
    reserved = _reserved(cands, words, reserve, tokenizer)
    rest = [j for j in sorted(range(len(cands)), key=lambda j: (-overlap[j], cands[j][0], cands[j][1])) if j not in reserved]
    best = [*reserved, *rest][: max(limit, len(reserved))]
    at = {(c[0], c[1]): j for j, c in enumerate(cands)}
    headers = {h for j in best if (h := at.get((cands[j][0], table_header(cands[j][3].chunk.text, cands[j][1])))) is not None}
    kept = sorted(set(best) | headers, key=lambda j: (cands[j][0], cands[j][1]))
    return [Sentence(str(n), cands[j][3].chunk, cands[j][2]) for n, j in enumerate(kept, 1)]


_ATX_HEADING = re.compile(r"#{1,6}(?:\s|$)")  # a Markdown heading (CommonMark: "#1 인기" is no heading)
_TABLE_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*")


def _reserved(cands: list[tuple[int, int, str, Hit]], words: list[set[str]], reserve: Sequence[tuple[str, Sequence[str]]], tokenizer: Tokenizer) -> list[int]:
    """The candidates each search of ``reserve`` keeps (see :func:`number_sentences`), in order."""
    if not reserve:
        return []
    chunks = list(dict.fromkeys(c[3].chunk.chunk_id for c in cands))
    by_id = {c[3].chunk.chunk_id: c[3].chunk for c in cands}
    heads = dict(zip(chunks, (set(t) for t in tokenizer.tokenize_many([f"{by_id[i].title} {by_id[i].heading()}" for i in chunks]))))
    shown = [j for j, c in enumerate(cands) if not labels_only(Sentence("", c[3].chunk, c[2]))]
    out: list[int] = []
    for query, found in reserve:
        want = set(tokenizer.tokenize(query))
        for chunk_id in found:
            score = {j: (len(want & (words[j] | heads[chunk_id])), bool(_PLAIN_NUMBER.search(cands[j][2]))) for j in shown if cands[j][3].chunk.chunk_id == chunk_id}
            top = sorted((j for j in score if score[j][0] > 0 and j not in out), key=lambda j: (-score[j][0], not score[j][1], cands[j][1]))
            out.extend(top[:1])
    return out


def table_header(text: str, start: int) -> int | None:
    """Where the header row of the Markdown table whose row starts at ``start`` begins (the
    first row of the block, followed by a ``|---|`` rule); None when ``start`` is not in a table
    row or the table has no header. A row is shown with its header: "| 2021 | 55,000,000원 |"
    says nothing without "| 연도 | 연봉 |"."""
    if not text.startswith("|", start):
        return None
    first = start
    while first > 0:
        prev = text.rfind("\n", 0, first - 1) + 1
        if not text.startswith("|", prev) or prev == first:
            break
        first = prev
    end = text.find("\n", first)
    rule_start = end + 1 if end >= 0 else len(text)
    rule_end = text.find("\n", rule_start)
    rule = text[rule_start : rule_end if rule_end >= 0 else len(text)]
    return first if first != start and _table_rule(rule) else None


def _table_rule(line: str) -> bool:
    """A table's ``|---|---|`` rule (with a pipe: a bare ``---`` line is a thematic break, not a rule)."""
    line = line.strip()
    return "|" in line and bool(_TABLE_RULE.fullmatch(line))


def labels_only(sentence: Sentence) -> bool:
    """Whether the sentence only labels what follows it: a Markdown heading, a table's header
    row or its ``|---|`` rule. Such a line is shown for context, never quoted as an answer."""
    line = sentence.text.strip()
    if _ATX_HEADING.match(line) or _TABLE_RULE.fullmatch(line):
        return True
    text = sentence.chunk.text
    start = sentence.offset()
    if start < 0 or not line.startswith("|"):
        return False
    nxt = text.find("\n", start + len(sentence.text))
    if nxt < 0:
        return False
    stop = text.find("\n", nxt + 1)
    return _table_rule(text[nxt + 1 : stop if stop >= 0 else len(text)])


def passages_block(sentences: Sequence[Sentence]) -> str:
    lines: list[str] = []
    current = None
    for s in sentences:
        if s.chunk.chunk_id != current:
            current = s.chunk.chunk_id
            lines.append(f"<{s.chunk.citation()}>")
        lines.append(f"[{s.number}] {' '.join((s.shown or s.text).split())}")
    return "\n".join(lines)


def header_row(sentence: Sentence) -> str | None:
    """The header row of the Markdown table the sentence is a row of; None when it is not a row
    of a table with a header (or is the header itself)."""
    text = sentence.chunk.text
    start = sentence.offset()
    head = table_header(text, start) if start >= 0 else None
    return text[head : text.find("\n", head)].strip() if head is not None else None


def row_cells(row: str) -> list[str]:
    """The cells of a Markdown table row, stripped ("| 2020 | 85,000,000원 |" → ["2020", "85,000,000원"])."""
    return [c.strip() for c in row.strip().strip("|").split("|")]


KEEP_WHOLE = 3  # fewer hits than this are all kept, the passage of the asked kind added after them


def with_asked_kind(hits: Sequence[Hit], k: int, gives: Callable[[Hit], bool]) -> list[Hit]:
    """The first ``k`` of ``hits`` (ranked deeper than ``k``); when none of them ``gives`` the kind
    of answer the question asks (a period, documents, who …: an article whose title gives it) and
    a later hit does, the first such later hit takes the ``k``-th place (with ``k`` below
    :data:`KEEP_WHOLE`, it is added) — the answer then has one passage of the asked kind to quote,
    and the search's own order is kept otherwise. Pure."""
    top = list(hits[:k])
    if not top or any(gives(h) for h in top):
        return top
    later = next((h for h in hits[k:] if gives(h)), None)
    if later is None:
        return top
    return [*top[:-1], later] if len(top) >= KEEP_WHOLE else [*top, later]  # a short list keeps all its hits
