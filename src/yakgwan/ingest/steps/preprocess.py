"""Pre-processing at ingest: the LLM rewrites each chunk for retrieval (the questions it
answers and its key terms); the rewrite is indexed beside the original as ``retrieval_text``
and the original stays the text that is quoted and cited.

Free text, bounded: a rewrite cut at the token limit is still useful search text. A chunk the
model writes nothing for keeps no rewrite (counted in ``fallbacks``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from yakgwan.llm import LLM, step_fingerprint
from yakgwan.core.records import Chunk, Document
from yakgwan.llm.prompts.ingest import preprocess_messages
from yakgwan.messages import Message, msg

PREPROCESS_MAX_TOKENS = 96


@dataclass
class Preprocessor:
    llm: LLM | None
    name: str = "preprocess"
    fallbacks: int = 0
    reasons: list[Message] = field(default_factory=list)

    @property
    def fingerprint(self) -> str:
        """What the step's output depends on: its name, the model, its prompt and bounds."""
        return step_fingerprint(self.name, self.llm, preprocess_messages("…"), f"{PREPROCESS_MAX_TOKENS}")

    def apply(self, doc: Document, chunks: list[Chunk]) -> list[Chunk]:
        if self.llm is None:
            self.fallbacks += len(chunks)
            self.reasons.append(msg("ingest_step.no_llm_chunks", doc=doc.doc_id))
            return chunks
        params = dataclasses.replace(self.llm.params, max_tokens=PREPROCESS_MAX_TOKENS)
        out = []
        for c in chunks:
            rewrite = " ".join(self.llm.complete(preprocess_messages(c.text), params=params, step="preprocess").split())
            if not rewrite:
                self.fallbacks += 1
                self.reasons.append(msg("ingest_step.empty_rewrite", doc=doc.doc_id, chunk=c.chunk_id))
                out.append(c)
                continue
            joined = f"{c.retrieval_text}\n{rewrite}" if c.retrieval_text else rewrite
            out.append(dataclasses.replace(c, retrieval_text=joined))
        return out
