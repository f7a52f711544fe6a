"""``yakgwan report``: results of separate eval runs in one table, and only when comparable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from yakgwan.core.errors import InputError
from yakgwan.eval.combine import check_same_set, load_results, markdown_answers, markdown_deltas, markdown_floor, markdown_table, summarise
from yakgwan.eval.datasets import EvalQuery, corpus_sha256, questions_sha256
from yakgwan.eval.result import EvalResult

pytestmark = pytest.mark.unit


def _result(pipeline: str, **extra: object) -> dict:
    return {
        "pipeline": pipeline, "dataset": "skytravel/tests_dev.jsonl", "n": 2, "k": 10,
        "questions_sha256": "a" * 64, "corpus_sha256": "b" * 64, "machine": "x86_64, 2 cores",
        "metrics": {"recall": 0.95, "ndcg": 0.875, "mrr": 0.5}, "latency_ms": {"p50": 1234.4, "p95": 2000.0},
        "short_lists": {"empty": 0, "under_k": 1},
        "per_query": [{"qid": "1", "query": "하늘여행사는 언제 설립되었나요?", "category": None, "relevant": ["a.md"], "retrieved": ["a.md"],
                       "metrics": {"recall": 1.0}, "seed_metrics": {}, "latency_ms": 1234.4, "llm_ms": 0.0, "top_produced_by": "crag", "hits": 9}],
        **extra,
    }


def _rec(pipeline: str, **extra: object) -> EvalResult:
    return EvalResult.from_json(_result(pipeline, **extra))


def _write(tmp_path: Path, name: str, data: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return path


def test_load_reads_lists_and_single_objects_and_names_the_bad_file(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.json", [_result("crag"), _result("late")])
    b = _write(tmp_path, "b.json", _result("agentic"))
    assert [(x.path.name, x.result.pipeline) for x in load_results([a, b])] == [("a.json", "crag"), ("a.json", "late"), ("b.json", "agentic")]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", "utf-8")
    with pytest.raises(InputError, match="bad.json.*not a JSON file"):
        load_results([a, bad])
    with pytest.raises(InputError, match="item 0 is not an eval result"):
        load_results([_write(tmp_path, "c.json", [{"pipeline": "x"}])])
    with pytest.raises(InputError, match="no such file"):
        load_results([tmp_path / "missing.json"])


def test_results_of_other_questions_corpus_or_k_are_refused(tmp_path: Path) -> None:
    base = _write(tmp_path, "a.json", [_result("crag")])
    for key, value in (("questions_sha256", "c" * 64), ("corpus_sha256", "d" * 64), ("k", 5), ("n", 3), ("dataset", "autorag_ko")):
        other = _write(tmp_path, f"{key}.json", [_result("late", **{key: value})])
        with pytest.raises(InputError, match=f"{key}.json.*late has {key} = .*crag in .*a.json has {key} ="):
            check_same_set(load_results([base, other]))


def test_a_pipeline_twice_is_refused_but_retrieval_and_answers_runs_go_together(tmp_path: Path) -> None:
    a = _write(tmp_path, "a.json", [_result("crag")])
    b = _write(tmp_path, "b.json", [_result("crag")])
    with pytest.raises(InputError, match=r"b.json.*'crag' \(no LLM, retrieval\) is also in .*a.json"):
        check_same_set(load_results([a, b]))
    c = _write(tmp_path, "c.json", [_result("crag", answers={"mode": "generate", "metrics": {"answer_rate": 0.9}, "llm": {"model": "local:q"}})])
    d = _write(tmp_path, "d.json", [_result("crag", answers={"mode": "extract", "metrics": {"answer_rate": 0.4}})])
    assert check_same_set(load_results([a, c, d])) == []  # retrieval, generated answers and extracted answers: three rows
    with pytest.raises(InputError, match=r"'crag' \(no LLM, answers extract by rules\) is also in .*d.json"):
        check_same_set(load_results([a, c, d, _write(tmp_path, "e.json", [_result("crag", answers={"mode": "extract"})])]))


def test_an_older_result_without_fingerprints_is_matched_by_name_with_a_warning(tmp_path: Path) -> None:
    old = _result("raptor")
    del old["questions_sha256"], old["corpus_sha256"]
    warnings = check_same_set(load_results([_write(tmp_path, "a.json", [_result("crag")]), _write(tmp_path, "old.json", [old])]))
    assert len(warnings) == 2 and all("old.json: raptor records no" in w.text("en") for w in warnings)


def test_summary_drops_every_per_question_row() -> None:
    r = _rec("crag", answers={"metrics": {"answer_rate": 0.9}, "per_question": [{"question": "q", "answer": "a"}]})
    s = summarise(r)
    assert "per_query" not in s and s["answers"] == {"metrics": {"answer_rate": 0.9}}
    assert r.per_query and r.answers.per_question  # the input is left as it was


def test_summary_keeps_the_first_fallback_reasons_and_counts_the_rest() -> None:
    why = [f"d{i}.md: no section starts at sentence 1" for i in range(5)]
    r = _rec("llm_chunk", index={"ingest_steps": ["llm_chunk"], "step_fallbacks": {"llm_chunk": 5}, "step_fallback_reasons": {"llm_chunk": why}})
    assert summarise(r, reasons_kept=2)["index"]["step_fallback_reasons"] == {"llm_chunk": why[:2] + ["… and 3 more"]}
    assert summarise(r, reasons_kept=5)["index"]["step_fallback_reasons"] == {"llm_chunk": why}
    assert len(r.index.build.step_fallback_reasons["llm_chunk"]) == 5  # the input is left as it was


def test_markdown_table_by_hand() -> None:
    rows = [
        _rec("crag", llm={"calls": 100, "cache_hits": 2, "ms_per_q_as_recorded": 26600.4}, measured_at="2026-11-30", load_1m={"mean": 3.5, "max": 4.1, "cores": 2}),
        _rec("late", built={"structure": "token vectors", "mb": 12.5, "seconds": 40.1}, metrics={"recall": 1.0, "ndcg": 0.5, "mrr": 0.25}),
        _rec("llm_chunk", index={"chunks": 9, "ingest_steps": ["llm_chunk"], "step_fallbacks": {"llm_chunk": 3},
                                    "llm": {"calls": 1, "cache_hits": 43, "latency_ms": 27013.3, "cached_ms": 1348885.9}}),
    ]
    lines = markdown_table(rows).splitlines()
    assert lines[0] == ("| pipeline | Recall@10 | nDCG@10 | MRR@10 | p50 ms | p95 ms | load (mean / cores) | LLM calls | LLM ms/q (as recorded) "
                        "| no hit | < k hits | built beside the index | LLM ingest steps | measured |")
    assert lines[2] == "| crag | 0.9500 | 0.8750 | 0.5000 | 1234 | 2000 | 3.50 / 2 | 102 | 26600 | 0 | 1 | – | – | 2026-11-30 |"
    assert lines[3] == "| late | 1.0000 | 0.5000 | 0.2500 | 1234 | 2000 | – | 0 | – | 0 | 1 | token vectors, 12.5 MB, 40.1 s | – | – |"
    # 27,013.3 + 1,348,885.9 ms = 1,375.9 s
    assert lines[4] == ("| llm_chunk | 0.9500 | 0.8750 | 0.5000 | 1234 | 2000 | – | 0 | – | 0 | 1 | – "
                        "| llm_chunk; 44 LLM calls (43 from the cache), 1,376 s as recorded; llm_chunk: 3 documents left as they were | – |")
    assert lines[-1] == "Source: skytravel/tests_dev.jsonl (n=2, k=10); machine: x86_64, 2 cores."


def test_fingerprints_change_with_the_questions_and_the_corpus(tmp_path: Path) -> None:
    q = [EvalQuery("1", "환불되나요?", {"a.md": 1}, ("전액",), "direct")]
    assert questions_sha256(q) == questions_sha256(list(q))
    assert questions_sha256(q) != questions_sha256([EvalQuery("1", "환불되나요?", {"b.md": 1}, ("전액",), "direct")])
    assert questions_sha256(q) != questions_sha256(q[:0])
    kb = tmp_path / "kb"
    (kb / "faq").mkdir(parents=True)
    (kb / "faq" / "a.md").write_text("출발 30일 전 취소하면 전액 환불합니다.", "utf-8")
    before = corpus_sha256(kb)
    (kb / "faq" / "a.md").rename(kb / "faq" / "b.md")  # same bytes, another document id
    assert corpus_sha256(kb) != before
    (kb / "faq" / "b.md").rename(kb / "faq" / "a.md")
    assert corpus_sha256(kb) == before
    (kb / "faq" / "a.md").write_text("출발 30일 전 취소하면 전액 환불합니다!", "utf-8")
    assert corpus_sha256(kb) != before
    one = tmp_path / "corpus.jsonl"
    one.write_text('{"_id": "1", "text": "x"}\n', "utf-8")
    assert len(corpus_sha256(one)) == 64


def test_markdown_deltas_by_hand() -> None:
    cats = lambda a, b: {"direct": {"recall": a, "mrr": a, "n": 2}, "numeric": {"recall": b, "mrr": b, "n": 1}}  # noqa: E731
    rows = [_rec("crag", by_category=cats(1.0, 0.5)), _rec("hybrid_cc", by_category=cats(0.75, 0.75)), _rec("late", by_category=cats(0.5, 1.0))]
    assert markdown_deltas(rows, "recall").splitlines() == [
        "recall@10 by category, minus hybrid_cc:", "", "| pipeline | direct (n=2) | numeric (n=1) |", "|---|---|---|",
        "| crag | +0.250 | -0.250 |", "| late | -0.250 | +0.250 |",
    ]
    assert markdown_deltas(rows[:1]) == ""  # nothing to compare with


def test_recall_floor_against_plain_hybrid_by_hand() -> None:
    def row(name: str, recall: float, **extra: object) -> EvalResult:
        return _rec(name, metrics={"recall": recall}, **extra)

    # hybrid 0.95: fusion -0.01 (inside), raptor -0.03 (below), rewrite +0.01; bm25 and dense are first stages, not techniques
    rows = [row("bm25", 0.5), row("fusion", 0.94), row("hybrid", 0.95), row("raptor", 0.92), row("dense", 0.6), row("rewrite", 0.96)]
    assert markdown_floor(rows) == (
        "Overall Recall@10 of each technique against plain hybrid (0.9500): the lowest is raptor (-0.0300); "
        "more than 0.02 below: raptor (-0.0300).\n"
    )
    assert markdown_floor([r for r in rows if r.pipeline != "raptor"]) == (
        "Overall Recall@10 of each technique against plain hybrid (0.9500): the lowest is fusion (-0.0100); none is more than 0.02 below.\n"
    )
    # the boundary as printed: 0.10 - 0.08 is -0.020000000000000004 in floats, shown as -0.0200, which is not more than 0.02 below;
    # -0.02004 is shown as -0.0200 too, and -0.02005 as -0.0201
    assert "none is more than" in markdown_floor([row("hybrid", 0.10), row("hyde", 0.08)])
    assert "none is more than" in markdown_floor([row("hybrid", 0.95), row("hyde", 0.92996)])
    assert "below: hyde (-0.0201)" in markdown_floor([row("hybrid", 0.95), row("hyde", 0.92994)])
    # a second hybrid run (another LLM's answers run) is not compared with the first; the retrieval run is the base
    two = [row("hybrid", 0.8, answers={"mode": "generate"}, llm={"model": "x"}), row("hybrid", 0.9), row("hyde", 0.89)]
    assert "against plain hybrid (0.9000): the lowest is hyde (-0.0100)" in markdown_floor(two)
    # results of another k are left out, and the sentence says so; two runs of one technique are told apart by their LLM
    mixed = [row("hybrid", 0.9), row("hyde", 0.5, k=5), row("fusion", 0.89, llm={"model": "a"}), row("fusion", 0.85, llm={"model": "b"})]
    assert markdown_floor(mixed) == (
        "Overall Recall@10 of each technique against plain hybrid (0.9000): the lowest is fusion (b) (-0.0500); "
        "more than 0.02 below: fusion (b) (-0.0500). 1 result(s) of another test set or k left out.\n"
    )
    assert markdown_floor([row("fusion", 0.5), row("hybrid_cc", 0.9)]) == ""  # no plain hybrid to hold to
    assert markdown_floor([row("hybrid", 0.9), row("bm25", 0.5)]) == ""  # no technique beside it
    assert markdown_floor([_rec("hybrid", metrics={"recall": "n/a"}), row("hyde", 0.5)]) == ""  # a base without a usable recall


def test_first_stages_are_the_registry_s() -> None:
    from yakgwan.eval.rows import FIRST_STAGES
    from yakgwan.pipelines import PIPELINES

    assert set(FIRST_STAGES) == {name for name, spec in PIPELINES.items() if spec.first_stage}


def test_markdown_answers_by_hand() -> None:
    answers = {"mode": "generate", "n_answerable": 102, "n_unanswerable": 45, "llm": {"model": "local:qwen", "calls": 131, "cache_hits": 369},
               "metrics": {"answer_rate": 0.902, "partial_rate": 0.0196, "refusal_rate": 0.9556, "non_answer_rate": 0.9778,
                           "citation_validity": 1.0, "citation_support": 0.9571, "keyword_recall": 0.5526},
               "judge": {"model": "local:qwen", "runs": 3, "scores": {"accuracy": {"mean": 3.4712, "spread": 0.1}, "completeness": {"mean": 3.48, "spread": 0.09},
                                                                     "relevance": {"mean": 3.6, "spread": 0.19}}},
               "latency_ms": {"p50": 21000.4, "p95": 40000.0}}
    rows = [_rec("hybrid_cc"), _rec("hybrid_cc", answers=answers)]
    lines = markdown_answers(rows).splitlines()
    assert lines[2].startswith("| pipeline | mode | answered by | answerable | unanswerable | answer rate |")
    # a result made before the answered-with-keywords shares existed shows "–" there
    assert lines[4] == ("| hybrid_cc | generate | local:qwen | 102 | 45 | 0.9020 | 0.0196 | 0.9556 | 0.9778 | 1.0000 | 0.9571 | 0.5526 "
                        "| – | – | 3.47 ± 0.10 | 3.48 ± 0.09 | 3.60 ± 0.19 | local:qwen (3 runs) | 500 |")
    assert len(lines) == 5 and markdown_answers(rows[:1]) == ""
    # the retrieval table has one row per pipeline: the answers run only when no retrieval run is given
    assert [ln.split(" | ")[0] for ln in markdown_table(rows).splitlines()[2:-2]] == ["| hybrid_cc"]
    assert markdown_table(rows[1:]).splitlines()[2].startswith("| hybrid_cc (with answers: generate) | 0.9500 |")
