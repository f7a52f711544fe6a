"""Word documents are ZIP archives: what one may expand to is read from its central directory
before any parser opens it, by the command line's reader and the server's upload alike.

A 1 MB archive can hold gigabytes of XML; python-docx would expand it all (and libxml2 stop at
its own limit, late). The bounds: the whole archive at most ``MAX_UNZIPPED_BYTES`` and at most
``MAX_ZIP_RATIO`` times its size, at most ``MAX_ZIP_ENTRIES`` entries, the body
(``word/document.xml``) at most ``MAX_DOCUMENT_XML``. Reading the directory expands nothing.

The directory may lie: an entry that says it expands to 4 KB while its compressed data holds a
gigabyte of XML passes those bounds, and a reader that asks for the whole entry (python-docx
does) decompresses all of it before the checksum fails. Compression never makes data much larger
(deflate's stored blocks add 5 bytes a 64 KB block), so an entry whose compressed size is larger
than its stated size plus that overhead states a false size, and is refused as a bomb.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from yakgwan.messages import Message, msg

MAX_UNZIPPED_BYTES = 200 * 1024 * 1024
MAX_ZIP_RATIO = 100
MAX_ZIP_ENTRIES = 5000
MAX_DOCUMENT_XML = 50 * 1024 * 1024
BODY = "word/document.xml"


@dataclass(frozen=True)
class ArchiveVerdict:
    """Why an archive is not read: ``bomb`` when expanding it would pass a bound, else it is no
    Word document (damaged, or a ZIP without a body)."""

    message: Message
    bomb: bool


def _understated(info: zipfile.ZipInfo) -> bool:
    """Whether ``info``'s stated expanded size is smaller than its compressed data can be:
    more than the stored-block overhead of deflate (5 bytes a 64 KB block) and a small header."""
    return info.compress_size > info.file_size + 5 * (info.file_size // 65535 + 1) + 64


def docx_verdict(source: str | Path | IO[bytes], size: int, shown: str) -> ArchiveVerdict | None:
    """None when ``source`` (a path or an open binary file of ``size`` bytes) is a Word document
    within the bounds; else what is wrong with it, naming the file as ``shown``."""
    try:
        with zipfile.ZipFile(source) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, EOFError):
        return ArchiveVerdict(msg("error.zip_damaged", file=shown), bomb=False)
    if len(infos) > MAX_ZIP_ENTRIES:
        return ArchiveVerdict(msg("error.zip_entries", file=shown, count=f"{len(infos):,}", limit=f"{MAX_ZIP_ENTRIES:,}"), bomb=True)
    if lying := next((i for i in infos if _understated(i)), None):
        return ArchiveVerdict(msg("error.zip_forged", file=shown, entry=lying.filename, compressed=f"{lying.compress_size:,}",
                                  declared=f"{lying.file_size:,}"), bomb=True)
    total = sum(i.file_size for i in infos)
    if total > MAX_UNZIPPED_BYTES or total > MAX_ZIP_RATIO * max(size, 1):
        return ArchiveVerdict(msg("error.zip_bomb", file=shown, expanded=f"{total:,}", size=f"{size:,}"), bomb=True)
    body = next((i for i in infos if i.filename == BODY), None)
    if body is None:
        return ArchiveVerdict(msg("error.zip_not_docx", file=shown), bomb=False)
    if body.file_size > MAX_DOCUMENT_XML:
        return ArchiveVerdict(msg("error.docx_too_large", file=shown, size=f"{body.file_size:,}", limit=f"{MAX_DOCUMENT_XML:,}"), bomb=True)
    return None
