"""Answer units embedded before the first question: the offline answer scores every unit of the
retrieved chunks by its cosine with the question (:mod:`yakgwan.answer.select`), and a unit never
embedded before costs a question most of its time (a 168-page policy holds about 1,500 units).
:func:`warm_units` embeds the units of a set of chunks, as the scorer reads them
(:func:`~yakgwan.answer.select.read_as`), into a :class:`~yakgwan.answer.extract_units.CachingEmbedder`
— its memory and the machine's embedding cache — so that later questions find them there. The
server runs it after an upload is indexed (docs/answers.md, Speed).
"""

from __future__ import annotations

from typing import Sequence

from yakgwan.answer.extract_units import CachingEmbedder
from yakgwan.answer.select import read_as
from yakgwan.answer.units import hit_units
from yakgwan.core.protocols import ProgressSink
from yakgwan.core.records import Chunk, Hit
from yakgwan.messages import msg
from yakgwan.progress import Bar

BATCH = 64  # units embedded per call


def unit_texts(chunks: Sequence[Chunk]) -> list[str]:
    """Every answer unit of ``chunks`` as the scorer embeds it, once each, in document order."""
    units = hit_units([Hit(c, 0.0, i, "units") for i, c in enumerate(chunks, 1)])
    return list(dict.fromkeys(read_as(u) for u in units))


def warm_units(chunks: Sequence[Chunk], vectors: CachingEmbedder, quiet: bool = True, sink: ProgressSink | None = None) -> int:
    """Embeds the answer units of ``chunks`` that ``vectors`` does not hold yet (a unit already in
    the machine's cache is read, not embedded); returns how many units there are. Progress goes
    to a bar (unless ``quiet``) and to ``sink``."""
    texts = unit_texts(chunks)
    bar = Bar(msg("stage.answer_units"), len(texts), quiet, unit="unit", sink=sink)
    try:
        for i in range(0, len(texts), BATCH):
            part = texts[i : i + BATCH]
            vectors.embed(part, "passage")
            bar.update(len(part))
    finally:
        bar.close()
    return len(texts)
