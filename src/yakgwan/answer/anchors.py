"""The names and numbers a question hangs on, and whether the knowledge base mentions them.

A question about 나트랑, LG전자 or the year 2030 cannot be answered from documents that never
name them, however close the retrieved passages look. The anchors are the question's proper
nouns, foreign words and years (Kiwi tags NNP, SL, and SN when it is a year: other numbers are
often hypothetical, "출발 10일 전에 취소하면", and answered by a rule for a range); one is *missing* when its characters
occur nowhere in the index's text (spaces and case ignored, so tokenisation cannot hide a match).
Common nouns are not anchors: an answerable question often words a fact differently from the
document (차이, 총액, 합계), so their absence proves nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable

ANCHOR_TAGS = frozenset({"NNP", "SL", "SN"})
_YEAR = re.compile(r"(?:19|20)\d\d")


@dataclass(frozen=True)
class Anchor:
    form: str
    tag: str


def normalise(text: str) -> str:
    """Text without whitespace, lower-cased: what anchor matching compares."""
    return "".join(text.split()).lower()


def missing_anchors(anchors: Iterable[Anchor], corpus: str) -> list[Anchor]:
    """The anchors whose characters do not occur in ``corpus`` (already :func:`normalise`d)."""
    return [a for a in anchors if normalise(a.form) not in corpus]


@dataclass
class AnchorFinder:
    """Anchors of a question with Kiwi (loaded on first use)."""

    _kiwi: Any = field(default=None, repr=False)

    def anchors(self, question: str) -> list[Anchor]:
        if self._kiwi is None:
            from kiwipiepy import Kiwi

            self._kiwi = Kiwi()
        toks = self._kiwi.tokenize(question)
        out = []
        for i, t in enumerate(toks):
            if t.tag not in ANCHOR_TAGS:
                continue
            if t.tag == "SN":  # a year: 19xx/20xx written as one ("2030년"), not an amount ("2000만원")
                nxt = toks[i + 1].form if i + 1 < len(toks) else ""
                if not (_YEAR.fullmatch(t.form) and nxt.startswith("년")):
                    continue
            out.append(Anchor(t.form, t.tag))
        return list(dict.fromkeys(a for a in out if a.form.strip()))
