"""One dispatch: a question's facts are read once and :func:`route_of` picks the one answerer,
in one written order; ``ask`` reports the kind it picked and answers by that answerer only."""

from __future__ import annotations

import pytest

from yakgwan.answer.ask import Asker
from yakgwan.answer.payments import not_promised
from yakgwan.answer.route import KINDS, QuestionFacts, Route, route_of

pytestmark = pytest.mark.unit

# every fact set, each with the kind it alone picks
ALONE = {
    "other_insurer": QuestionFacts(other_insurer=True),
    "missing_article": QuestionFacts(missing_articles=("제9조",)),
    "absent_name": QuestionFacts(absent_names=("2031",)),
    "unnamed_payment": QuestionFacts(unnamed_payments=("수리비",)),
    "which_rider": QuestionFacts(which_rider=True),
    "comparison": QuestionFacts(sides=("가 금액", "나 금액")),
    "amount": QuestionFacts(amounts=("money",)),
    "ordinary": QuestionFacts(answer_types=frozenset({"paid"})),
}


def test_each_fact_alone_picks_its_answerer_and_every_kind_is_reachable() -> None:
    assert {kind: route_of(facts).kind for kind, facts in ALONE.items()} == {k: k for k in KINDS}
    assert route_of(QuestionFacts()).kind == "ordinary"


def test_the_precedence_is_the_written_order() -> None:
    """With every fact true, the first kind of KINDS wins; taking each winning fact away in turn
    gives the next kind, down to ordinary."""
    facts = dict(other_insurer=True, missing_articles=("제9조",), absent_names=("2031",), unnamed_payments=("수리비",), which_rider=True,
                 sides=("가 금액", "나 금액"), amounts=("money",))
    field_of = {"other_insurer": ("other_insurer", False), "missing_article": ("missing_articles", ()),
                "absent_name": ("absent_names", ()), "unnamed_payment": ("unnamed_payments", ()), "which_rider": ("which_rider", False), "comparison": ("sides", ()),
                "amount": ("amounts", ())}
    seen = []
    while True:
        kind = route_of(QuestionFacts(**facts)).kind
        seen.append(kind)
        if kind == "ordinary":
            break
        name, off = field_of[kind]
        facts[name] = off
    assert seen == list(KINDS)


def test_an_unknown_kind_is_refused_and_only_answerers_that_read_passages_search() -> None:
    with pytest.raises(ValueError, match="unknown route kind"):
        Route("guess", QuestionFacts())
    assert [k for k in KINDS if Route(k, QuestionFacts()).searches] == ["unnamed_payment", "which_rider", "comparison", "amount", "ordinary"]


def test_ask_over_the_sample_policy_routes_each_kind_of_question_once(answering_sample) -> None:  # type: ignore[no-untyped-def]
    """Questions written for this test, one per kind, over the sample 약관: the facts ``Asker.route``
    reads pick the kind, and ``ask`` answers by that kind's answerer (its ``by`` and reason) and
    says which kind in its JSON."""
    ctx = answering_sample
    asker = Asker(ctx)
    questions = {
        "missing_article": "벌금 특별약관 제9조에는 어떤 내용이 있나요?",
        "absent_name": "2031년에 바뀐 보장은 무엇인가요?",
        "unnamed_payment": "사고로 망가진 차 수리비도 보험에서 나오나요?",
        "which_rider": "어떤 특약이 벌금을 보장하나요?",
        "amount": "교통사고처리지원금은 얼마 나오나요?",
        "ordinary": "보험금을 청구할 때 무엇을 준비해야 하나요?",
    }
    routes = {kind: asker.route(q) for kind, q in questions.items()}
    assert {kind: r.kind for kind, r in routes.items()} == {k: k for k in questions}
    assert routes["absent_name"].facts.absent_names == ("2031",)
    assert routes["missing_article"].facts.missing_articles == ("제9조",)
    assert routes["unnamed_payment"].facts.unnamed_payments == ("수리비",)
    assert routes["ordinary"].facts.unnamed_payments == () and routes["amount"].facts.unnamed_payments == ()
    assert routes["ordinary"].facts.answer_types == frozenset({"documents"}) and routes["amount"].facts.amounts == ("money",)
    by = {kind: asker.ask(q) for kind, q in questions.items()}
    assert {k: r.question_kind for k, r in by.items()} == {k: k for k in questions}
    assert {k: r.to_json()["question_kind"] for k, r in by.items()} == {k: k for k in questions}
    assert (by["missing_article"].by, by["missing_article"].reason) == ("structure", "no_such_article")
    assert (by["absent_name"].outcome, by["absent_name"].reason, by["absent_name"].missing) == ("refused", "absent_name", ["2031"])
    assert by["which_rider"].by == "units (which 특약)"
    paid = by["unnamed_payment"]  # the sample's model answers everything: the unnamed payment makes it partial, said first
    assert (paid.outcome, paid.reason, paid.by) == ("partial", "unnamed_payment", "units")
    assert paid.conclusion == not_promised(["수리비"]) and paid.answer.startswith(paid.conclusion) and paid.missing == ["수리비"]
    assert paid.citations and "수리비" in " ".join(n.text("ko") for n in paid.notes)
    assert by["amount"].by == "units" and by["ordinary"].by == "units"
