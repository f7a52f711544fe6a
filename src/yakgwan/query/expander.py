"""Query rewrite and multi-query, with the seed's safeguards.

The original query is always the first element of a transform's output; a generated query that
shares no content word with the original is dropped (rewrites lose proper nouns and numbers).
Without an LLM the transforms fall back to the analyzer's content words (a keyword rewrite) and
say so in ``fallback``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.llm.prompts.query import Queries, multiquery_messages, rewrite_messages
from yakgwan.text.tokenizer import Tokenizer


def shares_content_word(a: str, b: str, tokenizer: Tokenizer) -> bool:
    return bool(set(tokenizer.tokenize(a)) & set(tokenizer.tokenize(b)))


def keyword_query(query: str, tokenizer: Tokenizer) -> str:
    """The query's content words (analyzer terms, de-duplicated, in order)."""
    return " ".join(dict.fromkeys(tokenizer.tokenize(query)))


@dataclass
class QueryExpander:
    """``rewrite`` (one rewrite) or ``multiquery`` (``n`` variants) of a query, original first."""

    llm: LLM | None
    tokenizer: Tokenizer
    mode: str = "rewrite"
    n: int = 3
    fallback: str | None = field(default=None, init=False)
    dropped: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.mode not in ("rewrite", "multiquery"):
            raise ValueError(f"mode must be 'rewrite' or 'multiquery', got {self.mode!r}")
        if not 1 <= self.n <= 4:
            raise ValueError(f"n must be between 1 and 4, got {self.n}")

    def transform(self, query: str) -> list[str]:
        generated = self._generate(query)
        kept = [q for q in generated if q.strip() and q.strip() != query.strip() and shares_content_word(q, query, self.tokenizer)]
        self.dropped += len(generated) - len(kept)
        return list(dict.fromkeys([query, *kept]))

    def _generate(self, query: str) -> list[str]:
        if self.llm is None:
            self.fallback = "no LLM: keyword rewrite by the analyzer"
            return [keyword_query(query, self.tokenizer)]
        msgs = rewrite_messages(query) if self.mode == "rewrite" else multiquery_messages(query, self.n)
        try:
            out = self.llm.complete(msgs, schema=Queries, step=self.mode)
        except StructuredOutputError as exc:  # a bad answer falls back; an unreachable provider is an error
            self.fallback = f"LLM failed ({exc}); keyword rewrite by the analyzer"
            return [keyword_query(query, self.tokenizer)]
        return out.queries[: 1 if self.mode == "rewrite" else self.n]
