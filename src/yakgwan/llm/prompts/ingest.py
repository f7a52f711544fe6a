"""Prompts of the ingest steps (LLM chunking, pre-processing) and the schema of LLM chunking's answer."""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

from yakgwan.llm.prompts.common import SYSTEM
from yakgwan.llm.types import Message

HEADLINE_CHARS, SUMMARY_CHARS = 60, 200


def cut_at_word(text: str, limit: int) -> str:
    """``text`` with whitespace collapsed, cut to at most ``limit`` characters at the last space
    when there is one in the second half of the cut, else at ``limit``."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[:limit]
    space = cut.rfind(" ")
    return cut[:space] if space >= limit // 2 else cut


class Section(BaseModel):
    """One chunk proposed by LLM chunking: where it starts (a sentence number), a headline and
    a one-sentence summary. The text itself is cut from the document, never copied by the model."""

    first: int = Field(ge=1)
    headline: str = Field(min_length=1, max_length=HEADLINE_CHARS)
    summary: str = Field(min_length=1, max_length=SUMMARY_CHARS)

    # The local grammar cannot bound strings this long (see ``grammar_safe``), and the model
    # sometimes writes past the bound. Headline and summary are retrieval text, never cited, so an
    # over-long one is cut at a word boundary instead of costing the document its LLM chunks.
    # (The docstring above is part of the JSON schema the model is shown: leave it as it is.)
    @field_validator("headline", mode="before")
    @classmethod
    def _cut_headline(cls, v: object) -> object:
        return cut_at_word(v, HEADLINE_CHARS) if isinstance(v, str) else v

    @field_validator("summary", mode="before")
    @classmethod
    def _cut_summary(cls, v: object) -> object:
        return cut_at_word(v, SUMMARY_CHARS) if isinstance(v, str) else v


class Sections(BaseModel):
    sections: list[Section] = Field(min_length=1, max_length=8)


LLM_CHUNK_SHOT = (
    ["사내 도서관은 평일 9시부터 18시까지 엽니다.", "주말에는 문을 닫습니다.", "도서는 1인당 5권까지 빌릴 수 있습니다.", "대출 기간은 2주입니다."],
    Sections(
        sections=[
            Section(first=1, headline="사내 도서관 운영 시간", summary="평일 9시~18시 운영, 주말 휴관."),
            Section(first=3, headline="도서 대출 규정", summary="1인당 5권, 2주 동안 대출."),
        ]
    ),
)


def _numbered(sentences: list[str]) -> str:
    return "\n".join(f"[{i}] {' '.join(s.split())}" for i, s in enumerate(sentences, 1))


def llm_chunk_messages(sentences: list[str]) -> list[Message]:
    return [
        Message(
            "system",
            SYSTEM
            + " 번호가 붙은 문장들을 한 가지 주제씩 다루는 덩어리로 나누세요. 덩어리마다 첫 문장의 번호(first), 검색에 쓸 제목(headline), "
            "그 덩어리만의 한 문장 요약(summary)을 쓰세요. 문장을 옮겨 적지 마세요.",
        ),
        Message("user", _numbered(LLM_CHUNK_SHOT[0])),
        Message("assistant", LLM_CHUNK_SHOT[1].model_dump_json()),
        Message("user", _numbered(sentences)),
    ]


PREPROCESS_CHARS = 1200  # of the chunk, whitespace collapsed
PREPROCESS_SHOT = (
    "사내 도서관은 평일 오전 9시부터 오후 6시까지 운영합니다. 도서는 1인당 5권까지 2주 동안 빌릴 수 있습니다.",
    "질문: 사내 도서관 운영 시간은? 책은 몇 권, 며칠 빌릴 수 있나요?\n핵심어: 사내 도서관, 운영 시간, 도서 대출, 5권, 2주",
)


def preprocess_messages(text: str) -> list[Message]:
    return [
        Message(
            "system",
            SYSTEM + " 문단을 검색하기 좋게 다시 쓰세요: 이 문단이 답하는 질문 두 개와 핵심어를 한두 줄로 쓰고, 고유명사와 숫자는 그대로 두세요.",
        ),
        Message("user", PREPROCESS_SHOT[0]),
        Message("assistant", PREPROCESS_SHOT[1]),
        Message("user", " ".join(text.split())[:PREPROCESS_CHARS]),
    ]
