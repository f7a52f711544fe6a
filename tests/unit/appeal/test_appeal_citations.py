"""Clause citations: parsing "…특별약관 제2조 제8호" and resolving 약관 names exactly."""

from __future__ import annotations

import pytest

from yakgwan.appeal.citations import normalise_name, parse_clause_refs, resolve_yakgwan

pytestmark = pytest.mark.unit

KNOWN = ["보통약관", "벌금 특별약관", "가족벌금 특별약관", "자동차사고 변호사선임비용 특별약관", "자전거사고 변호사선임비용 특별약관",
         "교통사고처리지원금(Ⅰ) 특별약관", "교통사고처리지원금(Ⅱ) 특별약관", "뇌․내장수술비 특별약관", "깁스치료비 특별약관"]


def test_parse_full_citations() -> None:
    text = "귀하의 청구는 벌금 특별약관 제2조 제8호에 따라 지급하지 않습니다.\n또한 보통약관 제5조 제1항 제8호 가목을 적용합니다."
    a, b = parse_clause_refs(text)
    assert (a.article, a.paragraph, a.item, a.subitem) == ("제2조", None, "제8호", None)
    assert a.yakgwan.endswith("벌금 특별약관") and resolve_yakgwan(a.yakgwan, KNOWN) == "벌금 특별약관"
    assert a.raw.endswith("벌금 특별약관 제2조 제8호")
    assert (b.yakgwan, b.label) == ("보통약관", "제5조 제1항 제8호 가목")
    assert text[a.start : a.start + 3] == "제2조"


def test_parse_variants() -> None:
    refs = parse_clause_refs("「교통사고처리지원금(Ⅰ) 특별약관」 제3조의2 ② 및 제7조에 의하여")
    assert [(r.yakgwan, r.label) for r in refs] == [("교통사고처리지원금(Ⅰ) 특별약관", "제3조의2 제2항"), ("교통사고처리지원금(Ⅰ) 특별약관", "제7조")]
    assert parse_clause_refs("깁스치료비 특약의 제1조(보험금의 지급사유)")[0].yakgwan == "깁스치료비 특약"
    assert parse_clause_refs("약관에 따라 지급이 어렵습니다.") == []
    law, own = parse_clause_refs("도로교통법 제44조 위반으로 보통약관 제13조")
    assert (law.statute, law.yakgwan, own.statute, own.yakgwan) == ("도로교통법", None, None, "보통약관")
    joined = parse_clause_refs("보통약관 제13조 및 제15조 제1항 제1호에 따라\n제7조")
    assert [(r.yakgwan, r.label) for r in joined] == [("보통약관", "제13조"), ("보통약관", "제15조 제1항 제1호"), (None, "제7조")]
    titled = parse_clause_refs("벌금 특별약관 제2조(보험금을 지급하지 않는 사유) 제8호")[0]
    assert (titled.label, titled.title) == ("제2조 제8호", "보험금을 지급하지 않는 사유")


def test_normalise_and_resolve() -> None:
    assert normalise_name("벌금 특약") == "벌금특별약관" == normalise_name("벌금특별약관")
    assert normalise_name("교통사고처리지원금(Ⅱ) 특별약관") == "교통사고처리지원금(II)특별약관"
    assert resolve_yakgwan("벌금 특약", KNOWN) == "벌금 특별약관"  # not 가족벌금
    assert resolve_yakgwan("교통사고처리지원금(II) 특약", KNOWN) == "교통사고처리지원금(Ⅱ) 특별약관"
    assert resolve_yakgwan("뇌·내장수술비 특별약관", KNOWN) == "뇌․내장수술비 특별약관"  # another middle dot
    assert resolve_yakgwan("변호사선임비용 특약", KNOWN) is None  # two 특약 fit: ambiguous, never a guess
    assert resolve_yakgwan("실손의료비 특별약관", KNOWN) is None
    assert resolve_yakgwan("이번 청구는 가족벌금 특별약관", KNOWN) == "가족벌금 특별약관"
    assert resolve_yakgwan("귀하의 깁스치료비 특약", KNOWN) == "깁스치료비 특별약관"


def test_parts_cited_after_an_article_take_its_article() -> None:
    refs = parse_clause_refs("벌금 특별약관 제1조 제1항 제1호, 제2호 및 같은 조 제3항 제2호에 따라. 제4항은 무관합니다 제5호")
    assert [(r.yakgwan, r.label) for r in refs] == [
        ("벌금 특별약관", "제1조 제1항 제1호"), ("벌금 특별약관", "제1조 제1항 제2호"), ("벌금 특별약관", "제1조 제3항 제2호")]
    # a bare 항 or 호 that no joiner or "같은 조" ties to an article is no citation
    assert [r.label for r in parse_clause_refs("제4항은 무관합니다")] == []
    # the dingbat circled digits some 특약 print their 항 with
    (r,) = parse_clause_refs("자동차사고부상보장(운전자) 특별약관 제2조 ➁ 제2호")
    assert r.label == "제2조 제2항 제2호"


def test_loose_names_resolve_by_their_core() -> None:
    known = [*KNOWN, "교통사고처리지원금(Ⅰ) 특별약관", "교통사고처리지원금(Ⅱ) 특별약관", "가족교통사고처리지원금(Ⅰ) 특별약관",
             "자전거교통사고 처리지원금 특별약관(동승자 제외)", "자전거교통사고 처리지원금 특별약관(동승자 포함)", "탈구,신경손상,압착손상진단위로금 특별약관"]
    assert resolve_yakgwan("교통사고처리지원금 2", known) == "교통사고처리지원금(Ⅱ) 특별약관"  # the variant written as a digit
    assert resolve_yakgwan("가족교통사고처리지원금 1", known) == "가족교통사고처리지원금(Ⅰ) 특별약관"
    assert resolve_yakgwan("자전거교통사고처리지원금(동승자제외)", known) == "자전거교통사고 처리지원금 특별약관(동승자 제외)"
    assert resolve_yakgwan("탈구진단위로금 특약", known) == "탈구,신경손상,압착손상진단위로금 특별약관"  # words left out
    assert resolve_yakgwan("교통사고처리지원금 특약", known) is None  # three variants: not guessed


def test_a_law_is_a_law_however_a_notice_writes_it() -> None:
    """A statute's article is never taken for a clause of the policy: in brackets, with 상 or a
    parenthesis after the name, and for the next article joined to it."""
    for text in ("「도로교통법」 제44조", "도로교통법상 제44조", "도로교통법(제44조)", "교통사고처리 특례법 시행령 제2조", "도로교통법 제44조 제1항에 따라",
                 "상법 제651조", "약관의 규제에 관한 법률 제5조", "금융소비자 보호에 관한 법률 제19조"):
        refs = parse_clause_refs(text)
        assert len(refs) == 1 and refs[0].statute is not None and refs[0].yakgwan is None, (text, refs)
    # a word that ends in 법 and names no law: the article is the policy's
    for text in ("보험금 청구 방법(제5조)", "특별약관 「보장방법」 제3조", "보험금 지급 기준 및 방법(제7조 제1항)", "지급 방법상 제2조", "위법 제3조"):
        refs = parse_clause_refs(text)
        assert len(refs) == 1 and refs[0].statute is None, (text, refs)
    law, joined = parse_clause_refs("도로교통법 제44조 및 제148조의2를 위반")
    assert (law.statute, joined.statute, joined.article) == ("도로교통법", "도로교통법", "제148조의2")
    own, after = parse_clause_refs("보통약관 제13조 및 제15조")  # a 약관's joined article stays the 약관's
    assert (own.statute, after.statute, after.yakgwan) == (None, None, "보통약관")
    # the law's own name, never the words of the sentence before it
    named = {text: [r.statute for r in parse_clause_refs(text) if r.statute] for text in (
        "회사는 약관의 규제에 관한 법률 제5조에 따라", "보통약관 제2조 및 약관의 규제에 관한 법률 제5조에 따라", "금융소비자 보호에 관한 법률 제19조",
        "「도로교통법」 제44조 제1항", "상법 제651조")}
    assert named == {"회사는 약관의 규제에 관한 법률 제5조에 따라": ["약관의 규제에 관한 법률"], "보통약관 제2조 및 약관의 규제에 관한 법률 제5조에 따라": ["약관의 규제에 관한 법률"],
                     "금융소비자 보호에 관한 법률 제19조": ["금융소비자 보호에 관한 법률"], "「도로교통법」 제44조 제1항": ["도로교통법"], "상법 제651조": ["상법"]}
    from yakgwan.appeal.result import laws_cited

    assert laws_cited("「도로교통법」 제44조 제1항 및 제148조의2, 벌금 특별약관 제2조 제8호") == ["도로교통법 제44조 제1항", "도로교통법 제148조의2"]


def test_a_long_line_of_citations_is_read_in_linear_time() -> None:
    """A law's name is looked for just before each article, not over the whole line: twice the
    words before 40 articles take about twice the time (a search over the whole line, which this
    replaced, grew faster and took minutes on 3,000 words). Timed as a ratio, each side the best of
    two runs, so that a slow or busy machine does not fail it; 60 s bounds it outright."""
    import time

    def seconds(words: int) -> float:
        line = " ".join(["보험금을"] * words) + " " + " ".join(f"제{i}조" for i in range(1, 41)) + "에 따라 보험금을 지급하지 않습니다."
        best = float("inf")
        for _ in range(2):
            start = time.perf_counter()
            refs = parse_clause_refs(line)
            best = min(best, time.perf_counter() - start)
            assert len(refs) == 40
        return best

    short, long = seconds(750), seconds(1500)
    assert long / short < 3.0 and long < 60.0, (short, long)  # linear: about 2; a search that grows with the square: about 4


def test_names_with_commas_in_parentheses_and_articles_written_without_je() -> None:
    (r,) = parse_clause_refs("형사합의 보장은 대인형사합의실손비Ⅲ(중대법규위반,42일미만,운전자용) 특별약관 제1조 제1항 제1호의")
    assert r.yakgwan is not None and r.yakgwan.endswith("대인형사합의실손비Ⅲ(중대법규위반,42일미만,운전자용) 특별약관") and r.label == "제1조 제1항 제1호"
    (r,) = parse_clause_refs("항공기·수하물 지연 특약 1조 1항 3호는")
    assert (r.yakgwan, r.label) == ("항공기·수하물 지연 특약", "제1조 제1항 제3호")
    # with no 제, an article is read only where a 항 or 호 follows ("3조" alone is not one), and a law's stays the law's
    assert parse_clause_refs("2025. 3조") == [] and [(r.statute, r.yakgwan, r.label) for r in parse_clause_refs("도로교통법 44조 2항")] == [("도로교통법", None, "제44조 제2항")]
    (r,) = parse_clause_refs("흉터 특약(상해흉터복원수술비Ⅱ) 제2조 제1항은")
    assert r.yakgwan == "흉터 특약(상해흉터복원수술비Ⅱ)"


def test_a_section_titled_only_tokbyeol_yakgwan_is_no_name_a_tokyak_resolves_to() -> None:
    """A document can title a part just "특별약관"; "… 지연 특약" must find the 특약 that is meant, not that title."""
    known = ["보통약관", "특별약관", "항공기 및 수하물 지연비용 특별약관", "여행 중 휴대품손해 특별약관(분실 제외)"]
    assert resolve_yakgwan("항공기·수하물 지연 특약", known) == "항공기 및 수하물 지연비용 특별약관"
    assert resolve_yakgwan("으로 접수하신 항공기·수하물 지연 특약", known) == "항공기 및 수하물 지연비용 특별약관"
    assert resolve_yakgwan("휴대품 특약", known) == "여행 중 휴대품손해 특별약관(분실 제외)"
    assert resolve_yakgwan("특약", known) is None


def test_the_clause_a_claim_stands_on_is_found_however_the_policy_titles_it() -> None:
    """"보험금의 지급사유" (생명·상해), "보상하는 손해" (손해보험), "보장종목별 보상내용" (실손)."""
    from types import SimpleNamespace

    from yakgwan.appeal.notice import parse_notice
    from yakgwan.appeal.retrieve import coverage_clauses
    from yakgwan.core.records import Chunk

    def chunk(cid: str, name: str, article: str, title: str) -> Chunk:
        text = f"{article}({title}) 회사는 손해를 보상합니다."
        return Chunk(cid, "p.pdf", "p.pdf", "t", text, 0, len(text), yakgwan=name, article=article, article_title=title)

    chunks = [chunk("a", "항공기 및 수하물 지연비용 특별약관", "제1조", "보상하는 손해"), chunk("b", "항공기 및 수하물 지연비용 특별약관", "제2조", "보상하지 않는 손해")]
    policy = SimpleNamespace(names=("보통약관", "항공기 및 수하물 지연비용 특별약관"), chunks=chunks,
                             article_chunks=lambda name, article: [c for c in chunks if c.yakgwan == name and c.article == article])
    notice = parse_notice("한별손해보험 안내\n청구 담보 : 항공기·수하물 지연 특약\n\n부지급 사유\n수하물이 분실되어 보상하지 않습니다.\n", "n.txt")
    (cc,) = coverage_clauses(notice, policy)  # type: ignore[arg-type]
    assert cc.yakgwan == "항공기 및 수하물 지연비용 특별약관" and [c.chunk_id for c in cc.chunks] == ["a"]


def test_an_article_joined_after_a_proviso_keeps_its_source() -> None:
    """"교특법 제3조 제2항 단서 및 제4조": 제4조 is the same law's, not a clause of the policy."""
    assert [(r.statute, r.label) for r in parse_clause_refs("교특법 제3조 제2항 단서 및 제4조에 따라")] == [("교특법", "제3조 제2항"), ("교특법", "제4조")]
    assert [(r.yakgwan, r.label) for r in parse_clause_refs("보통약관 제3조 제1항 단서 및 제5조")] == [("보통약관", "제3조 제1항"), ("보통약관", "제5조")]


def test_a_short_name_several_tokyak_share_is_read_as_the_claimed_one_among_them() -> None:
    from types import SimpleNamespace

    from yakgwan.appeal.notice import DenialReason
    from yakgwan.appeal.retrieve import cited_clauses

    names = ("보통약관", "휴대품(휴대폰 제외) 손해(분실제외) 특별약관", "휴대품손해(분실제외) 특별약관", "항공기 지연 특별약관")
    policy = SimpleNamespace(names=names, article_chunks=lambda name, article: [])
    (ref,) = parse_clause_refs("휴대품 특약 제4조 제8호는")
    assert resolve_yakgwan("휴대품 특약", names) is None  # two 특약 fit it
    (cc,) = cited_clauses(DenialReason("…", None, (ref,)), policy, ["휴대품손해(분실제외) 특별약관"])  # type: ignore[arg-type]
    assert cc.yakgwan == "휴대품손해(분실제외) 특별약관"
    (cc,) = cited_clauses(DenialReason("…", None, (ref,)), policy, ["항공기 지연 특별약관"])  # type: ignore[arg-type]
    assert cc.yakgwan is None  # the claimed 특약 is not one it fits: still unresolved


@pytest.mark.unit
def test_its_item_and_a_title_broken_over_two_lines_are_read() -> None:
    """"…제1조(보험의 목적의\\n범위) 제2항은 … 그 제8호가 …": the title spans the line break, and "그 제8호"
    is the 제8호 of the 항 just cited; "그" inside a word is no reference."""
    refs = parse_clause_refs("휴대품손해 특별약관 제1조(보험의 목적의\n       범위) 제2항은 물건을 열거하고 있으며,\n그 제8호가 휴대폰을 들고 있습니다.")
    assert [(r.yakgwan, r.label, r.title) for r in refs] == [
        ("휴대품손해 특별약관", "제1조 제2항", "보험의 목적의 범위"), ("휴대품손해 특별약관", "제1조 제2항 제8호", "보험의 목적의 범위")]
    assert [r.label for r in parse_clause_refs("보통약관 제3조를 보면, 이그 제8호는")] == ["제3조"]


def test_a_coverage_written_without_a_yakgwan_word_is_a_tokyak_only_by_its_whole_name() -> None:
    """"자기차량손해" is a coverage of the 보통약관: the 특약 whose name only starts with it is not it;
    a 특약's whole name but for its qualifiers or its variant digit is."""
    known = ["보통약관", "자기차량손해 단독사고 보상 특별약관", "다른 자동차 운전담보 특별약관", "골절진단비(치아파절포함)(연간1회한)【갱신계약】",
             "가족교통사고처리지원금(Ⅰ) 특별약관", "해외여행 중 휴대품손해 특별약관 (분실 제외)"]
    assert resolve_yakgwan("자기차량손해", known) is None
    assert resolve_yakgwan("자기차량손해 단독사고 보상 특약", known) == "자기차량손해 단독사고 보상 특별약관"  # said to be a 특약: an abbreviation may be
    assert resolve_yakgwan("골절진단비(치아파절포함)", known) == "골절진단비(치아파절포함)(연간1회한)【갱신계약】"
    assert resolve_yakgwan("가족교통사고처리지원금 1", known) == "가족교통사고처리지원금(Ⅰ) 특별약관"
    assert resolve_yakgwan("해외여행 중 휴대품손해(분실 제외)", known) == "해외여행 중 휴대품손해 특별약관 (분실 제외)"
    assert resolve_yakgwan("다른 자동차", known) is None


def test_a_circled_paragraph_written_with_hang_after_it() -> None:
    assert [r.label for r in parse_clause_refs("(상해수술비 특약 제1조 ④항 7호)")] == ["제1조 제4항 제7호"]
    assert [r.label for r in parse_clause_refs("제2조 ③항에 따라")] == ["제2조 제3항"]
