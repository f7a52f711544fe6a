""""어떤 특약이 …를 보장하나요?": the 특약 whose coverage article speaks to the question, each cited.

A question that asks which 특약 (an interrogative determiner before 특약, 특별약관 or 담보, or one
after it: "…보장하는 특약은 무엇인가요?") or whether one exists ("…주는 특약이 있나요?") and names
none is answered with a list, not with the
best few quotes: several 특약 often pay for one event (벌금, 가족벌금 and 자전거사고 벌금).

1. candidates: the coverage articles (:data:`COVERAGE_TITLES`) among the first
   :data:`LIST_RANKS` retrieved hits and the clone 특약 each hit lists as members
   (:mod:`yakgwan.retrieval.grouping`);
2. each 약관's best unit of its coverage article, by the embedder's cosine with the question
   (:mod:`yakgwan.answer.select`); every 약관 within :data:`LIST_MARGIN` of the best is listed,
   at most :data:`LIST_MAX`;
3. the calibrated answerability model reads the listed units (:mod:`yakgwan.answer.answerability`):
   ``refused`` there (or no coverage article among the first hits) is a refusal: the coverage
   articles are where a 약관 says what it pays, and none speaks to the question; ``partial`` says
   the quotes may not hold the point.

``LIST_RANKS`` and ``LIST_MARGIN`` were chosen on the tuning half (even rows) of
``tests/data/answers/which_rider_policy.jsonl`` and checked on its odd rows (docs/answers.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from yakgwan.answer.answerability import shown_p
from yakgwan.answer.extract_units import UnitAnswerer, features, shown_unit
from yakgwan.answer.records import REFUSAL, Citation, Generated
from yakgwan.messages import msg
from yakgwan.answer.select import score_units
from yakgwan.answer.units import hit_units
from yakgwan.core.records import Hit

# the two names 표준약관 give the article that says what a 약관 pays (insurance vocabulary)
COVERAGE_TITLES = ("보험금의 지급사유", "보상하는 손해")
LIST_RANKS = 3  # retrieved hits (with their clone members) whose coverage articles are candidates
LIST_MARGIN = 0.03  # a 약관 is listed when its best unit's cosine is within this of the best one's
LIST_MAX = 8

# general Korean grammar: an interrogative determiner before the 약관 word, or an interrogative
# pronoun (or 어떤/어느 + 것) after it
_KIND = r"(?:특약|특별약관|담보)"
_END = r"\s*[?？.!]*\s*$"  # the end of the question
_WHICH = re.compile(
    rf"(?:어떤|어느|무슨)\s*{_KIND}(?!\s*(?:이든|이나|든지))"  # "어떤 특약이 …" (not "어느 특약이든": any)
    # "…특약은 무엇인가요?" (not "이 특약은 무엇을 보장하나요?": what a named one covers)
    rf"|(?<![이그저제내])(?<!해당)\s{_KIND}\s*(?:은|는|이|가|으로|로)?\s*(?:무엇|뭐|뭔|어떤\s*(?:것|게|거)|어느\s*(?:것|거))(?!\s*[을를])"
    # "…주는 특약이 있나요?" at the end of the question, or "…특약이 있는지 알려 주세요"
    rf"|{_KIND}\s*(?:이|가|은|는)?\s*(?:있|없)(?:(?:나요|나|어요|어|을까요|습니까|는가요|는가|는지요|는지){_END}|는지\s*(?:궁금|알려|알고))"
)


def asks_which_rider(question: str) -> bool:
    """Whether the question asks which 특약 (see the module docstring)."""
    return bool(_WHICH.search(question))


def coverage_hits(hits: Sequence[Hit], ranks: int = LIST_RANKS) -> list[Hit]:
    """The coverage-article chunks of the first ``ranks`` hits and of their members, each as a hit
    of its own at its group's rank (so that each clone 특약 is a candidate of its own)."""
    out: list[Hit] = []
    seen: set[str] = set()
    for h in hits[:ranks]:
        for c in (h.chunk, *h.members):
            if c.article_title in COVERAGE_TITLES and c.yakgwan and c.chunk_id not in seen:
                seen.add(c.chunk_id)
                out.append(Hit(c, h.score, h.rank, h.produced_by))
    return out


NONE_FOUND = f"{REFUSAL} (보험금 지급사유에 이 내용이 있는 특약을 찾지 못했습니다.)"


def rider_list(question: str, hits: Sequence[Hit], answerer: UnitAnswerer, margin: float = LIST_MARGIN, ranks: int = LIST_RANKS) -> Generated:
    """The list answer; ``refused`` when no coverage article is among the first ``ranks`` hits or
    the calibrated model refuses the listed units (the coverage articles are where a 약관 says what
    it pays: none of them speaks to the question)."""
    units = hit_units(coverage_hits(hits, ranks))
    if not units:
        return Generated("refused", NONE_FOUND, [], notes=[msg("note.riders_no_coverage", ranks=ranks)], reason="off_topic")
    scored = score_units(question, units, answerer.embedder, answerer.tokenizer, answerer.weights)
    best: dict[str, int] = {}  # 약관 -> its best unit
    for i, u in enumerate(units):
        y = u.chunk.yakgwan or ""
        if y not in best or scored.cos[i] > scored.cos[best[y]]:
            best[y] = i
    top = max(float(scored.cos[i]) for i in best.values())
    listed = sorted((i for i in best.values() if scored.cos[i] >= top - margin), key=lambda i: -scored.cos[i])[:LIST_MAX]
    # the model was calibrated on at most ``keep`` quoted units: it reads the best of the listed
    p = answerer.model.probability(features(scored, listed[: answerer.weights.keep], answerer.found(question)))
    outcome = answerer.model.outcome(p)
    note = msg("note.riders_answerability", p=shown_p(p), answered=f"{answerer.model.answered:.2f}", partial=f"{answerer.model.partial:.2f}")
    if outcome == "refused":
        return Generated("refused", NONE_FOUND, [], notes=[note, msg("note.riders_refused")], reason="off_topic")
    order = sorted(listed, key=lambda i: (units[i].chunk.pages[0] if units[i].chunk.pages else 0, units[i].start))
    names = [units[i].chunk.yakgwan or "" for i in order]
    cites = [Citation.of(n, units[i].chunk, units[i].text, units[i].heading()) for n, i in enumerate(order, 1)]
    lines = "\n".join(f"{n}. {shown_unit(units[i])} [{n}]" for n, i in enumerate(order, 1))
    claims = f"보험금 지급사유에 이 내용이 있는 특약: {', '.join(names)}.\n{lines}"
    tail = "" if outcome == "answered" else "\n다만 인용한 조항이 묻는 보장을 바로 정하는지는 확실하지 않습니다."
    return Generated(outcome, claims + tail, cites, notes=[note, msg("note.riders_listed", ranks=ranks, margin=margin, n=len(order))], claims_text=claims)
