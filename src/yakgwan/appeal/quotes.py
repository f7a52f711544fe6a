"""A notice's quotation of a clause, against the clause's own words.

A notice that quotes the clause it relies on ("…“…”라고 정하고 있어") can quote it wrong: a
qualifier or a condition dropped, a figure changed, words added. This module finds the
quotations in a denial reason (text between “ ”, " ", 「 」, 『 』, ‘ ’ or ' ', at least
``QUOTE_MIN`` characters, not a 약관 name), aligns each with the closest span of the cited
article, and says what differs.

Alignment ignores whitespace and punctuation (a PDF's line breaks and a letter's spacing are
not differences): a quote whose letters stand in the clause as they are is faithful. Otherwise
the closest span is the clause's stretch from the first to the last of the character blocks the
quote shares with it; it is the quoted clause when the two agree on at least ``ALIGN_MIN`` of
their letters (a looser match is another text, not a misquote). A quote that leaves out only a
parenthesis of the clause (a gloss: "(운전을 포함합니다)"; not a proviso: "(단, …은 보상)") is faithful. What differs is stated as
words: the clause's words the quote lacks or changes and the quote's words the clause lacks
(one syllable can turn 별거 into 동거). A difference of spacing, punctuation or a particle at a
word's end only is no finding, nor is an alternative written "A하거나 B" for "A 또는 B".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Sequence

from yakgwan.core.records import Chunk

QUOTE_MIN = 12  # characters (without spaces) a quotation needs to be a clause's words, not a term
ALIGN_MIN = 0.6  # letters the quote and its closest span share (Dice) to be that span's quotation
# a stretch in quotation marks, in every pair a notice uses (one group per pair: the words inside)
QUOTED = re.compile(r"“([^”]+)”|\"([^\"]+)\"|「([^」]+)」|『([^』]+)』|‘([^’]+)’|'([^']+)'")
_IGNORED = re.compile(r"[\s.,·ㆍ・:;\"'“”‘’「」『』()\[\]<>-]")
_FIGURE = re.compile(r"\d+(?:[.,]\d+)*")
_NAME = re.compile(r"(?:보통약관|특별약관|특약)\s*$")
_PUNCT = " .,·:;\"'“”‘’「」『』()"
# a parenthesis inside a clause: a gloss a quote may leave out; one that opens a proviso ("(다만, …)",
# "(단, …)", as provisos.py reads them) is none
_GLOSS = re.compile(r"\s*\((?!\s*(?:다만|단\s*,|그러나))[^()]*\)")


@dataclass(frozen=True)
class Misquote:
    """A quotation that differs from the clause it quotes: the quote as the notice writes it,
    the closest span of the clause (``chunk.text[start:end]``), their agreement, the terms the
    quote leaves out and the terms it adds, and the character-level diff (op, text) with ops
    "same", "policy_only", "notice_only"."""

    quote: str
    chunk: Chunk
    start: int
    end: int
    agreement: float
    dropped: tuple[str, ...]
    added: tuple[str, ...]
    diff: tuple[tuple[str, str], ...]

    @property
    def span(self) -> str:
        return self.chunk.text[self.start : self.end]


_ELLIPSIS = re.compile(r"…|⋯|\.{3,}|\((?:중략|생략|후략|전략)\)")


def quotations(text: str) -> list[str]:
    """The quoted stretches of ``text`` long enough to be a clause's words, 약관 names left out; a
    quote shortened with "…" or "(중략)" is its pieces, each compared on its own."""
    out = []
    for m in QUOTED.finditer(text):
        for piece in _ELLIPSIS.split(next(g for g in m.groups() if g is not None)):
            q = piece.strip()
            if len(_IGNORED.sub("", q)) >= QUOTE_MIN and not _NAME.search(q):
                out.append(q)
    return out


def _letters(text: str) -> tuple[str, list[int]]:
    """``text`` without whitespace and punctuation, and each kept letter's offset in ``text``."""
    kept = [(i, ch) for i, ch in enumerate(text) if not _IGNORED.match(ch)]
    return "".join(ch for _, ch in kept), [i for i, _ in kept]


def align(quote: str, chunk: Chunk) -> tuple[int, int, float] | None:
    """The span of ``chunk.text`` the quote is closest to and the share of letters they agree
    on (1.0: the quote's letters stand there as they are); None when they share nothing."""
    q, _ = _letters(quote)
    c, where = _letters(chunk.text)
    if not q or not c:
        return None
    at = c.find(q)
    if at >= 0:
        return where[at], where[at + len(q) - 1] + 1, 1.0
    blocks = [b for b in SequenceMatcher(None, q, c, autojunk=False).get_matching_blocks() if b.size >= 2]
    if not blocks:
        return None
    # the run of blocks that lie close together in the clause (a quote is one stretch of it)
    best: list = []
    run: list = []
    for b in blocks:
        if run and b.b - (run[-1].b + run[-1].size) > len(q):
            run = []
        run.append(b)
        if sum(x.size for x in run) > sum(x.size for x in best):
            best = list(run)
    lo, hi = best[0].b, best[-1].b + best[-1].size
    matched = sum(b.size for b in SequenceMatcher(None, q, c[lo:hi], autojunk=False).get_matching_blocks())
    return where[lo], where[hi - 1] + 1, 2 * matched / (len(q) + hi - lo)


def _diff(quote: str, span: str) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...], tuple[str, ...]]:
    """The character-level differences of the clause's span and the quote (whitespace compared
    as one space) as (op, text) pieces, and the words of the clause and of the quote that hold a
    substantive difference: two letters or more, or a digit (a particle or a comma is not one)."""
    a, b = " ".join(span.split()), " ".join(quote.split())
    pieces: list[tuple[str, str]] = []
    dropped: list[str] = []
    added: list[str] = []

    def word(text: str, i: int, j: int) -> str:
        """The words of ``text`` that hold its stretch ``i:j`` (the stretch without its spaces)."""
        while i < j and text[i] == " ":
            i += 1
        while j > i and text[j - 1] == " ":
            j -= 1
        lo = text.rfind(" ", 0, i) + 1
        hi = text.find(" ", j)
        return text[lo : len(text) if hi < 0 else hi].strip(_PUNCT)

    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            pieces.append(("same", a[i1:i2]))
            continue
        for text, lo, hi, name, into in ((a, i1, i2, "policy_only", dropped), (b, j1, j2, "notice_only", added)):
            if hi > lo:
                pieces.append((name, text[lo:hi]))
                if _substantive(text, lo, hi):
                    into.append(word(text, lo, hi))
    return tuple(pieces), tuple(dict.fromkeys(dropped)), tuple(dict.fromkeys(added))


# "A하거나 B", "A이거나 B": the same alternative as "A 또는 B" (general Korean)
_EITHER = re.compile(r"(?<=[가-힣])(?:하|이)?거나(?=\s)")


def _disjunction(text: str) -> str:
    """``text`` with each "…(하|이)거나" written as "… 또는": two ways to write one alternative."""
    return _EITHER.sub(" 또는", text)


# the particles (조사) a quote may change without changing what the clause says (general Korean)
PARTICLES = set("을를이가은는의에로으와과도만서께")


def _substantive(text: str, lo: int, hi: int) -> bool:
    """Whether ``text[lo:hi]``, a stretch only one side has, changes words: any letter or digit,
    except particle syllables at a word's end ("보험금을" for "보험금이")."""
    letters = [ch for ch in text[lo:hi] if ch.isalnum()]
    if not letters:
        return False
    at_word_end = hi >= len(text) or not text[hi].isalnum()
    return not (at_word_end and all(ch in PARTICLES for ch in letters))


def misquotes(reason: str, chunks: Sequence[Chunk]) -> list[Misquote]:
    """The quotations in ``reason`` that quote one of ``chunks`` (the cited article) with
    different words."""
    out = []
    for q in quotations(reason):
        found = [(a, c) for c in chunks if (a := align(q, c)) is not None]
        if not found:
            continue
        (s, e, agreement), chunk = max(found, key=lambda x: x[0][2])
        if agreement >= 1.0 or agreement < ALIGN_MIN:
            continue
        span = chunk.text[s:e]
        if _letters(_disjunction(q))[0] in _letters(_disjunction(span))[0]:  # "운송하거나 싣고" quotes "운송 또는 싣고"
            continue
        if "(" not in q:  # a parenthetical gloss the quote leaves out ("탑승(운전을 포함합니다)하고") changes nothing it says
            bare = _GLOSS.sub("", span)
            if _letters(q)[0] in _letters(bare)[0]:
                continue
            span = bare
        diff, dropped, added = _diff(q, span)
        if dropped or added:
            out.append(Misquote(q, chunk, s, e, round(agreement, 3), dropped, added, diff))
    return out
