"""Which documents of a collection a question is about, read from the names it uses.

A collection may hold the policies of several insurers. A question that names an insurer
("삼성화재 운전자보험은 …") is about that insurer's documents, and one that names an insurer
the collection does not hold cannot be answered from another's. ``scope_of`` decides, from the
question and each document's labels (``DocRecord.label``: insurer, product, product type, as set
at ingest or as the document prints them):

1. **Insurers named** (``text.insurers.insurer_mentions``: full names, short forms, brands): the
   documents of those the collection holds. Named insurers it does not hold are ``absent``; when
   it holds none of those named, the scope is empty and ``refuses`` says why (only when some
   document has an insurer: over documents that name none, an insurer's name is an ordinary word).
2. **Groups named** where no insurer is ("한화 다이렉트", "KB주택화재보험":
   ``group_mentions``): the documents of the group's insurers, when the collection holds some;
   otherwise the word is read as an ordinary word (nothing refused).
3. **Product types named** (``ingest.printed.types_in``: 운전자보험, 해외여행자보험 …): inside an
   insurer's or group's documents, those of that type. When every one of those documents has a
   known type and none is of the type asked, the type is ``absent_types`` and the scope is empty
   (the insurer's documents the collection holds are named in the refusal). Without an insurer
   or group named, a type narrows the collection to the documents of that type and those of no
   known type, when it holds one of that type.
4. **Product words** (the words of a document's product label, its insurer's names taken out):
   inside an insurer's or group's documents, a question that uses one of them picks the
   documents whose words it uses most, each word weighed by how few documents share it
   (``log(N / df)`` over the labelled documents: a word every product has picks none).

No word of any document's name is ever written here: every name comes from the documents' own
labels and the insurer lexicon (``text/data/insurers.json``), product types from the insurance
vocabulary in ``ingest.printed``. Pure: the caller gives the labels.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Iterable, Mapping

from yakgwan.ingest.printed import type_covers, types_in
from yakgwan.text.insurers import canonical, group_members, group_mentions, insurer_mentions, lexicon

_WORD = re.compile(r"[가-힣]{2,}|[A-Za-z]{2,}")
_LATIN = re.compile(r"[A-Za-z]")


@dataclass(frozen=True)
class DocLabel:
    """What scoping reads of one document: its labels as set at ingest or printed (None: unknown)."""

    doc_id: str
    insurer: str | None = None
    product: str | None = None
    product_type: str | None = None

    @property
    def company(self) -> str | None:
        """The insurer as the lexicon names it (the label itself for one it does not know)."""
        return None if not self.insurer else (canonical(self.insurer) or self.insurer)


@dataclass(frozen=True)
class Scope:
    """The documents a question is about and why (every field says what the question named)."""

    named: tuple[str, ...] = ()  # insurers the question names, canonical, in order
    absent: tuple[str, ...] = ()  # of those, the ones no document of the collection is of
    groups: tuple[str, ...] = ()  # group words read as naming the group's insurers the collection holds
    types: tuple[str, ...] = ()  # product types the question names
    absent_types: tuple[str, ...] = ()  # types none of the named insurer's documents is of
    words: tuple[str, ...] = ()  # product words that picked the documents
    docs: tuple[str, ...] | None = None  # the documents to answer from; None: all of them
    held: tuple[str, ...] = ()  # every insurer the collection holds documents of
    offered: tuple[str, ...] = ()  # on a refusal for a type: the named insurer's documents the collection holds

    @property
    def refuses(self) -> bool:
        """The question names only what the collection does not hold: nothing may answer it."""
        return self.docs == ()

    @property
    def narrows(self) -> bool:
        return bool(self.docs)

    def to_json(self) -> dict[str, object]:
        return {"insurers": list(self.named), "absent": list(self.absent), "groups": list(self.groups), "types": list(self.types),
                "absent_types": list(self.absent_types), "words": list(self.words),
                "docs": None if self.docs is None else list(self.docs), "held": list(self.held)}


def _bare_product(label: DocLabel) -> str:
    """The product label with every insurer's names and group words blanked, NFKC, case-folded."""
    if not label.product:
        return ""
    lex = lexicon()
    text = lex.mentions.sub(" ", unicodedata.normalize("NFKC", label.product))
    if lex.group_words is not None:
        text = lex.group_words.sub(" ", text)
    return text.casefold()


def label_words(label: DocLabel) -> frozenset[str]:
    """The words of a document's product label that may name it: its insurer's names (every
    alias of every insurer, and group words) taken out, Korean or Latin runs of two letters or
    more, case-folded. Pure."""
    return frozenset(_WORD.findall(_bare_product(label)))


def _squash(text: str) -> str:
    return "".join(unicodedata.normalize("NFKC", text).split()).casefold()


def _uses(question: str, word: str) -> bool:
    """Whether the squashed question holds ``word``; a Latin word only as a whole word."""
    if not _LATIN.match(word):
        return word in question
    return re.search(r"(?<![a-z])" + re.escape(word) + r"(?![a-z])", question) is not None


def _by_words(question: str, pool: list[DocLabel], labels: list[DocLabel]) -> tuple[list[DocLabel], tuple[str, ...]]:
    """The documents of ``pool`` whose product words ``question`` uses most, each word weighed
    by ``log(N / df)``: N labelled documents of ``labels``, df of them whose product holds the
    word; ``pool`` itself when the question uses none that weighs anything."""
    bare = [_squash(_bare_product(lab)) for lab in labels]
    n = sum(1 for b in bare if b)
    q = _squash(question)
    scored: list[tuple[float, DocLabel, tuple[str, ...]]] = []
    for lab in pool:
        used = tuple(sorted(w for w in label_words(lab) if _uses(q, w)))
        weight = sum(math.log(n / max(1, sum(1 for b in bare if w in b))) for w in used)
        scored.append((weight, lab, used))
    best = max((s for s, _, _ in scored), default=0.0)
    if best <= 1e-9:
        return pool, ()
    kept = [(lab, used) for s, lab, used in scored if s >= best - 1e-9]
    return [lab for lab, _ in kept], tuple(dict.fromkeys(w for _, used in kept for w in used))


def scope_of(question: str, labels: Iterable[DocLabel]) -> Scope:
    """The scope of ``question`` over the documents ``labels`` describe (module docstring). Pure."""
    labels = list(labels)
    held = tuple(dict.fromkeys(lab.company for lab in labels if lab.company))
    named = insurer_mentions(question)
    present = [n for n in named if n in held]
    absent = tuple(n for n in named if n not in held)
    groups = tuple(g for g in group_mentions(question) if any(m in held for m in group_members(g)) and not any(m in named for m in group_members(g)))
    asked_types = types_in(question)
    companies = set(present) | {m for g in groups for m in group_members(g)}
    base = Scope(named=named, absent=absent, groups=groups, types=asked_types, held=held)
    if named and not present and not groups:
        # refused only over documents that know their insurers: in other documents (a wiki, a
        # report) an insurer's name is a word like any other
        return Scope(**{**base.__dict__, "docs": () if held else None})
    if not companies:
        typed = [lab for lab in labels if lab.product_type and any(type_covers(t, lab.product_type) for t in asked_types)]
        kept = [lab for lab in labels if lab in typed or not lab.product_type]  # a document of unknown type may be of it
        if not typed or len(kept) == len(labels):
            return base
        return Scope(**{**base.__dict__, "docs": tuple(lab.doc_id for lab in kept)})
    pool = [lab for lab in labels if lab.company in companies]
    if asked_types:
        typed = [lab for lab in pool if lab.product_type and any(type_covers(t, lab.product_type) for t in asked_types)]
        if typed:
            pool = typed
        elif all(lab.product_type for lab in pool):
            missing = tuple(t for t in asked_types)
            return Scope(**{**base.__dict__, "absent_types": missing, "docs": (), "offered": tuple(lab.doc_id for lab in pool)})
    picked, words = _by_words(question, pool, labels)
    docs = tuple(lab.doc_id for lab in picked)
    if len(docs) == len(labels):
        docs = None  # the question names every document: no narrowing
    return Scope(**{**base.__dict__, "words": words, "docs": docs})


def labels_of(docs: Mapping[str, object]) -> list[DocLabel]:
    """The labels of an index's documents (``IndexView.docs``: DocRecord by id)."""
    out = []
    for doc_id, rec in docs.items():
        label = getattr(rec, "label", None)
        if label is None:
            out.append(DocLabel(doc_id))
            continue
        out.append(DocLabel(doc_id, label("insurer"), label("product"), label("product_type")))
    return out


def resolves(scope: Scope, form: str) -> bool:
    """Whether the name ``form`` (a noun of the question) is one the scope read as naming held
    documents: a held insurer, a group it read, or a product word that chose documents. A name
    every held document answers to (the one policy of a collection, or all of them) resolves
    too: the scope kept all documents because the name fits them all. Pure."""
    if scope.refuses:
        return False
    named = [n for n in insurer_mentions(form) if n in scope.held]
    if named or set(group_mentions(form)) & set(scope.groups):
        return True
    squashed = _squash(form)
    return any(w in squashed or squashed in w for w in scope.words if len(squashed) >= 2)
