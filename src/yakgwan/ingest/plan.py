"""Which loaded documents are new, changed, unchanged, or in conflict with the index (pure)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from yakgwan.core.errors import InputError
from yakgwan.core.records import Document
from yakgwan.store import DocRecord


@dataclass
class Plan:
    changed: list[Document] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    conflicts: list[InputError] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)


# how this version reads a document into chunks (its pages' layout, its structure): a document
# indexed by another reading is read again when it is ingested again, though its bytes are the
# same (raised whenever the reader or the chunker changes what a document's chunks are)
READING = 4


def plan_ingest(docs: list[tuple[Document, str]], old: dict[str, DocRecord], sync: bool = False, rechunk: bool = False) -> Plan:
    """Compare loaded ``(document, origin)`` pairs with the index's document records.

    ``origin`` is where a document came from (the resolved file path, plus ``#_id`` for a BEIR
    row). The same origin keeps its existing document id however the path was typed; a
    different origin under an existing id is a conflict (reported, not ingested), so one file
    never silently replaces another. With ``sync``, indexed documents missing from ``docs``
    are removed (evaluation corpora are mirrored exactly). With ``rechunk``, unchanged documents
    are chunked again too (the ingest steps changed); so is a document an older reading indexed
    (``READING``).
    """
    plan = Plan()
    by_origin = {rec.origin: rec.doc_id for rec in old.values() if rec.origin}
    for doc, origin in docs:
        known = by_origin.get(origin)
        if known is not None and known != doc.doc_id:
            doc = dataclasses.replace(doc, doc_id=known, source=old[known].source)
        prev = old.get(doc.doc_id)
        if prev is not None and prev.origin and prev.origin != origin:
            plan.conflicts.append(
                InputError(origin, f"another file ({prev.origin}) is already indexed as {doc.doc_id!r}; use a separate --index or ingest from a common parent folder")
            )
            continue
        plan.origins[doc.doc_id] = origin
        if prev is not None and prev.content_hash == doc.content_hash and prev.reading.get("version") == READING and not rechunk:
            plan.unchanged.append(doc.doc_id)
            continue
        (plan.replaced if prev is not None else plan.added).append(doc.doc_id)
        plan.changed.append(doc)
    if sync:
        seen = set(plan.origins)
        plan.removed = sorted(d for d in old if d not in seen)
    return plan
