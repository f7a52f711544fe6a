"""An embedded, persistent index in one directory; no server.

Layout::

    INDEX/manifest.json        {"format": 1, "generation": "<name>"}  (replaced atomically)
    INDEX/<generation>/        chunks.jsonl, tokens.jsonl, docs.json, meta.json,
                               vectors.npy, dense_mask.npy, bm25.npz, bm25.json

A commit writes a new generation in a hidden temporary folder, renames it into place, then
replaces ``manifest.json`` with ``os.replace``; readers follow the manifest, so they see the old
index or the new one, never a mix. A failed commit removes its temporary folder (and the index
folder itself when the commit had created it). Writers hold an exclusive ``flock`` on the
index folder itself, so no lock file is left behind.
"""

from __future__ import annotations

import dataclasses
import fcntl
import json
import os
import shutil
import time
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import numpy as np

from yakgwan.errors import IndexStoreError
from yakgwan.records import Chunk
from yakgwan.retrieval.bm25 import BM25Index
from yakgwan.store import DocRecord, IndexData

FORMAT = 1
MANIFEST = "manifest.json"


class LocalStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def exists(self) -> bool:
        return (self.root / MANIFEST).is_file()

    # ---- reading -------------------------------------------------------------------------
    def _generation_dir(self) -> Path:
        try:
            manifest = json.loads((self.root / MANIFEST).read_text("utf-8"))
        except FileNotFoundError:
            raise IndexStoreError(f"{self.root}: no index here (run 'yakgwan ingest PATH --index {self.root}' first)") from None
        except (OSError, ValueError) as exc:
            raise IndexStoreError(f"{self.root}: unreadable index manifest ({exc})") from None
        if manifest.get("format") != FORMAT:
            raise IndexStoreError(f"{self.root}: index format {manifest.get('format')!r}, expected {FORMAT}; re-ingest")
        return self.root / str(manifest["generation"])

    def read(self) -> IndexData:
        for attempt in range(3):
            gen = self._generation_dir()
            try:
                return _read_generation(gen)
            except FileNotFoundError:
                if attempt == 2:
                    raise IndexStoreError(f"{gen}: index files missing; re-ingest") from None
                time.sleep(0.05)  # a writer replaced the generation between two reads
        raise AssertionError("unreachable")

    def view(self) -> "LocalView":
        from yakgwan.store.local_view import LocalView

        return LocalView(self.read())

    # ---- writing -------------------------------------------------------------------------
    def commit(self, data: IndexData) -> None:
        created = not self.root.exists()
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            with _locked(self.root):
                name = time.strftime("g%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]
                tmp = self.root / f".{name}.tmp"
                try:
                    _write_generation(tmp, data)
                    tmp.rename(self.root / name)
                    _atomic_write(self.root / MANIFEST, json.dumps({"format": FORMAT, "generation": name}))
                except BaseException:
                    shutil.rmtree(tmp, ignore_errors=True)
                    shutil.rmtree(self.root / name, ignore_errors=True) if not self._is_current(name) else None
                    raise
                self._prune(keep={name})
        except BaseException:
            if created:
                shutil.rmtree(self.root, ignore_errors=True)
            raise

    def _is_current(self, name: str) -> bool:
        try:
            return json.loads((self.root / MANIFEST).read_text("utf-8")).get("generation") == name
        except (OSError, ValueError):
            return False

    def _prune(self, keep: set[str]) -> None:
        """Remove older generations and stale temporary folders, keeping the newest previous
        generation for readers that opened it a moment ago."""
        gens = sorted(p for p in self.root.iterdir() if p.is_dir() and p.name.startswith("g"))
        previous = [p for p in gens if p.name not in keep][-1:]
        for p in self.root.iterdir():
            if p.is_dir() and p.name not in keep and p not in previous and (p.name.startswith("g") or p.name.endswith(".tmp")):
                shutil.rmtree(p, ignore_errors=True)


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:6]}.tmp")
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def _write_generation(gen: Path, data: IndexData) -> None:
    gen.mkdir()
    with open(gen / "chunks.jsonl", "w", encoding="utf-8") as fh:
        for c in data.chunks:
            fh.write(json.dumps(dataclasses.asdict(c), ensure_ascii=False) + "\n")
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
        chunks = [_chunk_from_json(json.loads(line)) for line in fh]
    with open(gen / "tokens.jsonl", encoding="utf-8") as fh:
        tokens = [json.loads(line) for line in fh]
    docs = {k: DocRecord(**v) for k, v in json.loads((gen / "docs.json").read_text("utf-8")).items()}
    meta = json.loads((gen / "meta.json").read_text("utf-8"))
    vectors = np.load(gen / "vectors.npy", allow_pickle=False)
    mask = np.load(gen / "dense_mask.npy", allow_pickle=False)
    with np.load(gen / "bm25.npz", allow_pickle=False) as z:
        arrays: dict[str, object] = {k: z[k] for k in z.files}
    arrays.update(json.loads((gen / "bm25.json").read_text("utf-8")))
    extra = dict(meta.get("extra") or {})
    extra["_bm25_arrays"] = arrays
    return IndexData(chunks, tokens, docs, meta["tokenizer"], meta["embedder"], int(meta["dim"]), vectors, mask, extra)


def _chunk_from_json(d: dict) -> Chunk:
    d["pages"] = tuple(d.get("pages") or ())
    return Chunk(**d)
