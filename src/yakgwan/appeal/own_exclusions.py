"""A 보통약관 exclusion applied to a 특약 that has its own list of exclusions.

Many 특약 print their own "보험금을 지급하지 않는 사유" article. Some take the 보통약관's in by
name ("회사는 보통약관 제5조(보험금을 지급하지 않는 사유) 및 아래의 손해에 대하여 …"), some only
some of its parts ("보통약관 제5조 제1항 제1호, 제3호, 제5호 및 아래의 사유로"); others list their
own grounds and nothing else. A notice that denies such a 특약's claim on a 보통약관 exclusion the
특약 does not take in — none named, or a part outside those it names — applies a ground the 특약
does not name. Whether the 특약's 준용규정 ("이 특별약관에
정하지 않은 사항은 보통약관을 따릅니다") reaches exclusions the 특약 settles itself is arguable; the
finding says what both articles print and leaves that to the reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from yakgwan.appeal.article_parts import listing, parts_of_chunks
from yakgwan.appeal.citations import ClauseRef, parse_clause_refs
from yakgwan.core.records import Chunk
from yakgwan.text.particles import josa

_EXCLUSION_TITLE = re.compile(r"지급하지\s*않는|보상하지\s*않는")
_NAMES_GENERAL = re.compile(r"보통약관\s*제\s*\d+\s*조")
_REFERS_BACK = re.compile(r"정하지\s*않은\s*사항은?\s*보통약관")


@dataclass(frozen=True)
class OwnExclusions:
    """A 특약's own exclusion article (its first chunk) and what it prints: its 호, the
    보통약관 articles (or parts of them) it takes in, and the 특약's 준용규정 article when it has one."""

    yakgwan: str
    article: Chunk
    items: tuple[int, ...]
    named: tuple[ClauseRef, ...]  # the 보통약관's articles and parts it names
    refers_back: Chunk | None

    @property
    def names_general(self) -> bool:
        return bool(self.named)

    def takes_in(self, ref: ClauseRef | None) -> bool:
        """Whether the part ``ref`` cites of a 보통약관 article is among what this list takes in:
        the whole article when it is named without parts; else the named 항 (and 호, when both
        sides give one). A citation of the article alone is taken in when the article is; with no
        citation to compare, whatever the list names counts as taken in."""
        if not self.named:
            return False
        if ref is None:
            return True
        same = [n for n in self.named if n.article == ref.article]
        if not same:
            return False
        if ref.paragraph is None or any(n.paragraph is None for n in same):
            return True
        return any(n.paragraph == ref.paragraph and (n.item is None or ref.item is None or n.item == ref.item) for n in same)

    def named_words(self, article: str) -> str:
        """The parts of 보통약관 ``article`` this list takes in, as it names them ("제1항 제1호, 제3호")."""
        return ", ".join(n.label.removeprefix(article).strip() or article for n in self.named if n.article == article)


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
    named = tuple(r for r in parse_clause_refs(text) if r.yakgwan == "보통약관" and r.statute is None) if _NAMES_GENERAL.search(text) else ()
    return OwnExclusions(yakgwan, same[0], parts.items_of(None), named, back)


def general_applied_to_own_list(cited_yakgwan: str, cited_title: str | None, claimed: Sequence[str],
                                chunks: Sequence[Chunk], cited: ClauseRef | None = None) -> list[tuple[str, OwnExclusions, str]]:
    """For a cited 보통약관 exclusion (``cited``: the part the notice cites): each claimed 특약
    with its own exclusion list that does not take that part in — it names no 보통약관 article,
    or only other parts — as (특약, its own exclusions, a sentence saying what it prints)."""
    if cited_yakgwan != "보통약관" or not is_exclusion(cited_title):
        return []
    out = []
    for name in claimed:
        own = own_exclusions(name, chunks)
        if own is None or own.takes_in(cited):
            continue
        art = own.article
        own_list = f"{art.article}({art.article_title})에 자체 면책 사유({listing(own.items, '호')})를 두고"
        if own.named and cited is not None:
            taken = "; ".join(f"보통약관 {a} 중 {own.named_words(a)}" for a in dict.fromkeys(n.article for n in own.named))
            said = f"{josa(f'「{name}」', '은')} {own_list} {taken}만 끌어오며, 통지서가 든 보통약관 {josa(cited.label, '은')} 그 가운데 없습니다"
        else:
            said = f"{josa(f'「{name}」', '은')} {own_list} 보통약관의 면책 조항을 끌어오지 않습니다"
        if own.refers_back is not None:
            said += f"; {josa(own.refers_back.article or '준용규정', '은')} 이 특약에 '정하지 않은 사항'만 보통약관을 따르게 합니다"
        out.append((name, own, said))
    return out
