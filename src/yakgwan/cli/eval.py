"""``yakgwan eval`` and ``yakgwan report``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Mapping

from yakgwan.cli.output import err, say
from yakgwan.core.errors import json_text
from yakgwan.config import Settings
from yakgwan.services.ask import RuleSet
from yakgwan.services.evaluate import METRIC_KEYS, EvalRequest, evaluate, load_evalset, load_unanswerable
from yakgwan.services.ingest import fallback_lines
from yakgwan.services.report import AnswersResult, EvalResult, combine_results, render_report


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    unanswerable = load_unanswerable(args.unanswerable, args.half) if args.unanswerable else []
    command = "yakgwan " + " ".join(sys.argv[1:]) if sys.argv and "yakgwan" in sys.argv[0] else None
    req = EvalRequest(
        load_evalset(args.corpus, args.tests, args.beir, args.half), tuple(args.pipelines or ["default"]), args.k, args.limit, args.answers,
        tuple(unanswerable), args.answer_mode, args.judge_runs, command, RuleSet.parse(args.rules), args.ray, args.ray_workers,
    )
    lang = settings.language
    results = evaluate(settings, req, on_result=lambda res: print_result_line(res, lang), on_warning=lambda message: err(say(lang, "cli.warning", text=message)))
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json_text([r.to_json() for r in results], indent=1), "utf-8")
    if args.report:
        render_report(results, args.report, title=f"yakgwan eval — {req.evalset.name}")
    return 0


def cmd_report(args: argparse.Namespace, settings: Settings) -> int:
    combined = combine_results(args.results)
    for warning in combined.warnings:
        err(say(settings.language, "cli.warning", text=warning))
    if args.markdown:
        combined.write_markdown(args.markdown)
    if args.summary:
        combined.write_summary(args.summary)
    if args.out:
        combined.write_html(args.out, args.title)
    if not settings.quiet:
        print(combined.markdown, end="")
    return 0


def print_result_line(res: EvalResult | Mapping, lang: str = "en") -> None:
    """One result's metrics, latency and LLM cost on one line, then what the run should know.
    ``res`` may also be its JSON (``eval --json``'s object). The figures' line is written with
    the metrics' own names (mrr@10=…, p50=…ms) in every language, as docs/eval.md quotes them;
    the warnings and notes after it are in ``lang``."""
    if not isinstance(res, EvalResult):
        res = EvalResult.from_json(res)
    cut = ("mrr", "any_mrr") if res.level == "clause" else METRIC_KEYS
    parts = "  ".join(f"{k}@{res.k}={v:.4f}" if k in cut else f"{k}={v:.4f}" for k, v in res.metrics.items())
    lat = res.latency_ms
    n = f"n={res.n}" + (f" (+{res.n_unanswerable} unanswerable, not scored)" if res.n_unanswerable else "")
    units = " (약관, 조) units:" if res.level == "clause" else ""
    print(f"{res.pipeline:<16} {res.dataset} {n}{units}  {parts}  p50={lat.p50:.1f}ms p95={lat.p95:.1f}ms{_llm_cost(res)}")
    if res.index is not None:
        build = res.index.build
        for line in fallback_lines(build.step_fallbacks or {}, build.step_fallback_reasons or {}):
            print("  " + line.text(lang))
    if b := res.built:
        cost = say(lang, "cli.built_cost", calls=b["llm_calls"], seconds=f"{b['seconds']:.0f}") if "llm_calls" in b else ""
        print(say(lang, "cli.built", structure=b["structure"], mb=f"{b['mb']:.2f}", cost=cost))
    short = res.short_lists
    if short is not None and short.under_k:
        print("  " + say(lang, "cli.warning", text=say(lang, "cli.short_lists", k=res.k, under=short.under_k, empty=short.empty)))
    if res.note:
        print("  " + say(lang, "cli.note", text=res.note))
    if res.answers:
        _print_answers(res.answers, lang)


def _llm_cost(res: EvalResult) -> str:
    """What the LLM work of the questions and of building the index cost, as recorded."""
    out = ""
    if res.llm:
        u = res.llm
        stage = res.stage_ms or {}
        out = f"  llm calls={u['calls']} cached={u['cache_hits']} tokens={u['prompt_tokens']}/{u['completion_tokens']} llm_ms/q={stage['llm']:.0f}"
        if u.get("cache_hits") and "ms_per_q_as_recorded" in u:  # what the cached answers cost when they were made
            untimed = f", {u['cached_untimed']} hits untimed" if u.get("cached_untimed") else ""
            out += f" (as recorded, cache included: {u['ms_per_q_as_recorded']:.0f}{untimed})"
    if res.index is not None and res.index.build.llm:
        u = res.index.build.llm
        when = " (recorded when the index was built)" if res.index.build.reused else ""
        recorded = f" ({(u.get('latency_ms', 0) + u['cached_ms']) / 1000:.0f}s as recorded, cache included)" if u.get("cached_ms") else ""
        out += f"  ingest({', '.join(res.index.ingest_steps)}) llm calls={u['calls']} cached={u.get('cache_hits', 0)} {u['seconds']:.0f}s{recorded}{when}"
    return out


def _print_answers(a: AnswersResult, lang: str = "en") -> None:
    shown = "  ".join(f"{k}={v:.4f}" for k, v in (a.metrics or {}).items() if v is not None)
    rules = f", rules {a.rules}" if a.rules is not None and a.rules != "all" else ""
    print(say(lang, "cli.answers", mode=a.mode, rules=rules, answerable=a.n_answerable, unanswerable=a.n_unanswerable, metrics=shown))
    judge = a.judge or {}
    for key, v in judge.get("scores", {}).items():
        print(say(lang, "cli.judge", metric=key, mean=f"{v['mean']:.2f}", spread=f"{v['spread']:.2f}", runs=v["runs"], model=judge["model"]))
    if a.note:
        print("  " + say(lang, "cli.note", text=a.note))
