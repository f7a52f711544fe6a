"""``yakgwan outline [--doc FILE] [--json]``: what the index read of each document (``docs/outline.md``)."""

from __future__ import annotations

import argparse
from typing import Sequence

from yakgwan.cli.output import say
from yakgwan.cli.parser import columns
from yakgwan.config import Settings
from yakgwan.core.errors import json_text, one_line
from yakgwan.services.outline import DocOutline, IndexOutline, Label, Reading, Yakgwan, outline_index, page_spans

WIDTH = 100  # columns a 조 list is wrapped to
KEY_WORDS = {"insurer": "outline.key.insurer", "product": "outline.key.product", "product_type": "outline.key.product_type",
             "doc_type": "outline.key.doc_type", "version": "outline.key.version"}
APPENDIX_WORDS = {"table": "outline.kind.table", "law": "outline.kind.law", "glossary": "outline.kind.glossary", "toc": "outline.kind.toc",
                  "section": "outline.kind.section"}
SOURCE_WORDS = {"meta": "outline.from_meta", "printed": "outline.from_printed"}


def cmd_outline(args: argparse.Namespace, settings: Settings) -> int:
    outline = outline_index(settings, args.doc)
    if args.json:
        print(json_text(outline.to_json(settings.language)))
        return 0
    for line in outline_lines(outline, settings.language):
        print(line)
    return 0


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` terminal columns (Hangul counts two). Pure."""
    return text + " " * max(0, width - columns(text))


def table(rows: Sequence[Sequence[str]], indent: str) -> list[str]:
    """``rows`` as aligned columns (the last one unpadded), each line indented. Pure."""
    if not rows:
        return []
    widths = [max(columns(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return [(indent + "  ".join([*(pad(c, w) for c, w in zip(r, widths)), r[-1]])).rstrip() for r in rows]


def wrap_items(items: Sequence[str], width: int, indent: str, sep: str = " · ") -> list[str]:
    """``items`` joined by ``sep`` into lines of at most ``width`` columns, broken only between
    items (one longer than that stays whole on its own line), each line indented. Pure."""
    lines: list[str] = []
    line = ""
    for item in items:
        if line and columns(indent + line + sep + item) > width:
            lines.append(indent + line)
            line = item
        else:
            line = f"{line}{sep}{item}" if line else item
    return [*lines, indent + line] if line else lines


def pages_of(first: int | None, last: int | None) -> str:
    return "" if first is None else f"p.{first}" if first == last else f"p.{first}–{last}"


def label_text(label: Label | None, lang: str) -> str:
    if label is None:
        return say(lang, "outline.not_found")
    where = f", {one_line(label.where)[:60]}" if label.where else ""
    return f"{label.value}  ({say(lang, SOURCE_WORDS[label.source])}{where})"


def yakgwan_lines(entries: Sequence[Yakgwan], lang: str) -> list[str]:
    lines = [f"  {say(lang, 'outline.yakgwan', n=len(entries))}"]
    rows = [(y.name or say(lang, "outline.unnamed"), pages_of(y.first_page, y.last_page), say(lang, "outline.articles", n=len(y.articles)))
            for y in entries]
    for y, line in zip(entries, table(rows, "    ")):
        lines.append(line)
        lines += wrap_items([" ".join(x for x in (a.article, a.title) if x) for a in y.articles], WIDTH, "        ")
    return lines


def appendix_lines(d: DocOutline, lang: str) -> list[str]:
    if not d.appendices:
        return [f"  {say(lang, 'outline.no_appendices')}"]
    rows = [(say(lang, APPENDIX_WORDS[a.kind]), a.title or a.yakgwan or "", pages_of(a.first_page, a.last_page),
             " · ".join(filter(None, (a.yakgwan if a.title else None, say(lang, "outline.chunks", n=a.chunks) if a.chunks else None, ", ".join(a.items)))))
            for a in d.appendices]
    return [f"  {say(lang, 'outline.appendices', n=len(d.appendices))}", *table(rows, "    ")]


def reading_lines(r: Reading, lang: str) -> list[str]:
    lines = [say(lang, "outline.pages", total=r.total)] if r.total else []  # a text file has no pages
    if r.ocr:
        how = f" ({say(lang, 'outline.ocr_how', engine=r.ocr_engine or '?', confidence=f'{r.ocr_confidence:.1f}')})" if r.ocr_confidence is not None else ""
        lines.append(say(lang, "outline.ocr", pages=page_spans(r.ocr)) + how)
    else:
        lines.append(say(lang, "outline.all_text"))
    for key, pages in (("outline.unread", r.unread), ("outline.textless", r.textless), ("outline.uncovered", r.uncovered)):
        if pages:
            lines.append(say(lang, key, pages=page_spans(pages)))
    return [f"  {line}" for line in lines]


def document_lines(d: DocOutline, lang: str) -> list[str]:
    identity = table([(say(lang, KEY_WORDS[k]), label_text(v, lang)) for k, v in d.identity], "  ")
    warnings = d.warnings_in(lang)
    said = [f"  {say(lang, 'outline.warnings', n=len(warnings))}", *(f"    - {one_line(w)}" for w in warnings)] if warnings else [
        f"  {say(lang, 'outline.no_warnings')}"]
    return [say(lang, "outline.doc", name=one_line(d.name), kind=d.kind, pages=d.pages.total, chunks=d.chunks), *identity,
            *yakgwan_lines(d.yakgwan, lang), *appendix_lines(d, lang), *reading_lines(d.pages, lang), *said]


def outline_lines(o: IndexOutline, lang: str) -> list[str]:
    """The outline as the command line prints it, in ``lang``. Pure."""
    lines = [say(lang, "outline.index", where=o.index, n=len(o.documents))]
    for d in o.documents:
        lines += ["", *document_lines(d, lang)]
    return lines
