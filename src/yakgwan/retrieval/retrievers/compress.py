"""Contextual compression: keep only the sentences of each hit that bear on the question.

Kept sentences are recorded as character spans of the chunk (``Hit.evidence``), so the chunk
and its citation stay intact. The LLM picks sentence numbers under a schema; without an LLM,
sentences sharing a content word with the question are kept (labelled). A hit never ends up
empty: if nothing is kept, its best-overlapping sentence stays.
"""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.llm import LLM, StructuredOutputError
from yakgwan.core.protocols import Retriever, k_below_one_finds_nothing
from yakgwan.core.records import Hit, HitStatus
from yakgwan.llm.prompts.compress import Keep, compress_messages
from yakgwan.text.tokenizer import Tokenizer
from yakgwan.text.sentences import sentence_spans


COMPRESS_TOP_N = 3  # one LLM call per hit, ~5 s each on a CPU


@dataclass
class Compressor:
    llm: LLM | None
    tokenizer: Tokenizer

    def compress(self, query: str, hit: Hit) -> Hit:
        spans = sentence_spans(hit.chunk.text)
        if len(spans) <= 1:
            return hit
        sents = [hit.chunk.text[s:e] for s, e in spans]
        keep, status = self._ask_llm(query, sents)
        if keep is None or not keep:
            overlaps = self._overlaps(query, sents)  # the query and each sentence tokenised once
            if keep is None:
                keep = [i for i, n in enumerate(overlaps) if n]
            if not keep:
                keep = [max(range(len(sents)), key=overlaps.__getitem__)]
        kept = tuple(spans[i] for i in sorted(set(keep)))
        return Hit(hit.chunk, hit.score, hit.rank, f"{hit.produced_by}>compress", hit.components, kept, status, hit.rejected, hit.members)

    def _ask_llm(self, query: str, sents: list[str]) -> tuple[list[int] | None, HitStatus]:
        """Sentence indices chosen by the LLM, or None (and the fallback's status) without one."""
        if self.llm is not None:
            try:
                answer = self.llm.complete(compress_messages(query, sents), schema=Keep, step="compress")
                return [i - 1 for i in answer.keep if 1 <= i <= len(sents)], HitStatus.RANKED
            except StructuredOutputError:
                pass
        return None, HitStatus.NO_LLM_SHARED_WORDS

    def _overlaps(self, query: str, sents: list[str]) -> list[int]:
        q = set(self.tokenizer.tokenize(query))
        return [len(q & set(terms)) for terms in self.tokenizer.tokenize_many(sents)]


@dataclass
class CompressingRetriever:
    """Compresses the first ``top_n`` hits (what an answer step reads first: one LLM call
    each, ~5 s on a CPU); the rest are returned whole."""

    name: str
    first: Retriever
    compressor: Compressor
    top_n: int = COMPRESS_TOP_N

    @k_below_one_finds_nothing
    def retrieve(self, query: str, k: int) -> list[Hit]:
        hits = self.first.retrieve(query, k)
        return [self.compressor.compress(query, h) if i < self.top_n else h for i, h in enumerate(hits)]
