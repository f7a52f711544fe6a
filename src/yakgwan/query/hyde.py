"""HyDE: the hypothetical passage a query is searched with instead of itself (Gao et al., "Precise
Zero-Shot Dense Retrieval without Relevance Labels", ACL 2023), and reverse HyDE's clause-language
passage."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from yakgwan.llm import LLM
from yakgwan.llm.prompts.query import hyde_messages

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
