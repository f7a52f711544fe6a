"""Which retrieval mode finds the governing clause of each denial reason: plain, hyde,
reverse_hyde, hybrid_hyde over the scenario notices (tests/data/appeal) and the real KB policy.

Not a test. Per mode, as one query per reason ("single") and as the default multi-query + RRF
(+ gated yes/no reranking with an LLM that gives log-probabilities) ("fused"): how many reasons have a governing article in the top 5 (hit@5), MRR@5,
LLM calls and time. Uses YAKGWAN_LLM (none: the HyDE modes fall back to the reason itself, and
the table says so).

    YAKGWAN_LLM=local .venv/bin/python bench/appeal_modes.py [--policy ../shared/data/policies/kb_smart_driver]
"""

from __future__ import annotations

import argparse
import json
import platform
import os
import time
from pathlib import Path

from yakgwan.appeal.citations import parse_clause_refs
from yakgwan.appeal.notice import parse_notice
from yakgwan.services.appeal import open_policy
from yakgwan.appeal.retrieve import MODES, evidence_for, mode_retriever
from yakgwan.config import Settings
from yakgwan.llm import UsageStats

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "appeal"


def first_governing_rank(retrieved: list[tuple[str | None, str | None]], governing: set[tuple[str, str]], k: int = 5) -> int | None:
    """1-based rank of the first retrieved (약관, 제N조) that governs the reason, within k."""
    return next((i for i, x in enumerate(retrieved[:k], 1) if x in governing), None)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--policy", type=Path, default=REPO.parent / "shared" / "data" / "policies" / "kb_smart_driver")
    args = ap.parse_args()
    settings = Settings.from_env().with_(quiet=True)
    policy = open_policy(args.policy, settings)
    scenarios = [json.loads(line) for line in (DATA / "scenarios.jsonl").read_text("utf-8").splitlines() if line.strip()]
    notices = [(sc, parse_notice((DATA / sc["file"]).read_text("utf-8"), sc["file"])) for sc in scenarios]
    llm = policy.ctx.llm
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; LLM: {llm.name if llm else 'none'}")
    print(f"{'mode':<14}{'search':<8}{'reasons':>8}{'hit@5':>8}{'MRR@5':>8}{'LLM calls':>10}{'LLM s':>8}{'wall s':>8}")
    for mode, fused in [(m, f) for m in MODES for f in (False, True)]:
        if llm is not None:
            llm.stats = UsageStats()
        retriever = mode_retriever(policy, mode)
        t0 = time.perf_counter()
        ranks = []
        for sc, notice in notices:
            for ev, want in zip(evidence_for(notice, policy, mode, retriever=retriever, fused=fused), sc["reasons"]):
                gov = {(g["yakgwan"], refs[0].article) for g in want["governing"] if (refs := parse_clause_refs(g["article"]))}
                ranks.append(first_governing_rank([(h.chunk.yakgwan, h.chunk.article) for h in ev.retrieved], gov))
        wall = time.perf_counter() - t0
        n = len(ranks)
        hit = sum(r is not None for r in ranks) / n
        mrr = sum(1 / r for r in ranks if r) / n
        calls = llm.stats.calls if llm else 0
        llm_s = llm.stats.latency_ms / 1000 if llm else 0.0
        note = "" if llm or mode == "plain" else "  (no LLM: the reason itself)"
        print(f"{mode:<14}{'fused' if fused else 'single':<8}{n:>8}{hit:>8.3f}{mrr:>8.3f}{calls:>10}{llm_s:>8.1f}{wall:>8.1f}{note}")


if __name__ == "__main__":
    main()
