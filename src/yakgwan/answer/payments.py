"""Payments a question asks about that the documents never name.

"교통사고로 벌금이 나왔는데 자동차보험에서 대신 내주나요?" asked of a motor policy that has no
벌금 cover retrieves the policy's nearest clauses, and they look close. What settles it is the
payment itself: a question asking whether something is paid names the payment (벌금, 입원비,
약값, 취소 수수료 — nouns with a payment head, :data:`~yakgwan.answer.ko_rules.lexicon.PAYMENT_HEADS`),
and a policy that pays it names it. A payment named nowhere in the documents (spaces ignored), nor
any clause word the insurance thesaurus maps it to, is one the documents do not promise: the
answer is ``partial``, saying so first, and then shows what the policy's nearest clauses do say
(even when the calibrated decision found none of them on topic). It is not refused: a lay word
(약값) may stand for a clause word the thesaurus lacks (처방조제비), and the clauses shown let the
reader judge.

A payment counts as named only where a policy promises things: in its 약관 and the 별표 that
follow them (:func:`promise_text`). The guides and laws printed after the 약관 — a table of the
documents each kind of claim needs, whatever the product; a statute quoted whole — name payments
the policy does not make (a dental policy's claim guide lists 입원일당 forms).

The functions are pure: the caller tags the question and supplies the documents' text.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterable, Sequence

from yakgwan.answer.anchors import mentioned, normalise
from yakgwan.answer.ko_rules.lexicon import NOT_PAYMENTS, NOT_SUBJECT, PAYMENT_HEADS
from yakgwan.answer.records import Generated
from yakgwan.core.records import Chunk
from yakgwan.messages import msg
from yakgwan.text.tokenizer import Morph

_NOUN = "NNG"
_NOUNISH = (_NOUN, "XSN")  # a head may come tagged as a noun or as a suffix (입원 + 비)
_VERBAL = ("XSV", "XSA")  # a verbal noun's suffix: 준비(하다) names an act, not a payment


def payment_nouns(morphs: Sequence[Morph]) -> list[str]:
    """The payments a tagged question names, once each, in order: a noun ending in a payment head
    (입원비, 벌금), or a noun followed by a head Kiwi tagged apart (진단 + 금 → 진단금, 차 + 값 →
    차값, 숙소 + 비용 → 숙소비용). A payment noun written together with the noun before it is
    one compound, named whole (만기 + 환급금 → 만기환급금: which 환급금 is asked about); a space
    between them keeps them apart. A verbal noun (준비하다), a time or question noun (지금) and a
    noun whose last syllable only looks like a head (치료, 동료, 장비:
    :data:`~yakgwan.answer.ko_rules.lexicon.NOT_PAYMENTS`) are not payments."""
    out: list[str] = []
    for i, m in enumerate(morphs):
        if m.tag not in _NOUNISH:
            continue
        nxt = morphs[i + 1] if i + 1 < len(morphs) else None
        if nxt is not None and nxt.tag in _NOUNISH and nxt.form in PAYMENT_HEADS:
            continue  # the head that follows makes the compound
        if nxt is not None and nxt.tag in _VERBAL:
            continue
        if m.form in PAYMENT_HEADS:
            stem = _stem_before(morphs, i)
            if stem:
                out.append(stem + m.form)
        elif m.tag == _NOUN and len(m.form) >= 2 and m.form.endswith(PAYMENT_HEADS) and m.form not in NOT_PAYMENTS \
                and not NOT_SUBJECT.fullmatch(m.form):
            before = morphs[i - 1] if i > 0 else None
            joined = before is not None and before.tag == _NOUN and before.end == m.start and not NOT_SUBJECT.fullmatch(before.form)
            out.append(before.form + m.form if joined and before is not None else m.form)
    return list(dict.fromkeys(out))


def _stem_before(morphs: Sequence[Morph], i: int) -> str:
    """The noun a head at ``i`` was tagged apart from, with the suffixes between (항공 + 권 → 항공권);
    empty when no noun comes right before it."""
    j, parts = i - 1, []
    while j >= 0 and morphs[j].tag == "XSN":
        parts.insert(0, morphs[j].form)
        j -= 1
    return morphs[j].form + "".join(parts) if j >= 0 and morphs[j].tag == _NOUN else ""


def head_variants(payment: str) -> list[str]:
    """``payment`` and the same stem with each other payment head (치료비용 → 치료비, 치료금 …): a
    payment the documents name with another head is named. A one-syllable stem keeps its own head
    only (약 + 금 is inside 계약금). Pure."""
    head = next((h for h in PAYMENT_HEADS if payment.endswith(h) and len(payment) > len(h)), None)
    if head is None or len(payment) - len(head) < 2:
        return [payment]
    stem = payment[: -len(head)]
    return [payment, *(stem + h for h in PAYMENT_HEADS if h != head)]


def promise_text(chunks: Iterable[Chunk]) -> str:
    """The :func:`~yakgwan.answer.anchors.normalise`\\ d text in which ``chunks``' documents
    promise payments: each chunk filed under a 약관 or under a 별표 that follows one; a document
    with no 약관 at all (a guide, a wiki page) counts whole. Pure."""
    chunks = list(chunks)
    structured = {c.doc_id for c in chunks if c.yakgwan}
    return normalise("\n".join(c.text for c in chunks if c.doc_id not in structured or c.yakgwan or c.follows))


def unnamed_payments(payments: Iterable[str], corpus: str, equivalents: Callable[[str], Sequence[str]] | None = None) -> list[str]:
    """The ``payments`` whose characters occur nowhere in ``corpus`` (already
    :func:`~yakgwan.answer.anchors.normalise`\\ d), with any payment head (:func:`head_variants`),
    nor any of their ``equivalents`` (the clause words a thesaurus maps the word to) other than
    its own stem. A compound's equivalents include those of the payment word it ends with
    (교통사고합의금: those of 합의금), and a payment's those of its stem that are payments
    themselves (변호사비: 변호사 → 변호사선임비용)."""
    return [p for p in payments if not mentioned(p, corpus, _paying(_of_payment(equivalents)))
            and not any(normalise(v) in corpus for v in head_variants(p)[1:])]


def _is_payment(word: str) -> bool:
    w = normalise(word).replace(" ", "")
    return len(w) >= 2 and w.endswith(PAYMENT_HEADS) and w not in NOT_PAYMENTS


def _of_payment(equivalents: Callable[[str], Sequence[str]] | None) -> Callable[[str], Sequence[str]] | None:
    """The equivalents of a payment: a word's own, else those of the longest word of two
    syllables or more it ends with that has any (the payment noun of a compound); and the
    equivalents of its stem (the word without its payment head) that are payments."""
    if equivalents is None:
        return None

    def of(form: str) -> Sequence[str]:
        own: Sequence[str] = ()
        for i in range(len(form) - 1):
            if own := equivalents(form[i:]):
                break
        head = next((h for h in PAYMENT_HEADS if form.endswith(h) and len(form) - len(h) >= 2), None)
        stem = [e for e in equivalents(form[: -len(head)]) if _is_payment(e)] if head else []
        return [*own, *stem]

    return of


def _paying(equivalents: Callable[[str], Sequence[str]] | None) -> Callable[[str], Sequence[str]] | None:
    """``equivalents`` without the words a payment itself contains: 입원 for 입원비 names the
    event, not the payment (입원치료확인서 names no 입원비)."""
    if equivalents is None:
        return None
    return lambda form: [e for e in equivalents(form) if normalise(e) not in normalise(form)]


def not_promised(missing: Sequence[str], on_topic: bool = True) -> str:
    """The sentence an answer about payments the documents never name leads with (what is known:
    the word is nowhere in them); ``on_topic`` False: the calibrated decision found no retrieved
    clause on the question's topic either."""
    names = ", ".join(f"‘{p}’" for p in missing)
    if not on_topic:
        return f"약관에는 {names}(이)라는 지급 항목이 나오지 않고, 찾은 조항도 질문의 주제를 바로 다루지 않습니다. 가장 가까운 조항은 아래와 같습니다."
    return f"약관에는 {names}(이)라는 지급 항목이 나오지 않습니다. 아래는 질문과 가장 가까운 조항입니다."


def capped(done: Generated, missing: Sequence[str], nearest: Generated | None = None) -> Generated:
    """``done`` as the answer to a question about payments (``missing``) the documents never name:
    ``partial``, led by :func:`not_promised` — an answer, or, for a refusal because nothing
    retrieved looked on topic, the ``nearest`` units quoted (the refusal's reason is the missing
    payment, and the reader sees what the policy does say); any other refusal or partial answer is
    kept, noting the words. The answer's own leading sentence is dropped: it said what its clause
    gives to the kind of question asked ("…에 ‘연 100만원’라고 적혀 있습니다" to "만기환급금은
    얼마"), and that clause is about something else. Neither argument is changed."""
    if not missing:
        return done
    note = msg("note.payment_not_named", words=", ".join(missing))
    on_topic = True
    if done.outcome == "refused" and done.reason == "off_topic" and nearest is not None and nearest.citations:
        done, on_topic = replace(nearest, outcome="answered", notes=[*done.notes, *nearest.notes]), False
    if done.outcome != "answered":
        return replace(done, notes=[*done.notes, note])
    lead = not_promised(missing, on_topic)
    body, claims = _without(done.conclusion, done.answer), _without(done.conclusion, done.claims_text or done.answer)
    # claims_text keeps the answer's own statements only: the lead names what is missing
    return Generated("partial", f"{lead} {body}", list(done.citations), notes=[*done.notes, note],
                     claims_text=claims, quoted=done.quoted, scratchpad=done.scratchpad,
                     attempted=done.attempted, reason="unnamed_payment", conclusion=lead)


def _without(lead: str, text: str) -> str:
    """``text`` without the sentence ``lead`` it starts with (as it is when ``lead`` is not there)."""
    return text[len(lead):].lstrip() if lead and text.startswith(lead) else text
