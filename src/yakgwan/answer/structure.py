"""Answers from a policy's parsed structure: a question about a 조 that does not exist.

"벌금 특별약관 제9조에는 어떤 내용이 있나요?" over a 특약 that has 제1조–제3조 is not a search
question: the structure chunker knows every 약관's articles, so the answer is that there is no
제9조 and which articles there are, citing the first and last article headings verbatim (a
``partial`` answer: what the policy has, and that the asked 조 is not among it). A
question whose 조 exists goes to retrieval as usual (this module answers nothing then).

Which 약관 the question means: the longest 약관 name printed in the question (spaces ignored;
``특약`` read as ``특별약관``, its usual short form). None named: the 조 is looked up in every
약관, and only a number no 약관 has is answered here. A 조 that follows a statute's name
("도로교통법 제13조", "「…법률」 제5조") is the statute's, never the policy's.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from yakgwan.answer.records import Citation, Generated
from yakgwan.messages import msg
from yakgwan.core.records import Chunk

_ARTICLE = re.compile(r"제\s*(\d+)\s*조(?:\s*의\s*(\d+))?")
_SPACE = re.compile(r"\s+")
# a 조 right after one of these belongs to a statute or decree: 법, 법률, 시행령, 규칙, 규정 (general Korean legal citation form)
_STATUTE_BEFORE = re.compile(r"(법|법률|령|규칙|규정)[」』\"”]?\s*$")
SHORT_FORMS = (("특약", "특별약관"),)  # the usual short form of a 약관 kind (insurance vocabulary)
LISTED = 10  # at most this many article headings are listed in the answer; more: the range only


@dataclass(frozen=True)
class Article:
    yakgwan: str
    number: str  # 제3조, 제29조의2
    title: str | None
    chunk: Chunk  # the article's first chunk (its heading is printed there)


def articles_by_yakgwan(chunks: Sequence[Chunk]) -> dict[str, list[Article]]:
    """Every 약관's articles in document order, each with the chunk its heading is printed in."""
    out: dict[str, list[Article]] = {}
    seen: set[tuple[str, str]] = set()
    for c in chunks:
        if c.yakgwan and c.article and (c.yakgwan, c.article) not in seen:
            seen.add((c.yakgwan, c.article))
            out.setdefault(c.yakgwan, []).append(Article(c.yakgwan, c.article, c.article_title, c))
    return out


def asked_articles(question: str) -> list[str]:
    """The policy articles a question asks about (``제9조``, ``제29조의2``), statute articles left out."""
    out = []
    for m in _ARTICLE.finditer(question):
        if _STATUTE_BEFORE.search(question[: m.start()]):
            continue
        out.append(f"제{int(m.group(1))}조" + (f"의{int(m.group(2))}" if m.group(2) else ""))
    return list(dict.fromkeys(out))


def named_yakgwan(question: str, names: Sequence[str]) -> str | None:
    """The longest 약관 name printed in the question (spaces ignored, 특약 read as 특별약관)."""
    q = _SPACE.sub("", question)
    for short, full in SHORT_FORMS:
        q = q.replace(short, full)
    found = [n for n in names if _SPACE.sub("", n) in q]
    return max(found, key=len) if found else None


def _heading(a: Article) -> str:
    """The article's heading as printed in its chunk (``제1조(보험금의 지급사유)``), or its number."""
    head = f"{a.number}({a.title})" if a.title else a.number
    return head if head in a.chunk.text else a.number


def _listing(yakgwan: str, arts: list[Article], missing: str) -> str:
    span = f"{arts[0].number}~{arts[-1].number}" if len(arts) > 1 else arts[0].number
    text = f"{yakgwan}에는 {span}가 있으며 {missing}는 없습니다."
    if len(arts) <= LISTED:
        text += " 있는 조: " + ", ".join(_heading(a) for a in arts) + "."
    return text


def missing_articles(question: str, arts: dict[str, list[Article]]) -> tuple[str | None, tuple[str, ...]]:
    """The 약관 the question names (None: none) and the 조 it asks about that this 약관 lacks, or,
    naming none, that no 약관 has; no 조 when every asked 조 exists (somewhere, when no 약관 is
    named: retrieval finds it) or the question asks about none."""
    asked = asked_articles(question)
    if not asked or not arts:
        return None, ()
    name = named_yakgwan(question, list(arts))
    if name is not None:
        have = {a.number for a in arts[name]}
        return name, tuple(n for n in asked if n not in have)
    everywhere = {a.number for group in arts.values() for a in group}
    missing = tuple(n for n in asked if n not in everywhere)
    return None, (missing if len(missing) == len(asked) else ())


def structure_answer(question: str, arts: dict[str, list[Article]]) -> Generated | None:
    """The structure answer when the question asks about a 조 that the 약관 it names (or, naming
    none, every 약관) lacks; None when every asked 조 exists, or the question asks about none."""
    name, missing = missing_articles(question, arts)
    if not missing:
        return None
    if name is not None:
        scopes = [name]
        text = _listing(name, arts[name], ", ".join(missing))
    else:
        longest = max(arts, key=lambda y: len(arts[y]))
        scopes = [longest]
        text = f"이 문서의 어느 약관에도 {', '.join(missing)}는 없습니다. " + _listing(longest, arts[longest], ", ".join(missing))
    cites: list[Citation] = []
    for y in scopes:
        ends = [arts[y][0]] + ([arts[y][-1]] if len(arts[y]) > 1 else [])
        for a in ends:
            cites.append(Citation.of(len(cites) + 1, a.chunk, _heading(a)))
    marks = " ".join(f"[{c.n}]" for c in cites)
    return Generated("partial", f"{text} {marks}", cites, notes=[msg("note.from_structure", missing=", ".join(missing), scope=scopes[0])],
                     claims_text=text, reason="no_such_article", conclusion=f"{text} {marks}")


def missing_article_answer(question: str, chunks: Sequence[Chunk]) -> Generated | None:
    """:func:`structure_answer` over the articles of ``chunks``."""
    return structure_answer(question, articles_by_yakgwan(chunks))
