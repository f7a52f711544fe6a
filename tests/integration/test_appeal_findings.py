"""Every kind of rule finding on the real KB policy: it fires on the scenario notice made for
it and stays silent where the notice is right (integration: the policy indexed with the bundled
embedder; skipped without ../shared)."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.config import Settings
from yakgwan.appeal.run import AppealOptions, analyse_notice, read_notice
from yakgwan.services.appeal import open_policy

pytestmark = pytest.mark.integration

NOTICES = Path(__file__).resolve().parents[1] / "data" / "appeal" / "notices"


@pytest.fixture(scope="module")
def run(kb_policy_pdf: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    settings = Settings.from_env().with_(quiet=True)
    folder = tmp_path_factory.mktemp("notices")
    policy = open_policy(kb_policy_pdf, settings)  # read once, as a server keeps it

    def go(name: str, replace: tuple[str, str] | None = None) -> dict:
        path = next(NOTICES.glob(f"{name}_*.txt"))
        if replace:  # a variant of the notice, written for the test
            text = path.read_text("utf-8")
            assert replace[0] in text
            path = folder / path.name
            path.write_text(text.replace(*replace), "utf-8")
        return analyse_notice(read_notice(path, ()), policy, AppealOptions()).to_json()

    return go


def kinds(res: dict) -> set[str]:
    return {f["kind"] for f in res["findings"]}


def test_another_special_terms_clause_and_a_missing_article_or_part(run) -> None:  # type: ignore[no-untyped-def]
    assert "other_yakgwan" in kinds(run("25"))
    res = run("36")  # "약관 제3조(보험금을 지급하지 않는 사유)": read against the claimed 특약, which has no 제3조
    (missing,) = [f for f in res["findings"] if f["kind"] == "article_missing"]
    assert "탈구,신경손상,압착손상진단위로금 특별약관" in missing["text"] and res["success_probability"]["band"] == "HIGH"
    (part,) = [f for f in run("29")["findings"] if f["kind"] == "part_missing"]
    assert "제1항~제4항만 있습니다" in part["text"]
    assert not kinds(run("01")) & {"other_yakgwan", "article_missing", "part_missing"}  # cited right


def test_a_misquoted_clause_is_shown_with_its_difference(run) -> None:  # type: ignore[no-untyped-def]
    res = run("20")
    (q,) = [f for f in res["findings"] if f["kind"] == "quote_differs"]
    assert "‘별거중인’" in q["text"] and "‘동거중인’" in q["text"]
    assert q["policy"]["yakgwan"] == "가족벌금 특별약관" and "별거중인" in q["policy"]["quote"] and "동거중인" in q["notice"]
    assert {"op": "policy_only", "text": "별"} in q["diff"] and {"op": "notice_only", "text": "동"} in q["diff"]
    assert res["success_probability"]["band"] == "HIGH"
    assert "quote_differs" not in kinds(run("21"))  # a faithful quote (a space and a line break apart)


def test_numeric_conditions_against_the_notices_figures(run) -> None:  # type: ignore[no-untyped-def]
    (wrong,) = [f for f in run("22")["findings"] if f["kind"] == "threshold_misstated"]
    assert "‘1급 또는 2급’" in wrong["text"] and "‘1급, 2급 또는 3급’" in wrong["text"]
    holds = run("04")
    assert "arithmetic_holds" in kinds(holds) and holds["success_probability"]["band"] == "LOW"
    # the same letter with a diagnosis that meets the 42-day condition: the denial's arithmetic fails
    fails = run("04", ("치료기간이 3주(21일)로", "치료기간이 7주(49일)로"))
    (f,) = [f for f in fails["findings"] if f["kind"] == "arithmetic_fails"]
    assert "‘7주(49일)’" in f["text"] and "42일" in f["policy"]["quote"]
    assert not kinds(run("24")) & {"threshold_misstated", "arithmetic_fails"}  # 35 days against 42: right


def test_provisos_own_exclusion_lists_and_the_claimed_exclusion(run) -> None:  # type: ignore[no-untyped-def]
    (pv,) = [f for f in run("26")["findings"] if f["kind"] == "proviso_not_addressed"]
    assert pv["policy"]["quote"].startswith("다만, 사고발생시점 만 15세")
    assert "proviso_not_addressed" not in kinds(run("18"))  # its 단서 narrows the clause: no ground for the claimant
    assert "general_exclusion_on_own_list" in kinds(run("28"))
    assert "claimed_exclusion" in kinds(run("01"))
    unresolved = run("01", ("벌금 특별약관 제2조(보험금을 지급하지 않는 사유) 제8호", "한별안심 특약 제2조 제8호"))
    assert "name_unresolved" in kinds(unresolved)
