"""Prompts (Korean, few-shot) that write search queries and HyDE passages, and the schema of their answers."""

from __future__ import annotations

from pydantic import BaseModel, Field

from yakgwan.llm.prompts.common import SYSTEM
from yakgwan.llm.types import Message


class Queries(BaseModel):
    """Search queries; bounded so constrained decoding always finishes."""

    queries: list[str] = Field(min_length=1, max_length=4)


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
