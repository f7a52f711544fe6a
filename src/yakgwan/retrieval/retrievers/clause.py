"""Clause-aware retrieval over a policy: route, first stage, structure priors, grouping.

1. ``expand``: the question with the clause terms the thesaurus maps its everyday words to.
2. ``route``: which 약관 the question names or implies (:mod:`yakgwan.retrieval.route`); it
   lifts those 약관 only in the ``route`` pipeline (``ROUTE_WEIGHTS``).
3. the first stage (``hybrid_cc``) on the question and, when the thesaurus added terms, on the
   expanded question; each list min–max normalised and interpolated, ``(1 − λ) · own + λ ·
   expanded`` (λ = ``ClauseWeights.expansion``, as RM3 interpolates a feedback model with the
   query's), so that an added term can lift a clause but never drown the question's own words;
   their top ``depth`` hits, plus the chunks whose title field (약관 name + 조 title, or a table's
   heading) matches best.
4. each candidate's score is the first stage's plus structure priors (weights in
   :class:`ClauseWeights`)::

       s = first + w_title · title + w_scope · [약관 named] · coverage(약관) − w_none · [no 약관]

   ``title``: BM25 of the question on the title field, min–max normalised over the candidates;
   ``coverage``: the share of the chunk's 약관 name the question carries, for the 약관 the route
   names (a 별표 counts as the 약관 it follows); chunks outside any 약관 (the front matter, the
   appended laws) are pushed down, a 별표 table is not.
   A table a candidate clause cites (``<별표1> 장해분류표``, ``【별표】``; see
   :func:`~yakgwan.retrieval.clause_map.table_citations`) scores at least ``w_cited`` times its
   best citing clause, and ranks right below it on a tie: a question answered by the table
   (a 지급률, a 부상등급, the 교특법 단서 list) usually reads like the clause that sends the reader
   there, not like the table's rows.
   A chunk of the appended laws gets no title prior (``law_title``): a statute's article title
   ("청약의 철회") is not the policy's, and the policy's own article should win.
   The expected answer (``role``, ``role_lift``; :mod:`yakgwan.query.answer_type`): a candidate
   piece of a 조 whose title gives the kind of answer the question asks (지급사유 for "보상되나요",
   보험금의 청구 for "서류", 소멸시효 for "몇 년 지나도") gets ``w_role``, and in each 약관 among the
   candidates every such 조 scores at least ``w_role_lift`` × the 약관's best candidate, so a
   question that finds the right 특약 by its words but the wrong 조 gets the answering 조 too.
   A prior for the 보통약관 when the route names no 특약 was measured and dropped: with the
   thesaurus on, it changed no hit@5 on either half of the policy_qa dev set and lowered MRR;
   on the eleven other insurers' documents (+0.1/+0.2) it raised the tuning half's q@5 9/15 →
   10–11/15 and lowered the checking half's 15/30 → 14/30.
5. grouping (:mod:`yakgwan.retrieval.grouping`): pieces of one 조 and copies of one clause across
   특약 variants (and, with ``clones``, the pieces of a 조 another 약관 restates) become one hit
   listing every member, so the top k covers distinct clauses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from yakgwan.core.protocols import Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Chunk, Hit, Route
from yakgwan.query.answer_type import asked_kinds, piece_gives
from yakgwan.query.answer_type import bundled as bundled_answer_types
from yakgwan.retrieval.clause_map import ClauseMap
from yakgwan.retrieval.grouping import CLONE_JACCARD, group_hits
from yakgwan.retrieval.route import route_query
from yakgwan.retrieval.scoring.fusion import minmax, weighted_sum
from yakgwan.text.tokenizer import Tokenizer

CLAUSE_DEPTH = 100  # first-stage hits scored
TITLE_POOL = 30  # chunks added from the title field's own ranking

Expand = Callable[[str], tuple[str, tuple[str, ...]]]


def no_expansion(query: str) -> tuple[str, tuple[str, ...]]:
    return query, ()


@dataclass(frozen=True)
class ClauseWeights:
    """The priors' weights (step 4 of the module docstring); the first stage's score is in [0, 1]."""

    title: float = 0.3
    expansion: float = 0.5  # the thesaurus-expanded question's share of the first-stage score
    # the route's prior for the 약관 the question names: 0 in ``clause`` (measured on the policy_qa
    # dev set: it lowered the checking half's MRR 0.544 -> 0.518), 0.3 in ``route`` (ROUTE_WEIGHTS)
    scope: float = 0.0
    none: float = 0.3
    group: float = CLONE_JACCARD  # 1.0 groups pieces of one 조 and exact copies only
    # a cited table's share of its best citer's score (0 turns the lift off); measured on the
    # policy_qa dev set, tuning half MRR 0.761 -> 0.775 (hit@5 unchanged), checking half hit@5
    # 0.684 -> 0.737, any@5 0.895 -> 0.947 (0.95 and 0.97 gave the same hit@5)
    cited: float = 1.0
    # the title prior's share for a chunk of the appended laws: a statute's article title is not
    # the policy's (with 1.0 a law came first for 6 of 66 article-title queries over the eleven
    # dev documents, "청약의 철회" → 금융소비자보호법 제46조; with 0, none; q@5 unchanged on both halves)
    law_title: float = 0.0
    # the expected answer's prior (:mod:`yakgwan.query.answer_type`): an article whose title
    # answers the kind of question asked (a 지급사유 for "보상되나요", a 청구 for "서류", 소멸시효
    # for "몇 년 지나도") gets ``role`` added, and scores at least ``role_lift`` times the best
    # chunk of its own 약관. Chosen on the tuning halves (KB policy_qa dev tune, the multi-insurer
    # dev tuning insurers): role 0.2-0.3 with lift 0.8-0.9 tie on q@5 (9/12 before the clones);
    # 0.3/0.8 keeps named@5 3/3. Checking halves in docs/eval.md.
    role: float = 0.3
    role_lift: float = 0.8
    # the pieces of a 조 copied into another 약관 of the document (a 특약 restating the 보통약관's
    # 청약의 철회) fold into one hit when the two 조's whole texts have a shingle Jaccard of at
    # least this (0: off); 0.5-0.7 tie on the tuning halves, 0.8 misses a copy whose numbering
    # and one sentence differ (Jaccard 0.79)
    clones: float = 0.7

    def __post_init__(self) -> None:
        for name in ("title", "scope", "none", "cited", "law_title", "role", "role_lift"):
            if getattr(self, name) < 0:
                raise ValueError(f"ClauseWeights.{name} must be >= 0, got {getattr(self, name)}")


ROUTE_WEIGHTS = ClauseWeights(scope=0.3)  # the ``route`` pipeline: the route's scope prior on


@dataclass
class ClauseRetriever:
    name: str
    first: Retriever
    cmap: ClauseMap
    tokenizer: Tokenizer
    weights: ClauseWeights = ClauseWeights()
    expand: Expand = no_expansion
    depth: int = CLAUSE_DEPTH
    # run the first stage on the expanded question too (off over a first stage that calls an
    # LLM on the question, HyDE: the passage already bridges the words, and a second passage
    # would double the cost)
    search_expanded: bool = True

    def route(self, query: str) -> Route:
        """Where the question goes (shown by ``search --json``)."""
        expanded, added = self.expand(query)
        return route_query(self.tokenizer.tokenize(expanded), self.cmap, added)

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        clones = self.cmap.clones_at(self.weights.clones) if self.weights.clones > 0 else None
        return group_hits(self.ranked(query, k), k, self.weights.group, self.cmap.shingles_of, clones)

    def ranked(self, query: str, k: int) -> list[Hit]:
        """Every candidate chunk scored (steps 1–4 of the module docstring), best first, before
        grouping; each hit's ``components`` hold the parts of its score."""
        expanded, added = self.expand(query)
        terms = self.tokenizer.tokenize(expanded)
        route = route_query(terms, self.cmap, added)
        first = self.first.retrieve(query, max(k, self.depth))
        chunks: dict[str, Chunk] = {h.chunk.chunk_id: h.chunk for h in first}
        base = minmax({h.chunk.chunk_id: h.score for h in first})
        if added and self.search_expanded:  # the expanded question's list, interpolated with the question's own
            lam = self.weights.expansion
            wider = self.first.retrieve(expanded, max(k, self.depth))
            chunks |= {h.chunk.chunk_id: h.chunk for h in wider if h.chunk.chunk_id not in chunks}
            base = weighted_sum([base, minmax({h.chunk.chunk_id: h.score for h in wider})], [1.0 - lam, lam])
        for i, _ in self.cmap.titles.search(terms, TITLE_POOL):  # the best title matches join the candidates
            c = self.cmap.chunks[i]
            chunks.setdefault(c.chunk_id, c)
        title_all, row = self.cmap.title_scores(terms), self.cmap.row
        title = minmax({cid: float(title_all[row[cid]]) for cid in chunks if cid in row})
        named = dict(route.scopes) if route.kind == "named" else {}
        w = self.weights
        scored: dict[str, tuple[float, dict[str, float]]] = {}
        for cid, c in chunks.items():
            parts = {"first": base.get(cid, 0.0), "title": w.title * title.get(cid, 0.0) * (w.law_title if c.kind == "law" else 1.0)}
            owner = c.yakgwan or c.follows  # a 별표 stands outside any 약관, after the one it serves
            if owner:
                if owner in named:
                    parts["scope"] = w.scope * named[owner]
            elif c.kind != "table":
                parts["none"] = -w.none
            scored[cid] = (sum(parts.values()), parts)
        if w.role > 0 or w.role_lift > 0:
            self._answer_kind_prior(query, scored, chunks)
        lifted = self._lift_cited_tables(scored, chunks) if w.cited > 0 else set()
        order = sorted(scored, key=lambda cid: (-scored[cid][0], cid in lifted))
        return [Hit(chunks[cid], scored[cid][0], r, self.name, scored[cid][1]) for r, cid in enumerate(order, 1)]

    def _answer_kind_prior(self, query: str, scored: dict[str, tuple[float, dict[str, float]]], chunks: dict[str, Chunk]) -> None:
        """The expected answer's prior (step 4): for the kinds of answer the question asks
        (:func:`~yakgwan.query.answer_type.asked_kinds`), each candidate piece of an article whose
        title gives that kind gets ``w_role``; then, in every 약관 among the candidates, each such
        article scores at least ``w_role_lift`` times the 약관's best candidate (its best piece,
        or its first piece when none is a candidate)."""
        types = bundled_answer_types()
        kinds = asked_kinds(query, types)
        if not kinds:
            return
        w = self.weights
        gives = lambda c: bool(c.yakgwan) and piece_gives(c, kinds, types)  # noqa: E731
        for cid, (score, parts) in list(scored.items()):
            if gives(chunks[cid]):
                scored[cid] = (score + w.role, parts | {"role": w.role})
        if w.role_lift <= 0:
            return
        best: dict[tuple[str, str], float] = {}
        for cid, (score, _) in scored.items():
            c = chunks[cid]
            if c.yakgwan and c.kind != "law":
                key = (c.doc_id, c.yakgwan)
                best[key] = max(best.get(key, float("-inf")), score)
        done: set[tuple[str, str, str]] = set()
        for cid, (score, parts) in sorted(scored.items(), key=lambda kv: -kv[1][0]):
            c = chunks[cid]
            unit = (c.doc_id, c.yakgwan or "", c.article or "")
            if c.article and unit not in done and gives(c):
                done.add(unit)
                value = w.role_lift * best[(c.doc_id, c.yakgwan or "")]
                if value > score:
                    scored[cid] = (value, parts | {"role_lift": value - score})
        for key, top in best.items():
            for c in self.cmap.articles_of(key):
                if (key[0], key[1], c.article or "") not in done and gives(c):
                    chunks[c.chunk_id] = c
                    scored[c.chunk_id] = (w.role_lift * top, {"role_lift": w.role_lift * top})

    def _lift_cited_tables(self, scored: dict[str, tuple[float, dict[str, float]]], chunks: dict[str, Chunk]) -> set[str]:
        """Raises each table a candidate cites to ``w_cited`` × its best citer's score (adding
        the table to the candidates when the first stage missed it); returns the lifted ids."""
        best: dict[str, float] = {}
        for cid, (score, _) in scored.items():
            for tid in self.cmap.cites.get(cid, ()):
                best[tid] = max(best.get(tid, float("-inf")), self.weights.cited * score)
        lifted: set[str] = set()
        for tid, value in best.items():
            score, parts = scored.get(tid, (0.0, {}))
            if tid not in chunks:
                chunks[tid] = self.cmap.chunks[self.cmap.row[tid]]
            if value > score or tid not in scored:
                scored[tid] = (max(value, score), parts | {"cited": max(value - score, 0.0)})
                lifted.add(tid)
        return lifted
