"""The reading checks (7)-(9) on the real KB policy: for the scenario notices written for each,
the rules settle it from the policy's structure and show the governing clause; a correct denial
gets none of these findings; what the rules leave is "not_assessed" without a model; the checks
are in the result and the pack; the real local model answers under the schema (integration;
skipped without ../shared or the bundled model)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from yakgwan.appeal.model_checks import candidates, judge, run_checks
from yakgwan.appeal.notice import parse_notice
from yakgwan.appeal.policy import Policy
from yakgwan.appeal.render import CHECKS_TITLE, to_markdown
from yakgwan.appeal.retrieve import evidence_for
from yakgwan.appeal.validate import provenance_problem
from yakgwan.config import Settings
from yakgwan.llm import LLM, LLMConfig
from yakgwan.services.appeal import AppealOptions, appeal, open_policy

pytestmark = pytest.mark.integration

DATA = Path(__file__).resolve().parents[1] / "data" / "appeal"
SCENARIOS = {json.loads(line)["id"]: json.loads(line) for line in (DATA / "scenarios.jsonl").read_text("utf-8").splitlines() if line.strip()}


@pytest.fixture(scope="module")
def policy(kb_policy_pdf: Path) -> Policy:
    return open_policy(kb_policy_pdf, Settings.from_env().with_(quiet=True, llm=LLMConfig()))


def _first(sid: str) -> str:
    return next(k for k in SCENARIOS if k.startswith(sid))


def _looked_at(policy: Policy, sid: str):  # type: ignore[no-untyped-def]
    sc = SCENARIOS[_first(sid)]
    notice = parse_notice((DATA / sc["file"]).read_text("utf-8"), sc["file"])
    evidence = evidence_for(notice, policy, fused=False)
    return sc, notice, evidence, candidates(notice, evidence, policy)


def _governing(sc: dict) -> set[tuple[str, str]]:
    return {(g["yakgwan"], re.match(r"제\d+조", g["article"]).group(0)) for r in sc["reasons"] for g in r["governing"] if g["article"].startswith("제")}  # type: ignore[union-attr]


@pytest.mark.parametrize(("sid", "check", "kind"), [("30_", "definition", "definition_ground_set_aside"), ("39_", "definition", "definition_ground_set_aside"),
                                               ("32_", "proportional", "full_denial_despite_reduction"), ("41_", "proportional", "full_denial_despite_reduction"),
                                               ("34_", "ambiguity", "reading_of_undefined_word"), ("43_", "ambiguity", "reading_of_undefined_word")])
def test_the_rules_settle_each_check_on_the_clause_that_governs_its_scenario(policy: Policy, sid: str, check: str, kind: str) -> None:
    sc, notice, evidence, found = _looked_at(policy, sid)
    cand = found[check]
    assert cand is not None and cand.rule == "found", f"{sc['id']}: the {check} check found nothing settled"
    assert {(cand.policy[0].chunk.yakgwan, cand.policy[0].chunk.article)} & _governing(sc), f"{sc['id']}: {check} rests on {cand.policy[0].label}"
    assert all(s.text in s.chunk.text for s in cand.policy) and cand.notice[0] in " ".join(notice.text.split())
    done = run_checks(notice, evidence, policy, None)  # no model needed
    assert kind in [f.kind for f in done.findings] and {s.check: s.by for s in done.statuses}[check] == "rules"
    assert all(provenance_problem(f.policy, {c.chunk_id: c for c in policy.chunks}) is None for f in done.findings if f.policy)


def test_a_ground_from_another_sentence_is_no_definition_finding(policy: Policy) -> None:
    # 43: the notice's words 도로/정차 stand in a sentence about the taxi, not in one saying the claimant was not 운전 중
    _, notice, evidence, found = _looked_at(policy, "43_")
    assert found["definition"] is None or found["definition"].rule is None
    assert "definition_ground_set_aside" not in [f.kind for f in run_checks(notice, evidence, policy, None).findings]


def test_no_correct_denial_gets_a_reading_finding_and_the_rest_is_not_assessed(policy: Policy) -> None:
    left = 0
    for sid, sc in SCENARIOS.items():
        if sc.get("kind") != "correct-denial":
            continue
        _, notice, evidence, _ = _looked_at(policy, sid)
        done = run_checks(notice, evidence, policy, None)
        assert done.findings == (), f"{sid}: {[f.text for f in done.findings]}"
        left += sum(s.status == "not_assessed" for s in done.statuses)
    assert left > 0  # definitions the rules leave to a model


def test_a_notice_with_nothing_to_read_gives_not_applicable(policy: Policy) -> None:
    _, notice, evidence, found = _looked_at(policy, "01_")
    assert found == {"definition": None, "proportional": None, "ambiguity": None}
    assert {s.status for s in run_checks(notice, evidence, policy, None).statuses} == {"not_applicable"}


def test_the_checks_are_in_the_result_and_the_pack(kb_policy_pdf: Path) -> None:
    settings = Settings.from_env().with_(quiet=True, llm=LLMConfig())
    res = appeal(DATA / SCENARIOS[_first("32_")]["file"], kb_policy_pdf, settings, AppealOptions(analysis="rules")).to_json()
    assert [(c["check"], c["status"], c["by"]) for c in res["checks"]][1] == ("proportional", "found", "rules")
    assert "full_denial_despite_reduction" in [f["kind"] for f in res["findings"]] and res["success_probability"]["band"] == "HIGH"
    md = to_markdown(res)
    assert CHECKS_TITLE in md and "삭감·비례 지급 규정: 문제 있음 — rules" in md


def test_the_real_local_model_answers_under_the_schema(policy: Policy, local_llm_8k) -> None:  # type: ignore[no-untyped-def]
    llm = LLM(local_llm_8k)  # no response cache: the model's own answer
    sc, notice, evidence, found = _looked_at(policy, "31_")  # a definition the rules leave to a model
    cand = found["definition"]
    assert cand is not None and cand.rule is None
    status, finding = judge(cand, llm)
    print(f"\nlocal model on {sc['id']} (definition): {status.status}; {status.note}; "
          f"{llm.stats.calls} call(s), {llm.stats.prompt_tokens}+{llm.stats.completion_tokens} tokens")
    assert status.status in ("found", "not_found"), status.note  # a usable answer: the schema held
    assert status.notice in cand.notice and status.policy is not None
    assert provenance_problem(status.policy, {c.chunk_id: c for c in policy.chunks}) is None
    assert (finding is not None) == (status.status == "found")
    if finding is not None:
        assert finding.kind == "definition_read_narrowly" and finding.by == "llm" and finding.policy == status.policy
    # the same check through the analysis with the model: the status is reported with the model's name
    p = dataclasses.replace(policy, ctx=dataclasses.replace(policy.ctx, make_llm=lambda: llm, _llm=None))
    done = run_checks(notice, evidence, p, llm)
    assert {s.check: s.by for s in done.statuses}["definition"] == llm.name
