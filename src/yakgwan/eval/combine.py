"""Side-by-side tables from eval results saved by separate runs (``yakgwan report``).

A technique that needs an hour of a local model is measured in its own ``eval --json`` run; this
module puts such runs together, refusing results of different test sets, and writes the table as
Markdown, the HTML report, or a summary without the per-question rows (no question or document
text), small enough to keep beside the code as evidence.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from yakgwan.core.errors import InputError
from yakgwan.eval.result import EvalResult
from yakgwan.eval.rows import category_deltas, recall_floor_text, retrieval_rows, run_key, value_at
from yakgwan.ingest.steps.fallbacks import left_as_was
from yakgwan.messages import Message, msg

# rows that quote the test set or the documents; a summary leaves them out
PER_ROW_KEYS = ("per_query", "per_question")
REASONS_KEPT = 20  # ingest-step fallback reasons a summary keeps per step


@dataclass(frozen=True)
class Loaded:
    """One eval result and the file it was read from."""

    path: Path
    result: EvalResult


def load_results(paths: Sequence[Path]) -> list[Loaded]:
    """Every result in ``paths`` (each an ``eval --json`` list, or one result object), in order."""
    out = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text("utf-8"))
        except FileNotFoundError:
            raise InputError(str(path), msg("eval.no_file")) from None
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise InputError(str(path), msg("eval.not_eval_json", why=str(e))) from None
        items = data if isinstance(data, list) else [data]
        if not items:
            raise InputError(str(path), msg("eval.holds_no_results"))
        for i, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("pipeline"), str) or not isinstance(item.get("metrics"), dict):
                raise InputError(str(path), msg("eval.item_not_result", i=i))
            try:
                out.append(Loaded(Path(path), EvalResult.from_json(item)))
            except (ValueError, TypeError, KeyError, AttributeError) as e:
                raise InputError(str(path), msg("eval.item_bad", i=i, why=str(e))) from None
    return out


def same_set(r: EvalResult) -> dict[str, object]:
    """What makes two results comparable: the same questions, corpus and cut-off."""
    return {"dataset": r.dataset, "n": r.n, "k": r.k, "questions_sha256": r.questions_sha256, "corpus_sha256": r.corpus_sha256}


def check_same_set(loaded: Sequence[Loaded]) -> list[Message]:
    """Raise when two results were measured on different test sets (or with a different k) or
    when a pipeline appears twice; returns warnings for keys an older result does not record."""
    if not loaded:
        raise InputError("report", msg("eval.no_results_given"))
    first = loaded[0]
    warnings = []
    for other in loaded[1:]:
        theirs = same_set(other.result)
        for key, a in same_set(first.result).items():
            b = theirs[key]
            if a is None or b is None:
                if key.endswith("sha256"):
                    missing = first if a is None else other
                    warnings.append(msg("report.no_key", path=str(missing.path), pipeline=missing.result.pipeline, key=key))
                    continue
            if a != b:
                raise InputError(str(other.path), msg("eval.mixed_sets", pipeline=other.result.pipeline, key=key, b=repr(b), first=first.result.pipeline, first_path=str(first.path), a=repr(a)))
    seen: dict[tuple[object, ...], Path] = {}
    for item in loaded:
        name = run_key(item.result)
        if name in seen:
            raise InputError(str(item.path), msg("eval.duplicate_run", name=repr(name[0]), details=", ".join(map(str, name[1:])), other=str(seen[name])))
        seen[name] = item.path
    return list(dict.fromkeys(warnings))


def summarise(result: EvalResult, reasons_kept: int = REASONS_KEPT) -> dict:
    """``result``'s JSON without its per-question rows (the questions, the answers, the
    documents), and with at most ``reasons_kept`` ingest-step fallback reasons per step (the rest
    counted)."""
    answers = dataclasses.replace(result.answers, per_question=None) if result.answers is not None else None
    index = result.index
    if index is not None and index.build.step_fallback_reasons is not None:
        cut = {
            step: tuple(why[:reasons_kept]) + ((f"… and {len(why) - reasons_kept} more",) if len(why) > reasons_kept else ())
            for step, why in index.build.step_fallback_reasons.items()
        }
        index = dataclasses.replace(index, build=dataclasses.replace(index.build, step_fallback_reasons=cut))
    return dataclasses.replace(result, per_query=None, answers=answers, index=index).to_json()


def _cell(value: object, digits: int = 4) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return str(value)
    return str(value).replace("|", "\\|")


def _llm_calls(usage: Mapping | None) -> object:
    """Calls made to answer the questions: live calls plus cache hits (what a cold run makes)."""
    if not isinstance(usage, Mapping):
        return 0
    return int(usage.get("calls", 0)) + int(usage.get("cache_hits", 0))


def _load(r: EvalResult) -> str:
    """The mean 1-minute load average over the run's questions against the core count: above it,
    another process shared the cores and the latencies are inflated."""
    load = r.load_1m
    return "–" if load is None or load.mean is None else f"{load.mean:.2f} / {load.cores}"


def _built(r: EvalResult) -> str:
    built = r.built
    if not isinstance(built, Mapping):
        return "–"
    bits = [str(built.get("structure", ""))]
    if built.get("mb") is not None:
        bits.append(f"{built['mb']} MB")
    if built.get("seconds") is not None:
        bits.append(f"{built['seconds']} s")
    if built.get("llm_calls"):
        bits.append(f"{built['llm_calls']} LLM calls")
    return ", ".join(b for b in bits if b)


def _ingest(r: EvalResult) -> str:
    """What the LLM ingest steps cost when the row's index was built: calls (live and from the
    cache), seconds as recorded (cache hits at the time they took), and what each step left as
    it was."""
    index = r.index
    if index is None or not index.ingest_steps:
        return "–"
    bits = [", ".join(map(str, index.ingest_steps))]
    llm = index.build.llm
    if isinstance(llm, Mapping):
        live, hits = int(llm.get("calls") or 0), int(llm.get("cache_hits") or 0)
        seconds = (float(llm.get("latency_ms") or 0) + float(llm.get("cached_ms") or 0)) / 1000
        bits.append(f"{live + hits} LLM calls ({hits} from the cache), {seconds:,.0f} s as recorded")
    for step, n in (index.build.step_fallbacks or {}).items():
        if n:
            bits.append(f"{step}: {left_as_was(step, n)}")
    return "; ".join(bits)


def _or(value: object, missing: str = "?") -> object:
    return missing if value is None else value


def markdown_table(results: Sequence[EvalResult]) -> str:
    """The side-by-side table as Markdown: metrics, latency, LLM calls, what was built, and when
    and on what each row was measured. Its caption names the test set."""
    label = {"recall": "Recall@K", "ndcg": "nDCG@K", "mrr": "MRR@K", "precision": "P@K", "keyword_coverage": "keyword coverage",
             "hit@1": "hit@1", "hit@5": "hit@5", "any_hit@1": "any hit@1", "any_hit@5": "any hit@5", "any_mrr": "any MRR@K"}
    metric_keys = [m for m in label if any(r.metrics.get(m) is not None for r in results)]
    k = _or(results[0].k) if results else "?"
    head = ["pipeline"] + [label[m].replace("@K", f"@{k}") for m in metric_keys]
    head += ["p50 ms", "p95 ms", "load (mean / cores)", "LLM calls", "LLM ms/q (as recorded)", "no hit", "< k hits", "built beside the index", "LLM ingest steps", "measured"]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in retrieval_rows(results):
        name = r.pipeline + (f" (with answers: {r.answers.mode})" if r.answers else "")
        lat, short = r.latency_ms, r.short_lists
        cells = [name] + [_cell(r.metrics.get(m)) for m in metric_keys]
        cells += [_cell(lat.p50 if lat else None, 0), _cell(lat.p95 if lat else None, 0), _load(r), _cell(_llm_calls(r.llm)),
                  _cell(value_at(r.llm, "ms_per_q_as_recorded"), 0), _cell(short.empty if short else None),
                  _cell(short.under_k if short else None), _built(r), _ingest(r), _cell(_or(r.measured_at, "–"))]
        rows.append("| " + " | ".join(cells) + " |")
    sets = dict.fromkeys(f"{r.dataset} (n={r.n}, k={r.k})" for r in results)
    machines = dict.fromkeys(str(_or(r.machine)) for r in results)
    caption = f"Source: {'; '.join(sets)}; machine: {'; '.join(machines)}."
    return "\n".join(rows) + "\n\n" + caption + "\n"


def markdown_floor(results: Sequence[EvalResult]) -> str:
    """:func:`~yakgwan.eval.rows.recall_floor_text` of the retrieval rows, as a paragraph."""
    text = recall_floor_text(retrieval_rows(results))
    return text + "\n" if text else ""


def markdown_deltas(results: Sequence[EvalResult], metric: str = "recall") -> str:
    """:func:`~yakgwan.eval.rows.category_deltas` of the retrieval rows as Markdown; empty
    without categories. A clause-level set has no recall: its primary hit@5 stands in."""
    if metric == "recall" and any(r.level == "clause" for r in results):
        metric = "hit@5"
    d = category_deltas(retrieval_rows(results), metric)
    if d is None:
        return ""
    cats = d.base.by_category or {}
    head = "| pipeline | " + " | ".join(f"{c} (n={cats[c].get('n', '?')})" for c in d.categories) + " |"
    rows = [head, "|" + "---|" * (len(d.categories) + 1)]
    rows += [f"| {r.pipeline} | " + " | ".join("–" if x is None else f"{x:+.3f}" for x in deltas) + " |" for r, deltas in d.rows]
    name = metric if "@" in metric else f"{metric}@{_or(d.base.k)}"
    return f"{name} by category, minus {d.base.pipeline}:\n\n" + "\n".join(rows) + "\n"


ANSWER_COLUMNS = (  # (label, answer metric)
    ("answer rate", "answer_rate"), ("partial rate", "partial_rate"), ("refusal rate (unanswerable)", "refusal_rate"),
    ("refused or partial (unanswerable)", "non_answer_rate"), ("citation validity", "citation_validity"),
    ("citation support", "citation_support"), ("keyword recall", "keyword_recall"),
    ("answered, ≥ 80% of keywords", "answered_with_keywords"), ("answered, every keyword", "answered_with_all_keywords"),
)


def markdown_answers(results: Sequence[EvalResult]) -> str:
    """The answers runs as Markdown: outcome rates, citation checks, keyword recall, and the
    judge's mean ± spread over its runs, the judge named. Empty without an answers run."""
    rows = [r for r in results if r.answers is not None]
    if not rows:
        return ""
    judged = ("accuracy", "completeness", "relevance")
    head = ["pipeline", "mode", "answered by", "answerable", "unanswerable"] + [label for label, _ in ANSWER_COLUMNS]
    head += [f"judge {j}" for j in judged] + ["judge", "LLM calls (live + cached)"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        a = r.answers
        cells = [r.pipeline, _cell(a.mode), _cell(value_at(a.llm, "model") or "rules"), _cell(a.n_answerable), _cell(a.n_unanswerable)]
        cells += [_cell(value_at(a.metrics, key)) for _, key in ANSWER_COLUMNS]
        for j in judged:
            mean, spread = value_at(a.judge, "scores", j, "mean"), value_at(a.judge, "scores", j, "spread")
            cells.append("–" if mean is None else f"{mean:.2f} ± {spread:.2f}")
        runs = value_at(a.judge, "runs")
        cells += [f"{value_at(a.judge, 'model')} ({runs} runs)" if runs else "–", _cell(_llm_calls(a.llm))]
        out.append("| " + " | ".join(cells) + " |")
    return "Answers (judge: mean ± spread of the run means, 1–5):\n\n" + "\n".join(out) + "\n"


def write_summary(results: Sequence[EvalResult], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([summarise(r) for r in results], ensure_ascii=False, indent=1) + "\n", "utf-8")
