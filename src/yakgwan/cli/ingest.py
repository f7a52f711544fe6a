"""``yakgwan ingest PATH...``."""

from __future__ import annotations

import argparse

from yakgwan.cli.output import err, print_ingest_report, say
from yakgwan.config import Settings
from yakgwan.services.ingest import IngestReport, fallback_lines, ingest, parse_meta


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    def lexical_ready(r: IngestReport) -> None:
        if not settings.quiet:
            err(say(settings.language, "cli.lexical_ready", seconds=f"{r.seconds_lexical:.1f}"))

    report = ingest(settings, list(args.paths), strict=args.strict, on_lexical_ready=lexical_ready, steps=args.steps, meta=parse_meta(args.meta),
                    ray=args.ray, ray_workers=args.ray_workers)
    print_ingest_report(report, settings.index_dir, settings.language)
    for line in fallback_lines(report.step_fallbacks, report.step_reasons, shown=5):
        err("  " + line.text(settings.language))
    return 3 if report.failed else 0
