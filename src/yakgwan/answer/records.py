"""What ``ask`` returns: an outcome, the answer text with inline [n] markers, and citations whose
quotes are verbatim spans of the cited chunks."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from yakgwan.core.records import Chunk
from yakgwan.messages import Message, msg
from yakgwan.query.scope import Scope

Outcome = Literal["answered", "partial", "refused"]
OUTCOMES: tuple[Outcome, ...] = ("answered", "partial", "refused")

Note = Message  # how an answer was made (a fallback, a repair, a downgrade): a catalogue message

REFUSAL = "제공된 문서에는 이 질문에 대한 내용이 없습니다."

# Why an answer is refused or partial, stated with it (``AskResult.reason``; the catalogue's
# ``reason.<code>`` says it to a user). A refusal has one of the first five; a partial answer one
# of the last five.
REASONS = (
    "other_insurer",  # the question names only insurers (or an insurer's product type) the collection does not hold
    "absent_name",  # it names something (a product, a company, a person, a year) no document mentions
    "off_topic",  # nothing retrieved is about its topic (the calibrated decision, or no unit to quote)
    "not_in_documents",  # the answerer (a language model or the sentence rules) found no sentence that answers it
    "unverifiable",  # a quote could not be verified against its clause
    "no_such_article",  # it asks for a 조 the named 약관 does not have: the 조 it has are listed
    "left_to_contract",  # the amount asked is the certificate's: the clause leaves it to the contract
    "not_stated",  # the quoted clauses are on the topic but state no figure of the kind asked
    "unnamed_payment",  # it asks whether a payment is made that no document names: the nearest clauses, as partial
    "point_missing",  # the quoted units are on the topic but may not hold the point asked
)
# what a partial answer adds when it names no point of its own that the documents lack
PARTIAL_TAIL = "다만 문서에는 이 질문에 바로 답하는 문장이 없습니다."


@dataclass(frozen=True)
class Citation:
    n: int  # the [n] marker in the answer
    chunk_id: str
    doc: str
    article: str | None
    page: int | None
    quote: str  # a verbatim span of the chunk's text
    yakgwan: str | None = None  # 보통약관 or the 특별약관's name: 제2조 alone is ambiguous in a policy
    heading: str | None = None  # 약관 · 조 · 항 or the section's header path, as shown above the quote to the answerer
    insurer: str | None = None  # the document's insurer, named when the index holds documents of several

    @classmethod
    def of(cls, n: int, chunk: Chunk, quote: str, heading: str | None = None) -> "Citation":
        """``heading`` replaces the chunk's own when the quote sits deeper (a unit's headings inside the chunk)."""
        return cls(n, chunk.chunk_id, chunk.doc_id, chunk.article, chunk.pages[0] if chunk.pages else None, quote, chunk.yakgwan,
                   heading or chunk.heading() or None)


@dataclass(frozen=True)
class Sentence:
    """A numbered sentence shown to the answerer: a verbatim span of ``chunk``."""

    number: str
    chunk: Chunk
    text: str
    start: int = -1  # where ``text`` starts in the chunk, when known (else its first occurrence is taken)
    # how the answerer is shown it, when not as ``text`` (an answer unit read with its table header
    # or heading); checks and quotes read ``text``
    shown: str = ""

    def offset(self) -> int:
        """Where the sentence starts in its chunk's text (-1 when it is not there)."""
        return self.start if self.start >= 0 else self.chunk.text.find(self.text)


@dataclass
class Generated:
    """What an answerer returns (generative, extractive, or by rule), before ``ask`` checks it."""

    outcome: Outcome
    answer: str
    citations: list[Citation]
    missing: str = ""
    notes: list[Note] = field(default_factory=list)
    claims_text: str = ""  # the answer's own statements, without the sentence naming what is missing
    quoted: bool = False  # the answer is a shown sentence quoted by rule, not the model's claims
    computed: bool = False  # two sides quoted and compared or computed by rule (:mod:`yakgwan.answer.compare`)
    scratchpad: str = ""  # what the model reasoned before answering (``--mode cot``); never part of the answer
    attempted: bool = False  # the model's first answer was no refusal (a refusal now means its claims failed the checks)
    reason: str | None = None  # why it is refused or partial (:data:`REASONS`), when the answerer knows
    conclusion: str = ""  # the sentence the answer leads with, when it leads with one (its first words)

    def note_texts(self, lang: str = "en") -> list[str]:
        return [n.text(lang) for n in self.notes]


@dataclass(frozen=True)
class SeenInstruction:
    """A sentence of a retrieved passage that addresses its reader or a model
    (:mod:`yakgwan.text.instructions`): shown as a warning, never as an answer."""

    doc: str
    page: int | None
    text: str
    pattern: str


@dataclass
class AskResult:
    outcome: Outcome
    answer: str
    citations: list[Citation]
    pipeline: str
    mode: str  # "generate", "cot", "extract"
    latency_ms: float = 0.0
    by: str = "rules"  # the LLM's name, or "rules"
    missing: list[str] = field(default_factory=list)  # anchors the documents never mention
    notes: list[Note] = field(default_factory=list)  # fallbacks, repairs, downgrades
    llm_calls: int = 0
    claims_text: str = ""  # the answer without the sentence naming what the documents lack
    scratchpad: str = ""  # the model's reasoning before it answered (``--mode cot``), shown only in JSON
    scope: Scope | None = None  # the documents the question named (``query.scope``), when it was read
    reason: str | None = None  # why it is refused or partial (:data:`REASONS`); None when answered
    conclusion: str = ""  # the sentence the answer leads with (the answer's first words), when it leads with one
    question_kind: str | None = None  # the answerer the question's kind picked (:data:`yakgwan.answer.route.KINDS`)
    # instructions to the reader found in the retrieved passages: left out of the answer, shown as a warning
    instructions: list[SeenInstruction] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.reason is not None and self.reason not in REASONS:
            raise ValueError(f"unknown answer reason {self.reason!r} (known: {', '.join(REASONS)})")

    def note_texts(self, lang: str = "en") -> list[str]:
        return [n.text(lang) for n in self.notes]

    def to_json(self, lang: str = "en") -> dict[str, Any]:
        """The answer object, its notes in ``lang``."""
        return {
            "outcome": self.outcome,
            "answer": self.answer,
            "citations": [asdict(c) for c in self.citations],
            "pipeline": self.pipeline,
            "mode": self.mode,
            "by": self.by,
            "missing": self.missing,
            "notes": self.note_texts(lang),
            "llm_calls": self.llm_calls,
            "latency_ms": round(self.latency_ms, 1),
            "scope": self.scope.to_json() if self.scope is not None else None,
            "reason": self.reason,
            "question_kind": self.question_kind,
            "conclusion": self.conclusion or None,
            "reason_text": msg(f"reason.{self.reason}").text(lang) if self.reason else None,
            "instructions": [asdict(i) for i in self.instructions],
            **({"scratchpad": self.scratchpad} if self.scratchpad else {}),
        }
