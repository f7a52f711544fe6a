"""The evidence pack document: every section present, quotes with citations, HTML escaped."""

from __future__ import annotations

import pytest

from yakgwan.appeal.render import DISCLAIMER, to_html, to_markdown

pytestmark = pytest.mark.unit

RESULT = {
    "denial": {"insurer": "KB손해보험", "product": "KB스마트운전자보험", "policy_no": "1-2023-1", "claim_no": None, "claim_items": ["벌금 특별약관"],
               "amount_won": 6000000, "dates": {"accident_date": "2024년 11월 2일"}, "source": "n.txt"},
    "issue_tree": [{"reason": "음주 <script>운전</script>", "cited": ["벌금 특별약관 제2조 제8호"],
                    "sub_issues": [{"kind": "exclusion", "question": "면책 요건이 해당하는가?", "clauses": ["벌금 특별약관 제2조 제8호"]}]}],
    "gap_analysis": [{"requirement": "제2조 | 8호", "shown": "음주", "to_close": "측정 자료"}],
    "recommended_actions": ["근거를 요청합니다."],
    "success_probability": {"band": "LOW", "rationale": "기준 16.7%", "base_rate": 0.1667, "decided_by": []},
    "evidence_pack": [{"claim": "회사가 든 조항", "provenance": {"doc": "p.pdf", "yakgwan": "벌금 특별약관", "article": "제2조 제8호", "page": 69,
                                                          "chunk_id": "abc", "quote": "음주운전 중 사고"}}],
    "documents_to_collect": ["청구서(회사 양식)"],
}


def test_markdown_pack() -> None:
    md = to_markdown(RESULT)
    for heading in ("부지급 통지 요약", "쟁점과 약관 근거", "근거 조항", "요건과 입증 현황", "수집할 서류", "권고 조치", "재심사 성공 가능성"):
        assert heading in md
    assert "- **청구금액**: 6,000,000원" in md and "- [ ] 청구서(회사 양식)" in md
    assert "벌금 특별약관 제2조 제8호, 69쪽" in md and "> 음주운전 중 사고" in md
    assert "제2조 \\| 8호" in md  # a pipe inside a table cell is escaped
    assert "**LOW** (낮음)" in md and "추정" not in md and md.rstrip().endswith(DISCLAIMER)


def test_the_pack_in_english_keeps_what_it_quotes_as_written() -> None:
    md = to_markdown(RESULT, "en")
    for heading in ("The denial notice in short", "Issues and the policy's grounds", "The clauses (quoted)", "Documents to collect", "Chance that a review succeeds"):
        assert heading in md
    assert "- **Amount claimed**: KRW 6,000,000" in md and "벌금 특별약관 제2조 제8호, p. 69" in md and "> 음주운전 중 사고" in md
    assert "**LOW** (low)" in md and "estimate" not in md and "it is not legal advice" in md and "부지급 통지 요약" not in md
    assert "<sub>Source: " in md and "chunk" not in md  # the document by its name; no internal ids
    assert 'lang="en"' in to_html(RESULT, "en")


def test_html_pack_is_escaped_and_self_contained() -> None:
    page = to_html(RESULT)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert 'lang="ko"' in page and "Noto Sans KR" in page and "http" not in page
    assert "<blockquote>음주운전 중 사고</blockquote>" in page and "법률 자문이 아닙니다" in page


def test_pdf_pack_renders_korean_not_tofu(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pypdfium2 as pdfium

    from yakgwan.appeal.render import to_pdf

    result = dict(RESULT, evidence_pack=[dict(RESULT["evidence_pack"][0], provenance=dict(RESULT["evidence_pack"][0]["provenance"],
                                                                                      quote="① 회사는 【용어】 뇌․내장 제2조 8. 음주운전"))])
    out = tmp_path / "pack.pdf"
    assert to_pdf(result, out) == 0  # every character is in the embedded font
    pdf = pdfium.PdfDocument(str(out))
    text = "".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
    flat = "".join(text.split())
    for expected in ("보험금부지급재심사근거자료", "벌금특별약관제2조제8호,69쪽", "①회사는【용어】뇌·내장제2조8.음주운전", "법률자문이아닙니다"):
        assert expected in flat, expected
    import numpy as np

    image = np.asarray(pdf[0].render(scale=1).to_pil().convert("L"))
    dark = int((image < 128).sum())
    assert dark > 5000  # glyphs drawn, not empty boxes or blank space (text extraction alone cannot tell)
    assert to_pdf(dict(RESULT, recommended_actions=["이모지 🙂"]), tmp_path / "e.pdf") == 1  # a missing glyph is counted, drawn as □


FINDING = {"kind": "part_missing", "text": "「자전거 특별약관 제2조 제8호」의 제8호는 약관에 없습니다", "effect": "decisive", "by": "rules",
           "notice": "술에 <b>취한</b> 상태 … 제2조 제8호에 해당하여 지급하지 않습니다.",
           "policy": {"doc": "p.pdf", "yakgwan": "자전거 특별약관", "article": "제2조", "page": 111, "chunk_id": "c2", "quote": "제2조(보험금을 지급하지 않는 사유)"}}


def test_every_format_sets_the_notice_beside_the_policy(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import pypdfium2 as pdfium

    from yakgwan.appeal.render import COMPARE_TITLE, to_pdf

    stated = dict(FINDING, kind="proviso_not_addressed", effect="stated", notice=None)  # one side only: not a comparison
    result = dict(RESULT, findings=[FINDING, stated])
    md = to_markdown(result)
    assert COMPARE_TITLE in md and "- **없는 항·호 인용 (HIGH의 근거)** 「자전거 특별약관 제2조 제8호」의 제8호는 약관에 없습니다" in md
    assert "  - 약관 원문 (자전거 특별약관 제2조, 111쪽): 제2조(보험금을 지급하지 않는 사유)" in md and "다루지 않은 단서" not in md
    page = to_html(result)
    assert "<th>안내문</th><th>약관 원문</th>" in page and "&lt;b&gt;취한&lt;/b&gt;" in page and "<q>제2조(보험금을 지급하지 않는 사유)</q>" in page
    assert COMPARE_TITLE not in to_markdown(RESULT)  # no findings, no section
    out = tmp_path / "pack.pdf"
    assert to_pdf(result, out) == 0
    pdf = pdfium.PdfDocument(str(out))
    flat = "".join("".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf))).split())
    assert "안내문과약관원문대조" in flat and "약관원문(자전거특별약관제2조,111쪽):제2조(보험금을지급하지않는사유)" in flat
