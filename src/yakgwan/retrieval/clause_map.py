"""The structure of a 약관 index that clause-aware retrieval reads: which 약관 the chunks belong
to, each chunk's title field, and whether the index is a policy at all.

Everything comes from the chunks the structure chunker wrote (``Chunk.yakgwan``, ``article``,
``article_title``, ``section``); nothing is configured. Built once per index view (a few
hundred milliseconds for a 168-page policy) and kept by the pipeline context.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterator, Mapping
from typing import Sequence

import numpy as np

from yakgwan.core.records import Chunk
from yakgwan.retrieval.grouping import clone_articles, shingles
from yakgwan.retrieval.scoring.bm25 import BM25Index
from yakgwan.text.token_cache import CachingTokenizer, TokenCache
from yakgwan.text.tokenizer import Tokenizer

# a collection is a policy when at least this share of its chunks sit inside a named 약관
POLICY_SHARE = 0.5
# a name's word printed in the text of more than this share of the other 약관 (those whose name
# lacks it: 보험금, 지급) is the policy's common vocabulary: a question that uses it gets no
# credit for naming a 약관 by it (the word still counts in the name's whole)
COMMON_SHARE = 0.5
MIN_COMMON = 2  # a one-character word (Ⅰ, 뇌) is never common: substring counts mean nothing for it
# the base terms are printed as 보통약관 (the standard name in Korean policies; 표준약관 names it so)
BASE_MARK = "보통약관"


def title_field(c: Chunk) -> str:
    """What a chunk is called: its 약관 name and its 조 title, or its table's or section's
    heading (``<별표1> 장해분류표``, ``자동차사고부상등급표``) after the 약관 it follows."""
    return f"{c.yakgwan or c.follows or ''} {c.article_title or c.section or ''}".strip()


def lucene_idf(df: int, n: int) -> float:
    """``ln(1 + (n - df + 0.5) / (df + 0.5))``, the idf of :mod:`yakgwan.retrieval.scoring.bm25`."""
    if not 0 <= df <= n:
        raise ValueError(f"df must be in [0, {n}], got {df}")
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


_SPACE = re.compile(r"\s+")
_TABLE_MARK = re.compile(r"별표\s*\d*|부표|붙임")  # how a 약관 numbers its tables: <별표1>, 【별표】, <부표>
_BRACKETS = re.compile(r"[<>【】\[\]〈〉()]")
MIN_TABLE_NAME = 3  # a heading name shorter than this (표, 사례) is too common to count as a citation


def is_table(c: Chunk) -> bool:
    """A chunk of a table: a 별표 the chunker kept as a table (outside any 약관), or, in an index
    built before, a headed appendix filed under a 약관 (no 조, a section heading)."""
    return c.kind == "table" or bool(c.yakgwan and not c.article and c.section)


@dataclass(frozen=True)
class _Table:
    doc_id: str
    yakgwan: str | None  # the 약관 it is filed under (an index built before), else the one it follows
    start: int  # where its first chunk lies in its document
    name: str  # its heading without the mark and brackets, whitespace-free ("" when too short)
    mark: str  # its mark, whitespace-free ("별표1", "별표"), or ""
    ids: tuple[str, ...]


def _tables(chunks: Sequence[Chunk]) -> list[_Table]:
    """The tables of ``chunks``: each run of one document's table chunks under one heading, longest
    name first (골절분류표II is read before the 골절분류표 it contains)."""
    by_doc: dict[str, list[Chunk]] = {}
    for c in chunks:
        by_doc.setdefault(c.doc_id, []).append(c)
    groups: list[list[Chunk]] = []  # runs of one document's table chunks under one heading
    for cs in by_doc.values():
        run: list[Chunk] = []
        for c in sorted(cs, key=lambda c: c.start):
            if run and not (is_table(c) and (c.section, c.yakgwan, c.follows) == (run[0].section, run[0].yakgwan, run[0].follows)):
                groups.append(run)
                run = []
            if is_table(c):
                run.append(c)
        if run:
            groups.append(run)
    out = []
    for cs in groups:
        doc_id, yakgwan, section = cs[0].doc_id, cs[0].yakgwan or cs[0].follows, cs[0].section or ""
        name = _SPACE.sub("", _BRACKETS.sub("", _TABLE_MARK.sub("", section)))
        mark = _TABLE_MARK.search(section)
        out.append(_Table(doc_id, yakgwan, min(c.start for c in cs), name if len(name) >= MIN_TABLE_NAME else "",
                          _SPACE.sub("", mark.group(0)) if mark else "", tuple(c.chunk_id for c in cs)))
    return sorted(out, key=lambda t: -len(t.name))


def _marked(tables: Sequence[_Table], c: Chunk, mark: str) -> _Table | None:
    """The table of ``c``'s document a mark in ``c`` cites: one printed after ``c``'s 약관 (or filed
    under it) with that mark, the first after ``c``, else the last before it; without a 약관
    of its own the first table after ``c`` with that mark, else the last before it."""
    marked = [t for t in tables if t.doc_id == c.doc_id and t.mark == mark]
    own = [t for t in marked if t.yakgwan is not None and t.yakgwan == c.yakgwan]
    same = sorted(own or [t for t in marked if t.yakgwan is None], key=lambda t: t.start)
    after = [t for t in same if t.start > c.start]
    return after[0] if after else (same[-1] if same else None)


def _cites_mark(text: str, mark: str) -> bool:
    """Whether whitespace-free ``text`` prints ``mark`` ("별표1" not inside "별표12", "별표" not
    inside "별표2")."""
    return bool(mark) and re.search(re.escape(mark) + r"(?!\d)", text) is not None


def table_citations(chunks: Sequence[Chunk], whole_article: bool = False) -> dict[str, tuple[str, ...]]:
    """For each clause chunk that cites a table of its own document, the ids of that table's chunks.

    A clause cites a table when its text (whitespace removed) carries the table's heading name
    (``<별표1> 장해분류표`` → 장해분류표: 특약 cite the 보통약관's tables by name), or the table's
    mark (``【별표】``, ``별표1``: "…(【별표】참조)에 해당되는 사고"): then the table with that
    mark printed next after the clause, else the last before it. ``whole_article=True`` gives
    the citation to the whole 조: every piece of an article cites what any of its pieces cites.
    Measured on the policy_qa dev set and not the default: one more hit@5 on the checking half,
    but the tables it lifts under every 처리지원금 제1조 displace the clauses two tuning-half
    answers quote (14/21 → 12/21 answered with every keyword).
    Pure; read from the structure chunker's fields and the text only.
    """
    tables = _tables(chunks)
    out: dict[str, tuple[str, ...]] = {}
    for c in chunks:
        if not c.article:
            continue
        text = _SPACE.sub("", c.text)
        cited: list[str] = []
        for t in tables:
            if t.doc_id != c.doc_id:
                continue
            if t.name and t.name in text:
                cited.extend(t.ids)
                text = text.replace(t.name, "\x00")  # a shorter name inside this one is not a second citation
        for mark in dict.fromkeys(t.mark for t in tables if t.doc_id == c.doc_id and t.mark):
            if _cites_mark(text, mark) and (t := _marked(tables, c, mark)) is not None and t.ids[0] not in cited:
                cited.extend(t.ids)
        if cited:
            out[c.chunk_id] = tuple(cited)
    if not whole_article:
        return out
    by_article: dict[tuple[str, str], list[str]] = {}
    for c in chunks:
        if c.yakgwan and c.article and c.chunk_id in out:
            by_article.setdefault((c.yakgwan, c.article), []).extend(out[c.chunk_id])
    for c in chunks:  # chunks outside any 약관 are never one unit: each keeps its own citations
        if c.yakgwan and c.article and (c.yakgwan, c.article) in by_article:
            out[c.chunk_id] = tuple(dict.fromkeys(by_article[(c.yakgwan, c.article)]))
    return out


def common_words(words: set[str], names: Sequence[str], chunks: Sequence[Chunk]) -> frozenset[str]:
    """Those of ``words`` (of at least ``MIN_COMMON`` characters) printed in the text of more than
    ``COMMON_SHARE`` of the 약관 whose name (whitespace aside) lacks the word. A word is found
    inside longer words, as Korean compounds print it (보험금 in 보험금청구권); a 약관's own
    text, which names it, does not count, nor do chunks outside any 약관. Pure."""
    texts: dict[str, list[str]] = {n: [] for n in names}
    for c in chunks:
        if c.yakgwan in texts:
            texts[c.yakgwan].append(_SPACE.sub("", c.text))
    joined = {n: "\x00".join(parts) for n, parts in texts.items()}
    bare = {n: _SPACE.sub("", n) for n in names}
    out = set()
    for w in words:
        if len(w) < MIN_COMMON:
            continue
        others = [n for n in names if w not in bare[n]]
        if others and sum(1 for n in others if w in joined[n]) > COMMON_SHARE * len(others):
            out.add(w)
    return frozenset(out)


def is_policy(chunks: Sequence[Chunk]) -> bool:
    """The documents are 약관: most chunks sit inside a 약관 the structure chunker named."""
    return bool(chunks) and sum(1 for c in chunks if c.yakgwan) >= POLICY_SHARE * len(chunks)


@dataclass
class ClauseMap:
    """The 약관 of an index and the title field of every chunk, as the clause stage scores them.

    ``names``: every 약관 name, in order of first appearance; ``name_terms``: each name's index
    terms with their idf over the names (a term many names share weighs little); ``common``: the
    name terms that are the policy's common vocabulary (:func:`common_words`), which count in a
    name's whole but earn a question no coverage (a name made only of such words, "( )보험금만의
    지급 특별약관", is named by no question);
    ``titles``: a BM25 index over the chunks' title fields (row = chunk position, ``row`` by id);
    ``cites``: the tables each clause cites (:func:`table_citations`).
    """

    chunks: Sequence[Chunk]
    names: tuple[str, ...]
    name_terms: tuple[dict[str, float], ...]
    titles: BM25Index
    base: str | None
    row: dict[str, int] = field(default_factory=dict, repr=False)  # chunk id -> position (row of ``titles``)
    cites: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)
    common: frozenset[str] = frozenset()
    _shingles: dict[str, frozenset[str]] = field(default_factory=dict, repr=False)
    _clones: dict[float, "DocClones"] = field(default_factory=dict, repr=False)
    _articles: dict[tuple[str, str], tuple[Chunk, ...]] | None = field(default=None, repr=False)

    @classmethod
    def build(cls, chunks: Sequence[Chunk], tokenizer: Tokenizer) -> "ClauseMap":
        names = tuple(dict.fromkeys(c.yakgwan for c in chunks if c.yakgwan))
        terms = [set(t) for t in tokenizer.tokenize_many(list(names))]
        df = Counter(t for ts in terms for t in ts)
        name_terms = tuple({t: lucene_idf(df[t], len(names)) for t in ts} for ts in terms)
        common = common_words({t for ts in terms for t in ts}, names, chunks)
        fields = [title_field(c) for c in chunks]
        distinct = list(dict.fromkeys(fields))  # pieces of one 조 and clone 특약 share a title: read each once
        read = dict(zip(distinct, tokenizer.tokenize_many(distinct)))
        titles = BM25Index.build([read[f] for f in fields])
        base = next((n for n in names if BASE_MARK in n.replace(" ", "")), None)
        row = {c.chunk_id: i for i, c in enumerate(chunks)}
        return cls(chunks, names, name_terms, titles, base, row, cites=table_citations(chunks), common=common)

    def coverage(self, query_terms: Sequence[str]) -> dict[str, float]:
        """For each 약관, the share of its name's idf mass that the query's terms carry, its
        common words (``common``) earning none: 1 when the question names it in full, near 0
        when it shares only the generic words."""
        q = set(query_terms) - self.common
        out: dict[str, float] = {}
        for name, terms in zip(self.names, self.name_terms):
            total = sum(terms.values())
            out[name] = sum(w for t, w in terms.items() if t in q) / total if total > 0 else 0.0
        return out

    def title_scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """BM25 of the query against every chunk's title field."""
        return self.titles.scores(query_terms)

    def articles_of(self, key: tuple[str, str]) -> tuple[Chunk, ...]:
        """The first piece of each 조 of one 약관 (``key``: document id, 약관 name), in order;
        the index is built on first use."""
        if self._articles is None:
            firsts: dict[tuple[str, str], dict[str, Chunk]] = {}
            for c in self.chunks:
                if c.yakgwan and c.article and c.kind != "law":
                    firsts.setdefault((c.doc_id, c.yakgwan), {}).setdefault(c.article, c)
            self._articles = {k: tuple(v.values()) for k, v in firsts.items()}
        return self._articles.get(key, ())

    def clones_at(self, threshold: float) -> "DocClones":
        """The pieces of copied 조 (:func:`~yakgwan.retrieval.grouping.clone_articles` at
        ``threshold``), found a document at a time, the first time one of its chunks is asked
        about (a large collection never compares the 조 of documents no question reached)."""
        got = self._clones.get(threshold)
        if got is None:
            got = self._clones[threshold] = DocClones(self.chunks, threshold)
        return got

    def shingles_of(self, c: Chunk) -> frozenset[str]:
        """The chunk's text shingles for clone grouping, computed once per chunk."""
        got = self._shingles.get(c.chunk_id)
        if got is None:
            got = self._shingles[c.chunk_id] = shingles(c.text)
        return got


class DocClones(Mapping[str, str]):
    """Chunk id -> its copied 조's key (:func:`~yakgwan.retrieval.grouping.clone_articles`),
    computed per document on first use of one of its chunks."""

    def __init__(self, chunks: Sequence[Chunk], threshold: float) -> None:
        self._threshold = threshold
        self._doc_of: dict[str, str] = {c.chunk_id: c.doc_id for c in chunks}
        self._by_doc: dict[str, list[Chunk]] = {}
        for c in chunks:
            self._by_doc.setdefault(c.doc_id, []).append(c)
        self._found: dict[str, dict[str, str]] = {}

    def _of(self, doc_id: str) -> dict[str, str]:
        got = self._found.get(doc_id)
        if got is None:
            got = self._found[doc_id] = clone_articles(self._by_doc.get(doc_id, []), self._threshold)
        return got

    def __getitem__(self, chunk_id: str) -> str:
        doc = self._doc_of.get(chunk_id)
        if doc is None:
            raise KeyError(chunk_id)
        return self._of(doc)[chunk_id]

    def __iter__(self) -> Iterator[str]:
        for doc in self._by_doc:
            yield from self._of(doc)

    def __len__(self) -> int:
        return sum(len(self._of(doc)) for doc in self._by_doc)


def build_clause_map(chunks: Sequence[Chunk], tokenizer: Tokenizer, cache_dir: Path | None) -> ClauseMap:
    """:meth:`ClauseMap.build` with the title fields' terms read from the machine's token cache in
    ``cache_dir`` (and kept there) when there is one: a cold process does not analyse every 조
    title again."""
    if cache_dir is None:
        return ClauseMap.build(chunks, tokenizer)
    store = TokenCache.in_folder(cache_dir)
    try:
        return ClauseMap.build(chunks, CachingTokenizer(tokenizer, store))
    finally:
        store.close()
