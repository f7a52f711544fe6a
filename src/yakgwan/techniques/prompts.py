"""Prompts (Korean, few-shot) and the Pydantic schemas their answers must match."""

from __future__ import annotations

from pydantic import BaseModel, Field, field_validator

from yakgwan.llm.types import Message

SYSTEM = "당신은 한국어 보험 약관과 사내 문서 검색을 돕는 도우미입니다. 질문에 답하지 말고, 요청된 형식만 출력하세요."


class Queries(BaseModel):
    """Search queries; bounded so constrained decoding always finishes."""

    queries: list[str] = Field(min_length=1, max_length=4)


class Ranking(BaseModel):
    """A permutation of the candidate numbers, most relevant first."""

    order: list[int] = Field(min_length=1, max_length=30)


# Few-shot examples are written for this purpose and appear in no evaluation set.
REWRITE_SHOTS = (
    ("교통사고로 벌금을 선고받으면 얼마까지 보상하나요?", ["벌금 특별약관 보험금 지급사유 벌금액 한도"]),
    ("사내 통근버스는 몇 시에 출발해요?", ["통근버스 운행 시간표 출발 시각"]),
    ("비급여 치료비도 보장이 되나요?", ["비급여 치료비 보상 보험금을 지급하지 않는 사유"]),
)


def rewrite_messages(query: str) -> list[Message]:
    msgs = [Message("system", SYSTEM + " 질문을 문서 검색에 알맞은 핵심어 중심의 검색어 하나로 바꾸세요. 고유명사와 숫자는 그대로 두세요.")]
    for q, out in REWRITE_SHOTS:
        msgs += [Message("user", q), Message("assistant", Queries(queries=out).model_dump_json())]
    return [*msgs, Message("user", query)]


def multiquery_messages(query: str, n: int) -> list[Message]:
    return [
        Message("system", SYSTEM + f" 같은 정보를 찾는 서로 다른 검색어를 {n}개 만드세요. 고유명사와 숫자는 그대로 두세요."),
        Message("user", "사내 도서관에서 책은 며칠 빌릴 수 있나요?"),
        Message("assistant", Queries(queries=["사내 도서관 도서 대출 기간", "도서 대출 반납 규정", "도서관 이용 안내 대출 권수"][:n]).model_dump_json()),
        Message("user", query),
    ]


def hyde_messages(query: str, mode: str) -> list[Message]:
    if mode == "clause":
        task = "질문에 해당하는 약관 조항이나 규정 문서의 한 단락을 문서 문체(예: '회사는 … 경우에는 보험금을 지급하지 않습니다.')로 작성하세요."
    else:
        task = "질문에 대한 답을 담은 짧은 설명 단락을 작성하세요. 모르는 사실은 일반적인 표현으로 쓰세요."
    return [Message("system", SYSTEM + " " + task + " 두세 문장의 본문만 쓰세요."), Message("user", query)]


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

