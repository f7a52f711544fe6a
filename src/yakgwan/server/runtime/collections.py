"""Collections: named indexes with their uploaded files, under ``DATA/collections/<name>/``.

Layout: ``index/`` (a yakgwan index), ``files/<sha256 prefix><suffix>`` (uploads, named by
content), ``collection.json`` (title, created) and ``files.json`` (stored name → the client's
name for display, kind, size, time). Reads use an in-memory view of the index's current
generation, reloaded when an ingest commits a new one."""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import threading
import time
import unicodedata
import uuid
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence, TypeVar

from yakgwan.core.errors import BIDI_CONTROLS, IndexStoreError, VersionGone
from yakgwan.core.location import IndexLocation
from yakgwan.messages import msg
from yakgwan.server.problems import Problem
from yakgwan.server.runtime.uploads import Sniffed
from yakgwan.services.ask import normalise
from yakgwan.services.context import IndexView, PipelineContext, open_store, parse_filters, restrict, sibling_collection
from yakgwan.services.models import SharedModels, shared_context

T = TypeVar("T")

NAME = re.compile(r"[a-z0-9][a-z0-9_-]{0,47}")  # matched whole (fullmatch): "$" would let a trailing newline in
# characters that reorder the text around them (a title "\u202eevil" shows reversed): never in a title
MAX_VIEWS = 8  # collections whose index is kept in memory


@dataclass(frozen=True)
class Collection:
    name: str
    root: Path
    database: str | None = None  # a postgresql:// URI: the index is its collection ``<it>_<name>``

    @property
    def index_dir(self) -> IndexLocation:
        return sibling_collection(self.database, self.name) if self.database else self.root / "index"

    @property
    def files_dir(self) -> Path:
        return self.root / "files"

    def meta(self) -> dict[str, Any]:
        return _read_json(self.root / "collection.json", {})

    def files(self) -> dict[str, dict[str, Any]]:
        return _read_json(self.root / "files.json", {})

    def display_names(self) -> dict[str, str]:
        """Document id (the stored name) → the name the file was uploaded with."""
        return {stored: f["name"] for stored, f in self.files().items()}


class Collections:
    def __init__(self, data_dir: Path, models: SharedModels, database: str | None = None) -> None:
        self.root = data_dir / "collections"
        self.models = models
        self.database = database
        self._lock = threading.Lock()
        # per collection: (the newest generation read, its view) and the newest dense-ready view
        self._views: dict[str, tuple[tuple[str, IndexView] | None, IndexView | None]] = {}
        self._loading: dict[str, threading.Lock] = {}
        self._corpus: dict[int, tuple[IndexView, str]] = {}
        self._locks: dict[str, threading.Lock] = {}

    def lock_for(self, name: str) -> threading.Lock:
        """The lock that makes 'is it busy? then delete' and 'store, then queue its ingest' atomic."""
        with self._lock:
            return self._locks.setdefault(name, threading.Lock())

    def create(self, name: str | None, title: str | None = None) -> Collection:
        """A new collection: ``title`` is what people read (any text but control characters; the
        id when not given), ``name`` its id (:data:`NAME`; made from the title when not given)."""
        shown = None if title is None else " ".join(title.split())
        if title is not None and any(unicodedata.category(ch) == "Cc" or ch in BIDI_CONTROLS for ch in title.strip()):
            raise Problem(422, msg("error.collection_title_chars"), "bad-title")
        if title is not None and not any(unicodedata.category(ch)[0] in "LNPS" for ch in shown or ""):  # empty, or only invisible marks
            raise Problem(422, msg("error.collection_title"), "bad-title")
        if name is None:
            if not shown:
                raise Problem(422, msg("error.collection_title"), "bad-title")
            with self._lock:
                name = new_id(shown, lambda candidate: (self.root / candidate).exists())
        if not NAME.fullmatch(name):
            raise Problem(422, msg("error.collection_id", name=repr(name)), "bad-name")
        title = shown
        with self._lock:
            root = self.root / name
            if root.exists():
                raise Problem(409, msg("error.collection_exists", name=repr(name)), "exists")
            root.mkdir(parents=True)
            (root / "files").mkdir()
            _write_json(root / "collection.json", {"name": name, "title": title or name, "created": time.time(), "uid": uuid.uuid4().hex})
            _write_json(root / "files.json", {})
        return Collection(name, root, self.database)

    def get(self, name: str) -> Collection:
        root = self.root / name
        if not NAME.fullmatch(name) or not (root / "collection.json").is_file():
            raise Problem(404, msg("error.no_collection", name=repr(name)), "unknown-collection")
        return Collection(name, root, self.database)

    def list(self) -> list[Collection]:
        if not self.root.is_dir():
            return []
        return [Collection(p.name, p, self.database) for p in sorted(self.root.iterdir()) if NAME.fullmatch(p.name) and (p / "collection.json").is_file()]

    def delete(self, name: str) -> None:
        col = self.get(name)
        with self._lock:
            self._views.pop(name, None)
            trash = self.root / f".deleted-{name}-{uuid.uuid4().hex[:6]}"
            col.root.rename(trash)  # one step: a reader sees the collection or nothing
        if self.database:  # its index's tables too (a collection made again later starts empty)
            open_store(col.index_dir).restore(None)
        shutil.rmtree(trash, ignore_errors=True)

    def store_upload(self, col: Collection, data: bytes, sniffed: Sniffed) -> Path:
        """Write an upload under its content name (the same content twice is one file)."""
        path = col.files_dir / sniffed.stored_name
        if not path.exists():
            tmp = col.files_dir / f".{uuid.uuid4().hex}.tmp"
            tmp.write_bytes(data)
            os.replace(tmp, path)
        with self._files_locked(col):
            files = col.files()
            files[sniffed.stored_name] = {"name": sniffed.display_name, "kind": sniffed.kind, "bytes": len(data), "sha256": sniffed.sha256,
                                          "uploaded": time.time()}
            _write_json(col.root / "files.json", files)
        return path

    @contextmanager
    def _files_locked(self, col: Collection) -> Iterator[None]:
        """``files.json``'s read-modify-write: this process's threads, then every server process
        sharing the data folder (an ``flock`` on the collection's folder), take turns."""
        with self._lock:
            fd = os.open(col.root, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                yield
            finally:
                os.close(fd)

    def forget_upload(self, col: Collection, stored_name: str) -> None:
        """Remove an upload that could not be ingested (the index never held it)."""
        with self._files_locked(col):
            files = col.files()
            files.pop(stored_name, None)
            _write_json(col.root / "files.json", files)
        (col.files_dir / stored_name).unlink(missing_ok=True)

    def fresh(self, col: Collection, run: Callable[[], T]) -> T:
        """``run()`` (a request reading ``col``'s index); when the version its view reads was
        pruned meanwhile (commits of an ingest on another process), once more on the current
        version: the cached views of ``col`` are forgotten first."""
        try:
            return run()
        except VersionGone:
            with self._lock:
                self._views.pop(col.name, None)
            return run()

    def view(self, col: Collection) -> IndexView:
        """The index's current generation (cached until an ingest commits another). While an
        ingest has committed its words but is still embedding, readers keep the last complete
        generation: no search sees a half-embedded index (the first ingest of a collection has
        none to keep, and its searches say that dense vectors are pending)."""
        store = open_store(col.index_dir)
        generation = store.generation()
        if generation is None:
            self.get(col.name)  # deleted meanwhile (a search racing a delete): 404, not "no documents yet"
            raise Problem(409, msg("error.collection_empty", name=repr(col.name)), "empty-collection")
        with self._lock:
            loading = self._loading.setdefault(col.name, threading.Lock())
        with loading:  # one reader loads a new generation; the others wait for it, not load it again
            with self._lock:
                latest, stable = self._views.get(col.name, (None, None))
            if latest is None or latest[0] != generation:
                latest = (generation, store.view())
                if latest[1].dense_ready:
                    stable = latest[1]
                with self._lock:
                    self._views.pop(col.name, None)
                    self._views[col.name] = (latest, stable)  # newest last: the oldest is evicted first
                    while len(self._views) > MAX_VIEWS:
                        self._views.pop(next(iter(self._views)))
        return latest[1] if latest[1].dense_ready or stable is None else stable

    def corpus_text(self, view: IndexView) -> str:
        """The view's text as ``ask`` compares anchors with it (normalised once per view)."""
        with self._lock:
            cached = self._corpus.get(id(view))
            if cached is not None and cached[0] is view:
                return cached[1]
        text = normalise("\n".join(c.text for c in view.chunks))
        with self._lock:
            if len(self._corpus) > 32:
                self._corpus.clear()
            self._corpus[id(view)] = (view, text)
        return text

    def context(self, col: Collection, filters: Sequence[str] = ()) -> PipelineContext:
        """A pipeline context for one request: the cached view (the part of it ``filters`` keep),
        the shared models, a fresh LLM facade."""
        view = restrict(self.view(col), parse_filters(filters))
        models = self.models

        def embedder():  # type: ignore[no-untyped-def]
            emb = models.embedder()
            if emb.model_id != view.embedder:
                raise IndexStoreError(msg("error.embedder_changed", name=repr(col.name), indexed=repr(view.embedder), serving=repr(emb.model_id)))
            return emb

        return shared_context(view, models, embedder)


def new_id(title: str, taken: Callable[[str], bool]) -> str:
    """An id for a collection titled ``title``: its Latin letters and digits as a slug (at most 32
    characters; ``c`` when it has none, as a Korean title), then ``-`` and 6 random hex digits,
    drawn again while ``taken``. '내 운전자보험' → ``c-3fa9b1``; 'KB 운전자 2024' → ``kb-2024-3fa9b1``."""
    slug = "-".join(re.findall(r"[a-z0-9]+", title.lower()))[:32].strip("-") or "c"
    while True:
        candidate = f"{slug}-{uuid.uuid4().hex[:6]}"
        if not taken(candidate):
            return candidate


def _read_json(path: Path, default: dict[str, Any]) -> dict[str, Any]:
    try:
        return json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        return dict(default)


def _write_json(path: Path, value: dict[str, Any]) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:6]}.tmp")
    tmp.write_text(json.dumps(value, ensure_ascii=False, indent=1), "utf-8")
    os.replace(tmp, path)
