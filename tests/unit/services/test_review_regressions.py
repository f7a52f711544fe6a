"""Regressions: user folders, concurrent ingests, path-independent ids, served embedders, eval guards."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from stub_server import JsonHandler, serve

from yakgwan.services.ingest import ingest
from yakgwan.config import EmbedderConfig, Settings
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.embedders.openai_compat import OpenAIEmbedder
from yakgwan.core.errors import IndexStoreError, InputError
from yakgwan.store import open_store

pytestmark = pytest.mark.unit


def _settings(tmp: Path, index: str = "index") -> Settings:
    return Settings(index_dir=tmp / index, cache_dir=tmp / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)


def _md(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, "utf-8")
    return path


def test_index_never_deletes_foreign_folders(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    doc = _md(tmp_path / "docs" / "a.md", "# 보험\n\n상해 보험금을 지급합니다.")
    ingest(s, [doc], embedder=HashingEmbedder())
    (s.index_dir / "gallery").mkdir()  # a folder a user put there
    for i in range(3):
        doc.write_text(f"# 보험\n\n상해 보험금을 지급합니다. 개정 {i}", "utf-8")
        ingest(s, [doc], embedder=HashingEmbedder())
    assert (s.index_dir / "gallery").is_dir()
    gens = sorted(p.name for p in s.index_dir.iterdir() if p.name.startswith("g0"))
    assert len(gens) == 2  # current + previous


def test_non_empty_foreign_folder_is_refused(tmp_path: Path) -> None:
    s = _settings(tmp_path, "project")
    (s.index_dir / "notes").mkdir(parents=True)
    doc = _md(tmp_path / "a.md", "# 보험\n\n내용입니다.")
    with pytest.raises(IndexStoreError, match="not empty"):
        ingest(s, [doc], embedder=HashingEmbedder())
    assert [p.name for p in s.index_dir.iterdir()] == ["notes"]


def test_concurrent_ingests_keep_every_document(tmp_path: Path) -> None:
    env = dict(os.environ, YAKGWAN_INDEX=str(tmp_path / "index"), YAKGWAN_CACHE_DIR=str(tmp_path / "cache"), YAKGWAN_EMBEDDER="hashing")
    docs = [_md(tmp_path / f"c{i}" / f"doc{i}.md", f"# 문서 {i}\n\n보장 내용 {i}번 조항입니다.") for i in range(3)]
    procs = [subprocess.Popen([sys.executable, "-m", "yakgwan.cli", "ingest", str(d), "--quiet"], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE) for d in docs]
    for p in procs:
        assert p.wait(timeout=300) == 0, p.stderr.read() if p.stderr else ""
    assert sorted(open_store(tmp_path / "index").read().docs) == ["doc0.md", "doc1.md", "doc2.md"]


def test_same_file_by_another_path_keeps_its_id(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    doc = _md(tmp_path / "docs" / "x" / "policy.md", "# 약관\n\n보험금 지급 사유를 정합니다.")
    ingest(s, [tmp_path / "docs"], embedder=HashingEmbedder())
    r = ingest(s, [doc], embedder=HashingEmbedder())
    assert r.unchanged == ["x/policy.md"] and not r.added
    assert list(open_store(s.index_dir).read().docs) == ["x/policy.md"]


def test_different_file_with_same_id_is_a_conflict_not_a_replacement(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    a = _md(tmp_path / "x" / "policy.md", "# 갑 약관\n\n갑 회사의 보장 내용입니다.")
    b = _md(tmp_path / "y" / "policy.md", "# 을 약관\n\n을 회사의 보장 내용입니다.")
    ingest(s, [a], embedder=HashingEmbedder())
    r = ingest(s, [b, _md(tmp_path / "y" / "other.md", "# 기타\n\n다른 문서입니다.")], embedder=HashingEmbedder())
    assert [Path(e.path).parent.name for e in r.failed] == ["y"] and "already indexed" in r.failed[0].reason
    texts = " ".join(c.text for c in open_store(s.index_dir).read().chunks)
    assert "갑 회사" in texts and "을 회사" not in texts


def test_sync_removes_documents_gone_from_the_corpus(tmp_path: Path) -> None:
    s = _settings(tmp_path)
    kb = tmp_path / "kb"
    _md(kb / "a.md", "# 가\n\n첫 문서입니다.")
    gone = _md(kb / "b.md", "# 나\n\n두 번째 문서입니다.")
    ingest(s, [kb], embedder=HashingEmbedder())
    gone.unlink()
    r = ingest(s, [kb], sync=True, embedder=HashingEmbedder())
    assert r.removed == ["b.md"]
    assert sorted(open_store(s.index_dir).read().docs) == ["a.md"]


class _FakeEmbeddings(JsonHandler):
    def do_POST(self) -> None:  # noqa: N802 (http.server API)
        body = self.body()
        if self.headers.get("Authorization") != "Bearer k":
            return self.send_json(401, {"error": {"message": "bad key"}})
        vecs = HashingEmbedder(dim=8).embed(body["input"], "passage")
        self.send_json(200, {"data": [{"index": i, "embedding": v.tolist()} for i, v in enumerate(vecs)]})


@pytest.fixture()
def fake_endpoint():  # type: ignore[no-untyped-def]
    with serve(_FakeEmbeddings) as url:
        yield url


def test_served_embedder_learns_its_dimension_and_ingests(tmp_path: Path, fake_endpoint: str) -> None:
    s = _settings(tmp_path)
    emb = OpenAIEmbedder(fake_endpoint, "fake-model", api_key="k", retries=0)
    assert emb.dim == 8  # learnt with one request before anything is embedded
    r = ingest(s, [_md(tmp_path / "a.md", "# 보험\n\n상해 보험금을 지급합니다.")], embedder=emb)
    assert r.dense_ready and emb.dim == 8
    data = open_store(s.index_dir).read()
    assert data.vectors.shape == (len(data.chunks), 8) and np.allclose(np.linalg.norm(data.vectors, axis=1), 1.0)


def test_served_embedder_bad_key_is_a_clear_error(fake_endpoint: str) -> None:
    from yakgwan.core.errors import ProviderError

    with pytest.raises(ProviderError, match="authentication failed"):
        OpenAIEmbedder(fake_endpoint, "fake-model", api_key="wrong", retries=0).embed(["x"], "query")


def test_eval_with_wrong_corpus_folder_fails_clearly(tmp_path: Path) -> None:
    kb = tmp_path / "set" / "knowledge_base"
    _md(kb / "faq" / "a.md", "# 환불\n\n전액 환불합니다.")
    tests = tmp_path / "t.jsonl"
    tests.write_text(json.dumps({"question": "환불?", "keywords": [], "source_docs": ["faq/a.md"], "category": "x"}, ensure_ascii=False), "utf-8")
    env = dict(os.environ, YAKGWAN_CACHE_DIR=str(tmp_path / "cache"), YAKGWAN_EMBEDDER="hashing")
    p = subprocess.run([sys.executable, "-m", "yakgwan.cli", "eval", "--corpus", str(tmp_path / "set"), "--tests", str(tests), "--quiet"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode != 0 and "none of the 1 judged documents" in p.stderr
    env["YAKGWAN_CACHE_DIR"] = str(tmp_path / "cache2")
    p = subprocess.run([sys.executable, "-m", "yakgwan.cli", "eval", "--corpus", str(kb), "--tests", str(tests), "--pipeline", "hyde9", "--quiet"],
                       env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode != 0 and "'hyde9'" in p.stderr
    assert not (tmp_path / "cache2" / "eval-index").exists()  # the typo failed before any ingest


def test_malformed_test_rows_name_the_line(tmp_path: Path) -> None:
    from yakgwan.eval.datasets import load_seed

    kb = tmp_path / "kb"
    kb.mkdir()
    tests = tmp_path / "t.jsonl"
    tests.write_text('{"question": "q", "source_docs": "faq/a.md", "keywords": []}\n', "utf-8")
    with pytest.raises(InputError, match="line 1"):
        load_seed(kb, tests)
