"""The names and numbers a question hangs on, and whether the knowledge base mentions them.

A question about 나트랑, LG전자 or the year 2030 cannot be answered from documents that never
name them, however close the retrieved passages look. The anchors are the question's proper
nouns, foreign words and years (Kiwi tags NNP, SL, and SN when it is a year: other numbers are
often hypothetical, "출발 10일 전에 취소하면", and answered by a rule for a range); one is *missing* when its characters
occur nowhere in the index's text (spaces and case ignored, so tokenisation cannot hide a match).
Common nouns are not anchors: an answerable question often words a fact differently from the
document (차이, 총액, 합계), so their absence proves nothing. An answer's claim is another matter:
it states a fact, and a noun no document contains (:func:`unknown_terms`) is one the documents
cannot support.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterable, Protocol, Sequence

from yakgwan.answer.ko_rules.lexicon import ASPECT, NOT_SUBJECT, NUMBER_KIND, OPERATION, PARTICLE_END, QUESTION_WORDS, YEAR_SUFFIX, either
from yakgwan.text.registry import make_tagger
from yakgwan.text.tokenizer import Morph, Tagger

ANCHOR_TAGS = frozenset({"NNP", "SL", "SN"})
TERM_TAGS = frozenset({"NNG", "NNP", "SL"})
# what may stand inside the noun phrase a question asks about, besides its nouns: 의 and a
# noun-making suffix (…율, …님) join nouns into one phrase ("회사 직원의 퇴직연금 수익률")
_PHRASE_GLUE = frozenset({"JKG", "XSN"})
# the tags a question word is given (누구/무엇: NP, 얼마/언제쯤: NNG, 몇/어느: MM, 얼마나/왜: MAG,
# 어떻(게): VA-I, compared without the irregular mark)
_ASKING_TAGS = frozenset({"NP", "NNG", "NNB", "NR", "MM", "MAG", "VA", "VV", "IC"})
# a question word as one token (general Korean): the word itself, or with 쯤 or 나 grown onto it
# (언제쯤, 얼마나); 어떻 is the stem Kiwi gives 어떻게 and 어떤 (왜곡, 몇몇 are not question words)
_ASKING_FORM = re.compile(rf"(?:{either(QUESTION_WORDS)}|어떻)(?:쯤|나)?")
_GAP = 4  # at most this many tokens (particles, a verb and its ending, the mark) stand between the phrase and its question word or end
_YEAR = re.compile(r"(?:19|20)\d\d")


@dataclass(frozen=True)
class Anchor:
    form: str
    tag: str


class Terms(Protocol):
    def __call__(self, text: str, verbal: bool = False) -> list[Anchor]:
        """The nouns of a text with their tags, in order; verbal nouns (보고하다) only when ``verbal``."""
        ...


Unknown = Callable[[str], list[str]]  # the words of a text that no document of the knowledge base contains


def normalise(text: str) -> str:
    """Text without whitespace, lower-cased: what anchor matching compares."""
    return "".join(text.split()).lower()


def mentioned(form: str, corpus: str, equivalents: Callable[[str], Sequence[str]] | None = None) -> bool:
    """Whether ``form``'s characters occur in ``corpus`` (already :func:`normalise`\\ d), or those
    of one of its ``equivalents`` (the document words a thesaurus maps it to)."""
    return normalise(form) in corpus or (equivalents is not None and any(normalise(t) in corpus for t in equivalents(form)))


def missing_anchors(anchors: Iterable[Anchor], corpus: str, equivalents: Callable[[str], Sequence[str]] | None = None) -> list[Anchor]:
    """The anchors whose characters do not occur in ``corpus`` (already :func:`normalise`d), nor
    any of their ``equivalents`` (the document words a thesaurus maps the form to: 서킷 is
    mentioned when 경기 is)."""
    return [a for a in anchors if not mentioned(a.form, corpus, equivalents)]


def bare_term(form: str) -> str:
    """A noun without a particle Kiwi left on it ("송민지의" → "송민지")."""
    return PARTICLE_END.sub("", form)


def subject_terms(terms: Iterable[Anchor]) -> list[str]:
    """The nouns of ``terms`` that say what a question is about, without a particle Kiwi left on
    them, once each: question words and time nouns (며칠, 작년, 지금:
    :data:`~yakgwan.answer.ko_rules.lexicon.NOT_SUBJECT`) say when or ask, and are left out."""
    forms = (bare_term(a.form) for a in terms)
    return list(dict.fromkeys(f for f in forms if f and not NOT_SUBJECT.fullmatch(f)))


def found_share(terms: Iterable[Anchor], corpus: str, equivalents: Callable[[str], Sequence[str]] | None = None) -> float:
    """The share of the question's subject nouns (:func:`subject_terms`) that occur in ``corpus``
    (already :func:`normalise`d), or one of whose ``equivalents`` does (the clause words a
    thesaurus maps a lay word to); 1 when there is none."""
    forms = subject_terms(terms)
    if not forms:
        return 1.0
    found = sum(1 for f in forms if mentioned(f, corpus, equivalents))
    return found / len(forms)


def asked_phrase(tokens: Sequence[Morph]) -> list[Anchor]:
    """The nouns of the phrase a question asks about: the run of nouns (joined by 의 or a
    noun-making suffix) whose last noun has at most :data:`_GAP` tokens between it and the
    question's first question word ("회사 직원의 퇴직연금은 얼마인가요?" → 회사, 직원, 퇴직연금), or, with
    none, before its end ("이 상품에 골프 특약이 있나요?" → 골프, 특약). Verbal nouns (설명하면) and
    the nouns that only name the kind of answer (차이, 구조, 기간:
    :data:`~yakgwan.answer.ko_rules.lexicon.OPERATION`, ``ASPECT``, ``NUMBER_KIND``) are left out:
    a document need not print them. Empty when no noun stands there (the question asks with its
    verb: "언제까지 청구하면 되나요?", "상장되어 있나요?") or the question word comes first."""
    end = next((i for i, t in enumerate(tokens) if t.tag.split("-")[0] in _ASKING_TAGS and _ASKING_FORM.fullmatch(t.form)), len(tokens))
    j = end - 1
    while j >= 0 and tokens[j].tag not in TERM_TAGS and end - j <= _GAP:
        j -= 1
    if j < 0 or tokens[j].tag not in TERM_TAGS:
        return []
    out: list[Anchor] = []
    while j >= 0 and (tokens[j].tag in TERM_TAGS or tokens[j].tag in _PHRASE_GLUE):
        t = tokens[j]
        verbal = j + 1 < len(tokens) and tokens[j + 1].tag in ("XSV", "XSA")
        if t.tag in TERM_TAGS and not verbal and len(t.form.strip()) >= 2:
            out.append(Anchor(t.form, t.tag))
        j -= 1
    return [a for a in reversed(out) if not (NOT_SUBJECT.fullmatch(a.form) or OPERATION.search(a.form) or ASPECT.fullmatch(a.form)
                                              or NUMBER_KIND.fullmatch(a.form))]


def found_shares(finder: "AnchorFinder", question: str, corpus: str,
                 equivalents: Callable[[str], Sequence[str]] | None = None) -> tuple[float, float]:
    """The two noun shares the answerability model reads (:func:`found_share`): over the
    question's nouns, and over the nouns of the phrase it asks about (:func:`asked_phrase`)."""
    return found_share(finder.terms(question), corpus, equivalents), found_share(finder.asked(question), corpus, equivalents)


def unknown_terms(terms: Iterable[Anchor], corpus: str) -> list[str]:
    """The nouns among ``terms`` that occur nowhere in ``corpus`` (already :func:`normalise`d),
    with or without a particle Kiwi left on them; operation words and words naming the kind of
    description asked (:data:`~yakgwan.answer.ko_rules.lexicon.OPERATION_TERMS`,
    :data:`~yakgwan.answer.ko_rules.lexicon.ASPECT_TERMS`) excepted. Rule ``unknown_terms``."""
    out = []
    for a in missing_anchors(terms, corpus):
        bare = bare_term(a.form)
        if not (OPERATION.search(a.form) or ASPECT.fullmatch(bare)) and (bare == a.form or normalise(bare) not in corpus):
            out.append(a.form)
    return list(dict.fromkeys(out))


@dataclass
class AnchorFinder:
    """Anchors of a question, read from the tags of the text registry's tagging analyser
    (Kiwi; made and loaded on first use unless ``tagger`` is given)."""

    tagger: Tagger | None = field(default=None, repr=False)

    def _tokens(self, text: str) -> list[Morph]:
        if self.tagger is None:
            self.tagger = make_tagger()
        return self.tagger.tagged(text)

    def tagged(self, text: str) -> list[Morph]:
        """``text``'s morphemes with their tags."""
        return self._tokens(text)

    def anchors(self, question: str) -> list[Anchor]:
        toks = self._tokens(question)
        out = []
        for i, t in enumerate(toks):
            if t.tag not in ANCHOR_TAGS:
                continue
            if t.tag == "SN":  # a year: 19xx/20xx written as one ("2030년"), not an amount ("2000만원")
                nxt = toks[i + 1].form if i + 1 < len(toks) else ""
                if not (_YEAR.fullmatch(t.form) and nxt.startswith(YEAR_SUFFIX)):
                    continue
            out.append(Anchor(t.form, t.tag))
        return list(dict.fromkeys(a for a in out if a.form.strip()))

    def asked(self, question: str) -> list[Anchor]:
        """The nouns of the phrase ``question`` asks about (:func:`asked_phrase`)."""
        return asked_phrase(self._tokens(question))

    def terms(self, text: str, verbal: bool = False) -> list[Anchor]:
        """The nouns and foreign words of ``text`` of two characters or more (a one-character
        noun is as often a mis-split name as a word), verbal nouns excepted unless ``verbal``:
        시행(되다), 보고(하다) name what happens, which documents word in many ways ("8월부터" for
        시행된)."""
        toks = self._tokens(text)
        found = (
            Anchor(t.form, t.tag)
            for i, t in enumerate(toks)
            if t.tag in TERM_TAGS and len(t.form.strip()) >= 2 and (verbal or not (i + 1 < len(toks) and toks[i + 1].tag in ("XSV", "XSA")))
        )
        return list(dict.fromkeys(found))
