"""Typed, frozen records that carry provenance from the source file to every search hit."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import Enum

from yakgwan.core.errors import one_line


def sha256_hex(data: bytes | str) -> str:
    if isinstance(data, str):
        data = data.encode("utf-8")
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True)
class PageSpan:
    """Page ``page`` (1-based) occupies ``text[start:end]`` of its document."""

    page: int
    start: int
    end: int


@dataclass(frozen=True)
class Document:
    """One source document after loading: its full extracted text and where each page lies in it.

    ``doc_id`` is stable across re-ingests (the path relative to the ingest root, or a BEIR ``_id``);
    ``content_hash`` is the sha256 of the source bytes, used to skip unchanged documents.
    """

    doc_id: str
    source: str
    title: str
    text: str
    kind: str
    content_hash: str
    pages: tuple[PageSpan, ...] = ()
    doc_type: str | None = None
    textless_pages: tuple[int, ...] = ()  # pages with nothing to read (blank): nothing of them is indexed
    ocr_pages: tuple[int, ...] = ()  # pages whose text was read by OCR (their text layer was missing or broken)
    unread_pages: tuple[int, ...] = ()  # pages that needed OCR and were not read by it (see ``unread_reason``)
    ocr_engine: str | None = None  # the OCR program, its version and language, when pages were read by it
    ocr_confidence: float | None = None  # OCR's mean word confidence (0–100) over ``ocr_pages``
    unread_reason: object = None  # why ``unread_pages`` were not read (a catalogue Message: OCR not installed, illegible)

    def pages_for(self, start: int, end: int) -> tuple[int, ...]:
        """Pages overlapping ``text[start:end]``; empty for documents without pages."""
        return tuple(p.page for p in self.pages if p.start < max(end, start + 1) and p.end > start)


@dataclass(frozen=True)
class Chunk:
    """A retrievable unit of text with its provenance.

    ``start``/``end`` index the owning document's extracted ``text``; ``text`` is exactly
    ``document.text[start:end]`` unless ``kind`` says otherwise ("table" text keeps its rows).
    ``yakgwan`` names the 약관 the chunk belongs to ("보통약관" or a 특별약관's exact name);
    ``article`` is e.g. "제3조", ``paragraph`` e.g. "①".
    """

    chunk_id: str
    doc_id: str
    source: str
    title: str
    text: str
    start: int
    end: int
    pages: tuple[int, ...] = ()
    kind: str = "text"
    section: str | None = None
    yakgwan: str | None = None
    part: str | None = None
    article: str | None = None
    article_title: str | None = None
    paragraph: str | None = None
    doc_type: str | None = None
    # text written for retrieval by an ingest step (an LLM headline + summary, or a rewrite);
    # indexed beside ``text``, never quoted or cited
    retrieval_text: str | None = None
    # a 별표 table's (which stands outside any 약관): the 약관 printed before it, whose 조 its
    # unnumbered mark (【별표】) refers to; None elsewhere
    follows: str | None = None

    @property
    def text_hash(self) -> str:
        return sha256_hex(self.text)

    def citation(self) -> str:
        """Human-readable provenance: document, page, 약관, 조, 항."""
        bits = [one_line(self.source)]
        if self.pages:
            bits.append(f"p.{self.pages[0]}" if len(self.pages) == 1 else f"pp.{self.pages[0]}-{self.pages[-1]}")
        return " · ".join([*bits, *self._heading_bits()])

    def heading(self) -> str:
        """Where in its document the chunk sits, as ``citation`` shows it after document and
        page: 약관, 조, 항, or the section's header path."""
        return " · ".join(self._heading_bits())

    def _heading_bits(self) -> list[str]:
        bits = []
        if self.yakgwan:
            bits.append(self.yakgwan)
        if self.article:
            bits.append(f"{self.article}({self.article_title})" if self.article_title else self.article)
        if self.paragraph:
            bits.append(f"제{self.paragraph}항" if self.paragraph.isascii() and self.paragraph.isdigit() else self.paragraph)
        elif self.section:
            bits.append(self.section)
        return bits


def make_chunk_id(doc_id: str, text: str, ordinal: int = 0) -> str:
    """Content hash of a chunk: sha256 over its document id and text (plus an ordinal when the
    same text occurs twice in one document), first 20 hex digits."""
    return sha256_hex(f"{doc_id}\x00{text}\x00{ordinal}" if ordinal else f"{doc_id}\x00{text}")[:20]


class HitStatus(Enum):
    """What the step that labelled a hit did beyond ranking it: a fallback it took, a judgement
    it made. ``Hit.produced_by`` renders it after the step's name, ``rerank_llm(order unchanged)``,
    so the eval's ``top_produced_by`` counts read as before; code reads ``Hit.status``."""

    RANKED = ""  # ranked by the step, as its name says
    ORDER_UNCHANGED = "order unchanged"  # an LLM reranker answered with the first-stage order
    FAILED = "failed: first-stage order"  # an unusable LLM answer: the first-stage order kept
    NO_LLM_FIRST_STAGE = "no LLM: first stage"
    NO_LLM_FIRST_STAGE_ORDER = "no LLM: first-stage order"
    NO_LLM_UNGRADED = "no LLM: ungraded"
    NO_LLM_UNFILTERED = "no LLM: unfiltered"
    NO_LLM_ONE_HOP = "no LLM: one hop"
    NO_LLM_SHARED_WORDS = "no LLM: shared content words"
    NO_LOGPROBS = "no log-probabilities: first-stage order"
    GATE_CLOSED = "gate closed: first stage sure"  # the gated reranker left a sure first stage alone
    RETRIEVAL_UNNEEDED = "retrieval judged unnecessary"
    REJECTED = "rejected"  # graded not relevant; kept after the relevant hits (see ``Hit.rejected``)
    PADDED = "padded"  # added from the original query's list so that k hits come back

    @property
    def is_fallback(self) -> bool:
        """The step did not do its work (no LLM, no log-probabilities, an unusable answer)."""
        return self.value.startswith(("no LLM", "no log-probabilities", "failed"))


@dataclass(frozen=True)
class Hit:
    """One retrieved chunk: its score and 1-based rank in the list that produced it.

    Hits come in rank order (ranks 1..n). ``score`` is the score of the stage that scored the
    hit: non-increasing down a list from a retriever that orders by its own score (first stages,
    fusion, late interaction's MaxSim over the hits it reranks); a stage that reorders hits
    without scoring them (the listwise and gated LLM rerankers, expansion's rerank, corrective
    RAG's grading, Self-RAG's relevance) keeps the first stage's score, so there it need not be
    best-first.

    ``step`` names what produced it (a retriever, a reranker, a chain such as
    ``"crag(rejected)>compress"``), ``status`` what that step did with it. ``rejected`` says a
    grader (corrective RAG, Self-RAG) judged it no evidence; later steps keep that. ``members``
    are the chunks a grouping step folded into this hit (``yakgwan.retrieval.grouping``).
    """

    chunk: Chunk
    score: float
    rank: int
    step: str
    components: dict[str, float] = field(default_factory=dict, compare=False)
    # (start, end) offsets inside ``chunk.text`` of the sentences kept by contextual compression;
    # empty when the whole chunk is the evidence
    evidence: tuple[tuple[int, int], ...] = ()
    status: HitStatus = HitStatus.RANKED
    rejected: bool = False
    # the chunks this hit stands for beside its own: the same clause text in other 약관 (one
    # 조 copied across 특약 variants) and further pieces of the same 조; each keeps its provenance
    members: tuple[Chunk, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        # until nothing writes ``components["rejected"]`` (answers and ``search --json`` read it)
        if not self.rejected and self.components.get("rejected"):
            object.__setattr__(self, "rejected", True)

    @property
    def produced_by(self) -> str:
        """The label results show: the step's name, then its status in brackets when it has one."""
        return f"{self.step}({self.status.value})" if self.status.value else self.step

    @property
    def evidence_text(self) -> str:
        if not self.evidence:
            return self.chunk.text
        return " ".join(self.chunk.text[s:e] for s, e in self.evidence)


@dataclass(frozen=True)
class Route:
    """Where a question was sent inside a policy: ``kind`` is ``named`` (it names or implies
    the 약관 in ``scopes``, each with the share of its name the question carries), ``base``
    (no 특약 named: the question is about the 보통약관, ``scopes[0]``) or ``all`` (the policy has
    no 보통약관). Only ``named`` changes a ranking (the ``route`` pipeline's scope prior).
    ``added`` lists the clause terms the thesaurus added to the question's own words."""

    kind: str
    scopes: tuple[tuple[str, float], ...] = ()
    added: tuple[str, ...] = ()

    def to_json(self) -> dict:
        return {"kind": self.kind, "scopes": [{"yakgwan": n, "coverage": round(c, 3)} for n, c in self.scopes], "added": list(self.added)}
