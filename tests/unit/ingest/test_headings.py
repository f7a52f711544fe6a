"""Headings of a 약관 in the forms insurers print them, and the structure read from them: where
each 약관 begins, parts of the 보통약관, the appended laws, 별표 tables outside any 약관."""

from __future__ import annotations

import pytest

from yakgwan.core.records import Document
from yakgwan.ingest.chunkers.headings import (
    explicit_title,
    heading_above,
    law_heading,
    numbered_heading,
    repeated_lines,
    statute_name,
)
from yakgwan.ingest.chunkers.yakgwan_structure import YakgwanChunker, classify_line

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("line, name", [
    ("1-3. 교통상해 후유장해(3~100%)(운전자용) 특별약관", "교통상해 후유장해(3~100%)(운전자용) 특별약관"),
    ("Ⅱ. 가나 보장 특별약관", "가나 보장 특별약관"),
    ("【보통약관】", "보통약관"),
    ("[ 보통약관 ]", "보통약관"),
    ("보 통 약 관", "보통약관"),
    ("운동위험 특별약관(I)(전문등반 등)", "운동위험 특별약관(I)(전문등반 등)"),
    ("가나 보장 추가특별약관Ⅱ", "가나 보장 추가특별약관Ⅱ"),
    ("특별약관 일반조항", "특별약관 일반조항"),
    # a sentence, an article and a division are not titles
    ("이 특별약관에서 정하지 않은 사항은 보통약관을 따릅니다.", None),
    ("제1조(목적) 이 특별약관은", None),
    ("제2절 보통약관의 보장", None),
    ("회사는 보험금을 지급합니다", None),
])
def test_an_explicit_title_names_its_yakgwan_without_its_numbering(line: str, name: str | None) -> None:
    assert explicit_title(line) == name


def test_a_numbered_heading_is_a_short_line_under_a_heading_number_not_a_list_item() -> None:
    assert numbered_heading("3. 보험료 자동납입") == "보험료 자동납입"
    assert numbered_heading("1. 대인 보장【갱신계약】") == "대인 보장【갱신계약】"
    assert numbered_heading("1. 회사는 보험금을 지급합니다.") is None  # a sentence
    assert numbered_heading("2. 입원일당: 1일당 3만원") is None  # a list item with an amount
    assert numbered_heading("보험료 자동납입") is None  # no heading number
    assert numbered_heading("제3조(보험금의 지급사유)") is None


def test_the_appended_laws_heading_and_a_statutes_name_on_its_own_line() -> None:
    assert law_heading("약관에서 인용된 법령") and law_heading("참고 : 약관에서 인용된 법·규정") and law_heading("[부록] 관련 법규")
    assert not law_heading("관련 법규") and not law_heading("이 약관에서 인용된 법령은 다음과 같습니다.")
    assert statute_name("【법규3】민법") == "민법"
    assert statute_name("「의료법」") == "의료법"
    assert statute_name("[법규1] 개인정보 보호법") == "개인정보 보호법"
    assert statute_name("국민건강보험법 시행령") == "국민건강보험법 시행령"
    assert statute_name("보험업법에 따라 지급합니다.") is None


def test_the_heading_above_a_first_article_passes_divisions_parts_running_headers_and_an_introduction() -> None:
    lines = ["가나 보험 약관 3", "1종(실속형)", "보통약관", "제1절. 공통조항", "제1관. 목적 및 용어의 정의", "제1조(목적)"]
    lines = lines + ["본문"] + lines[:1] * 5  # the first line recurs on every page: a running header
    found = heading_above(lines, 5, repeated_lines(lines))
    assert found is not None and found.explicit and found.line == 1 and found.name == "1종(실속형) 보통약관"
    intro = ["다 보장 특별약관", "다 보장 특별약관은 여행 중 입은 손해를", "보상하는 상품입니다.", "제1관 일반사항", "제1조(보장종목)"]
    found = heading_above(intro, 4)
    assert found is not None and (found.name, found.line) == ("다 보장 특별약관", 0)
    # a sentence above a 제1조 with no 약관 introducing itself: no heading
    assert heading_above(["라 특별약관", "회사는 다음을 보상합니다.", "제1조(보장종목)"], 2) is None


def test_classify_line_reads_dotted_parts_and_divisions() -> None:
    assert classify_line("제1관. 목적 및 용어의 정의").kind == "part"
    assert classify_line("제1절. 공통조항").kind == "division"
    assert classify_line("약관에서 인용된 법령").kind == "law_head"


POLICY = "\n".join([
    "가나다 운전자보험",
    "보통약관",
    "제1절. 공통조항",
    "제1관. 목적 및 용어의 정의",
    "제1조(목적)",
    "이 계약은 위험을 보장합니다.",
    "제2조(용어의 정의)",
    "용어의 뜻은 다음과 같습니다.",
    "제2절. 보장조항",
    "1. 대인 형사합의 보장",
    "제1조(보험금의 지급사유)",
    "회사는 형사합의금을 지급합니다.",
    "가 보장 특별약관",
    "제1조(보험금의 지급사유)",
    "회사는 【별표】에 정한 사고로 보험금을 지급합니다.",
    "제2조(준용규정)",
    "이 특별약관에 정하지 않은 사항은 보통약관을 따릅니다.",
    "【별표】 중대법규 위반 사고",
    "1\t신호 위반",
    "2\t중앙선 침범",
    "나 보장 특별약관",
    "나 보장 특별약관은 여행 중 입은 손해를",
    "보상하는 상품입니다.",
    "제1조(보험금의 지급사유)",
    "회사는 손해를 보상합니다.",
    "약관에서 인용된 법령",
    "【법규1】상법",
    "제651조(고지의무위반으로 인한 계약해지)",
    "보험계약 당시에 보험계약자가 중요한 사항을 고지하지 아니한 때에는 계약을 해지할 수 있다.",
    "【법규2】민법",
    "제27조(실종의 선고)",
    "부재자의 생사가 5년간 분명하지 아니한 때에는 실종선고를 하여야 한다.",
    "주요 민원 사례",
    "사례1 보험금 청구가 늦어진 경우",
])


def _chunks():
    doc = Document(doc_id="p.txt", source="p.txt", title="p", text=POLICY, kind="txt", content_hash="0" * 64)
    return YakgwanChunker(max_chars=200).split(doc)


def test_structure_of_a_policy_printed_in_another_insurers_forms() -> None:
    chunks = _chunks()
    places = [(c.yakgwan, c.article, c.kind) for c in chunks]
    # the 보통약관's coverage parts restart the numbering under numbered headings: still the 보통약관
    assert ("보통약관", "제1조", "article") in places and ("보통약관", "제2조", "article") in places
    restarted = [c for c in chunks if "형사합의금" in c.text]
    assert [c.yakgwan for c in restarted] == ["보통약관"]
    assert {c.yakgwan for c in chunks if "손해를 보상합니다" in c.text} == {"나 보장 특별약관"}  # its title above an introduction
    names = {c.yakgwan for c in chunks if c.yakgwan}
    assert names == {"보통약관", "가 보장 특별약관", "나 보장 특별약관"}


def test_a_table_stands_outside_any_yakgwan_after_the_one_it_serves() -> None:
    table = [c for c in _chunks() if c.kind == "table"]
    assert len(table) == 1 and table[0].yakgwan is None and table[0].article is None
    assert table[0].follows == "가 보장 특별약관" and "중앙선 침범" in table[0].text


def test_appended_laws_are_laws_of_their_statute_never_articles_of_the_last_rider() -> None:
    laws = [c for c in _chunks() if c.kind == "law"]
    assert laws and all(c.yakgwan is None for c in laws)
    by_article = {c.article: c.section for c in laws if c.article}
    assert by_article == {"제651조": "상법", "제27조": "민법"}
    assert not any(c.yakgwan == "나 보장 특별약관" and "실종" in c.text for c in _chunks())
    cases = [c for c in _chunks() if "사례1" in c.text]  # an appendix after the laws is not a law
    assert cases and all(c.kind == "text" and c.yakgwan is None for c in cases)


def _split(lines: list[str]):
    doc = Document(doc_id="q.txt", source="q.txt", title="q", text="\n".join(lines), kind="txt", content_hash="1" * 64)
    return YakgwanChunker(max_chars=200).split(doc)


def test_a_title_alone_on_a_divider_page_names_the_articles_after_an_introduction() -> None:
    chunks = _split([
        "가입 안내",
        "제1조(안내의 목적)",  # a guide's own numbering before the policy
        "이 안내는 가입자를 돕습니다.",
        "보통약관",  # a divider page
        "이 상품은 보험회사가 피보험자의 손해를 보상하는 상품입니다.",
        "상해와 질병을 함께 보장하며 자동으로 갱신됩니다.",
        "기본형 실손의료보험【갱신계약】",
        "(【갱신계약】은 자동갱신으로 운영합니다)",
        "제1관 일반사항",
        "제1조(보장종목)",
        "회사가 보상하는 내용은 다음과 같습니다.",
    ])
    assert {c.yakgwan for c in chunks if "보상하는 내용" in c.text} == {"보통약관"}
    assert {c.yakgwan for c in chunks if "가입자를 돕습니다" in c.text} == {None}


def test_a_title_above_its_own_contents_names_the_first_article() -> None:
    lines = ["개인용자동차보험 보통약관", "- 목 차 -", "제1편 용어의 정의"]
    lines += [f"제{n}조 조문 제목 {n}" for n in range(1, 60)]  # contents entries without leaders
    lines += ["제1편 용어의 정의", "제1조(용어의 정의) 이 약관에서 사용하는 용어의 뜻은 다음과 같습니다."]
    chunks = _split(lines)
    assert {c.yakgwan for c in chunks if "용어의 뜻은" in c.text} == {"보통약관"}


def test_a_title_far_above_or_already_followed_names_no_later_first_article() -> None:
    chunks = _split(["가 보장 특별약관", "제1조(지급사유)", "회사는 지급합니다.", "제2조(준용)", "보통약관을 따릅니다.",
                     "안내문 본문입니다.", "제1조(안내)", "안내의 본문입니다."])
    assert not any(c.yakgwan == "가 보장 특별약관" and c.article == "제1조" and "안내의 본문" in c.text for c in chunks)
    filler = [f"본문 문장 {n}번째 줄은 설명입니다." for n in range(45)]
    chunks = _split(["보통약관", *filler, "제1조(목적)", "이 안내의 목적입니다."])
    assert {c.yakgwan for c in chunks if "안내의 목적" in c.text} == {None}  # too far: more than STANDING lines of text


def test_an_article_quoted_in_a_box_inside_an_article_is_not_an_article_of_the_yakgwan() -> None:
    chunks = _split([
        "보통약관",
        "제17조(보험계약의 성립)",
        "① 계약은 청약과 승낙으로 이루어집니다.",
        "제18조(청약의 철회)",
        "① 계약자는 보험증권을 받은 날부터 15일 이내에 그 청약을 철회할 수 있습니다.",
        "관 련 법 규 금융소비자보호에 관한 법률",  # a box inside the article, quoting a law
        "제46조(청약의 철회) ① 일반금융소비자는 청약을 철회할 수 있다.",
        "제2조(정의) 이 법에서 사용하는 용어의 뜻은 다음과 같다.",
        "② 청약철회는 서면 등을 발송한 때 효력이 발생합니다.",
        "제19조(약관교부 및 설명의무)",
        "① 회사는 약관의 중요한 내용을 설명하여야 합니다.",
        "제46조(소멸시효)",
        "보험금청구권은 3년간 행사하지 않으면 소멸시효가 완성됩니다.",
    ])
    article = {c.text.split("\n")[0][:12]: c.article for c in chunks if c.yakgwan == "보통약관"}
    assert {c.article for c in chunks if "발송한 때 효력" in c.text} == {"제18조"}
    assert {c.article for c in chunks if "중요한 내용을 설명" in c.text} == {"제19조"}
    assert {c.article for c in chunks if "3년간 행사" in c.text} == {"제46조"}  # the same number, later, in sequence
    assert "제46조" not in {c.article for c in chunks if "일반금융소비자는" in c.text}, article


def test_a_gap_in_the_numbering_is_an_article_not_a_quotation() -> None:
    chunks = _split(["가 보장 특별약관", "제1조(지급사유)", "회사는 지급합니다.", "제2조(삭제)",
                     "제5조(준용)", "보통약관을 따릅니다.", "제6조(기타)", "그 밖의 사항입니다."])
    assert {c.article for c in chunks if "보통약관을 따릅니다" in c.text} == {"제5조"}
    assert {c.article for c in chunks if "그 밖의 사항" in c.text} == {"제6조"}
