"""Benchmark: every part of the clause stage on and off, on a clause-level test set's halves.

Not a test. Indexes the policy (or reuses ``--index``), then scores each variant of the clause
stage with ``yakgwan eval``'s own scoring (``score_retriever``, clause-level units) on the
tuning half, the checking half and the whole set. Prints one Markdown table: hit@1 / hit@5 /
MRR@10 / any governing unit in the top 5.

    .venv/bin/python bench/clause_ablation.py [--tests FILE] [--corpus PDF] [--index DIR]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
from pathlib import Path
from typing import Callable

from yakgwan.config import Settings
from yakgwan.core.protocols import Retriever
from yakgwan.eval.datasets import load_clauses
from yakgwan.eval.runner import EvalOptions, score_retriever
from yakgwan.pipelines import PipelineContext, build_pipeline
from yakgwan.retrieval.clause_map import table_citations
from yakgwan.retrieval.retrievers.clause import ROUTE_WEIGHTS, ClauseWeights, no_expansion
from yakgwan.services.context import open_context
from yakgwan.services.ingest import ingest

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
PDF = SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"
TESTS = SHARED / "policy_qa" / "questions_dev.jsonl"
KEYS = ("hit@1", "hit@5", "mrr", "any_hit@5")

Variant = Callable[[PipelineContext], Retriever]


def _cited_by_article(ctx: PipelineContext) -> Retriever:
    """The clause stage with a table lifted by every piece of a 조 that one of its pieces cites."""
    r = ctx.clause()
    cmap = dataclasses.replace(r.cmap, cites=table_citations(r.cmap.chunks, whole_article=True))
    return dataclasses.replace(r, cmap=cmap)


def _clause(ctx: PipelineContext, thesaurus: bool = True, **weights: float) -> Retriever:
    r = dataclasses.replace(ctx.clause(), weights=ClauseWeights(**weights))
    return r if thesaurus else dataclasses.replace(r, expand=no_expansion)


VARIANTS: dict[str, Variant] = {
    "bm25": lambda c: build_pipeline("bm25", c)[0],
    "dense": lambda c: build_pipeline("dense", c)[0],
    "hybrid (RRF)": lambda c: build_pipeline("hybrid", c)[0],
    "hybrid_cc (no clause stage)": lambda c: build_pipeline("hybrid_cc", c)[0],
    "grouping only": lambda c: _clause(c, False, title=0.0, none=0.0, cited=0.0),
    "grouping + title field": lambda c: _clause(c, False, none=0.0, cited=0.0),
    "grouping + title + outside-약관 penalty (no thesaurus, no cited tables)": lambda c: _clause(c, False, cited=0.0),
    "clause minus cited-table lift (+ thesaurus, lists interpolated 0.5)": lambda c: _clause(c, cited=0.0),
    "**clause (auto)**: + tables lifted to the clause that cites them": lambda c: c.clause(),
    "clause, a table cited by any piece of a 조 lifted by every piece": _cited_by_article,
    "clause, cited tables at 0.9 × their citer": lambda c: _clause(c, cited=0.9),
    "clause, expanded list alone (λ = 1)": lambda c: _clause(c, expansion=1.0),
    "clause minus the expected answer's prior (role 0, lift 0)": lambda c: _clause(c, role=0.0, role_lift=0.0),
    "clause minus the lift of the answering article (role 0.3 only)": lambda c: _clause(c, role_lift=0.0),
    "clause minus copied 조 folded together (clones 0)": lambda c: _clause(c, clones=0.0),
    "clause minus title field": lambda c: _clause(c, title=0.0),
    "clause minus outside-약관 penalty": lambda c: _clause(c, none=0.0),
    "clause, clone grouping of exact copies only (1.0)": lambda c: _clause(c, group=1.0),
    "clause, clone grouping at 0.9": lambda c: _clause(c, group=0.9),
    "route (clause + the route's scope prior 0.3)": lambda c: c.clause("route", ROUTE_WEIGHTS),
}


def print_table(variants: dict[str, Variant]) -> None:
    """Index the corpus (or reuse ``--index``) and print one row per variant: its figures on the
    tuning half, the checking half and the whole set."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests", type=Path, default=TESTS)
    ap.add_argument("--corpus", type=Path, default=PDF)
    ap.add_argument("--index", type=Path, help="an index of the corpus (default: a fresh one in a temporary folder)")
    args = ap.parse_args()
    for f in (args.tests, args.corpus):
        if not f.exists():
            raise SystemExit(f"needs {f} (the ../shared folder beside the repository)")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings.from_env().with_(index_dir=args.index or Path(tmp) / "index", quiet=True)
        ingest(settings, [args.corpus], sync=True)
        ctx = open_context(settings)
        halves = {h: load_clauses(args.corpus, args.tests, h) for h in ("tune", "check", None)}
        sizes = {h: len(e.queries) for h, e in halves.items()}
        print(f"{args.tests} over {args.corpus.name}; embedder {settings.embedder.name}; k = 10; hit@1 / hit@5 / MRR@10 / any@5")
        print(f"| variant | tuning half ({sizes['tune']}) | checking half ({sizes['check']}) | all ({sizes[None]}) |")
        print("|---|---|---|---|")
        for name, make in variants.items():
            retriever = make(ctx)
            cells = []
            for evalset in halves.values():
                res = score_retriever(retriever, name, evalset, EvalOptions(k=10), quiet=True)
                cells.append(" / ".join(f"{res.metrics[k]:.3f}" for k in KEYS))
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    print_table(VARIANTS)
