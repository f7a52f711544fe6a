"""Markdown and length-based chunking: spans are exact, sections carry their header path."""

from __future__ import annotations

import pytest

from yakgwan.ingest.chunkers.markdown import MarkdownChunker, header_sections
from yakgwan.ingest.chunkers.recursive import RecursiveChunker, split_spans
from yakgwan.core.records import Document

pytestmark = pytest.mark.unit

MD = """# 여행자 보험 안내

하늘여행사는 여행자 보험을 제공합니다. 모든 패키지 상품에 기본 보험이 포함됩니다.

## 기본 보험

### 보장 내용

| 보장 항목 | 보장 금액 |
|---|---|
| 해외 의료비 | 3,000만원 |

## 프리미엄 보험

```
# 코드 안의 샵은 헤더가 아닙니다
```
프리미엄 보험은 선택 가입입니다. 보험료는 1인 2만원입니다.
"""


def _doc(text: str, kind: str = "markdown") -> Document:
    return Document(doc_id="d.md", source="d.md", title="여행자 보험 안내", text=text, kind=kind, content_hash="h")


def test_header_sections_paths_and_fences() -> None:
    secs = header_sections(MD, 3)
    names = [s[2] for s in secs]
    assert names == [
        "여행자 보험 안내",
        "여행자 보험 안내 > 기본 보험",
        "여행자 보험 안내 > 기본 보험 > 보장 내용",
        "여행자 보험 안내 > 프리미엄 보험",
    ]
    assert secs[-1][1] == len(MD)


def test_markdown_chunks_are_exact_spans_and_bare_headers_merge() -> None:
    doc = _doc(MD)
    chunks = MarkdownChunker().split(doc)
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text
    # "## 기본 보험" has no body of its own: it is merged into its first subsection
    assert any(c.text.startswith("## 기본 보험") and "해외 의료비" in c.text for c in chunks)
    assert chunks[-1].section == "여행자 보험 안내 > 프리미엄 보험"
    assert len({c.chunk_id for c in chunks}) == len(chunks)


def test_long_section_is_split_with_overlap() -> None:
    body = " ".join(f"문장{i}은 보험 약관의 내용입니다." for i in range(200))
    doc = _doc("# 제목\n\n" + body)
    chunks = MarkdownChunker(max_chars=300, overlap=50).split(doc)
    assert len(chunks) > 5
    assert all(len(c.text) <= 300 for c in chunks)
    assert all(c.section == "제목" for c in chunks)
    # consecutive spans overlap (the next starts before the previous ends)
    assert all(b.start < a.end for a, b in zip(chunks, chunks[1:]))


def test_split_spans_hand_example() -> None:
    text = "가나다. 라마바. 사아자."
    # 14 chars, windows of 8: each cut falls after the last ". " inside the window; the trailing
    # space is trimmed, no overlap. With windows of 9 the last two sentences fit together.
    assert split_spans(text, 0, len(text), 8, 0) == [(0, 4), (5, 9), (10, 14)]
    assert split_spans(text, 0, len(text), 9, 0) == [(0, 4), (5, 14)]


def test_split_spans_rejects_bad_sizes() -> None:
    with pytest.raises(ValueError, match="max_chars"):
        split_spans("abc", 0, 3, 10, 10)


def test_recursive_chunker_identical_texts_get_distinct_ids() -> None:
    doc = _doc("같은 문장입니다.\n\n" * 3, kind="text")
    chunks = RecursiveChunker(max_chars=12, overlap=0).split(doc)
    assert len(chunks) == 3
    assert len({c.chunk_id for c in chunks}) == 3
    assert all(c.text == "같은 문장입니다." for c in chunks)
