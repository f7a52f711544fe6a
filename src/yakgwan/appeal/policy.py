"""The policy an appeal is read against: an index of one 약관 document (built on first use from a
PDF/text path and cached, or an existing index folder), the exact 약관 names it contains, and
article lookup by (약관, 제N조)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable
from pathlib import Path

from yakgwan import app
from yakgwan.appeal.citations import normalise_name
from yakgwan.config import Settings
from yakgwan.core.errors import InputError
from yakgwan.pipelines import PipelineContext
from yakgwan.core.records import Chunk, sha256_hex
from yakgwan.store import open_store


@dataclass
class Policy:
    source: str
    index_dir: Path
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

    def covers_product(self, product: str | None) -> bool:
        """Whether a notice's product name is this policy's (True when either is unknown)."""
        if not product or not self.products:
            return True
        p = normalise_name(product)
        return any(normalise_name(t) in p or p in normalise_name(t) for t in self.products)


def open_policy(path: Path, settings: Settings, make_context: Callable[[Path], PipelineContext] | None = None) -> Policy:
    """An existing index folder is used as it is; a policy file or folder is indexed under the
    cache folder (re-used while the file is unchanged). ``make_context`` builds the pipeline
    context of an index folder (a service passes its shared models); default: from ``settings``."""
    if not path.exists():
        raise InputError(str(path), "no such policy file, folder or index")
    if path.is_dir() and open_store(path).exists():
        index_dir = path
    else:
        index_dir = settings.cache_dir / "policy-index" / sha256_hex(str(path.resolve()))[:16]
        report = app.ingest(settings.with_(index_dir=index_dir), [path], sync=True)
        if report.failed and not open_store(index_dir).exists():
            raise report.failed[0]
    isettings = settings.with_(index_dir=index_dir)
    ctx = make_context(index_dir) if make_context is not None else app.pipeline_context(isettings)
    names = tuple(dict.fromkeys(c.yakgwan for c in ctx.view.chunks if c.yakgwan))
    if not names:
        raise InputError(str(path), "no 약관 structure found (no 보통약관/특별약관 with 제N조 articles): is this an insurance policy?")
    products = tuple(dict.fromkeys(d.title for d in ctx.view.docs.values() if d.title))
    return Policy(str(path), index_dir, ctx, names, products)
