"""Kiwi (kiwipiepy, with the model from the ``kiwipiepy-model`` package) as a ``Tokenizer``."""

from __future__ import annotations

from typing import Any, Sequence

from yakgwan.core.errors import ProviderError
from yakgwan.text.terms import apply_domain_terms, terms_from_morphs
from yakgwan.text.tokenizer import Morph, TokenizerConfig
from yakgwan.messages import msg

_COMPOUND_MIN_LEN = 3
_PART_TAGS = frozenset({"NNG", "NNP"})


def _base_tag(tag: str) -> str:
    """Kiwi marks irregular/regular stems (VV-I, VA-R); the Sejong tag is the part before '-'."""
    return tag.split("-", 1)[0] if tag[:2] in ("VV", "VA", "VX", "XS") else tag


# Kiwi's multi-word dictionary (proper nouns of several words, 급성 스트레스 장애 as one NNP) is
# not loaded: it doubles the cold start (model and first analysis 1.9 s -> 0.8 s on 2 cores) and
# keeps such names whole, where an index wants their words (스트레스, 장애) as terms of their own.
MULTI_WORD_DICT = False


class KiwiTokenizer:
    """Kiwi analyser; loads its model on first use (under 1 s; see ``MULTI_WORD_DICT``).

    Kiwi keeps most compounds whole (해외여행/NNG) and does not report their parts, so with
    ``compound_parts`` the parts come from Kiwi's own next-best analysis of the word alone
    (``analyze(word, top_n=3)``): the first analysis made only of nouns that spell the word.
    Results are cached per word.
    """

    name = "kiwi"

    def __init__(self, config: TokenizerConfig | None = None, num_workers: int | None = None) -> None:
        if num_workers is not None and num_workers < 0:
            raise ValueError(f"num_workers must be 0 or more. Currently, it is {num_workers}")
        self.config = config or TokenizerConfig()
        self.num_workers = num_workers
        self._kiwi: Any = None
        self._parts: dict[str, tuple[tuple[str, str], ...]] = {}

    @property
    def spec(self) -> str:
        """Identifies analyser, version and options (an index built with one spec needs it)."""
        version = getattr(self._module(), "__version__", "?")
        return f"kiwi-{version}:{self.config.describe()},multi={int(MULTI_WORD_DICT)}"

    @staticmethod
    def _module() -> Any:
        try:
            import kiwipiepy
        except ImportError as exc:
            raise ProviderError(msg("kiwi.missing")) from exc
        return kiwipiepy

    def load(self) -> None:
        if self._kiwi is None:
            kiwipiepy = self._module()
            try:
                self._kiwi = kiwipiepy.Kiwi(num_workers=self.num_workers, load_multi_dict=MULTI_WORD_DICT)
            except Exception as exc:
                raise ProviderError(msg("kiwi.load", why=str(exc))) from exc

    def _compound_parts(self, word: str) -> tuple[tuple[str, str], ...]:
        if word not in self._parts:
            found: tuple[tuple[str, str], ...] = ()
            for tokens, _score in self._kiwi.analyze(word, top_n=3):
                if len(tokens) > 1 and all(t.tag in _PART_TAGS for t in tokens) and "".join(t.form for t in tokens) == word:
                    found = tuple((t.form, t.tag) for t in tokens)
                    break
            self._parts[word] = found
        return self._parts[word]

    def _morphs(self, text: str, tokens: Sequence[Any]) -> list[Morph]:
        morphs = []
        for t in tokens:
            tag = _base_tag(str(t.tag))
            parts: tuple[tuple[str, str], ...] = ()
            if self.config.compound_parts and tag in _PART_TAGS and len(t.form) >= _COMPOUND_MIN_LEN:
                parts = self._compound_parts(t.form)
            morphs.append(Morph(t.form, tag, t.start, t.start + t.len, parts))
        return apply_domain_terms(text, morphs)

    def tagged(self, text: str) -> list[Morph]:
        """Kiwi's morphemes of ``text`` with its tags as it gives them (no Sejong normalisation,
        no compound parts, no domain terms): what question analysis reads."""
        self.load()
        return [Morph(t.form, str(t.tag), t.start, t.start + t.len) for t in self._kiwi.tokenize(text)]

    def tokenize(self, text: str) -> list[str]:
        self.load()
        if not text.strip():
            return []
        return terms_from_morphs(self._morphs(text, self._kiwi.tokenize(text)), self.config)

    def tokenize_many(self, texts: Sequence[str]) -> list[list[str]]:
        self.load()
        texts = list(texts)
        out: list[list[str]] = []
        for text, tokens in zip(texts, self._kiwi.tokenize(texts)):
            out.append(terms_from_morphs(self._morphs(text, tokens), self.config) if text.strip() else [])
        return out
