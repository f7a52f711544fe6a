"""Ingest on a Ray cluster (a local one the test starts with 2 CPUs): reading, tokenising and
embedding on actors that build the bundled tokenizer and embedder once give the index a single
process builds: the same chunks, tokens and documents, and the same vectors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from yakgwan.config import Settings
from yakgwan.services.ingest import ingest
from yakgwan.store import open_store

pytestmark = pytest.mark.integration

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"


@pytest.fixture(scope="module")
def ray_cluster():  # type: ignore[no-untyped-def]
    ray = pytest.importorskip("ray", reason="needs Ray: pip install 'yakgwan[ray]'")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield ray
    ray.shutdown()


def _kb(tmp: Path) -> Path:
    kb = tmp / "kb"
    kb.mkdir()
    (kb / "약관.txt").write_text(SAMPLE.read_text("utf-8"), "utf-8")
    for i, topic in enumerate(["환불", "보험금 청구", "여행자 보험"]):
        body = "\n\n".join(f"## {topic} {j}\n\n{topic}에 관한 {j}번째 안내입니다. 출발 {j + 3}일 전까지 신청하면 {j * 10}% 를 돌려받습니다." for j in range(12))
        (kb / f"안내{i}.md").write_text(f"# {topic}\n\n{body}\n", "utf-8")
    (kb / "깨진.pdf").write_bytes(b"%PDF-1.7\n this is not a PDF body")
    return kb


def test_a_ray_ingest_builds_the_index_a_single_process_builds(tmp_path: Path, ray_cluster) -> None:  # type: ignore[no-untyped-def]
    kb = _kb(tmp_path)
    base = Settings.from_env().with_(quiet=True)
    one = ingest(base.with_(index_dir=tmp_path / "one", cache_dir=tmp_path / "c1"), [kb], sync=True)
    two = ingest(base.with_(index_dir=tmp_path / "two", cache_dir=tmp_path / "c2"), [kb], sync=True, ray="auto", ray_workers=2)
    a, b = open_store(tmp_path / "one").read(), open_store(tmp_path / "two").read()
    assert len(a.chunks) > 30 and a.chunks == b.chunks and a.tokens == b.tokens and a.docs == b.docs
    assert a.dense_ready and b.dense_ready and two.embedded == len(b.chunks)  # every vector computed on the actors, none from a cache
    assert float(np.abs(a.vectors - b.vectors).max()) <= 1e-6
    # a file that cannot be read fails alone, with its reason, as without Ray
    assert [p.path.endswith("깨진.pdf") for p in two.failed] == [True] and str(two.failed[0]) == str(one.failed[0])


def test_ray_workers_say_where_they_run(tmp_path: Path, ray_cluster) -> None:  # type: ignore[no-untyped-def]
    from yakgwan.config import EmbedderConfig
    from yakgwan.ingest.workers import RayWorkers, WorkerSpec

    workers = RayWorkers("auto", WorkerSpec("mecab", EmbedderConfig("hashing"), tmp_path), workers=2)
    try:
        assert len(workers.where) == 2 and len({pid for _, pid, _ in workers.where}) == 2  # two processes, each with its models
        from yakgwan.text.registry import make_tokenizer

        texts, done = [f"보험금 청구 서류 {i}" for i in range(140)], []
        assert workers.tokenize(texts, done.append) == make_tokenizer("mecab").tokenize_many(texts)  # in order, across both actors
        assert sum(done) == 140 and len(done) == 3  # batches of 64
        from yakgwan.embedders.hashing import HashingEmbedder

        batches = [["가"], ["나", "다"], ["라"]]
        vecs = list(workers.embed(batches))
        here = HashingEmbedder()
        assert all(np.array_equal(v, here.embed(b, "passage")) for v, b in zip(vecs, batches))
    finally:
        workers.close()
    assert ray_cluster.is_initialized()  # a cluster it did not start is left running


def test_eval_on_ray_scores_the_questions_as_one_process_does(tmp_path: Path, ray_cluster) -> None:  # type: ignore[no-untyped-def]
    from yakgwan.config import EmbedderConfig
    from yakgwan.eval.runner import EvalRequest
    from yakgwan.services.evaluate import evaluate, load_evalset

    kb = tmp_path / "kb"
    kb.mkdir()
    for i, topic in enumerate(["환불", "보험금 청구", "여행자 보험", "청약 철회"]):
        (kb / f"doc{i}.md").write_text(f"# {topic}\n\n{topic}은 출발 {i + 3}일 전까지 신청하면 됩니다. 필요한 서류는 신청서와 신분증입니다.\n", "utf-8")
    tests = tmp_path / "tests.jsonl"
    import json

    rows = [{"question": f"{t} 언제까지 신청하나요?", "keywords": [f"{i + 3}일"], "reference_answer": "", "category": "c", "source_docs": [f"doc{i}.md"]}
            for i, t in enumerate(["환불", "보험금 청구", "여행자 보험", "청약 철회"])]
    tests.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), "utf-8")
    s = Settings(index_dir=tmp_path / "unused", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    evalset = load_evalset(kb, tests, None, None)
    (one,) = evaluate(s, EvalRequest(evalset, ("bm25",)))
    (two,) = evaluate(s, EvalRequest(evalset, ("bm25",), ray="auto", ray_workers=2))
    assert [q.retrieved for q in two.per_query] == [q.retrieved for q in one.per_query] and len(two.per_query) == 4
    assert two.metrics == one.metrics and "2 Ray workers" in str(two.note or "")
