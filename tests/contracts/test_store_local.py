"""The embedded folder store (the default backend, opened through ``open_store``) passes the
Store contract."""

from __future__ import annotations

from pathlib import Path

import pytest
from store_contract import StoreContract

from yakgwan.store import Store, open_store


@pytest.mark.unit
class TestLocalFolderStore(StoreContract):
    def make_store(self, tmp_path: Path) -> Store:
        return open_store(tmp_path / "index")
