"""Query transforms: rewrite, multi-query and HyDE passages, each with the seed's safeguards.

The original query is always the first element of a transform's output; a generated query that
shares no content word with the original is dropped (rewrites lose proper nouns and numbers).
Without an LLM the transforms fall back to the analyzer's content words (a keyword rewrite) and
say so in ``fallback``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.techniques.prompts import Queries, hyde_messages, multiquery_messages, rewrite_messages
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


# A hypothetical passage only needs the vocabulary of the answer: 2-3 sentences. Free text, not
# JSON, so a passage cut at the bound is still usable (a cut JSON string would not be).
HYDE_MAX_TOKENS = 128


@dataclass
class HydeWriter:
    """Writes the hypothetical passage for a query: ``lay`` (an answer, as in HyDE) or
    ``clause`` (reverse HyDE: the clause-language passage a policy or a denial would cite).
    Without an LLM, or when it writes nothing, the passage is the query itself (labelled)."""

    llm: LLM | None
    mode: str = "lay"
    fallback: str | None = field(default=None, init=False)
    _memo: dict[str, str] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        if self.mode not in ("lay", "clause"):
            raise ValueError(f"mode must be 'lay' or 'clause', got {self.mode!r}")

    def __call__(self, query: str) -> str:
        if query not in self._memo:
            self._memo[query] = self._write(query)
        return self._memo[query]

    def _write(self, query: str) -> str:
        if self.llm is None:
            self.fallback = "no LLM: the query stands in for the hypothetical passage"
            return query
        params = dataclasses.replace(self.llm.params, max_tokens=min(self.llm.params.max_tokens, HYDE_MAX_TOKENS))
        passage = " ".join(self.llm.complete(hyde_messages(query, self.mode), params=params, step=f"hyde_{self.mode}").split())
        if not passage:
            self.fallback = "LLM wrote an empty passage; the query stands in for it"
            return query
        return passage
