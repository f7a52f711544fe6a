"""Progress: bars on stderr (tqdm), switched off by ``--quiet``, and an optional sink that
receives ``(stage, done, total)`` after every step (the HTTP API's job status reads it). A stage
is a catalogue message: the bar shows it in ``lang`` (the command line's), the sink passes it on
for each reader to read in theirs."""

from __future__ import annotations

from typing import Iterable, Iterator, TypeVar

from yakgwan.core.protocols import ProgressSink
from yakgwan.messages import Message

T = TypeVar("T")


def progress(
    items: Iterable[T], desc: Message, total: int | None = None, quiet: bool = False, unit: str = "it", sink: ProgressSink | None = None,
    lang: str = "en",
) -> Iterator[T]:
    if sink is not None:
        items = _reporting(items, desc, total, sink)
    if quiet:
        yield from items
        return
    from tqdm import tqdm

    yield from tqdm(items, desc=desc.text(lang), total=total, unit=unit, leave=False, dynamic_ncols=True, mininterval=0.5)


def _reporting(items: Iterable[T], desc: Message, total: int | None, sink: ProgressSink) -> Iterator[T]:
    n = total if total is not None else 0
    sink(desc, 0, n)
    done = 0
    for item in items:
        yield item
        done += 1
        sink(desc, done, max(n, done))


class Bar:
    """A manually advanced bar (for batched work), silent when ``quiet``."""

    def __init__(self, desc: Message, total: int, quiet: bool, unit: str = "it", sink: ProgressSink | None = None, lang: str = "en") -> None:
        self._bar = None
        self._desc, self._total, self._done, self._sink = desc, total, 0, sink
        if sink is not None:
            sink(desc, 0, total)
        if not quiet and total:
            from tqdm import tqdm

            self._bar = tqdm(desc=desc.text(lang), total=total, unit=unit, leave=False, dynamic_ncols=True, mininterval=0.5)

    def update(self, n: int) -> None:
        self._done += n
        if self._sink is not None:
            self._sink(self._desc, self._done, self._total)
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
