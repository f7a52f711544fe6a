"""LLM chunking at ingest: the model splits each document into topical chunks and writes a
headline and a one-sentence summary for each; the chunk's text is the original.

The model sees the document's sentences numbered, in windows of about ``window_chars``
characters, and answers only where each chunk starts (a sentence number) — it never copies
text. Each chunk's original is then cut from the document at those sentence boundaries, so it
is a verbatim substring by construction. Only sentences inside the structure chunks are numbered
(a table of contents the structure chunker dropped stays out), and each chunk keeps the section,
약관 and article of the structure chunk it starts in. Headline and summary become
the chunk's ``retrieval_text`` (indexed, never cited); one longer than its bound is cut at a word
boundary (``Section``). A window whose answer is cut off at the token limit (too many sections
for ``LLM_CHUNK_MAX_TOKENS``) is asked again as two halves, split at the sentence nearest its
middle — once: a half still cut off is most likely a model repeating itself, and halving on would
multiply the calls. A document whose answer is still unusable (invalid, cut off, boundaries out
of range) keeps its structure chunks, and is counted in ``fallbacks`` with its reason.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass, field

from yakgwan.ingest.chunkers.recursive import chunks_from_spans
from yakgwan.llm import LLM, GenParams, StructuredOutputError, step_fingerprint
from yakgwan.core.records import Chunk, Document
from yakgwan.llm.prompts.ingest import HEADLINE_CHARS, SUMMARY_CHARS, Section, Sections, llm_chunk_messages
from yakgwan.text.sentences import sentence_spans
from yakgwan.messages import Message, msg
from yakgwan.core.errors import as_message

WINDOW_CHARS = 1500
# a window's answer: up to 8 sections of a headline and a summary
LLM_CHUNK_MAX_TOKENS = 700
# a cut-off window is asked again as halves this many times (so at most 6 calls per window,
# repairs included)
HALVINGS = 1


def sentence_windows(spans: list[tuple[int, int]], window_chars: int) -> list[list[tuple[int, int]]]:
    """Consecutive sentences grouped so that a window spans at most ``window_chars`` characters
    of the text (a longer single sentence is a window by itself)."""
    windows: list[list[tuple[int, int]]] = []
    for s, e in spans:
        if windows and e - windows[-1][0][0] <= window_chars:
            windows[-1].append((s, e))
        else:
            windows.append([(s, e)])
    return windows


def halves(window: list[tuple[int, int]]) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """A window of two or more sentences split in two at the sentence boundary nearest the
    middle of its characters (the earlier boundary on a tie); each half keeps one sentence at least."""
    if len(window) < 2:
        raise ValueError("a window of one sentence cannot be halved")
    middle = (window[0][0] + window[-1][1]) / 2
    cut = min(range(1, len(window)), key=lambda i: (abs(window[i][0] - middle), i))
    return window[:cut], window[cut:]


def section_spans(window: list[tuple[int, int]], sections: list[Section]) -> list[tuple[int, int, Section]]:
    """(start, end, section) for the model's sections: valid start numbers sorted and
    de-duplicated; each chunk runs to the sentence before the next start. Raises ValueError
    when no section starts at sentence 1."""
    starts: dict[int, Section] = {}
    for sec in sections:
        if 1 <= sec.first <= len(window) and sec.first not in starts:
            starts[sec.first] = sec
    if 1 not in starts:
        raise ValueError(f"no section starts at sentence 1 (starts: {sorted(starts) or 'none valid'})")
    firsts = sorted(starts)
    out = []
    for i, first in enumerate(firsts):
        last = (firsts[i + 1] - 1) if i + 1 < len(firsts) else len(window)
        out.append((window[first - 1][0], window[last - 1][1], starts[first]))
    return out


@dataclass
class LLMChunker:
    llm: LLM | None
    window_chars: int = WINDOW_CHARS
    name: str = "llm_chunk"
    fallbacks: int = 0
    reasons: list[Message] = field(default_factory=list)

    @property
    def fingerprint(self) -> str:
        """What the step's output depends on: its name, the model, its prompt, the schema of its
        answer and its bounds."""
        schema = json.dumps(Sections.model_json_schema(), sort_keys=True, ensure_ascii=False)
        bounds = f"{LLM_CHUNK_MAX_TOKENS}|{self.window_chars}|cut at {HEADLINE_CHARS}/{SUMMARY_CHARS}|halved {HALVINGS} time(s) when cut off, unrepaired|{schema}"
        return step_fingerprint(self.name, self.llm, llm_chunk_messages(["…"]), bounds)

    def apply(self, doc: Document, chunks: list[Chunk]) -> list[Chunk]:
        if self.llm is None:
            self.fallbacks += 1
            self.reasons.append(msg("ingest_step.no_llm_structure", doc=doc.doc_id))
            return chunks
        # only the text the structure chunker kept (a table of contents was dropped before)
        spans = [(a, b) for a, b in sentence_spans(doc.text) if any(c.start <= a < c.end for c in chunks)]
        if not spans:
            return chunks
        params = dataclasses.replace(self.llm.params, max_tokens=LLM_CHUNK_MAX_TOKENS)
        planned: list[tuple[int, int, Section]] = []
        try:
            for window in sentence_windows(spans, self.window_chars):
                planned.extend(self._plan(self.llm, doc, window, params, HALVINGS))
        except (StructuredOutputError, ValueError) as exc:
            self.fallbacks += 1
            self.reasons.append(msg("ingest_step.failed_structure", doc=doc.doc_id, why=as_message(exc)))
            return chunks
        return self._chunks(doc, chunks, planned)

    def _plan(self, llm: LLM, doc: Document, window: list[tuple[int, int]], params: GenParams, halvings: int) -> list[tuple[int, int, Section]]:
        """The model's sections of one window; a cut-off answer is asked again as two halves,
        ``halvings`` times at most. A window that can still be halved gets no repair of a cut-off
        answer: asked again under the same token bound, the model writes the same long answer
        (12 of 13 such repairs measured were cut off again)."""
        can_halve = halvings >= 1 and len(window) >= 2
        try:
            answer = llm.complete(
                llm_chunk_messages([doc.text[s:e] for s, e in window]), schema=Sections, params=params, step="llm_chunk", repair_cut_off=not can_halve
            )
        except StructuredOutputError as exc:
            if not exc.cut_off or not can_halve:
                raise
            first, second = halves(window)
            return self._plan(llm, doc, first, params, halvings - 1) + self._plan(llm, doc, second, params, halvings - 1)
        return section_spans(window, answer.sections)

    def _chunks(self, doc: Document, structure: list[Chunk], planned: list[tuple[int, int, Section]]) -> list[Chunk]:
        made = chunks_from_spans(doc, [(s, e, None) for s, e, _ in planned], kind="text")
        out = []
        for c, (s, _, sec) in zip(made, planned):
            home = next((h for h in structure if h.start <= s < h.end), None)  # provenance of where it starts
            out.append(
                dataclasses.replace(
                    c,
                    section=home.section if home else None,
                    yakgwan=home.yakgwan if home else None,
                    part=home.part if home else None,
                    article=home.article if home else None,
                    article_title=home.article_title if home else None,
                    retrieval_text=f"{' '.join(sec.headline.split())}\n{' '.join(sec.summary.split())}",
                )
            )
        return out
