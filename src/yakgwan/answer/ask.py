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
from typing import Callable, Sequence

from yakgwan.answer.anchors import AnchorFinder, bare_term, found_shares, missing_anchors, normalise, unknown_terms
from yakgwan.answer.answerability import AnswerabilityModel
from yakgwan.answer.extract_units import CachingEmbedder, UnitAnswerer
from yakgwan.answer.compare import side_queries
from yakgwan.answer.contract_amounts import asked_kinds as amount_kinds
from yakgwan.answer.named import kept_for_named, named_hits
from yakgwan.answer.payments import capped, payment_nouns, promise_text, unnamed_payments
from yakgwan.answer.contract_amounts import left_to_contract
from yakgwan.answer.extract import ExtractiveAnswerer
from yakgwan.answer.generate import GenerativeAnswerer
from yakgwan.answer.grounding.quotes import quote_is_verbatim
from yakgwan.answer.ko_rules.ruleset import RuleSet
from yakgwan.answer.self_check import SelfCheckingAnswerer
from yakgwan.answer.riders import asks_which_rider, rider_list
from yakgwan.answer.route import QuestionFacts, Route, route_of
from yakgwan.answer.structure import Article, articles_by_yakgwan, missing_articles, named_yakgwan, structure_answer
from yakgwan.answer.passages import number_sentences, with_asked_kind
from yakgwan.answer.records import REFUSAL, AskResult, Generated, SeenInstruction
from yakgwan.core.errors import InputError
from yakgwan.messages import msg
from yakgwan.core.protocols import Retriever
from yakgwan.answer.units import ArticleKey, article_key, with_article_pieces
from yakgwan.core.records import Chunk, Hit
from yakgwan.text.instructions import instructions
from yakgwan.embedders.cache import EmbeddingCache
from yakgwan.text.registry import tagger_of
from yakgwan.pipelines import DEFAULT_PIPELINE, PipelineContext, build_pipeline, resolve_pipeline
from yakgwan.pipelines.scoping import refusal_note, scope_note
from yakgwan.query.answer_type import AMOUNT, PAID, asked_kinds, piece_gives
from yakgwan.query.answer_type import bundled as bundled_answer_types
from yakgwan.query.scope import Scope, labels_of, resolves, scope_of
from yakgwan.store import keep_docs

MODES = ("auto", "generate", "cot", "extract")
WRITTEN = ("generate", "cot")  # the modes in which the LLM writes the answer
PAYMENT_KINDS = frozenset({PAID, AMOUNT})  # the answer types of a question about what is paid: its payments are checked
PASSAGES = 5
KIND_DEPTH = 10  # how deep a passage of the asked kind of answer is looked for when the first PASSAGES hold none
SIDE_PASSAGES = 3  # per side of a question about two named things


def _reason(done: Generated) -> str | None:
    """Why ``done`` is refused or partial: the answerer's own reason; else, for a refusal, that no
    sentence shown answered (a model's or the sentence rules' verdict), and for a partial answer,
    that the quotes may not hold the point asked. None when answered."""
    if done.outcome == "answered":
        return None
    return done.reason or ("not_in_documents" if done.outcome == "refused" else "point_missing")


def seen_instructions(hits: Sequence[Hit]) -> list[SeenInstruction]:
    """The instructions to the reader (:func:`~yakgwan.text.instructions.instructions`) in the
    hits' passages, each chunk read once, in rank order."""
    seen: set[str] = set()
    out: list[SeenInstruction] = []
    for h in hits:
        for c in (h.chunk, *h.members):
            if c.chunk_id in seen:
                continue
            seen.add(c.chunk_id)
            out.extend(SeenInstruction(c.doc_id, c.pages[0] if c.pages else None, " ".join(i.text.split()), i.pattern) for i in instructions(c.text))
    return out


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
    promises: str | None = field(default=None, repr=False)  # the text of the 약관 and their 별표 (payments.promise_text)
    # the answer units' vectors, kept by a caller across askers of one index (the server); None:
    # kept by this asker, and in the machine's embedding cache (``ctx.cache_dir``)
    unit_vectors: CachingEmbedder | None = field(default=None, repr=False)
    _retriever: tuple[Retriever, str | None] | None = field(default=None, repr=False)
    _sides: dict[tuple[str, ...], Retriever] = field(default_factory=dict, repr=False)  # by the documents a side names (() : all)
    _units: UnitAnswerer | None = field(default=None, repr=False)
    _units_fit: bool | None = field(default=None, repr=False)  # the bundled model fits this index's embedder (None: not read yet)
    _scoped: dict[tuple[str, ...], "Asker"] = field(default_factory=dict, repr=False)  # askers over the documents a question named
    _arts: dict[str, list[Article]] | None = field(default=None, repr=False)  # every 약관's articles, read once
    _by_article: dict[ArticleKey, list[Chunk]] | None = field(default=None, repr=False)  # every 조's pieces, read once

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

    def _promise_text(self) -> str:
        if self.promises is None:
            self.promises = promise_text(self.ctx.view.chunks)
        return self.promises

    def ask(self, question: str, on_stage: Callable[[str, dict], None] | None = None) -> AskResult:
        """``on_stage(stage, facts)`` hears what the answer is waiting for: ``retrieved``
        (passages and sentences shown), ``answering`` (by which model or rule), ``checked``.

        A question that names insurers, groups or products (:mod:`yakgwan.query.scope`) is
        answered from the documents it names only; one that names only insurers (or a product
        of an insurer) the index does not hold is refused, saying which and what it holds. Over
        documents of several insurers, every citation names its insurer. Which answerer answers
        is decided once (:func:`route`)."""
        if not question.strip():
            raise InputError(None, msg("query.empty_question"))
        t0 = time.perf_counter()
        labels = labels_of(self.ctx.view.docs)
        scope = scope_of(question, labels)
        asker = self._within(scope.docs) if not scope.refuses and scope.narrows and set(scope.docs or ()) < set(self.ctx.view.docs) else self
        route = asker.route(question, scope)
        res = asker._answer(question, route, scope, on_stage, t0)
        res.question_kind = route.kind
        res.scope = scope
        if route.kind == "other_insurer":
            return res
        note = scope_note(scope)
        if note is not None:
            res.notes.insert(0, note)
        companies = {lab.doc_id: lab.company for lab in labels}
        if len({c for c in companies.values() if c}) > 1:
            res.citations = [replace(c, insurer=companies.get(c.doc)) for c in res.citations]
        return res

    def route(self, question: str, scope: Scope | None = None) -> Route:
        """The one answerer for ``question`` over this asker's documents (:mod:`yakgwan.answer.route`),
        from what it names and asks; ``scope``: its scope over the whole index (read here when None)."""
        if scope is None:
            scope = scope_of(question, labels_of(self.ctx.view.docs))
        if scope.refuses:  # the first kind: nothing else about the question is read
            return route_of(QuestionFacts(other_insurer=True))
        policy = self.ctx.profile == "policy"
        _, articles = missing_articles(question, self._articles()) if policy else (None, ())
        absent = tuple(a.form for a in missing_anchors(self.anchors.anchors(question), self._index_text(), self._equivalents())
                       if not resolves(scope, a.form)) if self.rules.on("anchors") else ()
        kinds = asked_kinds(question, bundled_answer_types())
        unnamed = (tuple(unnamed_payments(payment_nouns(self.anchors.tagged(question)), self._promise_text(), self._equivalents()))
                   if policy and kinds & PAYMENT_KINDS and self.rules.on("payments") else ())
        rider = (policy and asks_which_rider(question) and named_yakgwan(question, self._yakgwan_names()) is None
                 and self._unit_answerer() is not None)
        facts = QuestionFacts(
            missing_articles=articles,
            absent_names=absent,
            unnamed_payments=unnamed,
            which_rider=rider,
            sides=tuple(side_queries(question, self.anchors.terms, self.rules)),
            amounts=tuple(k.name for k in amount_kinds(question)) if policy else (),
            answer_types=kinds,
        )
        return route_of(facts)

    def _within(self, docs: tuple[str, ...] | None) -> "Asker":
        """An asker over the documents ``docs`` only, sharing this one's models (kept per scope)."""
        key = tuple(sorted(docs or ()))
        if key not in self._scoped:
            self._scoped[key] = Asker(self.ctx.within(keep_docs(self.ctx.view, key)), pipeline=self.pipeline, mode=self.mode, k=self.k,
                                      anchors=self.anchors, rules=self.rules, unit_vectors=self.unit_vectors)
        return self._scoped[key]

    def _answer(self, question: str, route: Route, scope: Scope, on_stage: Callable[[str, dict], None] | None, t0: float) -> AskResult:
        """The answer of the answerer ``route`` picked, from this asker's documents, every citation
        checked verbatim against the chunk it quotes."""
        say = on_stage or (lambda stage, facts: None)
        llm = self.ctx.llm
        calls0 = llm.stats.calls if llm else 0
        mode = self.mode if self.mode != "auto" else ("generate" if llm is not None else "extract")
        name = resolve_pipeline(self.pipeline).name
        ms = lambda: (time.perf_counter() - t0) * 1000  # noqa: E731
        if route.kind == "other_insurer":
            why = refusal_note(scope)
            return AskResult("refused", f"{REFUSAL} ({why.text('ko')})", [], name, mode, ms(), "scope", list(scope.absent or scope.absent_types),
                             [why], reason="other_insurer")
        if route.kind == "absent_name":
            missing = list(route.facts.absent_names)
            text = f"{REFUSAL} (문서에 나오지 않는 말: {', '.join(missing)})"
            return AskResult("refused", text, [], name, mode, ms(), "rules", missing, [], reason="absent_name")
        if route.kind == "missing_article":
            done = structure_answer(question, self._articles())
            assert done is not None  # the route was chosen because an asked 조 is missing
            by_id = {c.chunk_id: c.text for c in self.ctx.view.chunks}
            return self._result(done, by_id, name, mode, ms, "structure", 0, [])
        if self._retriever is None:
            self._retriever = build_pipeline(self.pipeline, self.ctx)
        retriever, note = self._retriever
        notes = [note] if note else []
        specific = route.facts.answer_types - {PAID} if self.ctx.profile == "policy" else frozenset()
        if specific:  # the asked kind of answer (a period, documents, who …) gets a passage when the first k hold none
            types = bundled_answer_types()
            gives = lambda h: any(piece_gives(c, specific, types) for c in (h.chunk, *h.members))  # noqa: E731
            hits = with_asked_kind(evidence_hits(retriever.retrieve(question, max(KIND_DEPTH, 2 * self.k))), self.k, gives)
            hits = with_article_pieces(hits, self._article_pieces())
        else:
            hits = evidence_hits(retriever.retrieve(question, self.k))
        units = self._unit_answerer()
        policy_named = named_yakgwan(question, self._yakgwan_names()) if self.ctx.profile == "policy" else None
        if route.kind == "which_rider" and units is not None:
            done = rider_list(question, hits, units)
            chunks = {c.chunk_id: c.text for h in hits for c in (h.chunk, *h.members)}
            return self._result(done, chunks, name, mode, ms, "units (which 특약)", 0, notes)
        sides: list[tuple[str, list[str]]] = []
        if route.kind == "comparison":
            shown = len(hits)
            hits, sides = self._with_sides(list(route.facts.sides), hits)
            notes.append(msg("note.sides_searched", sides=" / ".join(q for q, _ in sides), n=len(hits) - shown))
            units = None  # each side's sentence is quoted by the sentence rules or the model
        sentences = number_sentences(question, hits, self.ctx.tokenizer, reserve=sides)
        say("retrieved", {"pipeline": name, "passages": len(hits), "sentences": len(sentences)})
        say("answering", {"mode": mode, "by": llm.name if llm is not None and (mode in WRITTEN or llm.supports_logprobs) else "rules"})
        amount = route.kind == "amount"  # read over a policy only
        if mode in WRITTEN and llm is not None:
            done, by, sentences = self._written(question, hits, sentences, units, amount, notes, calls0)
        elif not (llm is not None and llm.supports_logprobs) and units is not None:
            done, by = units.answer(question, hits), "units"
            if amount:
                done = left_to_contract(question, done) or done
        else:
            done = ExtractiveAnswerer(llm, self.ctx.tokenizer, terms=self.anchors.terms, rules=self.rules).answer(question, sentences)
            by = llm.name if llm is not None and llm.supports_logprobs else "rules"
        if route.kind == "unnamed_payment":
            near = units.nearest(question, hits) if units is not None and done.reason == "off_topic" else None
            done = capped(done, route.facts.unnamed_payments, near)
        elif done.reason == "off_topic" and units is not None and policy_named is not None:
            own = named_hits(hits, policy_named)
            done = kept_for_named(done, units.nearest(question, own) if own else None, policy_named)
        chunks = {s.chunk.chunk_id: s.chunk.text for s in sentences} | {c.chunk_id: c.text for h in hits for c in (h.chunk, *h.members)}
        res = self._result(done, chunks, name, mode, ms, by, (llm.stats.calls - calls0) if llm else 0, notes)
        res.instructions = seen_instructions(hits)
        if res.instructions:
            res.notes.append(msg("note.instructions_left_out", n=len(res.instructions)))
        if route.kind == "unnamed_payment":
            res.missing = list(route.facts.unnamed_payments)  # the words the documents lack, as for a name
        say("checked", {"citations": len(res.citations), "outcome": res.outcome})
        return res

    def _written(self, question: str, hits: list[Hit], sentences: list, units: UnitAnswerer | None, amount: bool,
                 notes: list, calls0: int) -> tuple[Generated, str, list]:
        """The answer an LLM writes (``generate``/``cot``), gated by the calibrated decision over the
        best answer units: refused there, or (``amount``) a figure the quotes leave to the contract
        or do not print, and the model is not asked; its claims all failing the checks, the units
        the decision passed are quoted instead. Returns the answer, who wrote it, and the
        sentences the model was shown."""
        llm = self.ctx.llm
        assert llm is not None
        gate = units.for_model(question, hits) if units is not None else None
        offline = None
        if gate is not None:  # the offline answer of the same units, with the policy's "left to the contract" answer
            offline = (left_to_contract(question, gate.offline) if amount else None) or gate.offline
        if gate is not None and offline is not None and (offline.outcome == "refused" or offline is not gate.offline):
            # never refuses less than the offline decision, never writes a figure the clauses do not print
            offline.notes = [*offline.notes, msg("note.model_not_asked" if offline is gate.offline else "note.contract_model_not_asked")]
            return offline, "units", sentences
        if gate is not None:
            sentences = gate.sentences
            notes.append(gate.note)
        checked = resolve_pipeline(self.pipeline).has_stage("self_rag")  # Self-RAG also checks its answer
        unknown, terms = (lambda text: unknown_terms(self.anchors.terms(text), self._index_text())), self.anchors.terms
        cot = self.mode == "cot"
        answerer = (SelfCheckingAnswerer(llm, unknown, terms, self.rules, cot) if checked
                    else GenerativeAnswerer(llm, unknown, terms, self.rules, cot))
        done = answerer.answer(question, sentences)
        asked_model = llm.stats.calls > calls0
        by = (f"{llm.name}, quoted by rule" if asked_model else "rules") if done.quoted else llm.name
        if offline is not None and done.outcome == "refused" and done.attempted:
            # the model tried, but none of its claims passed the checks: the units the calibrated
            # decision passed are quoted instead (never over the model's own refusal)
            failed, pad = done.notes, done.scratchpad
            done = offline
            done.notes = [*failed, msg("note.model_claims_failed"), *done.notes]
            done.scratchpad = pad
            by = f"{llm.name}, units quoted by rule"
        return done, by, sentences

    def _result(self, done: Generated, chunks: dict[str, str], name: str, mode: str, ms: Callable[[], float], by: str, calls: int,
                notes: list) -> AskResult:
        """``done`` as the asker's result, once every citation is checked verbatim against the chunk
        it quotes (a failure, impossible by construction, is never shown as is)."""
        bad = [c for c in done.citations if not quote_is_verbatim(c, chunks.get(c.chunk_id, ""))]
        if bad:
            notes = [*notes, msg("note.citations_not_verbatim", n=len(bad))]
            done.outcome, done.answer, done.citations, done.reason = "refused", REFUSAL, [], "unverifiable"
        claims = done.claims_text or (done.answer if done.outcome != "refused" else "")
        lead = done.conclusion if done.outcome != "refused" and done.answer.startswith(done.conclusion) else ""
        return AskResult(done.outcome, done.answer, done.citations, name, mode, ms(), by, [], notes + done.notes, calls, claims,
                         done.scratchpad, reason=_reason(done), conclusion=lead)

    def _equivalents(self) -> Callable[[str], tuple[str, ...]] | None:
        """Over a policy, the clause terms the insurance thesaurus maps a question's word to: a
        word whose equivalent the documents use counts as mentioned (서킷 when 경기 is)."""
        if self.ctx.profile != "policy":
            return None
        return lambda form: self.ctx.thesaurus.meaning(bare_term(form))

    def _articles(self) -> dict[str, list[Article]]:
        """Every 약관's articles (:func:`~yakgwan.answer.structure.articles_by_yakgwan`), read once."""
        if self._arts is None:
            self._arts = articles_by_yakgwan(self.ctx.view.chunks)
        return self._arts

    def _article_pieces(self) -> dict[ArticleKey, list[Chunk]]:
        """Every 조's pieces, by document, 약관 and 조, in document order (read once)."""
        if self._by_article is None:
            by: dict[ArticleKey, list[Chunk]] = {}
            for c in self.ctx.view.chunks:
                if (key := article_key(c)) is not None:
                    by.setdefault(key, []).append(c)
            self._by_article = {k: sorted(v, key=lambda c: (c.pages[0] if c.pages else 0, c.start)) for k, v in by.items()}
        return self._by_article

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
                                           lambda q: found_shares(self.anchors, q, text, self._equivalents()),
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
