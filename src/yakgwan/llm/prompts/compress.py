"""Contextual compression's prompt: the numbers of the sentences that bear on the question."""

from __future__ import annotations

from pydantic import BaseModel, Field

from yakgwan.llm.prompts.common import SYSTEM
from yakgwan.llm.types import Message


class Keep(BaseModel):
    keep: list[int] = Field(max_length=40)


def compress_messages(query: str, sentences: list[str]) -> list[Message]:
    listing = "\n".join(f"[{i}] {s}" for i, s in enumerate(sentences, 1))
    return [Message("system", SYSTEM + " 질문과 관련된 문장의 번호만 고르세요."), Message("user", f"질문: {query}\n\n문장:\n{listing}")]
