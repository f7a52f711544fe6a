"""The reading checks (7)-(9) of the appeal analysis over the scenario notices (tests/data/appeal),
with the configured model: per notice and check, what it looked at, the model's verdict and the
time it took; with ``--json``, each notice's rule findings and the checks' findings, for
``bench/appeal_fit.py --findings``. Not a test.

    YAKGWAN_LLM=local .venv/bin/python bench/appeal_checks.py --json /tmp/checks.json [--only 30]

The model's answers are cached (``YAKGWAN_CACHE_DIR``), so a second run costs seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from collections import Counter
from pathlib import Path

from yakgwan.appeal.analysis import finding_items, findings_for
from yakgwan.appeal.model_checks import run_checks
from yakgwan.appeal.retrieve import evidence_for
from yakgwan.appeal.run import read_notice
from yakgwan.config import Settings
from yakgwan.services.appeal import open_policy

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "appeal"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--policy", type=Path, default=REPO.parent / "shared" / "data" / "policies" / "kb_smart_driver")
    ap.add_argument("--only", help="scenario id prefix")
    ap.add_argument("--json", type=Path, help="write each notice's findings (rules and checks)")
    args = ap.parse_args()
    settings = Settings.from_env().with_(quiet=True)
    policy = open_policy(args.policy, settings)
    llm = policy.ctx.llm
    scenarios = [json.loads(line) for line in (DATA / "scenarios.jsonl").read_text("utf-8").splitlines() if line.strip()]
    scenarios = [s for s in scenarios if not args.only or s["id"].startswith(args.only)]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; LLM={llm.name if llm else 'none'}; {len(scenarios)} notices")
    out, tally, spent = [], Counter(), 0.0
    for sc in scenarios:
        notice = read_notice(DATA / sc["file"])
        evidence = evidence_for(notice, policy, "plain")
        t0 = time.perf_counter()
        checks = run_checks(notice, evidence, policy, llm)
        wall = time.perf_counter() - t0
        spent += wall
        for st in checks.statuses:
            tally[st.check, st.status] += 1
        line = " ".join(f"{st.check}={st.status}" for st in checks.statuses)
        print(f"{sc['id']:<44}{sc.get('kind', ''):<22}{sc['expected_band']:<8}{line}  {wall:.0f}s", flush=True)
        rules = [f.model_dump() for f in finding_items(findings_for(notice, evidence, policy))]
        read = [f.model_dump() for f in finding_items(list(checks.findings))]
        out.append({"id": sc["id"], "findings": rules + read, "checks": [st.model_dump() for st in checks.statuses]})
    print(f"\nmodel time {spent:.0f}s over {len(scenarios)} notices; statuses:")
    for (check, status), n in sorted(tally.items()):
        print(f"  {check:<14}{status:<16}{n}")
    if args.json:
        args.json.write_text(json.dumps(out, ensure_ascii=False, indent=1), "utf-8")
        print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
