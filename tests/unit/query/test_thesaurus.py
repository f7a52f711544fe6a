"""The insurance thesaurus: loading, loud errors, word-start matching, negation safety, the
bundled data, and entries built from a document's own wording."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.core.errors import InputError
from yakgwan.query.thesaurus import (
    SOURCE_KINDS,
    Expansion,
    Thesaurus,
    ThesaurusEntry,
    definitions_from_text,
    read_entries,
)

pytestmark = pytest.mark.unit

HEADER = "# a comment\nsurfaces\ttargets\tsource\tnote\n"


def _tsv(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "t.tsv"
    p.write_text(HEADER + body, encoding="utf-8")
    return p


def _small(**kw: bool) -> Thesaurus:
    return Thesaurus(
        [
            ThesaurusEntry("급여", ("보험금 지급",), "general"),
            ThesaurusEntry("담보", ("보장",), "general"),
            ThesaurusEntry("면허", ("운전면허",), "general"),
            ThesaurusEntry("합의금", ("교통사고처리지원금",), "general"),
            ThesaurusEntry("변호사", ("변호사선임비용",), "general"),
            ThesaurusEntry("오토바이", ("이륜자동차",), "general"),
            ThesaurusEntry("돈 돌려받", ("보험료의 환급",), "general"),
            ThesaurusEntry("취소", ("청약의 철회",), "general"),
        ],
        **kw,
    )


@pytest.fixture(scope="module")
def bundled() -> Thesaurus:
    return Thesaurus.load()


# --- loading ---------------------------------------------------------------------------


def test_load_reads_rows_and_splits_surfaces(tmp_path: Path) -> None:
    p = _tsv(tmp_path, "취소|철회하고 싶\t청약의 철회|청약 철회\tpolicy:제18조(청약의 철회)\t15일\n\n# more\n민원\t분쟁의 조정\tgeneral\n")
    entries = read_entries(p)
    assert [e.surface for e in entries] == ["취소", "철회하고 싶", "민원"]
    assert entries[0] == ThesaurusEntry("취소", ("청약의 철회", "청약 철회"), "policy:제18조(청약의 철회)", "15일")
    assert entries[2].note == ""


@pytest.mark.parametrize(
    "body, reason",
    [
        ("취소\t청약의 철회\n", "line 3: expected 3 or 4 tab-separated columns, got 2"),
        ("취소\t청약의 철회\tgossip\n", "line 3: source 'gossip' must start with one of"),
        ("취소\t청약의 철회\tpolicy\n", "line 3: source 'policy' must name where"),
        ("취소\t취소\tgeneral\n", "line 3: surface '취소' is one of its own targets"),
        ("취소\t\tgeneral\n", "line 3: needs at least one surface and one target"),
        ("취소\t청약의 철회\tgeneral\n민원|취소\t분쟁의 조정\tgeneral\n", "line 4: surface '취소' is already given on line 3"),
    ],
)
def test_malformed_rows_raise_input_error_naming_file_and_line(tmp_path: Path, body: str, reason: str) -> None:
    p = _tsv(tmp_path, body)
    with pytest.raises(InputError) as err:
        read_entries(p)
    assert err.value.path == str(p)
    assert reason in err.value.reason


def test_a_missing_header_or_file_is_loud(tmp_path: Path) -> None:
    p = tmp_path / "t.tsv"
    p.write_text("취소\t청약의 철회\tgeneral\n", encoding="utf-8")
    with pytest.raises(InputError, match="line 1: the header must be"):
        read_entries(p)
    with pytest.raises(InputError, match="cannot read"):
        read_entries(tmp_path / "absent.tsv")


def test_entry_validates_its_fields() -> None:
    with pytest.raises(ValueError, match="own targets"):
        ThesaurusEntry("급여", ("급여",), "general")
    with pytest.raises(ValueError, match="at least one non-empty target"):
        ThesaurusEntry("급여", (), "general")


# --- matching --------------------------------------------------------------------------


def test_expansion_names_surface_targets_source_and_span() -> None:
    out = _small().expand("  오토바이   타다가 \n 취소하면 ")
    assert out == (
        Expansion("오토바이", ("이륜자동차",), "general", 0, 4),
        Expansion("취소", ("청약의 철회",), "general", 9, 11),
    )


def test_surface_matches_at_word_start_with_an_ending() -> None:
    th = _small()
    assert th.terms("합의금은 얼마") == ("교통사고처리지원금",)
    assert th.terms("돈 돌려받을 수 있나요") == ("보험료의 환급",)
    assert th.terms("교통사고합의금") == ()  # inside a longer word
    assert _small(within_words=True).terms("교통사고합의금") == ("교통사고처리지원금",)


@pytest.mark.parametrize("within_words", [False, True])
@pytest.mark.parametrize(
    "query, not_expected",
    [
        ("비급여 치료비", "보험금 지급"),
        ("非급여 항목", "보험금 지급"),
        ("실손 비급여", "보험금 지급"),
        ("부담보 조건", "보장"),
        ("질병부담보", "보장"),
        ("무면허 운전", "운전면허"),
        ("미지급 보험금", "보험금 지급"),
    ],
)
def test_negation_prefixed_words_never_match_the_bare_noun(query: str, not_expected: str, within_words: bool) -> None:
    th = Thesaurus(
        [ThesaurusEntry("급여", ("보험금 지급",), "general"), ThesaurusEntry("지급", ("보험금 지급",), "general"),
         ThesaurusEntry("담보", ("보장",), "general"), ThesaurusEntry("면허", ("운전면허",), "general")],
        within_words=within_words,
    )
    assert not_expected not in th.terms(query)


def test_negation_safety_on_the_bundled_data(bundled: Thesaurus) -> None:
    assert not any(x.surface == "급여" for x in bundled.expand("비급여 치료비"))
    assert bundled.expand("부담보") == ()
    for query in ("무면허로 운전", "무보험차 사고", "불인정 통보", "비과세 혜택", "미지급 사유"):
        for x in bundled.expand(query):
            assert query[x.start - 1: x.start] in ("", " "), (query, x)


def test_clause_words_win_over_shorter_surfaces() -> None:
    th = _small()
    assert th.expand("변호사선임비용 한도") == ()
    assert th.terms("변호사 비용") == ("변호사선임비용",)


def test_targets_already_in_the_query_are_not_added() -> None:
    assert _small().expand("취소 말고 청약의철회") == ()


def test_longest_surface_wins(bundled: Thesaurus) -> None:
    surfaces = [x.surface for x in bundled.expand("주말 빼고 며칠 걸리나요")]
    assert surfaces[0] == "주말 빼고"


@pytest.mark.parametrize(
    "query, expected",
    [
        ("취소하고 싶어요", "청약의 철회"),
        ("민원 넣는 법", "분쟁의 조정"),
        ("오토바이 타다 사고", "이륜자동차"),
        ("전동킥보드 타다 다쳤어요", "개인형 이동장치"),
        ("합의금 나오나요", "교통사고처리지원금"),
        ("교처지 한도", "교통사고처리지원금"),
        ("스쿨존 사고", "어린이 보호구역"),
        ("와이프가 운전", "배우자"),
        ("보험료 밀렸어요", "납입최고"),
        ("보험 끊으면 돈 돌려받나요", "계약자의 임의해지"),
        ("청구 기한이 있나요", "소멸시효"),
        ("택시 타고 가다가", "대중교통수단"),
    ],
)
def test_bundled_examples(bundled: Thesaurus, query: str, expected: str) -> None:
    assert expected in bundled.terms(query)


# --- the bundled data ------------------------------------------------------------------


def test_every_row_parses_with_a_known_source(bundled: Thesaurus) -> None:
    assert len(bundled.entries) >= 300
    assert {e.source.partition(":")[0] for e in bundled.entries} == set(SOURCE_KINDS)


def test_no_surface_is_its_own_target_or_given_twice(bundled: Thesaurus) -> None:
    seen: dict[str, tuple[str, ...]] = {}
    for e in bundled.entries:
        assert e.surface not in e.targets
        assert seen.setdefault(e.surface, e.targets) == e.targets, e.surface


def test_no_surface_starts_with_a_negating_prefix_of_its_own_target(bundled: Thesaurus) -> None:
    """A surface like 비급여 mapped to 급여 would undo the negation rule from the data side."""
    for e in bundled.entries:
        for t in e.targets:
            assert not (len(e.surface) == len(t) + 1 and e.surface[1:] == t and e.surface[0] in "비부미무불"), e


def test_bundled_file_is_package_data() -> None:
    text = (Path(__file__).resolve().parents[3] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"query/data/*"' in text


# --- entries from a document's own wording ---------------------------------------------


def test_definitions_from_parenthesised_names() -> None:
    text = "보험료 납입최고(독촉)기간 안에 … 계약의 부활(효력회복)을 청약할 수 있습니다."
    out = definitions_from_text(text, "policy:제26조")
    assert out == (
        ThesaurusEntry("독촉", ("납입최고",), "policy:제26조"),
        ThesaurusEntry("효력회복", ("부활",), "policy:제26조"),
    )


def test_definitions_from_quoted_terms_and_example_lists() -> None:
    text = (
        "가) “뇌전증(간질)”이라 함은 돌발적 뇌파이상을 나타내는 뇌질환을 말합니다.\n"
        "「심한 간질 발작(중증간질, 큰발작)」이라 함은 … 말합니다. "
        "원동기장치 자전거(전동킥보드, 전동이륜평행차, 전동기의 동력만으로 움직일 수 있는 "
        "자전거 등 개인형 이동장치를 포함)를 계속적으로 사용"
    )
    got = {e.surface: e.targets for e in definitions_from_text(text, "policy:x")}
    assert got == {
        "간질": ("뇌전증",),
        "중증간질": ("심한 간질 발작",),
        "큰발작": ("심한 간질 발작",),
        "전동킥보드": ("개인형 이동장치",),
        "전동이륜평행차": ("개인형 이동장치",),
    }


@pytest.mark.parametrize(
    "text",
    [
        "이 보험계약(이하 ‘계약’이라 합니다)은",
        "케이블카(공중케이블카 포함), 리프트",
        "제2조(용어의 정의)",
        "교통사고처리지원금(Ⅰ) 특별약관",
        "관혈수술(수술)",
        "사고증명서(진료비계산서, 사망진단서 등)",
        "선박(요트, 모터보트, 보트 포함)",
    ],
)
def test_definitions_ignore_remarks_and_lists(text: str) -> None:
    assert definitions_from_text(text, "policy:x") == ()


def test_definition_entries_extend_a_thesaurus() -> None:
    th = _small().with_entries(definitions_from_text("보험료 납입최고(독촉)기간", "policy:제26조"))
    assert th.expand("독촉장이 왔어요") == (Expansion("독촉", ("납입최고",), "policy:제26조", 0, 2),)


def test_a_row_that_only_governs_a_word_expands_the_query_but_does_not_give_its_meaning(tmp_path: Path) -> None:
    path = tmp_path / "t.tsv"
    path.write_text("surfaces\ttargets\tsource\tnote\trelation\n"
                    "벌금형\t벌금|벌금 특별약관\tgeneral\t\n"
                    "과태료|범칙금\t벌금 특별약관\tgeneral\tnot a fine\tgoverns\n"
                    "취소\t청약의 철회\tgeneral\t\tsame\n", "utf-8")
    t = Thesaurus.load(path)
    assert t.terms("과태료도 나오나요") == ("벌금 특별약관",)  # the query reaches the clause that decides it
    assert t.meaning("과태료") == () and t.meaning("벌금형") == ("벌금", "벌금 특별약관") and t.meaning("취소") == ("청약의 철회",)
    bad = tmp_path / "bad.tsv"
    bad.write_text("surfaces\ttargets\tsource\tnote\trelation\n과태료\t벌금\tgeneral\t\tlike\n", "utf-8")
    with pytest.raises(InputError, match="line 2.*relation 'like'"):
        Thesaurus.load(bad)
    four = tmp_path / "four.tsv"  # without the relation column a fifth cell is refused
    four.write_text("surfaces\ttargets\tsource\tnote\n과태료\t벌금\tgeneral\t\tgoverns\n", "utf-8")
    with pytest.raises(InputError):
        Thesaurus.load(four)


def test_the_bundled_thesaurus_does_not_take_a_fine_of_another_law_for_the_policys_fine(bundled: Thesaurus) -> None:
    assert "벌금 특별약관" in bundled.terms("속도위반 과태료도 보상되나요") and bundled.meaning("과태료") == ()
    assert "벌금" in bundled.meaning("벌금형")
