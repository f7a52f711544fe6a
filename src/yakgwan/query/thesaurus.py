"""An insurance thesaurus: the everyday words a policyholder types → the clause terms a 약관 uses
(취소 → 청약의 철회, 오토바이 → 이륜자동차, 합의금 → 교통사고처리지원금).

The mappings are data (``data/insurance_thesaurus.tsv``, each row with its source; see
docs/thesaurus.md). ``Thesaurus.expand`` reads a query and names the clause terms to add, with the
surface that matched and the row's source. Matching rules, on the query after NFC and whitespace
normalisation (ASCII letters compared case-insensitively):

* **Word starts.** A surface matches only where a word starts (start of the query, or after a
  space or punctuation) and may run into the word's ending (다치 matches 다치면, 다치고).
  ``within_words=True`` also lets a surface start inside a word (교통사고합의금 → 합의금).
* **Negation safety.** A match right after a negating prefix of the same word (``비 부 미 무 불``
  and ``非 不 未 無``, the prefixes of ``text.terms``) is never a match, in either mode: 비급여 is not
  급여, 부담보 is not 담보, 무면허 is not 면허.
* **Clause words win.** Where the query already has a clause term (any target of the thesaurus)
  that is longer than the surface starting at the same place, the clause term is read and nothing
  is expanded (변호사선임비용 is not re-read as 변호사, 중상해 not as 중상).
* **Longest surface first**, left to right, no overlaps; targets already in the query (compared
  without spaces) are not added again, and an expansion with no target left is dropped.

``definitions_from_text`` builds extra entries from a document's own wording: the alternative
names a 약관 writes in parentheses after a term (``납입최고(독촉)`` → 독촉 ⇒ 납입최고,
``“뇌전증(간질)”이라 함은`` → 간질 ⇒ 뇌전증) and the examples it lists before ``등 X를 포함``
(``전동킥보드, 전동이륜평행차 등 개인형 이동장치를 포함`` → 전동킥보드 ⇒ 개인형 이동장치).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Iterable, Sequence

from yakgwan.core.errors import InputError
from yakgwan.text.terms import NEGATING_PREFIXES
from yakgwan.messages import msg

SOURCE_KINDS = ("general", "policy", "law")
COLUMNS = ("surfaces", "targets", "source", "note")
RELATION = "relation"  # an optional fifth column (the header names it when rows use it)
# how a row's everyday words relate to its targets: ``same`` (the default) — they name the same
# thing (취소 → 청약의 철회); ``governs`` — the targets are the clause that decides about it, and
# name something else (과태료 → 벌금 특별약관, whose 벌금 is a court's fine, not a 과태료): the
# query is expanded with them, but the word is not taken to be mentioned where they are
RELATIONS = ("same", "governs")
SEPARATOR = "|"
NEGATION_MARKS = NEGATING_PREFIXES | frozenset("非不未無")
DATA_FILE = "data/insurance_thesaurus.tsv"

_ASCII_FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def normalise(text: str) -> str:
    """NFC, whitespace runs → one space, trimmed (the text every match and span refers to)."""
    return " ".join(unicodedata.normalize("NFC", text).split())


def _key(text: str) -> str:
    """The matching form: normalised, ASCII letters lower-cased (same length as ``normalise``)."""
    return normalise(text).translate(_ASCII_FOLD)


@dataclass(frozen=True)
class ThesaurusEntry:
    """One everyday ``surface`` and the clause ``targets`` it stands for; ``source`` says where
    the mapping comes from (``general``, ``policy:<article>``, ``law:<statute>``, or the source
    given to ``definitions_from_text``)."""

    surface: str
    targets: tuple[str, ...]
    source: str
    note: str = ""
    relation: str = "same"  # one of RELATIONS

    def __post_init__(self) -> None:
        if self.relation not in RELATIONS:
            raise ValueError(f"relation must be one of {', '.join(RELATIONS)}. Currently, it is {self.relation!r}")
        if not normalise(self.surface):
            raise ValueError("surface must not be empty")
        if not self.targets or not all(normalise(t) for t in self.targets):
            raise ValueError(f"surface {self.surface!r} needs at least one non-empty target. Currently, targets are {self.targets!r}")
        if _key(self.surface) in {_key(t) for t in self.targets}:
            raise ValueError(f"surface {self.surface!r} is one of its own targets")
        if not self.source.strip():
            raise ValueError(f"surface {self.surface!r} has no source")


@dataclass(frozen=True)
class Expansion:
    """A surface found in the (normalised) query at ``start:end`` and the clause terms to add."""

    surface: str
    targets: tuple[str, ...]
    source: str
    start: int
    end: int


def _starts_here(text: str, i: int, within_words: bool) -> bool:
    """Whether a surface may match at ``text[i]``: a word start, or inside a word when allowed,
    never right after a negating prefix of the same word."""
    if i == 0 or not text[i - 1].isalnum():
        return True
    if text[i - 1] in NEGATION_MARKS:
        return False
    return within_words


class Thesaurus:
    """Entries by surface; several entries (from different sources) may share a surface."""

    def __init__(self, entries: Sequence[ThesaurusEntry], within_words: bool = False) -> None:
        if not entries:
            raise ValueError("a thesaurus needs at least one entry")
        self.entries = tuple(entries)
        self.within_words = within_words
        self._by_surface: dict[str, list[ThesaurusEntry]] = {}
        for e in self.entries:
            self._by_surface.setdefault(_key(e.surface), []).append(e)
        self._clause_terms = {_key(t) for e in self.entries for t in e.targets} - set(self._by_surface)
        self._by_first: dict[str, list[str]] = {}
        for term in {*self._by_surface, *self._clause_terms}:
            self._by_first.setdefault(term[0], []).append(term)
        for terms in self._by_first.values():
            terms.sort(key=len, reverse=True)

    @classmethod
    def load(cls, path: str | Path | None = None, within_words: bool = False) -> "Thesaurus":
        """The thesaurus of a TSV file (``read_entries``); ``None`` is the bundled one."""
        return cls(read_entries(path), within_words=within_words)

    def with_entries(self, extra: Iterable[ThesaurusEntry]) -> "Thesaurus":
        """This thesaurus plus ``extra`` (e.g. from ``definitions_from_text``)."""
        return Thesaurus([*self.entries, *extra], within_words=self.within_words)

    def expand(self, query: str) -> tuple[Expansion, ...]:
        """The expansions of ``query``, left to right (rules in the module docstring)."""
        text = _key(query)
        present = text.replace(" ", "")
        out: list[Expansion] = []
        i = 0
        while i < len(text):
            term = self._longest_at(text, i) if _starts_here(text, i, self.within_words) else None
            if term is None:
                i += 1
                continue
            for e in self._by_surface.get(term, ()):
                new = tuple(t for t in dict.fromkeys(e.targets) if _key(t).replace(" ", "") not in present)
                if new:
                    out.append(Expansion(e.surface, new, e.source, i, i + len(term)))
            i += len(term)
        return tuple(out)

    def terms(self, query: str) -> tuple[str, ...]:
        """The clause terms to add to ``query``, de-duplicated, in the order found."""
        return tuple(dict.fromkeys(t for x in self.expand(query) for t in x.targets))

    def meaning(self, word: str) -> tuple[str, ...]:
        """The clause terms of the entries one of whose surfaces is the whole ``word`` (not a
        word that merely starts with a surface: a made-up name is not explained by its prefix)
        and that name the same thing (relation ``same``: a clause that only governs the word —
        과태료 → 벌금 특별약관 — does not mention it)."""
        return tuple(dict.fromkeys(t for e in self._by_surface.get(_key(word).strip(), ()) if e.relation == "same" for t in e.targets))

    def expanded(self, query: str) -> tuple[str, tuple[str, ...]]:
        """``query`` followed by the clause terms its everyday words map to, and those terms
        (the ``Expand`` of :class:`yakgwan.retrieval.retrievers.clause.ClauseRetriever`)."""
        added = self.terms(query)
        return (f"{query} {' '.join(added)}" if added else query), added

    def _longest_at(self, text: str, i: int) -> str | None:
        for term in self._by_first.get(text[i], ()):
            if text.startswith(term, i):
                return term
        return None


def _bundled_path() -> Path:
    return Path(str(resources.files("yakgwan.query").joinpath(DATA_FILE)))


def _check_source(source: str) -> str | None:
    kind, _, detail = source.partition(":")
    if kind not in SOURCE_KINDS:
        return f"source {source!r} must start with one of {', '.join(SOURCE_KINDS)}"
    if kind != "general" and not detail.strip():
        return f"source {source!r} must name where, e.g. {kind}:<article or statute>"
    return None


def read_entries(path: str | Path | None = None) -> tuple[ThesaurusEntry, ...]:
    """The entries of a thesaurus TSV: ``#`` comment lines, a header row with ``COLUMNS`` (and
    ``relation`` when rows give one), then rows of ``|``-separated surfaces and targets, a source,
    an optional note and, under that header, an optional relation (``RELATIONS``). A malformed
    row, an unknown source kind or relation or a surface given twice raises ``InputError`` naming
    the file and line."""
    p = Path(path) if path is not None else _bundled_path()
    try:
        lines = p.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(str(p), msg("thesaurus.unreadable", why=str(exc))) from exc
    entries: list[ThesaurusEntry] = []
    seen: dict[str, int] = {}
    header = False
    widest = len(COLUMNS)
    for no, line in enumerate(lines, start=1):
        if not line.strip() or line.startswith("#"):
            continue
        cells = line.split("\t")
        if not header:
            named = tuple(c.strip() for c in cells)
            if named not in (COLUMNS, (*COLUMNS, RELATION)):
                raise InputError(str(p), msg("thesaurus.header", line=no, columns=" / ".join(COLUMNS), found=repr(line)))
            header, widest = True, len(named)
            continue
        if not 3 <= len(cells) <= widest:
            raise InputError(str(p), msg("thesaurus.columns", line=no, n=len(cells)))
        surfaces, targets = _split(cells[0]), _split(cells[1])
        source, note = cells[2].strip(), cells[3].strip() if len(cells) >= 4 else ""
        relation = (cells[4].strip() if len(cells) == 5 else "") or "same"
        if reason := _check_source(source):
            raise InputError(str(p), msg("thesaurus.line", line=no, why=reason))
        if relation not in RELATIONS:
            raise InputError(str(p), msg("thesaurus.line", line=no, why=f"relation {relation!r} must be one of {', '.join(RELATIONS)}"))
        if not surfaces or not targets:
            raise InputError(str(p), msg("thesaurus.needs_pair", line=no))
        for s in surfaces:
            if _key(s) in seen:
                raise InputError(str(p), msg("thesaurus.duplicate", line=no, surface=repr(s), first=seen[_key(s)]))
            seen[_key(s)] = no
            try:
                entries.append(ThesaurusEntry(s, targets, source, note, relation))
            except ValueError as exc:
                raise InputError(str(p), msg("thesaurus.line", line=no, why=str(exc))) from exc
    if not header:
        raise InputError(str(p), msg("thesaurus.empty"))
    return tuple(entries)


def _split(cell: str) -> tuple[str, ...]:
    return tuple(normalise(x) for x in cell.split(SEPARATOR) if normalise(x))


# --- entries from a document's own wording -------------------------------------------------

_WORD = re.compile(r"[가-힣]{2,12}")
_NOT_NAMES = frozenset({"포함", "제외", "참조", "예시", "별표", "이하", "단서"})  # bracketed remarks, not names
_QUOTED_TERM = re.compile(r"[“\"‘'「『【]([가-힣][가-힣 ]{0,30}?)\(([^()]{1,60})\)[”\"’'」』】]")
_TERM_BEFORE_PAREN = re.compile(r"([가-힣]{2,})\(([^()]{1,200})\)")
_EXAMPLES = re.compile(r"등\s([가-힣]+(?:\s[가-힣]+)?)[을를]\s?포함")


def _names(inner: str) -> list[str] | None:
    """The alternative names of a parenthesis made only of comma-separated single words."""
    items = [x.strip() for x in inner.split(",")]
    items = [x[:-1].strip() if x.endswith(" 등") else x for x in items]
    if not items or not all(_WORD.fullmatch(x) and x not in _NOT_NAMES for x in items):
        return None
    return items


def _pairs(text: str) -> Iterable[tuple[str, str]]:
    """(alternative name, term) pairs in reading order."""
    found: list[tuple[int, str, str]] = []
    quoted = list(_QUOTED_TERM.finditer(text))
    quoted_parens = {m.start(2) for m in quoted}
    plain = [m for m in _TERM_BEFORE_PAREN.finditer(text) if m.start(2) not in quoted_parens]
    for m in [*quoted, *plain]:
        term, names = m.group(1).strip(), _names(m.group(2)) or []
        if m.re is _TERM_BEFORE_PAREN and len(names) > 1:
            continue  # an unquoted list is examples of the term, not its names (진단서(사망진단서, …))
        for name in names:
            if name not in term and term not in name:
                found.append((m.start(), name, term))
    for m in _TERM_BEFORE_PAREN.finditer(text):
        ex = _EXAMPLES.search(m.group(2))
        if ex:
            for item in m.group(2)[: ex.start()].split(","):
                item = item.strip()
                if _WORD.fullmatch(item) and item not in _NOT_NAMES and item not in ex.group(1):
                    found.append((m.start(), item, ex.group(1)))
    return ((name, term) for _, name, term in sorted(found, key=lambda f: f[0]))


def definitions_from_text(text: str, source: str) -> tuple[ThesaurusEntry, ...]:
    """Entries from a document's own wording, each with ``source``: a term's parenthesised
    alternative name (``납입최고(독촉)``; a quoted or bracketed term may have several words and
    names: ``“심한 간질 발작(중증간질)”이라 함은``) and the examples listed before ``등 X를 포함``. Only
    parentheses made of single Hangul words are read, so remarks such as ``(이하 ‘계약’이라
    합니다)`` or ``(공중케이블카 포함)`` give nothing. A name mapped to several terms keeps them all."""
    targets: dict[str, list[str]] = {}
    for name, term in _pairs(normalise(text)):
        if term not in targets.setdefault(name, []):
            targets[name].append(term)
    return tuple(ThesaurusEntry(name, tuple(terms), source) for name, terms in targets.items())
