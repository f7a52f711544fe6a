"""The BERT/XLM-R encoder of multilingual-e5-small in float32 numpy, on dequantised weights.

Per layer (post-LayerNorm BERT): ``x = LN(x + Attn(x))``, ``x = LN(x + FFN(x))`` with
``FFN(x) = GELU(x Wi + bi) Wf + bf`` (exact erf GELU) and 12-head softmax attention. The input
is word + position + token-type-0 embeddings, then LayerNorm; the output of :func:`forward` is
the mean of the last hidden states over every token of each window (``<s>``/``</s>`` included).
Attention runs per sequence over its real tokens, so padding never enters a softmax.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from yakgwan.embedders.e5_weights import E5File, dequantize_q4

_FFN_ROWS = 256  # rows per FFN block: keeps the [rows, 1536] GELU input in cache
_GELU_ROWS = 64
_EXP_SAFE = 60.0  # exp(60) * 512 keys stays far below float32 max


@dataclass(frozen=True)
class _Layer:
    wqkv: np.ndarray  # [H, 3H], query part pre-scaled by 1/sqrt(head_dim)
    bqkv: np.ndarray
    wo: np.ndarray  # [H, H]
    bo: np.ndarray
    ln1: tuple[np.ndarray, np.ndarray]
    wi: np.ndarray  # [H, FF]
    bi: np.ndarray
    wf: np.ndarray  # [FF, H]
    bf: np.ndarray
    ln2: tuple[np.ndarray, np.ndarray]


@dataclass(frozen=True)
class Encoder:
    word: np.ndarray  # Q4_0 blocks [vocab, H/32, 18], dequantised per batch
    pos: np.ndarray  # [max_positions, H] plus the token-type-0 row
    emb_ln: tuple[np.ndarray, np.ndarray]
    layers: list[_Layer]
    heads: int
    eps: np.float32


def build_encoder(f: E5File) -> Encoder:
    h = f.header
    H, FF = h.hidden, h.ffn
    scale = np.float32(1.0 / np.sqrt(H // h.heads))
    layers = []
    for i in range(h.layers):
        p = f"l{i}."
        wq = f.q4(p + "q.w", H, H) * scale
        wqkv = np.concatenate((wq, f.q4(p + "k.w", H, H), f.q4(p + "v.w", H, H)), axis=0)
        bqkv = np.concatenate((f.f32(p + "q.b", (H,)) * scale, f.f32(p + "k.b", (H,)), f.f32(p + "v.b", (H,))))
        layers.append(
            _Layer(
                wqkv=np.ascontiguousarray(wqkv.T),
                bqkv=bqkv.astype(np.float32),
                wo=np.ascontiguousarray(f.q4(p + "ao.w", H, H).T),
                bo=f.f32(p + "ao.b", (H,)).copy(),
                ln1=(f.f32(p + "aln.w", (H,)).copy(), f.f32(p + "aln.b", (H,)).copy()),
                wi=np.ascontiguousarray(f.q4(p + "fi.w", FF, H).T),
                bi=f.f32(p + "fi.b", (FF,)).copy(),
                wf=np.ascontiguousarray(f.q4(p + "fo.w", H, FF).T),
                bf=f.f32(p + "fo.b", (H,)).copy(),
                ln2=(f.f32(p + "oln.w", (H,)).copy(), f.f32(p + "oln.b", (H,)).copy()),
            )
        )
    pos = f.f32("emb.pos", (h.max_positions, H)) + f.f32("emb.type", (h.type_vocab, H))[0]
    return Encoder(
        word=f.q4_blocks("emb.word", h.vocab, H).copy(),
        pos=pos.astype(np.float32),
        emb_ln=(f.f32("emb.ln.w", (H,)).copy(), f.f32("emb.ln.b", (H,)).copy()),
        layers=layers,
        heads=h.heads,
        eps=np.float32(h.eps),
    )


def forward(m: Encoder, windows: list[list[int]]) -> np.ndarray:
    """Mean-pooled last hidden states, one row per window (windows padded to the longest)."""
    x = hidden_states(m, windows)
    return np.stack([x[b, :n].mean(axis=0, dtype=np.float64) for b, n in enumerate(len(w) for w in windows)])


def hidden_states(m: Encoder, windows: list[list[int]]) -> np.ndarray:
    """Last hidden states (B, L, H) of the windows padded to the longest; rows past a window's
    length are padding."""
    B, L, H = len(windows), max(len(w) for w in windows), m.pos.shape[1]
    lengths = [len(w) for w in windows]
    ids = np.zeros((B, L), dtype=np.intp)
    for b, w in enumerate(windows):
        ids[b, : len(w)] = w
    x = dequantize_q4(m.word[ids.ravel()]).reshape(B, L, H)
    x += m.pos[:L]
    x = x.reshape(B * L, H)
    _layer_norm(x, m.emb_ln, m.eps)
    for ly in m.layers:
        qkv = x @ ly.wqkv
        qkv += ly.bqkv
        ctx = _attention(qkv.reshape(B, L, 3, m.heads, H // m.heads), lengths)
        h = ctx.reshape(B * L, H) @ ly.wo
        h += ly.bo
        h += x
        x = _layer_norm(h, ly.ln1, m.eps)
        h = _ffn(x, ly)
        h += x
        x = _layer_norm(h, ly.ln2, m.eps)
    return x.reshape(B, L, H)


def _attention(qkv: np.ndarray, lengths: list[int]) -> np.ndarray:
    """softmax(q kᵀ) v per sequence and head over its real tokens only (q is pre-scaled).

    ``qkv`` is ``[B, L, 3, heads, head_dim]``; padded rows of the result are zero. The row
    maximum is subtracted before ``exp`` only when ``max|q|·max|k|`` could overflow it.
    """
    B, L, _, heads, hd = qkv.shape
    ctx = np.zeros((B, L, heads, hd), dtype=np.float32)
    for b, n in enumerate(lengths):
        q, k, v = qkv[b, :n, 0], qkv[b, :n, 1], qkv[b, :n, 2]
        s = q.transpose(1, 0, 2) @ np.ascontiguousarray(k.transpose(1, 2, 0))  # [heads, n, n]
        bound = np.sqrt(np.einsum("nhd,nhd->nh", q, q).max() * np.einsum("nhd,nhd->nh", k, k).max())
        if bound > _EXP_SAFE:
            s -= s.max(axis=-1, keepdims=True)
        np.exp(s, out=s)
        denom = s.sum(axis=-1, keepdims=True)
        c = s @ v.transpose(1, 0, 2)
        c /= denom
        ctx[b, :n] = c.transpose(1, 0, 2)
    return ctx


def _ffn(x: np.ndarray, ly: _Layer) -> np.ndarray:
    """GELU(x Wi + bi) Wf + bf, in row blocks so the wide intermediate stays in cache."""
    out = np.empty_like(x)
    for r in range(0, x.shape[0], _FFN_ROWS):
        mid = x[r : r + _FFN_ROWS] @ ly.wi
        mid += ly.bi
        for g in range(0, mid.shape[0], _GELU_ROWS):
            _gelu_inplace(mid[g : g + _GELU_ROWS])
        np.matmul(mid, ly.wf, out=out[r : r + _FFN_ROWS])
    out += ly.bf
    return out


def _layer_norm(x: np.ndarray, wb: tuple[np.ndarray, np.ndarray], eps: np.float32) -> np.ndarray:
    """In place: ``(x - mean) / sqrt(var + eps) * w + b`` over the last axis (biased variance)."""
    x -= x.mean(axis=1, keepdims=True)
    var = np.einsum("ij,ij->i", x, x) / np.float32(x.shape[1])
    x *= (1.0 / np.sqrt(var + eps))[:, None]
    x *= wb[0]
    x += wb[1]
    return x


# erf(z) ≈ z·P(z²)/Q(z²) on z clipped to [-4, 4] (Eigen's float32 erf, a few ulp); GELU built on
# it stays within 2e-6 of a float64 erf GELU for |x| ≤ 12.
_ERF_P = tuple(
    np.float32(c)
    for c in (
        -2.72614225801306e-10,
        2.77068142495902e-08,
        -2.10102402082508e-06,
        -5.69250639462346e-05,
        -7.34990630326855e-04,
        -2.95459980854025e-03,
        -1.60960333262415e-02,
    )
)
_ERF_Q = tuple(
    np.float32(c)
    for c in (
        -1.45660718464996e-05,
        -2.13374055278905e-04,
        -1.68282697438203e-03,
        -7.37332916720468e-03,
        -1.42647390514189e-02,
    )
)


def _gelu_inplace(x: np.ndarray) -> None:
    """GELU(x) = x/2 · (1 + erf(x/√2)) (exact erf form, as in the BERT/XLM-R config "gelu")."""
    z = x * np.float32(0.7071067811865476)
    np.clip(z, -4.0, 4.0, out=z)
    z2 = z * z
    p = z2 * _ERF_P[0]
    p += _ERF_P[1]
    for c in _ERF_P[2:]:
        p *= z2
        p += c
    p *= z
    q = z2 * _ERF_Q[0]
    q += _ERF_Q[1]
    for c in _ERF_Q[2:]:
        q *= z2
        q += c
    p /= q
    p += np.float32(1.0)
    p *= np.float32(0.5)
    x *= p
