"""Loading an embedder's model on a thread of its own while an ingest reads and indexes the
documents lexically. The embedder's ``load()`` is idempotent and takes a lock, so an ``embed`` on
another thread waits for this load instead of starting a second one. (A cold ``ask`` was measured
with the same overlap, the model loading beside the Korean analyser and the clause map: no gain
on 2 cores, p50 2.55 s against 2.49 s without it over 20 interleaved runs, so ``ask`` loads it
when it first embeds.)"""

from __future__ import annotations

import threading

from yakgwan.core.protocols import Embedder, Loads


class Preload:
    """Loads a ``Loads`` embedder's model on a thread of its own; ``wait()`` joins it and raises
    what loading raised; ``settle()`` joins it and drops that (nothing needed the model). Nothing
    happens for an embedder without ``load()`` (a served one)."""

    def __init__(self, embedder: Embedder | None) -> None:
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        if isinstance(embedder, Loads):
            self._thread = threading.Thread(target=self._run, args=(embedder,), name="embedder-load", daemon=True)
            self._thread.start()

    def _run(self, embedder: Loads) -> None:
        try:
            embedder.load()
        except BaseException as exc:  # raised again in wait(), on the caller's thread
            self._error = exc

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
        if self._error is not None:
            raise self._error

    def settle(self) -> None:
        """Joins the load when nothing waited for it; what it raised is dropped (no vector needed
        it). A process must not exit while a native library builds on this thread."""
        if self._thread is not None:
            self._thread.join()
