"""One pipeline's evaluation result as typed, frozen records.

``EvalResult.to_json()`` is the object ``eval --json`` writes (its keys in the order written,
an optional key absent when its field is None); ``EvalResult.from_json()`` reads it back, also
from older runs, which lack keys newer runs write (``load_1m``, ``documents`` …) and summaries
kept as evidence, which lack the per-question rows. Metric tables stay mappings of name to
value: which metrics a result holds depends on the test set (``keyword_coverage``) and the
pipeline (``llm:STEP`` stage times). Unknown keys are refused, so that a misspelt or new key is
not silently dropped.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from yakgwan.messages import Message, said

def _plain(value: object) -> Any:
    """A deep copy of a JSON value, so that a record never shares a mutable part with its input."""
    return copy.deepcopy(value)


def _check_keys(d: Mapping, allowed: tuple[str, ...], what: str) -> None:
    if not isinstance(d, Mapping):
        raise ValueError(f"{what} is not an object: {d!r}")
    unknown = [k for k in d if k not in allowed]
    if unknown:
        raise ValueError(f"{what} has unknown key(s) {', '.join(map(repr, unknown))}")


def _put(out: dict, key: str, value: object) -> None:
    if value is not None:
        out[key] = value


class _Flat:
    """A record whose JSON object is its fields, in order, every one present but those named in
    ``OPTIONAL`` (absent when None: keys newer runs write); ``KEY`` names it in errors."""

    KEY = "a record"
    OPTIONAL: tuple[str, ...] = ()

    def to_json(self) -> dict:
        values = {f.name: _plain(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]
        return {k: v for k, v in values.items() if v is not None or k not in self.OPTIONAL}

    @classmethod
    def _fields_of(cls, d: Mapping) -> dict[str, Any]:
        names = tuple(f.name for f in fields(cls))  # type: ignore[arg-type]
        _check_keys(d, names, cls.KEY)
        missing = [n for n in names if n not in d and n not in cls.OPTIONAL]
        if missing:
            raise ValueError(f"{cls.KEY} lacks {', '.join(missing)}")
        return {n: _plain(d.get(n)) for n in names}

    @classmethod
    def from_json(cls, d: Mapping) -> Any:
        return cls(**cls._fields_of(d))


@dataclass(frozen=True)
class Latency(_Flat):
    """Median and 95th percentile per query, in milliseconds (``metrics.latency_summary``)."""

    KEY = "latency_ms"
    p50: float
    p95: float


@dataclass(frozen=True)
class LoadAverage(_Flat):
    """The 1-minute load average over the run's questions (mean, max; None where the system has
    none) and the core count: above it, another process shared the cores."""

    KEY = "load_1m"
    mean: float | None
    max: float | None
    cores: int | None


@dataclass(frozen=True)
class ShortLists(_Flat):
    """Questions with no hit at all, and with fewer than k hits."""

    KEY = "short_lists"
    empty: int
    under_k: int


@dataclass(frozen=True)
class QueryResult(_Flat):
    """One question: what was retrieved (documents, best first, cut at k), its scores and timings,
    what produced its first hit, and how many hits came back. In a clause-level set, ``relevant``
    are the governing units (primary first), ``retrieved`` the units retrieved, ``category`` the
    question's style and ``topic`` its topic (absent elsewhere)."""

    KEY = "a per_query row"
    OPTIONAL = ("topic",)
    qid: str
    query: str
    category: str | None
    relevant: tuple[str, ...]
    retrieved: tuple[str, ...]
    metrics: Mapping[str, float]
    seed_metrics: Mapping[str, float]
    latency_ms: float
    llm_ms: float
    top_produced_by: str | None
    hits: int
    topic: str | None = None

    def to_json(self) -> dict:
        return super().to_json() | {"relevant": list(self.relevant), "retrieved": list(self.retrieved)}

    @classmethod
    def from_json(cls, d: Mapping) -> QueryResult:
        values = cls._fields_of(d)
        return cls(**values | {"relevant": tuple(values["relevant"]), "retrieved": tuple(values["retrieved"])})


BUILD_KEYS = ("ingest_seconds", "documents", "incremental", "step_fallbacks", "step_fallback_reasons", "llm", "reused", "reuse_seconds")


@dataclass(frozen=True)
class BuildRecord:
    """What building (or updating) an eval index cost (``eval-build.json`` beside it): seconds,
    documents the ingest steps saw, whether it was an update, what the steps left as it was and
    why, their LLM usage; for an index reused as it was, ``reused`` and the seconds the check took.
    Every field is absent from the JSON when None (an index built before records were kept has
    none of them)."""

    ingest_seconds: float | None = None
    documents: int | None = None
    incremental: bool | None = None
    step_fallbacks: Mapping[str, int] | None = None
    step_fallback_reasons: Mapping[str, tuple[str, ...]] | None = None
    llm: Mapping[str, Any] | None = None
    reused: bool | None = None
    reuse_seconds: float | None = None

    def to_json(self) -> dict:
        out: dict = {}
        for key in BUILD_KEYS:
            _put(out, key, _plain(getattr(self, key)))
        if self.step_fallback_reasons is not None:
            out["step_fallback_reasons"] = {step: list(why) for step, why in self.step_fallback_reasons.items()}
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> BuildRecord:
        _check_keys(d, BUILD_KEYS, "the index build record")
        out = {key: _plain(d.get(key)) for key in BUILD_KEYS}
        if out["step_fallback_reasons"] is not None:
            out["step_fallback_reasons"] = {step: tuple(why) for step, why in out["step_fallback_reasons"].items()}
        return cls(**out)


@dataclass(frozen=True)
class IndexInfo:
    """The index a result was measured on: its chunks, the LLM ingest steps it was built with,
    and what building it cost."""

    chunks: int | None
    ingest_steps: tuple[str, ...]
    build: BuildRecord = BuildRecord()

    def to_json(self) -> dict:
        out: dict = {}
        _put(out, "chunks", self.chunks)
        build = self.build.to_json()
        if self.build.documents is None and "ingest_seconds" in build:  # as runs wrote it before documents were counted
            out["ingest_seconds"] = build.pop("ingest_seconds")
        return out | {"ingest_steps": list(self.ingest_steps)} | build

    @classmethod
    def from_json(cls, d: Mapping) -> IndexInfo:
        _check_keys(d, ("chunks", "ingest_steps") + BUILD_KEYS, "index")
        return cls(d.get("chunks"), tuple(d.get("ingest_steps") or ()), BuildRecord.from_json({k: v for k, v in d.items() if k in BUILD_KEYS}))


ANSWER_KEYS = ("n_answerable", "n_unanswerable", "mode", "metrics", "unanswerable_by_kind", "latency_ms", "llm_calls", "web_citations",
               "per_question", "judge", "note", "llm", "rules")


@dataclass(frozen=True, kw_only=True)
class AnswersResult:
    """``eval --answers`` for one pipeline (``eval.answers.evaluate_answers``): how many questions
    of each set, the answer mode ``auto`` resolved to, the outcome rates and citation checks
    (``metrics``), refusals per way an unanswerable question was made, latency, LLM calls, web
    citations, the per-question rows (None in a summary), the judge's scores, a note, the LLM's
    usage and the answer rules that were on. Every field is absent from the JSON when None."""

    n_answerable: int | None = None
    n_unanswerable: int | None = None
    mode: str | None = None
    metrics: Mapping[str, float | None] | None = None
    unanswerable_by_kind: Mapping[str, Mapping[str, int]] | None = None
    latency_ms: Latency | None = None
    llm_calls: int | None = None
    web_citations: int | None = None
    per_question: tuple[Mapping[str, Any], ...] | None = None  # AskResult.to_json() with the question's set, id and scores
    judge: Mapping[str, Any] | None = None  # model, runs, temperature, scores (mean, spread, runs per key), failed_judgements
    note: Message | str | None = None  # a message; the English text in a result read from a file
    llm: Mapping[str, Any] | None = None
    rules: str | None = None  # RuleSet.spec()

    def to_json(self, lang: str | None = "en") -> dict:
        """The ``answers`` object; its note in ``lang`` (None: kept as a message, :func:`said`)."""
        out: dict = {}
        for key in ANSWER_KEYS:
            value = getattr(self, key)
            _put(out, key, said(value, lang) if key == "note" else value)
        if self.latency_ms is not None:  # in place: the keys keep their order
            out["latency_ms"] = self.latency_ms.to_json()
        if self.per_question is not None:
            out["per_question"] = list(self.per_question)
        return _plain(out)

    @classmethod
    def from_json(cls, d: Mapping) -> AnswersResult:
        _check_keys(d, ANSWER_KEYS, "answers")
        values = {key: _plain(d[key]) for key in ANSWER_KEYS if d.get(key) is not None}
        if "latency_ms" in values:
            values["latency_ms"] = Latency.from_json(values["latency_ms"])
        if "per_question" in values:
            values["per_question"] = tuple(values["per_question"])
        return cls(**values)


# (key, record type or None for a plain JSON value), in the order ``eval --json`` writes them
_RECORDS: dict[str, Any] = {"latency_ms": Latency, "load_1m": LoadAverage, "short_lists": ShortLists, "index": IndexInfo, "answers": AnswersResult}


@dataclass(frozen=True, kw_only=True)
class EvalResult:
    """One pipeline's result over a test set (see the module docstring). ``score_retriever``
    fills the scores; the ``evaluate`` service adds what the pipeline built beside the index
    (``built``), where and when it ran (``command`` … ``yakgwan``), the index and the answers.
    ``command`` is written beside ``machine`` even when None (not run as ``yakgwan``); every
    other optional field is absent from the JSON when None."""

    pipeline: str
    dataset: str | None = None
    n: int | None = None
    n_unanswerable: int | None = None  # a clause-level set's questions the policy does not answer, not scored
    k: int | None = None
    level: str | None = None  # "clause": the metrics rank (약관, 조) units (``eval.clauses``); None: documents
    metrics: Mapping[str, float]
    seed_metrics: Mapping[str, float] | None = None
    latency_ms: Latency | None = None
    load_1m: LoadAverage | None = None
    stage_ms: Mapping[str, float] | None = None  # mean ms per query: total, llm, retrieval, llm:STEP
    per_query: tuple[QueryResult, ...] | None = None  # None in a summary (``yakgwan report --summary``)
    source: str | None = None
    top_produced_by: Mapping[str, int] | None = None  # what produced each question's first hit, counted
    short_lists: ShortLists | None = None
    by_category: Mapping[str, Mapping[str, float]] | None = None  # per category (a clause-level set: style): metrics and "n"
    by_topic: Mapping[str, Mapping[str, float]] | None = None  # per topic (a clause-level set): metrics and "n"
    note: Message | str | None = None  # a message; the English text in a result read from a file
    llm: Mapping[str, Any] | None = None  # the LLM's usage (model, ``UsageStats.as_dict``, ms_per_q_as_recorded)
    built: Mapping[str, Any] | None = None  # what the pipeline built beside the index (its keys depend on what)
    command: str | None = None
    machine: str | None = None
    questions_sha256: str | None = None
    corpus_sha256: str | None = None
    measured_at: str | None = None
    yakgwan: str | None = None
    index: IndexInfo | None = None
    answers: AnswersResult | None = None

    def to_json(self, lang: str | None = "en") -> dict:
        """The object ``eval --json`` writes for this result; its notes in ``lang`` (None: kept
        as messages, for a job's readers, :func:`said`)."""
        out: dict = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "answers":
                _put(out, f.name, value.to_json(lang) if value is not None else None)
            elif f.name in _RECORDS:
                _put(out, f.name, value.to_json() if value is not None else None)
            elif f.name == "note":
                _put(out, f.name, said(value, lang))
            elif f.name == "per_query":
                _put(out, f.name, [q.to_json() for q in value] if value is not None else None)
            elif f.name == "command":  # None when not run as ``yakgwan``, written beside the machine
                if value is not None or self.machine is not None:
                    out["command"] = value
            else:
                _put(out, f.name, _plain(value))
        return out

    @classmethod
    def from_json(cls, d: Mapping) -> EvalResult:
        """A result written by ``eval --json`` (this version or an older one), or its summary.
        Raises ValueError naming what is wrong."""
        names = tuple(f.name for f in fields(cls))
        _check_keys(d, names, "the result")
        if not isinstance(d.get("pipeline"), str) or not isinstance(d.get("metrics"), Mapping):
            raise ValueError("needs 'pipeline' and 'metrics'")
        values: dict[str, Any] = {}
        for key in names:
            raw = d.get(key)
            if raw is None:
                continue
            if key in _RECORDS:
                values[key] = _RECORDS[key].from_json(raw)
            elif key == "per_query":
                values[key] = tuple(QueryResult.from_json(q) for q in raw)
            else:
                values[key] = _plain(raw)
        return cls(**values)
