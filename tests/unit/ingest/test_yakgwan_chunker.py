"""YakgwanChunker: structure, provenance and span invariants on the bundled sample and the KB policy."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from yakgwan.retrieval.clause_map import table_citations

import yakgwan
from yakgwan.ingest.chunkers.yakgwan_structure import (
    YakgwanChunker,
    classify_line,
    looks_like_yakgwan,
    split_span,
)
from yakgwan.core.records import Document, PageSpan

SAMPLE = Path(yakgwan.__file__).parent / "samples" / "sample_yakgwan.txt"


def _doc(text: str, pages: tuple[PageSpan, ...] = ()) -> Document:
    return Document(doc_id="policy.txt", source="policy.txt", title="예시", text=text, kind="txt",
                    content_hash="0" * 64, pages=pages)


def _check_invariants(doc: Document, chunks) -> None:
    assert chunks
    for c in chunks:
        assert doc.text[c.start:c.end] == c.text
        assert c.text == c.text.strip() and c.text
    assert len({c.chunk_id for c in chunks}) == len(chunks)
    starts = [c.start for c in chunks]
    assert starts == sorted(starts)
    assert all(a.end <= b.start for a, b in zip(chunks, chunks[1:]))


@pytest.fixture(scope="module")
def sample_doc() -> Document:
    return _doc(SAMPLE.read_text(encoding="utf-8"))


@pytest.mark.unit
def test_sample_is_recognised_and_plain_text_is_not(sample_doc):
    assert looks_like_yakgwan(sample_doc.text)
    assert not looks_like_yakgwan("하늘여행사는 2010년에 설립되었습니다.\n제주 여행 상품을 판매합니다.")


@pytest.mark.unit
def test_sample_yakgwan_names_and_invariants(sample_doc):
    chunks = YakgwanChunker(max_chars=400).split(sample_doc)
    _check_invariants(sample_doc, chunks)
    names = {c.yakgwan for c in chunks}
    assert names == {None, "보통약관", "교통사고처리지원금 특별약관", "벌금 특별약관"}


@pytest.mark.unit
def test_special_terms_restart_at_article_1(sample_doc):
    chunks = YakgwanChunker().split(sample_doc)
    firsts = [c for c in chunks if c.article == "제1조"]
    assert [c.yakgwan for c in firsts] == ["보통약관", "교통사고처리지원금 특별약관", "벌금 특별약관"]
    fine = next(c for c in firsts if "벌금" in (c.yakgwan or ""))
    assert fine.article_title == "보험금의 지급사유" and fine.kind == "article"
    assert fine.text.startswith("벌금 특별약관")  # the 약관 name is searchable in its first article


@pytest.mark.unit
def test_paragraph_definition_and_part(sample_doc):
    chunks = YakgwanChunker(max_chars=400).split(sample_doc)
    by = {(c.yakgwan, c.article, c.paragraph, c.kind): c for c in chunks}
    second = by[("보통약관", "제4조", "②", "paragraph")]
    assert "부담보" in second.text and second.article_title == "보험금을 지급하지 않는 사유"
    assert second.part == "제2관 보험금의 지급"
    box = next(c for c in chunks if c.kind == "definition")
    assert box.section == "운전" and box.text.startswith("【운전】") and box.article == "제2조"
    head = by[("보통약관", "제4조", "①", "article")]
    assert head.text.startswith("제4조(보험금을 지급하지 않는 사유)")


@pytest.mark.unit
def test_short_article_is_one_chunk(sample_doc):
    chunks = YakgwanChunker().split(sample_doc)
    art = [c for c in chunks if c.yakgwan == "보통약관" and c.article == "제6조"]
    assert len(art) == 1 and art[0].kind == "article" and art[0].paragraph is None


@pytest.mark.unit
def test_table_keeps_rows_stands_outside_any_yakgwan_and_is_cited_by_its_clause(sample_doc):
    chunks = YakgwanChunker().split(sample_doc)
    table = next(c for c in chunks if c.kind == "table")
    assert table.yakgwan is None and table.article is None  # a 별표 is an appendix, not a 조 of the 특약 before it
    assert table.section.startswith("【별표】")
    assert "2\t중앙선 침범\t보장" in table.text.splitlines()
    cited = table_citations(chunks)
    citing = [c for c in chunks if table.chunk_id in cited.get(c.chunk_id, ())]
    assert citing and {c.yakgwan for c in citing} == {"교통사고처리지원금 특별약관"}


@pytest.mark.unit
def test_pages_come_from_page_spans():
    text = "벌금 특별약관\n제1조(보험금의 지급사유)\n벌금을 지급합니다.\n제2조(준용규정)\n보통약관을 따릅니다."
    cut = text.index("제2조")
    doc = _doc(text, (PageSpan(1, 0, cut - 1), PageSpan(2, cut, len(text))))
    chunks = YakgwanChunker().split(doc)
    assert [(c.article, c.pages) for c in chunks] == [("제1조", (1,)), ("제2조", (2,))]


@pytest.mark.unit
def test_table_of_contents_is_not_body():
    toc = "목 차\n보통약관\n제1조(목적) ······· 1\n제2조(정의) ······· 1\n벌금 특별약관 ······ 2\n제1조(보험금의 지급사유) ······ 2\n"
    body = ("보통약관\n제1조(목적)\n이 계약은 상해를 보장합니다.\n제2조(정의)\n용어를 정합니다.\n"
            "벌금 특별약관\n제1조(보험금의 지급사유)\n벌금을 지급합니다.")
    doc = _doc(toc + body)
    chunks = YakgwanChunker().split(doc)
    _check_invariants(doc, chunks)
    assert chunks[0].kind == "toc" and chunks[0].yakgwan is None and chunks[0].end < len(toc)
    arts = [(c.yakgwan, c.article) for c in chunks if c.kind == "article"]
    assert arts == [("보통약관", "제1조"), ("보통약관", "제2조"), ("벌금 특별약관", "제1조")]


@pytest.mark.unit
def test_numbering_restart_without_title_opens_unnamed_yakgwan():
    text = "보통약관\n제1조(목적)\n가.\n제2조(정의)\n나.\n제1조(보험금의 지급사유)\n다."
    chunks = YakgwanChunker().split(_doc(text))
    assert [(c.yakgwan, c.article) for c in chunks] == [("보통약관", "제1조"), ("보통약관", "제2조"), (None, "제1조")]


@pytest.mark.unit
@pytest.mark.parametrize("line, kind, label", [
    ("제3조(보험금의 지급사유)", "article", "제3조"),
    ("제29조의2(위법계약의 해지)", "article", "제29조의2"),
    ("제27조(계약의 부활(효력회복))", "article", "제27조"),
    ("제3조(보험금의 지급사유)에 정한 상해로", "body", None),
    ("제3조(보험금의 지급사유) 제1항 제2호에서", "body", None),
    ("제2관 보험금의 지급", "part", "제2관"),
    ("제1조(목적) ······················· 1", "toc", None),
    ("② 회사는 보험금을 지급합니다.", "para", "②"),
    ("➁ 회사는 보험금을 지급합니다.", "para", "②"),
    ("【보험료 할증】", "box", "보험료 할증"),
    ("【골절분류표II】", "table", "골절분류표II"),
    ("<별표1> 장해분류표", "table", "<별표1> 장해분류표"),
    ("[별표]", "table", "[별표]"),
    ("교통사고처리지원금(Ⅰ) 특별약관", "title", "교통사고처리지원금(Ⅰ) 특별약관"),
    ("자전거교통사고 처리지원금 특별약관(동승자 포함)", "title", "자전거교통사고 처리지원금 특별약관(동승자 포함)"),
    ("이 특별약관에 정하지 않은 사항은 보통약관을 따릅니다.", "body", None),
    # a heading followed by its first sentence on the same line (text, HTML and DOCX 약관)
    ("제3조(준용규정) 이 특별약관에 정하지 않은 사항은 보통약관을 따릅니다.", "article", "제3조"),
    ("제10조(보험금의 청구) 가입자는 보험금을 청구할 수 있습니다.", "article", "제10조"),
    ("제4조(정의) 은행이란 은행법에 따른 은행을 말합니다.", "article", "제4조"),
    ("제3조(보험금의 지급사유)의 규정에도 불구하고", "body", None),
    ("제32조(보험료의 환급) 에 따른 보험료를 계약자에게 지급합니다.", "body", None),  # as in the KB policy
    ("제5조(보험금의 지급절차) 및 제6조(주소변경통지)에 따릅니다.", "body", None),
    ("제2관 보험금의 지급 ················· 2", "toc", None),
    ("성명 ..........", "body", None),  # a form field, not a 목차 entry
])
def test_classify_line(line, kind, label):
    tag = classify_line(line)
    assert tag.kind == kind and tag.label == label


@pytest.mark.unit
def test_split_span_cuts_at_lines_without_tiny_tail():
    text = "\n".join(f"{i}. " + "가" * 95 for i in range(1, 10))
    pieces = split_span(text, 0, len(text), 300)
    assert "".join(text[a:b] + "\n" for a, b in pieces).strip() == text
    assert all(text[a].isdigit() for a, _ in pieces)
    assert all(b - a <= 375 for a, b in pieces)


@pytest.mark.unit
def test_heading_with_text_on_the_same_line_opens_the_article():
    text = ("벌금 특별약관\n제1조(보험금의 지급사유) 회사는 벌금을 지급합니다.\n"
            "제2조(정의) 은행이란 은행법에 따른 은행을 말합니다.\n"
            "제3조(준용규정) 이 특별약관에 정하지 않은 사항은 보통약관을 따릅니다.")
    doc = _doc(text)
    chunks = YakgwanChunker().split(doc)
    _check_invariants(doc, chunks)
    assert [(c.yakgwan, c.article, c.article_title) for c in chunks] == [
        ("벌금 특별약관", "제1조", "보험금의 지급사유"), ("벌금 특별약관", "제2조", "정의"),
        ("벌금 특별약관", "제3조", "준용규정")]


_FORM_ARTICLE = ("보통약관\n제1조(목적)\n이 계약은 상해를 보장합니다.\n"
                 "벌금 특별약관\n제1조(보험금의 지급사유)\n"
                 "① 회사는 피보험자가 벌금을 부담하는 경우 이 특별약관에 따라 벌금을 지급합니다.\n[청구서]\n{form}\n"
                 "② 회사는 2천만원을 한도로 보상합니다.\n제2조(준용규정)\n보통약관을 따릅니다.")


@pytest.mark.unit
@pytest.mark.parametrize("form", [
    "성명 ..........\n주소 ..........",
    "1급 ··········· 100\n2급 ··········· 80\n3급 ··········· 60",  # names no 조, 관 or 약관
])
def test_dot_leaders_in_the_body_are_not_table_of_contents(form):
    doc = _doc(_FORM_ARTICLE.format(form=form))
    chunks = YakgwanChunker(max_chars=100, min_head=0).split(doc)
    _check_invariants(doc, chunks)
    assert not [c for c in chunks if c.kind == "toc"]
    second = [c for c in chunks if "2천만원" in c.text]
    assert [(c.yakgwan, c.article, c.paragraph) for c in second] == [("벌금 특별약관", "제1조", "②")]
    last = [c for c in chunks if c.article == "제2조"]
    assert [(c.yakgwan, c.article_title) for c in last] == [("벌금 특별약관", "준용규정")]


@pytest.mark.unit
def test_table_of_contents_inside_the_body_keeps_the_yakgwan():
    toc = "목 차\n벌금 특별약관 ········ 5\n제1조(보험금의 지급사유) ········ 5\n제2조(준용규정) ········ 6\n"
    text = ("보통약관\n제1조(목적)\n① 이 계약은 상해를 보장합니다.\n" + toc +
            "② 회사는 보험금을 지급합니다.\n제2조(정의)\n용어를 정합니다.\n"
            "벌금 특별약관\n제1조(보험금의 지급사유)\n벌금을 지급합니다.")
    doc = _doc(text)
    chunks = YakgwanChunker(max_chars=100, min_head=0).split(doc)
    _check_invariants(doc, chunks)
    assert [(c.text, c.yakgwan) for c in chunks if c.kind == "toc"] == [(toc.strip(), None)]
    kept = [(c.yakgwan, c.article, c.paragraph) for c in chunks if c.kind != "toc"]
    assert kept == [("보통약관", "제1조", None), ("보통약관", "제1조", "②"), ("보통약관", "제2조", None),
                    ("벌금 특별약관", "제1조", None)]


@pytest.mark.unit
def test_long_line_is_cut_by_length_and_keeps_provenance():
    sentence = "회사는 피보험자가 교통사고로 상해를 입은 경우 보험금을 지급합니다. "
    text = ("보통약관\n제1조(목적)\n이 계약은 상해를 보장합니다.\n제2조(보험금의 지급사유)\n"
            "① " + sentence * 150 + "\n② 회사는 보험금을 지급합니다.")
    doc = _doc(text)
    chunks = YakgwanChunker().split(doc)
    _check_invariants(doc, chunks)
    long = [c for c in chunks if c.article == "제2조" and c.paragraph == "①"]
    assert len(long) >= 8 and all(len(c.text) <= 800 for c in long)
    assert all(c.yakgwan == "보통약관" and c.article_title == "보험금의 지급사유" for c in long)
    assert all(c.text.endswith("다.") for c in long)  # cut at sentence ends
    assert max(len(c.text) for c in chunks) <= 800


@pytest.mark.unit
def test_split_span_cuts_a_single_long_line_by_length():
    text = "가" * 2500
    pieces = split_span(text, 0, len(text), 800)
    assert "".join(text[a:b] for a, b in pieces) == text and all(b - a <= 800 for a, b in pieces)


@pytest.mark.unit
def test_constructor_names_bad_values():
    with pytest.raises(ValueError, match="max_chars is 10"):
        YakgwanChunker(max_chars=10)
    with pytest.raises(ValueError, match="min_head is 900"):
        YakgwanChunker(max_chars=800, min_head=900)


@pytest.fixture(scope="module")
def kb_chunks(kb_policy_pdf):
    from yakgwan.ingest.loaders.pdf import PdfLoader

    doc = PdfLoader().load(kb_policy_pdf, kb_policy_pdf.parent)[0]
    started = time.process_time()  # this process's CPU time: the other test worker shares the cores
    chunks = YakgwanChunker().split(doc)
    return doc, chunks, time.process_time() - started


@pytest.mark.integration
def test_kb_policy_structure(kb_chunks):
    doc, chunks, seconds = kb_chunks
    _check_invariants(doc, chunks)
    assert seconds < 2.0
    names = [n for n in dict.fromkeys(c.yakgwan for c in chunks) if n]
    assert names[0] == "보통약관" and len(names) >= 46
    assert all(n == "보통약관" or "특약" in n or "특별약관" in n for n in names)
    assert all(c.pages for c in chunks)
    assert max(len(c.text) for c in chunks) <= 1000


@pytest.mark.integration
def test_kb_policy_provenance(kb_chunks):
    _, chunks, _ = kb_chunks
    fine = [c for c in chunks if c.yakgwan == "벌금 특별약관" and c.article == "제1조"]
    assert fine and fine[0].article_title == "보험금의 지급사유" and 69 in fine[0].pages
    # the same 제3조 exists in many 특별약관; each keeps its own name
    third = Counter(c.yakgwan for c in chunks if c.article == "제3조")
    assert len(third) >= 20 and all(third)
    toc = [c for c in chunks if c.kind == "toc"]
    assert toc and all(c.yakgwan is None and set(c.pages) <= {2, 3, 4} for c in toc)
    table = [c for c in chunks if c.kind == "table" and c.section == "<별표1> 장해분류표"]
    assert table and table[0].yakgwan is None  # an appendix, cited by name from the clauses
    cited = table_citations(chunks)
    assert any(table[0].chunk_id in cited.get(c.chunk_id, ()) for c in chunks if c.yakgwan == "보통약관")
    assert any(c.kind == "definition" and c.section == "보험료 할증" for c in chunks)
