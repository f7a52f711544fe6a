"""Progress bars on stderr (tqdm), switched off by ``--quiet``."""

from __future__ import annotations

from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], desc: str, total: int | None = None, quiet: bool = False, unit: str = "it") -> Iterator[T]:
    if quiet:
        yield from items
        return
    from tqdm import tqdm

    yield from tqdm(items, desc=desc, total=total, unit=unit, leave=False, dynamic_ncols=True, mininterval=0.5)


class Bar:
    """A manually advanced bar (for batched work), silent when ``quiet``."""

    def __init__(self, desc: str, total: int, quiet: bool, unit: str = "it") -> None:
        self._bar = None
        if not quiet and total:
            from tqdm import tqdm

            self._bar = tqdm(desc=desc, total=total, unit=unit, leave=False, dynamic_ncols=True, mininterval=0.5)

    def update(self, n: int) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
