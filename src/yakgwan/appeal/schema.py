"""The appeal analysis contract (DESIGN.md), as Pydantic models: what ``appeal --json`` writes
and what an LLM's analysis must validate against."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

Band = Literal["LOW", "MEDIUM", "HIGH"]
By = Literal["rules", "llm"]  # who wrote an item: the templates or the LLM analysis
IssueKind = Literal["coverage_trigger", "exclusion", "definition", "procedure", "disclosure_duty"]
CheckName = Literal["definition", "proportional", "ambiguity"]  # the reading checks (7), (8), (9)


class Provenance(BaseModel):
    doc: str
    yakgwan: str  # 보통약관 or the 특별약관's exact name
    article: str  # e.g. "제2조 제8호"
    page: int | None
    chunk_id: str
    quote: str = Field(min_length=1)  # a verbatim span of the chunk


class EvidenceItem(BaseModel):
    claim: str = Field(min_length=1)
    provenance: Provenance
    by: By = "rules"


class SubIssue(BaseModel):
    kind: IssueKind
    question: str = Field(min_length=1)
    clauses: list[str] = Field(default_factory=list)  # "벌금 특별약관 제2조 제8호"
    by: By = "rules"


class Issue(BaseModel):
    reason: str = Field(min_length=1)
    cited: list[str] = Field(default_factory=list)
    sub_issues: list[SubIssue] = Field(min_length=1)


class Gap(BaseModel):
    requirement: str = Field(min_length=1)  # what the policy requires (with its clause)
    shown: str = Field(min_length=1)  # what the notice shows the claimant has shown, or does not
    to_close: str = Field(min_length=1)  # what would close the gap
    by: By = "rules"


class SuccessProbability(BaseModel):
    band: Band
    rationale: str = Field(min_length=1)
    base_rate: float = Field(ge=0.0, le=1.0)  # the share of 금융감독원 claim-payment disputes that paid something: where LOW comes from
    decided_by: list[str] = Field(default_factory=list)  # the finding kinds that set the band (empty: the base rate)


class DiffPiece(BaseModel):
    """A stretch of a quote compared with the policy's words: in both, only in the policy, only
    in the notice."""

    op: Literal["same", "policy_only", "notice_only"]
    text: str


class FindingItem(BaseModel):
    """A finding as the analysis states it: its kind, the words, its effect on the band (the
    rule of :mod:`yakgwan.appeal.band`: ``decisive`` sets HIGH, ``arguable`` MEDIUM, ``bears_out``
    and ``stated`` move nothing), and both sides: the notice's words and the policy's."""

    kind: str = Field(min_length=1)
    text: str = Field(min_length=1)
    effect: Literal["decisive", "arguable", "bears_out", "stated"]
    notice: str | None = None  # what the notice says, as written
    policy: Provenance | None = None  # what the policy says: a verbatim span of a chunk
    by: By = "rules"
    diff: list[DiffPiece] | None = None  # where the notice quotes the policy: the difference, marked


class CheckStatus(BaseModel):
    """One reading check (definition, proportional, ambiguity) and how it came out: ``found``
    (the rules, or the model, say the notice errs; a finding states it), ``not_found``,
    ``not_assessed`` (the rules do not settle it and there is no model, or its answer was not
    usable) or ``not_applicable`` (nothing for it to look at). Where it was decided, who decided
    (``by``: "rules" or the model's name) and the notice sentence and policy span it rests on."""

    check: CheckName
    status: Literal["found", "not_found", "not_assessed", "not_applicable"]
    note: str = Field(min_length=1)
    by: str | None = None  # "rules" or the model that answered; None when undecided
    notice: str | None = None
    policy: Provenance | None = None


class Analysis(BaseModel):
    issue_tree: list[Issue] = Field(min_length=1)
    gap_analysis: list[Gap] = Field(min_length=1)
    recommended_actions: list[str] = Field(min_length=1)
    success_probability: SuccessProbability
    evidence_pack: list[EvidenceItem] = Field(min_length=1)
    documents_to_collect: list[str] = Field(default_factory=list)
    findings: list[FindingItem] = Field(default_factory=list)  # what moved the band (or was stated beside it)
    checks: list[CheckStatus] = Field(default_factory=list)  # the reading checks (7)-(9) and their status


REQUIRED_KEYS = ("issue_tree", "gap_analysis", "recommended_actions", "success_probability", "evidence_pack")
