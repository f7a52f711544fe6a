"""HTML files: visible text only, headings kept as Markdown headers, tables as pipe rows."""

from __future__ import annotations

import re
from pathlib import Path

from bs4.element import CData, NavigableString, Tag

from yakgwan.messages import msg
from yakgwan.core.errors import InputError
from yakgwan.ingest.loaders.text import doc_type_of, read_decoded, relative_id
from yakgwan.core.records import Document, sha256_hex

_BLOCK = {"p", "div", "li", "br", "section", "article", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote"}
_HEADING = re.compile(r"h([1-6])")
_TEXT = (NavigableString, CData)  # what get_text() reads: not comments, doctypes or declarations
# containers nested deeper than this are no document (real pages nest tens deep; a file of
# nested <div> built to stall a parser nests tens of thousands)
MAX_NESTING = 2_000
_CONTAINER = re.compile(r"<(/?)(div|section|article|blockquote|table|ul|ol|main|nav|aside|header|footer)\b[^>]*?(/?)>", re.IGNORECASE)


class HtmlLoader:
    def load(self, path: Path, root: Path) -> list[Document]:
        data, raw = read_decoded(path)
        if (deepest := container_depth(raw)) > MAX_NESTING:  # refused before a parser builds the tree (GBs for a 50 MB file)
            raise InputError(str(path), msg("load.html_nesting", depth=f"{deepest:,}", limit=MAX_NESTING))
        from bs4 import BeautifulSoup

        soup = BeautifulSoup(raw, "html.parser")
        for tag in soup(["script", "style", "noscript", "template", "head"]):
            if tag.name != "head":
                tag.decompose()
        title_tag = soup.find("title")
        title = title_tag.get_text(strip=True) if title_tag else ""
        if title_tag:
            title_tag.decompose()
        text = html_to_text(soup)
        if not text.strip():
            raise InputError(str(path), msg("load.html_no_text"))
        return [
            Document(
                doc_id=relative_id(path, root),
                source=relative_id(path, root),
                title=title or next((ln.lstrip("# ") for ln in text.splitlines() if ln.strip()), path.stem),
                text=text,
                kind="html",
                content_hash=sha256_hex(data),
                doc_type=doc_type_of(path, root),
            )
        ]


def container_depth(raw: str) -> int:
    """How deep the elements that HTML never closes implicitly (div, section, table, lists…)
    nest in ``raw``, read from the tags alone, in one pass (pure)."""
    depth = deepest = 0
    for m in _CONTAINER.finditer(raw):
        if m.group(1):
            depth = max(0, depth - 1)
        elif not m.group(3):
            depth += 1
            deepest = max(deepest, depth)
    return deepest


def html_to_text(soup) -> str:  # type: ignore[no-untyped-def]
    """The visible text of a parsed document in one walk over its tree (time linear in its size,
    however deep it nests: the parser nests every unclosed <p> and <li> in the one before): a
    heading ``hN`` as a Markdown header line, a table row as a pipe row, a block element on lines
    of its own, runs of blank lines as one."""
    pieces: list[str] = []
    stack: list[tuple[object, bool]] = [(child, False) for child in reversed(soup.contents)]
    while stack:
        node, closing = stack.pop()
        if closing:  # the element's subtree is done
            pieces.append("\n\n" if _HEADING.fullmatch(node.name) else "\n")  # type: ignore[attr-defined]
            continue
        if isinstance(node, NavigableString):
            if type(node) in _TEXT:
                pieces.append(str(node))
            continue
        if not isinstance(node, Tag):
            continue
        if node.name == "tr":
            cells = [c.get_text(" ", strip=True) for c in node.find_all(["td", "th"])]
            pieces.append("\n| " + " | ".join(cells) + " |\n")
            continue
        if node.name in _BLOCK:
            if node.name != "br" and pieces and not pieces[-1].endswith("\n"):
                pieces.append("\n")  # a block starts a line: "앞<div>블록" is two words, not 앞블록
            if (heading := _HEADING.fullmatch(node.name)) is not None:
                pieces.append("#" * int(heading.group(1)) + " ")
            stack.append((node, True))
        stack.extend((child, False) for child in reversed(node.contents))
    lines = [" ".join(line.split()) for line in "".join(pieces).splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()
