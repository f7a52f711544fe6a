"""Corrective RAG: grade the retrieved chunks, keep the good ones, and when too little is left,
rewrite the query and retry once, then fall back to a search provider whose results are verified
before use.

- Grading: one LLM call scores the top ``top_n`` chunks 0–5 for the question (a JSON list of
  exactly ``top_n`` integers); chunks scoring at least ``threshold`` are kept, best first.
- Fewer than ``min_kept`` kept: the LLM's keyword rewrite is searched and graded once more.
- Still too few and a search provider is configured: its results are each verified by the LLM —
  is this about the organisation the knowledge base is about, not a public programme or another
  company? — and verified results are used as extra passages (``doc_id`` "web:<url>").
- Every decision (grades, rewrite, fallback, verdicts) is kept in ``decisions`` and attached to
  the hits' ``components``. Rejected chunks follow the kept ones, labelled ``crag(rejected)``,
  so a retrieval metric still sees k results and an answerer can leave them out; they also carry
  ``components["rejected"]``, which later steps (rerankers, compression) keep. Hits beyond the
  graded ``top_n`` count as rejected too: they were not judged good.
- Without an LLM the first-stage hits pass through, labelled as ungraded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.llm.prompts.crag import Verdict, grade_messages, grades_schema, verify_messages
from yakgwan.core.protocols import Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Chunk, Hit, HitStatus, sha256_hex
from yakgwan.query.expander import QueryExpander
from yakgwan.retrieval.hit_lists import rejected
from yakgwan.text.tokenizer import Tokenizer
from yakgwan.websearch.provider import SearchProvider, WebResult

CRAG_TOP_N = 5
CRAG_THRESHOLD = 3
CRAG_MIN_KEPT = 1
CRAG_WEB_RESULTS = 3
STEP = "crag"  # what rejected hits are labelled, whatever the pipeline is called
REJECTED = f"{STEP}({HitStatus.REJECTED.value})"  # their label


@dataclass
class CragDecision:
    query: str
    grades: list[tuple[str, int]] = field(default_factory=list)  # (chunk id, score) of the first search
    rewritten: str | None = None
    regrades: list[tuple[str, int]] = field(default_factory=list)
    fallback: str | None = None  # the search provider used, if any
    verdicts: list[tuple[str, bool, str]] = field(default_factory=list)  # (url, about this?, reason)
    kept: int = 0
    note: str | None = None


def web_chunk(r: WebResult) -> Chunk:
    """A search result as a chunk that can be cited (not part of the index)."""
    text = r.content.strip()
    return Chunk(f"web:{sha256_hex(r.url + text)[:16]}", f"web:{r.url}", r.url, r.title, text, 0, len(text), kind="web")


@dataclass
class CorrectiveRetriever:
    name: str
    first: Retriever
    llm: LLM | None
    tokenizer: Tokenizer
    search: SearchProvider | None = None
    subject: str = "이 지식 베이스"
    top_n: int = CRAG_TOP_N
    threshold: int = CRAG_THRESHOLD
    min_kept: int = CRAG_MIN_KEPT
    decisions: list[CragDecision] = field(default_factory=list)

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        hits = self.first.retrieve(query, max(k, self.top_n))
        if self.llm is None:
            return [Hit(h.chunk, h.score, h.rank, self.name, h.components, h.evidence, HitStatus.NO_LLM_UNGRADED, h.rejected, h.members) for h in hits[:k]]
        d = CragDecision(query)
        self.decisions.append(d)
        kept, d.grades = self._grade(query, hits)
        if len(kept) < self.min_kept:
            rewrites = QueryExpander(self.llm, self.tokenizer, "rewrite").transform(query)[1:]
            if rewrites:
                d.rewritten = rewrites[0]
                again = self.first.retrieve(d.rewritten, max(k, self.top_n))
                more, d.regrades = self._grade(query, again)
                kept += [h for h in more if h.chunk.chunk_id not in {x.chunk.chunk_id for x in kept}]
                hits = hits + [h for h in again if h.chunk.chunk_id not in {x.chunk.chunk_id for x in hits}]
        web: list[Hit] = []
        if len(kept) < self.min_kept and self.search is not None:
            d.fallback = self.search.name
            for r in self.search.search(query, CRAG_WEB_RESULTS):
                try:
                    v = self.llm.complete(verify_messages(query, self.subject, r.title, r.url, r.content), schema=Verdict, step="crag_verify")
                except StructuredOutputError as exc:
                    d.verdicts.append((r.url, False, f"no usable verdict ({exc.reason})"))
                    continue
                d.verdicts.append((r.url, v.about_this, v.reason))
                if v.about_this:
                    web.append(Hit(web_chunk(r), 0.0, 0, f"{self.name}(web:{self.search.name})"))
        d.kept = len(kept) + len(web)
        chosen = {h.chunk.chunk_id for h in kept}
        rest = [rejected(STEP, h, h.components) for h in hits if h.chunk.chunk_id not in chosen]
        out = [*kept, *web, *rest][:k]
        info = {"crag_kept": float(d.kept), "crag_rewritten": float(d.rewritten is not None), "crag_web": float(len(web))}
        return [Hit(h.chunk, h.score, r, h.step, h.components | info, h.evidence, h.status, h.rejected, h.members) for r, h in enumerate(out, 1)]

    def _grade(self, query: str, hits: list[Hit]) -> tuple[list[Hit], list[tuple[str, int]]]:
        head = hits[: self.top_n]
        if not head:
            return [], []
        try:
            out = self.llm.complete(grade_messages(query, [h.chunk.text for h in head]), schema=grades_schema(len(head)), step="crag_grade")  # type: ignore[union-attr]
            scores = list(out.scores)  # type: ignore[attr-defined]
        except StructuredOutputError:  # no usable grades: keep the first stage's order, graded -1
            return list(head), [(h.chunk.chunk_id, -1) for h in head]
        graded = [(h.chunk.chunk_id, s) for h, s in zip(head, scores)]
        good = sorted((i for i, s in enumerate(scores) if s >= self.threshold), key=lambda i: (-scores[i], i))
        return [Hit(head[i].chunk, head[i].score, 0, self.name, head[i].components | {"crag_grade": float(scores[i])}, head[i].evidence, rejected=head[i].rejected, members=head[i].members) for i in good], graded
