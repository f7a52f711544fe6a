"""Agentic retrieval: a ReAct loop in which the LLM picks one tool per step — search the knowledge
base, search the web provider (when configured), look up an article by number ("제5조") — reads
what it returned, and finishes when it has enough. Steps (``max_steps``) and prompt + completion
tokens (``token_budget``) are bounded; every tool call is in ``traces``.

The hits are the first-stage list for the question (weighted double) fused by RRF with every
tool's result list, so the loop adds evidence without losing the direct hits. Without an LLM the
first stage passes through, labelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.llm.prompts.agentic import Action, agent_messages
from yakgwan.core.protocols import Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Chunk, Hit, HitStatus
from yakgwan.retrieval.hit_lists import fuse_hit_lists
from yakgwan.retrieval.retrievers.crag import web_chunk
from yakgwan.websearch.provider import SearchProvider

MAX_STEPS = 4
TOKEN_BUDGET = 12_000
TOOL_RESULTS = 3
DIRECT_WEIGHT = 2.0  # of the question's own list in the fusion with the tools' lists
_ARTICLE = re.compile(r"제\s*(\d+)\s*조(?:\s*의\s*(\d+))?")


@dataclass
class Step:
    tool: str
    input: str
    found: list[str]  # chunk ids (or web urls)
    note: str | None = None


@dataclass
class AgenticRetriever:
    name: str
    first: Retriever
    llm: LLM | None
    chunks: list[Chunk]  # the index, for exact article lookup
    search: SearchProvider | None = None
    max_steps: int = MAX_STEPS
    token_budget: int = TOKEN_BUDGET
    traces: list[list[Step]] = field(default_factory=list)

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        direct = self.first.retrieve(query, max(k, 20))
        if self.llm is None:
            return [Hit(h.chunk, h.score, h.rank, self.name, h.components, status=HitStatus.NO_LLM_FIRST_STAGE, rejected=h.rejected, members=h.members) for h in direct[:k]]
        tools = ["kb_search", "article_lookup", "finish"] + (["web_search"] if self.search else [])
        trace: list[tuple[Step, list[str]]] = []
        steps: list[Step] = []
        self.traces.append(steps)
        lists: list[list[Hit]] = [direct]
        start = self.llm.stats.prompt_tokens + self.llm.stats.completion_tokens
        for _ in range(self.max_steps):
            if self.llm.stats.prompt_tokens + self.llm.stats.completion_tokens - start >= self.token_budget:
                steps.append(Step("stop", "", [], f"token budget {self.token_budget} spent"))
                break
            try:
                act = self.llm.complete(agent_messages(query, [(s.tool, s.input, texts) for s, texts in trace], tools), schema=Action, step="agentic")
            except StructuredOutputError as exc:
                steps.append(Step("stop", "", [], f"no usable action ({exc.reason})"))
                break
            if act.tool == "finish":
                steps.append(Step("finish", "", []))
                break
            hits, note = self._run(act.tool, act.input.strip() or query, tools)
            step = Step(act.tool, act.input, [h.chunk.chunk_id for h in hits], note)
            steps.append(step)
            trace.append((step, [h.chunk.text for h in hits]))
            if hits:
                lists.append(hits)
        tool_steps = float(sum(s.tool not in ("finish", "stop") for s in steps))
        return fuse_hit_lists(self.name, lists, [DIRECT_WEIGHT] + [1.0] * (len(lists) - 1), k, {"tool_calls": tool_steps})

    def _run(self, tool: str, arg: str, tools: list[str]) -> tuple[list[Hit], str | None]:
        if tool not in tools:
            return [], f"{tool} is not available"
        if tool == "kb_search":
            return self.first.retrieve(arg, TOOL_RESULTS), None
        if tool == "web_search" and self.search is not None:
            return [Hit(web_chunk(r), 0.0, i, f"{self.name}(web:{self.search.name})") for i, r in enumerate(self.search.search(arg, TOOL_RESULTS), 1)], None
        m = _ARTICLE.search(arg)
        if not m:
            return [], f"no article number in {arg!r}"
        article = f"제{m.group(1)}조" + (f"의{m.group(2)}" if m.group(2) else "")
        found = [c for c in self.chunks if c.article == article]
        named = [c for c in found if c.yakgwan and c.yakgwan in arg]  # "벌금 특별약관 제2조": that 약관's article first
        ordered = named + [c for c in found if c not in named]
        return [Hit(c, 1.0, i, f"{self.name}(article)") for i, c in enumerate(ordered[:TOOL_RESULTS], 1)], None if ordered else f"no {article} in the index"
