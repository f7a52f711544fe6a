"""The HTML report: self-contained, escaped, and bars drawn to scale."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from yakgwan.eval.report import build_html, render_report
from yakgwan.eval.report.charts import PLOT_H
from yakgwan.eval.result import EvalResult

pytestmark = pytest.mark.unit


def _records(results: list) -> list[EvalResult]:
    """Results given as their ``eval --json`` objects, read as records (records pass as they are)."""
    return [r if isinstance(r, EvalResult) else EvalResult.from_json(r) for r in results]


def _html(results: list, title: str) -> str:
    return build_html(_records(results), title)


def _row(query: str, category: str, mrr: float | None, retrieved: list[str]) -> dict:
    """One per_query row as ``eval --json`` writes it."""
    return {"qid": query[:8], "query": query, "category": category, "relevant": ["company/overview.md"], "retrieved": retrieved,
            "metrics": {"mrr": mrr}, "seed_metrics": {}, "latency_ms": 12.0, "llm_ms": 0.0, "top_produced_by": "dense", "hits": len(retrieved)}


def _result(pipeline: str, scale: float, command: str | None = None) -> dict:
    metrics = {"mrr": 0.8 * scale, "ndcg": 0.6 * scale, "precision": 0.3 * scale, "recall": 0.9 * scale,
               "keyword_coverage": 0.5 * scale}
    return {
        "pipeline": pipeline,
        "dataset": "../shared/data/skytravel/tests_dev.jsonl",
        "n": 3,
        "k": 10,
        "metrics": metrics,
        "seed_metrics": {m: min(1.0, v + 0.1) for m, v in metrics.items()},
        "by_category": {
            "direct_fact": {"mrr": 1.0 * scale, "ndcg": 0.7 * scale},
            "비교<질문>": {"mrr": 0.5 * scale, "ndcg": 0.4 * scale},
        },
        "latency_ms": {"p50": 12.5 * scale * 4, "p95": 40.0 * scale * 4},
        "per_query": [
            _row("하늘여행사는 언제 설립되었나요?", "direct_fact", 1.0, ["company/overview.md", "company/history.md"]),
            _row("<script>alert(1)</script>", "비교<질문>", 0.5, []),
            _row("q3", "direct_fact", None, []),
        ],
        **({"command": command} if command else {}),
    }


class _Collector(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.starts: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.starts.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)


@pytest.fixture
def report(tmp_path: Path) -> tuple[str, _Collector]:
    results = [
        _result("dense", 1.0, command="yakgwan eval --corpus kb --tests t.jsonl --pipeline dense --k 10"),
        _result("<b>bm25 & co</b>", 0.5),
    ]
    out = tmp_path / "report.html"
    render_report(_records(results), out, "하늘여행사 검색 비교 <v1>")
    page = out.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(page)
    return page, parser


def test_korean_page_with_font_fallback(report):
    page, parser = report
    assert ("html", {"lang": "ko"}) in parser.starts
    assert '<meta charset="utf-8">' in page
    assert '"Noto Sans CJK KR"' in page
    assert "하늘여행사 검색 비교 &lt;v1&gt;" in page


def test_bars_exist_with_heights_proportional_to_values(report):
    _, parser = report
    bars = [a for tag, a in parser.starts if tag == "rect" and a.get("class") == "bar"]
    # overall 5 metrics + seed 5 metrics, per category 2 metrics x 2 categories, latency 2: each x 2 pipelines
    assert len(bars) == (5 + 5 + 2 * 2 + 2) * 2
    for bar in bars:
        assert bar["data-series"] in {"dense", "<b>bm25 & co</b>"}  # attribute round-trips unescaped
    metric_bars = [b for b in bars if b["data-group"] not in {"p50", "p95"}]
    for bar in metric_bars:  # metric charts share the 0..1 axis
        assert float(bar["height"]) == pytest.approx(float(bar["data-value"]) * PLOT_H, abs=1e-3)
    latency = [b for b in bars if b["data-group"] in {"p50", "p95"}]
    ratios = {round(float(b["height"]) / float(b["data-value"]), 6) for b in latency}
    assert len(ratios) == 1  # one scale within the latency chart
    # the MRR bars (standard 0.8 / 0.4, seed 0.9 / 0.5): dense's 0.8 is twice the other's 0.4
    mrr = sorted((float(b["data-value"]), float(b["height"])) for b in metric_bars if b["data-group"] == "mrr")
    assert [v for v, _ in mrr] == pytest.approx([0.4, 0.5, 0.8, 0.9])
    assert mrr[2][1] == pytest.approx(2 * mrr[0][1], abs=1e-3)


def test_bars_are_named_under_the_axis_when_colours_would_repeat() -> None:
    from yakgwan.eval.report.charts import PALETTE, bar_chart

    def names_drawn(n: int) -> list[str]:
        series = [f"p{i}" for i in range(n)]
        svg = bar_chart(["mrr"], series, {("mrr", s): 0.5 for s in series}, 1.0, "c")
        return re.findall(r'<text class="series"[^>]*>([^<]*)</text>', svg)

    assert names_drawn(len(PALETTE)) == []  # the legend's colours tell every bar apart
    assert names_drawn(len(PALETTE) + 1) == [f"p{i}" for i in range(len(PALETTE) + 1)]  # every bar named, in order


def test_value_labels_are_drawn(report):
    page, _ = report
    assert '<text class="value"' in page
    assert ">0.800</text>" in page and ">0.400</text>" in page
    assert ">50.0</text>" in page  # dense p50 latency


def test_text_is_escaped(report):
    page, parser = report
    assert "<b>bm25" not in page
    assert "&lt;b&gt;bm25 &amp; co&lt;/b&gt;" in page
    assert "<script" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "비교&lt;질문&gt;" in page
    assert not any(tag in {"script", "b"} for tag, _ in parser.starts)


def test_no_external_resources(report):
    page, parser = report
    for tag, attrs in parser.starts:
        for name in ("src", "href", "xlink:href"):
            assert "http" not in (attrs.get(name) or ""), (tag, attrs)
        assert tag not in {"script", "link", "img", "iframe"}
    assert "@import" not in page and "url(" not in page


def test_sources_name_dataset_n_k_and_command(report):
    page, _ = report
    assert "../shared/data/skytravel/tests_dev.jsonl" in page
    assert "n = 3" in page and "k = 10" in page
    assert "yakgwan eval --corpus kb --tests t.jsonl --pipeline dense --k 10" in page
    assert "Source: ../shared/data/skytravel/tests_dev.jsonl (n=3, k=10)" in page


def test_missing_sections_render(tmp_path: Path):
    bare = {"pipeline": "bm25", "dataset": "beir/autorag_ko", "n": 2, "k": 5,
            "metrics": {"mrr": 0.5, "ndcg": float("nan"), "precision": 0.1, "recall": 0.2},
            "seed_metrics": {}, "by_category": {}, "per_query": []}
    out = tmp_path / "r.html"
    render_report(_records([bare]), out, "BEIR")
    page = out.read_text(encoding="utf-8")
    parser = _Collector()
    parser.feed(page)
    bars = [a for tag, a in parser.starts if tag == "rect" and a.get("class") == "bar"]
    assert {b["data-group"] for b in bars} == {"mrr", "precision", "recall"}  # nan draws no bar
    assert "keyword_coverage" not in page
    assert "no categories" in page and "No latency" in page


def test_llm_usage_rows_when_present(tmp_path) -> None:  # type: ignore[no-untyped-def]

    base = {"dataset": "d", "n": 1, "k": 10, "metrics": {"mrr": 1.0}, "latency_ms": {"p50": 1.0, "p95": 2.0}, "per_query": []}
    llm = {"model": "local:q", "calls": 0, "cache_hits": 7, "ms_per_q_as_recorded": 4321.5, "cached_untimed": 2}
    html = _html([{**base, "pipeline": "bm25"}, {**base, "pipeline": "fusion", "llm": llm}], "t")
    assert "<th>LLM calls</th>" in html and "<td>7</td>" in html and "local:q" in html
    # a rerun from the cache still shows what the LLM work cost, and how many hits had no recorded time
    assert "<th>mean ms: LLM as recorded (cache hits at the time they took)</th>" in html and "<td>4321.5</td><td>2</td>" in html
    # what a pipeline built beside the index: RAPTOR's tree with its LLM cost, late's token vectors
    tree = {"structure": "RAPTOR tree (55 summaries, 2 level(s))", "nodes": 55, "llm_calls": 55, "seconds": 2600.0, "bytes": 300000, "mb": 0.29}
    html = _html([{**base, "pipeline": "raptor", "built": tree}, {**base, "pipeline": "late", "built": {"structure": "token vectors (float16)", "mb": 12.5}}], "t")
    assert "<th>built beside the index</th>" in html and "RAPTOR tree (55 summaries, 2 level(s))" in html and "<td>55</td><td>2600.0</td>" in html
    assert "token vectors (float16)" in html and "<td>12.50</td>" in html


def test_side_by_side_rows_deltas_and_steps(tmp_path) -> None:  # type: ignore[no-untyped-def]

    def res(name: str, recall: dict, **extra):  # type: ignore[no-untyped-def]
        cats = {c: {"recall": v, "mrr": 1.0, "n": 2} for c, v in recall.items()}
        return {"pipeline": name, "dataset": "d", "n": 4, "k": 10, "metrics": {"recall": sum(recall.values()) / 2},
                "by_category": cats, "latency_ms": {"p50": 1.0, "p95": 2.0}, "per_query": [], **extra}

    page = _html([
        res("hybrid_cc", {"a": 0.5, "b": 1.0}),
        res("hyde", {"a": 0.75, "b": 0.9}, llm={"model": "local:q", "calls": 4}, stage_ms={"total": 9.0, "llm": 8.0, "retrieval": 1.0, "llm:hyde_lay": 8.0}),
        res("preprocess", {"a": 0.5, "b": 1.0}, index={"ingest_steps": ["preprocess"], "llm": {"calls": 30, "seconds": 12.5}}),
        res("llm_chunk", {"a": 0.5, "b": 1.0}, index={"ingest_steps": ["llm_chunk"], "step_fallbacks": {"llm_chunk": 3},
                                                      "llm": {"calls": 1, "seconds": 27.0, "cache_hits": 43, "cached_ms": 1348885.9}}),
    ], "t")
    # one row per pipeline; deltas against hybrid_cc by category, hand-computed
    assert "<tr><th>hyde</th>" in page and "<td>+0.250</td><td>-0.100</td>" in page
    assert "<th>hyde_lay</th>" in page and "<td>8.0</td>" in page  # LLM ms per query by step
    assert "<td>preprocess</td><td>30</td><td>12.5</td>" in page  # what the ingest step cost
    # … with what came from the response cache, and what the step left as it was
    assert "<th>ingest LLM cache hits</th><th>ingest ms of cache hits, as recorded</th><th>llm_chunk: documents left as they were</th>" in page
    assert "<td>llm_chunk</td><td>1</td><td>27.0</td><td>43</td><td>1348886</td><td>3</td>" in page
    # the test set, n and k said once above the table when every row shares them, not in each row
    side = page.split("<h2>Side by side</h2>")[1].split("</table>")[0]
    assert '<p class="note">Every row: d, n = 4, k = 10.</p>' in side and "<th>dataset</th>" not in side
    assert ".wide th:first-child { position: sticky; left: 0;" in page  # scrolled sideways, each row keeps its name
    assert ">1.0</td>" in side and ">2.0</td>" in side and ">1.0000<" not in side  # latency in ms to one decimal
    assert "against plain hybrid" not in page  # no plain hybrid row: no floor to state
    page = _html([res("hybrid", {"a": 0.5, "b": 1.0}), res("hyde", {"a": 0.75, "b": 0.7})], "t")
    floor = page.split("<h2>Where each technique helps or hurts</h2>")[1]
    assert floor.lstrip().startswith("<p>Overall Recall@10 of each technique against plain hybrid (0.7500): the lowest is hyde (-0.0250); more than 0.02 below: hyde (-0.0250).</p>")
    # an answers run of a pipeline measured on its own is a row of the answers table only
    answers = {"mode": "generate", "n_answerable": 4, "n_unanswerable": 2, "metrics": {"answer_rate": 0.75}}
    page = _html([res("hybrid_cc", {"a": 0.5, "b": 1.0}),
                       res("hybrid_cc", {"a": 0.5, "b": 1.0}, answers=answers, llm={"model": "local:q", "calls": 6}, stage_ms={"llm:answer": 40.0}),
                       res("hyde", {"a": 0.75, "b": 0.9})], "t")
    side, rest = page.split("<h2>Answers</h2>")
    assert side.count("<tr><th>hybrid_cc</th>") == 1 and side.count("<tr><th>hyde</th>") == 1
    answered, steps = rest.split("<h2>LLM time by step</h2>")
    assert answered.count("<tr><th>hybrid_cc") == 1 and "<td>0.7500</td>" in answered
    deltas = answered.split("<h2>Where each technique helps or hurts</h2>")[1]
    assert "hybrid_cc</th><td>+0.000" not in deltas and deltas.count("<tr><th>hyde</th>") == 2  # recall and MRR, hyde only
    assert "<tr><th>hybrid_cc · answers (generate)</th>" in steps
    charts = page.split("<h2>Retrieval metrics</h2>")[1]
    assert charts.count('data-series="hybrid_cc"') == charts.count('data-series="hyde"') > 0  # one bar per chart group each
    assert "<strong>hybrid_cc · answers (generate)</strong>" in page.split("<h2>Sources</h2>")[1]


def test_short_hit_lists_are_counted_and_shown(tmp_path: Path) -> None:
    from yakgwan.eval.datasets import EvalQuery, EvalSet
    from yakgwan.eval.result import ShortLists
    from yakgwan.eval.runner import EvalOptions, score_retriever
    from yakgwan.core.records import Chunk, Hit

    def chunk(i: int) -> Chunk:
        return Chunk(f"c{i}", f"d{i}.md", f"d{i}.md", "t", f"본문 {i}", 0, 4)

    class Dwindling:  # 12 hits, then 3, then none
        def __init__(self) -> None:
            self.sizes = iter([12, 12, 3, 0])

        def retrieve(self, query: str, k: int) -> list[Hit]:
            return [Hit(chunk(i), 1.0 / (i + 1), i + 1, "fake") for i in range(min(next(self.sizes), k))]

    qs = [EvalQuery(str(i), f"질문 {i}", {"d0.md": 1}) for i in range(3)]
    res = score_retriever(Dwindling(), "fake", EvalSet("s", tmp_path, qs), EvalOptions(k=10), quiet=True)
    assert res.short_lists == ShortLists(empty=1, under_k=2) and [p.hits for p in res.per_query] == [12, 3, 0]
    page = _html([res], "t")
    assert "<th>questions with no hit</th><th>with fewer than k hits</th>" in page and "<td>1</td><td>2</td>" in page


def test_bold_follows_the_figures_shown_and_the_test_set_is_said_once_only_when_known() -> None:

    def res(name: str, p50: float, **extra):  # type: ignore[no-untyped-def]
        return {"pipeline": name, "dataset": "d", "n": 4, "k": 10, "metrics": {"recall": 0.5},
                "latency_ms": {"p50": p50, "p95": 30.0}, "per_query": [], **extra}

    side = _html([res("a", 17.04), res("b", 16.96)], "t").split("<h2>Side by side</h2>")[1].split("</table>")[0]
    assert side.count('<td class="best">17.0</td>') == 2  # both show 17.0: both are the best shown
    unknown = [{k: v for k, v in res(n, 1.0).items() if k not in ("dataset", "n")} for n in ("a", "b")]
    side = _html(unknown, "t").split("<h2>Side by side</h2>")[1].split("</table>")[0]
    assert "Every row:" not in side and "<th>dataset</th>" in side  # not "Every row: None, n = None"
