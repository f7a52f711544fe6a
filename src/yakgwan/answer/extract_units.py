"""The offline answer from answer units: the best-scoring units quoted verbatim, and a calibrated
decision whether they answer.

1. units (:mod:`yakgwan.answer.units`): 항 with their 호 inside a 약관 article, sentences and
   rows elsewhere, from the retrieved hits (and the other pieces of each hit's 조);
2. scores (:mod:`yakgwan.answer.select`): the embedder's cosine, the lexical match, the rank;
   the best unit and those close to it are quoted, in document order, each with its 약관 · 조 ·
   항 or section as provenance;
3. the outcome (:mod:`yakgwan.answer.answerability`): answered, partial (the quotes may not
   hold the point asked, and the answer says so), or refused.

Nothing here is a word list; the embedder's vectors of units are kept per text, so a warm
process does not embed a unit twice.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from yakgwan.answer.answerability import AnswerabilityModel, AnswerFeatures, shown_p
from yakgwan.answer.conclusion import VALUE_KINDS, asked_measures, carries, conclusion, measures
from yakgwan.answer.ko_rules.lexicon import NOT_SUBJECT
from yakgwan.answer.records import PARTIAL_TAIL, REFUSAL, Citation, Generated, Note, Sentence
from yakgwan.messages import msg
from yakgwan.answer.select import Scored, SelectWeights, chosen, covered, score_units
from yakgwan.answer.units import Unit, article_key, hit_units, member_kind
from yakgwan.core.protocols import Embedder, EmbedKind
from yakgwan.core.records import Hit, sha256_hex
from yakgwan.query.answer_type import PAID, answers_kind, asked_kinds, asks_whole_list, piece_gives
from yakgwan.query.answer_type import bundled as bundled_types
from yakgwan.embedders.cache import EmbeddingCache
from yakgwan.text.tokenizer import Tokenizer

NAMED_MISSING = 3  # nouns a partial answer names as missing, at most
# units an LLM is shown (best-scoring first, then in document order): a 항 with its 호 runs to
# UNIT_CHARS, so six keep the prompt near the sentence answer's sixteen sentences
MODEL_UNITS = 6
SHOWN_PLACES = 5  # clone 특약 named after a quote; more are counted ("외 3개")
CACHED_VECTORS = 20_000  # unit vectors kept per answerer (about 30 MB at 384 dimensions)


@dataclass
class CachingEmbedder:
    """``embedder`` with its passage vectors kept by text (queries are never kept): in memory,
    and in ``store`` (the machine's embedding cache, keyed by model and text) when one is given,
    so that a unit embedded once, by any process, is not embedded again."""

    embedder: Embedder
    store: EmbeddingCache | None = None
    _kept: dict[str, np.ndarray] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)  # one SQLite connection, many threads

    @property
    def model_id(self) -> str:
        return self.embedder.model_id

    @property
    def dim(self) -> int:
        return self.embedder.dim

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> np.ndarray:
        if kind != "passage":
            return self.embedder.embed(texts, kind)
        got = {t: self._kept.get(t) for t in texts}  # read once: another thread may clear the cache meanwhile
        todo = [t for t, v in got.items() if v is None]
        keys = {t: sha256_hex(t) for t in todo} if self.store is not None else {}
        if todo and self.store is not None:
            with self._lock:
                stored = self.store.get_many(self.model_id, list(keys.values()))
            for t in todo:
                if (v := stored.get(keys[t])) is not None and v.shape == (self.dim,):
                    got[t] = self._kept[t] = v
            todo = [t for t in todo if got[t] is None]
        if todo:
            fresh = np.asarray(self.embedder.embed(todo, kind), dtype=np.float32)
            if self.store is not None:
                with self._lock:
                    self.store.put_many(self.model_id, {keys[t]: v for t, v in zip(todo, fresh)})
            if len(self._kept) + len(todo) > CACHED_VECTORS:
                self._kept.clear()
            for t, v in zip(todo, fresh):
                got[t] = self._kept[t] = v
        return np.stack([got[t] for t in texts]) if texts else np.zeros((0, self.dim), dtype=np.float32)


def shown_unit(u: Unit) -> str:
    """A unit as the answer shows it: its heading (약관 · 조 · 항, or the section path), then its
    text as read (:meth:`~yakgwan.answer.units.Unit.readable`; the citation quotes it verbatim),
    then the other 특약 that print the same words ("같은 문장: …", :func:`~yakgwan.answer.units.clone_places`)."""
    head = u.heading()
    return _with_clones(f"{head} — {u.readable()}" if head else u.readable(), u)


def model_view(u: Unit) -> str:
    """A unit as an LLM is shown it: its own heading path when it sits deeper than its chunk's
    heading (the passage's provenance line shows that one), its text as read, and the other 특약
    that print the same words."""
    return _with_clones(f"({u.path}) {u.readable()}" if u.path and u.path != u.chunk.heading() else u.readable(), u)


def _with_clones(text: str, u: Unit) -> str:
    """``text`` followed by the other 특약 that print the unit's words ("같은 문장: …")."""
    if not u.also:
        return text
    named = ", ".join(u.also[:SHOWN_PLACES]) + (f" 외 {len(u.also) - SHOWN_PLACES}개" if len(u.also) > SHOWN_PLACES else "")
    return f"{text} (같은 문장: {named})"


@dataclass(frozen=True)
class Gate:
    """The answerability decision before an LLM answers (:meth:`UnitAnswerer.for_model`): the
    offline unit answer (its outcome is the calibrated model's), and the units the LLM may answer
    from, as numbered sentences (none when the offline answer refuses)."""

    offline: Generated
    sentences: list[Sentence]
    note: Note


def with_kind_siblings(question: str, units: Sequence[Unit], score: Sequence[float], picked: list[int]) -> list[int]:
    """``picked``, where the question asks a kind of answer a unit carries in its words (a period,
    an amount, documents: :func:`~yakgwan.answer.conclusion.carries`), with each picked unit that
    carries none replaced, in its place, by the best-scoring unit of the same 조 that does and is
    not picked: the 조 matched the question, and within it the question asks for the figure
    (제18조⑥ on a disputed date gives way to ① with its 15 days). Pure."""
    kinds = asked_kinds(question, bundled_types()) & frozenset(VALUE_KINDS)
    if not kinds:
        return picked
    out = list(picked)
    for n, i in enumerate(out):
        key = article_key(units[i].chunk)
        if key is None or carries(units[i].text, kinds):
            continue
        others = [j for j in range(len(units)) if j not in out and article_key(units[j].chunk) == key and carries(units[j].text, kinds)]
        if others:
            out[n] = max(others, key=lambda j: (score[j], -j))
    return out


def with_kind_unit(question: str, units: Sequence[Unit], score: Sequence[float], picked: list[int]) -> list[int]:
    """``picked`` and, when the question asks an exact kind of answer (a period, documents, who,
    how, a term, an amount: :mod:`yakgwan.query.answer_type`) that no picked unit's 조 gives by
    its title, the best-scoring candidate unit whose 조 does (not a quoted law). A period is
    looked for in the measure of time the question counts in
    (:func:`~yakgwan.answer.conclusion.asked_measures`): when no picked unit counts in it, the
    best candidate that does (one whose 조 gives periods by its title first) — "4년 전 사고인데
    지금 청구해도 되나요?" then quotes the 소멸시효's 3년 beside the claim clauses it matched by
    its words, not only 제8조's 30영업일. The answerability decision is made on ``picked`` before. Pure."""
    types = bundled_types()
    kinds = asked_kinds(question, types) - {PAID}
    gives = lambda i: piece_gives(units[i].chunk, kinds, types)  # noqa: E731
    if not kinds or not picked:
        return picked
    if "period" in kinds and (asked := asked_measures(question)):  # a period in the question's measure of time
        counts = lambda i: bool(measures(units[i].text) & asked) and units[i].chunk.kind != "law"  # noqa: E731
        if any(counts(i) for i in picked):
            return picked
        if others := [i for i in range(len(units)) if i not in picked and counts(i)]:
            return [*picked, max(others, key=lambda i: (gives(i), score[i], -i))]
    if any(gives(i) for i in picked):
        return picked
    others = [i for i in range(len(units)) if i not in picked and gives(i)]
    return [*picked, max(others, key=lambda i: (score[i], -i))] if others else picked


LIST_ITEMS = 12  # the members of one list or table an answer quotes at most


def with_whole_list(question: str, units: Sequence[Unit], picked: list[int]) -> list[int]:
    """``picked`` and, when the question asks for every member of a list or a table (a count, a
    total, a plural: :func:`~yakgwan.query.answer_type.asks_whole_list`), the other members of the
    first picked row or item's table or list — the units of its chunk under the same heading
    that are members of the same kind, next to it with nothing else between — at most
    ``LIST_ITEMS`` in all: "지사는 몇 개인가요?" is answered by every row of the table, not the
    three that scored best. Pure."""
    if not picked or not asks_whole_list(question, bundled_types()):
        return picked
    first = next((i for i in picked if member_kind(units[i].text) is not None), None)
    if first is None:
        return picked
    u, kind = units[first], member_kind(units[first].text)
    same = [j for j, v in enumerate(units) if v.chunk.chunk_id == u.chunk.chunk_id and v.heading() == u.heading()]
    same.sort(key=lambda j: units[j].start)
    at = same.index(first)
    lo = hi = at
    while lo > 0 and member_kind(units[same[lo - 1]].text) == kind:
        lo -= 1
    while hi + 1 < len(same) and member_kind(units[same[hi + 1]].text) == kind:
        hi += 1
    members = same[lo:hi + 1][:LIST_ITEMS]
    return [*picked, *(j for j in members if j not in picked)][: max(len(picked), LIST_ITEMS)]


def _widened(question: str, units: Sequence[Unit], scored: Scored, picked: list[int]) -> list[int]:
    """The units an answer quotes: ``picked`` with the asked kind's units and the whole list
    (:func:`with_kind_siblings`, :func:`with_kind_unit`, :func:`with_whole_list`)."""
    picked = with_kind_unit(question, units, scored.score, with_kind_siblings(question, units, scored.score, picked))
    return with_whole_list(question, units, picked)


def features(scored: Scored, picked: Sequence[int], found: tuple[float, float]) -> AnswerFeatures:
    """The answerability features of a choice of units (see :mod:`yakgwan.answer.answerability`);
    ``found``: the shares of the question's subject nouns and of the nouns it asks about that the
    documents contain."""
    best = int(picked[0])
    together = set().union(*(scored.terms[i] for i in picked))
    return AnswerFeatures(float(scored.cos[best]), float(scored.cos[best] - scored.cos.mean()), covered(scored.idf, together), *found)


@dataclass
class UnitAnswerer:
    embedder: Embedder
    tokenizer: Tokenizer
    model: AnswerabilityModel
    # the shares of the question's subject nouns and of the nouns of the phrase it asks about
    # (:func:`~yakgwan.answer.anchors.asked_phrase`) that the documents contain
    found: Callable[[str], tuple[float, float]]
    weights: SelectWeights = SelectWeights()
    # the question's nouns (:meth:`~yakgwan.answer.anchors.AnchorFinder.terms`): a partial answer
    # names those its quotes do not hold; None: the general partial tail
    nouns: Callable[[str], Sequence[str]] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.embedder, CachingEmbedder):
            self.embedder = CachingEmbedder(self.embedder)

    def choose(self, question: str, hits: Sequence[Hit]) -> tuple[list[Unit], Scored, list[int]]:
        """The candidate units, their scores, and the chosen ones' indices (best first)."""
        units = hit_units(hits)
        scored = score_units(question, units, self.embedder, self.tokenizer, self.weights)
        return units, scored, chosen(scored.score, self.weights, scored.terms, scored.idf)

    def answer(self, question: str, hits: Sequence[Hit]) -> Generated:
        return self._answer(question, *self.choose(question, hits))

    def for_model(self, question: str, hits: Sequence[Hit], limit: int = MODEL_UNITS) -> Gate:
        """What an LLM answers from: the offline answer of the same units (its calibrated outcome
        gates the model), and, unless it refuses, the units the offline answer quotes (those it
        added for the asked kind or the whole list included: the 소멸시효 for "4년 전 사고인데 …")
        and the best-scoring others, ``limit`` in all unless the quoted ones are more, numbered in
        retrieval order (each a verbatim span of its chunk, shown as read)."""
        units, scored, picked = self.choose(question, hits)
        offline = self._answer(question, units, scored, picked)
        if offline.outcome == "refused":
            return Gate(offline, [], offline.notes[0])
        quoted = _widened(question, units, scored, picked)
        best = [*quoted, *[i for i in sorted(range(len(units)), key=lambda i: (-scored.score[i], i)) if i not in quoted][: max(0, limit - len(quoted))]]
        order = sorted(best, key=lambda i: (units[i].rank, units[i].chunk.chunk_id, units[i].start))
        shown = [Sentence(str(n), units[i].chunk, units[i].text, units[i].start, model_view(units[i])) for n, i in enumerate(order, 1)]
        return Gate(offline, shown, msg("note.model_read_units", offline=offline.notes[0], n=len(shown)))

    def nearest(self, question: str, hits: Sequence[Hit]) -> Generated | None:
        """The chosen units quoted as they are, whatever the calibrated decision (``partial``; its
        caller says what the documents lack); None when no unit can be quoted."""
        units, _, picked = self.choose(question, hits)
        if not picked:
            return None
        order = sorted(picked, key=lambda i: (units[i].rank, units[i].chunk.chunk_id, units[i].start))
        cites = [Citation.of(n, units[i].chunk, units[i].text, units[i].heading()) for n, i in enumerate(order, 1)]
        claims = " ".join(f"{shown_unit(units[i])} [{n}]" for n, i in enumerate(order, 1))
        return Generated("partial", claims, cites, notes=[msg("note.units_by_cosine")], claims_text=claims)

    def _answer(self, question: str, units: list[Unit], scored: Scored, picked: list[int]) -> Generated:
        """The chosen units quoted, with the calibrated model's outcome."""
        if not picked:
            return Generated("refused", REFUSAL, [], notes=[msg("note.no_quotable_unit")], reason="off_topic")
        x = features(scored, picked, self.found(question))
        p = self.model.probability(x)
        outcome = self.model.outcome(p)
        note = msg("note.answerability", p=shown_p(p), answered=f"{self.model.answered:.2f}", partial=f"{self.model.partial:.2f}", source=self.model.source)
        if outcome == "refused":
            # the reason, with the clause that came closest: the user sees what was searched
            closest = units[picked[0]].heading() or units[picked[0]].chunk.title
            why = msg("refusal.off_topic", closest=closest).text("ko")
            return Generated("refused", f"{REFUSAL} ({why})", [], notes=[note], reason="off_topic")
        picked = _widened(question, units, scored, picked)
        order = sorted(picked, key=lambda i: (units[i].rank, units[i].chunk.chunk_id, units[i].start))
        cites = [Citation.of(n, units[i].chunk, units[i].text, units[i].heading()) for n, i in enumerate(order, 1)]
        claims = " ".join(f"{shown_unit(units[i])} [{n}]" for n, i in enumerate(order, 1))
        lead = self._lead(question, units, picked, order) if outcome == "answered" else None
        if lead:
            claims = f"{lead} {claims}"
        text = claims if outcome == "answered" else f"{claims} {self._partial_tail(question, claims)}"
        return Generated(outcome, text, cites, notes=[note, msg("note.units_by_cosine")], claims_text=claims,
                         reason="point_missing" if outcome == "partial" else None, conclusion=lead or "")

    def _lead(self, question: str, units: list[Unit], picked: list[int], order: list[int]) -> str | None:
        """The sentence the answer leads with (:mod:`yakgwan.answer.conclusion`): what a chosen
        unit says to the kind of question asked, with its citation number — the best-scoring one
        whose 조 gives that kind of answer by its title (소멸시효 for a period, 보험금의 청구 for
        documents), else the best-scoring one that says anything of that kind; None when none does."""
        types = bundled_types()
        kinds = asked_kinds(question, types)
        asked = asked_measures(question) if "period" in kinds else frozenset()
        ranked = sorted(picked, key=lambda i: (not (measures(units[i].text) & asked),  # stable: best first within each
                                               not answers_kind(units[i].chunk.article_title, kinds, types)))
        terms = tuple(self.nouns(question)) if self.nouns is not None else ()
        for i in ranked:
            c = units[i].chunk
            said = conclusion(question, units[i].text, c.yakgwan, c.article, c.article_title, types, terms)
            if said:
                return f"{said} [{order.index(i) + 1}]"
        return None

    def _partial_tail(self, question: str, shown: str) -> str:
        """What a partial answer says is missing: the question's nouns that no quote (nor its
        heading) holds, named as the question wrote them (at most ``NAMED_MISSING``); the general
        tail when every noun is there or none is known."""
        if self.nouns is None:
            return PARTIAL_TAIL
        flat = "".join(shown.split()).lower()
        missing = [n for n in dict.fromkeys(self.nouns(question)) if not NOT_SUBJECT.fullmatch(n) and "".join(n.split()).lower() not in flat]
        if not missing:
            return PARTIAL_TAIL
        named = ", ".join(f"‘{n}’" for n in missing[:NAMED_MISSING])
        return f"다만 인용한 문장에는 {named}에 대한 내용이 없습니다."

