"""``yakgwan search``, ``yakgwan ask`` and ``yakgwan pipelines``."""

from __future__ import annotations

import argparse

from yakgwan.cli.output import err, print_hits, say
from yakgwan.core.errors import json_text, one_line
from yakgwan.config import Settings
from yakgwan.services.ask import RuleSet, ask_index
from yakgwan.services.pipelines import pipeline_rows, pipeline_specs_json
from yakgwan.services.search import search_index


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    res = search_index(settings, args.query, args.pipeline, args.k, args.filters)
    if args.json:
        print(json_text(res.to_json(settings.language)))
        return 0
    lang = settings.language
    dense = say(lang, "cli.list_ready") if res.pending is None else say(lang, "cli.list_pending", embedded=res.pending[0], total=res.pending[1])
    print(say(lang, "cli.search_header", pipeline=res.pipeline, bm25=say(lang, "cli.list_ready"), dense=dense, ms=f"{res.latency_ms:.0f}"))
    for note in (res.note, res.scope_note):
        if note:
            print(say(settings.language, "cli.note", text=note))
    print_hits(res.hits, lang=settings.language)
    return 0


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    res = ask_index(settings, args.question, args.pipeline, args.mode, args.k, RuleSet.parse(args.rules), args.filters)
    if args.json:
        print(json_text(res.to_json(settings.language)))
        return 0
    lang = settings.language
    print(f"[{say(lang, f'cli.outcome.{res.outcome}')}] {res.answer}")
    for c in res.citations:
        where = " · ".join(one_line(str(x)) for x in (c.insurer, c.doc, f"p.{c.page}" if c.page else None, c.heading) if x)
        print(f"  [{c.n}] {where}: “{' '.join(c.quote.split())}”")
    print(say(lang, "cli.ask_sources", pipeline=res.pipeline, mode=res.mode, by=res.by, ms=f"{res.latency_ms:.0f}", calls=res.llm_calls))
    for n in res.notes:
        err("  " + say(lang, "cli.note", text=n))
    return 0


def cmd_pipelines(args: argparse.Namespace, settings: Settings) -> int:
    if args.json:
        print(json_text(pipeline_specs_json(settings.language)))
        return 0
    rows = pipeline_rows()
    width = max(len(r.name) for r in rows)
    for r in rows:
        mark = say(settings.language, "pipeline.default_mark") if r.default else ""
        print(f"{r.name:<{width}}  {r.description.text(settings.language)}{mark}")
    return 0
