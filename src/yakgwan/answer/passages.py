"""The retrieved passages as numbered sentences, and the checks every citation must pass.

The answerer never writes a quote: it cites sentence numbers, and a citation's quote is that
sentence cut from the chunk. Only the sentences that share most words with the question are shown
(a small model's context is short), in document order, grouped by passage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yakgwan.answer.records import Citation, Sentence
from yakgwan.core.records import Hit
from yakgwan.text.tokenizer import Tokenizer
from yakgwan.text.sentences import clause_spans

MAX_SENTENCES = 16
SENTENCE_CHARS = 200  # a sentence as shown and quoted
_CONTENT = re.compile(r"[0-9A-Za-z가-힣]")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_PLAIN_NUMBER = re.compile(r"(?:^|[^+\d,.])\d")  # a number not written as an addition ("+350,000원")
_NUMBER_UNIT = re.compile(rf"({_NUMBER.pattern})\s*([^\s\d.,]?)")  # a number and the character after it


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
        for s, e in clause_spans(h.chunk.text):
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
    return first if first != start and _TABLE_RULE.fullmatch(rule.strip()) else None


def labels_only(sentence: Sentence) -> bool:
    """Whether the sentence only labels what follows it: a Markdown heading, a table's header
    row or its ``|---|`` rule. Such a line is shown for context, never quoted as an answer."""
    line = sentence.text.strip()
    if line.startswith("#") or _TABLE_RULE.fullmatch(line):
        return True
    text = sentence.chunk.text
    start = text.find(sentence.text)
    if start < 0 or not line.startswith("|"):
        return False
    nxt = text.find("\n", start + len(sentence.text))
    if nxt < 0:
        return False
    stop = text.find("\n", nxt + 1)
    return bool(_TABLE_RULE.fullmatch(text[nxt + 1 : stop if stop >= 0 else len(text)].strip()))


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


# words that say a claim computes (a difference, a total, a ratio): only then may its numbers be
# results of arithmetic on the cited ones
_COMPUTES = re.compile(r"차이|합계|합산|총합|총액|모두 합|더 [가-힣]|배|%|퍼센트|증가|감소|지났|경과|늘었|줄었")
MAX_OPERANDS = 12


def unsupported_numbers(claim: str, cited: Sequence[str], headings: Sequence[str] = ()) -> list[str]:
    """Numbers in ``claim`` that none of its cited sentences contains (a made-up figure). A
    number the cited sentences' headings show (the section "2012년 - 지방 확장" above "12월: 연간
    매출 50억원 돌파") also counts, when the claim writes it with the same unit ("2012년", not
    "2012명"; an article's "제3조" does not support "3일"). When the claim says it computes (a
    difference, total, ratio: ``_COMPUTES``), a number is also supported when it is the sum,
    difference, product, quotient or percentage change of two cited numbers, or the sum of
    several (1% tolerance, for rounding)."""
    have = {n.replace(",", "") for t in cited for n in _NUMBER.findall(t)}
    titled = {(n.replace(",", ""), unit) for t in headings for n, unit in _NUMBER_UNIT.findall(t)}
    missing = [n for n, unit in _NUMBER_UNIT.findall(claim) if n.replace(",", "") not in have and (n.replace(",", ""), unit) not in titled]
    if not missing or not _COMPUTES.search(claim):
        return missing
    values = sorted({float(h) for h in have if h.replace(".", "", 1).isdigit()})[:MAX_OPERANDS]
    derived = derivable(values)
    return [n for n in missing if not any(abs(float(n.replace(",", "")) - d) <= 0.01 * max(abs(d), 1.0) for d in derived)]


def derivable(values: Sequence[float]) -> set[float]:
    """What one arithmetic step makes of ``values``: every pair's sum, difference, product,
    quotients and percentage changes, and the sum of every subset (at most ``MAX_OPERANDS``
    values)."""
    out: set[float] = set()
    vs = list(values)[:MAX_OPERANDS]
    for i, a in enumerate(vs):
        for b in vs[i + 1 :]:
            out |= {a + b, abs(a - b), a * b}
            if a:
                out |= {b / a, (b - a) / a * 100, b / a * 100}
            if b:
                out |= {a / b, (a - b) / b * 100, a / b * 100}
    sums = {0.0}
    for v in vs:
        sums |= {s + v for s in sums}
    return out | {abs(x) for x in out if x < 0} | sums
