"""Prompts that judge passages for a question: a listwise ranking (with its schema) and a yes/no relevance question."""

from __future__ import annotations

from pydantic import BaseModel, Field

from yakgwan.llm.prompts.common import SYSTEM
from yakgwan.llm.types import Message


class Ranking(BaseModel):
    """A permutation of the candidate numbers, most relevant first."""

    order: list[int] = Field(min_length=1, max_length=30)


RERANK_CHARS = 240  # of each candidate, whitespace collapsed


def rerank_messages(query: str, candidates: list[str]) -> list[Message]:
    listing = "\n".join(f"[{i}] {' '.join(c.split())[:RERANK_CHARS]}" for i, c in enumerate(candidates, 1))
    return [
        Message("system", SYSTEM + " 후보 문단을 질문과의 관련성이 높은 순서로 정렬하고, 후보 번호의 순열을 출력하세요."),
        Message("user", f"질문: {query}\n\n후보:\n{listing}"),
    ]


RELEVANCE_OPTIONS = ("예", "아니오")
RELEVANCE_CHARS = 600  # of the passage, whitespace collapsed


def relevance_messages(query: str, passage: str) -> list[Message]:
    """A yes/no question whose answer's first token is read as a relevance probability."""
    text = " ".join(passage.split())[:RELEVANCE_CHARS]
    return [
        Message("system", "문단이 질문에 답하는 데 필요한 내용을 담고 있으면 '예', 아니면 '아니오'로만 답하세요."),
        Message("user", f"질문: {query}\n\n문단: {text}"),
    ]
