"""``yakgwan appeal NOTICE --policy PATH_OR_INDEX [--filter KEY=VALUE …]``."""

from __future__ import annotations

import argparse
import json

from yakgwan.cli.output import err
from yakgwan.config import Settings
from yakgwan.services.appeal import AppealOptions, appeal, check_pack_path, write_evidence_pack


def cmd_appeal(args: argparse.Namespace, settings: Settings) -> int:
    out = args.out
    if out is not None:
        check_pack_path(out)
    opts = AppealOptions(mode=args.mode, analysis=args.analysis, llm_findings=args.llm_findings, search=args.search)
    result = appeal(args.notice, args.policy, settings, opts, filters=args.filters).to_json()
    if out is not None:
        missing = write_evidence_pack(result, out)
        if missing:
            err(f"  {out}: {missing} character(s) the font lacks are drawn as □")
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(result, ensure_ascii=False, indent=1), "utf-8")
    print_appeal(result)
    return 0


def print_appeal(result: dict) -> None:
    d, sp = result["denial"], result["success_probability"]
    print(f"{d['insurer'] or '?'} · {d['product'] or '?'} · 청구 담보: {', '.join(d['claim_items']) or '?'}")
    if d.get("ocr"):
        o = d["ocr"]
        print(f"OCR로 읽은 안내문: {o['engine']}, 평균 신뢰도 {o['confidence']:.0f}% ({len(o['pages'])}쪽; 읽은 글은 --json의 denial.ocr.text)")
    for i, (issue, r) in enumerate(zip(result["issue_tree"], result["retrieval"]), 1):
        print(f"사유 {i}: {issue['reason'][:100]}")
        for c in r["cited"]:
            state = "found" if c["found"] else ("not in that 약관" if c["yakgwan"] else "약관 not identified")
            print(f"  인용: {c['yakgwan'] or c['as_written']} {c['article']} ({state})")
        for sub in issue["sub_issues"]:
            print(f"  쟁점 [{sub['kind']}] {sub['question']}")
    for c in result.get("checks") or []:
        if c["status"] != "not_applicable":
            print(f"  읽기 검토 [{c['check']}] {c['status']} ({c['by'] or '-'}): {c['note']}")
    print(f"성공 가능성: {sp['band']} ({sp['probability']:.0%}) — {sp['rationale']}")
    print(f"분석 {result['analysis_by']} · 증거 {len(result['evidence_pack'])}건, 수집할 서류 {len(result['documents_to_collect'])}건; metrics "
          + " ".join(f"{k}={v:.2f}" for k, v in result["metrics"].items()))
    for r in result["removed_evidence"]:
        err(f"  removed from the evidence pack: {r}")
    for n in result["notes"]:
        err(f"  note: {n}")
