"""What a document prints about itself (product, product type, insurer, document type, version),
read where it prints it; what it does not print is left out; ``--meta`` wins over it in filters."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.core.records import Document, PageSpan
from yakgwan.ingest.loaders import SourceFile, load_file
from yakgwan.ingest.printed import doc_type, insurer, printed_meta, product, product_type, version
from yakgwan.store.base import DocRecord
from yakgwan.store.filters import Filter

pytestmark = pytest.mark.unit

SAMPLE = Path(__file__).resolve().parents[3] / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"


def _doc(*pages: str) -> Document:
    text, spans = "", []
    for i, page in enumerate(pages, 1):
        start = len(text)
        text += page + "\n"
        spans.append(PageSpan(i, start, len(text)))
    return Document("p.pdf", "p.pdf", "p", text, "pdf", "h", tuple(spans))


COVER = "가나다운전자보험\n약관\n판매시기: 2024년 1월\n"
TOC = "목 차\n가나다운전자보험 보통약관 ··········· 1\n제1조(목적) ·········· 1\n"
BODY = ("가나다운전자보험 보통약관\n제1관 목적 및 용어의 정의\n제1조(목적)\n이 보험계약(이하 '계약'이라 합니다)은 보험계약자(이하 "
        "'계약자'라 합니다)와 가나다손해보험(이하\n‘회사’라 합니다) 사이에 체결됩니다.\n")
LAW = "제9조(준용)\n「도로교통법」 시행일 2019년 6월 1일 이후의 사고에 적용합니다. (2020.3.1 시행)\n"


def test_a_policy_prints_its_product_insurer_and_version() -> None:
    got = printed_meta(_doc(COVER, TOC, BODY, LAW, "끝"))
    assert {k: v.value for k, v in got.items()} == {"product": "가나다운전자보험", "product_type": "운전자보험", "insurer": "가나다손해보험",
                                                    "doc_type": "약관", "version": "2024-01"}
    assert got["product"].where() == "p.1: 가나다운전자보험"  # the cover's title, over a line that says 약관
    assert got["doc_type"].where() == "p.1: 약관"
    assert got["insurer"].page == 3 and got["insurer"].where() == "p.3: 가나다손해보험(이하 ‘회사’라 합니다)"  # across a line break
    assert got["version"].where() == "p.1: 판매시기: 2024년 1월"


def test_what_the_document_does_not_print_is_left_out() -> None:
    generic = BODY.replace("가나다손해보험(이하", "보험회사(이하")
    doc = _doc("가나다운전자보험", TOC, generic, LAW, LAW, "끝")
    assert insurer(doc) is None  # the 보통약관 names the insurer only as 보험회사, and nothing else names it
    assert version(doc) is None  # the law's 시행일 on page 4 is not the 약관's version
    assert product(_doc("보통약관\n제1조(목적)\n")) is None
    assert doc_type(_doc("보험 안내\n제1조(목적)\n")) is None  # no title and no 보통약관 or 특별약관


@pytest.mark.parametrize("line, want", [
    ("개정일 2024.04.01", "2024-04-01"),
    ("시행일자 : 2023-7-1", "2023-07-01"),
    ("판매개시일 2025년 3월 2일", "2025-03-02"),
    ("이 약관은 (2023.07.01 개정) 판입니다", "2023-07-01"),
    ("적용일: 2024/10", "2024-10"),
    ("개정일 2024.13.01", None),  # no 13th month
])
def test_version_labels_and_date_forms(line: str, want: str | None) -> None:
    got = version(_doc(line))
    assert (got.value if got else None) == want


def test_the_most_specific_label_wins_and_text_without_pages_is_read_at_both_ends() -> None:
    assert version(_doc("개정일 2023.7.1\n판매시기 2024.01")).value == "2024-01"  # type: ignore[union-attr]
    doc = Document("a.txt", "a.txt", "a", "보통약관 본문 " * 500 + "\n판매시기 2022.12.1\n", "text", "h")
    assert version(doc).value == "2022-12-01" and version(doc).page is None  # type: ignore[union-attr]
    laws = Document("b.txt", "b.txt", "b", "보통약관 본문 " * 500 + "\n부칙 시행일 2022.12.1 (2020.3.1 개정)\n", "text", "h")
    assert version(laws) is None  # at the end only a 판매 label counts: a quoted law's dates are not the 약관's


def test_a_law_quoted_on_the_last_page_gives_no_version() -> None:
    appendix = "【관련 법령】\n도로교통법\n시행일 2019년 6월 1일\n(2020.3.1 개정)\n"
    assert version(_doc(COVER.replace("판매시기: 2024년 1월\n", ""), TOC, BODY, "본문", appendix)) is None
    assert version(_doc("표지", TOC, BODY, "본문", appendix + "판매개시일 2024.05\n")).value == "2024-05"  # type: ignore[union-attr]


@pytest.mark.parametrize("heading, want", [
    ("1. 보통약관", None),  # numbering alone names no product
    ("Ⅱ. 가나다운전자보험 보통약관", "가나다운전자보험"),
    ("[무배당] 가나다운전자보험 보통약관", "[무배당] 가나다운전자보험"),
    ("이 특별약관에 정하지 않은 사항은 보통약관", None),  # a sentence broken before 보통약관
    ("가나다운전자보험 보통약관 ··········· 3", None),
    ("· 외) 보통약관", None),  # a fragment: it starts with punctuation
    ("가나다(운전자 보통약관", None),  # unbalanced brackets
])
def test_what_counts_as_a_product_heading(heading: str, want: str | None) -> None:
    got = product(_doc(heading))
    assert (got.value if got else None) == want


@pytest.mark.parametrize("party, want", [
    ("가나다손해보험(이하 '회사'라고 합니다)", "가나다손해보험"),
    ("가나다 손해보험(이하 '회사'라 합니다)", None),  # only the generic last word is certain
    ("○○손해보험(이하 '회사'라 합니다)", None),  # a template's blank
    ("가나다생명(이하 “회사”라 함)", "가나다생명"),
    ("삼성화재해상보험주식회사(이하 '회사'라 합니다)", "삼성화재"),  # the lexicon's canonical name
    ("가나다손해보험주식회사(이하 '회사'라 합니다)", "가나다손해보험"),  # a legal name without 주식회사
    ("가나다상사(이하 '회사'라 합니다)", None),  # no insurer's name
])
def test_what_counts_as_the_insurers_name(party: str, want: str | None) -> None:
    got = insurer(_doc("제1조(목적)\n이 계약은 계약자와 " + party + " 사이에 체결됩니다."))
    assert (got.value if got else None) == want


def test_dates_need_number_boundaries() -> None:
    assert version(_doc("개정일 2023-12345")) is None
    assert version(_doc("판매시기 12024.01")) is None
    assert version(_doc("개정일 2024.02.30")).value == "2024-02-30"  # type: ignore[union-attr]  # a day 1-31 is read as printed
    assert version(_doc("개정일 2024.02.41")) is None


def test_the_bundled_sample_policy() -> None:
    doc = load_file(SourceFile(SAMPLE, SAMPLE.parent))[0]
    got = {k: v.value for k, v in printed_meta(doc).items()}
    assert got == {"product": "한빛안심운전자보험", "product_type": "운전자보험", "insurer": "한빛손해보험", "doc_type": "약관"}


def test_filters_read_what_was_set_at_ingest_before_what_is_printed() -> None:
    rec = DocRecord("a.pdf", "a.pdf", "제목", "pdf", "h", 3, 9, printed={"product": "가나다운전자보험", "version": "2024-01"})
    assert Filter.parse("product=가나다운전자보험").value_of(None, rec) == "가나다운전자보험"  # type: ignore[arg-type]
    assert Filter.parse("version>=2024-01").value_of(None, rec) == "2024-01"  # type: ignore[arg-type]
    assert Filter.parse("insurer=x").value_of(None, rec) is None  # type: ignore[arg-type]
    labelled = DocRecord("a.pdf", "a.pdf", "제목", "pdf", "h", 3, 9, meta={"version": "2025-02"}, printed={"version": "2024-01"})
    assert Filter.parse("version=2025-02").value_of(None, labelled) == "2025-02"  # type: ignore[arg-type]
    assert Filter.parse("product=제목").value_of(None, labelled) == "제목"  # type: ignore[arg-type]


@pytest.mark.integration
def test_the_kb_policy_prints_its_product_only(kb_policy_pdf: Path) -> None:
    """The real KB policy names its product on its cover and in the 보통약관 heading; it calls
    the insurer 보험회사, shows its name only as a logo, and prints no 판매시기 or 개정일 (the
    dates in its body are laws' and examples')."""
    got = printed_meta(load_file(SourceFile(kb_policy_pdf, kb_policy_pdf.parent))[0])
    assert {k: v.value for k, v in got.items()} == {"product": "KB스마트운전자보험", "product_type": "운전자보험", "doc_type": "약관"}
    assert got["product"].where() == "p.1: KB스마트운전자보험"


def test_a_product_summary_titles_its_cover() -> None:
    doc = _doc("가나다 튼튼건강보험 무배당2504\n상품요약서\n<Q & A>\n", "보험회사(이하 '회사'라 합니다)", "이 상품요약서는 가나다 튼튼건강보험의 주요내용")
    got = {k: v.value for k, v in printed_meta(doc).items()}
    assert got == {"product": "가나다 튼튼건강보험 무배당2504", "product_type": "건강보험", "doc_type": "상품요약서"}


@pytest.mark.parametrize("cover, want", [
    ("가나다 해외여행보험 약관\n가나다 해외여행보험 목차", "가나다 해외여행보험"),
    ("가나다 다이렉트치아보험(무배당)(25.01)\n", "가나다 다이렉트치아보험(무배당)(25.01)"),
    ("우리 회사 「가나 go 여행보험」에 가입하신 계약자님께 감사드립니다.", "가나 go 여행보험"),
    ("보험상품명 가나다 3400운전자보험 무배당  보험회사명 가나다손해보험", "가나다 3400운전자보험 무배당"),
    ("가나다주택화재보험\n약관\n", "가나다주택화재보험"),  # ends like a kind of insurance, names no insurer
    ("운전자보험\n", None),  # a kind of insurance, not a product's name
    ("가나다손해보험주식회사\n", None),  # an insurer's name
    ("· 외) 운전자보험\n", None),  # a fragment
    ("이 보험은 가나다운전자보험\n", None),  # a sentence
])
def test_what_the_cover_names_as_the_product(cover: str, want: str | None) -> None:
    got = product(_doc(cover, "본문", "본문", "본문"))
    assert (got.value if got else None) == want


def test_a_running_footer_and_a_back_cover_name_the_product() -> None:
    pages = [f"제{i}조(목적)\n본문입니다.\n{i} 가나다 든든운전자보험 무배당" for i in range(1, 9)]
    got = product(_doc("표지", *pages))
    assert got is not None and got.value == "가나다 든든운전자보험 무배당" and got.page == 2
    back = product(_doc("표지", "본문", "본문", "본문", "M E M O\n가나다 해외여행보험"))
    assert back is not None and back.value == "가나다 해외여행보험" and back.page == 5
    busy = "\n".join(["법률 조문입니다."] * 9 + ["가나다 해외여행보험"])
    assert product(_doc("표지", "본문", "본문", "본문", busy)) is None  # a full last page is no back cover


@pytest.mark.parametrize("pages, want", [
    (("표지", "한화손해보험주식회사 고객상담센터 1566-8000"), "한화손해보험"),  # the lexicon's name on the first pages
    (("표지", "보험의종목 장기손해보험\n보험회사명 가나다손해보험"), "가나다손해보험"),  # a labelled field
    (("표지", "본문", "본문", "본문", "(주)가나다화재해상보험 고객콜센터"), "가나다화재해상보험"),  # the last page, a legal name
    (("표지", "본문", "본문", "본문", "가나다손해보험 고객콜센터"), None),  # an unknown name without 주식회사
    (("표지", "○○손해보험주식회사 고객콜센터"), None),  # a placeholder
    (("표지", "보험회사는 약관을 드립니다", "손해보험 상품은 예금자보호법에 따라"), None),  # generic words in sentences
])
def test_where_else_the_insurer_is_named(pages: tuple[str, ...], want: str | None) -> None:
    got = insurer(_doc(*pages))
    assert (got.value if got else None) == want


def test_a_running_header_names_the_insurer() -> None:
    pages = [f"제{i}조(목적)\n본문입니다.\n메리츠화재 {i}" for i in range(1, 9)]
    got = insurer(_doc("표지", "목차", "목차", *pages))
    assert got is not None and got.value == "메리츠화재" and got.page == 4


@pytest.mark.parametrize("pages, want", [
    (("가나다운전자보험 약관\n",), "약관"),
    (("가나다 건강보험\n상품설명서\n",), "상품설명서"),
    (("사업방법서\n",), "사업방법서"),
    (("목차\n상품요약서 ··········· 3\n", "가나다 보통약관\n제1조(목적)\n"), "약관"),  # a contents line is no title; the structure says 약관
    (("자세한 사항은 상품설명서를 확인하세요. 이 문서는 보험 안내입니다\n",), None),  # a sentence
])
def test_the_document_type(pages: tuple[str, ...], want: str | None) -> None:
    got = doc_type(_doc(*pages))
    assert (got.value if got else None) == want


def test_product_type_from_the_product_name_else_the_title() -> None:
    named = product(_doc("가나다 해외여행자보험 약관"))
    assert product_type(_doc("x"), named).value == "해외여행보험"  # type: ignore[union-attr]
    titled = Document("t.pdf", "t.pdf", "가나다 펫보험 약관", "본문", "pdf", "h")
    assert product_type(titled, None).where() == "title: 가나다 펫보험 약관"  # type: ignore[union-attr]
    assert product_type(_doc("x"), None) is None  # the title "p" names no kind of insurance


@pytest.mark.parametrize("cover, want", [
    ("개정 2025.04.01", "2025-04-01"),
    ("2025.01.01 시행", "2025-01-01"),
    ("판매 2024.10", "2024-10"),
    ("개정된 2025.04.01", None),  # not a label
    ("가나다운전자보험 무배당2504", None),  # an unlabelled YYMM suffix is not read
    ("확인필-제2025-상품-00991(25.03.17~26.03.16)", None),
])
def test_bare_version_labels_on_the_cover(cover: str, want: str | None) -> None:
    got = version(_doc(cover))
    assert (got.value if got else None) == want
    assert version(_doc("표지", "본문", "본문", "본문", cover)) is None  # on the last page only a 판매 label with its full name counts



def test_a_cover_titled_only_by_its_kind_names_the_product_in_brackets_under_it() -> None:
    from yakgwan.ingest.printed import printed_meta

    got = printed_meta(_doc("보험약관\n(가나 프리미엄 해외여행보험)\n목 차\n제1관 목적 및 용어의 정의", "제1조(목적) 이 계약은 …"))
    assert got["product"].value == "가나 프리미엄 해외여행보험" and got["product_type"].value == "해외여행보험"


def test_a_sale_version_in_the_products_name_is_its_version_when_no_label_says_one() -> None:
    from yakgwan.ingest.printed import printed_meta

    got = printed_meta(_doc("가나손보 간편 실손의료비보장보험(무배당)(25.01)\n약관", "제1조(목적) 이 계약은 …"))
    assert got["version"].value == "2025-01" and got["version"].page == 1
    labelled = printed_meta(_doc("가나손보 간편 실손의료비보장보험(무배당)(25.01)\n판매시기: 2025.04\n약관", "제1조(목적)"))
    assert labelled["version"].value == "2025-04"  # a labelled version wins
    assert "version" not in printed_meta(_doc("가나 운전자보험(13.40)\n약관", "제1조(목적)"))  # no month 40


def test_a_names_qualifiers_wrapped_onto_the_next_cover_line_belong_to_it() -> None:
    from yakgwan.ingest.printed import printed_meta

    got = printed_meta(_doc("가나 다이렉트치아보험\n(무배당)(24.07)\n약관\n고객과 함께합니다.", "제1조(목적) 이 계약은 …"))
    assert got["product"].value == "가나 다이렉트치아보험(무배당)(24.07)" and got["version"].value == "2024-07"
    plain = printed_meta(_doc("가나 다이렉트치아보험\n약관\n(문의: 1588-0000)", "제1조(목적) 이 계약은 …"))
    assert plain["product"].value == "가나 다이렉트치아보험"  # a line that is not only qualifiers is not joined


def test_a_sale_start_label_dates_the_version() -> None:
    from yakgwan.ingest.printed import printed_meta

    got = printed_meta(_doc("보험약관\n가나 펫보험\n판매개시 2024. 3. 1\n※ 이 약관은 …", "제1조(목적) 이 계약은 …"))
    assert got["version"].value == "2024-03-01" and got["version"].line == "판매개시 2024. 3. 1"
