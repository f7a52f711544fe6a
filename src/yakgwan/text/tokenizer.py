"""The ``Tokenizer`` protocol of lexical (BM25) search, the options every analyser shares, and
the ``Morph`` record an analyser turns its output into (the term rules in ``text.terms`` read
only ``Morph`` records, so both analysers obey the same rules)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence, runtime_checkable


@runtime_checkable
class Tokenizer(Protocol):
    """Turns text into index terms for lexical search; the same call is used for queries and
    documents."""

    name: str

    @property
    def spec(self) -> str:
        """Analyzer, version and options: an index built with another spec is re-tokenised."""
        ...

    def tokenize(self, text: str) -> list[str]: ...

    def tokenize_many(self, texts: Sequence[str]) -> list[list[str]]: ...


@runtime_checkable
class Tagger(Protocol):
    """Gives the morphemes of a text with the analyser's own part-of-speech tags (question
    analysis reads proper nouns, foreign words and years from them)."""

    def tagged(self, text: str) -> list["Morph"]: ...


@dataclass(frozen=True)
class TokenizerConfig:
    """Options shared by every analyser.

    ``compound_parts``: also emit the parts of compound nouns. ``attach_prefixes``: the prefix
    rule of ``text.terms`` (turning it off reproduces what peers' analysers do, for comparison
    only). ``min_part_len``: shortest compound part emitted, in characters.
    """

    compound_parts: bool = True
    attach_prefixes: bool = True
    min_part_len: int = 2

    def __post_init__(self) -> None:
        if self.min_part_len < 1:
            raise ValueError(f"min_part_len must be at least 1. Currently, it is {self.min_part_len}")

    def describe(self) -> str:
        return f"parts={int(self.compound_parts)},prefix={int(self.attach_prefixes)},minpart={self.min_part_len}"


@dataclass(frozen=True)
class Morph:
    """One morpheme: ``form`` (the lemma for stems), a Sejong tag, and ``text[start:end]``.
    ``parts`` is the analyser's own split of a compound, as (form, tag) pairs."""

    form: str
    tag: str
    start: int
    end: int
    parts: tuple[tuple[str, str], ...] = ()
