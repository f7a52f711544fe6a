"""An embedded, persistent index in one directory; no server.

Layout::

    INDEX/manifest.json        {"format": 1, "generation": "<name>"}  (replaced atomically)
    INDEX/<generation>/        chunks.jsonl, tokens.jsonl, docs.json, meta.json,
                               vectors.npy, dense_mask.npy, bm25.npz, bm25.json

A commit writes a new generation in a hidden temporary folder, renames it into place, then
replaces ``manifest.json`` with ``os.replace``; readers follow the manifest, so they see the old
index or the new one, never a mix. A failed commit removes its temporary folder (and the index
folder itself when the writer had made it). Writers hold an exclusive ``flock`` on the
index folder for the whole read–plan–commit cycle (``writer()``), so two ingests into one index
never lose each other's documents, ingests into different indexes never wait for each other, and
no lock file is left behind. Threads sharing one handle also take turns (a lock per handle, taken
before the ``flock``); only the thread holding ``writer()`` may enter it again. Only names this store writes (``gNNNNNNNN``,
``.gNNNNNNNN.xxxxxx.tmp``) are ever removed.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import re
import shutil
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, ContextManager, Iterator

import numpy as np

from yakgwan.core.errors import IndexStoreError, one_line
from yakgwan.messages import msg
from yakgwan.retrieval.scoring.bm25 import BM25Index
from yakgwan.core.files import atomic_write_text
from yakgwan.store.base import DocRecord, IndexData, WriterTurns, check_rows, chunk_from_json, chunk_to_json
from yakgwan.store.local.view import LocalView

FORMAT = 1
MANIFEST = "manifest.json"
_GENERATION = re.compile(r"g(\d{8})")  # matched whole (fullmatch)
_TEMPORARY = re.compile(r"\.g\d{8}\.[0-9a-f]{6}\.tmp")


class LocalStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self._turns = WriterTurns(self._folder_lock)

    @property
    def location(self) -> str:
        return str(self.root)

    def exists(self) -> bool:
        return (self.root / MANIFEST).is_file()

    def generation(self) -> str | None:
        try:
            return str(json.loads((self.root / MANIFEST).read_text("utf-8"))["generation"])
        except (OSError, ValueError, KeyError):
            return None

    # ---- reading -------------------------------------------------------------------------
    def _generation_dir(self) -> Path:
        try:
            manifest = json.loads((self.root / MANIFEST).read_text("utf-8"))
        except FileNotFoundError:
            raise IndexStoreError(msg("index.none", where=one_line(str(self.root)))) from None
        except (OSError, ValueError) as exc:
            raise IndexStoreError(msg("index.manifest", where=one_line(str(self.root)), why=str(exc))) from None
        if manifest.get("format") != FORMAT:
            raise IndexStoreError(msg("index.format", where=one_line(str(self.root)), found=repr(manifest.get("format")), expected=FORMAT))
        return self.root / str(manifest["generation"])

    def read(self) -> IndexData:
        return self._read(with_bm25=False)[0]

    def view(self) -> LocalView:
        data, bm25 = self._read(with_bm25=True)
        return LocalView(data, bm25)

    def _read(self, with_bm25: bool) -> tuple[IndexData, dict[str, object] | None]:
        """The current generation (and its saved BM25 arrays, when asked)."""
        for attempt in range(3):
            gen = self._generation_dir()
            try:
                return _read_generation(gen), (_read_bm25(gen) if with_bm25 else None)
            except FileNotFoundError:
                if attempt == 2:
                    raise IndexStoreError(msg("index.files_missing", where=one_line(str(gen)))) from None
                time.sleep(0.05)  # a writer replaced the generation between two reads
        raise AssertionError("unreachable")

    # ---- writing -------------------------------------------------------------------------
    def writer(self, on_wait: Callable[[], None] | None = None) -> ContextManager[None]:
        """Hold the index's write lock: one ingest at a time reads, plans and commits.

        The lock is an ``flock`` on the index folder itself, so writers of other indexes in the
        same parent folder never wait. A folder made only to hold the lock is removed again when
        nothing was committed into it. Readers never take it. Threads sharing this handle wait
        for each other too (``on_wait`` is called once when this one has to wait, for either
        lock); the thread holding it may call ``writer()`` (or ``commit``) again inside.
        """
        return self._turns.writer(on_wait)

    @contextmanager
    def _folder_lock(self, on_wait: Callable[[], None] | None) -> Iterator[None]:
        fd, made = self._lock(on_wait)
        try:
            yield
        finally:
            self._unlock(fd, made)

    def _unlock(self, fd: int, made: bool) -> None:
        """Release the ``flock`` (closing its descriptor), removing the folder ``_lock`` made
        when nothing was committed into it."""
        if made:
            with _parent_locked(self.root):  # a writer creating the folder waits for its removal
                _remove_if_empty(self.root)
                os.close(fd)
        else:
            os.close(fd)

    def _lock(self, on_wait: Callable[[], None] | None) -> tuple[int, bool]:
        """An exclusive ``flock`` on the index folder, made first (under a brief lock on its
        parent) when it does not exist; retried when the folder was removed while waiting."""
        while True:
            with _parent_locked(self.root):
                if self.root.exists() and not self.root.is_dir():
                    raise IndexStoreError(msg("index.not_folder", where=one_line(str(self.root))))
                made = not self.root.exists()
                self.root.mkdir(exist_ok=True)
                fd = os.open(self.root, os.O_RDONLY)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait is not None:
                    on_wait()
                    on_wait = None
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.stat(self.root).st_ino == os.fstat(fd).st_ino
            except FileNotFoundError:
                same = False
            if same:
                return fd, made
            os.close(fd)  # the folder we waited on was removed (its writer failed): lock the new one

    def commit(self, data: IndexData) -> None:
        with self.writer():
            self._commit(data)

    def _commit(self, data: IndexData) -> None:
        """Under ``writer()``, which made the folder when it was missing (and removes it again
        if this fails)."""
        if not self.exists() and any(self.root.iterdir()):
            raise IndexStoreError(msg("index.not_empty", where=one_line(str(self.root))))
        seq = self._current_seq() + 1
        name = f"g{seq:08d}"
        tmp = self.root / f".{name}.{uuid.uuid4().hex[:6]}.tmp"
        try:
            _write_generation(tmp, data)
            shutil.rmtree(self.root / name, ignore_errors=True)  # leftover of a crash before the manifest moved
            tmp.rename(self.root / name)
            atomic_write_text(self.root / MANIFEST, json.dumps({"format": FORMAT, "generation": name, "seq": seq}))
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            if not self._is_current(name):
                shutil.rmtree(self.root / name, ignore_errors=True)
            raise
        self._prune(seq)

    def restore(self, generation: str | None) -> None:
        with self.writer():
            if generation is None:  # as before the first commit: no manifest, no generation
                (self.root / MANIFEST).unlink(missing_ok=True)
                for p in self.root.iterdir():
                    if p.is_dir() and (_GENERATION.fullmatch(p.name) or _TEMPORARY.fullmatch(p.name)):
                        shutil.rmtree(p, ignore_errors=True)
                return
            if not _GENERATION.fullmatch(generation) or not (self.root / generation).is_dir():
                raise IndexStoreError(msg("index.gone", where=one_line(str(self.root)), generation=repr(generation)))
            # the sequence goes on: the next commit gets a name no reader has seen
            atomic_write_text(self.root / MANIFEST, json.dumps({"format": FORMAT, "generation": generation, "seq": self._current_seq()}))

    def _current_seq(self) -> int:
        try:
            return int(json.loads((self.root / MANIFEST).read_text("utf-8")).get("seq", 0))
        except (OSError, ValueError):
            return 0

    def _is_current(self, name: str) -> bool:
        try:
            return json.loads((self.root / MANIFEST).read_text("utf-8")).get("generation") == name
        except (OSError, ValueError):
            return False

    def _prune(self, seq: int) -> None:
        """Remove generations older than the previous one (kept for readers that opened it a
        moment ago) and temporary folders of failed commits. Only names this store writes are
        touched."""
        for p in self.root.iterdir():
            m = _GENERATION.fullmatch(p.name)
            if p.is_dir() and ((m and int(m.group(1)) < seq - 1) or _TEMPORARY.fullmatch(p.name)):
                shutil.rmtree(p, ignore_errors=True)


def generation_bytes(data: IndexData) -> int:
    """About how many bytes a generation of ``data`` takes on disk, from above: the vectors
    and mask as stored, and five times the chunks' UTF-8 text for their JSON, their tokens and
    the BM25 arrays (measured on the KB policy: 4.3 times). Pure."""
    text = sum(len(c.text.encode("utf-8")) for c in data.chunks)
    return int(np.asarray(data.vectors).nbytes + np.asarray(data.dense_mask).nbytes + 5 * text + 64 * 1024)


def _mb(n: int) -> str:
    return f"{n / 2**20:.1f} MB"


@contextmanager
def _parent_locked(root: Path) -> Iterator[None]:
    parent = root.resolve().parent
    parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:  # not empty (a commit landed) or already gone
        pass


def _write_generation(gen: Path, data: IndexData) -> None:
    check_rows(str(gen.parent), data)  # before anything is written
    need, free = generation_bytes(data), shutil.disk_usage(gen.parent).free
    if free < need:  # refused before a byte is written too: a half-written generation helps no one
        raise IndexStoreError(msg("index.disk_full", where=one_line(str(gen.parent)), need=_mb(need), free=_mb(free)))
    gen.mkdir()
    with open(gen / "chunks.jsonl", "w", encoding="utf-8") as fh:
        for c in data.chunks:
            fh.write(chunk_to_json(c) + "\n")
    with open(gen / "tokens.jsonl", "w", encoding="utf-8") as fh:
        for toks in data.tokens:
            fh.write(json.dumps(toks, ensure_ascii=False) + "\n")
    docs = {k: dataclasses.asdict(v) for k, v in data.docs.items()}
    (gen / "docs.json").write_text(json.dumps(docs, ensure_ascii=False, indent=0), "utf-8")
    meta = {"tokenizer": data.tokenizer, "embedder": data.embedder, "dim": data.dim, "extra": data.extra}
    (gen / "meta.json").write_text(json.dumps(meta, ensure_ascii=False), "utf-8")
    np.save(gen / "vectors.npy", np.ascontiguousarray(data.vectors, dtype=np.float32), allow_pickle=False)
    np.save(gen / "dense_mask.npy", data.dense_mask.astype(bool), allow_pickle=False)
    arrays, plain = _split_arrays(BM25Index.build(data.tokens).to_arrays())
    np.savez(gen / "bm25.npz", **arrays)
    (gen / "bm25.json").write_text(json.dumps(plain, ensure_ascii=False), "utf-8")
    for f in gen.iterdir():
        with open(f, "rb") as fh:
            os.fsync(fh.fileno())


def _split_arrays(d: dict[str, object]) -> tuple[dict[str, np.ndarray], dict[str, object]]:
    arrays = {k: v for k, v in d.items() if isinstance(v, np.ndarray)}
    plain = {k: v for k, v in d.items() if not isinstance(v, np.ndarray)}
    return arrays, plain


def _read_generation(gen: Path) -> IndexData:
    with open(gen / "chunks.jsonl", encoding="utf-8") as fh:
        chunks = [chunk_from_json(json.loads(line)) for line in fh]
    with open(gen / "tokens.jsonl", encoding="utf-8") as fh:
        tokens = [json.loads(line) for line in fh]
    docs = {k: DocRecord(**v) for k, v in json.loads((gen / "docs.json").read_text("utf-8")).items()}
    meta = json.loads((gen / "meta.json").read_text("utf-8"))
    vectors = np.load(gen / "vectors.npy", allow_pickle=False)
    mask = np.load(gen / "dense_mask.npy", allow_pickle=False)
    extra = dict(meta.get("extra") or {})
    return IndexData(chunks, tokens, docs, meta["tokenizer"], meta["embedder"], int(meta["dim"]), vectors, mask, extra)


def _read_bm25(gen: Path) -> dict[str, object]:
    """The BM25 index saved with a generation (``BM25Index.to_arrays``), so a view need not
    rebuild it from the tokens."""
    with np.load(gen / "bm25.npz", allow_pickle=False) as z:
        arrays: dict[str, object] = {k: z[k] for k in z.files}
    arrays.update(json.loads((gen / "bm25.json").read_text("utf-8")))
    return arrays

