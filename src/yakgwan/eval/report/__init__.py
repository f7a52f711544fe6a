"""A self-contained HTML report comparing pipelines from ``eval --json`` results.

One file, no network: inline CSS and inline SVG bar charts drawn here, no scripts. Every figure
names its source (dataset, n, k and, when given, the command that produced it). All text taken
from the results is HTML-escaped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import NamedTuple

from yakgwan.eval.report.charts import LABELS, bar_chart, escape, legend, nice_ceiling
from yakgwan.eval.result import EvalResult
from yakgwan.eval.rows import category_deltas, num, recall_floor_text, retrieval_rows, row_label, value_at
from yakgwan.ingest.steps.fallbacks import left_as_was_head

METRICS = ("mrr", "ndcg", "precision", "recall", "keyword_coverage", "hit@1", "hit@5", "any_hit@1", "any_hit@5", "any_mrr")
CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", "Noto Sans CJK KR", "Noto Sans KR",
  "Apple SD Gothic Neo", "Malgun Gothic", sans-serif; margin: 2rem auto; max-width: 1100px;
  padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: .6rem 0; font-size: .9rem; }
.wide { overflow-x: auto; max-width: 100%; }
.wide th:first-child { position: sticky; left: 0; background: #fff; box-shadow: 1px 0 0 #ddd; }
th, td { border: 1px solid #ddd; padding: .25rem .55rem; text-align: right; vertical-align: top; }
th:first-child, td:first-child { text-align: left; }
.summary td { white-space: nowrap; } td.best { font-weight: 700; }
.legend span { display: inline-block; margin-right: 1.1rem; font-size: .9rem; }
.legend i { display: inline-block; width: .9rem; height: .9rem; margin-right: .3rem; vertical-align: -2px; }
figure { margin: 1rem 0 1.6rem; overflow-x: auto; }
figcaption { font-size: .85rem; color: #555; }
svg text { font-family: inherit; font-size: 11px; fill: #333; }
svg text.value { font-size: 10px; }
code { background: #f4f4f4; padding: .1rem .3rem; word-break: break-all; }
.note { color: #555; font-size: .9rem; }
details { margin: .5rem 0; } summary { cursor: pointer; }
"""


_e = escape


def _fmt(value: object, digits: int = 4) -> str:
    number = num(value)
    if isinstance(value, (list, tuple)):
        return _e(", ".join(map(str, value))) or "–"
    if number is None:
        return "–" if value is None else _e(value)
    return str(value) if isinstance(value, int) else f"{number:.{digits}f}"


def _or(value: object, missing: str = "?") -> object:
    return missing if value is None else value


def _provenance(results: Sequence[EvalResult]) -> str:
    """One line naming the data behind a figure: each distinct dataset with its n and k."""
    seen = dict.fromkeys(f"{_or(r.dataset)} (n={_or(r.n)}, k={_or(r.k)})" for r in results)
    return "Source: " + "; ".join(_e(s) for s in seen) + ". Commands under “Sources”."


def _figure(svg: str, caption: str, results: Sequence[EvalResult]) -> str:
    return f"<figure>{svg}<figcaption>{_e(caption)} {_provenance(results)}</figcaption></figure>"


Table = Callable[[EvalResult], "Mapping[str, object] | None"]  # a metric table of a result (metrics, seed_metrics)


def _present(results: Sequence[EvalResult], table: Table) -> list[str]:
    return [m for m in METRICS if any(num((table(r) or {}).get(m)) is not None for r in results)]


def _metric_chart(results: Sequence[EvalResult], table: Table, caption: str) -> str:
    names = [r.pipeline for r in results]
    metrics = _present(results, table)
    if not metrics:
        return ""
    values = {(m, n): (table(r) or {}).get(m) for r, n in zip(results, names) for m in metrics}
    ymax = max([1.0] + [v for v in map(num, values.values()) if v is not None])
    return _figure(bar_chart(metrics, names, values, ymax, caption), caption, results)


def _category_charts(results: Sequence[EvalResult]) -> str:
    names = [r.pipeline for r in results]
    cats = sorted({c for r in results for c in (r.by_category or {})})
    if not cats:
        return '<p class="note">The test set has no categories.</p>'
    out = []
    for metric in METRICS:
        values = {(c, n): ((r.by_category or {}).get(c) or {}).get(metric)
                  for r, n in zip(results, names) for c in cats}
        if all(num(v) is None for v in values.values()):
            continue
        ymax = max([1.0] + [v for v in map(num, values.values()) if v is not None])
        caption = f"{LABELS[metric]} by category (mean over the questions of each category)."
        out.append(_figure(bar_chart(cats, names, values, ymax, caption), caption, results))
    return "".join(out)


def _breakdown_table(results: Sequence[EvalResult], groups: Callable[[EvalResult], Mapping | None], what: str) -> str:
    """Clause metrics per group (style, topic): one row per group with its n, per pipeline its
    primary Hit@1, Hit@5, MRR@K and any-unit Hit@5. Empty when no result has the groups."""
    rows = [r for r in results if groups(r)]
    if not rows:
        return ""
    names = sorted({g for r in rows for g in groups(r) or {}})
    keys = [m for m in ("hit@1", "hit@5", "mrr", "any_hit@5") if any(m in v for r in rows for v in (groups(r) or {}).values())]
    head = (f"<tr><th>{_e(what)}</th><th>n</th>" + "".join(f"<th>{_e(r.pipeline)}: {_e(LABELS[m])}</th>" for r in rows for m in keys) + "</tr>")
    body = []
    for g in names:
        n = next((v.get("n") for r in rows if (v := (groups(r) or {}).get(g))), None)
        cells = "".join(f"<td>{_fmt(value_at(groups(r), g, m), 3)}</td>" for r in rows for m in keys)
        body.append(f"<tr><th>{_e(g)}</th><td>{_fmt(n)}</td>{cells}</tr>")
    return f'<div class="wide"><table>{head}{"".join(body)}</table></div>'


def _clause_sections(results: Sequence[EvalResult]) -> list[str]:
    """A clause-level set: what the units are, and the metrics per style and per topic."""
    clause = [r for r in results if r.level == "clause"]
    if not clause:
        return []
    unanswerable = next((r.n_unanswerable for r in clause if r.n_unanswerable), 0)
    return [
        "<h2>Clause-level metrics</h2>",
        '<p class="note">The ranked items are (약관, 조) units: a chunk stands for its 약관 (whitespace aside) and 조, a chunk without '
        "a 조 for its pages; a unit ranks as its best chunk. A 제N조 governing unit matches a chunk of the same 약관 and 조, a table "
        "(별표, 부표, 분류표) a chunk on its page. Primary: the question's first governing unit; any: the first unit matching any of "
        f"them. Means over the answerable questions{f'; {unanswerable} unanswerable question(s) not scored' if unanswerable else ''}.</p>",
        "<h3>By style</h3>", _breakdown_table(clause, lambda r: r.by_category, "style"),
        "<h3>By topic</h3>", _breakdown_table(clause, lambda r: r.by_topic, "topic"),
    ]


def _latency(r: EvalResult) -> dict[str, float]:
    return r.latency_ms.to_json() if r.latency_ms is not None else {}


def _latency_chart(results: Sequence[EvalResult]) -> str:
    names = [r.pipeline for r in results]
    values = {(p, n): _latency(r).get(p) for r, n in zip(results, names) for p in ("p50", "p95")}
    present = [v for v in map(num, values.values()) if v is not None]
    if not present:
        return '<p class="note">No latency was recorded.</p>'
    caption = "Latency per query in milliseconds (p50, p95; linear interpolation)."
    svg = bar_chart(["p50", "p95"], names, values, nice_ceiling(max(present)), caption, digits=1)
    return _figure(svg, caption, results)


class Column(NamedTuple):
    """A table column: its label, how to read its value from a result, the best-of function for
    bold (None: no best), and the decimals shown."""

    label: str
    get: Callable[[EvalResult], object]
    best: Callable[[list[float]], float] | None = None
    digits: int = 4


def _table(results: Sequence[EvalResult], columns: Sequence[Column | tuple],
           name_of: Callable[[EvalResult], str] | None = None, css: str = "wide") -> str:
    """Pipelines as rows (named by ``name_of``; by the pipeline when None), one column per
    :class:`Column` (or a tuple of its fields); the best value of each numeric column in bold,
    compared as shown (rounded to the column's decimals). The table sits in a ``div`` of class
    ``css`` that scrolls sideways when the table is wider than the page."""
    cols = [c if isinstance(c, Column) else Column(*c) for c in columns]
    head = "<tr><th>pipeline</th>" + "".join(f"<th>{_e(c.label)}</th>" for c in cols) + "</tr>"
    tops = []
    for c in cols:
        nums = [round(v, c.digits) for v in (num(c.get(r)) for r in results) if v is not None]
        tops.append(c.best(nums) if c.best and len(nums) > 1 else None)
    body = []
    for r in results:
        tds = []
        for c, top in zip(cols, tops):
            v = c.get(r)
            shown = num(v)
            best_attr = ' class="best"' if top is not None and shown is not None and round(shown, c.digits) == top else ""
            tds.append(f"<td{best_attr}>{_fmt(v, c.digits)}</td>")
        name = name_of(r) if name_of is not None else r.pipeline
        body.append(f"<tr><th>{_e(name)}</th>{''.join(tds)}</tr>")
    return f'<div class="{css}"><table>{head}{"".join(body)}</table></div>'


def _shared_set(results: Sequence[EvalResult]) -> str | None:
    """"dataset, n = …, k = …" when every result has the same three, all given (said once above
    the table, not in each row); None otherwise."""
    sets = {tuple(None if v is None else str(v) for v in (r.dataset, r.n, r.k)) for r in results}
    if len(sets) != 1:
        return None
    dataset, n, k = next(iter(sets))
    if dataset is None or n is None or k is None:
        return None
    return f"{dataset}, n = {n}, k = {k}"


def _in(section: Callable[[EvalResult], Mapping | None], *path: str) -> Callable[[EvalResult], object]:
    """A column's reader: the value at ``path`` in one of a result's mappings (metrics, LLM usage, answers)."""
    return lambda r: value_at(section(r), *path)


def _index_llm(r: EvalResult) -> Mapping | None:
    return r.index.build.llm if r.index is not None else None


def _summary_table(results: Sequence[EvalResult]) -> str:
    """One row per pipeline: metrics, latency (and its LLM share), LLM calls and tokens, and
    what LLM ingest steps cost."""
    shared = _shared_set(results)
    columns: list[tuple] = [] if shared else [("dataset", lambda r: r.dataset, None), ("n", lambda r: r.n, None), ("k", lambda r: r.k, None)]
    columns += [(LABELS[m], _in(lambda r: r.metrics, m), max) for m in _present(results, lambda r: r.metrics)]
    columns += [(f"latency {p} (ms)", _in(_latency, p), min, 1) for p in ("p50", "p95")]
    if any(r.load_1m for r in results):  # above the core count the latencies were taken on shared cores
        columns += [("load average (1 min, mean)", lambda r: r.load_1m and r.load_1m.mean, None, 2), ("cores", lambda r: r.load_1m and r.load_1m.cores, None)]
    if any(r.short_lists for r in results):
        columns += [("questions with no hit", lambda r: r.short_lists and r.short_lists.empty, None),
                    ("with fewer than k hits", lambda r: r.short_lists and r.short_lists.under_k, None)]
    if any(r.stage_ms for r in results):
        stage = lambda r: r.stage_ms  # noqa: E731
        columns += [("mean ms: retrieval", _in(stage, "retrieval"), min, 1), ("mean ms: LLM", _in(stage, "llm"), None, 1)]
    if any(r.llm for r in results):
        usage = lambda r: r.llm  # noqa: E731
        columns += [
            ("LLM", _in(usage, "model"), None),
            ("LLM calls", _in(usage, "calls"), None),
            ("LLM cache hits", _in(usage, "cache_hits"), None),
            ("mean ms: LLM as recorded (cache hits at the time they took)", _in(usage, "ms_per_q_as_recorded"), None, 1),
            ("cache hits with no recorded time", _in(usage, "cached_untimed"), None),
            ("cached prompt tokens", _in(usage, "cached_prompt_tokens"), None),
            ("cached completion tokens", _in(usage, "cached_completion_tokens"), None),
            ("LLM prompt tokens", _in(usage, "prompt_tokens"), None),
            ("LLM completion tokens", _in(usage, "completion_tokens"), None),
        ]
    if any(r.built for r in results):
        built = lambda r: r.built  # noqa: E731
        columns += [
            ("built beside the index", _in(built, "structure"), None),
            ("built: MB", _in(built, "mb"), None, 2),
            ("built: LLM calls", _in(built, "llm_calls"), None),
            ("built: s", _in(built, "seconds"), None, 1),
        ]
    if any(_index_llm(r) for r in results):
        columns += [
            ("ingest steps", lambda r: r.index.ingest_steps if r.index is not None else None, None),
            ("ingest LLM calls", _in(_index_llm, "calls"), None),
            ("ingest s", _in(_index_llm, "seconds"), None, 1),
            ("ingest LLM cache hits", _in(_index_llm, "cache_hits"), None),
            ("ingest ms of cache hits, as recorded", _in(_index_llm, "cached_ms"), None, 0),
        ]
    fallbacks = lambda r: r.index.build.step_fallbacks if r.index is not None else None  # noqa: E731
    fell_back = dict.fromkeys(s for r in results for s in (fallbacks(r) or {}))
    columns += [(left_as_was_head(step), _in(fallbacks, step), None) for step in fell_back]
    table = _table(results, columns, css="wide summary")
    return f'<p class="note">Every row: {_e(shared)}.</p>{table}' if shared else table


ANSWER_LABELS = {
    "answer_rate": "answer rate", "partial_rate": "partial rate", "refusal_rate": "refusal rate (unanswerable)",
    "non_answer_rate": "refused or partial (unanswerable)", "citation_validity": "citation validity",
    "citation_support": "citation support", "keyword_recall": "keyword recall",
    "answered_with_keywords": "answered, ≥ 80% of keywords", "answered_with_all_keywords": "answered, every keyword",
}


def _answers_table(results: Sequence[EvalResult]) -> str:
    """``eval --answers``: outcome rates, citation checks, keyword recall and judge scores."""
    rows = [r for r in results if r.answers]
    if not rows:
        return ""
    def judge(r: EvalResult) -> Mapping | None:
        return r.answers.judge if r.answers is not None else None

    def latency(r: EvalResult) -> object:
        return r.answers.latency_ms.p50 if r.answers is not None and r.answers.latency_ms is not None else None

    columns: list[tuple] = [("mode", lambda r: r.answers.mode, None), ("answerable", lambda r: r.answers.n_answerable, None),
                            ("unanswerable", lambda r: r.answers.n_unanswerable, None)]
    columns += [(label, _in(lambda r: r.answers.metrics, key), None) for key, label in ANSWER_LABELS.items()]
    columns += [(f"judge {k} (mean)", _in(judge, "scores", k, "mean"), max) for k in ("accuracy", "completeness", "relevance")]
    columns += [(f"judge {k} (spread)", _in(judge, "scores", k, "spread"), None) for k in ("accuracy", "completeness", "relevance")]
    columns += [("judge", _in(judge, "model"), None), ("latency p50 (ms)", latency, min, 1), ("LLM calls", lambda r: r.answers.llm_calls, None)]
    return _table(rows, columns) + (
        '<p class="note">Answer rate: answerable questions answered. Refusal rate: unanswerable questions refused (the next column also '
        "counts partial answers, which say the documents lack the point asked). Citation validity: quotes found verbatim in the cited chunk, "
        "checked against the index. Citation support: cited documents among the question's source documents. Judge: the LLM named, on the "
        "seed's 1–5 rubric, mean over runs and the spread of the run means.</p>"
    )


def _seed_table(results: Sequence[EvalResult]) -> str:
    seed = lambda r: r.seed_metrics  # noqa: E731
    present = _present(results, seed)
    if not present:
        return ""
    return _table(results, [(LABELS[m] + " (seed)", _in(seed, m), max) for m in present])


def _step_table(results: Sequence[EvalResult]) -> str:
    """Mean LLM milliseconds per query, by step (rewrite, hyde_lay, rerank_llm …)."""
    steps = sorted({k for r in results for k in (r.stage_ms or {}) if k.startswith("llm:")})
    if not steps:
        return ""
    return _table([r for r in results if r.llm], [(k[4:], _in(lambda r: r.stage_ms, k), min, 1) for k in steps], row_label)


def _delta_tables(results: Sequence[EvalResult]) -> str:
    """Recall@K (a clause-level set: primary Hit@5) and MRR@K by category against the baseline
    (:func:`category_deltas`)."""
    out = []
    for metric in ("hit@5" if any(r.level == "clause" for r in results) else "recall", "mrr"):
        d = category_deltas(results, metric)
        if d is None:
            return ""
        cats = d.base.by_category or {}
        head = "<tr><th>pipeline</th>" + "".join(f"<th>{_e(c)} (n={_e(cats[c].get('n', '?'))})</th>" for c in d.categories) + "</tr>"
        body = []
        for r, deltas in d.rows:
            cells = "".join("<td>—</td>" if x is None else f"<td>{x:+.3f}</td>" for x in deltas)
            body.append(f"<tr><th>{_e(r.pipeline)}</th>{cells}</tr>")
        out.append(f"<p>{_e(LABELS[metric])} by category, minus {_e(d.base.pipeline)}:</p><table>{head}{''.join(body)}</table>")
    return "".join(out)


def _sources(results: Sequence[EvalResult]) -> str:
    items = []
    for r in results:
        bits = [f"<strong>{_e(row_label(r))}</strong>: dataset <code>{_e(_or(r.dataset))}</code>",
                f"n = {_e(_or(r.n))}", f"k = {_e(_or(r.k))}"]
        for key, value in (("source", r.source), ("machine", r.machine), ("command", r.command), ("note", r.note)):
            if value:
                bits.append(f"{key} <code>{_e(str(value))}</code>")  # a note in English, as the report is
        items.append("<li>" + ", ".join(bits) + "</li>")
    return "<ul>" + "".join(items) + "</ul>"


def _flatten(row: Mapping) -> dict[str, object]:
    """One level of nesting becomes ``outer.inner`` columns; lists show their first 10 items."""
    out: dict[str, object] = {}
    for key, value in row.items():
        if isinstance(value, Mapping):
            for k2, v2 in value.items():
                out[f"{key}.{k2}"] = v2
        elif isinstance(value, (list, tuple)):
            out[key] = ", ".join(map(str, value[:10])) + (" …" if len(value) > 10 else "")
        else:
            out[key] = value
    return out


def _per_query(results: Sequence[EvalResult]) -> str:
    out = []
    for r in results:
        rows = [_flatten(q.to_json()) for q in r.per_query or ()]
        if not rows:
            continue
        cols = list(dict.fromkeys(c for row in rows for c in row if not isinstance(row[c], Mapping)))
        head = "<tr>" + "".join(f"<th>{_e(c)}</th>" for c in cols) + "</tr>"
        body = "".join("<tr>" + "".join(f"<td>{_fmt(row.get(c))}</td>" for c in cols) + "</tr>" for row in rows)
        out.append(f"<details><summary>{_e(r.pipeline)}: {len(rows)} queries</summary>"
                   f"<table>{head}{body}</table></details>")
    return "".join(out) or '<p class="note">No per-query rows.</p>'


def build_html(results: Sequence[EvalResult], title: str) -> str:
    """The report as one HTML string (see :func:`render_report`)."""
    answered = results
    results = retrieval_rows(results)  # an answers run of a pipeline measured on its own adds no retrieval row
    names = [r.pipeline for r in results]
    floor = recall_floor_text(results)
    sections = [
        f"<h1>{_e(title)}</h1>",
        "<h2>Side by side</h2>",
        _summary_table(results),
        '<p class="note">Metrics are means over questions. Latency is per query, LLM time included; '
        "“mean ms: LLM” is the part spent in LLM calls (0 when answered from the response cache). "
        "Ingest columns are what LLM ingest steps cost when the index was built.</p>",
        _seed_table(results),
        '<p class="note">“(seed)” columns are computed exactly as the seed tutorial does (chunk-level '
        "relevance by source document; its nDCG is normalised over the retrieved list, so it is higher "
        "than standard nDCG).</p>" if any(r.seed_metrics for r in results) else "",
        *_clause_sections(results),
        "<h2>Answers</h2>" if any(r.answers for r in answered) else "", _answers_table(answered),
        "<h2>Where each technique helps or hurts</h2>", f"<p>{_e(floor)}</p>" if floor else "", _delta_tables(results),
        "<h2>LLM time by step</h2>", _step_table(answered),
        "<h2>Retrieval metrics</h2>", legend(names),
        _metric_chart(results, lambda r: r.metrics, "Clause-level retrieval metrics ((약관, 조) units)." if any(r.level == "clause" for r in results)
                      else "Standard retrieval metrics (document level, trec_eval definitions)."),
        _metric_chart(results, lambda r: r.seed_metrics, "The same metrics as the seed tutorial computes them."),
        "<h2>By category</h2>", legend(names), _category_charts(results),
        "<h2>Latency</h2>", legend(names), _latency_chart(results),
        "<h2>Sources</h2>", _sources(answered),
        "<h2>Per query</h2>", _per_query(results),
    ]
    return (
        '<!DOCTYPE html>\n<html lang="ko">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        + "\n".join(s for s in sections if s)
        + "\n</body>\n</html>\n"
    )


def render_report(results: Sequence[EvalResult], path: Path, title: str) -> None:
    """Write a single self-contained HTML file comparing the pipelines in ``results``.

    ``results`` holds one :class:`~yakgwan.eval.result.EvalResult` per pipeline. The page has a side-by-side table, grouped bar charts of the overall
    and per-category metrics and of latency, the source of every figure, and the per-query rows.
    """
    Path(path).write_text(build_html(results, title), encoding="utf-8")
