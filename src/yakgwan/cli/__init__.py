"""Command line: ``yakgwan ingest | search | ask | outline | eval | report | pipelines | appeal | serve | demo``.

Argument parsing and printing only; the work is done by ``yakgwan.services``. On bad input every
command prints one line on stderr and exits non-zero; no traceback (set YAKGWAN_DEBUG=1 to see
one).
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys

from yakgwan.cli.parser import build_parser
from yakgwan.config import Settings, env
from yakgwan.core.errors import YakgwanError, storage_problem
from yakgwan.messages import msg

EXIT_ERROR, EXIT_PARTIAL, EXIT_INTERNAL = 2, 3, 70

# each command's module under yakgwan.cli, imported when the command runs (``--help`` stays fast)
COMMANDS = {
    "ingest": "ingest", "search": "search", "ask": "search", "outline": "outline", "pipelines": "search", "eval": "eval", "report": "eval",
    "appeal": "appeal", "serve": "serve", "demo": "demo",
}


def main(argv: list[str] | None = None) -> int:
    try:
        lang = env.language(env.current())
    except YakgwanError:  # YAKGWAN_LANG=fr: --help in English, and the error said below
        lang = "en"
    args = build_parser(lang).parse_args(argv)
    try:
        settings = Settings.from_env()
    except YakgwanError as exc:  # a bad variable (YAKGWAN_LANG=fr, …): said before anything runs
        print(msg("cli.error", command=args.command, detail=exc.localized(lang)).text(lang), file=sys.stderr)
        return EXIT_ERROR
    if getattr(args, "index", None):
        settings = settings.with_(index_dir=args.index)
    settings = settings.with_(quiet=bool(getattr(args, "quiet", False)))
    if getattr(args, "no_cache", False):
        settings = settings.with_(llm=dataclasses.replace(settings.llm, use_cache=False))
    try:
        module = importlib.import_module(f"yakgwan.cli.{COMMANDS[args.command]}")
        return int(getattr(module, f"cmd_{args.command}")(args, settings) or 0)
    except YakgwanError as exc:  # InputError and every other error raised on purpose
        print(msg("cli.error", command=args.command, detail=exc.localized(lang)).text(lang), file=sys.stderr)
        for line in _reason_sentences(exc, lang):
            print(line, file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:  # output piped into head & co.: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print(msg("cli.interrupted", command=args.command).text(lang), file=sys.stderr)
        return 130
    except Exception as exc:  # last resort: one line, never a traceback unless asked
        if isinstance(exc, OSError) and (said := storage_problem(exc)) is not None:  # the disk, not yakgwan
            print(msg("cli.error", command=args.command, detail=said).text(lang), file=sys.stderr)
            return EXIT_ERROR
        if env.runtime().debug:
            raise
        print(msg("cli.internal", command=args.command, kind=type(exc).__name__, detail=str(exc)).text(lang), file=sys.stderr)
        return EXIT_INTERNAL


def _reason_sentences(exc: YakgwanError, lang: str, shown: int = 12) -> list[str]:
    """After a notice whose reason was not recognised: how to give it, and the notice's sentences."""
    sentences = getattr(exc, "sentences", ())
    if not sentences:
        return []
    return [msg("cli.appeal_no_reason").text(lang), *(f"    {s}" for s in sentences[:shown])]

