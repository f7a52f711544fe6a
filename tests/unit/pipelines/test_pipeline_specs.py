"""Pipelines as data: every pipeline's stages and parameters, composition, the JSON description,
the registries that generate the unknown-name errors, and the typed state of a hit."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from yakgwan.core.errors import UnknownName
from yakgwan.core.records import Chunk, Hit, HitStatus
from yakgwan.ingest.steps.registry import INGEST_STEPS
from yakgwan.pipelines import DEFAULT_PIPELINE, PIPELINES, POST_STEPS, PipelineSpec, Stage, pipeline_specs_json, resolve_pipeline
from yakgwan.rerank.registry import RERANKERS

pytestmark = pytest.mark.unit
SRC = Path(__file__).resolve().parents[3] / "src" / "yakgwan"


def _params(spec: PipelineSpec, kind: str, name: str) -> dict:
    return next(dict(s.params) for s in spec.stages if s.kind == kind and s.name == name)


def test_every_pipeline_has_stages_and_a_json_description() -> None:
    for name, spec in PIPELINES.items():
        d = json.loads(json.dumps(spec.to_dict()))
        assert d["name"] == name and d["description"] == spec.description.text("en") and d["stages"], name
        assert {s["kind"] for s in d["stages"]} <= {"first_stage", "query", "fusion", "rerank", "post", "control", "ingest"}
        assert [s["name"] for s in d["stages"] if s["kind"] == "ingest"] == list(spec.ingest_steps), name


def test_stage_parameters_are_the_numbers_the_code_runs_with() -> None:
    assert _params(PIPELINES.get("hybrid"), "fusion", "rrf") == {"k": 60, "dense_weight": 1.0, "bm25_weight": 1.0, "depth": 100}
    assert _params(PIPELINES.get("hybrid_cc"), "fusion", "minmax") == {"dense_weight": 0.3, "bm25_weight": 0.7, "depth": 100}
    assert _params(PIPELINES.get("bm25"), "first_stage", "bm25") == {"variant": "lucene", "k1": 1.2, "b": 0.75}
    assert _params(PIPELINES.get("rerank_llm"), "rerank", "rerank_llm") == {"top_n": 5, "depth": 20}
    assert _params(PIPELINES.get("rerank_yesno"), "rerank", "rerank_yesno") == {"top_m": 3, "margin": 0.05, "depth": 20}
    assert _params(PIPELINES.get("late"), "rerank", "late")["depth"] == 30
    assert _params(PIPELINES.get("crag"), "control", "crag")["threshold"] == 3
    assert _params(PIPELINES.get("llm_chunk"), "ingest", "llm_chunk") == {"window_chars": 1500, "max_tokens": 700}


def test_composition_appends_the_step_stages() -> None:
    composed = resolve_pipeline("expansion+rerank_llm")
    assert composed.stages[: len(PIPELINES.get("expansion").stages)] == PIPELINES.get("expansion").stages
    assert composed.stages[-1] == Stage("rerank", "rerank_llm", {"top_n": 5, "depth": 20}) and composed.needs_llm
    over = resolve_pipeline("bm25+preprocess")
    assert over.stages[0].kind == "ingest" and over.stages[0].name == "preprocess" and over.ingest_steps == ("preprocess",)
    assert resolve_pipeline("default") is PIPELINES.get(DEFAULT_PIPELINE)
    assert resolve_pipeline("self_rag+rerank_llm").has_stage("self_rag") and not resolve_pipeline("default").has_stage("self_rag")
    assert [n for n in PIPELINES if resolve_pipeline(n).has_stage("self_rag")] == ["self_rag"]


def test_unknown_names_list_what_the_registries_hold() -> None:
    with pytest.raises(UnknownName) as bad:
        resolve_pipeline("hyde2")
    assert bad.value.available == sorted([*PIPELINES, "default"]) and "hybrid_cc" in str(bad.value)
    with pytest.raises(UnknownName) as step:
        resolve_pipeline("hyde+bogus")
    assert step.value.available == sorted([*POST_STEPS, *INGEST_STEPS])


def test_every_reranker_is_a_post_step_and_a_rerank_stage() -> None:
    assert set(RERANKERS) <= set(POST_STEPS)
    for name in RERANKERS:
        assert POST_STEPS.get(name).stage.kind == "rerank" and POST_STEPS.get(name).stage.params["depth"] == RERANKERS.get(name).depth


def test_pipeline_specs_json_covers_pipelines_and_steps() -> None:
    rows = json.loads(json.dumps(pipeline_specs_json(), ensure_ascii=False))
    pipes = [r for r in rows if r["type"] == "pipeline"]
    assert [r["name"] for r in pipes] == list(PIPELINES) and [r["name"] for r in pipes if r["default"]] == [DEFAULT_PIPELINE]
    assert [r["name"] for r in rows if r["type"] == "post_step"] == list(POST_STEPS)
    assert [r["name"] for r in rows if r["type"] == "ingest_step"] == list(INGEST_STEPS)
    assert all(r["usage"] == f"NAME+{r['name']}" for r in rows if r["type"] != "pipeline")


def test_stage_rejects_an_unknown_kind_and_non_scalar_parameters() -> None:
    with pytest.raises(ValueError, match="unknown kind"):
        Stage("rerankk", "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="number or a string"):
        Stage("rerank", "x", {"weights": [1, 2]})  # type: ignore[dict-item]
    with pytest.raises(TypeError):
        Stage("rerank", "x", {"k": 1}).params["k"] = 2  # type: ignore[index]


def test_hit_labels_render_the_typed_status() -> None:
    c = Chunk("c1", "d", "d", "t", "본문", 0, 2)
    assert Hit(c, 1.0, 1, "rerank_llm", status=HitStatus.ORDER_UNCHANGED).produced_by == "rerank_llm(order unchanged)"
    assert Hit(c, 1.0, 1, "crag").produced_by == "crag" and not Hit(c, 1.0, 1, "crag").rejected
    assert Hit(c, 1.0, 1, "crag", status=HitStatus.REJECTED, rejected=True).produced_by == "crag(rejected)"
    assert Hit(c, 1.0, 1, "rerank_yesno", {"rejected": 1.0}).rejected  # the old key still marks it
    assert HitStatus.NO_LLM_UNGRADED.is_fallback and HitStatus.FAILED.is_fallback and not HitStatus.ORDER_UNCHANGED.is_fallback


def test_retrieval_rerank_and_query_never_import_pipelines() -> None:
    for package in ("retrieval", "rerank", "query"):
        for path in (SRC / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text("utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                assert not any(n.startswith("yakgwan.pipelines") for n in names), path


def test_a_rejected_hit_stays_rejected_through_later_steps() -> None:
    from yakgwan.rerank.listwise_llm import LLMListwiseReranker
    from yakgwan.rerank.yesno import GatedPointwiseReranker
    from yakgwan.retrieval.hit_lists import rejected
    from yakgwan.retrieval.retrievers.compress import Compressor
    from yakgwan.text.registry import make_tokenizer

    chunks = [Chunk(f"c{i}", "d", "d", "t", f"환불 규정 {i}입니다. 여권은 구청에서 발급합니다.", 0, 10) for i in range(3)]
    hits = [Hit(chunks[0], 1.0, 1, "crag"), rejected("crag", Hit(chunks[1], 0.9, 2, "hybrid_cc"), {}), rejected("crag", Hit(chunks[2], 0.8, 3, "hybrid_cc"), {})]
    assert [h.produced_by for h in hits] == ["crag", "crag(rejected)", "crag(rejected)"] and [h.rejected for h in hits] == [False, True, True]
    for out in (LLMListwiseReranker(None).rerank("환불", hits, 3), GatedPointwiseReranker(None).rerank("환불", hits, 3)):
        assert [h.rejected for h in out] == [False, True, True] and all(h.status is HitStatus.NO_LLM_FIRST_STAGE_ORDER for h in out)
        assert [bool(h.components.get("rejected")) for h in out] == [False, True, True]
    squeezed = Compressor(None, make_tokenizer("mecab")).compress("환불", hits[1])
    assert squeezed.rejected and squeezed.produced_by == "crag(rejected)>compress(no LLM: shared content words)"
