"""The store layer: where an index lives and how it is read at query time.

Callers outside this package name no backend: they open a store by its location with
:func:`open_store` and use the :class:`Store` and :class:`IndexView` protocols. Backends, one
package each: ``local/`` (an embedded folder, the default).
"""

from __future__ import annotations

from pathlib import Path

from yakgwan.store.base import DocRecord, IndexData, IndexView, Store

__all__ = ["DocRecord", "IndexData", "IndexView", "Store", "open_store"]


def open_store(location: str | Path) -> Store:
    """The store at ``location``: a folder path opens the embedded folder backend (created on
    the first commit). Opening is cheap; nothing is read until asked."""
    from yakgwan.store.local.store import LocalStore

    return LocalStore(Path(location))
