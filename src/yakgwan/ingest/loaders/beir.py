"""BEIR ``corpus.jsonl``: one document per row ``{"_id", "title", "text"}``."""

from __future__ import annotations

import json
from pathlib import Path

from yakgwan.messages import msg
from yakgwan.core.errors import InputError
from yakgwan.core.records import Document, sha256_hex


def is_beir_corpus(path: Path) -> bool:
    """A ``.jsonl`` whose first non-empty row has ``_id`` and ``text``."""
    if path.suffix.lower() != ".jsonl" or not path.is_file():
        return False
    with path.open("rb") as fh:
        for raw in fh:
            if raw.strip():
                try:
                    row = json.loads(raw)
                except ValueError:
                    return False
                return isinstance(row, dict) and "_id" in row and "text" in row
    return False


class BeirCorpusLoader:
    def load(self, path: Path, root: Path) -> list[Document]:
        docs: list[Document] = []
        seen: set[str] = set()
        with path.open("rb") as fh:
            for lineno, raw in enumerate(fh, 1):
                if not raw.strip():
                    continue
                try:
                    row = json.loads(raw.decode("utf-8"))
                    doc_id, text = str(row["_id"]), str(row["text"])
                except (ValueError, KeyError, TypeError) as exc:
                    raise InputError(str(path), msg("load.beir_row", line=lineno, why=type(exc).__name__)) from None
                if doc_id in seen:
                    raise InputError(str(path), msg("load.beir_duplicate", line=lineno, id=repr(doc_id)))
                seen.add(doc_id)
                title = str(row.get("title") or "")
                if not text.strip() and not title.strip():
                    continue
                docs.append(
                    Document(
                        doc_id=doc_id,
                        source=doc_id,
                        title=title,
                        text=text,
                        kind="beir",
                        content_hash=sha256_hex(f"{title}\x00{text}"),
                    )
                )
        if not docs:
            raise InputError(str(path), msg("load.beir_empty"))
        return docs
