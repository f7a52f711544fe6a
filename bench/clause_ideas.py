"""Benchmark: further ideas on top of the clause stage, each on the policy_qa dev set's halves.

Not a test, and none of these is built into the clause stage: each is measured here so that
the table in docs/eval.md can be reproduced. Every variant re-scores the clause stage's own
candidates (``ClauseRetriever.ranked``), adds one part, sorts and groups them as the clause
stage does, and is scored with ``yakgwan eval``'s clause-level scoring (``score_retriever``):

- ``article vector``: the cosine of the question to the mean of its 조's chunk vectors
  (normalised), min–max over the candidates; no extra embedding at ingest;
- ``title vector``: the cosine of the question to its chunk's title field (약관 name + 조
  title), embedded as a passage; the titles cost about 1.5 s to embed;
- ``first-stage depth``: how many hits of each first-stage list are fused (the min–max range
  moves with it);
- ``RRF first stage``: the clause stage over reciprocal-rank fusion instead of the convex
  combination;
- ``question sentences``: the dense score of a chunk is the best of the whole question's and
  each of its sentences' (a story's last sentence is often the question).

Prints one Markdown table: hit@1 / hit@5 / MRR@10 / any governing unit in the top 5.

    .venv/bin/python bench/clause_ideas.py [--tests FILE] [--corpus PDF] [--index DIR]
"""

from __future__ import annotations

import dataclasses
import re
import sys
from pathlib import Path
from typing import Callable

import numpy as np

from yakgwan.core.protocols import Embedder, Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Chunk, Hit
from yakgwan.pipelines import PipelineContext
from yakgwan.retrieval.clause_map import title_field
from yakgwan.retrieval.grouping import group_hits
from yakgwan.retrieval.retrievers.clause import ClauseRetriever
from yakgwan.retrieval.retrievers.hybrid import CC_DENSE_WEIGHT, FusionRetriever
from yakgwan.retrieval.scoring.fusion import minmax
from yakgwan.store import IndexView

sys.path.insert(0, str(Path(__file__).resolve().parent))
from clause_ablation import Variant, print_table  # noqa: E402  (the same sets, halves and table)

_SENTENCE = re.compile(r"(?<=[.?!])\s+|[,，]\s*")

# chunk id -> the part's raw value for one question
PartFn = Callable[[str], dict[str, float]]


@dataclasses.dataclass
class WithPart:
    """The clause stage's candidates with ``weight`` × min–max(``part``) added (as the component
    ``name``; after the cited-table lift, so a lifted table no longer ties its citer), then grouped."""

    name: str
    clause: ClauseRetriever
    part: PartFn
    weight: float

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        hits = self.clause.ranked(query, k)
        raw = self.part(query)
        norm = minmax({h.chunk.chunk_id: raw.get(h.chunk.chunk_id, 0.0) for h in hits})
        scored = []
        for h in hits:
            add = self.weight * norm[h.chunk.chunk_id]
            scored.append(dataclasses.replace(h, score=h.score + add, components=h.components | {self.name: add}))
        scored.sort(key=lambda h: -h.score)
        ranked = [dataclasses.replace(h, rank=r) for r, h in enumerate(scored, 1)]
        return group_hits(ranked, k, self.clause.weights.group, self.clause.cmap.shingles_of)


def _unit(c: Chunk) -> tuple[str, str]:
    if c.yakgwan and c.article:
        return (c.yakgwan, c.article)
    if c.yakgwan and c.section:
        return (c.yakgwan, "table:" + c.section)
    return ("", c.chunk_id)


def article_vector(ctx: PipelineContext) -> PartFn:
    chunks = list(ctx.view.chunks)
    units = {u: i for i, u in enumerate(dict.fromkeys(_unit(c) for c in chunks))}
    of = np.array([units[_unit(c)] for c in chunks])
    vectors = np.asarray(ctx.view.vectors, dtype=np.float32)
    means = np.zeros((len(units), vectors.shape[1]), np.float32)
    np.add.at(means, of, vectors)
    means /= np.maximum(np.linalg.norm(means, axis=1, keepdims=True), 1e-12)

    def part(query: str) -> dict[str, float]:
        cos = means @ ctx.embedder.embed([query], "query")[0]
        return {c.chunk_id: float(cos[of[i]]) for i, c in enumerate(chunks)}

    return part


def title_vector(ctx: PipelineContext) -> PartFn:
    chunks = list(ctx.view.chunks)
    fields = [title_field(c) for c in chunks]
    distinct = list(dict.fromkeys(fields))
    vectors = ctx.embedder.embed(distinct, "passage")
    at = {f: i for i, f in enumerate(distinct)}

    def part(query: str) -> dict[str, float]:
        cos = vectors @ ctx.embedder.embed([query], "query")[0]
        return {c.chunk_id: float(cos[at[f]]) for c, f in zip(chunks, fields)}

    return part


@dataclasses.dataclass
class SentenceDense:
    """Dense retrieval scoring each chunk by the best cosine of the whole question and of each
    of its sentences (clauses split at . ? ! and commas; parts under 4 characters dropped)."""

    view: IndexView
    embedder: Embedder
    name: str = "dense"

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        if not self.view.dense_ready or self.embedder.model_id != self.view.embedder:
            raise SystemExit(f"the index is not dense-ready with {self.embedder.model_id}")
        parts = [p for p in _SENTENCE.split(query) if len(p.strip()) >= 4]
        texts = [query] + (parts if len(parts) > 1 else [])
        cos = (np.asarray(self.view.vectors, dtype=np.float32) @ self.embedder.embed(texts, "query").T).max(axis=1)
        order = np.argsort(-cos)[:k]
        return [Hit(self.view.chunks[i], float(cos[i]), r, self.name) for r, i in enumerate(order, 1)]


def _over(ctx: PipelineContext, first: Retriever, depth: int = 100) -> ClauseRetriever:
    return dataclasses.replace(ctx.clause(), first=first, depth=depth)


def _cc(ctx: PipelineContext, dense: Retriever, depth: int = 100) -> Retriever:
    w = CC_DENSE_WEIGHT
    return FusionRetriever("hybrid_cc", [dense, ctx.bm25()], [w, 1.0 - w], method="minmax", depth=depth)


def variants() -> dict[str, Variant]:
    out: dict[str, Variant] = {"**clause (auto)**": lambda c: c.clause()}
    for w in (0.1, 0.3):
        out[f"+ article vector {w}"] = lambda c, w=w: WithPart("article_vector", c.clause(), article_vector(c), w)
    for w in (0.1, 0.3):
        out[f"+ title vector {w}"] = lambda c, w=w: WithPart("title_vector", c.clause(), title_vector(c), w)
    for d in (200, 400):
        out[f"first-stage depth {d}"] = lambda c, d=d: _over(c, _cc(c, c.dense(), d), d)
    out["RRF first stage"] = lambda c: _over(c, FusionRetriever("hybrid", [c.dense(), c.bm25()], [1.0, 1.0], method="rrf", depth=100))
    out["question sentences (dense)"] = lambda c: _over(c, _cc(c, SentenceDense(c.view, c.embedder)))
    return out


if __name__ == "__main__":
    print_table(variants())
