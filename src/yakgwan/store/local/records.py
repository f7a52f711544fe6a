"""JSON records by key in a folder: one file a record, written whole (a reader sees the old
record or the new one). The server on a data folder keeps its jobs here, so that they outlive
the process as they do in PostgreSQL (:class:`yakgwan.store.postgres.records.PgRecords`)."""

from __future__ import annotations

import fcntl
import json
import os
import re
from pathlib import Path
from typing import Any

from yakgwan.core.files import atomic_write_text

_KEY = re.compile(r"[A-Za-z0-9_-]+(?::[A-Za-z0-9_-]+)?")  # a job id, or a prefix and a job id ("cancel:…")
_SUFFIX = ".json"


class FileRecords:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, key: str) -> Path:
        if not _KEY.fullmatch(key) or len(key) > 100:
            raise ValueError(f"a record key is letters, digits, '-', '_' and at most one ':'. Currently, it is {key!r}")
        return self.folder / (key.replace(":", "=") + _SUFFIX)

    def put(self, key: str, record: dict[str, Any]) -> None:
        path = self._path(key)
        self.folder.mkdir(parents=True, exist_ok=True)
        atomic_write_text(path, json.dumps(record, ensure_ascii=False))

    def put_if(self, key: str, record: dict[str, Any], expect: dict[str, Any] | None) -> bool:
        """Write ``record`` only while ``key`` holds ``expect`` (``None``: no record), under a lock
        on the folder that every ``put_if`` takes."""
        path = self._path(key)
        self.folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.folder / ".lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            if self.get(key) != expect or (expect is None and path.exists()):
                return False
            atomic_write_text(path, json.dumps(record, ensure_ascii=False))
            return True
        finally:
            os.close(fd)

    def all(self) -> dict[str, dict[str, Any]]:
        """Every record by key; a file that cannot be read (cut by a crash of another program,
        edited by hand) is skipped."""
        out: dict[str, dict[str, Any]] = {}
        if not self.folder.is_dir():
            return out
        for path in sorted(self.folder.glob(f"*{_SUFFIX}")):
            key = path.name[: -len(_SUFFIX)].replace("=", ":")
            if not _KEY.fullmatch(key):
                continue
            try:
                record = json.loads(path.read_text("utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(record, dict):
                out[key] = record
        return out

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            record = json.loads(self._path(key).read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) else None

    def delete(self, key: str) -> None:
        self._path(key).unlink(missing_ok=True)
