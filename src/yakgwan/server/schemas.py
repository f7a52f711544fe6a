"""Typed request and response bodies of the HTTP API (they make its OpenAPI schema)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from yakgwan.services.pipelines import DEFAULT_PIPELINE

JobStatus = Literal["queued", "running", "succeeded", "failed", "cancelled"]


class Health(BaseModel):
    status: Literal["ok"]
    version: str
    embedder: str
    llm: str = Field(description="'none', or provider:model")
    llm_provider: Literal["none", "local", "openai"] = Field(description="which LLM the options that need one would use ('none': they are hidden)")
    auth: bool = Field(description="whether the API needs a key")


class CollectionIn(BaseModel):
    title: str | None = Field(default=None, max_length=200, description="the name people see: any text, e.g. in Korean ('내 운전자보험')",
                              examples=["내 운전자보험"])
    name: str | None = Field(default=None, min_length=1, max_length=48,
                             description="the id in URLs: 1–48 lowercase letters, digits, '-' or '_'; made from the title when not given",
                             examples=["kb-driver"])


class CollectionOut(BaseModel):
    name: str
    title: str
    created: float
    documents: int
    chunks: int
    busy: bool = Field(description="an ingest job is queued or running")


class DocumentOut(BaseModel):
    doc_id: str
    name: str = Field(description="the uploaded file's name (display only)")
    kind: str
    title: str
    pages: int
    chunks: int
    labels: dict[str, str] = Field(default_factory=dict, description="insurer, product, product_type, doc_type, version: as set at ingest, else as the document prints them (filters read these)")
    printed_from: dict[str, str] = Field(default_factory=dict, description="where the document prints each printed label (page and line)")


class OutlineLabelOut(BaseModel):
    value: str
    source: Literal["meta", "printed"] = Field(description="'meta': set at ingest; 'printed': read from the document")
    where: str | None = Field(description="where the document prints it (page and line); null when set at ingest")


class OutlineArticleOut(BaseModel):
    article: str = Field(examples=["제3조"])
    title: str | None
    part: str | None = Field(description="the 관 it stands in")
    first_page: int | None
    last_page: int | None


class OutlineYakgwanOut(BaseModel):
    name: str | None = Field(description="보통약관 or the 특별약관's exact name; null for 조 under no 약관 title")
    kind: Literal["base", "rider", "unnamed"]
    first_page: int | None
    last_page: int | None
    articles: list[OutlineArticleOut] = Field(description="its 조 in document order")


class OutlineAppendixOut(BaseModel):
    kind: Literal["table", "law", "glossary", "toc", "section"]
    title: str | None
    yakgwan: str | None = Field(description="the 약관 it belongs to, when it belongs to one")
    first_page: int | None
    last_page: int | None
    chunks: int
    items: list[str] = Field(description="a glossary's terms")


class OutlinePagesOut(BaseModel):
    total: int
    ocr: list[int]
    unread: list[int]
    textless: list[int]
    uncovered: list[int] = Field(description="pages no chunk lies on (other than those not read, blank or of the 목차)")
    ocr_engine: str | None
    ocr_confidence: float | None


class OutlineDocOut(BaseModel):
    doc: str
    name: str = Field(description="the uploaded file's name")
    source: str
    title: str
    kind: str
    chunks: int
    identity: dict[str, OutlineLabelOut | None] = Field(description="insurer, product, product_type, doc_type, version (null: not found)")
    pages: OutlinePagesOut
    yakgwan: list[OutlineYakgwanOut]
    appendices: list[OutlineAppendixOut]
    warnings: list[str] = Field(description="the ingest's warnings, in the request's language")


class OutlineOut(BaseModel):
    """What the index read of each document (docs/outline.md); the same object as ``yakgwan outline --json``."""

    model_config = ConfigDict(populate_by_name=True)

    schema_: str = Field(alias="schema", examples=["yakgwan.outline/1"])
    index: str = Field(description="the collection")
    documents: list[OutlineDocOut]


class JobOut(BaseModel):
    id: str
    kind: Literal["ingest", "appeal", "eval"]
    collection: str | None
    status: JobStatus
    stage: str = Field(description="what the job is doing now, in the request's language (Accept-Language; Korean by default)")
    stage_key: str = Field(description="the stage's message key, e.g. 'stage.embedding'")
    status_text: str = Field(description="the status in words, in the request's language")
    done: int
    total: int
    created: float
    started: float | None
    finished: float | None
    error: str | None
    error_kind: str | None = Field(default=None, description="a failed job's problem type, e.g. 'no-reason' (the notice states no reason recognised)")
    details: dict[str, Any] | None = Field(default=None, description="what a client needs to finish a failed job: for 'no-reason', the notice's "
                                           "sentences, to mark the reason among them (or type it) and start the appeal again with reasons")
    result: dict[str, Any] | None = None


class SearchIn(BaseModel):
    query: str = Field(min_length=1, max_length=2000)
    pipeline: str = DEFAULT_PIPELINE
    k: int = Field(default=10, ge=1, le=50)
    filters: list[str] = Field(default_factory=list, max_length=10, description="search only part of the collection: yakgwan=벌금 특별약관, doc=…, "
                               "product=…, insurer=…, version>=2024-01 (all apply; docs/scale.md)", examples=[["yakgwan=보통약관"]])


class ChunkFields(BaseModel):
    """A chunk's text and provenance."""

    chunk_id: str
    doc: str
    doc_name: str = Field(description="the uploaded file's name (display only)")
    title: str
    pages: list[int]
    yakgwan: str | None = Field(description="보통약관 or the 특별약관's exact name")
    article: str | None
    paragraph: str | None
    section: str | None
    text: str


class MemberOut(BaseModel):
    """A chunk folded into a hit: the same clause in another 약관, or another piece of its 조."""

    chunk_id: str
    doc: str
    pages: list[int]
    yakgwan: str | None
    article: str | None
    article_title: str | None
    paragraph: str | None
    section: str | None


class HitOut(ChunkFields):
    rank: int
    score: float
    produced_by: str
    members: list[MemberOut] = Field(default_factory=list, description="every variant of the clause this hit stands for, with its provenance")


class SearchOut(BaseModel):
    pipeline: str
    latency_ms: float
    note: str | None
    dense: str = Field(description="'ready', or how many chunks are embedded so far")
    hits: list[HitOut]
    route: dict | None = Field(default=None, description="on a policy: the 약관 the question was routed to (kind, scopes, thesaurus terms added)")
    filters: list[str] = Field(default_factory=list, description="the filters the search ran under")
    scope: dict | None = Field(default=None, description="the insurers, groups, product types and words the query named, the documents "
                               "searched (null: all), the insurers named that the collection lacks, and a note saying so")


class AskIn(BaseModel):
    question: str = Field(min_length=1, max_length=2000)
    pipeline: str = DEFAULT_PIPELINE
    mode: Literal["auto", "generate", "cot", "extract"] = "auto"
    k: int = Field(default=5, ge=1, le=10)
    rules: str = Field(default="all", max_length=500, description="which answer rules are on: all, none, names, or changes such as all,-compare")
    filters: list[str] = Field(default_factory=list, max_length=10, description="search only part of the collection: yakgwan=벌금 특별약관, doc=…, "
                               "product=…, insurer=…, version>=2024-01 (all apply; docs/scale.md)", examples=[["yakgwan=보통약관"]])


class CitationOut(BaseModel):
    n: int
    chunk_id: str
    doc: str
    doc_name: str
    article: str | None
    page: int | None
    quote: str = Field(description="a verbatim span of the cited chunk")
    yakgwan: str | None = Field(default=None, description="보통약관 or the 특별약관's exact name")
    heading: str | None = Field(default=None, description="약관 · 조 · 항, or the section's header path, shown above the quote")
    insurer: str | None = Field(default=None, description="the document's insurer, when the collection holds documents of several")


class AskOut(BaseModel):
    outcome: Literal["answered", "partial", "refused"]
    answer: str
    citations: list[CitationOut]
    pipeline: str
    mode: str
    by: str
    missing: list[str] = Field(description="names in the question that no document mentions")
    notes: list[str]
    llm_calls: int
    latency_ms: float
    scratchpad: str | None = Field(default=None, description="with mode cot: the model's reasoning before it answered; never the answer")
    scope: dict | None = Field(default=None, description="the insurers, groups, product types and words the question named, the "
                               "documents answered from (null: all) and the insurers named that the collection lacks")
    reason: str | None = Field(default=None, description="why the answer is refused or partial (null when answered): other_insurer, "
                               "absent_name, off_topic, not_in_documents, unverifiable (refused); no_such_article, left_to_contract, "
                               "not_stated, unnamed_payment, point_missing (partial)")
    reason_text: str | None = Field(default=None, description="the reason in the response's language")
    conclusion: str | None = Field(default=None, description="the sentence the answer leads with (its first words, with its citation "
                                   "mark), when it leads with one; null otherwise")
    question_kind: str | None = Field(default=None, description="the answerer the question's kind picked: other_insurer, missing_article, "
                                      "absent_name, unnamed_payment, which_rider, comparison, amount, ordinary")
    instructions: list[dict] = Field(default_factory=list, description="sentences of the retrieved passages that address the reader or a "
                                     "model (doc, doc_name, page, text, pattern): left out of the answer; show them as a warning")


class ChunkOut(ChunkFields):
    article_title: str | None


class DatasetOut(BaseModel):
    name: str
    format: Literal["seed", "beir", "clauses"] = Field(description="seed (a knowledge base and its questions), beir, or clauses (a policy and "
                                                        "the questions scored by the clauses that govern them)")
    questions: int
    categories: list[str]
    source: str
    problem: str | None = Field(default=None, description="why the set cannot be read (a malformed line, a missing file), in the request's "
                                "language; null when it can. The other sets are listed all the same")


class EvalIn(BaseModel):
    dataset: str
    pipelines: list[str] = Field(min_length=1, max_length=20)
    k: int = Field(default=10, ge=1, le=50)
    limit: int | None = Field(default=None, ge=1, description="only the first N questions")


class MapPoint(BaseModel):
    x: float
    y: float
    doc: str
    doc_type: str
    label: str


class MapOut(BaseModel):
    method: str
    source: str
    points: list[MapPoint]


class PipelineOut(BaseModel):
    name: str
    description: str = Field(description="what the pipeline does, in the request's language (Accept-Language; Korean by default)")
    needs_llm: bool
