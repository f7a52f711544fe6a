"""``yakgwan demo``: ingest the real KB policy (or the bundled sample) and run example searches."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from yakgwan.cli.output import print_hits, print_ingest_report, say
from yakgwan.config import Settings, env
from yakgwan.services.context import open_context
from yakgwan.services.ingest import ingest
from yakgwan.services.search import search

SAMPLE = Path(__file__).resolve().parents[1] / "samples" / "sample_yakgwan.txt"
KB_POLICY = Path("data") / "policies" / "kb_smart_driver"

KB_QUERIES = (
    "교통사고로 벌금을 선고받으면 얼마까지 보상하나요?",
    "보험금을 지급하지 않는 사유 중 음주운전",
    "보험금 청구 시 필요한 서류",
)
SAMPLE_QUERIES = (
    "교통사고처리지원금은 언제 지급하나요?",
    "비급여 치료비도 보상되나요?",
    "보험금 청구에 필요한 서류",
)


def shared_folder() -> Path | None:
    """``../shared`` beside the repository (or $YAKGWAN_SHARED), if present."""
    given = env.runtime().shared_dir
    candidates = [given] if given is not None else []
    candidates += [Path.cwd().parent / "shared", Path(__file__).resolve().parents[4] / "shared"]
    return next((c for c in candidates if (c / KB_POLICY).is_dir()), None)


def cmd_demo(args: argparse.Namespace, settings: Settings) -> int:
    lang = settings.language
    if args.paths:
        paths, queries, what = list(args.paths), SAMPLE_QUERIES, "cli.demo_your_files"
    elif (shared := shared_folder()) is not None:
        paths, queries, what = [shared / KB_POLICY], KB_QUERIES, "cli.demo_kb"
    else:
        paths, queries, what = [SAMPLE], SAMPLE_QUERIES, "cli.demo_sample"
    print(say(lang, "cli.demo_ingesting", what=say(lang, what)))
    t0 = time.perf_counter()
    report = ingest(settings, paths)
    print_ingest_report(report, settings.index_dir, lang)
    print(say(lang, "cli.demo_searches", seconds=f"{time.perf_counter() - t0:.1f}"))
    ctx = open_context(settings)
    for q in queries:
        res = search(ctx, q, "default", 3)
        print("\n" + say(lang, "cli.demo_question", q=q, pipeline=res.pipeline, ms=f"{res.latency_ms:.0f}"))
        print_hits(res.hits, lang=lang)
    return 0
