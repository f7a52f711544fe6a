"""Offline ``ask`` speed on the KB policy: a cold CLI process, and a warm process's questions.

Not a test. Indexes the 168-page policy into a temporary folder (or uses ``--index``), then

1. **cold**: runs ``yakgwan ask QUESTION`` ``--runs`` times as a fresh process (no LLM) and
   prints the wall time of each (p50, p95, max); the first run after an install also builds and
   keeps the embedder's graph in the cache folder (``--fresh-cache`` shows that run on its own);
2. **warm**: one process answers every question of ``--questions`` (default: the policy_qa dev
   set) once, after one warm-up question, and prints p50/p95/max of ``AskResult.latency_ms``.

The machine (cores, load) is printed first: a shared 2-core machine moves these by ±15%.

    .venv/bin/python bench/ask_speed.py [--runs 9] [--index DIR] [--fresh-cache] [--warm-units]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
PDF = SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"
QUESTIONS = SHARED / "policy_qa" / "questions_dev.jsonl"
QUESTION = "보험금을 청구하려면 어떤 서류를 내야 하나요?"  # a general claim question (not from the dev set)


def spread(ms: list[float]) -> str:
    s = sorted(ms)
    return f"p50 {s[len(s) // 2]:.0f} ms, p95 {s[min(len(s) - 1, int(0.95 * len(s)))]:.0f} ms, max {s[-1]:.0f} ms (n={len(s)})"


def cold(index: Path, runs: int, env: dict[str, str]) -> list[float]:
    exe = Path(sys.executable).with_name("yakgwan")
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        done = subprocess.run([str(exe), "ask", QUESTION], env=env | {"YAKGWAN_INDEX": str(index)}, capture_output=True, text=True)
        out.append((time.perf_counter() - t) * 1000)
        if done.returncode != 0:
            raise SystemExit(f"yakgwan ask failed ({done.returncode}): {done.stderr[-2000:]}")
    return out


def warm(index: Path, questions: Path, units: bool = False) -> list[float]:
    """The warm process's latencies; ``units``: first embed every answer unit of the index, as the
    server does after an upload (:mod:`yakgwan.answer.unit_warm`), and say how long that took."""
    from yakgwan.answer.ask import Asker
    from yakgwan.answer.extract_units import CachingEmbedder
    from yakgwan.answer.unit_warm import warm_units
    from yakgwan.config import Settings
    from yakgwan.embedders.cache import EmbeddingCache
    from yakgwan.services.context import open_context

    settings = Settings.from_env().with_(index_dir=index, quiet=True)
    ctx = open_context(settings)
    ctx.make_llm = lambda: None
    vectors = CachingEmbedder(ctx.embedder, EmbeddingCache.in_folder(settings.cache_dir))
    if units:
        t = time.perf_counter()
        n = warm_units(ctx.view.chunks, vectors)
        print(f"answer units embedded ahead (as the server does after an upload): {n} in {time.perf_counter() - t:.1f} s")
    asker = Asker(ctx, unit_vectors=vectors)
    asker.ask(QUESTION)
    rows = [json.loads(line) for line in questions.read_text("utf-8").splitlines() if line.strip()]
    return [asker.ask(r["question"]).latency_ms for r in rows]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--index", type=Path, help="an index of the policy (default: built in a temporary folder)")
    ap.add_argument("--questions", type=Path, default=QUESTIONS)
    ap.add_argument("--warm-units", action="store_true", help="embed every answer unit before the warm questions (what the server does after an upload)")
    ap.add_argument("--fresh-cache", action="store_true", help="start from an empty cache folder: the first cold run builds the graph")
    args = ap.parse_args()
    if args.runs < 1:
        raise SystemExit("--runs must be at least 1")
    for f in ([] if args.index else [PDF]) + [args.questions]:
        if not f.exists():
            raise SystemExit(f"needs {f} (the ../shared folder beside the repository)")
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}, Python {platform.python_version()}")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as installed: bytecode kept
    env["YAKGWAN_LLM"] = "none"
    with tempfile.TemporaryDirectory() as tmp:
        if args.fresh_cache:
            env["YAKGWAN_CACHE_DIR"] = str(Path(tmp) / "cache")
        index = args.index
        if index is None:
            index = Path(tmp) / "index"
            subprocess.run([str(Path(sys.executable).with_name("yakgwan")), "ingest", str(PDF)], env=env | {"YAKGWAN_INDEX": str(index)},
                           check=True, capture_output=True)
        times = cold(index, args.runs, env)
        if args.fresh_cache:
            print(f"cold CLI ask, first run (builds and keeps the graph): {times[0]:.0f} ms")
            times = times[1:] or times
        print(f"cold CLI ask ({QUESTION!r}): {spread(times)}")
        print(f"warm ask over {args.questions.name}: {spread(warm(index, args.questions, args.warm_units))}")


if __name__ == "__main__":
    main()
