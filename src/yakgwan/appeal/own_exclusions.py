"""A 보통약관 exclusion applied to a 특약 that has its own list of exclusions.

Many 특약 print their own "보험금을 지급하지 않는 사유" article. Some take the 보통약관's in by
name ("회사는 보통약관 제5조(보험금을 지급하지 않는 사유) 및 아래의 손해에 대하여 …"); others list
their own grounds and nothing else, and a notice that denies such a 특약's claim on a 보통약관
exclusion applies a ground the 특약 does not name. Whether the 특약's 준용규정 ("이 특별약관에
정하지 않은 사항은 보통약관을 따릅니다") reaches exclusions the 특약 settles itself is arguable; the
finding says what both articles print and leaves that to the reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from yakgwan.appeal.article_parts import listing, parts_of_chunks
from yakgwan.core.records import Chunk
from yakgwan.text.particles import josa

_EXCLUSION_TITLE = re.compile(r"지급하지\s*않는|보상하지\s*않는")
_NAMES_GENERAL = re.compile(r"보통약관\s*제\s*\d+\s*조")
_REFERS_BACK = re.compile(r"정하지\s*않은\s*사항은?\s*보통약관")


@dataclass(frozen=True)
class OwnExclusions:
    """A 특약's own exclusion article (its first chunk) and what it prints: its 호, whether it
    names a 보통약관 article, and the 특약's 준용규정 article when it has one."""

    yakgwan: str
    article: Chunk
    items: tuple[int, ...]
    names_general: bool
    refers_back: Chunk | None


def is_exclusion(title: str | None) -> bool:
    return bool(title and _EXCLUSION_TITLE.search(title))


def own_exclusions(yakgwan: str, chunks: Sequence[Chunk]) -> OwnExclusions | None:
    """The 특약 ``yakgwan``'s own exclusion article among ``chunks`` (the policy's), or None when
    it prints none."""
    mine = sorted((c for c in chunks if c.yakgwan == yakgwan), key=lambda c: (c.doc_id, c.start))
    excl = [c for c in mine if is_exclusion(c.article_title)]
    if not excl:
        return None
    same = [c for c in excl if c.article == excl[0].article]
    parts = parts_of_chunks(same)
    text = "\n".join(c.text for c in same)
    back = next((c for c in mine if _REFERS_BACK.search(c.text)), None)
    return OwnExclusions(yakgwan, same[0], parts.items_of(None), bool(_NAMES_GENERAL.search(text)), back)


def general_applied_to_own_list(cited_yakgwan: str, cited_title: str | None, claimed: Sequence[str],
                                chunks: Sequence[Chunk]) -> list[tuple[str, OwnExclusions, str]]:
    """For a cited 보통약관 exclusion: each claimed 특약 with its own exclusion list that names no
    보통약관 article, as (특약, its own exclusions, a sentence saying what it prints)."""
    if cited_yakgwan != "보통약관" or not is_exclusion(cited_title):
        return []
    out = []
    for name in claimed:
        own = own_exclusions(name, chunks)
        if own is None or own.names_general:
            continue
        art = own.article
        said = f"{josa(f'「{name}」', '은')} {art.article}({art.article_title})에 자체 면책 사유({listing(own.items, '호')})를 두고 보통약관의 면책 조항을 끌어오지 않습니다"
        if own.refers_back is not None:
            said += f"; {josa(own.refers_back.article or '준용규정', '은')} 이 특약에 '정하지 않은 사항'만 보통약관을 따르게 합니다"
        out.append((name, own, said))
    return out
