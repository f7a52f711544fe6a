"""Benchmark: ingest the KB policy in one process and on a local Ray cluster with 1 and 2 workers.

Not a test. Each run gets a fresh index and a fresh cache folder, so every chunk is read,
tokenised and embedded (no vector comes from a cache); the bundled embedder (the default). The
per-worker embedding rate is what a larger cluster multiplies: with W workers on W cores,
about W times the 1-worker rate until the driver's chunking and commit dominate.

    .venv/bin/python bench/ray_ingest.py [PDF_OR_FOLDER] [--workers 1 2]
"""

from __future__ import annotations

import argparse
import os
import platform
import tempfile
import time
from pathlib import Path

from yakgwan.config import Settings
from yakgwan.services.ingest import ingest

REPO = Path(__file__).resolve().parents[1]
POLICY = REPO.parent / "shared" / "data" / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"


def run(path: Path, ray: str | None, workers: int | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.from_env().with_(index_dir=Path(tmp) / "index", cache_dir=Path(tmp) / "cache", quiet=True)
        t0 = time.perf_counter()
        report = ingest(settings, [path], sync=True, ray=ray, ray_workers=workers)
        total = time.perf_counter() - t0
    name = "one process" if ray is None else f"ray, {workers} worker{'s' if workers != 1 else ''}"
    rate = report.embedded / report.seconds_dense if report.seconds_dense else float("nan")
    print(f"{name:<18} chunks {report.embedded:5d}  lexical ready {report.seconds_lexical:6.1f} s  embedding {report.seconds_dense:6.1f} s "
          f"({rate:5.1f} chunks/s)  total {total:6.1f} s (Ray start and actor model loads included)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("path", nargs="?", type=Path, default=POLICY)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = ap.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; {args.path.name}")
    run(args.path, None, None)
    for w in args.workers:
        run(args.path, "local", w)


if __name__ == "__main__":
    main()
