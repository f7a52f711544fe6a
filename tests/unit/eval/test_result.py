"""EvalResult: the typed record of one pipeline's result reads back exactly what ``eval --json``
writes, for a result made by ``score_retriever`` and for every result kept under bench/results/."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from yakgwan.core.errors import InputError
from yakgwan.core.records import Chunk, Hit
from yakgwan.eval.combine import load_results
from yakgwan.eval.datasets import EvalQuery, EvalSet
from yakgwan.eval.result import AnswersResult, BuildRecord, EvalResult, IndexInfo, QueryResult
from yakgwan.eval.runner import EvalOptions, score_retriever

pytestmark = pytest.mark.unit

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
BENCH_FILES = sorted((ROOT / "bench" / "results").glob("*/*.json"))


class TwoDocs:
    """Ranks d0.md first for a question that names it, else d1.md; fewer than k hits."""

    def retrieve(self, query: str, k: int) -> list[Hit]:
        docs = ["d0.md", "d1.md"] if "d0" in query else ["d1.md", "d0.md"]
        return [Hit(Chunk(f"c{i}", d, d, "t", f"{d} 본문 환불", 0, 8), 1.0 / (i + 1), i + 1, "two") for i, d in enumerate(docs[:k])]


def _roundtrip(d: dict) -> dict:
    return EvalResult.from_json(d).to_json()


def _scored(tmp_path: Path) -> EvalResult:
    qs = [EvalQuery("1", "d0 환불", {"d0.md": 1}, ("환불",), "direct"), EvalQuery("2", "d1 설립", {"d1.md": 1}, (), "numeric")]
    return score_retriever(TwoDocs(), "two", EvalSet("s", tmp_path, qs), EvalOptions(k=3), quiet=True, note="a note")


def test_a_scored_result_reads_back_as_it_was_written(tmp_path: Path) -> None:
    res = _scored(tmp_path)
    assert isinstance(res.per_query[0], QueryResult) and res.metrics["mrr"] == 1.0 and res.short_lists.under_k == 2
    out = res.to_json()
    assert list(out) == ["pipeline", "dataset", "n", "k", "metrics", "seed_metrics", "latency_ms", "load_1m", "stage_ms", "per_query",
                         "source", "top_produced_by", "short_lists", "by_category", "note"]
    assert list(out["per_query"][0]) == ["qid", "query", "category", "relevant", "retrieved", "metrics", "seed_metrics", "latency_ms",
                                         "llm_ms", "top_produced_by", "hits"]
    assert EvalResult.from_json(out) == res
    assert json.dumps(_roundtrip(json.loads(json.dumps(out)))) == json.dumps(out)
    # what the evaluate service adds: the provenance (command None when not run as yakgwan), the index, the answers
    full = dataclasses.replace(res, command=None, machine="x86_64, 2 cores", questions_sha256="a" * 64, corpus_sha256="b" * 64,
                               measured_at="2026-12-02", yakgwan="0.1", built={"structure": "tree", "mb": 0.5},
                               index=IndexInfo(9, ("llm_chunk",), BuildRecord(ingest_seconds=1.5, documents=2, step_fallback_reasons={"llm_chunk": ("a.md: cut",)})),
                               answers=AnswersResult(mode="extract", metrics={"answer_rate": 1.0}, rules="all"))
    out = full.to_json()
    assert out["command"] is None and list(out)[-9:] == ["built", "command", "machine", "questions_sha256", "corpus_sha256", "measured_at",
                                                         "yakgwan", "index", "answers"]
    assert out["index"] == {"chunks": 9, "ingest_steps": ["llm_chunk"], "ingest_seconds": 1.5, "documents": 2,
                            "step_fallback_reasons": {"llm_chunk": ["a.md: cut"]}}
    assert json.dumps(_roundtrip(json.loads(json.dumps(out)))) == json.dumps(out)


@pytest.mark.skipif(not BENCH_FILES, reason="no bench/results folder")
@pytest.mark.parametrize("path", BENCH_FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_kept_result_reads_back_exactly(path: Path) -> None:
    data = json.loads(path.read_text("utf-8"))
    for d in data if isinstance(data, list) else [data]:
        out = _roundtrip(d)
        assert json.dumps(out, ensure_ascii=False) == json.dumps(d, ensure_ascii=False)  # same keys, order and values
        assert _roundtrip(out) == out


def test_an_unknown_key_is_refused_and_named(tmp_path: Path) -> None:
    d = _scored(tmp_path).to_json()
    with pytest.raises(ValueError, match="unknown key.*'recal'"):
        EvalResult.from_json(d | {"recal": 1.0})
    with pytest.raises(ValueError, match="short_lists has unknown key.*'short'"):
        EvalResult.from_json(d | {"short_lists": {"empty": 0, "under_k": 0, "short": 1}})
    path = tmp_path / "r.json"
    path.write_text(json.dumps([d, d | {"recal": 1.0}]), "utf-8")
    with pytest.raises(InputError, match=r"r.json: item 1 is not an eval result \(the result has unknown key"):
        load_results([path])
