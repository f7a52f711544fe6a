"""Governing clauses for the scenario notices, against the real KB policy (integration: the
policy is indexed with the bundled embedder; skipped without ../shared)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yakgwan.appeal.citations import parse_clause_refs
from yakgwan.appeal.notice import parse_notice
from yakgwan.appeal.policy import Policy
from yakgwan.services.appeal import open_policy
from yakgwan.appeal.retrieve import evidence_for
from yakgwan.config import Settings
from yakgwan.core.errors import InputError

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parents[1] / "data" / "appeal"
SCENARIOS = [json.loads(line) for line in (DATA / "scenarios.jsonl").read_text("utf-8").splitlines() if line.strip()]
SCENARIOS = [sc for sc in SCENARIOS if "policy" not in sc]  # written against the KB policy


@pytest.fixture(scope="module")
def policy(kb_policy_pdf: Path) -> Policy:
    return open_policy(kb_policy_pdf, Settings.from_env().with_(quiet=True))


def _notice(sc: dict):  # type: ignore[no-untyped-def]
    return parse_notice((DATA / sc["file"]).read_text("utf-8"), sc["file"])


def test_policy_names_and_exact_articles(policy: Policy) -> None:
    assert "보통약관" in policy.names and "벌금 특별약관" in policy.names and "가족벌금 특별약관" in policy.names
    (fine_excl,) = {c.article_title for c in policy.article_chunks("벌금 특별약관", "제2조")}
    assert fine_excl == "보험금을 지급하지 않는 사유"
    assert policy.covers_product("KB스마트운전자보험") and not policy.covers_product("한별 4세대 실손의료보험")


def test_wrong_article_is_resolved_as_cited_and_the_claimed_cover_is_found(policy: Policy) -> None:
    sc = next(s for s in SCENARIOS if s["id"].startswith("13_"))
    (ev,) = evidence_for(_notice(sc), policy)
    (cited,) = ev.cited
    assert cited.yakgwan == "교통사고처리지원금(Ⅰ) 특별약관" and cited.chunks  # what the insurer cited, exactly
    assert [c.yakgwan for c in ev.coverage] == ["벌금 특별약관"] and ev.coverage[0].chunks[0].article == "제1조"


def test_governing_article_in_top5_for_most_reasons(policy: Policy) -> None:
    hits = total = 0
    for sc in SCENARIOS:
        for ev, want in zip(evidence_for(_notice(sc), policy, "plain"), sc["reasons"]):
            gov = {(g["yakgwan"], refs[0].article) for g in want["governing"] if (refs := parse_clause_refs(g["article"]))}
            total += 1
            hits += any((h.chunk.yakgwan, h.chunk.article) in gov for h in ev.retrieved[:5])
    print(f"\ngoverning article in the top 5: {hits}/{total}")
    assert total == sum(len(sc["reasons"]) for sc in SCENARIOS) and hits / total >= 0.9


def test_not_an_insurance_policy(tmp_path: Path) -> None:
    doc = tmp_path / "memo.md"
    doc.write_text("# 회의록\n\n다음 회의는 월요일입니다.", "utf-8")
    settings = Settings.from_env().with_(quiet=True, cache_dir=tmp_path / "c")
    with pytest.raises(InputError, match="no 약관 structure found"):
        open_policy(doc, settings)
