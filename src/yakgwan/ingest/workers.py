"""Where an ingest's heavy steps run: reading files, tokenising chunks, embedding batches.

``LocalWorkers`` runs them in this process. ``RayWorkers`` (``ingest --ray``) spreads them over
the actors of a Ray cluster, each of which builds the tokenizer and the embedder once from the
same configuration; results come back in the order the work was given, so the index is the one
a single process builds (the same chunks and tokens; vectors from the same model and batches).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Protocol, Sequence

import numpy as np

from yakgwan.core.errors import InputError, YakgwanError
from yakgwan.core.protocols import Embedder
from yakgwan.core.records import Document
from yakgwan.ingest.loaders import SourceFile, load_file
from yakgwan.text.tokenizer import Tokenizer
from yakgwan.messages import msg

Loaded = list[Document] | Exception  # a file's documents, or why it could not be read
FileProgress = Callable[[SourceFile, int, int], None]  # a file's pages read by OCR: (file, done, total)
TOKENIZE_BATCH = 64  # texts per task sent to a worker


class Workers(Protocol):
    def load(self, files: Sequence[SourceFile], max_bytes: int, progress: FileProgress | None = None) -> Iterator[Loaded]:
        """Each file's documents (or the exception that reading it raised), in order;
        ``progress`` hears of pages read by OCR where the workers can tell."""
        ...

    def tokenize(self, texts: Sequence[str], on_done: Callable[[int], None]) -> list[list[str]]:
        """The terms of each text, in order; ``on_done(n)`` as n more are done."""
        ...

    def embed(self, batches: Sequence[Sequence[str]]) -> Iterator[np.ndarray]:
        """The passage vectors of each batch, in order."""
        ...

    def close(self) -> None: ...


def read(src: SourceFile, max_bytes: int, progress: FileProgress | None = None) -> Loaded:
    try:
        return load_file(src, max_bytes, (lambda done, total: progress(src, done, total)) if progress else None)
    except Exception as exc:  # noqa: BLE001 - the ingest reports it as that file's failure
        return exc


@dataclass
class LocalWorkers:
    tokenizer: Tokenizer
    embedder: Embedder

    def load(self, files: Sequence[SourceFile], max_bytes: int, progress: FileProgress | None = None) -> Iterator[Loaded]:
        for src in files:
            yield read(src, max_bytes, progress)

    def tokenize(self, texts: Sequence[str], on_done: Callable[[int], None]) -> list[list[str]]:
        out = []
        for b in range(0, len(texts), TOKENIZE_BATCH):
            out.extend(self.tokenizer.tokenize_many(texts[b : b + TOKENIZE_BATCH]))
            on_done(len(texts[b : b + TOKENIZE_BATCH]))
        return out

    def embed(self, batches: Sequence[Sequence[str]]) -> Iterator[np.ndarray]:
        for batch in batches:
            yield self.embedder.embed(list(batch), "passage")

    def close(self) -> None:
        pass


@dataclass(frozen=True)
class WorkerSpec:
    """What each Ray actor builds its tokenizer and embedder from (plain, picklable values)."""

    tokenizer: str
    embedder: Any  # an EmbedderConfig
    cache_dir: Path


class _Actor:
    """One Ray actor: the tokenizer and the embedder, built once."""

    def __init__(self, spec: WorkerSpec) -> None:
        from yakgwan.embedders import make_embedder
        from yakgwan.text.registry import make_tokenizer

        self.tokenizer = make_tokenizer(spec.tokenizer)
        self.embedder = make_embedder(spec.embedder, spec.cache_dir)

    def read(self, src: SourceFile, max_bytes: int) -> Loaded:
        return read(src, max_bytes)

    def tokenize(self, texts: list[str]) -> list[list[str]]:
        return self.tokenizer.tokenize_many(texts)

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.asarray(self.embedder.embed(texts, "passage"), dtype=np.float32)

    def describe(self) -> tuple[str, int, str]:
        import socket

        return socket.gethostname(), os.getpid(), self.embedder.model_id


class RayWorkers:
    """``address``: ``local`` (a cluster of this machine's cores, started here and stopped by
    ``close``), ``auto`` (the cluster this machine belongs to) or a Ray address. ``workers``:
    actors to start (default: the cluster's CPUs)."""

    def __init__(self, address: str, spec: WorkerSpec, workers: int | None = None) -> None:
        if workers is not None and workers < 1:
            raise InputError(None, msg("ray.workers", value=workers))  # before a cluster starts
        self._ray, self._started = connect(address)
        self.actors = start_actors(self._ray, _Actor, (spec,), workers)
        self.where = self._ray.get([a.describe.remote() for a in self.actors])  # every actor built its models (or this raises)

    def _ordered(self, method: str, items: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
        return ordered(self._ray, self.actors, method, items)

    def load(self, files: Sequence[SourceFile], max_bytes: int, progress: FileProgress | None = None) -> Iterator[Loaded]:
        return self._ordered("read", [(src, max_bytes) for src in files])

    def tokenize(self, texts: Sequence[str], on_done: Callable[[int], None]) -> list[list[str]]:
        out: list[list[str]] = []
        batches = [list(texts[b : b + TOKENIZE_BATCH]) for b in range(0, len(texts), TOKENIZE_BATCH)]
        for batch, terms in zip(batches, self._ordered("tokenize", [(b,) for b in batches])):
            out.extend(terms)
            on_done(len(batch))
        return out

    def embed(self, batches: Sequence[Sequence[str]]) -> Iterator[np.ndarray]:
        return self._ordered("embed", [(list(b),) for b in batches])

    def close(self) -> None:
        stop(self._ray, self.actors, self._started)
        self.actors = []


def connect(address: str) -> tuple[Any, bool]:
    """Ray, connected to the cluster ``address`` names (``local``: started here on this
    machine's cores), and whether this call started it (then ``stop`` shuts it down)."""
    try:
        import ray
    except ImportError:
        raise YakgwanError(msg("ray.missing")) from None
    if ray.is_initialized():
        return ray, False
    try:
        if address == "local":
            ray.init(num_cpus=os.cpu_count(), include_dashboard=False, log_to_driver=False, configure_logging=False)
        else:
            ray.init(address=address, log_to_driver=False, configure_logging=False)
    except Exception as exc:  # noqa: BLE001 - said in words
        raise YakgwanError(msg("ray.unreachable", address=address, why=f"{type(exc).__name__}: {exc}")) from None
    return ray, True


def start_actors(ray: Any, cls: type, args: tuple[Any, ...], workers: int | None) -> list[Any]:
    """``workers`` actors of ``cls`` (default: one per CPU of the cluster), one CPU each."""
    if workers is not None and workers < 1:
        raise InputError(None, msg("ray.workers", value=workers))
    n = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
    actor = ray.remote(num_cpus=1)(cls)
    return [actor.remote(*args) for _ in range(n)]


def ordered(ray: Any, actors: list[Any], method: str, items: Sequence[tuple[Any, ...]]) -> Iterator[Any]:
    """Call ``method`` on the actors for each argument tuple, round robin, at most two tasks
    per actor in flight, yielding the results in the order of ``items``."""
    pending: list[Any] = []
    nxt = 0
    for i, args in enumerate(items):
        pending.append(getattr(actors[i % len(actors)], method).remote(*args))
        while len(pending) - nxt >= 2 * len(actors):
            yield ray.get(pending[nxt])
            pending[nxt] = None
            nxt += 1
    while nxt < len(pending):
        yield ray.get(pending[nxt])
        pending[nxt] = None
        nxt += 1


def stop(ray: Any, actors: list[Any], started: bool) -> None:
    for a in actors:
        ray.kill(a)
    if started:
        ray.shutdown()
