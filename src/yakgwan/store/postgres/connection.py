"""Connections to PostgreSQL: one pool per database per process, pgvector's types registered.

Pools are kept per (process id, conninfo), so a handle opened per request reuses the
process's connections and a forked worker never uses its parent's sockets. psycopg 3,
psycopg_pool and pgvector are the ``yakgwan[postgres]`` extra, imported when first needed.
"""

from __future__ import annotations

import atexit
import os
import threading
import weakref
from contextlib import contextmanager
from typing import Any, Iterator

from yakgwan.core.errors import IndexStoreError
from yakgwan.messages import msg
from yakgwan.core.location import SECRET_PARAMS

EXTRA = "pip install 'yakgwan[postgres]'"
POOL_MAX = 8
CONNECT_TIMEOUT_S = 10


class _Pools:
    """The process's connection pools, by conninfo (an explicit object, closed at exit)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pools: dict[tuple[int, str], Any] = {}

    def get(self, conninfo: str, shown: str) -> Any:
        key = (os.getpid(), conninfo)
        with self._lock:
            pool = self._pools.get(key)
            if pool is None:
                _probe(conninfo, shown)  # the server's own reason, at once, instead of a pool's timeout
                psycopg_pool = _import("psycopg_pool")
                pool = psycopg_pool.ConnectionPool(
                    conninfo, min_size=0, max_size=POOL_MAX, open=False, configure=_configure, reset=_reset, name=f"yakgwan {shown}",
                    kwargs={"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "yakgwan"},
                )
                pool.open(wait=False)
                self._pools[key] = pool
            return pool

    def close(self) -> None:
        with self._lock:
            for (pid, _), pool in list(self._pools.items()):
                if pid == os.getpid():
                    pool.close(timeout=1)
            self._pools.clear()


POOLS = _Pools()
atexit.register(POOLS.close)


def _import(name: str) -> Any:
    try:
        return __import__(name)
    except ImportError:
        raise IndexStoreError(msg("pg.needs", package=name, install=EXTRA)) from None


def _probe(conninfo: str, shown: str) -> None:
    """Connect once (``IndexStoreError`` with the server's reason, secrets removed, when that fails)."""
    psycopg = _import("psycopg")
    try:
        psycopg.connect(conninfo, connect_timeout=CONNECT_TIMEOUT_S).close()
    except psycopg.Error as exc:
        raise IndexStoreError(msg("pg.cannot_connect", where=shown, why=_reason(exc, conninfo))) from None


def _configure(conn: Any) -> None:
    conn.autocommit = True


def _reset(conn: Any) -> None:
    """A connection back in the pool holds no advisory lock (a writer that died mid-block)."""
    conn.execute("SELECT pg_advisory_unlock_all()")


_REGISTERED: "weakref.WeakSet[Any]" = weakref.WeakSet()  # connections that read ``vector`` as numpy arrays


def _register(conn: Any) -> None:
    """pgvector's ``vector`` type read as numpy arrays on ``conn``, once the extension exists in
    its database (``ensure_extension`` creates it)."""
    if conn in _REGISTERED:
        return
    try:
        from pgvector.psycopg import register_vector
    except ImportError:
        raise IndexStoreError(msg("pg.needs_adapter", install=EXTRA)) from None

    try:
        register_vector(conn)
    except Exception:  # noqa: BLE001 - no extension yet: nothing stored as a vector to read either
        return
    _REGISTERED.add(conn)


def ensure_extension(conn: Any) -> None:
    """``CREATE EXTENSION vector`` when missing (under a database-wide lock, so that two first
    commits into different collections do not race), then register its type on ``conn``."""
    with conn.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_extension WHERE extname = 'vector'")
        if cur.fetchone() is None:
            try:
                with conn.transaction():
                    cur.execute("SELECT pg_advisory_xact_lock(7313370001)")
                    cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
            except Exception as exc:  # noqa: BLE001 - said in words below
                raise IndexStoreError(msg("pg.no_vector", why=str(exc))) from None
    _register(conn)


@contextmanager
def connection(conninfo: str, shown: str) -> Iterator[Any]:
    """A pooled connection (autocommit; open a transaction with ``conn.transaction()``).
    ``IndexStoreError`` naming the database when it cannot be reached."""
    psycopg = _import("psycopg")
    pool = POOLS.get(conninfo, shown)
    try:
        cm = pool.connection(timeout=CONNECT_TIMEOUT_S)
        conn = cm.__enter__()
    except Exception as exc:  # noqa: BLE001 - a pool timeout or a refused connection
        raise IndexStoreError(msg("pg.cannot_connect", where=shown, why=_reason(exc, conninfo))) from None
    try:
        _register(conn)
        yield conn
    except psycopg.OperationalError as exc:
        cm.__exit__(type(exc), exc, exc.__traceback__)
        raise IndexStoreError(msg("pg.error", where=shown, why=_reason(exc, conninfo))) from None
    except BaseException as exc:
        cm.__exit__(type(exc), exc, exc.__traceback__)
        raise
    else:
        cm.__exit__(None, None, None)


def _reason(exc: BaseException, conninfo: str = "") -> str:
    """The first line of ``exc``'s message with any secret of ``conninfo`` in it replaced."""
    text = str(exc).strip().splitlines()
    line = text[0] if text else type(exc).__name__
    for secret in _secrets(conninfo):
        line = line.replace(secret, "***")
    return line


def _secrets(conninfo: str) -> list[str]:
    from urllib.parse import parse_qsl, unquote, urlsplit

    parts = urlsplit(conninfo)
    found = []
    userinfo = parts.netloc.rsplit("@", 1)[0] if "@" in parts.netloc else ""
    if ":" in userinfo:
        raw = userinfo.split(":", 1)[1]
        found += [raw, unquote(raw)]
    found += [v for k, v in parse_qsl(parts.query) if k in SECRET_PARAMS]
    return sorted({s for s in found if s}, key=len, reverse=True)
