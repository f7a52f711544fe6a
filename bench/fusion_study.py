"""Fusion study: how each way of combining dense and BM25 lists scores on the dev sets.

Not a test. Retrieves the top ``depth`` chunks of each list once per query, then evaluates every
fusion variant on those lists (doc-level MRR/nDCG/Recall@10), so variants differ only in fusion.
Uses the same cached eval indexes as ``yakgwan eval``.

    .venv/bin/python bench/fusion_study.py [--shared ../shared]
"""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path
from typing import Callable

import numpy as np

from yakgwan.services.context import open_context

from yakgwan.services.ingest import ingest
from yakgwan.config import Settings
from yakgwan.eval import metrics as M
from yakgwan.eval.datasets import EvalSet, load_beir, load_seed
from yakgwan.services.evaluate import eval_index_dir
from yakgwan.retrieval.scoring.fusion import minmax, rrf, weighted_sum

Lists = list[tuple[list[str], list[float], list[str]]]  # per list: chunk ids, scores, doc ids


def collect(settings: Settings, evalset: EvalSet, depth: int) -> tuple[list[dict[str, Lists]], dict[str, str]]:
    s = settings.with_(index_dir=eval_index_dir(settings, evalset), quiet=True)
    ingest(s, [evalset.corpus])
    ctx = open_context(s)
    bm25, dense = ctx.bm25(), ctx.dense()
    doc_of: dict[str, str] = {}
    out = []
    for q in evalset.queries:
        per = {}
        for name, r in (("bm25", bm25), ("dense", dense)):
            hits = r.retrieve(q.text, depth)
            for h in hits:
                doc_of[h.chunk.chunk_id] = h.chunk.doc_id
            per[name] = ([h.chunk.chunk_id for h in hits], [h.score for h in hits])
        out.append(per)
    return out, doc_of


def fuse_variants() -> dict[str, Callable[[dict], dict[str, float]]]:
    v: dict[str, Callable[[dict], dict[str, float]]] = {
        "bm25": lambda p: dict(zip(*p["bm25"])),
        "dense": lambda p: dict(zip(*p["dense"])),
    }
    for w in (1.0, 0.5, 0.3, 0.2):
        v[f"rrf dense_w={w}"] = lambda p, w=w: rrf([p["dense"][0], p["bm25"][0]], weights=[w, 1.0])
    for a in (0.5, 0.4, 0.3, 0.2):
        v[f"minmax dense_a={a}"] = lambda p, a=a: weighted_sum(
            [minmax(dict(zip(*p["dense"]))), minmax(dict(zip(*p["bm25"])))], [a, 1 - a])
    for a in (0.5, 0.3):
        v[f"z-score dense_a={a}"] = lambda p, a=a: weighted_sum([_z(p["dense"]), _z(p["bm25"])], [a, 1 - a])
    return v


def _z(lst: tuple[list[str], list[float]]) -> dict[str, float]:
    ids, sc = lst
    if not ids:
        return {}
    arr = np.asarray(sc, dtype=float)
    sd = arr.std() or 1.0
    return {i: float((s - arr.mean()) / sd) for i, s in zip(ids, sc)}


def score(fused: dict[str, float], doc_of: dict[str, str], relevant: dict[str, int], k: int) -> tuple[float, float, float]:
    order = [doc_of[c] for c, _ in sorted(fused.items(), key=lambda kv: -kv[1])]
    docs = M.dedupe_docs(order)
    return M.mrr(docs, relevant, k), M.ndcg(docs, relevant, k), M.recall(docs, relevant, k)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    ap.add_argument("--depth", type=int, default=100)
    args = ap.parse_args()
    data = args.shared / "data"
    sets = [load_seed(data / "skytravel" / "knowledge_base", data / "skytravel" / "tests_dev.jsonl"), load_beir(data / "autorag_ko")]
    settings = Settings.from_env()
    table: dict[str, list[tuple[float, float, float]]] = {}
    for es in sets:
        lists, doc_of = collect(settings, es, args.depth)
        for name, fn in fuse_variants().items():
            rows = [score(fn(p), doc_of, q.relevant, 10) for p, q in zip(lists, es.queries)]
            table.setdefault(name, []).append(tuple(float(np.mean(c)) for c in zip(*rows)))
    print(f"{'variant':<24}" + "".join(f"{es.name[:14]:>30}" for es in sets))
    print(f"{'':<24}" + "   MRR@10 nDCG@10    R@10  " * len(sets))
    for name, vals in table.items():
        print(f"{name:<24}" + "".join(f"   {m:.4f}  {n:.4f}  {r:.4f}" for m, n, r in vals))


if __name__ == "__main__":
    main()
