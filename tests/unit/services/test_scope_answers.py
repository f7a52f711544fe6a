"""Questions that name an insurer: searched and answered within its documents; an insurer the
collection lacks is refused, naming it and listing those held (services, the CLI, a folder
index with the hashing embedder)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from yakgwan.config import EmbedderConfig, Settings
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.services.ask import ask_index
from yakgwan.services.ingest import ingest
from yakgwan.services.search import search_index

pytestmark = pytest.mark.unit

POLICY = """# {product} 보통약관

제1조(목적) 이 계약은 {insurer} 주식회사(이하 '회사'라 합니다)와 계약자 사이의 약정입니다.

# 벌금 특별약관

제1조(보험금의 지급사유) 회사는 피보험자가 사고로 벌금을 확정받은 때에는 벌금액을 {amount} 한도로 지급합니다.
"""


def _collection(tmp: Path) -> Settings:
    docs = []
    for name, product, insurer, amount in (("a.md", "가나 운전자보험", "한화손해보험", "2천만원"), ("b.md", "라마 해외여행보험", "DB손해보험", "3천만원"),
                                           ("c.md", "바사 운전자보험", "DB손해보험", "5천만원")):
        path = tmp / name
        path.write_text(POLICY.format(product=product, insurer=insurer, amount=amount), "utf-8")
        docs.append(path)
    s = Settings(index_dir=tmp / "index", cache_dir=tmp / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    ingest(s, docs, embedder=HashingEmbedder())
    return s


def test_a_question_naming_an_insurer_is_searched_and_answered_in_its_documents(tmp_path: Path) -> None:
    s = _collection(tmp_path)
    res = search_index(s, "DB손보 벌금 한도", "bm25", 10)
    assert {h.chunk.doc_id for h in res.hits} == {"b.md", "c.md"} and res.scope is not None
    assert res.scope.named == ("DB손해보험",) and res.scope.docs == ("b.md", "c.md")
    out = res.to_json("ko")["scope"]
    assert out["docs"] == ["b.md", "c.md"] and "b.md" in out["note"] and "DB손해보험" in out["note"]
    typed = search_index(s, "DB손해보험 운전자보험 벌금 한도", "bm25", 10)  # the insurer's document of that type
    assert {h.chunk.doc_id for h in typed.hits} == {"c.md"}
    answer = ask_index(s, "한화손해보험 벌금은 얼마까지 보상하나요?", "bm25", "extract", 5)
    assert answer.citations and {c.doc for c in answer.citations} == {"a.md"}
    assert {c.insurer for c in answer.citations} == {"한화손해보험"}  # several insurers: each citation names its own
    assert answer.to_json("ko")["scope"]["insurers"] == ["한화손해보험"]
    plain = search_index(s, "벌금 한도", "bm25", 10)  # naming nothing: every document
    assert {h.chunk.doc_id for h in plain.hits} == {"a.md", "b.md", "c.md"} and plain.scope_note is None


def test_an_insurer_the_collection_lacks_is_refused_with_the_insurers_it_holds(tmp_path: Path) -> None:
    s = _collection(tmp_path)
    refused = ask_index(s, "AXA손해보험 운전자보험 벌금 한도가 얼마예요?", "bm25", "extract", 5)
    assert refused.outcome == "refused" and refused.citations == [] and refused.missing == ["AXA손해보험"]
    assert "AXA손해보험" in refused.answer and "한화손해보험" in refused.answer and "DB손해보험" in refused.answer
    assert refused.by == "scope" and refused.scope is not None and refused.scope.absent == ("AXA손해보험",)
    kept = ask_index(s, "한화손해보험 벌금 한도", "bm25", "extract", 5, filters=["doc=b.md"])  # the filter's part holds no 한화
    assert kept.outcome == "refused" and "한화손해보험" in kept.answer
    res = search_index(s, "AXA손해보험 벌금 한도", "bm25", 10)  # a search still shows what there is, and says why
    assert res.hits and res.scope_note is not None and "AXA손해보험" in res.scope_note.text("ko")


def test_the_cli_says_the_scope_and_refuses_an_absent_insurer(tmp_path: Path) -> None:
    s = _collection(tmp_path)
    env = dict(os.environ, YAKGWAN_INDEX=str(s.index_dir), YAKGWAN_CACHE_DIR=str(s.cache_dir), YAKGWAN_EMBEDDER="hashing", YAKGWAN_LANG="ko")
    p = subprocess.run([sys.executable, "-m", "yakgwan.cli", "ask", "흥국화재 벌금 한도는?", "--pipeline", "bm25", "--json", "--quiet"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["outcome"] == "refused" and out["missing"] == ["흥국화재"] and out["scope"]["absent"] == ["흥국화재"]
    assert "있는 보험사" in out["answer"] and out["scope"]["held"] == ["한화손해보험", "DB손해보험"]
    p = subprocess.run([sys.executable, "-m", "yakgwan.cli", "search", "한화손보 벌금", "--pipeline", "bm25", "--quiet"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "a.md" in p.stdout and "b.md" not in p.stdout and "질문이 가리키는 문서" in p.stdout
