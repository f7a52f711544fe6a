"""The extractive answer: the best supporting sentences themselves, cited; nothing is written.

With an LLM that gives log-probabilities, each of the ``top_m`` sentences that share most words
with the question is judged by P("예") that it answers the question; those at or above
``threshold`` and within ``margin`` of the best are the answer (at most ``keep``). Without one, a sentence answers when it shares
at least ``min_overlap`` content words with the question, and the answer says it was chosen by
word overlap. No sentence passing: refused.

Given the question's nouns (``terms``), the answer is ``answered`` only when the sentences come
from those that hold the point: each, read with its heading and document title, holds every
noun, number and verb's noun the question asks about
(:func:`~yakgwan.answer.ko_rules.holding.holding_point`, rule ``point_sentence``). When none does, the sentences chosen as above
are a ``partial`` answer that says no sentence answers the question directly (a small model
gives P("예") ≥ 0.94 to some sentence for nearly any question, and word overlap is not an
answer).
"""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.answer.anchors import Terms
from yakgwan.answer.compare import compared
from yakgwan.answer.grounding.quotes import quoted_text
from yakgwan.answer.ko_rules.holding import holding_point
from yakgwan.answer.ko_rules.point import ALL
from yakgwan.answer.ko_rules.ruleset import RuleSet
from yakgwan.answer.passages import labels_only
from yakgwan.answer.records import PARTIAL_TAIL, REFUSAL, Citation, Generated, Note, Outcome, Sentence
from yakgwan.messages import msg
from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.llm.prompts.rerank import RELEVANCE_OPTIONS, relevance_messages
from yakgwan.text.tokenizer import Tokenizer
from yakgwan.core.errors import as_message


@dataclass
class ExtractiveAnswerer:
    llm: LLM | None
    tokenizer: Tokenizer
    top_m: int = 5
    keep: int = 2
    threshold: float = 0.5
    margin: float = 0.15  # a second sentence only when judged nearly as likely as the best
    min_overlap: int = 2
    terms: Terms | None = None  # None: every sentence is a candidate
    rules: RuleSet = ALL  # the checks of :mod:`yakgwan.answer.ko_rules` that are on

    def answer(self, question: str, sentences: list[Sentence]) -> Generated:
        if not sentences:
            return Generated("refused", REFUSAL, [], notes=[msg("note.no_passage")])
        notes: list[Note] = []
        candidates = [i for i, s in enumerate(sentences) if not labels_only(s)]  # a heading or a table's header row answers nothing
        outcome: Outcome = "answered"
        if self.terms is not None and (done := compared(question, {s.number: s for s in sentences}, self.terms, self.rules)) is not None:
            return done  # two named things and one quantity: each side's sentence, computed by rule
        if self.terms is not None and self.rules.on("point_sentence"):
            held = {id(s) for s in holding_point(question, {s.number: s for s in sentences}, self.terms, self.rules)}
            if held:
                candidates = [i for i, s in enumerate(sentences) if id(s) in held]
            else:
                outcome = "partial"
                notes.append(msg("note.no_sentence_holds_point"))
        q = set(self.tokenizer.tokenize(question))
        overlap = {i: len(q & set(t)) for i, t in zip(candidates, self.tokenizer.tokenize_many([sentences[i].text for i in candidates]))}
        order = sorted(candidates, key=lambda i: (-overlap[i], i))[: self.top_m]
        if not order:
            return Generated("refused", REFUSAL, [], notes=[msg("note.headings_only")])
        if self.llm is not None and self.llm.supports_logprobs:
            yes = RELEVANCE_OPTIONS[0]
            try:
                p = {i: self.llm.option_probs(relevance_messages(question, sentences[i].text), RELEVANCE_OPTIONS, step="extract")[yes] for i in order}
            except StructuredOutputError as exc:
                return Generated("refused", REFUSAL, [], notes=[msg("note.no_support_judgement", why=as_message(exc))])
            best = max(p.values())
            chosen = sorted((i for i in order if p[i] >= self.threshold and p[i] >= best - self.margin), key=lambda i: (-p[i], i))[: self.keep]
        else:
            point_held = outcome == "answered" and self.terms is not None and self.rules.on("point_sentence")  # a stricter test than the overlap
            chosen = [i for i in order if point_held or overlap[i] >= self.min_overlap][: self.keep]
            notes.append(msg("note.word_overlap"))
        if not chosen:
            return Generated("refused", REFUSAL, [], notes=notes)
        chosen.sort()  # document order reads better
        cites = [Citation.of(n, sentences[i].chunk, sentences[i].text) for n, i in enumerate(chosen, 1)]
        claims = " ".join(f"{quoted_text(sentences[i])} [{n}]" for n, i in enumerate(chosen, 1))
        text = claims if outcome == "answered" else f"{claims} {PARTIAL_TAIL}"
        return Generated(outcome, text, cites, notes=notes, claims_text=claims)
