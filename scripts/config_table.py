#!/usr/bin/env python
"""The configuration table of docs/configuration.md, generated from the config classes.

Each row is one environment variable (``yakgwan.config.catalog``): its default (what
``yakgwan.config.env`` builds when it is unset), its allowed values (the names of the registry the
field is checked against, a Literal's values, 1/0 for a flag, else what the variable says may be
given), its meaning and the config field it feeds.

    .venv/bin/python scripts/config_table.py           # print the table
    .venv/bin/python scripts/config_table.py --write   # put it between the markers of docs/configuration.md
    .venv/bin/python scripts/config_table.py --check   # exit 1 when the page differs
"""

from __future__ import annotations

import argparse
import sys
import typing
from pathlib import Path
from typing import Callable

from yakgwan.config.catalog import Entry, entries

PAGE = Path(__file__).resolve().parents[1] / "docs" / "configuration.md"
BEGIN = "<!-- config-table:begin -->"
END = "<!-- config-table:end -->"
STALE = "docs/configuration.md is out of date with the config classes: run scripts/config_table.py --write"


def _registries() -> dict[str, Callable[[], list[str]]]:
    """Each registry's kind (as ``EnvVar.choices`` names it) → its names."""
    from yakgwan.embedders import EMBEDDERS
    from yakgwan.llm import PROVIDERS
    from yakgwan.llm.gguf_assets import MODELS
    from yakgwan.text.registry import TOKENIZERS
    from yakgwan.websearch.registry import SEARCH_PROVIDERS

    return {
        "embedder": lambda: list(EMBEDDERS),
        "tokenizer": lambda: list(TOKENIZERS),
        "LLM provider": lambda: [*PROVIDERS, "none"],  # make_llm's own list: "none" is no provider
        "local model": lambda: list(MODELS),
        "search provider": lambda: list(SEARCH_PROVIDERS),
    }


def _code(value: object) -> str:
    return f"`{value}`"


def allowed(entry: Entry, registries: dict[str, Callable[[], list[str]]]) -> str:
    var = entry.var
    parts: list[str] = []
    if var.choices:
        if var.choices not in registries:
            raise KeyError(f"{var.name}: no registry of kind {var.choices!r}; known: {', '.join(registries)}")
        parts.append(", ".join(_code(n) for n in registries[var.choices]()))
    if var.values:
        parts.append(var.values)
    elif typing.get_origin(entry.type) is typing.Literal:
        parts.append(", ".join(_code(v) for v in typing.get_args(entry.type)))
    elif entry.type is bool:
        parts.append("`1` or `0` (also true/false, yes/no, on/off)")
    return "; ".join(parts)


def default(entry: Entry) -> str:
    if entry.var.default:
        return entry.var.default
    if entry.default is None:
        return "unset"
    if isinstance(entry.default, bool):
        return _code(int(entry.default))
    return _code(entry.default)


def table() -> str:
    registries = _registries()
    rows = ["| variable | default | allowed values | meaning | config field |", "|---|---|---|---|---|"]
    for e in entries():
        rows.append(f"| `{e.var.name}` | {default(e)} | {allowed(e, registries)} | {e.var.meaning} | `{e.config}.{e.field}` |")
    return "\n".join(rows) + "\n"


def splice(page: str, body: str) -> str:
    """``page`` with ``body`` between its markers (each on a line of its own)."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        raise ValueError(f"{PAGE} needs the lines {BEGIN} and {END}, in that order")
    return page[: start + len(BEGIN)] + "\n" + body + page[end:]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="rewrite the table in docs/configuration.md")
    mode.add_argument("--check", action="store_true", help="exit 1 when docs/configuration.md differs")
    args = ap.parse_args(argv)
    body = table()
    if not (args.write or args.check):
        sys.stdout.write(body)
        return 0
    page = PAGE.read_text(encoding="utf-8")
    wanted = splice(page, body)
    if args.check:
        if wanted != page:
            print(STALE, file=sys.stderr)
            return 1
        return 0
    if wanted != page:
        PAGE.write_text(wanted, encoding="utf-8")
        print(f"wrote {PAGE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
