"""The shown sentence that holds what a question asks, on its own: what an answer may quote when
the model's claims do not hold the point, and what an extractive answer must come from."""

from __future__ import annotations

from yakgwan.answer.anchors import Terms, bare_term, normalise
from yakgwan.answer.grounding.cited import char_bigrams
from yakgwan.answer.ko_rules.lexicon import COMPUTING, CURRENT, PERCENT, RATIO_NOUN, WHETHER, YEAR_CELL
from yakgwan.answer.ko_rules.point import ALL, asked_point, evidenced
from yakgwan.answer.ko_rules.ruleset import RuleSet
from yakgwan.answer.passages import header_row, labels_only, row_cells
from yakgwan.answer.records import Sentence


def dated(sentence: Sentence) -> str | None:
    """The year of a table row that states a value as of a year ("| 2020 | 85,000,000원 | COO 취임 |"
    in a salary history), unless the row says it is the current one (현재); None otherwise."""
    if header_row(sentence) is None or CURRENT in sentence.text:
        return None
    for cell in row_cells(sentence.text):
        if m := YEAR_CELL.fullmatch(cell):
            return m.group(1)
    return None


def quoted_point(question: str, by_number: dict[str, Sentence], terms: Terms, rules: RuleSet = ALL) -> Sentence | None:
    """Of the sentences :func:`holding_point` finds, the one sharing most character bigrams with
    the question (ties: the first shown); None when none holds the point."""
    asked = char_bigrams(question)
    fits = holding_point(question, by_number, terms, rules)
    return max(fits, key=lambda s: (len(asked & char_bigrams(s.text)), -int(s.number) if s.number.isdigit() else 0), default=None)


def holding_point(question: str, by_number: dict[str, Sentence], terms: Terms, rules: RuleSet = ALL) -> list[Sentence]:
    """The shown sentences that, each read with its heading and its document's title, hold every
    noun and number the question asks about and say something of their own (a table row with its
    header row: "| 부산 지사 | 8명 |" under "| 지사 | 직원 수 |" holds 직원): the test of
    :func:`~yakgwan.answer.ko_rules.point.evidenced` with the sentence standing as its own claim
    ("…당일 취소 시 환불이 가능한가요?" → "| 출발 당일 | 환불 불가 | 100% |" under "국내여행 취소
    규정"). One sentence, never a combination: a total, a difference or a count of years is not
    quoted. Nothing is paraphrased, so the sentence or its heading must also hold the verbs' nouns
    of the point (rule ``verbal_nouns``: "…누구에게 보고하나요?": 보고; not those asking whether,
    :data:`~yakgwan.answer.ko_rules.lexicon.WHETHER_TERMS`: "환불이 가능한가요?" is answered by "환불
    불가") and every word of the question that asks for a computation (rule ``computing_words``:
    총, 합계, 차이, 모든…): "…추가하면 총 가격은?" is not answered by one of the prices, "총 직원
    수는?" is by "총 직원 수: 45명"; a percentage states a 비율 (rule ``percent_ratio``). A
    history-table row of a year the question does not name (:func:`dated`) holds the point only
    when nothing current does (rule ``current_rows``): "박민수의 연봉은?" is answered by "현재 연봉:
    120,000,000원", not by the 2020 row; "…COO로 취임한 해는?" by the 2020 row."""
    point = asked_point(question) or question
    words = COMPUTING.findall(question) if rules.on("computing_words") else []
    if rules.on("verbal_nouns"):
        plain = set(terms(question))  # the whole question: Kiwi reads a cut ending ("보고하") as another verb
        words += [bare_term(a.form) for a in terms(question, verbal=True) if a not in plain and not WHETHER.fullmatch(bare_term(a.form))]
    percent = rules.on("percent_ratio")

    def holds(s: Sentence) -> bool:
        said = f"{head} {s.text}" if (head := header_row(s)) else s.text  # a table row says what its header names
        seen = normalise(" ".join([said, s.chunk.heading(), s.chunk.title]))
        return (all(normalise(w) in seen or (percent and w == RATIO_NOUN and PERCENT.search(said)) for w in words)
                and evidenced(point, question, [{"text": said, "cite": [s.number]}], by_number, terms, rules))

    fits = [s for s in by_number.values() if not labels_only(s) and holds(s)]
    if not rules.on("current_rows"):
        return fits
    current = [s for s in fits if (year := dated(s)) is None or year in question]
    return current or fits
