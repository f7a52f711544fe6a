"""The body of each CLI command; ``cli.py`` parses arguments and turns errors into one line."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from yakgwan import app
from yakgwan.config import Settings
from yakgwan.core.errors import InputError
from yakgwan.ingest.run import IngestReport
from yakgwan.pipelines import DEFAULT_PIPELINE, PIPELINES, PipelineContext, build_pipeline, resolve_pipeline
from yakgwan.core.records import Hit
from yakgwan.store import IndexData
from yakgwan.techniques.step_fallbacks import fallback_lines


def _err(msg: str) -> None:
    print(msg, file=sys.stderr)


def index_summary(data: IndexData) -> dict[str, int]:
    articles = {(c.doc_id, c.yakgwan, c.article) for c in data.chunks if c.article}
    yakgwans = {(c.doc_id, c.yakgwan) for c in data.chunks if c.yakgwan}
    return {
        "documents": len(data.docs),
        "pages": sum(d.n_pages for d in data.docs.values()),
        "yakgwan": len(yakgwans),
        "articles": len(articles),
        "chunks": len(data.chunks),
        "dense_embedded": int(data.dense_mask.sum()),
    }


def print_ingest_report(r: IngestReport, index_dir: Path) -> None:
    s = index_summary(r.index) if r.index is not None else {}
    print(f"index {index_dir}")
    print(
        f"  documents {s.get('documents', 0)} (added {len(r.added)}, replaced {len(r.replaced)}, unchanged {len(r.unchanged)})"
        f" · pages {s.get('pages', 0)} · 약관 {s.get('yakgwan', 0)} · articles {s.get('articles', 0)} · chunks {s.get('chunks', 0)}"
    )
    if r.added or r.replaced:
        rate = f" ({r.new_pages / r.seconds_load:.0f} pages/s)" if r.seconds_load and r.new_pages else ""
        print(f"  loaded in {r.seconds_load:.1f} s{rate} · BM25 searchable after {r.seconds_lexical:.1f} s · {r.new_chunks} new chunks")
    if r.embedded or r.from_cache:
        speed = f", {r.embedded / r.seconds_dense:.1f} chunks/s" if r.embedded and r.seconds_dense else ""
        print(f"  dense: {r.embedded} embedded in {r.seconds_dense:.1f} s{speed}, {r.from_cache} from cache")
    if r.removed:
        print(f"  removed {len(r.removed)} document(s) no longer in the corpus")
    if r.reindexed:
        print("  analyzer or embedder changed since the last ingest: every document was re-indexed")
    state = "ready" if r.dense_ready else f"NOT ready ({r.dense_error or 'incomplete'}; run ingest again to finish)"
    print(f"  hybrid {state} after {r.seconds_total:.1f} s total")
    if r.failed:
        _err(f"failed ({len(r.failed)}):")
        for e in r.failed:
            _err(f"  {e}")


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    def lexical_ready(r: IngestReport) -> None:
        if not settings.quiet:
            _err(f"BM25 ready after {r.seconds_lexical:.1f} s; embedding …")

    report = app.ingest(settings, list(args.paths), strict=args.strict, on_lexical_ready=lexical_ready, steps=getattr(args, "steps", []))
    print_ingest_report(report, settings.index_dir)
    for line in fallback_lines(report.step_fallbacks, report.step_reasons, shown=5):
        _err(f"  {line}")
    return 3 if report.failed else 0


def hit_json(h: Hit) -> dict:
    c = h.chunk
    return {
        "rank": h.rank,
        "score": h.score,
        "produced_by": h.produced_by,
        "components": h.components,
        "chunk_id": c.chunk_id,
        "doc": c.doc_id,
        "source": c.source,
        "title": c.title,
        "pages": list(c.pages),
        "yakgwan": c.yakgwan,
        "part": c.part,
        "article": c.article,
        "article_title": c.article_title,
        "paragraph": c.paragraph,
        "section": c.section,
        "span": [c.start, c.end],
        "text": c.text,
    }


def search(settings: Settings, query: str, pipeline: str, k: int, ctx: PipelineContext | None = None) -> tuple[list[Hit], dict]:
    """Run one search; pass ``ctx`` to reuse loaded models across searches."""
    if k <= 0:
        raise InputError(None, f"--k must be > 0, got {k}")
    if not query.strip():
        raise InputError(None, "empty query")
    ctx = ctx or app.pipeline_context(settings)
    retriever, note = build_pipeline(pipeline, ctx)
    t0 = time.perf_counter()
    hits = retriever.retrieve(query, k)
    ms = (time.perf_counter() - t0) * 1000
    n = len(ctx.view.chunks)
    dense = ctx.view.dense_embedded
    status = {
        "pipeline": resolve_pipeline(pipeline).name,
        "lists": {"bm25": "ready", "dense": "ready" if ctx.view.dense_ready else f"pending ({dense}/{n} chunks embedded)"},
        "note": note,
        "latency_ms": ms,
    }
    return hits, status


def cmd_search(args: argparse.Namespace, settings: Settings) -> int:
    hits, status = search(settings, args.query, args.pipeline, args.k)
    if args.json:
        print(json.dumps({**status, "query": args.query, "hits": [hit_json(h) for h in hits]}, ensure_ascii=False, indent=2))
        return 0
    print(f"[{status['pipeline']}] bm25 {status['lists']['bm25']} · dense {status['lists']['dense']} · {status['latency_ms']:.0f} ms")
    if status["note"]:
        print(f"note: {status['note']}")
    print_hits(hits)
    return 0


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from yakgwan.answer.ask import Asker

    asker = Asker(app.pipeline_context(settings), pipeline=args.pipeline, mode=args.mode, k=args.k)
    res = asker.ask(args.question)
    if args.json:
        print(json.dumps(res.to_json(), ensure_ascii=False, indent=2))
        return 0
    label = {"answered": "답변", "partial": "부분 답변", "refused": "답변 불가"}[res.outcome]
    print(f"[{label}] {res.answer}")
    for c in res.citations:
        where = " · ".join(str(x) for x in (c.doc, f"p.{c.page}" if c.page else None, c.heading) if x)
        print(f"  [{c.n}] {where}: “{' '.join(c.quote.split())}”")
    print(f"  ({res.pipeline}, {res.mode} by {res.by}, {res.latency_ms:.0f} ms, LLM calls {res.llm_calls})")
    for n in res.notes:
        _err(f"  note: {n}")
    return 0


def print_hits(hits: list[Hit], width: int = 160) -> None:
    if not hits:
        print("  (no matching chunks)")
    for h in hits:
        snippet = " ".join(h.chunk.text.split())
        print(f"{h.rank:>3}. {h.score:.4f}  {h.chunk.citation()}")
        print(f"      {snippet[:width]}{'…' if len(snippet) > width else ''}")


def cmd_pipelines(args: argparse.Namespace, settings: Settings) -> int:
    width = max(len(n) for n in PIPELINES)
    for name, spec in PIPELINES.items():
        mark = " (default)" if name == DEFAULT_PIPELINE else ""
        print(f"{name:<{width}}  {spec.description}{mark}")
    return 0


def cmd_eval(args: argparse.Namespace, settings: Settings) -> int:
    from yakgwan.eval.runner import run_eval_command

    return run_eval_command(args, settings)


def cmd_report(args: argparse.Namespace, settings: Settings) -> int:
    from yakgwan.eval import combine

    loaded = combine.load_results(args.results)
    for warning in combine.check_same_set(loaded):
        _err(f"warning: {warning}")
    results = [item.result for item in loaded]
    parts = (combine.markdown_table(results), combine.markdown_floor(results), combine.markdown_deltas(results, "recall"), combine.markdown_deltas(results, "mrr"), combine.markdown_answers(results))
    table = "\n".join(t for t in parts if t)
    if args.markdown:
        args.markdown.parent.mkdir(parents=True, exist_ok=True)
        args.markdown.write_text(table, "utf-8")
    if args.summary:
        combine.write_summary(results, args.summary)
    if args.out:
        from yakgwan.eval.report import render_report

        args.out.parent.mkdir(parents=True, exist_ok=True)
        render_report(results, args.out, title=args.title or f"yakgwan eval — {results[0].get('dataset', '?')}")
    if not settings.quiet:
        print(table, end="")
    return 0


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    from yakgwan.demo import run_demo

    return run_demo(args, settings)


def cmd_appeal(args: argparse.Namespace, settings: Settings) -> int:
    from yakgwan.appeal.run import run_appeal

    out = getattr(args, "out", None)
    if out is not None and out.suffix.lower() not in (".md", ".html", ".htm", ".pdf"):
        raise InputError(str(out), "the evidence pack is written as .md, .html or .pdf")
    result = run_appeal(args.notice, args.policy, settings, args.mode, args.analysis, args.llm_findings, args.search)
    if out is not None:
        from yakgwan.appeal.render import to_html, to_markdown, to_pdf

        out.parent.mkdir(parents=True, exist_ok=True)
        if out.suffix.lower() == ".pdf":
            missing = to_pdf(result, out)
            if missing:
                _err(f"  {out}: {missing} character(s) the font lacks are drawn as □")
        else:
            out.write_text(to_markdown(result) if out.suffix.lower() == ".md" else to_html(result), "utf-8")
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(result, ensure_ascii=False, indent=1), "utf-8")
    d, sp = result["denial"], result["success_probability"]
    print(f"{d['insurer'] or '?'} · {d['product'] or '?'} · 청구 담보: {', '.join(d['claim_items']) or '?'}")
    for i, (issue, r) in enumerate(zip(result["issue_tree"], result["retrieval"]), 1):
        print(f"사유 {i}: {issue['reason'][:100]}")
        for c in r["cited"]:
            state = "found" if c["found"] else ("not in that 약관" if c["yakgwan"] else "약관 not identified")
            print(f"  인용: {c['yakgwan'] or c['as_written']} {c['article']} ({state})")
        for sub in issue["sub_issues"]:
            print(f"  쟁점 [{sub['kind']}] {sub['question']}")
    print(f"성공 가능성: {sp['band']} ({sp['probability']:.0%}) — {sp['rationale']}")
    print(f"분석 {result['analysis_by']} · 증거 {len(result['evidence_pack'])}건, 수집할 서류 {len(result['documents_to_collect'])}건; metrics " + " ".join(f"{k}={v:.2f}" for k, v in result["metrics"].items()))
    for r in result["removed_evidence"]:
        _err(f"  removed from the evidence pack: {r}")
    for n in result["notes"]:
        _err(f"  note: {n}")
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    from yakgwan.server.run import serve

    return serve(settings, args.host, args.port, args.data)
