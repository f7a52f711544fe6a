"""Retrieval metrics as pure functions: standard document-level IR metrics, and the seed
tutorial's chunk-level variants reproduced exactly so that its published figures can be compared.

Standard metrics (``mrr``, ``ndcg``, ``precision``, ``recall``) follow trec_eval / pytrec_eval
(``recip_rank`` on the run cut at k, ``ndcg_cut_k``, ``P_k``, ``recall_k``), as BEIR reports them.
A document is relevant when its judged relevance is > 0; graded relevance is the nDCG gain.

The seed metrics (``seed_metrics``) are those of the public tutorial iwindfree/ai-engineering,
folder ``llm_engineering`` at commit fee6bb6, file ``07_rag_evaluation/example/eval.py`` (the same
functions are defined in the notebook ``07_rag_evaluation/07-1.rag_evaluation.ipynb``). They work
on the list of retrieved *chunks*, where a chunk counts as relevant when its source document is one
of the question's ``source_docs``; several chunks of one document all count.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

RETRIEVAL_KEYS = ("mrr", "ndcg", "precision", "recall")


def _check_k(k: int) -> None:
    if k <= 0:
        raise ValueError(f"k must be greater than 0. Currently, k is {k}")


def dedupe_docs(chunk_doc_ids: Sequence[str]) -> list[str]:
    """Document ranking from a chunk ranking: each document keeps the rank of its best chunk.

    ``["a", "b", "a", "c"] -> ["a", "b", "c"]`` (first occurrence wins, order kept). This is how
    BEIR-style evaluation scores passage-level hits against document-level qrels.
    """
    seen: set[str] = set()
    out: list[str] = []
    for doc_id in chunk_doc_ids:
        if doc_id not in seen:
            seen.add(doc_id)
            out.append(doc_id)
    return out


def _top(ranked: Sequence[str], k: int) -> list[str]:
    _check_k(k)
    return dedupe_docs(ranked)[:k]


def mrr(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """Reciprocal rank of the first relevant document within the top k.

    ``RR@k = 1 / min{ i <= k : rel(d_i) > 0 }``, 0 when none; averaged over queries it is MRR@k
    (Voorhees, TREC-8 QA track, 1999). Equals trec_eval ``recip_rank`` on the run truncated to k
    (trec_eval itself applies no cut).
    """
    for i, doc_id in enumerate(_top(ranked, k), start=1):
        if relevant.get(doc_id, 0) > 0:
            return 1.0 / i
    return 0.0


def _dcg(gains: Sequence[float]) -> float:
    """``DCG = sum_i gain_i / log2(i + 1)`` over 1-based ranks i."""
    return sum(g / math.log2(i + 1) for i, g in enumerate(gains, start=1))


def ndcg(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """nDCG@k with linear gain, as trec_eval / pytrec_eval ``ndcg_cut_k``.

    ``DCG@k = sum_{i=1..k} rel_i / log2(i + 1)`` (Järvelin & Kekäläinen 2002, linear-gain form
    used by trec_eval); ``IDCG@k`` is the DCG@k of the ideal ordering of *all* judged-relevant
    documents (rel > 0), whether retrieved or not; ``nDCG@k = DCG@k / IDCG@k``, 0 when nothing is
    relevant. Normalising by the retrieved documents instead (as the seed does) inflates scores.
    """
    gains = [max(relevant.get(doc_id, 0), 0) for doc_id in _top(ranked, k)]
    ideal = sorted((r for r in relevant.values() if r > 0), reverse=True)[:k]
    idcg = _dcg(ideal)
    return _dcg(gains) / idcg if idcg > 0 else 0.0


def precision(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """``P@k = |{ i <= k : rel(d_i) > 0 }| / k``; the denominator is k even when fewer than k
    documents were retrieved (trec_eval ``P_k``)."""
    return sum(1 for doc_id in _top(ranked, k) if relevant.get(doc_id, 0) > 0) / k


def recall(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> float:
    """``R@k = |relevant ∩ top-k| / |relevant|`` with relevant = {d : rel(d) > 0}; 0 when no
    document is relevant (trec_eval ``recall_k``)."""
    n_rel = sum(1 for r in relevant.values() if r > 0)
    if n_rel == 0:
        return 0.0
    return sum(1 for doc_id in _top(ranked, k) if relevant.get(doc_id, 0) > 0) / n_rel


def retrieval_metrics(ranked: Sequence[str], relevant: Mapping[str, int], k: int) -> dict[str, float]:
    """The four standard metrics of one query, keyed as in the ``eval --json`` contract."""
    return {
        "mrr": mrr(ranked, relevant, k),
        "ndcg": ndcg(ranked, relevant, k),
        "precision": precision(ranked, relevant, k),
        "recall": recall(ranked, relevant, k),
    }


def keyword_coverage(texts: Sequence[str], keywords: Sequence[str]) -> float:
    """Share of keywords found in the retrieved chunk texts, as the seed computes it.

    ``all_content = " ".join(t.lower() for t in texts)``;
    ``coverage = |{kw in keywords : kw.lower() in all_content}| / len(keywords)``, 0 when there are
    no keywords. Case-insensitive substring match; a keyword listed twice counts twice, and a
    keyword may match across the space joining two chunks — both exactly as in the seed
    (iwindfree/ai-engineering@fee6bb6, ``llm_engineering/07_rag_evaluation/example/eval.py``,
    ``evaluate_retrieval``). Pass the top-k chunk texts.
    """
    if not keywords:
        return 0.0
    all_content = " ".join(t.lower() for t in texts)
    return sum(1 for kw in keywords if kw.lower() in all_content) / len(keywords)


def _seed_normalize_source(source: str) -> str:
    """Seed ``normalize_source``: keep the part after ``knowledge_base/`` when present."""
    return source.split("knowledge_base/")[-1] if "knowledge_base/" in source else source


def _seed_dcg(relevances: Sequence[int], k: int) -> float:
    """Seed ``calculate_dcg``: ``sum_{i < min(k, n)} rel[i] / log2(i + 2)``."""
    return sum(relevances[i] / math.log2(i + 2) for i in range(min(k, len(relevances))))


def seed_metrics(
    chunk_sources: Sequence[str],
    chunk_texts: Sequence[str],
    source_docs: Sequence[str],
    keywords: Sequence[str] | None,
    k: int,
) -> dict[str, float]:
    """The seed tutorial's retrieval metrics for one question, computed exactly as it does.

    Source: iwindfree/ai-engineering@fee6bb6, ``llm_engineering/07_rag_evaluation/example/eval.py``
    (``calculate_mrr``, ``calculate_dcg``, ``calculate_ndcg``, ``calculate_precision_at_k``,
    ``calculate_recall_at_k``, ``evaluate_retrieval``; same code in notebook 07-1). Inputs are the
    retrieved chunks best first (their ``source`` paths and texts), the question's ``source_docs``
    and ``keywords``. With ``rel_i = 1 if source_i in source_docs else 0`` per *chunk*:

    - ``mrr = 1 / (first i with rel_i = 1)`` over the whole list given (the seed applies no cut;
      its list already holds at most k = RETRIEVAL_K = 10 chunks), else 0.
    - ``ndcg``: ``DCG = sum_{i<=k} rel_i / log2(i + 1)``, divided by the DCG of the *same* top-k
      relevances sorted descending (not of all source_docs): 1.0 whenever every relevant chunk
      precedes every irrelevant one, however few source documents were found; 0 when none.
    - ``precision = sum_{i<=k} rel_i / k`` (chunks, so one document can count many times).
    - ``recall = |set(source_docs) ∩ {source_i : i <= k}| / |set(source_docs)|``; 1.0 when
      ``source_docs`` is empty.
    - ``keyword_coverage`` as :func:`keyword_coverage` on the top-k texts; omitted when
      ``keywords`` is None (a test set without keywords).
    """
    _check_k(k)
    if len(chunk_sources) != len(chunk_texts):
        raise ValueError(
            f"chunk_sources and chunk_texts must have equal length; got {len(chunk_sources)} and {len(chunk_texts)}"
        )
    source_set = set(source_docs)
    sources = [_seed_normalize_source(s) for s in chunk_sources]
    rr = next((1.0 / i for i, s in enumerate(sources, start=1) if s in source_set), 0.0)
    rels = [1 if s in source_set else 0 for s in sources[:k]]
    idcg = _seed_dcg(sorted(rels, reverse=True), k)
    out = {
        "mrr": rr,
        "ndcg": _seed_dcg(rels, k) / idcg if idcg > 0 else 0.0,
        "precision": sum(rels) / k,
        "recall": len(source_set & set(sources[:k])) / len(source_set) if source_set else 1.0,
    }
    if keywords is not None:
        out["keyword_coverage"] = keyword_coverage(chunk_texts[:k], keywords)
    return out


def latency_summary(ms: Sequence[float]) -> dict[str, float]:
    """Median and 95th percentile of latencies in milliseconds.

    Percentiles by linear interpolation between closest ranks (``numpy.percentile`` default
    method "linear", Hyndman & Fan 1996 definition 7): for sorted x_0..x_{n-1},
    ``p-th = x_j + (h - j)(x_{j+1} - x_j)`` with ``h = (n - 1) p / 100``, ``j = floor(h)``.
    Both are 0.0 for an empty list.
    """
    if len(ms) == 0:
        return {"p50": 0.0, "p95": 0.0}
    p50, p95 = np.percentile(np.asarray(ms, dtype=float), [50, 95])
    return {"p50": float(p50), "p95": float(p95)}


def _rows(per_query: Sequence[Mapping], section: str | None) -> list[Mapping]:
    return [row.get(section) or {} for row in per_query] if section else list(per_query)


def aggregate(per_query: Sequence[Mapping], keys: Sequence[str], section: str | None = None) -> dict[str, float]:
    """Arithmetic mean of each metric over queries: ``mean_key = (1/n_key) sum_q row_q[key]``.

    ``section`` names a nested dict of each row to read (e.g. ``"seed_metrics"``); by default keys
    are read from the row itself. Rows where a key is missing or None do not count for that key,
    and a key no row has is left out (so ``keyword_coverage`` appears only where the test set has
    keywords).
    """
    rows = _rows(per_query, section)
    out: dict[str, float] = {}
    for key in keys:
        values = [float(row[key]) for row in rows if row.get(key) is not None]
        if values:
            out[key] = sum(values) / len(values)
    return out


def by_category(
    per_query: Sequence[Mapping],
    keys: Sequence[str],
    section: str | None = None,
    field: str = "category",
) -> dict[str, dict[str, float]]:
    """:func:`aggregate` per value of ``row[field]``, categories in sorted order; rows without a
    category are left out (an empty dict when the test set has no categories)."""
    groups: dict[str, list[Mapping]] = {}
    for row in per_query:
        cat = row.get(field)
        if cat is not None:
            groups.setdefault(str(cat), []).append(row)
    return {cat: aggregate(groups[cat], keys, section) for cat in sorted(groups)}
