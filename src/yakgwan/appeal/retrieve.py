"""Finding the clauses that govern each denial reason.

Two sources, kept apart so that each can be judged:
- ``cited``: the articles the notice cites, resolved exactly (the 약관 name to the policy's own
  name; 제2조 of the 벌금 특별약관 is never 제2조 of another 특약). A name that fits no 약관, or
  several, stays unresolved and is reported, not guessed.
- ``retrieved``: a search with the reason's text over the 약관 that can govern it — the claimed
  담보/특약, any 특약 the notice cites or names, and the 보통약관 — in one of four modes:
  ``plain`` (the default first stage on the reason), ``hyde`` (dense search on a lay answer
  written by the LLM), ``reverse_hyde`` (on the clause-language passage a denial would rely on),
  ``hybrid_hyde`` (plain and HyDE fused by RRF). Without an LLM the HyDE modes use the reason
  itself, and say so.

A reason can also be searched as several queries (``fused=True``): the reason itself plus two
variants written by the LLM (without one, the analyzer's keyword form of the reason), fused by
RRF with the reason's own list kept, then the gated yes/no reranker reorders the top 3 when the
fused scores are close (an LLM with log-probabilities only). The default is the single query:
on the 19 scenario reasons with the bundled model, fusing the LLM's variants lowered MRR@5 from
0.895 to 0.763-0.807 and hit@5 from 0.947 to 0.895 (bench/appeal_modes.py); the reasons are
already long, clause-like texts, and the variants drift.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from yakgwan.appeal.citations import CIRCLED, COVERAGE_TITLES, ClauseRef, resolve_yakgwan
from yakgwan.appeal.notice import DenialNotice, DenialReason
from yakgwan.appeal.policy import Policy
from yakgwan.core.protocols import Retriever
from yakgwan.core.records import Chunk, Hit
from yakgwan.pipelines import recipes as T
from yakgwan.retrieval.grouping import restrict
from yakgwan.retrieval.retrievers.multi_query import MultiQueryRetriever
from yakgwan.query.expander import QueryExpander
from yakgwan.retrieval.retrievers.reranked import RerankedRetriever
from yakgwan.rerank.yesno import GatedPointwiseReranker
from yakgwan.messages import Message, joined, msg

MODES = ("plain", "hyde", "reverse_hyde", "hybrid_hyde")
REASON_VARIANTS = 2  # LLM-written queries per reason, besides the reason itself
# a 약관 written without its name: "약관", "이 특약", "같은 특별약관", "해당 특약"
_GENERIC = re.compile(r"^(?:.*\s)?(?:같은|이|동|해당|본)\s*(?:특별약관|특약|약관)$|^(?:특별약관|특약|약관)$")
_NAMED = re.compile(r"[^\s,.;:()「」『』\[\]]+(?:\s[^\s,.;:()「」『』\[\]]+){0,5}?\s?(?:특별약관|특약)(?:\([^()\n]{1,12}\))?")


@dataclass(frozen=True)
class CitedClause:
    ref: ClauseRef
    yakgwan: str | None  # the policy's name for it; None when unresolved
    chunks: tuple[Chunk, ...]  # the article's chunks (empty: no such article in that 약관)


@dataclass
class ReasonEvidence:
    reason: DenialReason
    mode: str
    scope: tuple[str, ...]
    cited: list[CitedClause] = field(default_factory=list)
    coverage: list[CitedClause] = field(default_factory=list)  # the claimed 특약's own 지급사유
    retrieved: list[Hit] = field(default_factory=list)
    note: Message | None = None  # a fallback the search ran (no LLM)


def scope_for(notice: DenialNotice, reason: DenialReason, policy: Policy) -> tuple[str, ...]:
    """The 약관 that can govern a reason: the claimed items, the 특약 named in the notice (a
    cited article's 약관, an attached 보장제외 특약 …) and the 보통약관, as the policy names them."""
    written = [*notice.claim_items, *(r.yakgwan for r in notice.refs if r.yakgwan), *(m.group(0) for m in _NAMED.finditer(notice.text))]
    resolved = [resolve_yakgwan(w, policy.names) for w in written]
    general = [n for n in policy.names if n == "보통약관"]
    return tuple(dict.fromkeys([*(n for n in resolved if n), *general]))


def coverage_clauses(notice: DenialNotice, policy: Policy) -> list[CitedClause]:
    """What each claimed 특약 says it pays for (its "보험금의 지급사유" article, or as the 약관 titles
    it: :data:`COVERAGE_TITLES`): the clause a claimant stands on, whatever article the insurer cited."""
    out = []
    for item in notice.claim_items:
        name = resolve_yakgwan(item, policy.names)
        if name is None:
            continue
        arts = [c for c in policy.chunks if c.yakgwan == name and c.article_title and any(w in c.article_title for w in COVERAGE_TITLES)]
        if arts:
            ref = ClauseRef(item, arts[0].article or "", None, None, None, item, 0, arts[0].article_title)
            out.append(CitedClause(ref, name, tuple(policy.article_chunks(name, arts[0].article or ""))))
    return out


def _unnamed(ref: ClauseRef, claimed: list[str], policy: Policy) -> str | None:
    """The 약관 of a citation that names none ("약관 제3조", "같은 특별약관 제1조 제6항" with no
    name before it): with one claimed 특약, the claimed 특약 or the 보통약관 — the one whose
    article has the cited title when the notice writes one, else the one that has the article,
    else the claimed 특약 (whose missing article is then a finding); None with no or several
    claimed 특약."""
    if len(claimed) != 1:
        return None
    candidates = [claimed[0], *(n for n in policy.names if n == "보통약관")]
    titled = {n: {"".join((c.article_title or "").split()) for c in policy.article_chunks(n, ref.article)} for n in candidates}
    if ref.title:
        want = "".join(ref.title.split())
        return next((n for n in candidates if want in titled[n]), claimed[0])
    return next((n for n in candidates if titled[n]), claimed[0])


def cited_clauses(reason: DenialReason, policy: Policy, claimed: list[str] | None = None) -> list[CitedClause]:
    """Each cited clause with its article's chunks, the cited 항's chunk first; a citation that
    names no 약관 is read against the one claimed 특약 (see ``_unnamed``), and so is one whose short
    name fits several 특약, the claimed one among them."""
    out = []
    for ref in reason.refs:
        generic = ref.yakgwan is None or bool(_GENERIC.match(ref.yakgwan))  # "이 특약": never matched by spelling to a name
        name = None if generic else resolve_yakgwan(ref.yakgwan, policy.names)
        if name is None and not generic and claimed and len(claimed) == 1:
            # a short form several 특약 share ("휴대품 특약") and the claimed one among them: the one the letter is about
            name = resolve_yakgwan(ref.yakgwan, claimed)
        if name is None and generic:
            name = _unnamed(ref, claimed or [], policy)
        chunks = policy.article_chunks(name, ref.article) if name else []
        para = re.fullmatch(r"제(\d+)항", ref.paragraph or "")
        if para and 1 <= int(para.group(1)) <= len(CIRCLED):
            mark = CIRCLED[int(para.group(1)) - 1]
            chunks = sorted(chunks, key=lambda c: c.paragraph != mark)  # stable: document order otherwise
        out.append(CitedClause(ref, name, tuple(chunks)))
    return out


@dataclass
class ScopedRetriever:
    """``base`` restricted to chunks of the 약관 in ``scope`` (searched ``depth`` deep)."""

    name: str
    base: Retriever
    scope: tuple[str, ...]
    depth: int = 300

    def retrieve(self, query: str, k: int) -> list[Hit]:
        within = (restrict(h, lambda c: c.yakgwan in self.scope) for h in self.base.retrieve(query, max(k, self.depth)))
        kept = [h for h in within if h is not None]  # a grouped clause whose in-scope copy is a member keeps it
        return [Hit(h.chunk, h.score, r, f"{self.name}:{h.produced_by}", h.components, members=h.members) for r, h in enumerate(kept[:k], 1)]


def mode_retriever(policy: Policy, mode: str) -> Retriever:
    """The first stage for one HyDE mode over the whole policy index (scoping comes after)."""
    ctx = policy.ctx
    builders = {"plain": ctx.first_stage, "hyde": lambda: T.hyde(ctx), "reverse_hyde": lambda: T.reverse_hyde(ctx), "hybrid_hyde": lambda: T.hybrid_hyde(ctx)}
    if mode not in builders:
        raise ValueError(f"unknown mode {mode!r}; available: {', '.join(MODES)}")
    return builders[mode]()


def reason_retriever(policy: Policy, base: Retriever, mode: str, scope: tuple[str, ...], fused: bool = False) -> Retriever:
    """The search for one reason: ``base`` within ``scope``; with ``fused``, multi-query + RRF
    and, when the LLM gives log-probabilities, the gated yes/no reranker."""
    scoped = ScopedRetriever(mode, base, scope)
    if not fused:
        return scoped
    ctx = policy.ctx
    expander = QueryExpander(ctx.llm, ctx.tokenizer, "multiquery", n=REASON_VARIANTS)
    multi = MultiQueryRetriever(f"{mode}+fusion", scoped, expander, merge="rrf", depth=20)
    if ctx.llm is None or not ctx.llm.supports_logprobs:
        return multi
    return RerankedRetriever(f"{mode}+fusion+rerank_yesno", multi, GatedPointwiseReranker(ctx.llm), depth=10)


def evidence_for(
    notice: DenialNotice, policy: Policy, mode: str = "plain", k: int = 5, retriever: Retriever | None = None, fused: bool = False
) -> list[ReasonEvidence]:
    """Cited and retrieved clauses for every reason of ``notice``."""
    base = retriever or mode_retriever(policy, mode)
    out = []
    for reason in notice.reasons:
        scope = scope_for(notice, reason, policy)
        hits = reason_retriever(policy, base, mode, scope, fused).retrieve(reason.text, k)
        notes = []
        if policy.ctx.llm is None:
            if mode != "plain":
                notes.append(msg("note.appeal_mode_no_llm", mode=mode))
            if fused:
                notes.append(msg("note.appeal_fused_no_llm"))
        claimed = list(dict.fromkeys(n for item in notice.claim_items if (n := resolve_yakgwan(item, policy.names))))
        out.append(ReasonEvidence(reason, mode, scope, cited_clauses(reason, policy, claimed), coverage_clauses(notice, policy), hits, msg("note.parts", parts=joined(notes)) if notes else None))
    return out
