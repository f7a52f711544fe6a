"""The PostgreSQL + pgvector store passes the Store contract (a real server: the one the
``postgres_uri`` fixture starts with pgserver, or the database named by YAKGWAN_TEST_PG)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from store_contract import StoreContract

from yakgwan.store import Store, open_store


@pytest.mark.integration
class TestPostgresStore(StoreContract):
    @pytest.fixture(autouse=True)
    def _database(self, postgres_uri: str) -> None:
        self.uri = postgres_uri

    def make_store(self, tmp_path: Path) -> Store:
        name = "t" + hashlib.sha256(str(tmp_path).encode()).hexdigest()[:12]
        sep = "&" if "?" in self.uri else "?"
        return open_store(f"{self.uri}{sep}collection={name}")
