"""``yakgwan appeal NOTICE --policy PATH_OR_INDEX [--filter KEY=VALUE …]``."""

from __future__ import annotations

import argparse

from yakgwan.cli.output import err, say
from yakgwan.core.errors import json_text
from yakgwan.config import Settings
from yakgwan.services.appeal import AppealOptions, appeal, check_letter_path, check_pack_path, write_evidence_pack, write_letter


def cmd_appeal(args: argparse.Namespace, settings: Settings) -> int:
    out = args.out
    if out is not None:
        check_pack_path(out)
    if args.letter is not None:
        check_letter_path(args.letter)
    opts = AppealOptions(mode=args.mode, analysis=args.analysis, llm_findings=args.llm_findings, search=args.search)
    result = appeal(args.notice, args.policy, settings, opts, filters=args.filters, reasons=args.reasons).to_json(settings.language)
    lang = settings.language
    if out is not None:
        missing = write_evidence_pack(result, out, lang=lang)
        if missing:
            err(say(lang, "cli.appeal_font", file=str(out), n=missing))
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json_text(result, indent=1), "utf-8")
    print_appeal(result, lang)
    if args.letter is not None:
        written, missing = write_letter(result, args.letter)
        print(say(lang, "cli.appeal_letter", file=str(written)))
        if missing:
            err(say(lang, "cli.appeal_font", file=str(written), n=missing))
    return 0


def print_appeal(result: dict, lang: str = "en") -> None:
    """The analysis in short: the case, each reason with what it cites and its issues, the band."""
    d, sp = result["denial"], result["success_probability"]
    print(say(lang, "cli.appeal_case", insurer=d["insurer"] or "?", product=d["product"] or "?", items=", ".join(d["claim_items"]) or "?"))
    if d.get("ocr"):
        o = d["ocr"]
        print(say(lang, "cli.appeal_ocr", engine=o["engine"], confidence=f"{o['confidence']:.0f}", pages=len(o["pages"])))
    for i, (issue, r) in enumerate(zip(result["issue_tree"], result["retrieval"]), 1):
        print(say(lang, "cli.appeal_reason", n=i, text=issue["reason"][:100]))
        for c in r["cited"]:
            state = say(lang, "cli.cited_found" if c["found"] else ("cli.cited_missing" if c["yakgwan"] else "cli.cited_unknown"))
            print(say(lang, "cli.appeal_cited", clause=f"{c['yakgwan'] or c['as_written']} {c['article']}", state=state))
        for sub in issue["sub_issues"]:
            print(say(lang, "cli.appeal_issue", kind=say(lang, f"issue.kind.{sub['kind']}"), question=sub["question"]))
    for c in result.get("checks") or []:
        if c["status"] != "not_applicable":
            print(say(lang, "cli.appeal_check", check=say(lang, f"check.{c['check']}"), status=say(lang, f"check.status.{c['status']}"), by=c["by"] or "-",
                      note=c["note"]))
    print(say(lang, "cli.appeal_band", band=sp["band"], rationale=sp["rationale"]))
    print(say(lang, "cli.appeal_counts", by=result["analysis_by"], evidence=len(result["evidence_pack"]), documents=len(result["documents_to_collect"])))
    for r in result["removed_evidence"]:
        err(say(lang, "cli.appeal_removed", text=r))
    for n in result["notes"]:
        err("  " + say(lang, "cli.note", text=n))
