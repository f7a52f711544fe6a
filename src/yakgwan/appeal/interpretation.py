"""Reading a word the policy leaves open: the 보통약관's interpretation article (약관의 해석:
unclear terms read for the policyholder, 작성자 불이익; terms against the policyholder not read
broadly), and the notice's sentences where the insurer says how it reads a word ("…을 …로 보고",
"…에 포함되지 않는다고 판단", "…의 의미는").

The cues are general Korean for stating a reading, not words from any notice.
"""

from __future__ import annotations

import re

from yakgwan.core.records import Chunk
from yakgwan.text.sentences import clause_spans, letter_sentences

# the interpretation article's title (표준약관: 약관의 해석)
_TITLE = re.compile(r"해석")
# a reading stated: "X를 Y로 보고/보며/봅니다", "해석", "의미", "뜻", "포함되지 않는다고", "…라고 판단"
_READS = re.compile(r"(?:으로|로)\s*보(?:고|며|아|았|는|지|면)|봅니다|해석|의미|뜻으로|포함되지\s*않는다고|포함되지\s*않으며|[다라]고\s*판단")


def interpretation_article(chunks: list[Chunk]) -> list[tuple[Chunk, int, int]]:
    """The body sentences of the 보통약관's interpretation article (those that say how the
    policy is read: 해석), as (chunk, start, end); empty when the policy has none."""
    out: list[tuple[Chunk, int, int]] = []
    for c in sorted(chunks, key=lambda c: (c.doc_id, c.start)):
        if c.yakgwan == "보통약관" and c.article_title and _TITLE.search(c.article_title):
            out += [(c, s, e) for s, e in clause_spans(c.text) if "해석" in c.text[s:e] and not c.text[s:e].lstrip().startswith("제")]
    return out


def stated_readings(text: str) -> list[str]:
    """The sentences of ``text`` (a notice's reason) that state how the insurer reads a word."""
    return [s for s in letter_sentences(text) if _READS.search(s)]
