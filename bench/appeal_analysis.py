"""The appeal analysis over every scenario notice (tests/data/appeal), each against the real
policy it was written for (the KB스마트운전자보험 policy, or the ``policy`` a scenario names under
``../shared/data/policies``): per notice the band against the scenario's expected band, the findings
that set it, the four metrics, items removed, what the LLM cost; then the band's agreement on each
policy (the rule fits nothing; which policies' notices the readers were fixed on is said in
docs/appeal.md), the confusion matrix, and each finding kind's firings on correct denials (kind ``correct-denial`` and the other
LOW kinds). Not a test.

    .venv/bin/python bench/appeal_analysis.py --analysis rules [--multi-index IDX]
    YAKGWAN_LLM=local .venv/bin/python bench/appeal_analysis.py --analysis llm [--only 08]

``--multi-index``: an index already holding the multi-insurer PDFs, read with ``doc=<file>``
(without it each PDF is indexed on first use, under the cache folder).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import time
from collections import Counter, defaultdict
from pathlib import Path

from yakgwan.config import Settings
from yakgwan.core.errors import InputError
from yakgwan.services.appeal import AppealOptions, appeal

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "appeal"
POLICIES = REPO.parent / "shared" / "data" / "policies"
DEFAULT_POLICY = "kb_smart_driver"
BANDS = ("LOW", "MEDIUM", "HIGH")


def governing_cited(sc: dict, res: dict) -> bool:
    """Whether the evidence pack points to one of the scenario's governing (약관, 제N조): a table
    (【…】) by its 약관 and title."""
    def key(yakgwan: str, article: str) -> tuple[str, str]:
        m = re.match(r"(제\d+조(?:의\d+)?|【[^】]+】)", article.strip())
        return yakgwan, m.group(1) if m else article.strip()
    want = {key(g["yakgwan"], g["article"]) for r in sc["reasons"] for g in r["governing"]}
    return any(key(i["provenance"]["yakgwan"], i["provenance"]["article"]) in want for i in res["evidence_pack"])


def where(sc: dict, multi_index: Path | None) -> tuple[Path, list[str]]:
    """The policy a scenario is read against, and the filters that keep it."""
    name = sc.get("policy") or DEFAULT_POLICY
    if multi_index is not None and name.startswith("multi/"):
        return multi_index, [f"doc={Path(name).name}"]
    return POLICIES / name, []


def table(rows: list[dict]) -> None:
    """Agreement per policy, the confusion matrix, and the findings on correct denials."""
    by_policy: dict[str, list[dict]] = defaultdict(list)
    for r in rows:
        by_policy[r["policy_name"]].append(r)
    print(f"\n{'policy':<44}{'notices':>8}{'correct denials':>16}{'agree':>8}")
    for name, rs in sorted(by_policy.items()):
        n_ok = sum(r["expected"] == r["band"] for r in rs)
        print(f"{name:<44}{len(rs):>8}{sum(r['expected'] == 'LOW' for r in rs):>16}{n_ok:>5}/{len(rs)}")
    print(f"{'all':<44}{len(rows):>8}{sum(r['expected'] == 'LOW' for r in rows):>16}{sum(r['expected'] == r['band'] for r in rows):>5}/{len(rows)}")
    print("\nconfusion (rows: expected, columns: the analysis's band)")
    print(f"{'':>8}" + "".join(f"{b:>8}" for b in BANDS))
    for e in BANDS:
        print(f"{e:>8}" + "".join(f"{sum(r['expected'] == e and r['band'] == b for r in rows):>8}" for b in BANDS))
    fired: dict[str, list[str]] = defaultdict(list)
    for r in rows:
        if r["expected"] == "LOW":
            for k in sorted({f["kind"] for f in r["findings"] if f["effect"] in ("decisive", "arguable")}):
                fired[k].append(r["id"][:2])
    print("\nfindings that raise the band, on notices whose expected band is LOW: " + ("; ".join(f"{k}: {', '.join(v)}" for k, v in sorted(fired.items())) or "none"))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--analysis", default="auto", choices=("auto", "rules", "llm"))
    ap.add_argument("--mode", default="plain")
    ap.add_argument("--only", help="scenario id prefix")
    ap.add_argument("--llm-findings", default="advise", choices=("advise", "apply"))
    ap.add_argument("--search", default="single", choices=("single", "fused"))
    ap.add_argument("--multi-index", type=Path, help="an index holding the multi-insurer PDFs (read with doc=<file>)")
    ap.add_argument("--json", type=Path, help="write every result")
    args = ap.parse_args()
    settings = Settings.from_env().with_(quiet=True)
    scenarios = [json.loads(line) for line in (DATA / "scenarios.jsonl").read_text("utf-8").splitlines() if line.strip()]
    scenarios = [s for s in scenarios if not args.only or s["id"].startswith(args.only)]
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; analysis={args.analysis} llm-findings={args.llm_findings} search={args.search} mode={args.mode} LLM={settings.llm.provider}:{settings.llm.model}")
    print(f"{'scenario':<44}{'expected':>9}{'band':>7}{'metrics':>9}{'removed':>8}{'by':>12}{'s':>6}  set by")
    results, worst, governed = [], {}, 0
    for sc in scenarios:
        t0 = time.perf_counter()
        opts = AppealOptions(mode=args.mode, analysis=args.analysis, llm_findings=args.llm_findings, search=args.search)
        policy, filters = where(sc, args.multi_index)
        try:
            res = appeal(DATA / sc["file"], policy, settings, opts, filters=filters).to_json()
        except InputError as e:  # counted as a miss, said why
            print(f"{sc['id'][:43]:<44}{sc['expected_band']:>9}{'ERROR':>7}  {e}")
            results.append({"id": sc["id"], "expected": sc["expected_band"], "kind": sc["kind"], "policy_name": sc.get("policy") or DEFAULT_POLICY,
                            "band": "ERROR", "findings": [], "error": str(e)})
            continue
        wall = time.perf_counter() - t0
        sp = res["success_probability"]
        governed += governing_cited(sc, res)
        for k, v in res["metrics"].items():
            worst[k] = min(worst.get(k, 1.0), v)
        ok = "1.0" if all(v == 1.0 for v in res["metrics"].values()) else "<1"
        print(f"{sc['id'][:43]:<44}{sc['expected_band']:>9}{sp['band']:>7}{ok:>9}{len(res['removed_evidence']):>8}{res['analysis_by'][:11]:>12}{wall:>6.1f}  {', '.join(sp['decided_by']) or '-'}")
        for n in res["notes"]:
            print(f"    note: {n}")
        results.append({"id": sc["id"], "expected": sc["expected_band"], "kind": sc["kind"], "policy_name": sc.get("policy") or DEFAULT_POLICY,
                        "band": sp["band"], **res})
    print(f"\nband agreement {sum(r['expected'] == r['band'] for r in results)}/{len(results)}; a governing (약관, 조) in the evidence pack: "
          f"{governed}/{len(results)}; lowest metric over the notices: " + " ".join(f"{k}={v:.2f}" for k, v in worst.items()))
    table(results)
    if args.json:
        args.json.write_text(json.dumps(results, ensure_ascii=False, indent=1), "utf-8")


if __name__ == "__main__":
    main()
