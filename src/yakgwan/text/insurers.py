"""Korean insurers by name: one canonical short name per company for every way it is written, so
that a document's insurer label, a ``--filter insurer=…`` value and a user's question meet.

The lexicon is data (``data/insurers.json``, its ``_source`` says where the entries come from):
per company its ``name`` (the label form: 삼성화재, DB손해보험, 한화손해보험), ``aliases`` (the
registered name, short forms, English letters, former names) and ``brands`` (a bare word that
names only this company in a sentence: 메리츠, 캐롯, 악사).

A name is compared by its key: NFKC (㈜ → (주)), without "(주)", "주식회사", "(株)", spaces and
middle dots, Latin letters case-folded; so ``canonical("삼성화재해상보험 주식회사") == "삼성화재"``.

In free text (``insurer_mentions``) every alias and brand is found with any spacing between its
letters ("삼성 화재"), the longest first ("처브라이프" is 처브라이프생명, not 처브). A Latin
letter never continues an alias that starts or ends with one ("KDB생명" is not DB생명), and a
brand is not read inside a longer Korean word ("음악사" names no one). A group's bare name
(삼성, 한화, 현대, 흥국, KB, DB …) names no insurer: "KB" or "DB" counts only as part of an
alias ("KB손보", "DB손해보험", "DB화재"), so "DB 접속" names no one. Such a word is a group
(``groups`` in the data): ``group_mentions`` finds it where no full name stands (a Latin word
on its own, a Korean one not inside a longer word), and a caller that holds documents of the
group's insurers may read it as naming them.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Mapping

DEFAULT_LEXICON = Path(__file__).parent / "data" / "insurers.json"
KINDS = ("손해보험", "생명보험")

_CORPORATE = re.compile(r"\(\s*주\s*\)|\(\s*株\s*\)|주식회사")
_SPACING = re.compile(r"[\s·ㆍ・]+")


@dataclass(frozen=True)
class Insurer:
    name: str
    kind: str  # one of KINDS
    aliases: tuple[str, ...]
    brands: tuple[str, ...]


@dataclass(frozen=True)
class Lexicon:
    """The insurers, the canonical name of each key, and the patterns that find them in text."""

    insurers: tuple[Insurer, ...]
    by_key: Mapping[str, str]
    mentions: re.Pattern[str]  # aliases and brands
    names: re.Pattern[str]  # aliases only: how a document prints its own insurer's name
    groups: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # group word → its insurers' canonical names
    group_words: re.Pattern[str] | None = None


def key(name: str) -> str:
    """The form names are compared in (module docstring). Pure."""
    return _SPACING.sub("", _CORPORATE.sub("", unicodedata.normalize("NFKC", name))).casefold()


def _pattern(words: dict[str, str]) -> re.Pattern[str]:
    """One alternation of ``words`` (written form → whether it is a brand), longest key first."""
    parts = []
    for word in sorted(words, key=lambda w: (-len(key(w)), w)):
        letters = key(word)
        body = r"\s*".join(re.escape(c) for c in letters)
        before = r"(?<![A-Za-z])" if letters[0].isascii() and letters[0].isalpha() else ""
        if words[word] == "brand":
            before += r"(?<![가-힣])"
        after = r"(?![A-Za-z])" if letters[-1].isascii() and letters[-1].isalpha() else ""
        parts.append(before + body + after)
    return re.compile("|".join(parts), re.IGNORECASE)


def load_lexicon(path: Path) -> Lexicon:
    """The lexicon in ``path``; ``ValueError`` naming the entry when one is malformed or two
    companies share a name."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not str(data.get("_source", "")).strip():
        raise ValueError(f"{path}: the lexicon must say where its entries come from (_source)")
    insurers, by_key = [], {}
    for entry in data["insurers"]:
        ins = Insurer(entry["name"], entry["kind"], tuple(entry["aliases"]), tuple(entry["brands"]))
        if ins.kind not in KINDS:
            raise ValueError(f"{path}: {ins.name}: kind {ins.kind!r} is not one of {', '.join(KINDS)}")
        for written in (ins.name, *ins.aliases, *ins.brands):
            k = key(written)
            if not k:
                raise ValueError(f"{path}: {ins.name}: an empty name")
            if by_key.setdefault(k, ins.name) != ins.name:
                raise ValueError(f"{path}: {written!r} names both {by_key[k]} and {ins.name}")
        insurers.append(ins)
    names = {i.name for i in insurers}
    groups: dict[str, tuple[str, ...]] = {}
    for word, members in data.get("groups", {}).items():
        unknown = [m for m in members if m not in names]
        if unknown or not members:
            raise ValueError(f"{path}: group {word!r}: {', '.join(unknown) or 'no insurers'} is not an insurer's name")
        groups[word] = tuple(members)
    full = {w: "alias" for i in insurers for w in (i.name, *i.aliases)}
    return Lexicon(tuple(insurers), by_key, _pattern({**full, **{b: "brand" for i in insurers for b in i.brands}}), _pattern(full),
                   groups, _pattern({w: "brand" for w in groups}) if groups else None)


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    """The bundled lexicon, read once."""
    return load_lexicon(DEFAULT_LEXICON)


def canonical(name: str) -> str | None:
    """The canonical short name of the insurer ``name`` is any alias of, else None."""
    return lexicon().by_key.get(key(name))


def aliases(name: str) -> tuple[str, ...]:
    """Every way the insurer named ``name`` (any alias) is written: its canonical name first,
    then its aliases and brands; empty for a name the lexicon does not know."""
    want = canonical(name)
    found = next((i for i in lexicon().insurers if i.name == want), None)
    return () if found is None else (found.name, *found.aliases, *found.brands)


def insurer_mentions(text: str, brands: bool = True) -> tuple[str, ...]:
    """The insurers ``text`` names, canonical, in order of first mention, each once. Without
    ``brands`` only full names count (a document naming its insurer prints one)."""
    lex = lexicon()
    pattern = lex.mentions if brands else lex.names
    out: dict[str, None] = {}
    for m in pattern.finditer(unicodedata.normalize("NFKC", text)):
        name = lex.by_key.get(key(m.group(0)))
        if name is not None:
            out.setdefault(name, None)
    return tuple(out)


def group_mentions(text: str) -> tuple[str, ...]:
    """The group words ``text`` uses where no insurer's full name or brand stands ("한화 다이렉트",
    "KB주택화재보험", not "한화손해보험"), in order of first mention, each once."""
    lex = lexicon()
    if lex.group_words is None:
        return ()
    bare = lex.mentions.sub(lambda m: " " * len(m.group(0)), unicodedata.normalize("NFKC", text))
    out: dict[str, None] = {}
    for m in lex.group_words.finditer(bare):
        word = next((w for w in lex.groups if key(w) == key(m.group(0))), None)
        if word is not None:
            out.setdefault(word, None)
    return tuple(out)


def group_members(word: str) -> tuple[str, ...]:
    """The canonical names of the insurers of the group ``word`` (empty for a word that is no group)."""
    return lexicon().groups.get(word, ())
