"""Ingest: load → chunk → tokenise → commit (BM25 ready) → embed → commit (hybrid ready).

Nothing touches the index until every file has been loaded and chunked, so a bad file can only
cost itself (or, with ``strict``, the whole ingest) and never a half-written index; when the
second commit fails (a full disk), the index is restored to what it was before the ingest; when
the disk takes that restore too, the error says what stands: the words committed, the vectors not.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Mapping, Sequence

import numpy as np

from yakgwan.ingest.chunkers.registry import chunker_for
from yakgwan.embedders.cache import EmbeddingCache
from yakgwan.embedders.preload import Preload
from yakgwan.core.errors import IndexStoreError, InputError, ProviderError, YakgwanError, as_message, one_line, storage_problem
from yakgwan.ingest.indexing import index_text
from yakgwan.ingest.plan import READING, Plan, plan_ingest
from yakgwan.ingest.printed import printed_meta
from yakgwan.ingest.loaders import DEFAULT_MAX_BYTES, SourceFile, collect_files
from yakgwan.ingest.workers import LocalWorkers, Loaded, Workers
from yakgwan.messages import Message, msg, said
from yakgwan.messages.catalogue import Param
from yakgwan.progress import Bar, ProgressSink, progress
from yakgwan.core.protocols import ChunkStep, Embedder
from yakgwan.core.records import Chunk, Document, sha256_hex
from yakgwan.store import DocRecord, IndexData, Store
from yakgwan.text.instructions import instructions
from yakgwan.text.tokenizer import Tokenizer

EMBED_BATCH = 32


@dataclass
class IngestReport:
    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[InputError] = field(default_factory=list)
    warnings: list[Message] = field(default_factory=list)  # what was read only in part (a PDF's pages without text), one line each
    new_pages: int = 0
    new_chunks: int = 0
    embedded: int = 0
    from_cache: int = 0
    seconds_load: float = 0.0
    seconds_lexical: float = 0.0
    seconds_dense: float = 0.0
    seconds_total: float = 0.0
    dense_ready: bool = False
    dense_error: Message | str | None = None
    removed: list[str] = field(default_factory=list)
    reindexed: bool = False
    index: IndexData | None = None
    # per ingest step: documents or chunks it left as they were (no LLM, unusable answer)
    step_fallbacks: dict[str, int] = field(default_factory=dict)
    step_reasons: dict[str, list[Message]] = field(default_factory=dict)  # which, and why


def _said(exc: BaseException) -> Param:
    """An error in words: the disk's problem (full, read-only), else as :func:`as_message` says it."""
    if isinstance(exc, OSError) and (said := storage_problem(exc)) is not None:
        return said
    return as_message(exc)


def _listed(pages: tuple[int, ...], shown: int = 12) -> Param:
    listed: Param = ", ".join(map(str, pages[:shown]))
    if len(pages) > shown:
        listed = msg("ingest.textless_more", pages=listed, n=len(pages))
    return listed


def _total(doc: Document) -> int:
    return len({p.page for p in doc.pages} | set(doc.textless_pages) | set(doc.unread_pages))


def textless_warning(path: Path, doc: Document, shown: int = 12) -> Message:
    """One line: which pages of ``doc`` gave no text (the first ``shown`` of them)."""
    pages = doc.textless_pages
    key = "ingest.textless_many" if len(pages) > 1 else "ingest.textless_one"
    return msg(key, file=one_line(str(path)), pages=_listed(pages, shown), total=_total(doc))


EXAMPLE_CHARS = 60  # an instruction quoted in a warning, at most


def instruction_warning(path: Path, doc: Document) -> Message | None:
    """One line when ``doc`` holds sentences that address the reader or a model
    (:mod:`yakgwan.text.instructions`): how many, on which pages, the first of them; None when none."""
    found = instructions(doc.text)
    if not found:
        return None
    pages = tuple(sorted({p for i in found for p in doc.pages_for(i.start, i.end)}))
    where = msg("ingest.instructions_pages", pages=_listed(pages)) if pages else ""
    first = " ".join(found[0].text.split())
    example = first if len(first) <= EXAMPLE_CHARS else first[:EXAMPLE_CHARS] + "…"
    return msg("ingest.instructions", file=one_line(str(path)), n=len(found), where=where, example=one_line(example))


def page_warnings(path: Path, doc: Document) -> list[Message]:
    """What a user should know of how ``doc`` was read: pages with nothing on them, pages read by
    OCR (with the engine and its confidence), pages OCR could not read (and why), and sentences
    that address the reader or a model (:func:`instruction_warning`)."""
    out = []
    if doc.textless_pages:
        out.append(textless_warning(path, doc))
    if doc.ocr_pages:
        confidence = f"{doc.ocr_confidence:.0f}" if doc.ocr_confidence is not None else "?"
        out.append(msg("ingest.ocr_read", file=one_line(str(path)), pages=_listed(doc.ocr_pages), total=_total(doc),
                       engine=doc.ocr_engine or "OCR", confidence=confidence))
    if doc.unread_pages:
        reason = doc.unread_reason if isinstance(doc.unread_reason, Message) else msg("ingest.ocr_illegible")
        out.append(msg("ingest.unread", file=one_line(str(path)), pages=_listed(doc.unread_pages), total=_total(doc), reason=reason))
    if (planted := instruction_warning(path, doc)) is not None:
        out.append(planted)
    return out


def page_reading(doc: Document, toc: Sequence[Chunk] = ()) -> dict[str, object]:
    """How ``doc``'s pages were read, as its ``DocRecord.reading`` keeps it: the reading's version
    (``plan.READING``), the pages read by
    OCR, not read, blank, and those of its 목차 (``toc``: the chunker's 목차 chunks, which are not
    indexed), OCR's engine and confidence, and the page warnings as tagged messages, said in each
    reader's language when read (``messages.render_said``). Pure."""
    confidence = round(doc.ocr_confidence, 1) if doc.ocr_confidence is not None else None
    return {
        "version": READING, "total_pages": _total(doc), "ocr_pages": list(doc.ocr_pages), "unread_pages": list(doc.unread_pages),
        "textless_pages": list(doc.textless_pages), "toc_pages": sorted({p for c in toc for p in c.pages}),
        "ocr_engine": doc.ocr_engine, "ocr_confidence": confidence,
        "warnings": [said(w, None) for w in page_warnings(Path(doc.source), doc)],
    }


@dataclass
class Ingestor:
    store: Store
    tokenizer: Tokenizer
    embedder: Embedder
    cache: EmbeddingCache
    quiet: bool = False
    lang: str = "en"  # of the progress bars
    strict: bool = False
    sync: bool = False
    max_bytes: int = DEFAULT_MAX_BYTES
    on_lexical_ready: Callable[[IngestReport], None] | None = None
    # LLM steps after chunking (``yakgwan.ingest.steps.registry``); an index remembers its
    # steps, and ingesting with other steps re-chunks every document
    chunk_steps: Sequence[ChunkStep] = ()
    sink: ProgressSink | None = None  # receives (stage, done, total) as the work advances
    debug: bool = False  # a parser's unexpected error propagates instead of failing its file
    meta: Mapping[str, str] = field(default_factory=dict)  # set on every document of this ingest (``--meta KEY=VALUE``)
    # where reading, tokenising and embedding run (default: this process; ``RayWorkers``: a Ray cluster)
    workers: Workers | None = None
    _model: "Preload | None" = field(default=None, init=False, repr=False)  # set by run()

    def run(self, paths: list[Path]) -> IngestReport:
        # the embedder's model loads while the documents are read and indexed (Ray actors load their own)
        self._model = Preload(self.embedder if self.workers is None else None)
        try:
            return self._run(paths)
        finally:
            # an ingest that needed no new vector (all from the cache or the old index) still waits for
            # the load it started: a process that exits while a native library builds its model on
            # another thread is aborted ("terminate called without an active exception", exit 134)
            self._model.settle()

    def _run(self, paths: list[Path]) -> IngestReport:
        t0 = time.perf_counter()
        report = IngestReport()
        loaded = self._load(paths, report)
        report.seconds_load = time.perf_counter() - t0
        with self.store.writer(on_wait=self._say_waiting):
            before = self.store.generation()
            old = self.store.read() if self.store.exists() else None
            fresh = old is not None and self._compatible(old)
            rechunk = old is not None and old.extra.get("ingest_fingerprints", []) != [st.fingerprint for st in self.chunk_steps]
            plan = plan_ingest(loaded, old.docs if old is not None else {}, self.sync, rechunk)
            if rechunk and old is not None and not self.sync:
                others = sorted(set(old.docs) - set(plan.origins))
                if others:
                    built = ", ".join(old.extra.get("ingest_steps", [])) or msg("ingest.no_steps")  # type: ignore[arg-type]
                    failed = msg("ingest.rechunk_failed", n=len(report.failed), example=as_message(report.failed[0])) if report.failed else ""
                    raise InputError(None, msg("ingest.rechunk_others", built=built, n=len(others), example=repr(others[0]), failed=failed))
            report.failed.extend(plan.conflicts)
            if self.strict and plan.conflicts:
                first = plan.conflicts[0]
                raise InputError(first.path, msg("ingest.strict", reason=first.given_reason, more=""))
            report.added, report.replaced, report.unchanged = plan.added, plan.replaced, plan.unchanged
            report.removed = plan.removed
            if old is not None and not fresh:
                report.reindexed = True
            if not plan.changed and not plan.removed and fresh and old is not None and old.dense_ready and not self._meta_changes(plan, old):
                report.index, report.dense_ready = old, True
                report.seconds_total = time.perf_counter() - t0
                return report
            data = self._assemble(plan, old, fresh, report)
            self.store.commit(data)
            report.seconds_lexical = time.perf_counter() - t0
            report.index = data
            if self.on_lexical_ready is not None:
                self.on_lexical_ready(report)
            self._dense_phase(data, report, before)
        report.dense_ready = data.dense_ready
        report.seconds_total = time.perf_counter() - t0
        return report

    def _meta_changes(self, plan: Plan, old: IndexData) -> list[str]:
        """The unchanged documents of this ingest whose metadata ``self.meta`` would change."""
        return [d for d in plan.unchanged if d in old.docs and {**old.docs[d].meta, **self.meta} != old.docs[d].meta]

    def _say_waiting(self) -> None:
        if not self.quiet:
            print("another ingest is writing to this index; waiting for it to finish …", file=sys.stderr)

    def _compatible(self, old: IndexData) -> bool:
        """Whether ``old``'s tokens and vectors can be kept. Equal ``model_id``s give
        interchangeable vectors (``Embedder``), so of the same dimension: a served embedder's
        ``dim`` (a request) is not asked here, only by an ingest that embeds."""
        return (
            old.tokenizer == self.tokenizer.name
            and old.extra.get("tokenizer_spec") == self.tokenizer.spec
            and old.embedder == self.embedder.model_id
            and old.extra.get("ingest_fingerprints", []) == [st.fingerprint for st in self.chunk_steps]
        )

    def _dense_phase(self, data: IndexData, report: IngestReport, before: str | None) -> None:
        """Embed what has no vector and commit again. An embedder failure leaves the words'
        commit (the documents BM25-searchable, ``dense_error`` says why); a failure of the
        second commit itself (a full disk) restores the index as it was before this ingest, and a
        failed restore raises an error saying the words are committed and the vectors pending."""
        t1 = time.perf_counter()
        if data.dense_mask.all():
            return  # every vector came from the old index or the cache: the first commit was complete
        try:
            if self._model is not None:
                self._model.wait()
            self._embed_missing(data, report)
        except KeyboardInterrupt:
            self._commit_partial(data)
            print(msg("ingest.interrupted").text(self.lang), file=sys.stderr)
            raise
        except Exception as exc:  # any embedder failure leaves a usable BM25 index behind
            report.dense_error = as_message(exc) if isinstance(exc, YakgwanError) else f"{type(exc).__name__}: {exc}"
        try:
            self._commit_partial(data)
        except Exception as exc:
            try:
                self.store.restore(before)
            except Exception:  # the disk took the restore too: the words' commit stands, and the error says so
                raise IndexStoreError(msg("ingest.dense_not_saved", why=_said(exc))) from exc
            raise
        report.seconds_dense = time.perf_counter() - t1

    def _commit_partial(self, data: IndexData) -> None:
        """Commit whatever vectors exist (all of them on success); the cache keeps the rest."""
        if data.dense_mask.any():
            self.store.commit(data)

    def _load(self, paths: list[Path], report: IngestReport) -> list[tuple[Document, str]]:
        files, problems = collect_files(paths)
        docs: list[tuple[Document, str]] = []
        bar = Bar(msg("stage.loading"), total=len(files), quiet=self.quiet, unit="file", sink=self.sink, lang=self.lang)
        try:
            read = list(zip(files, self._read_all(files, bar)))
        finally:
            bar.close()
        for src, loaded in read:
            if isinstance(loaded, InputError):
                problems.append(loaded)
                continue
            if isinstance(loaded, Exception):  # a parser bug on one file must not abort a folder
                if self.debug:  # YAKGWAN_DEBUG: the parser's traceback instead of a failed file
                    raise loaded
                problems.append(InputError(str(src.path), msg("load.cannot_read", why=f"{type(loaded).__name__}: {loaded}")))
                continue
            origin = str(src.path.resolve())
            report.warnings.extend(w for d in loaded for w in page_warnings(src.path, d))
            docs.extend((d, f"{origin}#{d.doc_id}" if d.kind == "beir" else origin) for d in loaded)
        report.failed = problems
        if problems and self.strict:
            more = msg("ingest.strict_more", n=len(problems) - 1) if len(problems) > 1 else ""
            raise InputError(problems[0].path, msg("ingest.strict", reason=problems[0].given_reason, more=more))
        if not docs:
            if len(problems) == 1:
                raise problems[0]
            raise InputError(None, msg("ingest.nothing", n=len(problems), files=tuple(msg("ingest.failed_item", item=as_message(p)) for p in problems)))
        seen: dict[str, str] = {}
        for d, origin in docs:
            if d.doc_id in seen:
                raise InputError(origin, msg("ingest.same_id", id=repr(d.doc_id), other=seen[d.doc_id]))
            seen[d.doc_id] = origin
        return docs

    def _work(self) -> Workers:
        return self.workers or LocalWorkers(self.tokenizer, self.embedder)

    def _read_all(self, files: list[SourceFile], bar: Bar) -> Iterator[Loaded]:
        ocr: dict[str, Bar] = {}  # one bar per file whose pages OCR reads

        def pages(src: SourceFile, done: int, total: int) -> None:
            key = str(src.path)
            if key not in ocr:
                ocr[key] = Bar(msg("stage.ocr", file=one_line(src.path.name)), total=total, quiet=self.quiet, unit="page", sink=self.sink, lang=self.lang)
            ocr[key].update(1)
            if done >= total:
                ocr.pop(key).close()

        try:
            for loaded in self._work().load(files, self.max_bytes, pages):
                bar.update(1)
                yield loaded
        finally:
            for b in ocr.values():
                b.close()

    def _assemble(self, plan: Plan, old: IndexData | None, fresh: bool, report: IngestReport) -> IndexData:
        changed = plan.changed
        drop = {d.doc_id for d in changed} | set(plan.removed)
        chunks: list[Chunk] = []
        tokens: list[list[str]] = []
        docs: dict[str, DocRecord] = {}
        keep_vectors: list[np.ndarray] = []
        keep_mask: list[bool] = []
        if old is not None:
            for i, c in enumerate(old.chunks):
                if c.doc_id in drop:
                    continue
                chunks.append(c)
                tokens.append(old.tokens[i] if fresh else [])
                keep_vectors.append(old.vectors[i] if fresh else np.zeros(self.embedder.dim, np.float32))
                keep_mask.append(bool(old.dense_mask[i]) if fresh else False)
            docs = {k: v for k, v in old.docs.items() if k not in drop}
            for doc_id in self._meta_changes(plan, old):  # unchanged documents this ingest gives new metadata
                docs[doc_id] = dataclasses.replace(docs[doc_id], meta={**docs[doc_id].meta, **self.meta})
        new_chunks: list[Chunk] = []
        label = msg("stage.chunking_llm", steps=", ".join(st.name for st in self.chunk_steps)) if self.chunk_steps else msg("stage.chunking")
        for d in progress(changed, label, total=len(changed), quiet=self.quiet, unit="doc", sink=self.sink, lang=self.lang):
            # a table of contents only repeats headings with page numbers: not retrievable content
            split = chunker_for(d).split(d)
            cs = [c for c in split if c.kind != "toc"]
            for step in self.chunk_steps:
                cs = step.apply(d, cs)
            new_chunks.extend(cs)
            labels = {**(old.docs[d.doc_id].meta if old is not None and d.doc_id in old.docs else {}), **self.meta}  # a new version keeps its labels
            printed = printed_meta(d)
            docs[d.doc_id] = DocRecord(
                d.doc_id, d.source, d.title, d.kind, d.content_hash, len(d.pages), len(cs), d.doc_type, plan.origins[d.doc_id], labels,
                {k: v.value for k, v in printed.items()}, {k: v.where() for k, v in printed.items()},
                page_reading(d, [c for c in split if c.kind == "toc"]),
            )
            report.new_pages += len(d.pages)
        report.new_chunks = len(new_chunks)
        retok = [i for i, t in enumerate(tokens) if not t]
        texts = [index_text(chunks[i]) for i in retok] + [index_text(c) for c in new_chunks]
        bar = Bar(msg("stage.tokenising"), total=len(texts), quiet=self.quiet, unit="chunk", sink=self.sink, lang=self.lang)
        try:
            toks = self._work().tokenize(texts, bar.update)
        finally:
            bar.close()
        for j, i in enumerate(retok):
            tokens[i] = toks[j]
        tokens.extend(toks[len(retok) :])
        chunks.extend(new_chunks)
        dim = self.embedder.dim
        vectors = np.zeros((len(chunks), dim), np.float32)
        if keep_vectors:
            vectors[: len(keep_vectors)] = np.stack(keep_vectors)
        mask = np.zeros(len(chunks), bool)
        mask[: len(keep_mask)] = keep_mask
        data = IndexData(chunks, tokens, docs, self.tokenizer.name, self.embedder.model_id, dim, vectors, mask)
        data.extra["tokenizer_spec"] = self.tokenizer.spec
        data.extra["ingest_steps"] = [st.name for st in self.chunk_steps]
        data.extra["ingest_fingerprints"] = [st.fingerprint for st in self.chunk_steps]
        report.step_fallbacks = {st.name: st.fallbacks for st in self.chunk_steps}
        report.step_reasons = {st.name: list(st.reasons) for st in self.chunk_steps if st.reasons}
        self._fill_from_cache(data, report)
        return data

    def _fill_from_cache(self, data: IndexData, report: IngestReport) -> None:
        todo = np.flatnonzero(~data.dense_mask)
        keys = [sha256_hex(index_text(data.chunks[i])) for i in todo]
        hits = self.cache.get_many(self.embedder.model_id, keys)
        for i, key in zip(todo, keys):
            vec = hits.get(key)
            if vec is not None and vec.shape[0] == data.dim:
                data.vectors[i] = vec
                data.dense_mask[i] = True
                report.from_cache += 1

    def _embed_missing(self, data: IndexData, report: IngestReport) -> None:
        todo = np.flatnonzero(~data.dense_mask)
        if not len(todo):
            return
        # longest texts first: the progress bar's rate settles quickly and padding stays low
        texts = {int(i): index_text(data.chunks[i]) for i in todo}
        order = sorted(texts, key=lambda i: -len(texts[i]))
        bar = Bar(msg("stage.embedding"), total=len(order), quiet=self.quiet, unit="chunk", sink=self.sink, lang=self.lang)
        batches = [order[b : b + EMBED_BATCH] for b in range(0, len(order), EMBED_BATCH)]
        try:
            for rows, vecs in zip(batches, self._work().embed([[texts[i] for i in rows] for rows in batches])):
                if vecs.shape != (len(rows), data.dim):
                    raise ProviderError(msg("embed.shape", model=self.embedder.model_id, shape=str(vecs.shape), expected=str((len(rows), data.dim))))
                data.vectors[rows] = vecs
                data.dense_mask[rows] = True
                self.cache.put_many(self.embedder.model_id, {sha256_hex(texts[i]): v for i, v in zip(rows, vecs)})
                report.embedded += len(rows)
                bar.update(len(rows))
        finally:
            bar.close()
