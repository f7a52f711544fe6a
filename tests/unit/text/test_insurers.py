"""Korean insurers by name: one canonical name per company for every way it is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yakgwan.text.insurers import DEFAULT_LEXICON, aliases, canonical, insurer_mentions, key, lexicon, load_lexicon

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("name, want", [
    ("삼성화재해상보험주식회사", "삼성화재"),
    ("삼성화재해상보험 주식회사", "삼성화재"),
    ("(주)삼성화재해상보험", "삼성화재"),
    ("㈜한화손해보험", "한화손해보험"),
    ("한화손보", "한화손해보험"),
    ("현대해상화재보험", "현대해상"),
    ("db손보", "DB손해보험"),
    ("KB 손해보험", "KB손해보험"),
    ("악사손해보험", "AXA손해보험"),
    ("농협손해보험", "NH농협손해보험"),
    ("메리츠", "메리츠화재"),
    ("삼성생명보험주식회사", "삼성생명"),
    ("삼성", None),  # a group, not one insurer
    ("KB", None),
    ("가나다손해보험", None),
    ("", None),
])
def test_canonical(name: str, want: str | None) -> None:
    assert canonical(name) == want


def test_aliases_start_with_the_canonical_name() -> None:
    got = aliases("삼성화재해상보험")
    assert got[0] == "삼성화재" and "삼성화재해상보험" in got
    assert all(canonical(a) == "삼성화재" for a in got)
    assert aliases("가나다손해보험") == ()


@pytest.mark.parametrize("text, want", [
    ("삼성화재 운전자보험은 벌금도 나오나요?", ("삼성화재",)),
    ("KB손보랑 DB 손해보험 중에 어디가 나아요", ("KB손해보험", "DB손해보험")),
    ("메리츠에서 가입한 펫보험", ("메리츠화재",)),
    ("처브라이프 상품", ("처브라이프생명",)),  # the longest name, not 처브
    ("KDB생명 연금", ("KDB생명",)),  # not DB생명 inside it
    ("DB 접속이 안 돼요", ()),
    ("KB 국민카드 혜택", ()),
    ("삼성 운전자보험 얼마예요", ()),  # 삼성화재 or 삼성생명: not said
    ("음악사 할인", ()),  # a brand is not read inside a longer word
    ("운전자보험 벌금 한도", ()),
])
def test_insurer_mentions(text: str, want: tuple[str, ...]) -> None:
    assert insurer_mentions(text) == want


def test_brands_count_only_when_asked() -> None:
    assert insurer_mentions("메리츠 펫보험") == ("메리츠화재",)
    assert insurer_mentions("메리츠 펫보험", brands=False) == ()
    assert insurer_mentions("메리츠화재 펫보험", brands=False) == ("메리츠화재",)


def test_the_lexicon_says_where_it_comes_from_and_names_each_company_once() -> None:
    data = json.loads(DEFAULT_LEXICON.read_text(encoding="utf-8"))
    assert data["_source"].strip()
    lex = lexicon()
    assert len(lex.insurers) == len({i.name for i in lex.insurers}) >= 40
    assert key(" (주) Samsung·Fire ") == "samsungfire"


def test_a_malformed_lexicon_is_an_error(tmp_path: Path) -> None:
    entry = {"name": "가나화재", "kind": "손해보험", "aliases": ["가나손보"], "brands": []}
    shared = tmp_path / "shared.json"
    shared.write_text(json.dumps({"_source": "test", "insurers": [entry, {**entry, "name": "다라화재"}]}), encoding="utf-8")
    with pytest.raises(ValueError, match="'가나손보' names both 가나화재 and 다라화재"):
        load_lexicon(shared)
    unsourced = tmp_path / "unsourced.json"
    unsourced.write_text(json.dumps({"insurers": [entry]}), encoding="utf-8")
    with pytest.raises(ValueError, match="_source"):
        load_lexicon(unsourced)
    kind = tmp_path / "kind.json"
    kind.write_text(json.dumps({"_source": "test", "insurers": [{**entry, "kind": "공제"}]}), encoding="utf-8")
    with pytest.raises(ValueError, match="kind '공제'"):
        load_lexicon(kind)


@pytest.mark.parametrize("text, groups, insurers", [
    ("한화 다이렉트 운전자보험 들었는데", ("한화",), ()),
    ("KB주택화재보험 들었는데", ("KB",), ()),  # a Latin group word before Korean letters
    ("KB손보 자동차보험", (), ("KB손해보험",)),  # a full name: no group read beside it
    ("한화손해보험 약관과 삼성 운전자보험", ("삼성",), ("한화손해보험",)),
    ("KDB생명 종신보험", (), ("KDB생명",)),
    ("대한화재 사건", (), ()),  # 한화 inside a longer Korean word
    ("하나도 안 나와요", (), ()),  # 하나 is an everyday word, no group
])
def test_group_mentions_are_words_where_no_full_name_stands(text, groups, insurers):
    from yakgwan.text.insurers import group_mentions

    assert group_mentions(text) == groups
    assert insurer_mentions(text) == insurers


def test_every_group_lists_insurers_of_the_lexicon(tmp_path):
    from yakgwan.text.insurers import group_members

    assert group_members("KB") == ("KB손해보험", "KB라이프")
    assert group_members("메리츠") == ()  # a brand, not a group
    data = json.loads(DEFAULT_LEXICON.read_text("utf-8"))
    data["groups"]["가나다"] = ["가나다손해보험"]
    bad = tmp_path / "insurers.json"
    bad.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    with pytest.raises(ValueError, match="가나다.*가나다손해보험"):
        load_lexicon(bad)
