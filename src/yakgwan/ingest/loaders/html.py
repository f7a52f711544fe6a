"""HTML files: visible text only, headings kept as Markdown headers, tables as pipe rows."""

from __future__ import annotations

from pathlib import Path

from yakgwan.core.errors import InputError
from yakgwan.ingest.loaders.text import doc_type_of, read_decoded, relative_id
from yakgwan.core.records import Document, sha256_hex

_BLOCK = {"p", "div", "li", "br", "section", "article", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote"}


class HtmlLoader:
    def load(self, path: Path, root: Path) -> list[Document]:
        data, raw = read_decoded(path)
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
            raise InputError(str(path), "no visible text in HTML")
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


def html_to_text(soup) -> str:  # type: ignore[no-untyped-def]
    for level in range(1, 7):
        for h in soup.find_all(f"h{level}"):
            h.insert_before("\n" + "#" * level + " ")
            h.insert_after("\n")
    for row in soup.find_all("tr"):
        cells = [c.get_text(" ", strip=True) for c in row.find_all(["td", "th"])]
        row.replace_with("\n| " + " | ".join(cells) + " |\n")
    for tag in soup.find_all(_BLOCK):
        tag.insert_after("\n")
    lines = [" ".join(line.split()) for line in soup.get_text().splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip()
