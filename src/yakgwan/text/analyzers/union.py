"""Two analyzers' terms merged as a multiset union (each term at the larger of its two counts).

Each Korean analyzer mis-segments some words the other gets right (mecab-ko-dic reads 벌금액 as
벌 + 금액 and 골절진단비 as 골 + 절진 + 단비; kiwi reads both correctly but splits others). Taking
the union keeps every term either analyzer finds, without double-counting terms both find. Both
apply the same negation-prefix rule, so the union never adds a bare 급여 for 비급여.
"""

from __future__ import annotations

from collections import Counter
from typing import Sequence

from yakgwan.text.tokenizer import Tokenizer


class UnionTokenizer:
    def __init__(self, first: Tokenizer, second: Tokenizer) -> None:
        self.first = first
        self.second = second
        self.name = f"{first.name}+{second.name}"

    @property
    def spec(self) -> str:
        return f"union({getattr(self.first, 'spec', self.first.name)};{getattr(self.second, 'spec', self.second.name)})"

    def tokenize(self, text: str) -> list[str]:
        return merge_terms(self.first.tokenize(text), self.second.tokenize(text))

    def tokenize_many(self, texts: Sequence[str]) -> list[list[str]]:
        a = self.first.tokenize_many(texts)
        b = self.second.tokenize_many(texts)
        return [merge_terms(x, y) for x, y in zip(a, b)]


def merge_terms(a: Sequence[str], b: Sequence[str]) -> list[str]:
    """Multiset union in first-seen order: ``count(t) = max(count_a(t), count_b(t))``."""
    ca, cb = Counter(a), Counter(b)
    out: list[str] = []
    for t in list(dict.fromkeys([*a, *b])):
        out.extend([t] * max(ca[t], cb[t]))
    return out
