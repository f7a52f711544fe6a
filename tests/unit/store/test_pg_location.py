"""Index locations: a folder or a postgresql:// URI, parsed without a server."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.config import Settings
from yakgwan.core.errors import InputError
from yakgwan.core.location import display_location, index_location, is_database_uri
from yakgwan.store.postgres.location import EF_SEARCH, EXACT_ROWS, PgLocation


@pytest.mark.unit
@pytest.mark.parametrize("value", ["postgresql://u@h:5432/db", "postgres://u@h/db?collection=x", "POSTGRESQL://h/db"])
def test_a_postgresql_uri_stays_the_string_given(value: str) -> None:
    assert is_database_uri(value)
    assert index_location(value) == value and isinstance(index_location(value), str)


@pytest.mark.unit
@pytest.mark.parametrize("value", ["idx", "/tmp/idx", "postgresql-index", "./postgresql:/x", "sqlite://x"])
def test_anything_else_is_a_folder(value: str) -> None:
    assert not is_database_uri(value)
    assert index_location(value) == Path(value)


@pytest.mark.unit
def test_the_collection_and_our_parameters_are_not_passed_to_libpq() -> None:
    where = PgLocation.parse("postgresql://alice:s3cret@db.example:6543/claims?sslmode=require&collection=kb_2024&ef_search=64&exact_rows=0")
    assert where.collection == "kb_2024" and where.schema == "yk_kb_2024"
    assert (where.ef_search, where.exact_rows) == (64, 0)
    assert where.conninfo == "postgresql://alice:s3cret@db.example:6543/claims?sslmode=require"
    assert "s3cret" not in where.display() and "alice:***@db.example" in where.display()


@pytest.mark.unit
def test_defaults_and_a_unix_socket_host() -> None:
    where = PgLocation.parse("postgresql://postgres:@/postgres?host=/run/postgresql")
    assert (where.collection, where.ef_search, where.exact_rows) == ("default", EF_SEARCH, EXACT_ROWS)
    assert where.conninfo == "postgresql://postgres:@/postgres?host=%2Frun%2Fpostgresql"


@pytest.mark.unit
def test_another_collection_of_the_same_database() -> None:
    where = PgLocation.parse("postgresql://u@h/db?collection=a&ef_search=50")
    other = where.with_collection("a_eval_0123")
    assert other.collection == "a_eval_0123" and other.conninfo == where.conninfo and other.ef_search == 50
    assert where.lock_key != other.lock_key and isinstance(where.lock_key, int) and -(2**63) <= where.lock_key < 2**63


@pytest.mark.unit
@pytest.mark.parametrize("query, named", [
    ("collection=내 운전자보험", "collection"), ("collection=Upper", "collection"), ("collection=", "collection"),
    ("collection=" + "a" * 61, "collection"), ("collection=-a", "collection"), ("collection=faq%0A", "collection"), ("ef_search=0", "ef_search"), ("ef_search=abc", "ef_search"),
    ("exact_rows=-1", "exact_rows"),
])
def test_a_bad_parameter_is_refused_naming_it(query: str, named: str) -> None:
    with pytest.raises(InputError, match=named) as info:
        PgLocation.parse(f"postgresql://u:pw@h/db?{query}")
    assert "pw" not in str(info.value)


@pytest.mark.unit
def test_a_password_is_never_shown() -> None:
    assert display_location("postgresql://u:pw@h/db?password=pw2&collection=c") == "postgresql://u:***@h/db?password=%2A%2A%2A&collection=c"
    assert display_location(Path("/tmp/x")) == "/tmp/x"


@pytest.mark.unit
def test_yakgwan_index_may_name_a_database() -> None:
    uri = "postgresql://u@h/db?collection=c"
    assert Settings.from_env({"YAKGWAN_INDEX": uri}).index_dir == uri
    assert Settings.from_env({"YAKGWAN_INDEX": "/tmp/some-index"}).index_dir == Path("/tmp/some-index")


@pytest.mark.unit
def test_a_sibling_collection_stays_a_valid_name() -> None:
    from yakgwan.store import sibling_collection

    assert PgLocation.parse(sibling_collection("postgresql://u@h/db?collection=kb", "eval_0123456789ab")).collection == "kb_eval_0123456789ab"
    long = PgLocation.parse(sibling_collection("postgresql://u@h/db?collection=" + "a" * 60, "eval_0123456789ab"))
    assert len(long.collection) == 60 and long.collection.endswith("_eval_0123456789ab")
    assert PgLocation.parse(sibling_collection("postgresql://u@h/db?collection=srv", "my-policies")).collection == "srv_my-policies"


@pytest.mark.unit
def test_libpq_parameters_keep_their_spaces() -> None:
    where = PgLocation.parse("postgresql://u@h/db?options=-c%20statement_timeout%3D5000&collection=c")
    assert where.conninfo == "postgresql://u@h/db?options=-c%20statement_timeout%3D5000"


@pytest.mark.unit
def test_a_connection_error_never_shows_the_password(tmp_path: Path) -> None:
    pytest.importorskip("psycopg")
    from yakgwan.core.errors import IndexStoreError
    from yakgwan.store import open_store

    for uri in (f"postgresql://bob:p%zzword@/db?host={tmp_path}&collection=x",  # libpq refuses to parse it, quoting the password
                f"postgresql://bob:hunter2@/db?host={tmp_path}&port=5999&sslpassword=s3cret&collection=x"):
        with pytest.raises(IndexStoreError, match="cannot connect to the database") as info:
            open_store(uri).exists()
        message = str(info.value)
        assert "zzword" not in message and "hunter2" not in message and "s3cret" not in message, message


@pytest.mark.unit
def test_an_index_built_with_another_embedder_is_said_in_words(small_index) -> None:  # type: ignore[no-untyped-def]
    import numpy as np

    from yakgwan.core.errors import YakgwanError
    from yakgwan.services.context import open_context

    class Other:
        model_id, dim = "another-model", 8

        def embed(self, texts, kind):  # type: ignore[no-untyped-def]
            return np.ones((len(texts), 8), np.float32)

    settings = small_index({"a.md": "# 벌금\n\n벌금은 2천만원 한도로 보상합니다.\n"})
    with pytest.raises(YakgwanError, match="index vectors come from .* but the configured embedder is 'another-model'"):
        open_context(settings, embedder=Other()).make_embedder()  # type: ignore[arg-type]
