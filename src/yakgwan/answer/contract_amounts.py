"""An amount the 약관 leaves to the contract: "몇 만원 받아요?" over a clause that pays "보험가입금액".

A 약관 is printed once for every policyholder, so it rarely states the sum a policyholder gets:
it pays "보험가입금액" (the sum on the certificate) or prints a blank (``( )만원``, ``00만원``,
``( )일``). When the question asks for an amount and the quoted units state none, only such a
placeholder, the honest answer is that the policy leaves it to the certificate, quoting the
clause. When the quotes state no amount of that kind at all (a premium, a refund, a discount
rate: figures the printed 약관 computes per contract but never prints), the answer says that the
quoted clauses do not state it and quotes what they do say. Both are ``partial`` answers (the
clauses are on the topic; the figure is the contract's, or not printed), never refusals, each with
its reason (``left_to_contract``, ``not_stated``). Vocabulary (general Korean and insurance terms, not taken from any
test question):

- three kinds of amount (:data:`KINDS`): money (asked by 얼마, 몇 만원, 금액; left as 보험가입금액,
  가입금액, ``( )만원``, ``00만원``), percent (몇 프로; ``( )%``) and days (며칠, 몇 일; ``( )일``);
- a stated amount is a figure of the kind asked (``2천만원``, ``50%``, ``180일``; a money amount may
  also be stated as a share, ``50% 상당액``) outside a worked example (``【예시】``); the question
  must ask only kinds the quotes leave open.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Sequence

from yakgwan.answer.records import Generated
from yakgwan.messages import msg

_BLANK = r"[(（]\s*[)）]\s*"


@dataclass(frozen=True)
class AmountKind:
    """One kind of amount: how a question asks for it, how a 약관 leaves it to the contract, how a
    clause states it."""

    name: str
    asks: re.Pattern[str]
    left: re.Pattern[str]
    stated: re.Pattern[str]


KINDS = (
    AmountKind("money", re.compile(r"얼마|몇\s*(?:십|백|천)?\s*(?:만\s*)?(?:원|억)|금액"),
               re.compile(r"보험가입금액|가입금액|" + _BLANK + r"(?:만\s*)?원|0{2}\s*만\s*원"),
               re.compile(r"\d[\d,.]*\s*(?:천|백|십)?\s*(?:만|억)?\s*원|\d[\d.]*\s*%")),  # a share of a sum states it too
    AmountKind("percent", re.compile(r"몇\s*(?:프로|퍼센트|%)"), re.compile(_BLANK + r"%"), re.compile(r"\d[\d.]*\s*%")),
    AmountKind("days", re.compile(r"몇\s*일|며칠"), re.compile(_BLANK + r"일"), re.compile(r"\d+\s*(?:영업)?일(?!\s*당)")),  # "1일당" is a rate, not a count; "3영업일" a count
)
_EXAMPLE = re.compile(r"[【\[<(]\s*예\s*시\s*[】\]>)]")  # a worked example's figures are not the policy's amount

LEFT_TO_CONTRACT = "약관은 이 금액을 정하지 않습니다. 보험증권에 적힌 보험가입금액(또는 가입할 때 정한 금액)에 따릅니다."
NOT_STATED = "인용한 약관 조항에는 물으신 수치(금액·비율·일수)가 적혀 있지 않습니다. 조항이 정하는 것은 아래 인용과 같고, 계약마다 정해지는 금액은 보험증권이나 가입설계서에 적혀 있습니다."


def asked_kinds(question: str) -> list[AmountKind]:
    return [k for k in KINDS if k.asks.search(question)]


def states_amount(kind: AmountKind, quotes: Sequence[str]) -> bool:
    """A quote outside a worked example states a figure of this kind (placeholders aside)."""
    return any(kind.stated.search(kind.left.sub("", q)) for q in quotes if not _EXAMPLE.search(q))


def left_to_contract(question: str, done: Generated) -> Generated | None:
    """The "left to your certificate" answer, quoting the clause(s) that hold the placeholder, or
    the "not stated" answer, quoting what the clauses do say, when no quote states an amount of
    any kind asked; None when the question asks no amount, the answer quotes nothing, or a quote
    states one."""
    if done.outcome == "refused" or not done.citations:
        return None
    quotes = [c.quote for c in done.citations]
    asked = asked_kinds(question)
    if not asked or any(states_amount(k, quotes) for k in asked):
        return None
    kinds = [k for k in asked if any(k.left.search(q) for q in quotes)]  # no figure stated: a placeholder leaves it to the contract
    if not kinds:
        marks = " ".join(f"[{c.n}]" for c in done.citations)
        return Generated("partial", f"{NOT_STATED} {marks}", list(done.citations),
                         notes=done.notes + [msg("note.no_figure_stated")], claims_text=NOT_STATED, reason="not_stated",
                         conclusion=f"{NOT_STATED} {marks}")
    keep = [c for c in done.citations if any(k.left.search(c.quote) for k in kinds)]
    cites = [replace(c, n=n) for n, c in enumerate(keep, 1)]
    marks = " ".join(f"[{c.n}]" for c in cites)
    return Generated("partial", f"{LEFT_TO_CONTRACT} {marks}", cites, notes=done.notes + [msg("note.left_to_contract")],
                     claims_text=LEFT_TO_CONTRACT, reason="left_to_contract", conclusion=f"{LEFT_TO_CONTRACT} {marks}")
