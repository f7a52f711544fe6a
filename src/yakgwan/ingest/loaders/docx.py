"""Word .docx files: paragraphs in order, headings as Markdown headers, tables as pipe rows."""

from __future__ import annotations

import zipfile
from pathlib import Path

from yakgwan.messages import msg
from yakgwan.core.errors import InputError
from yakgwan.ingest.loaders.archive import docx_verdict
from yakgwan.ingest.loaders.text import doc_type_of, relative_id
from yakgwan.core.records import Document, sha256_hex


class DocxLoader:
    def load(self, path: Path, root: Path) -> list[Document]:
        data = path.read_bytes()
        if not data:
            raise InputError(str(path), msg("load.empty"))
        if not zipfile.is_zipfile(path):
            raise InputError(str(path), msg("load.not_docx"))
        verdict = docx_verdict(path, len(data), path.name)  # the same bounds as an upload's, before python-docx expands it
        if verdict is not None:
            raise InputError(str(path), verdict.message)
        try:
            import docx  # python-docx

            document = docx.Document(str(path))
        except Exception as exc:  # python-docx raises several unrelated types on bad files
            raise InputError(str(path), msg("load.docx_unreadable", why=f"{type(exc).__name__}: {exc}")) from None
        lines = list(_blocks(document))
        text = "\n".join(lines).strip()
        if not text:
            raise InputError(str(path), msg("load.docx_no_text"))
        title = (document.core_properties.title or "").strip() or next(
            (ln.lstrip("# ").strip() for ln in lines if ln.strip()), path.stem
        )
        return [
            Document(
                doc_id=relative_id(path, root),
                source=relative_id(path, root),
                title=title,
                text=text,
                kind="docx",
                content_hash=sha256_hex(data),
                doc_type=doc_type_of(path, root),
            )
        ]


def _blocks(document):  # type: ignore[no-untyped-def]
    """Paragraphs and tables in body order."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    for child in document.element.body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "p":
            para = Paragraph(child, document)
            text = para.text.strip()
            if not text:
                continue
            style = (para.style.name or "") if para.style is not None else ""
            if style.startswith("Heading") and style[7:].strip().isdigit():
                text = "#" * min(6, int(style[7:].strip())) + " " + text
            yield text
        elif tag == "tbl":
            table = Table(child, document)
            for row in table.rows:
                cells = [c.text.strip().replace("\n", " ") for c in row.cells]
                yield "| " + " | ".join(cells) + " |"
            yield ""
