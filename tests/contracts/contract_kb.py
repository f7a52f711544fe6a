"""The contract suites' knowledge base: five small documents (two 벌금 특별약관 sharing their
clauses verbatim, as variant 특약 do), and how to index them."""

from __future__ import annotations

from pathlib import Path

from yakgwan.config import EmbedderConfig, Settings
from yakgwan.core.protocols import Embedder

FINE = (
    "## 제1조(보상하는 손해)\n\n회사는 피보험자가 자동차 사고로 벌금을 선고받은 경우 벌금액을 {limit} 한도로 보상합니다.\n\n"
    "## 제2조(보상하지 않는 손해)\n\n회사는 음주운전 중 생긴 사고로 선고받은 벌금은 보상하지 않습니다.\n\n"
    "## 제3조(보험금의 청구)\n\n보험금을 청구할 때에는 판결문 사본과 벌금 납입 영수증을 내야 합니다.\n"
)
KB = {
    "벌금1.md": "# 벌금 특별약관Ⅰ\n\n" + FINE.format(limit="2천만원"),
    "벌금2.md": "# 벌금 특별약관Ⅱ\n\n" + FINE.format(limit="3천만원"),
    "골절.md": "# 골절 진단비\n\n## 제1조(보험금의 지급사유)\n\n피보험자가 골절 진단을 받으면 골절진단비를 지급합니다.\n\n"
    "## 제2조(지급하지 않는 사유)\n\n치아 파절은 골절에 포함하지 않습니다.\n",
    "여행.md": "# 해외여행\n\n출발 30일 전까지 취소하면 전액 환불합니다.\n\n여행 중 휴대폰을 도난당하면 50만원 한도로 보상합니다.\n\n"
    "항공기 지연으로 숙박비가 들면 20만원 한도로 보상합니다.\n",
    "치료비.md": "# 실손 치료비\n\n## 제1조(보상하는 사항)\n\n급여 치료비는 본인부담금의 90%를 보상합니다.\n\n"
    "## 제2조(보상하지 않는 사항)\n\n비급여 치료비는 보상하지 않습니다.\n",
}


def ingest_kb(root: Path, embedder: Embedder, embedder_name: str = "hashing") -> Settings:
    """Settings of an index over ``KB`` under ``root``, embedded in full by ``embedder`` (the
    registered embedder ``embedder_name``)."""
    from yakgwan.services.ingest import ingest

    for name, text in KB.items():
        (root / "kb" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "kb" / name).write_text(text, "utf-8")
    settings = Settings(index_dir=root / "index", cache_dir=root / "cache", embedder=EmbedderConfig(embedder_name), tokenizer="mecab", quiet=True)
    ingest(settings, [root / "kb"], sync=True, embedder=embedder)
    return settings
