"""Loader registry: file suffix → loader, with content checks before any parser runs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from yakgwan.core.errors import InputError
from yakgwan.core.protocols import Loader
from yakgwan.core.records import Document

DEFAULT_MAX_BYTES = 100 * 1024 * 1024


def _pdf() -> Loader:
    from yakgwan.loaders.pdf import PdfLoader

    return PdfLoader()


def _markdown() -> Loader:
    from yakgwan.loaders.text import MarkdownLoader

    return MarkdownLoader()


def _text() -> Loader:
    from yakgwan.loaders.text import TextLoader

    return TextLoader()


def _docx() -> Loader:
    from yakgwan.loaders.docx import DocxLoader

    return DocxLoader()


def _html() -> Loader:
    from yakgwan.loaders.html import HtmlLoader

    return HtmlLoader()


def _beir() -> Loader:
    from yakgwan.loaders.beir import BeirCorpusLoader

    return BeirCorpusLoader()


LOADERS: dict[str, Callable[[], Loader]] = {
    ".pdf": _pdf,
    ".md": _markdown,
    ".markdown": _markdown,
    ".txt": _text,
    ".text": _text,
    ".docx": _docx,
    ".html": _html,
    ".htm": _html,
    ".jsonl": _beir,
}


@dataclass(frozen=True)
class SourceFile:
    """A file to ingest and the root its document ids are relative to."""

    path: Path
    root: Path


def collect_files(paths: list[Path]) -> tuple[list[SourceFile], list[InputError]]:
    """Expand folders (recursively, skipping hidden entries). A path that does not exist is an
    error; files inside folders with an unsupported suffix are reported, not fatal."""
    files: list[SourceFile] = []
    problems: list[InputError] = []
    for p in paths:
        if not p.exists():
            raise InputError(str(p), "no such file or directory")
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                rel = f.relative_to(p).parts
                if f.is_file() and not any(part.startswith(".") for part in rel):
                    if f.suffix.lower() in LOADERS:
                        files.append(SourceFile(f, p))
                    else:
                        problems.append(InputError(str(f), unsupported_reason(f)))
        else:
            files.append(SourceFile(p, p.parent))
    return files, problems


def unsupported_reason(path: Path) -> str:
    return f"unsupported file type {path.suffix or '(no extension)'!r}; supported: {', '.join(sorted(LOADERS))}"


def load_file(src: SourceFile, max_bytes: int = DEFAULT_MAX_BYTES) -> list[Document]:
    """Load one file or raise ``InputError`` naming it and the reason."""
    path = src.path
    if not path.is_file():
        raise InputError(str(path), "not a regular file")
    suffix = path.suffix.lower()
    if suffix not in LOADERS:
        raise InputError(str(path), unsupported_reason(path))
    size = path.stat().st_size
    if size == 0:
        raise InputError(str(path), "empty file")
    if size > max_bytes:
        raise InputError(str(path), f"file too large ({size / 2**20:.1f} MiB; the limit is {max_bytes / 2**20:.0f} MiB)")
    with path.open("rb") as fh:
        head = fh.read(8)
    if suffix == ".pdf" and not head.lstrip().startswith(b"%PDF"):
        raise InputError(str(path), "not a PDF (the content does not start with %PDF)")
    if suffix == ".docx" and not head.startswith(b"PK"):
        raise InputError(str(path), "not a .docx file (not a ZIP container)")
    if suffix == ".jsonl":
        from yakgwan.loaders.beir import is_beir_corpus

        if not is_beir_corpus(path):
            raise InputError(str(path), "a .jsonl file is read only as a BEIR corpus (rows with '_id' and 'text')")
    try:
        return LOADERS[suffix]().load(path, src.root)
    except InputError:
        raise
    except (OSError, MemoryError) as exc:
        raise InputError(str(path), f"cannot read: {exc.__class__.__name__}: {exc}") from None
