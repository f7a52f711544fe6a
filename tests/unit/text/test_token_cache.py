"""The token cache: a text is analysed once per analyser spec, across processes sharing the file."""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from yakgwan.core.records import sha256_hex
from yakgwan.text.token_cache import CachingTokenizer, TokenCache


class CountingTokenizer:
    """Splits on spaces and counts the texts it was asked to analyse."""

    name = "counting"

    def __init__(self, spec: str = "counting-1") -> None:
        self._spec = spec
        self.seen: list[str] = []

    @property
    def spec(self) -> str:
        return self._spec

    def tokenize(self, text: str) -> list[str]:
        self.seen.append(text)
        return text.split()

    def tokenize_many(self, texts: Sequence[str]) -> list[list[str]]:
        return [self.tokenize(t) for t in texts]


def test_terms_are_read_back_and_a_text_is_analysed_once(tmp_path: Path) -> None:
    inner = CountingTokenizer()
    cached = CachingTokenizer(inner, TokenCache.in_folder(tmp_path))
    texts = ["보험금의 지급사유", "보험금의 청구", "보험금의 지급사유"]
    assert cached.tokenize_many(texts) == [["보험금의", "지급사유"], ["보험금의", "청구"], ["보험금의", "지급사유"]]
    assert inner.seen == ["보험금의 지급사유", "보험금의 청구"]  # a repeated text is analysed once
    # another process (a new wrapper over the same file) reads them without analysing
    again = CountingTokenizer()
    assert CachingTokenizer(again, TokenCache.in_folder(tmp_path)).tokenize_many(["보험금의 청구", "새 조항"]) == [["보험금의", "청구"], ["새", "조항"]]
    assert again.seen == ["새 조항"]
    assert (tmp_path / "tokens.sqlite").is_file()


def test_another_analyser_spec_never_reads_them(tmp_path: Path) -> None:
    CachingTokenizer(CountingTokenizer("counting-1"), TokenCache.in_folder(tmp_path)).tokenize_many(["분쟁의 조정"])
    other = CountingTokenizer("counting-2")
    cached = CachingTokenizer(other, TokenCache.in_folder(tmp_path))
    assert cached.tokenize_many(["분쟁의 조정"]) == [["분쟁의", "조정"]]
    assert other.seen == ["분쟁의 조정"]
    assert cached.spec == "counting-2" and cached.name == "counting"


def test_a_question_is_never_kept(tmp_path: Path) -> None:
    store = TokenCache.in_folder(tmp_path)
    inner = CountingTokenizer()
    assert CachingTokenizer(inner, store).tokenize("소멸시효 기간") == ["소멸시효", "기간"]
    assert store.get_many("counting-1", [sha256_hex("소멸시효 기간")]) == {}
