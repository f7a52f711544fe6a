"""Files to ingest: folders expanded, each file checked (type, size, content) and read by the
loader its suffix names in ``loaders.registry``."""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from yakgwan.messages import Message, msg
from yakgwan.core.errors import InputError
from yakgwan.core.records import Document
from yakgwan.ingest.loaders.registry import LOADERS, PageProgress

DEFAULT_MAX_BYTES = 100 * 1024 * 1024


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
            raise InputError(str(p), not_a_file_reason(p) if p.is_symlink() else msg("load.no_such_file"))
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                rel = f.relative_to(p).parts
                if any(part.startswith(".") for part in rel) or f.is_dir():
                    continue
                if not f.is_file():  # a broken link, a link loop, a socket: listed, never skipped in silence
                    problems.append(InputError(str(f), not_a_file_reason(f)))
                elif f.suffix.lower() in LOADERS:
                    files.append(SourceFile(f, p))
                else:
                    problems.append(InputError(str(f), unsupported_reason(f)))
        else:
            files.append(SourceFile(p, p.parent))
    return files, problems


def not_a_file_reason(path: Path) -> Message:
    """Why ``path`` cannot be read as a file, in words: missing (deleted or moved), a symbolic
    link to nothing or to itself, a folder, or something else than a regular file."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return msg("load.link_loop")
        if exc.errno == errno.ENOENT:
            return msg("load.link_missing") if path.is_symlink() else msg("load.deleted")
        return msg("load.cannot_read", why=str(exc.strerror or exc))
    if stat.S_ISDIR(st.st_mode):
        return msg("load.folder")
    return msg("load.not_regular")


def unsupported_reason(path: Path) -> Message:
    return msg("load.unsupported", suffix=repr(path.suffix) if path.suffix else msg("load.no_extension"), supported=", ".join(sorted(LOADERS.names())))


def load_file(src: SourceFile, max_bytes: int = DEFAULT_MAX_BYTES, progress: PageProgress | None = None) -> list[Document]:
    """Load one file or raise ``InputError`` naming it and the reason; ``progress(done, total)``
    hears of pages read by OCR."""
    path = src.path
    if not path.is_file():
        raise InputError(str(path), not_a_file_reason(path))
    suffix = path.suffix.lower()
    if suffix not in LOADERS:
        raise InputError(str(path), unsupported_reason(path))
    size = path.stat().st_size
    if size == 0:
        raise InputError(str(path), msg("load.empty"))
    if size > max_bytes:
        raise InputError(str(path), msg("load.too_large", size=f"{size / 2**20:.1f}", limit=f"{max_bytes / 2**20:.0f}"))
    entry = LOADERS.get(suffix)
    with path.open("rb") as fh:
        head = fh.read(8)
    wrong_content = entry.check(path, head)
    if wrong_content:
        raise InputError(str(path), wrong_content)
    try:
        return entry.make(progress).load(path, src.root)
    except InputError:
        raise
    except (OSError, MemoryError) as exc:
        raise InputError(str(path), msg("load.cannot_read", why=f"{exc.__class__.__name__}: {exc}")) from None
