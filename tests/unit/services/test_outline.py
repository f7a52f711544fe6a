"""The outline of an index, from hand-built chunks and records: 약관 in document order with their
pages and 조, appendices grouped, identity with its source, how the pages were read, an unknown
--doc refused with the documents held, and the JSON's keys exactly as docs/outline.md gives them."""

from __future__ import annotations

import json

import pytest

from yakgwan.core.errors import InputError
from yakgwan.core.records import Chunk
from yakgwan.messages import msg, said
from yakgwan.services.outline import (SCHEMA, Label, appendix_entries, document_outline, identity, outline_of, page_range, page_spans,
                                      pick_documents, yakgwan_entries)
from yakgwan.store import DocRecord

pytestmark = pytest.mark.unit


def chunk(start: int, pages: tuple[int, ...], yakgwan: str | None = None, article: str | None = None, title: str | None = None,
          kind: str = "text", section: str | None = None, part: str | None = None, doc: str = "a.pdf") -> Chunk:
    return Chunk(f"{doc}#{start}", doc, doc, "A", "…", start, start + 1, pages, kind, section, yakgwan, part, article, title)


BASE, FINE = "보통약관", "벌금 특별약관"
CHUNKS = [  # shuffled: the outline follows ``start``, not the order the index holds them in
    chunk(50, (9,), FINE, "제2조", "보험금을 지급하지 않는 사유"),
    chunk(10, (3,), BASE, "제1조", "목적", part="제1관 목적 및 용어의 정의"),
    chunk(0, (2,), kind="text", section="목차"),  # a headed section under no 약관: an appendix of kind "section"
    chunk(20, (3, 4), BASE, "제2조", "용어의 정의"),
    chunk(25, (4,), BASE, None, None, kind="definition", section="보험기간"),  # a 【용어】 box outside any 조: the 약관's glossary
    chunk(26, (4,), BASE, None, None, kind="definition", section="보험가입금액"),
    chunk(30, (5,), BASE, "제2조", None),  # the same 조 again, on a later page: one entry spanning both
    chunk(35, (6, 7), BASE, None, None, kind="table", section="<별표1> 장해분류표"),
    chunk(40, (8,), FINE, "제1조", "보험금의 지급사유"),
    chunk(60, (10,), FINE, None, None, kind="table", section="<별표1> 장해분류표"),  # same heading, another 약관: another appendix
    chunk(70, (11,), None, None, None, kind="law", section="도로교통법"),
    chunk(71, (12,), None, "제44조", "술에 취한 상태에서의 운전 금지", kind="law"),  # a statute's 조: continues the statute before it
    chunk(80, (13,), None, "제3조", "보상"),  # a 조 under no 약관 title
]


def record(doc: str = "a.pdf", **fields: object) -> DocRecord:
    return DocRecord(doc, doc, "A", "pdf", "h", 14, len(CHUNKS), **fields)  # type: ignore[arg-type]


def test_yakgwan_in_document_order_with_pages_and_articles_each_once() -> None:
    entries = yakgwan_entries(CHUNKS)
    assert [(y.name, y.kind, y.first_page, y.last_page) for y in entries] == [(BASE, "base", 3, 5), (FINE, "rider", 8, 9), (None, "unnamed", 13, 13)]
    base = entries[0]
    assert [(a.article, a.title, a.first_page, a.last_page) for a in base.articles] == [("제1조", "목적", 3, 3), ("제2조", "용어의 정의", 3, 5)]
    assert base.articles[0].part == "제1관 목적 및 용어의 정의"
    assert [a.article for a in entries[1].articles] == ["제1조", "제2조"]


def test_appendices_grouped_by_kind_heading_and_yakgwan_in_page_order() -> None:
    got = [(a.kind, a.title, a.yakgwan, a.first_page, a.last_page, a.chunks, a.items) for a in appendix_entries(CHUNKS, toc_pages=(1,))]
    assert got == [
        ("toc", None, None, 1, 1, 0, ()),  # the 목차 the index does not keep, from the record
        ("section", "목차", None, 2, 2, 1, ()),
        ("glossary", None, BASE, 4, 4, 2, ("보험기간", "보험가입금액")),
        ("table", "<별표1> 장해분류표", BASE, 6, 7, 1, ()),
        ("table", "<별표1> 장해분류표", FINE, 10, 10, 1, ()),
        ("law", "도로교통법", None, 11, 12, 2, ()),
    ]


def test_identity_set_at_ingest_wins_over_what_is_printed() -> None:
    rec = record(meta={"insurer": "KB손해보험"}, printed={"insurer": "케이비", "product": "KB운전자"}, printed_from={"product": "p.2: KB운전자 보통약관"})
    got = dict(identity(rec))
    assert got["insurer"] == Label("KB손해보험", "meta") and got["product"] == Label("KB운전자", "printed", "p.2: KB운전자 보통약관")
    assert got["version"] is None and list(got) == ["insurer", "product", "product_type", "doc_type", "version"]


def test_how_the_pages_were_read_and_the_pages_nothing_covers() -> None:
    warning = said(msg("outline.held_none"), None)  # any catalogue message, kept tagged as the ingest keeps its warnings
    rec = record(reading={"total_pages": 14, "ocr_pages": [4, 3], "unread_pages": [14], "textless_pages": [], "toc_pages": [1],
                          "ocr_engine": "tesseract", "ocr_confidence": 88.5, "warnings": [warning]})
    d = document_outline(rec, CHUNKS, name="내 약관.pdf")
    assert (d.pages.total, d.pages.ocr, d.pages.unread, d.pages.uncovered) == (14, (3, 4), (14,), ())
    assert d.pages.ocr_engine == "tesseract" and d.pages.ocr_confidence == 88.5
    assert d.warnings_in("ko") == ["(문서 없음)"] and d.warnings_in("en") == ["(no documents)"]
    few = document_outline(record(), CHUNKS[:2])  # an index built before the reading was kept: its page count, the pages no chunk covers
    assert few.pages.total == 14 and few.pages.uncovered == (1, 2, *range(4, 9), *range(10, 15))


def test_an_unknown_doc_is_refused_naming_it_and_the_documents_held() -> None:
    docs = {"a.pdf": record("a.pdf"), "dir/b.pdf": record("dir/b.pdf")}
    assert pick_documents(docs, None) == ["a.pdf", "dir/b.pdf"] and pick_documents(docs, "b.pdf") == ["dir/b.pdf"]
    assert pick_documents(docs, "내 약관.pdf", {"a.pdf": "내 약관.pdf"}) == ["a.pdf"]
    with pytest.raises(InputError) as got:
        pick_documents(docs, "c.pdf")
    assert got.value.localized("en") == "'c.pdf': no such document in this index; it holds: a.pdf, dir/b.pdf"
    with pytest.raises(InputError, match=r"it holds: \(no documents\)"):
        pick_documents({}, "c.pdf")


def test_page_helpers() -> None:
    assert page_spans([8, 1, 2, 3, 5, 7, 3]) == "1–3, 5, 7–8" and page_spans([]) == ""
    assert page_range([]) == (None, None) and page_range(CHUNKS[:2]) == (3, 9)


def test_the_json_keys_are_exactly_the_documented_ones() -> None:
    out = outline_of("idx", [*CHUNKS, chunk(1, (1,), BASE, "제1조", doc="other.pdf")], {"a.pdf": record(), "other.pdf": record("other.pdf")}, "a.pdf")
    j = json.loads(json.dumps(out.to_json("en")))
    assert list(j) == ["schema", "index", "documents"] and j["schema"] == SCHEMA == "yakgwan.outline/1" and len(j["documents"]) == 1
    d = j["documents"][0]
    assert list(d) == ["doc", "name", "source", "title", "kind", "chunks", "identity", "pages", "yakgwan", "appendices", "warnings"]
    assert d["chunks"] == len(CHUNKS)  # the other document's chunk is not counted
    assert list(d["identity"]) == ["insurer", "product", "product_type", "doc_type", "version"]
    assert list(d["pages"]) == ["total", "ocr", "unread", "textless", "uncovered", "ocr_engine", "ocr_confidence"]
    assert list(d["yakgwan"][0]) == ["name", "kind", "first_page", "last_page", "articles"]
    assert list(d["yakgwan"][0]["articles"][0]) == ["article", "title", "part", "first_page", "last_page"]
    assert list(d["appendices"][0]) == ["kind", "title", "yakgwan", "first_page", "last_page", "chunks", "items"]
    assert json.loads(json.dumps(outline_of("idx", [], {}).to_json("ko"))) == {"schema": SCHEMA, "index": "idx", "documents": []}
