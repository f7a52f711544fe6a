"""Retrieval metrics: hand-computed fixtures, edge cases, the seed tutorial's worked examples, and a
randomised comparison against pytrec_eval (trec_eval) and ranx."""

from __future__ import annotations

import math
import random

import pytest

from yakgwan.eval.metrics import (
    aggregate,
    by_category,
    dedupe_docs,
    keyword_coverage,
    latency_summary,
    mrr,
    ndcg,
    precision,
    recall,
    retrieval_metrics,
    seed_metrics,
)

pytestmark = pytest.mark.unit

L2, L3, L4, L5, L6 = (math.log2(n) for n in (2, 3, 4, 5, 6))


# ---------------------------------------------------------------- standard metrics, by hand


def test_dedupe_keeps_best_chunk_rank():
    assert dedupe_docs(["a", "b", "a", "c", "b"]) == ["a", "b", "c"]
    assert dedupe_docs([]) == []


def test_mrr_by_hand():
    assert mrr(["d2", "d1"], {"d1": 1}, 10) == pytest.approx(1 / 2)
    assert mrr(["d1", "d2"], {"d1": 1, "d2": 1}, 10) == 1.0
    # first relevant at rank 3, but k = 2 cuts it off
    assert mrr(["x", "y", "d1"], {"d1": 2}, 2) == 0.0
    assert mrr(["x", "y", "d1"], {"d1": 2}, 3) == pytest.approx(1 / 3)
    # a judged-but-non-relevant document (rel 0) is not a hit
    assert mrr(["d0", "d1"], {"d0": 0, "d1": 1}, 10) == pytest.approx(1 / 2)


def test_ndcg_by_hand():
    # DCG = 0/log2(2) + 1/log2(3); IDCG = 1/log2(2) = 1
    assert ndcg(["d2", "d1"], {"d1": 1}, 10) == pytest.approx(1 / L3)
    # graded, linear gain: run [d1(1), d2(2)], ideal [2, 1]
    # DCG = 1/1 + 2/log2(3) = 2.2619; IDCG = 2/1 + 1/log2(3) = 2.6309
    assert ndcg(["d1", "d2"], {"d1": 1, "d2": 2}, 10) == pytest.approx((1 + 2 / L3) / (2 + 1 / L3))


def test_ndcg_ideal_uses_all_judged_relevant_docs():
    # three relevant docs, only one retrieved at rank 1: DCG = 1; IDCG = 1 + 1/log2(3) + 1/log2(4)
    qrels = {"a": 1, "b": 1, "c": 1}
    assert ndcg(["a", "x"], qrels, 10) == pytest.approx(1 / (1 + 1 / L3 + 1 / L4))
    # IDCG is cut at k as well: k = 1 gives IDCG = 1, so nDCG@1 = 1
    assert ndcg(["a", "x"], qrels, 1) == 1.0
    # a well-known mistake (IDCG over the retrieved ids) would give 1.0 here; we must not
    assert ndcg(["a"], qrels, 10) < 1.0


def test_precision_and_recall_by_hand():
    qrels = {"a": 1, "b": 2, "c": 1, "z": 0}
    run = ["a", "x", "b", "z"]
    assert precision(run, qrels, 2) == pytest.approx(1 / 2)  # a
    assert precision(run, qrels, 4) == pytest.approx(2 / 4)  # a, b (z has rel 0)
    # denominator stays k when fewer than k are retrieved (trec_eval P_k)
    assert precision(run, qrels, 10) == pytest.approx(2 / 10)
    assert recall(run, qrels, 2) == pytest.approx(1 / 3)
    assert recall(run, qrels, 10) == pytest.approx(2 / 3)


def test_no_relevant_docs_gives_zero():
    for qrels in ({}, {"a": 0}):
        assert retrieval_metrics(["a", "b"], qrels, 10) == {"mrr": 0.0, "ndcg": 0.0, "precision": 0.0, "recall": 0.0}


def test_empty_run_and_k_beyond_list():
    assert retrieval_metrics([], {"a": 1}, 5) == {"mrr": 0.0, "ndcg": 0.0, "precision": 0.0, "recall": 0.0}
    assert ndcg(["a"], {"a": 3}, 100) == 1.0
    assert recall(["a"], {"a": 3}, 100) == 1.0


def test_duplicate_ids_count_once_at_best_rank():
    # ["a", "a", "b"] is the document ranking ["a", "b"]
    assert precision(["a", "a", "b"], {"a": 1, "b": 1}, 2) == 1.0
    assert ndcg(["x", "a", "a"], {"a": 1}, 10) == pytest.approx(1 / L3)
    assert recall(["a", "a"], {"a": 1, "b": 1}, 10) == pytest.approx(1 / 2)


def test_bad_k_names_the_value():
    with pytest.raises(ValueError, match="k is 0"):
        ndcg(["a"], {"a": 1}, 0)
    with pytest.raises(ValueError, match="k is -1"):
        seed_metrics(["a"], ["t"], ["a"], None, -1)


# ---------------------------------------------------------------- keyword coverage


def test_keyword_coverage():
    texts = ["하늘여행사는 2008년 3월 15일에 설립", "Sky Travel HQ"]
    assert keyword_coverage(texts, ["2008년", "3월 15일"]) == 1.0
    assert keyword_coverage(texts, ["sky travel", "45명"]) == pytest.approx(1 / 2)  # case-insensitive
    assert keyword_coverage(texts, []) == 0.0
    # the seed counts each listed keyword, so alternative spellings halve the score
    assert keyword_coverage(["연간 52,000명"], ["52,000명", "52000명"]) == pytest.approx(1 / 2)
    # texts are joined with one space, so a keyword can straddle two chunks
    assert keyword_coverage(["travel", "hq"], ["travel hq"]) == 1.0


# ---------------------------------------------------------------- seed tutorial definitions


def test_seed_published_mrr_example():
    # notebook 07-1, section 3.1: rank 1 employees/kim_haneul.md (X), rank 2 company/overview.md (O)
    m = seed_metrics(
        ["employees/kim_haneul.md", "company/overview.md"], ["", ""],
        ["company/overview.md", "company/history.md"], None, 10,
    )
    assert m["mrr"] == pytest.approx(0.5)


def test_seed_published_ndcg_examples():
    # notebook 07-1, section 3.2: O O X O X -> DCG 2.062, IDCG 2.131, nDCG 0.968
    src = ["company/overview.md", "company/history.md", "employees/kim_haneul.md",
           "company/overview.md", "faq/general.md"]
    m = seed_metrics(src, [""] * 5, ["company/overview.md", "company/history.md"], None, 10)
    dcg = 1 / L2 + 1 / L3 + 1 / L5
    idcg = 1 / L2 + 1 / L3 + 1 / L4
    assert (round(dcg, 3), round(idcg, 3)) == (2.062, 2.131)
    assert m["ndcg"] == pytest.approx(dcg / idcg)
    assert m["ndcg"] == pytest.approx(0.968, abs=1e-3)  # the notebook divides the rounded 2.062 / 2.131
    # same section: X X X O O -> 0.818 / 1.631 = 0.502
    src = ["x.md", "y.md", "z.md", "company/overview.md", "company/history.md"]
    m = seed_metrics(src, [""] * 5, ["company/overview.md", "company/history.md"], None, 10)
    assert m["ndcg"] == pytest.approx((1 / L5 + 1 / L6) / (1 / L2 + 1 / L3))
    assert m["ndcg"] == pytest.approx(0.502, abs=1e-3)  # again from the rounded 0.818 / 1.631


def test_seed_differs_from_standard_where_documented():
    # source_docs a, b; chunks [x, a, a]; only a is found
    chunks = ["x", "a", "a"]
    m = seed_metrics(chunks, ["foo", "bar", "baz"], ["a", "b"], ["BAR", "qux"], 3)
    # ideal over retrieved rels [1, 1, 0]: (1/log2 3 + 1/log2 4) / (1 + 1/log2 3)
    assert m["ndcg"] == pytest.approx((1 / L3 + 1 / L4) / (1 + 1 / L3))
    assert m["precision"] == pytest.approx(2 / 3)  # chunks, a counted twice
    assert m["recall"] == pytest.approx(1 / 2)  # a of {a, b}
    assert m["mrr"] == pytest.approx(1 / 2)
    assert m["keyword_coverage"] == pytest.approx(1 / 2)
    std = retrieval_metrics(dedupe_docs(chunks), {"a": 1, "b": 1}, 3)
    assert std["ndcg"] == pytest.approx((1 / L3) / (1 + 1 / L3))  # ideal over both judged docs
    assert std["precision"] == pytest.approx(1 / 3)


def test_seed_edge_cases():
    # nothing relevant retrieved
    m = seed_metrics(["x"], ["t"], ["a"], ["t"], 10)
    assert m == {"mrr": 0.0, "ndcg": 0.0, "precision": 0.0, "recall": 0.0, "keyword_coverage": 1.0}
    # empty source_docs: recall is 1.0 in the seed
    assert seed_metrics(["x"], ["t"], [], None, 10)["recall"] == 1.0
    # the seed's MRR has no cut; nDCG, precision, recall and coverage use the top k
    m = seed_metrics(["x", "a"], ["t", "kw"], ["a"], ["kw"], 1)
    assert m == {"mrr": 0.5, "ndcg": 0.0, "precision": 0.0, "recall": 0.0, "keyword_coverage": 0.0}
    # absolute sources are cut after "knowledge_base/" as the seed's normalize_source does
    assert seed_metrics(["../00_test_data/knowledge_base/a/b.md"], ["t"], ["a/b.md"], None, 5)["mrr"] == 1.0
    # one of three source documents found, at rank 1: the seed's nDCG is 1.0 (ideal over retrieved)
    assert seed_metrics(["a", "x"], ["", ""], ["a", "b", "c"], None, 10)["ndcg"] == 1.0
    with pytest.raises(ValueError, match="equal length"):
        seed_metrics(["a"], [], ["a"], None, 10)


# ---------------------------------------------------------------- latency and aggregation


def test_latency_summary_linear_interpolation():
    # sorted [10, 20, 30, 40]: p50 h = 1.5 -> 25; p95 h = 2.85 -> 30 + 0.85 * 10 = 38.5
    assert latency_summary([40, 10, 30, 20]) == {"p50": pytest.approx(25.0), "p95": pytest.approx(38.5)}
    assert latency_summary([7.0]) == {"p50": 7.0, "p95": 7.0}
    assert latency_summary([]) == {"p50": 0.0, "p95": 0.0}


def test_aggregate_and_by_category():
    rows = [
        {"category": "a", "mrr": 1.0, "ndcg": 0.5, "seed_metrics": {"mrr": 1.0}},
        {"category": "a", "mrr": 0.0, "ndcg": 0.5, "keyword_coverage": None, "seed_metrics": {"mrr": 0.5}},
        {"category": "b", "mrr": 0.5, "ndcg": 1.0, "keyword_coverage": 0.25},
    ]
    keys = ("mrr", "ndcg", "keyword_coverage")
    # mrr (1 + 0 + 0.5)/3; ndcg (0.5 + 0.5 + 1)/3; coverage only where present
    assert aggregate(rows, keys) == pytest.approx({"mrr": 0.5, "ndcg": 2 / 3, "keyword_coverage": 0.25})
    assert aggregate(rows, keys, section="seed_metrics") == pytest.approx({"mrr": 0.75})
    cats = by_category(rows, keys)
    assert cats["a"] == pytest.approx({"mrr": 0.5, "ndcg": 0.5})
    assert cats["b"] == pytest.approx({"mrr": 0.5, "ndcg": 1.0, "keyword_coverage": 0.25})
    assert list(by_category(rows[::-1], keys)) == ["a", "b"]
    assert by_category([{"mrr": 1.0}], keys) == {}
    assert aggregate([], keys) == {}


# ---------------------------------------------------------------- against reference implementations


def _random_case(rng: random.Random, n_docs: int = 30) -> tuple[list[str], dict[str, int]]:
    docs = [f"d{i}" for i in range(n_docs)]
    judged = rng.sample(docs, rng.randint(1, 12))
    qrels = {d: rng.choice([0, 1, 1, 2, 3]) for d in judged}
    qrels[rng.choice(judged)] = rng.randint(1, 3)  # at least one relevant document
    run = rng.sample(docs, rng.randint(0, 25))
    return run, qrels


def _cases(n: int = 200) -> dict[str, tuple[list[str], dict[str, int]]]:
    rng = random.Random(20240917)
    return {f"q{i}": _random_case(rng) for i in range(n)}


KS = (1, 3, 5, 10, 20)


def test_against_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    cases = _cases()
    qrels = {q: rel for q, (_, rel) in cases.items()}
    ks = ",".join(map(str, KS))
    full = {q: {d: float(len(run) - i) for i, d in enumerate(run)} for q, (run, _) in cases.items()}
    measures = {f"ndcg_cut.{ks}", f"P.{ks}", f"recall.{ks}"}
    got = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(full)
    for k in KS:
        # recip_rank has no cut in trec_eval: evaluate the run truncated to k
        cut = {q: {d: s for d, s in scores.items() if s > len(scores) - k} for q, scores in full.items()}
        rr = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(cut)
        for q, (run, rel) in cases.items():
            if not run:  # trec_eval leaves out queries with an empty run
                continue
            assert mrr(run, rel, k) == pytest.approx(rr[q]["recip_rank"], abs=1e-9)
            assert ndcg(run, rel, k) == pytest.approx(got[q][f"ndcg_cut_{k}"], abs=1e-9)
            assert precision(run, rel, k) == pytest.approx(got[q][f"P_{k}"], abs=1e-9)
            assert recall(run, rel, k) == pytest.approx(got[q][f"recall_{k}"], abs=1e-9)


def test_against_ranx():
    ranx = pytest.importorskip("ranx")
    cases = {q: c for q, c in _cases(60).items() if c[0]}
    qrels = ranx.Qrels({q: {d: r for d, r in rel.items()} for q, (_, rel) in cases.items()})
    run = ranx.Run({q: {d: float(len(r) - i) for i, d in enumerate(r)} for q, (r, _) in cases.items()})
    for k in (1, 5, 10):
        metrics = [f"mrr@{k}", f"ndcg@{k}", f"precision@{k}", f"recall@{k}"]
        ranx.evaluate(qrels, run, metrics, return_mean=False, make_comparable=True)
        scores = run.scores
        for q, (r, rel) in cases.items():
            assert mrr(r, rel, k) == pytest.approx(scores[f"mrr@{k}"][q], abs=1e-9)
            assert ndcg(r, rel, k) == pytest.approx(scores[f"ndcg@{k}"][q], abs=1e-9)
            assert precision(r, rel, k) == pytest.approx(scores[f"precision@{k}"][q], abs=1e-9)
            assert recall(r, rel, k) == pytest.approx(scores[f"recall@{k}"][q], abs=1e-9)
