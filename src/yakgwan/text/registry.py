"""The tokenizer registry: every analyser by name, and the default one.

``make_tokenizer`` is cheap: an analyser loads its model or dictionary on first use. An unknown
name raises ``UnknownName`` listing the registered names.
"""

from __future__ import annotations

from typing import Callable

from yakgwan.core.registry import Registry
from yakgwan.text.analyzers.kiwi import KiwiTokenizer
from yakgwan.text.analyzers.mecab import MecabTokenizer
from yakgwan.text.analyzers.union import UnionTokenizer
from yakgwan.text.tokenizer import Tagger, Tokenizer, TokenizerConfig


def _union(config: TokenizerConfig) -> Tokenizer:
    """mecab-ko and kiwi terms merged (see ``text.analyzers.union``)."""
    return UnionTokenizer(MecabTokenizer(config), KiwiTokenizer(config))


TOKENIZERS: Registry[Callable[[TokenizerConfig], Tokenizer]] = Registry("tokenizer")
TOKENIZERS.register("kiwi", KiwiTokenizer)
TOKENIZERS.register("mecab", MecabTokenizer)
TOKENIZERS.register("mecab+kiwi", _union)
DEFAULT_TOKENIZER = "mecab+kiwi"


def make_tokenizer(name: str = DEFAULT_TOKENIZER, config: TokenizerConfig | None = None) -> Tokenizer:
    """Builds a registered tokenizer (cheap: the analyser loads on first use)."""
    return TOKENIZERS.get(name)(config or TokenizerConfig())


TAGGER = "kiwi"  # the analyser whose tags question analysis reads (NNP, SL, SN …)


def tagger_of(tokenizer: Tokenizer) -> Tagger | None:
    """The tagging analyser inside ``tokenizer`` (itself, or a part of a union), so that question
    analysis reuses the model the index's tokenizer already loads; None when it has none."""
    if isinstance(tokenizer, UnionTokenizer):
        return tagger_of(tokenizer.first) or tagger_of(tokenizer.second)
    return tokenizer if getattr(tokenizer, "name", None) == TAGGER and isinstance(tokenizer, Tagger) else None


def make_tagger() -> Tagger:
    """The registered analyser that tags question words (cheap: it loads on first use)."""
    tagger = make_tokenizer(TAGGER)
    if not isinstance(tagger, Tagger):
        raise TypeError(f"tokenizer {TAGGER!r} gives no tagged morphemes")
    return tagger
