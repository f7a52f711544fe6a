"""The store layer: where an index lives and how it is read at query time.

Callers outside this package name no backend: they open a store by its location with
:func:`open_store` and use the :class:`Store` and :class:`IndexView` protocols. Backends, one
package each: ``local/`` (an embedded folder, the default) and ``postgres/`` (a collection in a
PostgreSQL database with pgvector, ``postgresql://…?collection=NAME``; the ``postgres`` extra).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from yakgwan.core.errors import IndexStoreError
from yakgwan.messages import msg
from yakgwan.core.location import is_database_uri
from yakgwan.store.base import DocRecord, IndexData, IndexView, Store
from yakgwan.store.filters import Filter, check_meta, keep_docs, parse_filters, parse_meta, restrict

__all__ = ["DocRecord", "Filter", "IndexData", "IndexView", "Store", "check_meta", "keep_docs", "open_store", "parse_filters", "parse_meta", "restrict",
           "Records", "open_records", "sibling_collection"]


def open_store(location: str | Path) -> Store:
    """The store at ``location``: a ``postgresql://`` URI opens that database's collection, a
    folder path the embedded folder backend (either is created on the first commit). Opening is
    cheap; nothing is read or connected until asked."""
    if is_database_uri(location):
        where, postgres = _postgres(str(location), "store")
        return postgres.PgStore(where)  # type: ignore[no-any-return]
    from yakgwan.store.local.store import LocalStore

    return LocalStore(Path(location))


class Records(Protocol):
    """JSON records by key in a database (``open_records``)."""

    def put(self, key: str, record: dict[str, Any]) -> None: ...

    def put_if(self, key: str, record: dict[str, Any], expect: dict[str, Any] | None) -> bool:
        """Write ``record`` only while ``key`` holds ``expect`` (``None``: no record), as one step
        no other writer comes between; whether it was written."""
        ...

    def all(self) -> dict[str, dict[str, Any]]: ...

    def get(self, key: str) -> dict[str, Any] | None: ...

    def delete(self, key: str) -> None: ...


def open_records(location: str | Path, table: str) -> Records:
    """The table ``table`` of JSON records: in the collection a ``postgresql://`` URI names, or,
    for a folder, its subfolder ``table`` (a file a record)."""
    if not is_database_uri(str(location)):
        from yakgwan.store.local.records import FileRecords

        return FileRecords(Path(location) / table)
    where, postgres = _postgres(str(location), "records")
    return postgres.PgRecords(where, table)  # type: ignore[no-any-return]


def _postgres(uri: str, module: str) -> tuple[Any, Any]:
    """The parsed URI and the PostgreSQL backend's ``module`` (``IndexStoreError`` naming the
    extra when its packages are missing)."""
    import importlib

    from yakgwan.store.postgres.location import PgLocation

    where = PgLocation.parse(uri)
    try:
        return where, importlib.import_module(f"yakgwan.store.postgres.{module}")
    except ImportError as exc:
        raise IndexStoreError(msg("pg.needs_package", where=where.display(), package=exc.name or "psycopg")) from None


def sibling_collection(uri: str, suffix: str) -> str:
    """Another collection of the database ``uri`` names: ``<its collection>_<suffix>`` (the
    collection's name cut so that the whole stays a valid name). ``InputError`` for a bad URI."""
    from yakgwan.store.postgres.location import MAX_COLLECTION, PgLocation

    where = PgLocation.parse(uri)
    return where.with_collection(f"{where.collection[:MAX_COLLECTION - 1 - len(suffix)]}_{suffix}").uri
