"""``yakgwan search``, ``yakgwan ask`` and ``yakgwan pipelines``."""

from __future__ import annotations

import argparse
import json

from yakgwan.cli.output import err, print_hits
from yakgwan.config import Settings
from yakgwan.services.ask import RuleSet, ask_index
from yakgwan.services.pipelines import pipeline_rows, pipeline_specs_json
from yakgwan.services.search import search_index

OUTCOME_LABELS = {"answered": "답변", "partial": "부분 답변", "refused": "답변 불가"}


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    res = search_index(settings, args.query, args.pipeline, args.k, args.filters)
    if args.json:
        print(json.dumps(res.to_json(), ensure_ascii=False, indent=2))
        return 0
    print(f"[{res.pipeline}] bm25 {res.bm25} · dense {res.dense} · {res.latency_ms:.0f} ms")
    if res.note:
        print(f"note: {res.note}")
    print_hits(res.hits)
    return 0


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    res = ask_index(settings, args.question, args.pipeline, args.mode, args.k, RuleSet.parse(args.rules), args.filters)
    if args.json:
        print(json.dumps(res.to_json(), ensure_ascii=False, indent=2))
        return 0
    print(f"[{OUTCOME_LABELS[res.outcome]}] {res.answer}")
    for c in res.citations:
        where = " · ".join(str(x) for x in (c.doc, f"p.{c.page}" if c.page else None, c.heading) if x)
        print(f"  [{c.n}] {where}: “{' '.join(c.quote.split())}”")
    print(f"  ({res.pipeline}, {res.mode} by {res.by}, {res.latency_ms:.0f} ms, LLM calls {res.llm_calls})")
    for n in res.notes:
        err(f"  note: {n}")
    return 0


def cmd_pipelines(args: argparse.Namespace, settings: Settings) -> int:
    if args.json:
        print(json.dumps(pipeline_specs_json(), ensure_ascii=False, indent=2))
        return 0
    rows = pipeline_rows()
    width = max(len(r.name) for r in rows)
    for r in rows:
        print(f"{r.name:<{width}}  {r.description}{' (default)' if r.default else ''}")
    return 0
