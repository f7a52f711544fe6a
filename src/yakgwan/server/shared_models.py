"""Models shared by every request and job of the service, each loaded once on first use.

The Korean analyser, the embedder and a llama.cpp model keep state between calls, so each is
used by one thread at a time (a lock per model). The LLM facade (its response cache is an SQLite
connection, its usage counters are per run) is made fresh for each request around the one shared
provider."""

from __future__ import annotations

import threading
from typing import Callable, Generic, TypeVar

from yakgwan.config import Settings
from yakgwan.embedders import make_embedder
from yakgwan.errors import UnknownName
from yakgwan.llm import LLM, PROVIDERS
from yakgwan.llm.cache import ResponseCache
from yakgwan.protocols import Embedder
from yakgwan.text.korean import Tokenizer, make_tokenizer

T = TypeVar("T")


class Serialised(Generic[T]):
    """Every method call on the wrapped object holds ``lock``; attributes read through."""

    def __init__(self, target: T, lock: threading.Lock) -> None:
        self._target = target
        self._lock = lock

    def __getattr__(self, name: str) -> object:
        attr = getattr(self._target, name)
        if not callable(attr):
            return attr

        def call(*args: object, **kwargs: object) -> object:  # noqa: ANN401 - a transparent proxy
            with self._lock:
                return attr(*args, **kwargs)

        return call


class SharedModels:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.Lock()
        self._tokenizers: dict[str, Tokenizer] = {}
        self._embedder: Embedder | None = None
        self._provider: object | None = None

    def tokenizer(self, name: str) -> Tokenizer:
        with self._lock:
            if name not in self._tokenizers:
                self._tokenizers[name] = Serialised(make_tokenizer(name), threading.Lock())  # type: ignore[assignment]
            return self._tokenizers[name]

    def embedder(self) -> Embedder:
        with self._lock:
            if self._embedder is None:
                self._embedder = Serialised(make_embedder(self.settings.embedder), threading.Lock())  # type: ignore[assignment]
            return self._embedder  # type: ignore[return-value]

    def llm(self) -> LLM | None:
        """A fresh facade (own cache connection and counters) around the shared provider; None
        when no LLM is configured."""
        cfg = self.settings.llm
        if cfg.provider == "none":
            return None
        with self._lock:
            if self._provider is None:
                factory = PROVIDERS.get(cfg.provider)
                if factory is None:
                    raise UnknownName("LLM provider", cfg.provider, [*PROVIDERS, "none"])
                self._provider = Serialised(factory(cfg, self.settings.cache_dir), threading.Lock())
            provider = self._provider
        cache = ResponseCache(self.settings.cache_dir / "llm-responses.sqlite") if cfg.use_cache else None
        return LLM(provider, cache=cache)  # type: ignore[arg-type]
