"""The point a question or a partial answer names, and whether an answer's claims hold it.

A point is the question less its question words and its ending (:func:`asked_point`), or what a
``partial`` answer calls missing. Its nouns (:func:`point_nouns`) are what an answer must be found
with; the rules here decide, from the words of :mod:`~yakgwan.answer.ko_rules.lexicon`, which
nouns count and when the claims, read with the sentences they cite, hold the point. Each rule
that ``rules`` can turn off is named where it applies.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from yakgwan.answer.anchors import Anchor, Terms, bare_term, normalise
from yakgwan.answer.grounding.cited import all_in, char_bigrams, evidence
from yakgwan.answer.grounding.numbers import unsupported_numbers
from yakgwan.answer.ko_rules.lexicon import ASK_ENDING, ASKING, LIGHT, LIGHT_END, NUMBER_KIND, NUMBER_QUESTION, OPERATION, TITLE
from yakgwan.answer.ko_rules.ruleset import RuleSet
from yakgwan.answer.records import Sentence

ALL = RuleSet.all()
_LETTERS = re.compile(r"(?<![A-Za-z])[A-Za-z]+(?![A-Za-z])")


def titles(text: str, named: list[Anchor]) -> set[str]:
    """The titles of ``text`` that stand right after a proper noun (rule ``titles``, words
    :data:`~yakgwan.answer.ko_rules.lexicon.TITLE_WORDS`: "박민수 COO", "송민지 팀장", "김하늘
    대표"): the name says who is meant, and a document about that person need not repeat the title
    beside each fact ("- 스톡옵션: 발행주식 5% 보유" under 박민수's name). Any other noun after a
    name is part of the point ("바나힐 케이블카")."""
    return _following(text, named, lambda prev, cur: prev.tag == "NNP" and bool(TITLE.fullmatch(bare_term(cur.form))))


def _following(text: str, named: list[Anchor], pair: Callable[[Anchor, Anchor], bool], tail: str = "") -> set[str]:
    """The nouns of ``named`` that stand right after the noun before them in ``text`` (spaces
    between, then ``tail``, a lookahead) where ``pair(before, noun)`` holds."""
    return {cur.form for prev, cur in zip(named, named[1:])
            if pair(prev, cur) and re.search(rf"{re.escape(prev.form)}\s*{re.escape(cur.form)}{tail}", text)}


def light(text: str, named: list[Anchor]) -> set[str]:
    """The light verbal nouns of ``text`` (rule ``light_nouns``, words
    :data:`~yakgwan.answer.ko_rules.lexicon.LIGHT_TERMS`) that end their word and stand right
    after another noun, their object ("리뷰 작성 시"); alone ("작성 방법") a light noun is the point
    itself, and in a longer word ("리뷰 작성일", "계약 진행률") it is part of another noun."""
    return _following(text, named, lambda prev, cur: bool(LIGHT.fullmatch(bare_term(cur.form)))
                      and not LIGHT.fullmatch(bare_term(prev.form)), LIGHT_END)


def point_nouns(point: str, terms: Terms, rules: RuleSet = ALL) -> list[str]:
    """The nouns a point must be found with: all but operation words (차이, 합계…), a title right
    after a name (:func:`titles`) and a light verbal noun right after its object (:func:`light`)."""
    named = terms(point)
    dropped = (titles(point, named) if rules.on("titles") else set()) | (light(point, named) if rules.on("light_nouns") else set())
    return [a.form for a in named if not OPERATION.search(a.form) and a.form not in dropped]


def cited_nouns(point: str, claims: list[dict[str, Any]], by_number: dict[str, Sentence], terms: Terms, rules: RuleSet = ALL) -> bool:
    """Whether every noun of ``point`` (operation words and, under rule ``number_kinds``, nouns
    that only name the kind of number asked excepted) is in the sentences the claims cite, their
    headings or their documents' titles: a claim that restates the point is no answer unless its
    sentences speak of it ("법인 등록번호는 5천만원입니다" citing "자본금: 5천만원")."""
    cited, heads = evidence(claims, by_number)
    kinds = rules.on("number_kinds")
    nouns = [w for w in point_nouns(point, terms, rules) if not (kinds and NUMBER_KIND.fullmatch(bare_term(w)))]
    return all_in(nouns, [*cited, *heads])


def asserts_missing(claim: dict[str, Any], point: str, by_number: dict[str, Sentence], terms: Terms, rules: RuleSet = ALL) -> bool:
    """Whether a claim of a ``partial`` answer states the very point the answer says the documents
    lack, from sentences that do not speak of it: it holds every noun of the point, its cited
    sentences (with their headings and titles) do not ("하늘여행사의 법인 등록번호는 5천만원입니다"
    citing "주식회사 하늘여행사 설립 (자본금 5천만원)", then "다만 문서에는 하늘여행사의 법인
    등록번호에 대한 내용이 없습니다"). Such a claim is a wrong answer, not a partial one."""
    nouns = point_nouns(point, terms, rules)
    said = normalise(claim["text"])
    if not nouns or not all(normalise(bare_term(w)) in said for w in nouns):
        return False
    # the point's numbers and Latin letters too ("B 투어의 가격" is not stated by "A 투어의 가격은 …")
    if unsupported_numbers(point, [claim["text"]], arithmetic=rules.on("arithmetic")) or any(normalise(w) not in said for w in _LETTERS.findall(point)):
        return False
    return not cited_nouns(point, [claim], by_number, terms, rules)


def asked_point(text: str) -> str | None:
    """When ``text`` is a question (it has a question word or a question mark), the question
    without its question words and its ending ("…시행된 시기는 언제인가요?" → "…시행된 시기는"): what an
    answer must restate around the fact it gives. None when it is not a question."""
    words = text.split()
    if not (text.strip().endswith(("?", "？")) or any(ASKING.match(w) for w in words)):
        return None
    kept = [w for w in words if not ASKING.match(w)]
    if kept:
        kept[-1] = ASK_ENDING.sub("", kept[-1])
    return " ".join(w for w in kept if w)


def restates_question(missing: str, question: str, share: float = 0.7) -> bool:
    """Whether the text a ``partial`` answer calls missing names no point of its own: it is
    empty, it is a question, or it holds at least ``share`` of the question's character bigrams
    (a small model often labels a full answer partial and names the question itself as missing)."""
    if not missing.strip() or asked_point(missing) is not None:
        return True
    asked = char_bigrams(question)
    return bool(asked) and len(char_bigrams(missing) & asked) / len(asked) >= share


def evidenced(point: str, question: str, claims: list[dict[str, Any]], by_number: dict[str, Sentence], terms: Terms, rules: RuleSet = ALL) -> bool:
    """Whether the claims, read with the sentences they cite, the headings shown above them and
    their documents' titles, hold every noun and number of ``point`` (what the question asks, or
    what a ``partial`` answer calls missing), and say something the question does not: a noun
    or a number of their own ("일본 전문 컨설턴트는 일본 전문 분야입니다" answers no comparison).
    A question asking 언제, 얼마 or 몇 needs a number in the claims that the question does not
    hold (rule ``number_question``); a noun that only names the kind of that number ("…이전한
    시기는 언제", "…길이는 얼마": rule ``number_kinds``) need not be written anywhere. Neither need
    operation words (차이, 합계…). A point without another noun is never evidenced this way."""
    said = " ".join(c["text"] for c in claims)
    cited, heads = evidence(claims, by_number)
    arithmetic = rules.on("arithmetic")
    own_number = bool(unsupported_numbers(said, [question], arithmetic=arithmetic))
    own = [a for a in terms(said) if normalise(bare_term(a.form)) not in normalise(question)]
    if not (own_number or own):
        return False  # nothing the question does not already say
    nouns = point_nouns(point, terms, rules)
    if rules.on("number_question") and NUMBER_QUESTION.search(question):
        if not own_number:
            return False
        if rules.on("number_kinds"):
            nouns = [w for w in nouns if not NUMBER_KIND.fullmatch(bare_term(w))]
    if not nouns or unsupported_numbers(point, [said, *cited], heads, arithmetic=arithmetic):
        return False
    return all_in(nouns, [*cited, *heads])  # what the documents say, not what the claims restate
