"""The argument parser of every command (``yakgwan --help``), in the command line's language.

Every help text is a catalogue key (``help.*``); so are argparse's own words around them (usage,
the group titles, ``-h``) and its error messages (:func:`argparse_message`).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import unicodedata
from functools import partial
from pathlib import Path
from typing import Any, Callable, Iterable, NoReturn

from yakgwan.core.location import index_location, is_database_uri
from yakgwan.messages import msg

# argparse's own error messages (CPython's Lib/argparse.py, the same since 3.9) and the catalogue
# key each one is said with; any other message is an ``argument X: reason`` from a type function
# (already in the reader's language) or is shown as argparse wrote it
ARGPARSE_MESSAGES = (
    (re.compile(r"the following arguments are required: (?P<names>.+)"), "argparse.required"),
    (re.compile(r"argument (?P<name>\S+): invalid choice: (?P<value>.+?) \(choose from (?P<choices>.+)\)"), "argparse.invalid_choice"),
    (re.compile(r"unrecognized arguments: (?P<names>.+)"), "argparse.unrecognized"),
    (re.compile(r"argument (?P<name>\S+): expected one argument"), "argparse.expected_one"),
    (re.compile(r"argument (?P<name>\S+): expected at least one argument"), "argparse.expected_some"),
    (re.compile(r"argument (?P<name>\S+): invalid (?P<type>\w+) value: (?P<value>.+)"), "argparse.invalid_value"),
    (re.compile(r"argument (?P<name>\S+): not allowed with argument (?P<other>\S+)"), "argparse.not_allowed"),
    (re.compile(r"ambiguous option: (?P<name>\S+) could match (?P<choices>.+)"), "argparse.ambiguous"),
    (re.compile(r"argument (?P<name>\S+): (?P<detail>.+)"), "argparse.argument"),
)

Help = Callable[..., str]  # a help key's text in the parser's language


def argparse_message(message: str, lang: str) -> str:
    """argparse's English error ``message`` said in ``lang`` (as it is when no pattern matches). Pure."""
    for pattern, key in ARGPARSE_MESSAGES:
        if m := pattern.fullmatch(message):
            return msg(key, **m.groupdict()).text(lang)
    return message


def columns(text: str) -> int:
    """How many terminal columns ``text`` takes: a wide character (Hangul, CJK) two, others one. Pure."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


def wrap_columns(text: str, width: int) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` columns (:func:`columns`; a word
    longer than that stays whole on its own line). Pure."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and columns(line) + 1 + columns(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


class _Formatter(argparse.HelpFormatter):
    """argparse's formatter with the usage line's prefix in the reader's language, and help
    wrapped by the columns it takes on screen (a Korean syllable takes two)."""

    def __init__(self, prog: str, *, lang: str) -> None:
        # argparse wraps the usage line by len(), which counts a Korean prefix ("사용법: ") short
        # of the columns it takes: the width gives that back, as argparse sizes it (the terminal less 2)
        prefix = msg("help.usage").text(lang)
        super().__init__(prog, width=shutil.get_terminal_size().columns - 2 - (columns(prefix) - len(prefix)))
        self.lang = lang

    def _split_lines(self, text: str, width: int) -> list[str]:
        return wrap_columns(text, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n".join(indent + line for line in wrap_columns(text, width - len(indent)))

    def add_usage(self, usage: str | None, actions: Iterable[argparse.Action], groups: Iterable[argparse._MutuallyExclusiveGroup],
                  prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, msg("help.usage").text(self.lang) if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that speaks ``lang``: its titles, ``-h`` and its errors."""

    def __init__(self, *args: Any, lang: str, **kwargs: Any) -> None:
        super().__init__(*args, add_help=False, formatter_class=partial(_Formatter, lang=lang), **kwargs)
        self.lang = lang
        self._positionals.title = msg("help.positionals").text(lang)
        self._optionals.title = msg("help.options").text(lang)
        self.add_argument("-h", "--help", action="help", default=argparse.SUPPRESS, help=msg("help.help").text(lang))

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, msg("help.error", prog=self.prog, detail=argparse_message(message, self.lang)).text(self.lang) + "\n")


def build_parser(lang: str = "en") -> Parser:
    from yakgwan import __version__

    def h(key: str, **params: str) -> str:
        return msg(f"help.{key}", **params).text(lang)

    ap = Parser(prog="yakgwan", description=h("yakgwan"), lang=lang)
    ap.add_argument("--version", action="version", version=f"yakgwan {__version__}", help=h("version"))
    sub = ap.add_subparsers(dest="command", required=True, title=h("commands"))
    for add in (_ingest, _search, _ask, _outline, _eval, _report, _pipelines, _appeal, _serve, _demo):
        add(sub, h, lang)
    return ap


def _common(p: argparse.ArgumentParser, h: Help) -> None:
    p.add_argument("--index", type=index_location, help=h("index"))
    p.add_argument("--quiet", action="store_true", help=h("quiet"))


def _filter(p: argparse.ArgumentParser, h: Help) -> None:
    p.add_argument("--filter", action="append", default=[], dest="filters", metavar="KEY=VALUE", help=h("filter"))


def _ingest(sub: argparse._SubParsersAction, h: Help, lang: str) -> None:
    p = sub.add_parser("ingest", help=h("ingest"), description=h("ingest"), lang=lang)
    p.add_argument("paths", nargs="+", type=Path, help=h("ingest.paths"))
    p.add_argument("--strict", action="store_true", help=h("ingest.strict"))
    p.add_argument("--step", action="append", dest="steps", default=[], help=h("ingest.step"))
    p.add_argument("--ray", metavar="local|auto|ADDRESS", help=h("ingest.ray"))
    p.add_argument("--ray-workers", type=int, metavar="N", help=h("ingest.ray_workers"))
    p.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE", help=h("ingest.meta"))
    _common(p, h)


def _search(sub: argparse._SubParsersAction, h: Help, lang: str) -> None:
    p = sub.add_parser("search", help=h("search"), description=h("search"), lang=lang)
    p.add_argument("query", help=h("search.query"))
    p.add_argument("--pipeline", default="default", help=h("pipeline"))
    p.add_argument("--k", type=int, default=10, help=h("search.k"))
    p.add_argument("--json", action="store_true", help=h("search.json"))
    _filter(p, h)
    _common(p, h)


def _ask(sub: argparse._SubParsersAction, h: Help, lang: str) -> None:
    p = sub.add_parser("ask", help=h("ask"), description=h("ask"), lang=lang)
    p.add_argument("question", help=h("ask.question"))
    p.add_argument("--pipeline", default="default", help=h("pipeline"))
    p.add_argument("--mode", default="auto", choices=("auto", "generate", "cot", "extract"), help=h("ask.mode"))
    p.add_argument("--k", type=int, default=5, help=h("ask.k"))
    p.add_argument("--rules", default="all", help=h("rules"))
    p.add_argument("--json", action="store_true", help=h("ask.json"))
    p.add_argument("--no-cache", action="store_true", help=h("no_cache"))
    _filter(p, h)
    _common(p, h)


def _outline(sub: argparse._SubParsersAction, h: Help, lang: str) -> None:
    p = sub.add_parser("outline", help=h("outline"), description=h("outline"), lang=lang)
    p.add_argument("--index", type=index_location, help=h("index"))
    p.add_argument("--doc", metavar="FILE", help=h("outline.doc"))
    p.add_argument("--json", action="store_true", help=h("outline.json"))


def _eval(sub: argparse._SubParsersAction, h: Help, lang: str) -> None:
    p = sub.add_parser("eval", help=h("eval"), description=h("eval"), lang=lang)
    p.add_argument("--corpus", type=Path, help=h("eval.corpus"))
    p.add_argument("--tests", type=Path, help=h("eval.tests"))
    p.add_argument("--beir", type=Path, help=h("eval.beir"))
    p.add_argument("--pipeline", action="append", dest="pipelines", help=h("eval.pipeline"))
    p.add_argument("--pipelines", nargs="+", action="extend", dest="pipelines", metavar="NAME", help=h("eval.pipelines"))
    p.add_argument("--half", choices=("tune", "check"), help=h("eval.half"))
    p.add_argument("--k", type=int, default=10, help=h("eval.k"))
    p.add_argument("--answers", action="store_true", help=h("eval.answers"))
    p.add_argument("--unanswerable", type=Path, help=h("eval.unanswerable"))
    p.add_argument("--answer-mode", default="auto", choices=("auto", "generate", "cot", "extract"), help=h("eval.answer_mode"))
    p.add_argument("--rules", default="all", help=h("eval.rules", rules=h("rules")))
    p.add_argument("--judge-runs", type=int, default=3, help=h("eval.judge_runs"))
    p.add_argument("--limit", type=int, help=h("eval.limit"))
    p.add_argument("--json", type=Path, dest="json_out", help=h("eval.json"))
    p.add_argument("--report", type=Path, help=h("eval.report"))
    p.add_argument("--no-cache", action="store_true", help=h("no_cache"))
    p.add_argument("--ray", metavar="local|auto|ADDRESS", help=h("eval.ray"))
    p.add_argument("--ray-workers", type=int, metavar="N", help=h("eval.ray_workers"))
    p.add_argument("--index", type=partial(database_uri, lang=lang), help=h("eval.index"))
    p.add_argument("--quiet", action="store_true", help=h("quiet"))


def database_uri(value: str, lang: str = "en") -> str:
    """``--index`` of eval and serve: a postgresql:// URI (their folder indexes live in the cache
    folder and the data folder)."""
    if not is_database_uri(value):
        raise argparse.ArgumentTypeError(msg("help.database_uri", value=repr(value)).text(lang))
    return value


def _report(sub: argparse._SubParsersAction, h: Help, lang: str) -> None:
    p = sub.add_parser("report", help=h("report"), description=h("report"), lang=lang)
    p.add_argument("results", nargs="+", type=Path, help=h("report.results"))
    p.add_argument("--out", type=Path, help=h("report.out"))
    p.add_argument("--markdown", type=Path, help=h("report.markdown"))
    p.add_argument("--summary", type=Path, help=h("report.summary"))
    p.add_argument("--title", help=h("report.title"))
    p.add_argument("--quiet", action="store_true", help=h("report.quiet"))


def _pipelines(sub: argparse._SubParsersAction, h: Help, lang: str) -> None:
    p = sub.add_parser("pipelines", help=h("pipelines"), description=h("pipelines"), lang=lang)
    p.add_argument("--json", action="store_true", help=h("pipelines.json"))
    p.add_argument("--quiet", action="store_true", help=h("pipelines.quiet"))


def _appeal(sub: argparse._SubParsersAction, h: Help, lang: str) -> None:
    p = sub.add_parser("appeal", help=h("appeal"), description=h("appeal"), lang=lang)
    p.add_argument("notice", type=Path, help=h("appeal.notice"))
    p.add_argument("--policy", type=index_location, required=True, help=h("appeal.policy"))
    p.add_argument("--mode", default="plain", help=h("appeal.mode"))
    p.add_argument("--analysis", default="auto", choices=("auto", "rules", "llm"), help=h("appeal.analysis"))
    p.add_argument("--search", default="single", choices=("single", "fused"), help=h("appeal.search"))
    p.add_argument("--llm-findings", default="advise", choices=("advise", "apply"), help=h("appeal.llm_findings"))
    p.add_argument("--reason", action="append", default=[], dest="reasons", metavar="TEXT", help=h("appeal.reason"))
    p.add_argument("--json", type=Path, dest="json_out", help=h("appeal.json"))
    p.add_argument("--out", type=Path, help=h("appeal.out"))
    p.add_argument("--letter", type=Path, help=h("appeal.letter"))
    p.add_argument("--quiet", action="store_true", help=h("quiet"))
    _filter(p, h)


def _serve(sub: argparse._SubParsersAction, h: Help, lang: str) -> None:
    p = sub.add_parser("serve", help=h("serve"), description=h("serve"), lang=lang)
    p.add_argument("--host", default="127.0.0.1", help=h("serve.host"))
    p.add_argument("--port", type=int, default=8000, help=h("serve.port"))
    p.add_argument("--data", type=Path, help=h("serve.data"))
    p.add_argument("--index", type=partial(database_uri, lang=lang), help=h("serve.index"))
    p.add_argument("--workers", type=int, default=1, help=h("serve.workers"))
    p.add_argument("--quiet", action="store_true", help=h("serve.quiet"))


def _demo(sub: argparse._SubParsersAction, h: Help, lang: str) -> None:
    p = sub.add_parser("demo", help=h("demo"), description=h("demo"), lang=lang)
    p.add_argument("paths", nargs="*", type=Path, help=h("demo.paths"))
    _common(p, h)
