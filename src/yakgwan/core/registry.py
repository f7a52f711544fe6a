"""A named collection of implementations of one role; the only list of what exists.

``Registry("tokenizer")`` holds, say, factories by name. ``get`` of a name it does not hold
raises :class:`UnknownName`, whose message lists the registered names (generated, never a
hand-kept list).
"""

from __future__ import annotations

from typing import Generic, Iterator, TypeVar

from yakgwan.core.errors import UnknownName

T = TypeVar("T")


class Registry(Generic[T]):
    """Names mapped to items of one kind (factories, specs, classes), in registration order."""

    def __init__(self, kind: str) -> None:
        if not kind:
            raise ValueError("a registry needs the kind of thing it names, e.g. 'tokenizer'")
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str, item: T) -> T:
        """Add ``item`` under ``name``; a name is registered once."""
        if not name or name != name.strip():
            raise ValueError(f"{self.kind} name {name!r}: use a non-empty name without surrounding spaces")
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._items[name] = item
        return item

    def get(self, name: str) -> T:
        try:
            return self._items[name]
        except KeyError:
            raise UnknownName(self.kind, name, list(self._items)) from None

    def names(self) -> list[str]:
        return list(self._items)

    def items(self) -> list[tuple[str, T]]:
        return list(self._items.items())

    def values(self) -> list[T]:
        return list(self._items.values())

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)
