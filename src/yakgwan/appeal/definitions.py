"""The policy's own definitions: the sentences that say what a term means ("‘자동차를 운전하던
중’이라 함은 … 말합니다", "“입원”이란 … 말합니다", "대중교통수단이라 함은 …"), and which of them
a notice leans on (the term appears in its reason) or denies (the term stands in a sentence that
says the facts are not it: 아니, 않, 없, 못, 제외 — general Korean negation).

The shapes read are the 약관's: a term, quoted or bare, followed by 이라/라 함은 (or 이란/란 after
a quoted term), or an item of a 용어의 정의 list ("나. 해외여행 중: …"), in a sentence that ends in
what it means. A bare term keeps at most three words and
loses the reference before it ("제1항에서 자동차" → 자동차). The 장해분류표's and the glossary
boxes' (【…】) entries are read like any other definition.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from yakgwan.core.records import Chunk
from yakgwan.text.sentences import clause_spans, letter_sentences

_QUOTED = r"[「“‘\"'『]\s*(?P<{0}>[^」”’\"'』\n]{{1,30}}?)\s*[」”’\"'』]"
_DEFINES = re.compile(
    _QUOTED.format("q") + r"\s*(?:\(이하[^)]*\))?\s*(?:이라|라)\s*(?:함은|하는 것은)"
    + r"|(?P<b>[가-힣A-Za-z]{2,}(?:[ ][가-힣]+){0,2}?)\s*(?:이라|라)\s*함은"
    + r"|" + _QUOTED.format("q2") + r"\s*(?:이란|란)\s"
    # the 용어의 정의 article's list: "나. 해외여행 중: … 말합니다", "1. 계약자 : …"
    + r"|^\s*(?:\d{1,2}|[가나다라마바사아자차카타파하])[.)]\s*(?P<c>[가-힣A-Za-z][가-힣A-Za-z ()·]{0,24}?)\s*:\s"
)
# a reference before a bare term ("제1항에서 자동차", "이 특별약관에서 피보험자") is not the term
_LEAD = re.compile(r"^(?:(?:제?\s*\d+\s*)?(?:항|조|호)|이?\s*(?:(?:특별)?약관|특약))(?:에서|의)\s*")
# how a 약관 definition says what the term means (표준약관 wording)
_MEANS = re.compile(r"말합니다|말한다|봅니다|의미합니다|뜻합니다|말하며|의미하며")


@dataclass(frozen=True)
class Definition:
    """``term`` as the sentence ``chunk.text[start:end]`` defines it."""

    term: str
    chunk: Chunk
    start: int
    end: int

    @property
    def sentence(self) -> str:
        return self.chunk.text[self.start : self.end]


def _term(m: re.Match[str], document: str) -> str | None:
    """The defined term of match ``m``. A bare term before "이라 함은" is read two ways: the 이
    belongs to 이라 ("대중교통수단이라" = 대중교통수단 + 이라) or to the noun ("어린이라" = 어린이 + 라).
    The 이 goes with 이라 unless ``document`` (the policy's text) writes the longer form with a
    particle that only follows a vowel ("어린이가", "어린이는") and never the shorter one with a
    particle that only follows a consonant ("어린은", "어린을")."""
    term = m.group("q") or m.group("q2") or m.group("c")
    if term is None:
        term = _LEAD.sub("", m.group("b"))
        if term.endswith("이") and m.string[m.end("b") :].lstrip().startswith("라"):
            short = term[:-1]
            long_used = re.search(re.escape(term) + r"(?:가|는|를|와|로|랑)(?![가-힣])", document)
            short_used = re.search(re.escape(short) + r"(?:은|을|과|으로)(?![가-힣])", document)
            if short_used or not long_used:
                term = short
    term = " ".join(term.split())
    return term if len(term.replace(" ", "")) >= 2 else None


def definitions(chunks: list[Chunk]) -> list[Definition]:
    """Every definition sentence of ``chunks``, in document order, each term once per 약관 (its
    first definition there)."""
    out: list[Definition] = []
    seen: set[tuple[str | None, str]] = set()
    ordered = sorted(chunks, key=lambda c: (c.doc_id, c.start))
    document = "\n".join(c.text for c in ordered)
    for c in ordered:
        for s, e in clause_spans(c.text):
            sentence = c.text[s:e]
            for m in _DEFINES.finditer(sentence):
                term = _term(m, document)
                if term is None or not _MEANS.search(sentence, m.end()) or (c.yakgwan, term) in seen:
                    continue
                seen.add((c.yakgwan, term))
                out.append(Definition(term, c, s, e))
    return out


def uses(term: str, text: str) -> bool:
    """Whether ``text`` uses ``term`` as a word (spacing aside): not inside a longer word
    (골절입원일당 does not use 입원)."""
    letters = [re.escape(ch) for ch in term if not ch.isspace()]
    return re.search(r"(?<![가-힣])" + r"\s*".join(letters), text) is not None


def leaned_on(defs: list[Definition], text: str, limit: int = 2) -> list[Definition]:
    """The definitions whose term ``text`` uses, longest term first (a longer term says more
    about the reading in dispute) and a 특약's own definition before the 보통약관's of the same
    term, at most ``limit``, one per term."""
    used = [d for d in defs if uses(d.term, text)]
    used.sort(key=lambda d: (-len(d.term.replace(" ", "")), d.chunk.yakgwan == "보통약관"))
    out: list[Definition] = []
    for d in used:
        if all(d.term.replace(" ", "") != o.term.replace(" ", "") for o in out):
            out.append(d)
    return out[:limit]


# a sentence that says something is not so (general Korean negation)
_NEGATED = re.compile(r"아니|않|없|못|제외")


def denied(defs: list[Definition], text: str, limit: int = 2) -> list[Definition]:
    """The definitions whose term ``text`` uses in a sentence that negates: where a notice says
    the facts are not the defined thing, the definition decides."""
    sentences = negated_sentences(text)
    return leaned_on(defs, " / ".join(sentences), limit) if sentences else []


# what a definition says does not matter ("도로여부, 주정차여부를 불문하고") and what it lists as
# included ("승용자동차, 승합자동차 … 및 건설기계를 말합니다"): general 약관 wording
_SETS_ASIDE = re.compile(r"([^.]{1,80}?)\s*(?:여부를?\s*)?(?:불문하고|관계없이|상관없이)")
_LIST = re.compile(r"[가-힣A-Za-z]{2,}(?:\s*(?:,|및|또는)\s*[가-힣A-Za-z]{2,}){2,}")
_DEFINING = re.compile(r"(?:함은|이란|란)\s")


def sets_aside_or_lists(d: Definition) -> str:
    """The words of ``d``'s defining part that name what does not matter (before 불문하고,
    관계없이, 상관없이) or that it lists as included (an enumeration of three or more with ","
    and 및/또는); parentheses (an exclusion such as "(전세버스 제외)") and a 다만 are left out."""
    m = _DEFINING.search(d.sentence)
    part = d.sentence[m.end() :] if m else d.sentence
    part = re.split(r"다만\s*,", part)[0]
    while re.search(r"\([^()]*\)", part):
        part = re.sub(r"\([^()]*\)", " ", part)
    out = [g.group(1).replace("여부", " ") for g in _SETS_ASIDE.finditer(part)]  # "X 여부": X is the ground
    for g in _LIST.finditer(part):  # the enumeration, with its last item whole ("… 및 …에 정한 건설기계")
        after = part[g.end() :] + d.chunk.text[d.end : d.end + 200]  # to the sentence's end, which a wrapped line may put past the span
        if _NEGATED.search(re.split(r"[.]", after, maxsplit=1)[0]):
            continue  # "…, 복강경, 내시경 등의 수술은 …로 보지 않습니다": a list of what is not the term
        end = re.search(r"[을를]\s*말합니다|[.]", part[g.end() : g.end() + 40])
        out.append(part[g.start() : g.end() + (end.start() if end else 0)])
    # a law the definition refers to ("자동차관리법 시행규칙 제2조에 정한") names no ground itself
    return _LAW.sub(" ", " ".join(out))


_LAW = re.compile(r"\S*(?:법|령|규칙)(?:\s*시행(?:령|규칙))?(?:\s*제\s*\d+\s*조(?:\([^)]*\))?)?(?:\s*(?:에\s*정한|에서\s*정한|에\s*따른))?")


def ground_words(words: list[str]) -> set[str]:
    """The content words among tokenizer ``words``: two or more Hangul letters, not a verb stem
    ending in 하 (정하, 말하)."""
    return {w for w in words if len(w) >= 2 and re.fullmatch(r"[가-힣]+", w) and not w.endswith("하")}


def negated_sentences(text: str) -> list[str]:
    """The sentences of ``text`` that say something is not so."""
    return [s for line in text.splitlines() for s in letter_sentences(line) if _NEGATED.search(s)]
