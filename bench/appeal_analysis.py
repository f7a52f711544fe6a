"""The appeal analysis over every scenario notice (tests/data/appeal) against the real KB policy:
per notice the band (vs the scenario's expected band), the four metrics, items removed, and
what the LLM cost. Not a test.

    .venv/bin/python bench/appeal_analysis.py --analysis rules
    YAKGWAN_LLM=local .venv/bin/python bench/appeal_analysis.py --analysis llm [--only 08]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import time
from pathlib import Path

from yakgwan.services.appeal import AppealOptions, appeal
from yakgwan.config import Settings

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "appeal"


def governing_cited(sc: dict, res: dict) -> bool:
    """Whether the evidence pack points to one of the scenario's governing (약관, 제N조): a table
    (【…】) by its 약관 and title."""
    def key(yakgwan: str, article: str) -> tuple[str, str]:
        m = re.match(r"(제\d+조(?:의\d+)?|【[^】]+】)", article.strip())
        return yakgwan, m.group(1) if m else article.strip()
    want = {key(g["yakgwan"], g["article"]) for r in sc["reasons"] for g in r["governing"]}
    return any(key(i["provenance"]["yakgwan"], i["provenance"]["article"]) in want for i in res["evidence_pack"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--policy", type=Path, default=REPO.parent / "shared" / "data" / "policies" / "kb_smart_driver")
    ap.add_argument("--analysis", default="auto", choices=("auto", "rules", "llm"))
    ap.add_argument("--mode", default="plain")
    ap.add_argument("--only", help="scenario id prefix")
    ap.add_argument("--llm-findings", default="advise", choices=("advise", "apply"))
    ap.add_argument("--search", default="single", choices=("single", "fused"))
    ap.add_argument("--json", type=Path, help="write every result")
    args = ap.parse_args()
    settings = Settings.from_env().with_(quiet=True)
    scenarios = [json.loads(line) for line in (DATA / "scenarios.jsonl").read_text("utf-8").splitlines() if line.strip()]
    scenarios = [s for s in scenarios if not args.only or s["id"].startswith(args.only)]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; analysis={args.analysis} llm-findings={args.llm_findings} search={args.search} mode={args.mode} LLM={settings.llm.provider}:{settings.llm.model}")
    print(f"{'scenario':<38}{'expected':>9}{'band':>7}{'p':>6}{'metrics':>9}{'removed':>8}{'by':>26}{'s':>7}")
    agree, results, worst, governed = 0, [], {}, 0
    for sc in scenarios:
        t0 = time.perf_counter()
        opts = AppealOptions(mode=args.mode, analysis=args.analysis, llm_findings=args.llm_findings, search=args.search)
        res = appeal(DATA / sc["file"], args.policy, settings, opts).to_json()
        wall = time.perf_counter() - t0
        sp = res["success_probability"]
        agree += sp["band"] == sc["expected_band"]
        governed += governing_cited(sc, res)
        for k, v in res["metrics"].items():
            worst[k] = min(worst.get(k, 1.0), v)
        ok = "1.0" if all(v == 1.0 for v in res["metrics"].values()) else "<1"
        print(f"{sc['id']:<38}{sc['expected_band']:>9}{sp['band']:>7}{sp['probability']:>6.2f}{ok:>9}{len(res['removed_evidence']):>8}{res['analysis_by']:>26}{wall:>7.1f}")
        for n in res["notes"]:
            print(f"    note: {n}")
        results.append({"id": sc["id"], "expected": sc["expected_band"], **res})
    print(f"band agreement {agree}/{len(scenarios)}; a governing (약관, 조) in the evidence pack: {governed}/{len(scenarios)}; "
          "lowest metric over the notices: " + " ".join(f"{k}={v:.2f}" for k, v in worst.items()))
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1), "utf-8")


if __name__ == "__main__":
    main()
