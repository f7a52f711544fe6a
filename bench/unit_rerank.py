"""Benchmark: the clause stage's hits re-ranked by their best answer unit's cosine (a measurement,
not a pipeline).

Not a test. Over policy_qa dev (the KB policy, default pipeline, no LLM) it takes the first
``--depth`` grouped hits of each answerable question, scores each hit's answer units (a 항 with
its 호, a table row with its header; :mod:`yakgwan.answer.units`, read with their heading) with
the default embedder, and re-ranks the hits by ``(1 − α) · minmax(clause score) + α ·
minmax(best unit cosine)``. It prints ``eval``'s clause metrics (primary hit@1 / hit@5 / MRR@10,
any governing unit in the top 5; :mod:`yakgwan.eval.clauses`) on the tuning half (even rows)
and the checking half (odd rows) for each α; α = 0 is the clause stage as it is.

The unit vectors come from the machine's embedding cache when an earlier run or ``ask`` made
them; the first run embeds every unit of the hits it reads.

    .venv/bin/python bench/unit_rerank.py [--depth 10]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from answerability import SETS, context_of  # noqa: E402  (the same corpus and questions)

from yakgwan.answer.extract_units import CachingEmbedder  # noqa: E402
from yakgwan.answer.select import read_as  # noqa: E402
from yakgwan.answer.units import hit_units  # noqa: E402
from yakgwan.embedders.cache import EmbeddingCache  # noqa: E402
from yakgwan.eval import clauses as C  # noqa: E402
from yakgwan.eval.runner import hit_places  # noqa: E402
from yakgwan.pipelines import build_pipeline  # noqa: E402
from yakgwan.retrieval.scoring.fusion import minmax  # noqa: E402

ALPHAS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5)


def collect(depth: int, tmp: Path) -> list[dict[str, Any]]:
    corpus, questions, _ = SETS["policy_qa"]
    ctx = context_of(corpus, questions, tmp, {})
    retriever, _ = build_pipeline("default", ctx)
    embedder = CachingEmbedder(ctx.embedder, EmbeddingCache.in_folder(ctx.cache_dir) if ctx.cache_dir else None)
    out = []
    for i, line in enumerate(l for l in questions.read_text("utf-8").splitlines() if l.strip()):
        r = json.loads(line)
        if not r.get("answerable", True):
            continue
        hits = retriever.retrieve(r["question"], depth)
        q = np.asarray(embedder.embed([r["question"]], "query"), dtype=np.float32)[0]
        best = []
        for h in hits:
            units = hit_units([h])
            if not units:
                best.append(0.0)
                continue
            v = np.asarray(embedder.embed([read_as(u) for u in units], "passage"), dtype=np.float32)
            best.append(float(((v @ q) / (np.linalg.norm(v, axis=1) * np.linalg.norm(q))).max()))
        governing = [C.GoverningUnit(g["yakgwan"], g["article"], g.get("article_title"), g["page"]) for g in r["governing"]]
        out.append({"half": "tune" if i % 2 == 0 else "check", "governing": governing, "places": hit_places(hits),
                    "score": {str(n): h.score for n, h in enumerate(hits)}, "unit": {str(n): b for n, b in enumerate(best)}})
    return out


def measure(rows: list[dict[str, Any]], alpha: float) -> dict[tuple[str, str], float]:
    cells: dict[tuple[str, str], list[float]] = {}
    for r in rows:
        fused = {n: (1 - alpha) * s + alpha * u for n, s, u in
                 ((n, s, minmax(r["unit"])[n]) for n, s in minmax(r["score"]).items())}
        order = sorted(fused, key=lambda n: (-fused[n], int(n)))
        metrics = C.clause_metrics(C.rank_units([r["places"][int(n)] for n in order]), r["governing"], 10)
        for key, value in metrics.items():
            cells.setdefault((r["half"], key), []).append(value)
    return {k: float(np.mean(v)) for k, v in cells.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--depth", type=int, default=10, help="hits re-ranked per question (default 10)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        rows = collect(args.depth, Path(tmp))
    print(f"policy_qa dev, {len(rows)} answerable questions, first {args.depth} hits re-ranked; hit@1 / hit@5 / MRR@10 / any@5")
    print("| α | tuning half | checking half |")
    print("|---|---|---|")
    for alpha in ALPHAS:
        m = measure(rows, alpha)
        cell = lambda h: " / ".join(f"{m[(h, k)]:.3f}" for k in ("hit@1", "hit@5", "mrr", "any_hit@5"))  # noqa: E731
        print(f"| {alpha} | {cell('tune')} | {cell('check')} |")


if __name__ == "__main__":
    main()
