"""The loader registry: file suffix → loader, each with the check of the file's content that
must pass before its parser runs.

Loaders import lazily (a parser library loads only for a file that needs it).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from yakgwan.core.protocols import Loader
from yakgwan.core.registry import Registry

PageProgress = Callable[[int, int], None]  # (pages done, pages to do) of a long read (OCR)


def _pdf(progress: PageProgress | None = None) -> Loader:
    from yakgwan.ingest.loaders.pdf import PdfLoader

    return PdfLoader(on_ocr_page=progress)


def _markdown(progress: PageProgress | None = None) -> Loader:
    from yakgwan.ingest.loaders.text import MarkdownLoader

    return MarkdownLoader()


def _text(progress: PageProgress | None = None) -> Loader:
    from yakgwan.ingest.loaders.text import TextLoader

    return TextLoader()


def _docx(progress: PageProgress | None = None) -> Loader:
    from yakgwan.ingest.loaders.docx import DocxLoader

    return DocxLoader()


def _html(progress: PageProgress | None = None) -> Loader:
    from yakgwan.ingest.loaders.html import HtmlLoader

    return HtmlLoader()


def _beir(progress: PageProgress | None = None) -> Loader:
    from yakgwan.ingest.loaders.beir import BeirCorpusLoader

    return BeirCorpusLoader()


def _any_content(path: Path, head: bytes) -> str | None:
    return None


def _pdf_content(path: Path, head: bytes) -> str | None:
    return None if head.lstrip().startswith(b"%PDF") else "not a PDF (the content does not start with %PDF)"


def _docx_content(path: Path, head: bytes) -> str | None:
    return None if head.startswith(b"PK") else "not a .docx file (not a ZIP container)"


def _beir_content(path: Path, head: bytes) -> str | None:
    from yakgwan.ingest.loaders.beir import is_beir_corpus

    return None if is_beir_corpus(path) else "a .jsonl file is read only as a BEIR corpus (rows with '_id' and 'text')"


@dataclass(frozen=True)
class LoaderEntry:
    """``make(progress)`` builds the loader (``progress`` hears of pages read slowly, by OCR;
    loaders that read nothing slowly ignore it); ``check(path, first 8 bytes)`` says why the
    content is not of this type (None when it is)."""

    make: Callable[[PageProgress | None], Loader]
    check: Callable[[Path, bytes], str | None] = _any_content


LOADERS: Registry[LoaderEntry] = Registry("loader")
LOADERS.register(".pdf", LoaderEntry(_pdf, _pdf_content))
LOADERS.register(".md", LoaderEntry(_markdown))
LOADERS.register(".markdown", LoaderEntry(_markdown))
LOADERS.register(".txt", LoaderEntry(_text))
LOADERS.register(".text", LoaderEntry(_text))
LOADERS.register(".docx", LoaderEntry(_docx, _docx_content))
LOADERS.register(".html", LoaderEntry(_html))
LOADERS.register(".htm", LoaderEntry(_html))
LOADERS.register(".jsonl", LoaderEntry(_beir, _beir_content))
