"""Each registry of the text, web search, chunking, loader and embedder packages: what it names,
and the unknown-name error generated from those names."""

from __future__ import annotations

from pathlib import Path

import pytest

import yakgwan
from yakgwan.ingest.chunkers.markdown import MarkdownChunker
from yakgwan.ingest.chunkers.recursive import RecursiveChunker
from yakgwan.ingest.chunkers.registry import CHUNKERS, chunker_for, chunker_name_for
from yakgwan.ingest.chunkers.yakgwan_structure import YakgwanChunker
from yakgwan.config import EmbedderConfig
from yakgwan.core.errors import InputError, UnknownName
from yakgwan.core.records import Document
from yakgwan.embedders import EMBEDDERS, make_embedder
from yakgwan.ingest.loaders import unsupported_reason
from yakgwan.ingest.loaders.registry import LOADERS
from yakgwan.text.registry import DEFAULT_TOKENIZER, TOKENIZERS, make_tokenizer
from yakgwan.websearch.provider import SearchConfig
from yakgwan.websearch.registry import SEARCH_PROVIDERS, make_search

pytestmark = pytest.mark.unit

SAMPLE = Path(yakgwan.__file__).parent / "samples" / "sample_yakgwan.txt"


def _doc(text: str, kind: str = "txt") -> Document:
    return Document(doc_id="d", source="d", title="d", text=text, kind=kind, content_hash="0" * 64)


def test_tokenizer_registry() -> None:
    assert TOKENIZERS.names() == ["kiwi", "mecab", "mecab+kiwi"]
    assert DEFAULT_TOKENIZER in TOKENIZERS
    with pytest.raises(UnknownName, match=r"^unknown tokenizer 'nori'; available: kiwi, mecab, mecab\+kiwi$"):
        make_tokenizer("nori")


def test_search_provider_registry() -> None:
    assert SEARCH_PROVIDERS.names() == ["none", "tavily", "offline"]
    with pytest.raises(InputError, match=r"^unknown YAKGWAN_SEARCH 'bing'; available: none, tavily, offline$"):
        make_search(SearchConfig("bing"))
    with pytest.raises(UnknownName, match="available: none, offline, tavily"):
        SEARCH_PROVIDERS.get("bing")


def test_chunker_registry_and_choice() -> None:
    assert CHUNKERS.names() == ["yakgwan", "markdown", "recursive"]
    with pytest.raises(UnknownName, match=r"^unknown chunker 'semantic'; available: markdown, recursive, yakgwan$"):
        CHUNKERS.get("semantic")
    yakgwan_text = SAMPLE.read_text(encoding="utf-8")
    cases = [
        (_doc(yakgwan_text, kind="markdown"), "yakgwan", YakgwanChunker),  # structure wins over the kind
        (_doc("제목 없는 글입니다.", kind="html"), "markdown", MarkdownChunker),
        (_doc("  # 안내\n본문입니다."), "markdown", MarkdownChunker),
        (_doc("하늘여행사는 2010년에 설립되었습니다."), "recursive", RecursiveChunker),
    ]
    for doc, name, cls in cases:
        assert chunker_name_for(doc) == name
        assert type(chunker_for(doc)) is cls


def test_loader_registry() -> None:
    assert sorted(LOADERS.names()) == [".docx", ".htm", ".html", ".jsonl", ".markdown", ".md", ".pdf", ".text", ".txt"]
    assert str(unsupported_reason(Path("a.xyz"))) == (
        "unsupported file type '.xyz'; supported: .docx, .htm, .html, .jsonl, .markdown, .md, .pdf, .text, .txt")
    with pytest.raises(UnknownName, match="^unknown loader '.xyz'; available: .docx, .htm"):
        LOADERS.get(".xyz")


def test_embedder_registry() -> None:
    assert EMBEDDERS.names() == ["e5-small", "e5-small-int8", "e5-small-native", "openai", "hashing"]
    with pytest.raises(UnknownName, match=r"^unknown embedder 'nope'; available: e5-small, e5-small-int8, e5-small-native, hashing, openai$"):
        make_embedder(EmbedderConfig(name="nope"))
