"""A collection inside a PostgreSQL database, named by a libpq URI.

``postgresql://USER[:PASSWORD]@HOST:PORT/DB?collection=NAME`` (``postgres://`` too; a unix
socket as ``host=/run/postgresql`` among the parameters; every other parameter is passed to
libpq as it is). ``collection`` defaults to ``default``; ``ef_search`` (HNSW candidates per dense
search, default ``EF_SEARCH``) and ``exact_rows`` (a generation with at most this many embedded
rows is searched by an exact scan instead of the HNSW index, default ``EXACT_ROWS``) are read
here and not passed on.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, urlencode, urlsplit, urlunsplit

from yakgwan.core.errors import InputError
from yakgwan.messages import msg
from yakgwan.core.location import display_location, is_database_uri

MAX_COLLECTION = 60  # a PostgreSQL name is at most 63 bytes, and the schema is yk_<collection>
COLLECTION = re.compile(rf"[a-z0-9][a-z0-9_-]{{0,{MAX_COLLECTION - 1}}}")  # matched whole: "$" lets a trailing newline in
DEFAULT_COLLECTION = "default"
EF_SEARCH = 200
EXACT_ROWS = 20_000
OURS = ("collection", "ef_search", "exact_rows")
SCHEMA_PREFIX = "yk_"


@dataclass(frozen=True)
class PgLocation:
    conninfo: str  # the URI less the parameters yakgwan reads (what libpq is given)
    collection: str
    ef_search: int = EF_SEARCH
    exact_rows: int = EXACT_ROWS
    uri: str = ""  # as given

    @classmethod
    def parse(cls, uri: str) -> "PgLocation":
        """``InputError`` naming the URI (password hidden) and what is wrong with it."""
        if not is_database_uri(uri):
            raise InputError(display_location(uri), msg("pg.not_uri"))
        parts = urlsplit(uri)
        params = parse_qsl(parts.query, keep_blank_values=True)
        ours = {k: v for k, v in params if k in OURS}
        rest = [(k, v) for k, v in params if k not in ours]
        collection = ours.get("collection", DEFAULT_COLLECTION)
        if not COLLECTION.fullmatch(collection):
            raise InputError(display_location(uri), msg("pg.collection", name=repr(collection), max=MAX_COLLECTION))
        ef = _whole(uri, ours, "ef_search", EF_SEARCH, 1, 1000)
        exact = _whole(uri, ours, "exact_rows", EXACT_ROWS, 0, 10**9)
        conninfo = urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(rest, quote_via=quote), parts.fragment))
        return cls(conninfo, collection, ef, exact, uri)

    @property
    def schema(self) -> str:
        """The PostgreSQL schema that holds the collection's tables."""
        return SCHEMA_PREFIX + self.collection

    @property
    def lock_key(self) -> int:
        """A 64-bit advisory-lock key of this collection (writers of one collection take it)."""
        return int.from_bytes(hashlib.sha256(f"yakgwan:{self.schema}".encode()).digest()[:8], "big", signed=True)

    def display(self) -> str:
        return display_location(self.uri or self.conninfo)

    def with_collection(self, collection: str) -> "PgLocation":
        """The same database, another collection (``InputError`` for a bad name)."""
        parts = urlsplit(self.uri)
        params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "collection"] + [("collection", collection)]
        return PgLocation.parse(urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(params, quote_via=quote), parts.fragment)))


def _whole(uri: str, params: dict[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = params.get(name)
    if raw is None:
        return default
    if not raw.isdigit() or not low <= int(raw) <= high:
        raise InputError(display_location(uri), msg("pg.whole", name=name, value=repr(raw), low=low, high=high))
    return int(raw)
