"""What a question is, decided once: the one answerer that answers it.

A question is read into :class:`QuestionFacts` (what it names and asks, each fact read by its own
module from the question and the index's structure), and :func:`route_of` turns those facts into
one :class:`Route`, whose ``kind`` picks the answerer. The precedence is written here and nowhere
else:

1. ``other_insurer``: it names only insurers (or their products) the index does not hold
   (:mod:`yakgwan.query.scope`): refused, saying which, before anything is searched;
2. ``missing_article``: over a policy, it asks about a 조 that the 약관 it names (or every 약관)
   lacks: answered from the parsed structure (:mod:`yakgwan.answer.structure`);
3. ``absent_name``: it names something no document mentions (:mod:`yakgwan.answer.anchors`):
   refused, naming the words;
4. ``unnamed_payment``: over a policy, it asks whether a payment is made (or how much) that no
   document names (:mod:`yakgwan.answer.payments`): the ordinary answer made ``partial`` (when it
   was answered, or refused as off topic: then the nearest units), led by the sentence that says
   so; a partial answer or another refusal is kept, noting the words;
5. ``which_rider``: over a policy, it asks which 특약 pays and names none
   (:mod:`yakgwan.answer.riders`): the list of them;
6. ``comparison``: it asks about two named things and one quantity
   (:mod:`yakgwan.answer.compare`): one search per side, answered by the sentence rules or the
   model;
7. ``amount``: over a policy, it asks for an amount, a percentage or a number of days
   (:mod:`yakgwan.answer.contract_amounts`): the ordinary answer, then said to be left to the
   certificate (or not printed) when no quote states one;
8. ``ordinary``: everything else, answered from the retrieved units with the kind of answer it
   asks for (:mod:`yakgwan.query.answer_type`).

:func:`route_of` is pure; it is tested on facts alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

KINDS = ("other_insurer", "missing_article", "absent_name", "unnamed_payment", "which_rider", "comparison", "amount", "ordinary")
REFUSED_KINDS = ("other_insurer", "absent_name")  # kinds answered by a refusal without a search


@dataclass(frozen=True)
class QuestionFacts:
    """What a question names and asks, read once before it is answered.

    ``other_insurer``: the question's scope refuses (it names only insurers the index lacks).
    ``missing_articles``: the 조 it asks about that the 약관 it names (or every 약관) lacks.
    ``absent_names``: names it carries that no document mentions.
    ``unnamed_payments``: over a policy, the payments it asks about that no document names.
    ``which_rider``: it asks which 특약 pays and names none (and the unit model can list them).
    ``sides``: the two searches of a question about two named things (empty: not such a question).
    ``amounts``: the kinds of figure it asks for (money, percent, days) over a policy.
    ``answer_types``: the kinds of answer it asks for (:func:`yakgwan.query.answer_type.asked_kinds`).
    """

    other_insurer: bool = False
    missing_articles: tuple[str, ...] = ()
    absent_names: tuple[str, ...] = ()
    unnamed_payments: tuple[str, ...] = ()
    which_rider: bool = False
    sides: tuple[str, ...] = ()
    amounts: tuple[str, ...] = ()
    answer_types: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Route:
    """The answerer chosen for a question (``kind``, one of :data:`KINDS`) and the facts it
    reads."""

    kind: str
    facts: QuestionFacts

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown route kind {self.kind!r}: one of {', '.join(KINDS)}")

    @property
    def searches(self) -> bool:
        """Whether the answerer reads retrieved passages (refusals and structure answers do not)."""
        return self.kind not in (*REFUSED_KINDS, "missing_article")


# the fact that picks each kind; KINDS's order is the precedence ("ordinary": whatever is left)
_PICKS: dict[str, Callable[[QuestionFacts], bool]] = {
    "other_insurer": lambda f: f.other_insurer,
    "missing_article": lambda f: bool(f.missing_articles),
    "absent_name": lambda f: bool(f.absent_names),
    "unnamed_payment": lambda f: bool(f.unnamed_payments),
    "which_rider": lambda f: f.which_rider,
    "comparison": lambda f: bool(f.sides),
    "amount": lambda f: bool(f.amounts),
    "ordinary": lambda f: True,
}


def route_of(facts: QuestionFacts) -> Route:
    """The one answerer for a question with these facts: the first kind of :data:`KINDS` whose
    fact holds (the module docstring's precedence)."""
    return Route(next(kind for kind in KINDS if _PICKS[kind](facts)), facts)
