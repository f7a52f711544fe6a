"""The policy an appeal is read against: the index of one 약관 document (opened by the ``appeal``
service), the exact 약관 names it contains, and article lookup by (약관, 제N조)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from yakgwan.appeal.citations import normalise_name
from yakgwan.core.errors import InputError
from yakgwan.messages import msg
from yakgwan.core.location import IndexLocation
from yakgwan.core.records import Chunk
from yakgwan.pipelines import PipelineContext


# words of product names that name no product (general insurance vocabulary: dividends, renewal,
# sales channel, the word 보험 and its kinds)
GENERIC_PRODUCT_WORDS = frozenset({"무배당", "유배당", "다이렉트", "갱신형", "비갱신형", "플러스", "보험", "손해보험", "생명보험", "종합보험",
                                   "실손의료보험", "건강보험", "운전자보험", "상해보험", "여행보험", "해외여행보험", "자동차보험", "화재보험"})


@dataclass
class Policy:
    source: str
    index_dir: IndexLocation  # the index folder or postgresql:// collection
    ctx: PipelineContext
    names: tuple[str, ...]  # 약관 names as printed (보통약관 and every 특별약관)
    products: tuple[str, ...]  # document titles, e.g. "KB스마트운전자보험"

    @property
    def chunks(self) -> list[Chunk]:
        return list(self.ctx.view.chunks)

    def article_chunks(self, yakgwan: str, article: str) -> list[Chunk]:
        """The chunks of ``article`` ("제2조", "제29조의2") of the 약관 named exactly ``yakgwan``,
        in document order."""
        return sorted((c for c in self.ctx.view.chunks if c.yakgwan == yakgwan and c.article == article), key=lambda c: (c.doc_id, c.start))

    def covers_product(self, product: str | None, misread: bool = False) -> bool:
        """Whether a notice's product name is this policy's (True when either is unknown). With
        ``misread`` (the name was read by OCR, which takes a Latin "KB" for "8"), only the names'
        Hangul is compared."""
        if not product or not self.products:
            return True
        form = (lambda n: "".join(re.findall(r"[가-힣]+", n))) if misread else normalise_name
        p = form(product)
        if not p or any(form(t) in p or p in form(t) for t in self.products):
            return True
        # a marketed name the policy prints only inside its 약관 names ("무배당 펫퍼민트 Puppy&Family보험
        # 다이렉트2601" of a policy titled by its kind, whose 특약 are "펫퍼민트 반려견 …"): a word of
        # the product's own that a 약관 name holds
        own = [w for w in re.findall(r"[가-힣]{3,}", product) if w not in GENERIC_PRODUCT_WORDS]
        return any(w in "".join(n.split()) for w in own for n in (*self.names, *self.products))


def policy_from_context(source: str, index_dir: IndexLocation, ctx: PipelineContext) -> Policy:
    """The policy whose index ``ctx`` reads; an index without 약관 structure is an ``InputError``
    naming ``source``."""
    names = tuple(dict.fromkeys(c.yakgwan for c in ctx.view.chunks if c.yakgwan))
    if not names:
        raise InputError(source, msg("appeal.not_a_policy"))
    # what each document is a policy of: its product (set at ingest or printed in its 보통약관 heading) and its title
    products = tuple(dict.fromkeys(x for d in ctx.view.docs.values() for x in (d.label("product"), d.title) if x))
    return Policy(source, index_dir, ctx, names, products)
