"""Benchmark: ingest and query latency at 10k and 100k chunks, beside peers in the same run.

Not a test. Synthesises chunks by recombining and perturbing real sentences (../shared skytravel
knowledge base when present, else the bundled sample 약관); dense vectors are synthetic unit
vectors (this times search, not embedding). Peers: ``rank_bm25.BM25Okapi`` for BM25 and a plain
numpy full scan + full argsort for dense.

    .venv/bin/python bench/search_scale.py [--sizes 10000 100000] [--queries 50]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import tempfile
import time
from pathlib import Path

import numpy as np

from yakgwan.core.records import Chunk, make_chunk_id
from yakgwan.retrieval.scoring.fusion import ranked, rrf
from yakgwan.store import IndexData
from yakgwan.store import open_store
from yakgwan.text.registry import make_tokenizer

REPO = Path(__file__).resolve().parents[1]


def source_sentences() -> list[str]:
    kb = REPO.parent / "shared" / "data" / "skytravel" / "knowledge_base"
    files = sorted(kb.rglob("*.md")) if kb.is_dir() else [REPO / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"]
    text = "\n".join(f.read_text("utf-8") for f in files)
    sents = [s.strip() for s in re.split(r"(?<=[.다요])\s+|\n+", text) if len(s.strip()) > 15]
    return sents


def synth_texts(sents: list[str], n: int, rng: random.Random) -> list[str]:
    out = []
    for i in range(n):
        parts = rng.sample(sents, 3)
        t = " ".join(parts)
        t = re.sub(r"\d+", lambda m: str(int(m.group()) + rng.randint(0, 9)), t)
        out.append(f"{t} (문서 {i})")
    return out


def pct(xs: list[float]) -> tuple[float, float]:
    return float(np.percentile(xs, 50)), float(np.percentile(xs, 95))


def timed_commit(store, data: IndexData):  # type: ignore[no-untyped-def]
    """Commit ``data`` and open a view: (view, seconds to commit, seconds to open)."""
    t0 = time.perf_counter()
    store.commit(data)
    commit_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    view = store.view()
    return view, commit_s, time.perf_counter() - t0


def bench_size(n: int, n_queries: int, tok, rng: random.Random) -> dict:  # type: ignore[no-untyped-def]
    sents = source_sentences()
    pool = synth_texts(sents, min(n, 3000), rng)
    t0 = time.perf_counter()
    pool_tokens = tok.tokenize_many(pool)
    tok_s = time.perf_counter() - t0
    tokens = [pool_tokens[i % len(pool)] + [f"doc{i}"] for i in range(n)]  # perturbed replicas
    texts = [pool[i % len(pool)] for i in range(n)]
    chunks = [Chunk(make_chunk_id("bench", t, i), f"d{i // 10}", f"d{i // 10}", "bench", t, 0, len(t)) for i, t in enumerate(texts)]
    dim = 384
    vecs = np.random.default_rng(0).standard_normal((n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    data = IndexData(chunks, tokens, {}, tok.name, "synthetic", dim, vecs, np.ones(n, bool))
    with tempfile.TemporaryDirectory() as tmp:
        view, commit_s, open_s = timed_commit(open_store(Path(tmp) / "index"), data)
    queries = [" ".join(rng.sample(sents, 1)[0].split()[:4]) for _ in range(n_queries)]
    qtoks = tok.tokenize_many(queries)
    qvecs = np.random.default_rng(1).standard_normal((n_queries, dim)).astype(np.float32)
    res: dict[str, object] = {"n": n, "tokenise_chunks_per_s": len(pool) / tok_s, "commit_s": commit_s, "open_s": open_s}
    lat: dict[str, list[float]] = {"bm25": [], "dense": [], "hybrid": [], "rank_bm25": [], "numpy_scan": []}
    for qt, qv in zip(qtoks, qvecs):
        t = time.perf_counter(); b = view.lexical_search(qt, 100); lat["bm25"].append((time.perf_counter() - t) * 1e3)
        t = time.perf_counter(); d = view.dense_search(qv, 100); lat["dense"].append((time.perf_counter() - t) * 1e3)
        t = time.perf_counter()
        ranked(rrf([[i for i, _ in view.dense_search(qv, 100)], [i for i, _ in view.lexical_search(qt, 100)]]))[:10]
        lat["hybrid"].append((time.perf_counter() - t) * 1e3)
        t = time.perf_counter(); s = vecs @ qv; np.argsort(-s)[:100]; lat["numpy_scan"].append((time.perf_counter() - t) * 1e3)
    from rank_bm25 import BM25Okapi

    t0 = time.perf_counter()
    peer = BM25Okapi(tokens)
    res["rank_bm25_build_s"] = time.perf_counter() - t0
    for qt in qtoks[: max(5, n_queries // 5)]:
        t = time.perf_counter(); sc = peer.get_scores(qt); np.argsort(-sc)[:100]; lat["rank_bm25"].append((time.perf_counter() - t) * 1e3)
    res["latency_ms"] = {k: pct(v) for k, v in lat.items()}
    return res


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=50)
    args = ap.parse_args()
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, Python {platform.python_version()}, numpy {np.__version__}")
    tok = make_tokenizer("kiwi")
    rng = random.Random(42)
    for n in args.sizes:
        r = bench_size(n, args.queries, tok, rng)
        lat = r["latency_ms"]
        print(f"\n== {n:,} chunks: commit (BM25 build + write) {r['commit_s']:.2f} s, open {r['open_s']:.2f} s, "
              f"rank_bm25 build {r['rank_bm25_build_s']:.2f} s, tokenise {r['tokenise_chunks_per_s']:.0f} chunks/s")
        print(f"{'list':<12}{'p50 ms':>10}{'p95 ms':>10}")
        for k, (p50, p95) in lat.items():
            print(f"{k:<12}{p50:>10.2f}{p95:>10.2f}")
        print(f"ratio p50: rank_bm25 / bm25 = {lat['rank_bm25'][0] / lat['bm25'][0]:.1f}x; "
              f"numpy full scan / dense = {lat['numpy_scan'][0] / lat['dense'][0]:.2f}x")


if __name__ == "__main__":
    main()
