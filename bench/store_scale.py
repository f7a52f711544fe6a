"""Benchmark: the folder store and the PostgreSQL store side by side at a given size.

Not a test. Chunks recombine real sentences (``search_scale.py``'s generator: the skytravel
knowledge base when ../shared is there, else the bundled sample 약관); vectors are synthetic
384-d unit vectors drawn around 1,000 random centres (embeddings cluster; uniform random vectors
are the worst case of any graph index). For each backend: the commit's chunks/s, the time to
open a view, BM25 and dense search p50/p95 at k = 10, and for PostgreSQL HNSW recall@10 against
its exact scan (the folder backend's ranking) at the URI's ef_search.

    .venv/bin/python bench/store_scale.py [--sizes 100000] [--queries 50] [--index postgresql://…]
        [--ef-search 200 400 1000] [--no-vectors] [--passes 3]

Without ``--index`` a PostgreSQL 16 + pgvector server is started from the pgserver wheel in a
temporary folder. Each size goes into a collection of its own (``bench_<size>``), dropped after.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from search_scale import pct, source_sentences, synth_texts, timed_commit

from yakgwan.core.records import Chunk, make_chunk_id
from yakgwan.store import IndexData, open_store, sibling_collection
from yakgwan.text.registry import make_tokenizer

DIM = 384
CENTRES = 1000


def clustered_vectors(n: int, seed: int) -> np.ndarray:
    """``n`` unit vectors around the same ``CENTRES`` random centres whatever ``seed`` draws
    (queries come from the distribution of the chunks, as questions about a corpus do)."""
    centres = np.random.default_rng(12345).standard_normal((CENTRES, DIM)).astype(np.float32)
    rng = np.random.default_rng(seed)
    v = centres[rng.integers(0, CENTRES, n)] + 0.6 * rng.standard_normal((n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def build(n: int, tok, rng: random.Random) -> tuple[IndexData, list[list[str]]]:  # type: ignore[no-untyped-def]
    sents = source_sentences()
    pool = synth_texts(sents, min(n, 3000), rng)
    pool_tokens = tok.tokenize_many(pool)
    tokens = [pool_tokens[i % len(pool)] + [f"doc{i}"] for i in range(n)]
    texts = [f"{pool[i % len(pool)]} #{i}" for i in range(n)]
    chunks = [Chunk(make_chunk_id("bench", t, i), f"d{i // 10}", f"d{i // 10}", "bench", t, 0, len(t)) for i, t in enumerate(texts)]
    data = IndexData(chunks, tokens, {}, tok.name, "synthetic-clustered", DIM, clustered_vectors(n, 0), np.ones(n, bool))
    queries = tok.tokenize_many([" ".join(rng.sample(sents, 1)[0].split()[:4]) for _ in range(60)])
    return data, queries


def run_backend(name: str, location: str | Path, data: IndexData, qtoks: list[list[str]], qvecs: np.ndarray, passes: int = 1) -> dict:
    store = open_store(location)
    view, commit_s, open_s = timed_commit(store, data)
    dense: list[list[int]] = []
    for n in range(passes):
        lat: dict[str, list[float]] = {"bm25": [], "dense": []} if data.dense_mask.any() else {"bm25": []}
        for qt, qv in zip(qtoks, qvecs):
            t = time.perf_counter(); view.lexical_search(qt, 10); lat["bm25"].append((time.perf_counter() - t) * 1e3)
            if "dense" in lat:
                t = time.perf_counter(); hits = view.dense_search(qv, 10); lat["dense"].append((time.perf_counter() - t) * 1e3)
                if n == 0:
                    dense.append([r for r, _ in hits])
        head = f"commit {commit_s:7.1f} s ({len(data.chunks) / commit_s:8.0f} chunks/s)  open {open_s:5.2f} s" if n == 0 else f"pass {n + 1}"
        print(f"{name:<12} {head}  " + "  ".join(f"{k} p50 {pct(v)[0]:7.2f} ms p95 {pct(v)[1]:7.2f} ms" for k, v in lat.items()), flush=True)
    return {"store": store, "dense": dense}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", type=int, nargs="+", default=[100_000])
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--index", help="a postgresql:// URI (default: a pgserver started for the run)")
    ap.add_argument("--ef-search", type=int, nargs="+", default=[200], help="HNSW recall@10 at each of these ef_search values")
    ap.add_argument("--no-vectors", action="store_true", help="chunks without vectors: BM25 only (no HNSW build, no dense search)")
    ap.add_argument("--passes", type=int, default=1, help="run the queries this many times (the first reads cold postings)")
    args = ap.parse_args()
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {mem:.0f} GiB RAM, Python {platform.python_version()}")
    server = None
    with tempfile.TemporaryDirectory() as tmp:
        uri = args.index
        if uri is None:
            import pgserver

            server = pgserver.get_server(Path(tmp) / "pg", cleanup_mode="stop")
            uri = server.get_uri()
        print(f"postgresql: {open_store(sibling_collection(uri + ('&' if '?' in uri else '?') + 'collection=bench', 'probe')).location}")
        tok = make_tokenizer("kiwi")
        for n in args.sizes:
            data, qtoks = build(n, tok, random.Random(42))
            if args.no_vectors:
                data = replace(data, dense_mask=np.zeros(n, bool))
            qtoks = qtoks[: args.queries]
            qvecs = clustered_vectors(len(qtoks), 1)
            print(f"\n== {n:,} chunks, {len(qtoks)} queries, k = 10", flush=True)
            local = run_backend("folder", Path(tmp) / f"local_{n}", data, qtoks, qvecs, args.passes)
            base = f"{uri}{'&' if '?' in uri else '?'}collection=bench_{n}"
            pg = run_backend("postgresql", base, data, qtoks, qvecs, args.passes)  # exact scan up to exact_rows (default 20000)
            for ef in [] if args.no_vectors else args.ef_search:
                hnsw = open_store(f"{base}&exact_rows=0&ef_search={ef}").view()
                t_lat, found = [], 0
                for qv, want in zip(qvecs, local["dense"]):
                    t = time.perf_counter(); got = hnsw.dense_search(qv, 10); t_lat.append((time.perf_counter() - t) * 1e3)
                    found += len({r for r, _ in got} & set(want))
                p50, p95 = pct(t_lat)
                print(f"{'pg hnsw':<12} ef_search {ef}: recall@10 {found / (10 * len(qvecs)):.4f}  dense p50 {p50:.2f} ms p95 {p95:.2f} ms", flush=True)
            pg["store"].restore(None)
        if server is not None:
            server.cleanup()


if __name__ == "__main__":
    main()
