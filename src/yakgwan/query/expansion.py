"""The seed's 3-stage query expansion: the original query, one rewrite and two expansions."""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.query.expander import QueryExpander


@dataclass
class ExpansionTransform:
    """The original, one rewrite and two expansions, de-duplicated in that order."""

    rewrite: QueryExpander
    expand: QueryExpander

    def transform(self, query: str) -> list[str]:
        return list(dict.fromkeys([*self.rewrite.transform(query), *self.expand.transform(query)]))
