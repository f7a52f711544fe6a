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


@pytest.mark.unit
def test_a_commit_without_room_for_its_generation_is_refused_before_writing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from collections import namedtuple

    from store_contract import assert_same_index, sample_data

    from yakgwan.core.errors import IndexStoreError
    from yakgwan.store.local import store as local

    store = open_store(tmp_path / "index")
    store.commit(sample_data(0))
    before = store.generation()
    need = local.generation_bytes(sample_data(1))
    usage = namedtuple("usage", "total used free")
    monkeypatch.setattr(local.shutil, "disk_usage", lambda path: usage(10 * need, 10 * need - need // 2, need // 2))
    with pytest.raises(IndexStoreError, match=r"disk full: this commit needs about .* MB and .* MB are free"):
        store.commit(sample_data(1))
    assert store.generation() == before
    assert_same_index(store.read(), sample_data(0))
    assert {p.name for p in (tmp_path / "index").iterdir() if not p.name.startswith(".")} == {before, "manifest.json"}  # nothing half-written
    monkeypatch.undo()  # room again
    store.commit(sample_data(1))
    assert_same_index(store.read(), sample_data(1))
