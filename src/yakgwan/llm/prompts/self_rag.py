"""Self-RAG's prompt that decides whether a question needs the documents, and the yes/no schema
its judgements answer in (relevance without log-probabilities, the answer checks)."""

from __future__ import annotations

from pydantic import BaseModel

from yakgwan.llm.types import Message


class YesNo(BaseModel):
    yes: bool


def need_messages(question: str) -> list[Message]:
    return [
        Message("system", "회사·상품·약관 문서에서 찾아야 답할 수 있는 질문이면 yes=true, 인사나 잡담처럼 문서가 필요 없으면 yes=false."),
        Message("user", question),
    ]
