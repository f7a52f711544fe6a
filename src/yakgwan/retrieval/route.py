"""The ``route`` step: which 약관 of a policy a question is about.

A question that names a 특약 in full or in part ("벌금 특약", "교통사고처리지원금(Ⅰ)") is
scoped to it; one that names none is about the 보통약관 first, where the general rules
(청약, 청구, 지급, 해지, 분쟁) are printed. The decision is the share of each 약관 name's idf
mass the question's terms carry (:meth:`ClauseMap.coverage`); the question's terms include the
clause terms the thesaurus added, so an everyday word can imply a 특약 (합의금 →
교통사고처리지원금).
"""

from __future__ import annotations

from typing import Sequence

from yakgwan.core.records import Route
from yakgwan.retrieval.clause_map import ClauseMap

NAMED = 0.6  # share of a name's idf mass at which a question names that 약관


def route_query(terms: Sequence[str], cmap: ClauseMap, added: Sequence[str] = ()) -> Route:
    """The route of a question given its index terms (thesaurus terms included)."""
    cov = cmap.coverage(terms)
    named = sorted(((n, c) for n, c in cov.items() if c >= NAMED and n != cmap.base), key=lambda nc: -nc[1])
    if named:
        return Route("named", tuple(named), tuple(added))
    if cmap.base is not None:
        return Route("base", ((cmap.base, cov.get(cmap.base, 0.0)),), tuple(added))
    return Route("all", (), tuple(added))
