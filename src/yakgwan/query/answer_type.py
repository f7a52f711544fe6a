"""The kind of answer a question asks for (whether something is paid, which documents, a period,
an amount), read from general Korean question forms, and the articles of a 약관 that give that
kind of answer, read from their titles. The lexicon is data (``data/answer_types.json``, each
entry's source in its ``_about``); the functions are pure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from yakgwan.core.records import Chunk


PAID = "paid"  # whether something is paid: the kind a question asks when it asks for nothing more exact
AMOUNT = "amount"  # how much is paid


@dataclass(frozen=True)
class AnswerTypes:
    """The lexicon: question cues by kind, title words by article role, the roles each kind wants."""

    asks: dict[str, tuple[str, ...]]
    roles: dict[str, tuple[str, ...]]
    answers: dict[str, tuple[str, ...]]
    last_clause: frozenset[str] = frozenset()  # kinds whose cues ask only in the question's last clause
    enumerates: tuple[str, ...] = ()  # cues of a question that asks for every member of a list or table

    @classmethod
    def from_json(cls, data: dict) -> "AnswerTypes":
        asks = {k: tuple(v) for k, v in data["asks"].items()}
        roles = {k: tuple(v) for k, v in data["roles"].items()}
        answers = {k: tuple(v) for k, v in data["answers"].items()}
        last = frozenset(data.get("last_clause", ()))
        if last - set(asks):
            raise ValueError(f"answer_types: last_clause names kinds no cue asks: {', '.join(sorted(last - set(asks)))}")
        for kind, wanted in answers.items():
            if kind not in asks:
                raise ValueError(f"answer_types: '{kind}' answers questions no cue asks")
            for role in wanted:
                if role not in roles:
                    raise ValueError(f"answer_types: '{kind}' wants the unknown role '{role}'")
        return cls(asks, roles, answers, last, tuple(data.get("enumerates", ())))


@lru_cache(maxsize=1)
def bundled() -> AnswerTypes:
    """The bundled lexicon (read once)."""
    text = resources.files("yakgwan.query").joinpath("data/answer_types.json").read_text(encoding="utf-8")
    return AnswerTypes.from_json(json.loads(text))


def _squash(text: str) -> str:
    return "".join(text.split())


# a syllable whose final consonant is ㄴ (간, 건, 한 …): with 데 after it, the ending -ㄴ데
_N_FINAL = "".join(chr(0xAC00 + 28 * i + 4) for i in range(399))
# a word that ends a clause the question goes on from (general Korean grammar): a connective ending
# (-는데, -ㄴ데, -지만, -니까, -아서/-어서, -면서), -면 unless 되다 follows ("어떻게 하면 되나요"
# asks in its -면 clause), a comma, or the end of a sentence before another
_CLAUSE_END = re.compile(rf"(?:(?:는데|[{_N_FINAL}]데|지만|니까|아서|어서|해서|면서|[,.?!？])(?=\s)|면(?=\s+[^\s되돼]))")
_TRAILING = re.compile(r"[\s.?!？]+$")


def last_clause(question: str) -> str:
    """The words of ``question`` after its last clause-ending word, its closing marks left off
    (the whole question when there is none): where a question word asks rather than says
    "someone"."""
    q = _TRAILING.sub("", question)
    ends = list(_CLAUSE_END.finditer(q))
    return q[ends[-1].end():] if ends else q


def asked_kinds(question: str, types: AnswerTypes) -> frozenset[str]:
    """The kinds of answer ``question`` asks for (empty: none recognised); the kinds of
    ``types.last_clause`` only by a cue in its last clause (:func:`last_clause`)."""
    q, tail = _squash(question), _squash(last_clause(question))
    kinds = frozenset(kind for kind, cues in types.asks.items() if any(cue in (tail if kind in types.last_clause else q) for cue in cues))
    return kinds - {PAID} if kinds - {PAID} else kinds


def asks_whole_list(question: str, types: AnswerTypes) -> bool:
    """Whether ``question`` asks for every member of a list or a table ("지사는 몇 개", "어떤 팀들이
    있나요"): a count, a total or a plural asked about (``types.enumerates``)."""
    q = _squash(question)
    return any(cue in q for cue in types.enumerates)


def title_roles(title: str | None, types: AnswerTypes) -> frozenset[str]:
    """The roles an article plays by its title ("보험금의 지급사유" → pays)."""
    t = _squash(title or "")
    if not t:
        return frozenset()
    return frozenset(role for role, words in types.roles.items() if any(w in t for w in words))


def answers_kind(title: str | None, kinds: frozenset[str], types: AnswerTypes) -> bool:
    """Whether an article titled ``title`` gives an answer of one of ``kinds``."""
    if not kinds:
        return False
    roles = title_roles(title, types)
    return any(role in roles for kind in kinds for role in types.answers.get(kind, ()))


def piece_gives(chunk: Chunk, kinds: frozenset[str], types: AnswerTypes) -> bool:
    """Whether ``chunk`` is a piece of an article whose title gives one of ``kinds`` — never a
    quoted law, whose 조 are not the policy's."""
    return chunk.kind != "law" and answers_kind(chunk.article_title, kinds, types)
