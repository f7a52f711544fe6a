"""Search inside part of an index: filters on a chunk's 약관 and its document's metadata, and
the view that shows only the chunks they keep.

A filter is ``KEY=VALUE``, ``KEY!=VALUE`` or a comparison ``KEY>=VALUE`` (``>``, ``<=``, ``<``;
text order, so ``version>=2024-01`` works on ISO-like versions). Keys:

    yakgwan    the chunk's 약관 (보통약관 or a 특별약관's exact name)
    doc        the document's id (its file name)
    product    the document's ``product``: set at ingest with ``--meta``, else printed in its
               보통약관 heading (``ingest.printed``), else its title
    insurer    the document's ``insurer``: set at ingest, else as it prints it (``ingest.printed``);
               compared as the company (``text.insurers.canonical``), so insurer=삼성화재 keeps a
               document labelled 삼성화재해상보험주식회사; a name the lexicon does not know is
               compared without its spaces
    product_type, doc_type   the document's kind of insurance (운전자보험) and of document (약관,
               상품요약서 …): set at ingest, else as printed
    version    the document's ``version``: set at ingest, else its printed 판매시기 or 개정일 (2024-01)

Values are compared with runs of whitespace as one space. Several filters all apply. The
restricted view is an ``IndexView`` of its own (rows renumbered); its searches ask the backend
for the kept rows only, so BM25 keeps the whole collection's statistics (as a filter does in a
search engine) and k counts kept chunks.
"""

from __future__ import annotations

import operator
import re
from dataclasses import dataclass
from typing import Callable, Mapping, Sequence

import numpy as np

from yakgwan.messages import msg
from yakgwan.core.errors import InputError
from yakgwan.core.records import Chunk
from yakgwan.store.base import DocRecord, IndexView
from yakgwan.text.insurers import canonical

META_KEYS = ("insurer", "product", "product_type", "doc_type", "version")
KEYS = ("yakgwan", "doc", *META_KEYS)
_OPS: dict[str, Callable[[str, str], bool]] = {
    ">=": operator.ge, "<=": operator.le, "!=": operator.ne, "=": operator.eq, ">": operator.gt, "<": operator.lt,
}
_FILTER = re.compile(r"^\s*([a-z_]+)\s*(>=|<=|!=|=|>|<)\s*(.*?)\s*$", re.S)


def _norm(value: str) -> str:
    return " ".join(value.split())


def insurer_key(name: str) -> str:
    """The form insurer names are compared in: the company's canonical name, else the name
    without spaces. Pure."""
    return canonical(name) or "".join(name.split())


@dataclass(frozen=True)
class Filter:
    key: str
    op: str
    value: str

    @classmethod
    def parse(cls, text: str) -> "Filter":
        """``InputError`` naming the filter and what is wrong with it."""
        m = _FILTER.match(text)
        if not m:
            raise InputError(None, msg("filter.form", text=repr(text), keys=", ".join(KEYS)))
        key, op, value = m.group(1), m.group(2), m.group(3).strip().strip("'\"")
        if key not in KEYS:
            raise InputError(None, msg("filter.unknown_key", text=repr(text), key=repr(key), keys=", ".join(KEYS)))
        if not value:
            raise InputError(None, msg("filter.no_value", text=repr(text)))
        return cls(key, op, _norm(value))

    def value_of(self, chunk: Chunk, doc: DocRecord | None) -> str | None:
        if self.key == "yakgwan":
            return chunk.yakgwan
        if self.key == "doc":
            return chunk.doc_id
        if doc is None:
            return None
        if self.key == "product":
            return doc.label("product") or doc.title
        return doc.label(self.key)

    def keeps(self, chunk: Chunk, doc: DocRecord | None) -> bool:
        have = self.value_of(chunk, doc)
        if have is None:
            return self.op == "!="
        if self.key == "insurer":
            return _OPS[self.op](insurer_key(have), insurer_key(self.value))
        return _OPS[self.op](_norm(have), self.value)

    def __str__(self) -> str:
        return f"{self.key}{self.op}{self.value}"


def parse_filters(texts: Sequence[str]) -> tuple[Filter, ...]:
    return tuple(Filter.parse(t) for t in texts)


def check_meta(meta: Mapping[str, str]) -> dict[str, str]:
    """Document metadata given at ingest: known keys, non-empty values (``InputError`` else)."""
    out = {}
    for key, value in meta.items():
        if key not in META_KEYS:
            raise InputError(None, msg("meta.unknown_key", key=key, value=value, name=repr(key), keys=", ".join(META_KEYS)))
        if not _norm(value):
            raise InputError(None, msg("meta.no_value", key=key))
        out[key] = _norm(value)
    return out


def parse_meta(items: Sequence[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings (``--meta``) as a checked mapping."""
    pairs = {}
    for item in items:
        key, eq, value = item.partition("=")
        if not eq:
            raise InputError(None, msg("meta.form", item=repr(item), keys=", ".join(META_KEYS)))
        pairs[key.strip()] = value
    return check_meta(pairs)


def matching_rows(view: IndexView, filters: Sequence[Filter]) -> np.ndarray:
    """The rows of ``view`` whose chunk every filter keeps, ascending. Pure."""
    docs = view.docs
    return np.array([i for i, c in enumerate(view.chunks) if all(f.keeps(c, docs.get(c.doc_id)) for f in filters)], dtype=np.int64)


def restrict(view: IndexView, filters: Sequence[Filter]) -> IndexView:
    """``view`` itself without filters, else the view of the chunks they keep. ``InputError``
    when they keep none, listing the values the index has for the first filter's key."""
    if not filters:
        return view
    rows = matching_rows(view, filters)
    if rows.size == 0:
        first = filters[0]
        have = sorted({v for c in view.chunks if (v := first.value_of(c, view.docs.get(c.doc_id))) is not None})
        listed = ", ".join(repr(v) for v in have[:12]) + (f" … ({len(have)} in all)" if len(have) > 12 else "")
        raise InputError(None, msg("filter.no_match", filters=" and ".join(map(str, filters)), key=first.key, values=listed or msg("filter.none")))
    return FilteredView(view, rows)


def keep_docs(view: IndexView, doc_ids: Sequence[str]) -> IndexView:
    """The view of the chunks of the documents ``doc_ids`` (``view`` itself when they are all of
    its documents). ``InputError`` when none of them is in ``view``."""
    wanted = set(doc_ids)
    if wanted >= set(view.docs):
        return view
    rows = np.array([i for i, c in enumerate(view.chunks) if c.doc_id in wanted], dtype=np.int64)
    if rows.size == 0:
        raise InputError(None, msg("filter.no_match", filters=" or ".join(f"doc={d}" for d in sorted(wanted)), key="doc",
                                   values=", ".join(repr(d) for d in sorted(view.docs)[:12]) or msg("filter.none")))
    return FilteredView(view, rows)


class FilteredView:
    """The chunks of ``base`` at ``rows`` (ascending) as an index of their own: row i here is
    ``rows[i]`` there."""

    def __init__(self, base: IndexView, rows: np.ndarray) -> None:
        self.base = base
        self.rows = np.asarray(rows, dtype=np.int64)
        self.chunks = [base.chunks[int(i)] for i in self.rows]
        kept = {c.doc_id for c in self.chunks}
        self.docs = {k: v for k, v in base.docs.items() if k in kept}
        self.tokenizer = base.tokenizer
        self.embedder = base.embedder
        self.ingest_steps = base.ingest_steps
        self._vectors: np.ndarray | None = None

    @property
    def dense_ready(self) -> bool:
        return bool(len(self.chunks)) and bool(self.dense_mask.all())

    @property
    def dense_embedded(self) -> int:
        return int(self.dense_mask.sum())

    @property
    def dense_mask(self) -> np.ndarray:
        return np.asarray(self.base.dense_mask)[self.rows]

    @property
    def vectors(self) -> np.ndarray:
        """The kept rows' vectors (copied from the base view when first asked)."""
        if self._vectors is None:
            self._vectors = np.asarray(self.base.vectors)[self.rows]
        return self._vectors

    def _within(self, rows: np.ndarray | None) -> np.ndarray:
        return self.rows if rows is None else self.rows[np.asarray(rows, dtype=np.int64)]

    def _here(self, hits: list[tuple[int, float]]) -> list[tuple[int, float]]:
        return [(int(np.searchsorted(self.rows, r)), s) for r, s in hits]

    def lexical_search(self, query_tokens: list[str], k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        return self._here(self.base.lexical_search(query_tokens, k, self._within(rows)))

    def dense_search(self, query_vector: np.ndarray, k: int, rows: np.ndarray | None = None) -> list[tuple[int, float]]:
        return self._here(self.base.dense_search(query_vector, k, self._within(rows)))
