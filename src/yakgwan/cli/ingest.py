"""``yakgwan ingest PATH...``."""

from __future__ import annotations

import argparse
import time

from yakgwan.cli.output import err, print_ingest_report, say
from yakgwan.config import Settings
from yakgwan.services.ingest import IngestReport, fallback_lines, ingest, parse_meta


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    """Ingest, saying what was found as soon as it is known: the pages read only in part print
    when the words are committed (before the embedding, which can take minutes), and an ingest
    interrupted (Ctrl-C) prints what it committed before the process stops."""
    lang = settings.language
    committed: list[IngestReport] = []  # the report, once the words are committed
    t0 = time.perf_counter()

    def lexical_ready(r: IngestReport) -> None:
        committed.append(r)
        for w in r.warnings:
            err(say(lang, "cli.warning", text=w))
        if not settings.quiet:
            err(say(lang, "cli.lexical_ready", seconds=f"{r.seconds_lexical:.1f}"))

    try:
        report = ingest(settings, list(args.paths), strict=args.strict, on_lexical_ready=lexical_ready, steps=args.steps, meta=parse_meta(args.meta),
                        ray=args.ray, ray_workers=args.ray_workers)
    except KeyboardInterrupt:
        if committed:  # the words are in the index: say what it holds now
            r = committed[0]
            r.seconds_total = time.perf_counter() - t0
            print_ingest_report(r, settings.index_dir, lang, warnings=False)
        else:
            err(say(lang, "cli.interrupted_before_commit"))
        raise
    print_ingest_report(report, settings.index_dir, lang, warnings=not committed)
    for line in fallback_lines(report.step_fallbacks, report.step_reasons, shown=5):
        err("  " + line.text(lang))
    return 3 if report.failed else 0
