"""``outline``: what an index read of each document, so that a user can check it was understood.

Per document: its identity (insurer, product, product type, document type, version: as set at
ingest, else as printed, with the page), each 약관 in document order (보통약관 and every 특별약관
by its exact name) with its pages and its 조, the appendices (별표 tables, appended statutes,
용어풀이, 목차, other headed sections after the 약관), how its pages were read (OCR, not read,
blank, none of it indexed) and the ingest's warnings. Computed from the chunks and the
``DocRecord``, nothing read again; the rules are in ``docs/outline.md``. The JSON
(:meth:`IndexOutline.to_json`) is a documented contract (``SCHEMA``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from yakgwan.config import Settings
from yakgwan.core.errors import InputError
from yakgwan.core.location import display_location
from yakgwan.core.records import Chunk
from yakgwan.messages import msg, render_said
from yakgwan.services.context import open_store
from yakgwan.store import DocRecord

SCHEMA = "yakgwan.outline/1"
IDENTITY_KEYS = ("insurer", "product", "product_type", "doc_type", "version")
BASE = "보통약관"
# chunk kinds that are an appendix of their own, not the text of the 약관 they follow
APPENDIX_KINDS = ("table", "law", "toc")
SHOWN_HELD = 20  # documents an unknown --doc's error lists


@dataclass(frozen=True)
class Label:
    """One identity value: as set at ingest (``source`` "meta") or as the document prints it
    ("printed", ``where`` the page and line)."""

    value: str
    source: str
    where: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "source": self.source, "where": self.where}


@dataclass(frozen=True)
class Article:
    """A 조 of a 약관: its number ("제3조"), title, 관 and the pages its text lies on."""

    article: str
    title: str | None
    part: str | None
    first_page: int | None
    last_page: int | None

    def to_json(self) -> dict[str, Any]:
        return {"article": self.article, "title": self.title, "part": self.part, "first_page": self.first_page, "last_page": self.last_page}


@dataclass(frozen=True)
class Yakgwan:
    """One 약관 of a document: ``name`` is 보통약관 or the 특별약관's exact name, None for 조 that
    stand under no 약관 title (``kind`` "base", "rider" or "unnamed")."""

    name: str | None
    kind: str
    first_page: int | None
    last_page: int | None
    articles: tuple[Article, ...]

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "first_page": self.first_page, "last_page": self.last_page,
                "articles": [a.to_json() for a in self.articles]}


@dataclass(frozen=True)
class Appendix:
    """What follows or accompanies the 약관: a 별표 table ("table"), an appended statute ("law",
    ``title`` its name), the 용어풀이 ("glossary", ``items`` its terms or headings), the 목차
    ("toc") or another headed section with no 약관 ("section": 부록, 약관에서 인용된 법령 …).
    ``yakgwan``: the 약관 it serves (a table's, the one printed before it; a glossary's, its own)."""

    kind: str
    title: str | None
    yakgwan: str | None
    first_page: int | None
    last_page: int | None
    chunks: int
    items: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "title": self.title, "yakgwan": self.yakgwan, "first_page": self.first_page, "last_page": self.last_page,
                "chunks": self.chunks, "items": list(self.items)}


@dataclass(frozen=True)
class Reading:
    """How the pages were read: ``uncovered`` are the pages that no chunk lies on, other than
    those not read, blank or of the 목차."""

    total: int
    ocr: tuple[int, ...] = ()
    unread: tuple[int, ...] = ()
    textless: tuple[int, ...] = ()
    uncovered: tuple[int, ...] = ()
    ocr_engine: str | None = None
    ocr_confidence: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "ocr": list(self.ocr), "unread": list(self.unread), "textless": list(self.textless),
                "uncovered": list(self.uncovered), "ocr_engine": self.ocr_engine, "ocr_confidence": self.ocr_confidence}


@dataclass(frozen=True)
class DocOutline:
    """The outline of one document. ``name`` is how the reader knows the file (its source, or the
    name it was uploaded with); ``warnings`` are kept as the ingest kept them (tagged messages)."""

    doc_id: str
    name: str
    source: str
    title: str
    kind: str
    chunks: int
    identity: tuple[tuple[str, Label | None], ...]
    pages: Reading
    yakgwan: tuple[Yakgwan, ...]
    appendices: tuple[Appendix, ...]
    warnings: tuple[object, ...] = ()

    def label(self, key: str) -> Label | None:
        return dict(self.identity).get(key)

    def warnings_in(self, lang: str) -> list[str]:
        """The ingest's warnings said in ``lang``, naming the file as the reader knows it."""
        said = [str(render_said(w, lang)) for w in self.warnings]
        return [w.replace(self.source, self.name) for w in said] if self.name != self.source else said

    def to_json(self, lang: str) -> dict[str, Any]:
        """The document's object of ``outline --json``, its warnings in ``lang``."""
        return {
            "doc": self.doc_id, "name": self.name, "source": self.source, "title": self.title, "kind": self.kind, "chunks": self.chunks,
            "identity": {k: (v.to_json() if v is not None else None) for k, v in self.identity},
            "pages": self.pages.to_json(),
            "yakgwan": [y.to_json() for y in self.yakgwan],
            "appendices": [a.to_json() for a in self.appendices],
            "warnings": self.warnings_in(lang),
        }


@dataclass(frozen=True)
class IndexOutline:
    """The outline of every document an index holds (or of the one asked for), by document id."""

    index: str
    documents: tuple[DocOutline, ...]

    def to_json(self, lang: str) -> dict[str, Any]:
        """The ``outline --json`` object (``docs/outline.md``), its warnings in ``lang``."""
        return {"schema": SCHEMA, "index": self.index, "documents": [d.to_json(lang) for d in self.documents]}


def page_range(chunks: Iterable[Chunk]) -> tuple[int | None, int | None]:
    """The first and last page the chunks lie on; (None, None) without pages. Pure."""
    pages = [p for c in chunks for p in c.pages]
    return (min(pages), max(pages)) if pages else (None, None)


def yakgwan_kind(name: str | None) -> str:
    return "unnamed" if name is None else "base" if name == BASE else "rider"


def is_appendix(c: Chunk) -> bool:
    """A chunk that belongs to an appendix, not to the text of a 약관: a 별표 table, a statute, the
    용어풀이 (or a 【용어】 box outside any 조), the 목차, or a headed section under no 약관. Pure."""
    if c.kind in APPENDIX_KINDS or (c.kind == "definition" and c.article is None):
        return True
    return c.kind == "text" and c.yakgwan is None and c.article is None and c.section is not None


def yakgwan_entries(chunks: Sequence[Chunk]) -> tuple[Yakgwan, ...]:
    """The 약관 of one document's chunks in document order, each once, with its pages and its 조
    in document order, each once (a 조 printed twice is one entry spanning both). A 약관's pages
    are those of its own text: its 별표 tables are appendices. Chunks under no 약관 count only
    where they are 조 (the unnamed 약관). Pure."""
    groups: dict[str | None, list[Chunk]] = {}
    for c in sorted(chunks, key=lambda c: c.start):
        if is_appendix(c) or (c.yakgwan is None and c.article is None):
            continue
        groups.setdefault(c.yakgwan, []).append(c)
    out = []
    for name, members in groups.items():
        articles: dict[str, list[Chunk]] = {}
        for c in members:
            if c.article:
                articles.setdefault(c.article, []).append(c)
        entries = tuple(Article(a, next((c.article_title for c in cs if c.article_title), None), next((c.part for c in cs if c.part), None),
                                *page_range(cs)) for a, cs in articles.items())
        out.append(Yakgwan(name, yakgwan_kind(name), *page_range(members), entries))
    return tuple(out)


def appendix_kind(c: Chunk) -> str:
    """The kind of appendix an appendix chunk (``is_appendix``) belongs to. Pure."""
    return "glossary" if c.kind == "definition" else c.kind if c.kind in APPENDIX_KINDS else "section"


def appendix_entries(chunks: Sequence[Chunk], toc_pages: Sequence[int] = ()) -> tuple[Appendix, ...]:
    """The appendices of one document's chunks in page order: one per kind, heading and 약관 (a
    별표 of the same heading in two 특약 is two), the 용어풀이 one per 약관 with its terms listed,
    a statute one per name (its 조 under no heading of their own continue the statute before
    them). A 목차 the index did not keep as chunks comes from ``toc_pages``
    (``DocRecord.reading``). Pure."""
    groups: dict[tuple[str, str | None, str | None], list[Chunk]] = {}
    statute: str | None = None
    for c in sorted(chunks, key=lambda c: c.start):
        if not is_appendix(c):
            continue
        kind = appendix_kind(c)
        if kind == "law":
            statute = c.section or statute
        key = (kind, None, c.yakgwan) if kind == "glossary" else (kind, statute, None) if kind == "law" else (kind, c.section, c.yakgwan or c.follows)
        groups.setdefault(key, []).append(c)
    out = []
    for (kind, title, yakgwan), cs in groups.items():
        items: tuple[str, ...] = ()
        if kind == "glossary":
            items = tuple(dict.fromkeys(c.section for c in cs if c.section))
            title = items[0] if len(items) == 1 else None
        out.append(Appendix(kind, title, yakgwan, *page_range(cs), len(cs), items))
    if toc_pages and not any(a.kind == "toc" for a in out):
        out.append(Appendix("toc", None, None, min(toc_pages), max(toc_pages), 0))
    never = 1 << 30
    return tuple(sorted(out, key=lambda a: a.first_page if a.first_page is not None else never))


def identity(rec: DocRecord) -> tuple[tuple[str, Label | None], ...]:
    """The document's identity values (``IDENTITY_KEYS``), each as set at ingest or as printed. Pure."""
    out: list[tuple[str, Label | None]] = []
    for key in IDENTITY_KEYS:
        if rec.meta.get(key):
            out.append((key, Label(rec.meta[key], "meta")))
        elif rec.printed.get(key):
            out.append((key, Label(rec.printed[key], "printed", rec.printed_from.get(key))))
        else:
            out.append((key, None))
    return tuple(out)


def _pages(value: object) -> tuple[int, ...]:
    return tuple(sorted(int(p) for p in value)) if isinstance(value, (list, tuple)) else ()


def reading(rec: DocRecord, chunks: Sequence[Chunk]) -> Reading:
    """How ``rec``'s pages were read (an index built before ``DocRecord.reading`` was kept gives
    its page count and the pages no chunk covers). Pure."""
    r = rec.reading
    total = r.get("total_pages")
    total = int(total) if isinstance(total, (int, float)) else rec.n_pages
    covered = {p for c in chunks for p in c.pages}
    textless, toc = _pages(r.get("textless_pages")), _pages(r.get("toc_pages"))
    unread = _pages(r.get("unread_pages"))
    skipped = covered | set(textless) | set(toc) | set(unread)
    uncovered = tuple(p for p in range(1, total + 1) if p not in skipped) if covered else ()
    engine = r.get("ocr_engine")
    confidence = r.get("ocr_confidence")
    return Reading(total, _pages(r.get("ocr_pages")), unread, textless, uncovered,
                   str(engine) if engine else None, float(confidence) if isinstance(confidence, (int, float)) else None)


def document_outline(rec: DocRecord, chunks: Sequence[Chunk], name: str | None = None) -> DocOutline:
    """The outline of the document ``rec`` from its chunks; ``name``: how the reader knows the
    file (default: its source). Pure."""
    warnings = rec.reading.get("warnings")
    return DocOutline(rec.doc_id, name or rec.source, rec.source, rec.title, rec.kind, len(chunks), identity(rec), reading(rec, chunks),
                      yakgwan_entries(chunks), appendix_entries(chunks, _pages(rec.reading.get("toc_pages"))),
                      tuple(warnings) if isinstance(warnings, list) else ())


def pick_documents(docs: Mapping[str, DocRecord], wanted: str | None, names: Mapping[str, str] | None = None) -> list[str]:
    """The ids of the documents an outline shows: all of them, or the one ``wanted`` names by its
    id, by the name it was uploaded with, or by its file name when only one document has it.
    ``InputError`` naming it and listing the documents held when none does. Pure."""
    names = names or {}
    if wanted is None:
        return sorted(docs)
    if wanted in docs:
        return [wanted]
    for how in (lambda d: names.get(d) == wanted, lambda d: d.rsplit("/", 1)[-1] == wanted.rsplit("/", 1)[-1]):
        found = [d for d in sorted(docs) if how(d)]
        if len(found) == 1:
            return found
    held = [names.get(d, d) for d in sorted(docs)]
    listed = ", ".join(held[:SHOWN_HELD]) + (f" … ({len(held)})" if len(held) > SHOWN_HELD else "")
    raise InputError(None, msg("outline.unknown_doc", doc=repr(wanted), held=listed or msg("outline.held_none")))


def outline_of(index: str, chunks: Sequence[Chunk], docs: Mapping[str, DocRecord], wanted: str | None = None,
               names: Mapping[str, str] | None = None) -> IndexOutline:
    """The outline of the documents ``docs`` (all, or the one ``wanted`` names: ``pick_documents``)
    from the index's ``chunks``; ``names``: document id → the name it was uploaded with. Pure."""
    picked = pick_documents(docs, wanted, names)
    by_doc: dict[str, list[Chunk]] = {d: [] for d in picked}
    for c in chunks:
        if c.doc_id in by_doc:
            by_doc[c.doc_id].append(c)
    return IndexOutline(index, tuple(document_outline(docs[d], by_doc[d], (names or {}).get(d)) for d in picked))


def outline_index(settings: Settings, doc: str | None = None, names: Mapping[str, str] | None = None) -> IndexOutline:
    """The outline of the index at ``settings.index_dir`` (``IndexStoreError`` naming it when there
    is none; ``InputError`` when ``doc`` names no document of it); ``names``: as ``outline_of``."""
    data = open_store(settings.index_dir).read()
    return outline_of(display_location(settings.index_dir), data.chunks, data.docs, doc, names)


def page_spans(pages: Iterable[int]) -> str:
    """Pages as runs: (1, 2, 3, 5, 7, 8) → "1–3, 5, 7–8"; "" for none. Pure."""
    runs: list[list[int]] = []
    for p in sorted(set(pages)):
        if runs and p == runs[-1][1] + 1:
            runs[-1][1] = p
        else:
            runs.append([p, p])
    return ", ".join(str(a) if a == b else f"{a}–{b}" for a, b in runs)
