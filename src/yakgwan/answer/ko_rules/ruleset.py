"""The answer checks by name, and which of them are on.

:data:`RULES` names every rule (what it decides and where), in the order an answer meets them;
a :class:`RuleSet` says which are on. The default, :meth:`RuleSet.all`, is every rule, as the
answer has always been checked; turning one off leaves the rest as they are, so each rule can be
measured alone (``RuleSet.parse("all,-compare")``). The words the rules decide by are in
:mod:`yakgwan.answer.ko_rules.lexicon`.
"""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.core.errors import InputError
from yakgwan.core.registry import Registry
from yakgwan.messages import msg


@dataclass(frozen=True)
class Rule:
    """One answer check: its name, what it decides, and the function that decides it."""

    name: str
    summary: str
    where: str  # the function (module.name) that applies it

    def line(self) -> str:
        return f"{self.name}: {self.summary}"


RULES: Registry[Rule] = Registry("answer rule")

for _rule in (
    Rule("anchors", "refuse, before retrieval, a question naming a proper noun, foreign word or year that no document contains",
         "yakgwan.answer.ask.Asker.ask"),
    Rule("payments", "over a policy, a question whether a payment is made that no document names (벌금, 입원비) is answered at most partial",
         "yakgwan.answer.payments.unnamed_payments"),
    Rule("side_search", "search each side of a question about two named things on its own, and show each side's best sentence",
         "yakgwan.answer.compare.side_queries"),
    Rule("compare", "answer a choice, difference, sum or percentage change of two named things by rule, from two quoted sentences",
         "yakgwan.answer.compare.compared"),
    Rule("unknown_terms", "a claim naming a noun that no document contains fails (repaired once, then dropped)",
         "yakgwan.answer.anchors.unknown_terms"),
    Rule("arithmetic", "a claim that says it computes (차이, 합계, %…) may state a number one arithmetic step makes of its cited numbers",
         "yakgwan.answer.grounding.numbers.unsupported_numbers"),
    Rule("restated_missing", "a partial answer whose 'missing' restates the question is judged by the question less its question words",
         "yakgwan.answer.ko_rules.point.restates_question"),
    Rule("cited_nouns", "a partial answer that restates what it calls missing is answered only when its cited sentences hold that point's nouns",
         "yakgwan.answer.ko_rules.point.cited_nouns"),
    Rule("evidenced", "a partial answer is answered when its claims, with the sentences they cite, hold the point and add a fact of their own",
         "yakgwan.answer.ko_rules.point.evidenced"),
    Rule("asserts_missing", "a partial answer's claim that states the missing point from sentences that do not speak of it is dropped",
         "yakgwan.answer.ko_rules.point.asserts_missing"),
    Rule("point_sentence", "the one shown sentence holding every noun and number of the question is quoted (generate) or required (extract)",
         "yakgwan.answer.ko_rules.holding.holding_point"),
    Rule("titles", "a title right after a name (대표, 팀장, COO…) is not part of the point asked",
         "yakgwan.answer.ko_rules.point.titles"),
    Rule("light_nouns", "a light verbal noun right after its object (작성, 진행…) is not part of the point asked",
         "yakgwan.answer.ko_rules.point.light"),
    Rule("number_kinds", "nouns that only name the kind of number asked (시기, 금액, 횟수…) need not be found in the evidence",
         "yakgwan.answer.ko_rules.point.cited_nouns"),
    Rule("number_question", "a question asking 언제, 얼마 or 몇 needs a number of the answer's own",
         "yakgwan.answer.ko_rules.point.evidenced"),
    Rule("computing_words", "a quoted sentence must itself state what the question asks to compute (총, 모든, 합계, 차이…)",
         "yakgwan.answer.ko_rules.holding.holding_point"),
    Rule("verbal_nouns", "a quoted sentence must hold the question's verbal nouns (보고, 시행…), whether-words (가능, 필요…) excepted",
         "yakgwan.answer.ko_rules.holding.holding_point"),
    Rule("percent_ratio", "a percentage in a sentence states the 비율 a question asks for",
         "yakgwan.answer.ko_rules.holding.holding_point"),
    Rule("current_rows", "a history-table row of a year the question does not name is quoted only when no current sentence holds the point",
         "yakgwan.answer.ko_rules.holding.holding_point"),
):
    RULES.register(_rule.name, _rule)
del _rule


@dataclass(frozen=True)
class RuleSet:
    """Which answer rules are on; every name is one of :data:`RULES`."""

    enabled: frozenset[str]

    def __post_init__(self) -> None:
        for name in self.enabled:
            RULES.get(name)  # an unknown name raises UnknownName, listing the registered ones

    @classmethod
    def all(cls) -> RuleSet:
        """Every rule on: the answer as it has always been checked."""
        return cls(frozenset(RULES.names()))

    @classmethod
    def none(cls) -> RuleSet:
        return cls(frozenset())

    @classmethod
    def parse(cls, spec: str) -> RuleSet:
        """``"all"``, ``"none"``, names (``"compare,titles"``: only those), or changes read left
        to right (``"all,-compare"``, ``"none,compare"``; a first ``-name`` starts from all)."""
        words = [w.strip() for w in spec.split(",")]
        if not spec.strip() or not all(words):
            raise InputError(None, msg("rules.spec", spec=repr(spec)))
        on = set(RULES.names()) if words[0].startswith("-") else set()
        for word in words:
            if word in ("all", "none"):
                on = set(RULES.names()) if word == "all" else set()
            elif word.startswith("-"):
                on.discard(RULES.get(word[1:].strip()).name)
            else:
                on.add(RULES.get(word.removeprefix("+").strip()).name)
        return cls(frozenset(on))

    def on(self, name: str) -> bool:
        """Whether rule ``name`` is on; a name :data:`RULES` does not hold raises UnknownName."""
        return RULES.get(name).name in self.enabled

    def without(self, *names: str) -> RuleSet:
        return RuleSet(self.enabled - {RULES.get(n).name for n in names})

    def spec(self) -> str:
        """The set as :meth:`parse` reads it back: ``all``, ``none``, or ``all,-a,-b``."""
        off = [n for n in RULES.names() if n not in self.enabled]
        if not off:
            return "all"
        if not self.enabled:
            return "none"
        return ",".join(["all", *(f"-{n}" for n in off)])
