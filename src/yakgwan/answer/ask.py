"""``yakgwan ask``: retrieve, check the question's anchors against the documents, answer from the
retrieved sentences only (generative or extractive), and check every citation.

Outcomes: ``answered``; ``partial`` (the documents speak to the topic but not to the point
asked, and the answer says which point); ``refused`` (the documents do not contain it). Every
refused or partial answer carries its reason (``AskResult.reason``, one of
:data:`~yakgwan.answer.records.REASONS`): a refusal is only ever for a reason that can be stated
(an insurer the collection does not hold, a name no document mentions, nothing retrieved on the
topic, no sentence that answers); a 조 that does not exist and an amount the clauses leave to the
certificate or do not print are partial answers, quoting what the policy does say. A
question naming something the documents never mention (a product, company, person or year
absent from every chunk) is refused before any model runs, and the missing names are returned.
Over a policy, a question about a 조 that the 약관 it names lacks is answered from the parsed
structure (:mod:`yakgwan.answer.structure`): there is no such 조, and these are the ones there are;
a question asking which 특약 pays for something is answered with the list of them
(:mod:`yakgwan.answer.riders`).
Without an LLM that gives log-probabilities, the extractive answer quotes answer units (항 with
their 호 in a 약관; sentences, list items and rows elsewhere) chosen by the embedder, and a
calibrated model decides the outcome (:mod:`yakgwan.answer.extract_units`). With an LLM
(``generate``, or ``cot``, which has it reason in a scratchpad first), that same decision gates
the model: a question it refuses is refused without asking, and the model reads the best answer
units instead of sentences. A question about two
named things is searched side by side and answered by the sentence rules, which compute a
comparison (:mod:`yakgwan.answer.compare`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Callable

from yakgwan.answer.anchors import AnchorFinder, bare_term, found_share, missing_anchors, normalise, unknown_terms
from yakgwan.answer.answerability import AnswerabilityModel
from yakgwan.answer.extract_units import CachingEmbedder, UnitAnswerer
from yakgwan.answer.compare import side_queries
from yakgwan.answer.contract_amounts import left_to_contract
from yakgwan.answer.extract import ExtractiveAnswerer
from yakgwan.answer.generate import GenerativeAnswerer
from yakgwan.answer.grounding.quotes import quote_is_verbatim
from yakgwan.answer.ko_rules.ruleset import RuleSet
from yakgwan.answer.self_check import SelfCheckingAnswerer
from yakgwan.answer.riders import asks_which_rider, rider_list
from yakgwan.answer.structure import missing_article_answer, named_yakgwan
from yakgwan.answer.passages import number_sentences
from yakgwan.answer.records import REFUSAL, AskResult, Generated
from yakgwan.core.errors import InputError
from yakgwan.messages import msg
from yakgwan.core.protocols import Retriever
from yakgwan.core.records import Hit
from yakgwan.embedders.cache import EmbeddingCache
from yakgwan.text.registry import tagger_of
from yakgwan.pipelines import DEFAULT_PIPELINE, PipelineContext, build_pipeline, resolve_pipeline
from yakgwan.pipelines.scoping import refusal_note, scope_note
from yakgwan.query.scope import labels_of, resolves, scope_of
from yakgwan.store import keep_docs

MODES = ("auto", "generate", "cot", "extract")
WRITTEN = ("generate", "cot")  # the modes in which the LLM writes the answer
PASSAGES = 5
SIDE_PASSAGES = 3  # per side of a question about two named things


def _reason(done: Generated) -> str | None:
    """Why ``done`` is refused or partial: the answerer's own reason; else, for a refusal, that no
    sentence shown answered (a model's or the sentence rules' verdict), and for a partial answer,
    that the quotes may not hold the point asked. None when answered."""
    if done.outcome == "answered":
        return None
    return done.reason or ("not_in_documents" if done.outcome == "refused" else "point_missing")


def evidence_hits(hits: list[Hit]) -> list[Hit]:
    """The hits an answer may use: not those corrective RAG or Self-RAG rejected, whatever step
    (a reranker, compression) came after them."""
    return [h for h in hits if not h.rejected]


@dataclass
class Asker:
    """Answers questions over one index; models and the index text are loaded once.

    ``rules``: which answer checks of :mod:`yakgwan.answer.ko_rules` are on (all, by default).
    ``corpus``: the normalised text (:func:`~yakgwan.answer.anchors.normalise`) of all the index's
    chunks, given by a caller that keeps it across askers of one index; None: computed from the
    index on first use, and kept.
    """

    ctx: PipelineContext
    pipeline: str = DEFAULT_PIPELINE
    mode: str = "auto"
    k: int = PASSAGES
    anchors: AnchorFinder = field(default_factory=AnchorFinder)
    rules: RuleSet = RuleSet.all()
    corpus: str | None = field(default=None, repr=False)
    # the answer units' vectors, kept by a caller across askers of one index (the server); None:
    # kept by this asker, and in the machine's embedding cache (``ctx.cache_dir``)
    unit_vectors: CachingEmbedder | None = field(default=None, repr=False)
    _retriever: tuple[Retriever, str | None] | None = field(default=None, repr=False)
    _sides: dict[tuple[str, ...], Retriever] = field(default_factory=dict, repr=False)  # by the documents a side names (() : all)
    _units: UnitAnswerer | None = field(default=None, repr=False)
    _units_fit: bool | None = field(default=None, repr=False)  # the bundled model fits this index's embedder (None: not read yet)
    _scoped: dict[tuple[str, ...], "Asker"] = field(default_factory=dict, repr=False)  # askers over the documents a question named

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise InputError(None, msg("query.unknown_mode", mode=repr(self.mode), available=", ".join(MODES)))
        if self.mode in WRITTEN and self.ctx.llm is None:
            raise InputError(None, msg("query.mode_needs_llm", mode=self.mode))
        if self.k <= 0:
            raise InputError(None, msg("query.k", k=self.k))
        if type(self.anchors) is AnchorFinder and self.anchors.tagger is None:  # one Kiwi model per process, not two
            self.anchors.tagger = tagger_of(self.ctx.tokenizer)

    def _index_text(self) -> str:
        if self.corpus is None:
            self.corpus = normalise("\n".join(c.text for c in self.ctx.view.chunks))
        return self.corpus

    def ask(self, question: str, on_stage: Callable[[str, dict], None] | None = None) -> AskResult:
        """``on_stage(stage, facts)`` hears what the answer is waiting for: ``retrieved``
        (passages and sentences shown), ``answering`` (by which model or rule), ``checked``.

        A question that names insurers, groups or products (:mod:`yakgwan.query.scope`) is
        answered from the documents it names only; one that names only insurers (or a product
        of an insurer) the index does not hold is refused, saying which and what it holds. Over
        documents of several insurers, every citation names its insurer."""
        if not question.strip():
            raise InputError(None, msg("query.empty_question"))
        t0 = time.perf_counter()
        labels = labels_of(self.ctx.view.docs)
        scope = scope_of(question, labels)
        if scope.refuses:
            why = refusal_note(scope)
            mode = self.mode if self.mode != "auto" else ("generate" if self.ctx.llm is not None else "extract")
            return AskResult("refused", f"{REFUSAL} ({why.text('ko')})", [], resolve_pipeline(self.pipeline).name, mode, (time.perf_counter() - t0) * 1000,
                             "scope", list(scope.absent or scope.absent_types), [why], scope=scope, reason="other_insurer")
        asker = self._within(scope.docs) if scope.narrows and set(scope.docs or ()) < set(self.ctx.view.docs) else self
        res = asker._answer(question, on_stage, t0, lambda form: resolves(scope, form))
        note = scope_note(scope)
        if note is not None:
            res.notes.insert(0, note)
        res.scope = scope
        companies = {lab.doc_id: lab.company for lab in labels}
        if len({c for c in companies.values() if c}) > 1:
            res.citations = [replace(c, insurer=companies.get(c.doc)) for c in res.citations]
        return res

    def _within(self, docs: tuple[str, ...] | None) -> "Asker":
        """An asker over the documents ``docs`` only, sharing this one's models (kept per scope)."""
        key = tuple(sorted(docs or ()))
        if key not in self._scoped:
            self._scoped[key] = Asker(self.ctx.within(keep_docs(self.ctx.view, key)), pipeline=self.pipeline, mode=self.mode, k=self.k,
                                      anchors=self.anchors, rules=self.rules, unit_vectors=self.unit_vectors)
        return self._scoped[key]

    def _answer(self, question: str, on_stage: Callable[[str, dict], None] | None, t0: float,
                resolved: Callable[[str], bool] | None = None) -> AskResult:
        """The answer from this asker's documents; ``resolved(form)``: the question's name ``form``
        chose those documents (an insurer, group or product word), so it is no missing anchor."""
        say = on_stage or (lambda stage, facts: None)
        llm = self.ctx.llm
        calls0 = llm.stats.calls if llm else 0
        mode = self.mode if self.mode != "auto" else ("generate" if llm is not None else "extract")
        if self._retriever is None:
            self._retriever = build_pipeline(self.pipeline, self.ctx)
        retriever, note = self._retriever
        notes = [note] if note else []
        name = resolve_pipeline(self.pipeline).name
        if self.ctx.profile == "policy" and (done := missing_article_answer(question, self.ctx.view.chunks)) is not None:
            by_id = {c.chunk_id: c.text for c in self.ctx.view.chunks}
            if all(quote_is_verbatim(c, by_id.get(c.chunk_id, "")) for c in done.citations):
                return AskResult(done.outcome, done.answer, done.citations, name, mode, (time.perf_counter() - t0) * 1000, "structure", [],
                                 notes + done.notes, 0, done.claims_text, reason=done.reason)
        missing = [a.form for a in missing_anchors(self.anchors.anchors(question), self._index_text(), self._equivalents())
                   if not (resolved and resolved(a.form))] if self.rules.on("anchors") else []
        if missing:
            text = f"{REFUSAL} (문서에 나오지 않는 말: {', '.join(missing)})"
            return AskResult("refused", text, [], name, mode, (time.perf_counter() - t0) * 1000, "rules", missing, notes, reason="absent_name")
        hits = evidence_hits(retriever.retrieve(question, self.k))
        if (self.ctx.profile == "policy" and asks_which_rider(question) and (units := self._unit_answerer()) is not None
                and named_yakgwan(question, self._yakgwan_names()) is None):
            listed = rider_list(question, hits, units)
            return AskResult(listed.outcome, listed.answer, listed.citations, name, mode, (time.perf_counter() - t0) * 1000, "units (which 특약)", [],
                             notes + listed.notes, 0, listed.claims_text, reason=_reason(listed))
        shown = len(hits)
        hits, sides = self._with_sides(side_queries(question, self.anchors.terms, self.rules), hits)
        if sides:
            notes.append(msg("note.sides_searched", sides=" / ".join(q for q, _ in sides), n=len(hits) - shown))
        sentences = number_sentences(question, hits, self.ctx.tokenizer, reserve=sides)
        say("retrieved", {"pipeline": name, "passages": len(hits), "sentences": len(sentences)})
        say("answering", {"mode": mode, "by": llm.name if llm is not None and (mode in WRITTEN or llm.supports_logprobs) else "rules"})
        units = self._unit_answerer() if not sides else None
        if mode in WRITTEN and llm is not None:
            gate = units.for_model(question, hits) if units is not None else None
            # the offline answer of the same units, with the policy's "left to the contract" refusal
            offline = self._contract_checked(question, gate.offline) if gate is not None else None
            if gate is not None and offline is not None and (offline.outcome == "refused" or offline is not gate.offline):
                # refused offline (the calibrated model), or an amount the clauses leave to the
                # contract or do not state: the model is not asked, so it never refuses less and
                # never writes a figure the clauses do not print
                done, by = offline, "units"
                done.notes = [*done.notes, msg("note.model_not_asked" if offline is gate.offline else "note.contract_model_not_asked")]
            else:
                if gate is not None:
                    sentences = gate.sentences
                    notes.append(gate.note)
                checked = resolve_pipeline(self.pipeline).has_stage("self_rag")  # Self-RAG also checks its answer
                unknown, terms = (lambda text: unknown_terms(self.anchors.terms(text), self._index_text())), self.anchors.terms
                cot = mode == "cot"
                answerer = (SelfCheckingAnswerer(llm, unknown, terms, self.rules, cot) if checked
                            else GenerativeAnswerer(llm, unknown, terms, self.rules, cot))
                done = answerer.answer(question, sentences)
                asked_model = llm.stats.calls > calls0
                by = (f"{llm.name}, quoted by rule" if asked_model else "rules") if done.quoted else llm.name
                if offline is not None and done.outcome == "refused" and done.attempted:
                    # the model tried, but none of its claims passed the checks: the units the
                    # calibrated decision passed are quoted instead (never over the model's own refusal)
                    failed, pad = done.notes, done.scratchpad
                    done = offline
                    done.notes = [*failed, msg("note.model_claims_failed"), *done.notes]
                    done.scratchpad = pad
                    by = f"{llm.name}, units quoted by rule"
        elif not (llm is not None and llm.supports_logprobs) and units is not None:
            done, by = self._contract_checked(question, units.answer(question, hits)), "units"
        else:
            done = ExtractiveAnswerer(llm, self.ctx.tokenizer, terms=self.anchors.terms, rules=self.rules).answer(question, sentences)
            by = llm.name if llm is not None and llm.supports_logprobs else "rules"
        chunks = {s.chunk.chunk_id: s.chunk.text for s in sentences} | {c.chunk_id: c.text for h in hits for c in (h.chunk, *h.members)}
        bad = [c for c in done.citations if not quote_is_verbatim(c, chunks.get(c.chunk_id, ""))]
        if bad:  # cannot happen by construction; never shown as is if it does
            notes.append(msg("note.citations_not_verbatim", n=len(bad)))
            done.outcome, done.answer, done.citations, done.reason = "refused", REFUSAL, [], "unverifiable"
        say("checked", {"citations": len(done.citations), "outcome": done.outcome})
        calls = (llm.stats.calls - calls0) if llm else 0
        claims = done.claims_text or (done.answer if done.outcome != "refused" else "")
        return AskResult(done.outcome, done.answer, done.citations, name, mode, (time.perf_counter() - t0) * 1000, by, [], notes + done.notes, calls, claims,
                         done.scratchpad, reason=_reason(done))

    def _contract_checked(self, question: str, done: Generated) -> Generated:
        """Over a policy, a unit answer to a question asking an amount that its quotes leave to the
        contract or do not state becomes that refusal (:mod:`yakgwan.answer.contract_amounts`)."""
        if self.ctx.profile == "policy" and (left := left_to_contract(question, done)) is not None:
            return left
        return done

    def _equivalents(self) -> Callable[[str], tuple[str, ...]] | None:
        """Over a policy, the clause terms the insurance thesaurus maps a question's word to: a
        word whose equivalent the documents use counts as mentioned (서킷 when 경기 is)."""
        if self.ctx.profile != "policy":
            return None
        return lambda form: self.ctx.thesaurus.meaning(bare_term(form))

    def _yakgwan_names(self) -> list[str]:
        """The names of the index's 약관."""
        return sorted({c.yakgwan for c in self.ctx.view.chunks if c.yakgwan})

    def _unit_answerer(self) -> UnitAnswerer | None:
        """The unit answer, when the bundled answerability model was fitted on this index's
        embedder (its cosines mean nothing for another one); None otherwise."""
        if self._units_fit is None:
            model = AnswerabilityModel.load()
            self._units_fit = model.embedder == self.ctx.view.embedder
            if self._units_fit:
                text = self._index_text()
                vectors = self.unit_vectors or CachingEmbedder(self.ctx.embedder, EmbeddingCache.in_folder(self.ctx.cache_dir) if self.ctx.cache_dir else None)
                self._units = UnitAnswerer(vectors, self.ctx.tokenizer, model,
                                           lambda q: found_share(self.anchors.terms(q), text, self._equivalents()),
                                           nouns=lambda q: [bare_term(a.form) for a in self.anchors.terms(q) if bare_term(a.form)])
        return self._units

    def _side_retriever(self, side: str) -> Retriever:
        """The default pipeline over the documents one side names (an insurer of a comparison:
        ``pipelines.scoping``), else over all of this asker's documents; built once each."""
        scope = scope_of(side, labels_of(self.ctx.view.docs))
        narrower = scope.narrows and set(scope.docs or ()) < set(self.ctx.view.docs)
        key = tuple(sorted(scope.docs or ())) if narrower else ()
        if key not in self._sides:  # the part of the index is cut once per set of documents
            ctx = self.ctx.within(keep_docs(self.ctx.view, key)) if narrower else self.ctx
            self._sides[key] = build_pipeline(DEFAULT_PIPELINE, ctx)[0]
        return self._sides[key]

    def _with_sides(self, queries: list[str], hits: list[Hit]) -> tuple[list[Hit], list[tuple[str, list[str]]]]:
        """For a question about two named things, one search per side (:func:`side_queries`):
        each side's best ``SIDE_PASSAGES`` passages by the default pipeline (no model), put first
        when the question's own search missed them; and each search with the chunk ids it found
        (their best sentences are then always shown)."""
        if not queries:
            return hits, []
        seen, extra, sides = {h.chunk.chunk_id for h in hits}, [], []
        for q in queries:
            found = evidence_hits(self._side_retriever(q).retrieve(q, SIDE_PASSAGES))
            extra.extend(h for h in found if h.chunk.chunk_id not in seen)
            seen |= {h.chunk.chunk_id for h in found}
            sides.append((q, [h.chunk.chunk_id for h in found]))
        return extra + hits, sides
