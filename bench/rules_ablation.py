"""Ablation of the answer rules (``answer/ko_rules``): every rule off alone, on both halves.

Not a test. Runs ``yakgwan eval --answers`` (the configured LLM; none: the offline answer) on
skytravel dev with the written unanswerable skytravel set, and on policy_qa dev with the written
unanswerable policy set, once with every rule on (``all``), once with none, and once per rule
with that rule off (``all,-NAME``). Halves by a fixed rule: even positions of each file tune, odd
positions check. Per half it counts

- **good**: answerable questions answered with the row's keywords quoted (skytravel: ≥ 80% of
  them; policy_qa: every one);
- **wrong**: answerable questions answered without them, and unanswerable ones answered;
- **refused**: unanswerable questions refused;

and the answer texts that differ from ``all``'s. A rule earns its place when turning it off
lowers good or refused, or raises wrong, on the checking half, or changes answer texts there
for the worse (read them: ``--show NAME``).

    .venv/bin/python bench/rules_ablation.py [--sets skytravel policy_qa] [--show NAME]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from yakgwan.answer.ko_rules.ruleset import RULES

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
ANSWERS = REPO / "tests" / "data" / "answers"
SETS = {  # name: (eval arguments, keyword share an answer must quote)
    "skytravel": (["--corpus", str(SHARED / "skytravel" / "knowledge_base"), "--tests", str(SHARED / "skytravel" / "tests_dev.jsonl"),
                   "--unanswerable", str(ANSWERS / "unanswerable_skytravel.jsonl")], 0.8),
    "policy_qa": (["--corpus", str(SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"),
                   "--tests", str(SHARED / "policy_qa" / "questions_dev.jsonl"), "--unanswerable", str(ANSWERS / "unanswerable_policy.jsonl")], 1.0),
}


def answers(args: list[str], rules: str, out: Path) -> list[dict]:
    exe = Path(sys.executable).with_name("yakgwan")
    done = subprocess.run([str(exe), "eval", *args, "--answers", "--rules", rules, "--json", str(out), "--quiet"], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"yakgwan eval --rules {rules} failed: {done.stderr[-2000:]}")
    return json.loads(out.read_text("utf-8"))[0]["answers"]["per_question"]


def counts(rows: list[dict], share: float, half: int) -> tuple[int, int, int]:
    """(good, wrong, refused) on the rows at even (``half`` 0) or odd (1) positions of each file."""
    answerable = [q for q in rows if q["set"] == "answerable"][half::2]
    unanswerable = [q for q in rows if q["set"] == "unanswerable"][half::2]
    good = sum(q["outcome"] == "answered" and q.get("keyword_recall", 0.0) >= share - 1e-9 for q in answerable)
    wrong = sum(q["outcome"] == "answered" and q.get("keyword_recall", 0.0) < share - 1e-9 for q in answerable)
    wrong += sum(q["outcome"] == "answered" for q in unanswerable)
    return good, wrong, sum(q["outcome"] == "refused" for q in unanswerable)


def differing(base: list[dict], rows: list[dict], half: int) -> list[tuple[dict, dict]]:
    pairs = [(a, b) for a, b in zip(base, rows) if a["answer"] != b["answer"]]
    by_set = {s: [q["qid"] for q in base if q["set"] == s][half::2] for s in ("answerable", "unanswerable")}
    return [(a, b) for a, b in pairs if a["qid"] in by_set[a["set"]]]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--sets", nargs="+", choices=sorted(SETS), default=list(SETS))
    ap.add_argument("--show", help="print the checking-half answers that change when this rule is off")
    args = ap.parse_args()
    configs = ["all", "none", *(f"all,-{name}" for name in RULES.names())]
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.sets:
            eval_args, share = SETS[name]
            runs = {c: answers(eval_args, c, Path(tmp) / f"{name}-{i}.json") for i, c in enumerate(configs)}
            print(f"\n{name} (keywords quoted: {'all' if share == 1.0 else f'{share:.0%}'})")
            print("| rules | tuning good / wrong / refused | checking good / wrong / refused | answers changed (tuning, checking) |")
            print("|---|---|---|---|")
            for c, rows in runs.items():
                t, k = counts(rows, share, 0), counts(rows, share, 1)
                changed = (len(differing(runs["all"], rows, 0)), len(differing(runs["all"], rows, 1)))
                print(f"| `{c}` | {' / '.join(map(str, t))} | {' / '.join(map(str, k))} | {changed[0]}, {changed[1]} |")
            if args.show:
                for a, b in differing(runs["all"], runs[f"all,-{args.show}"], 1):
                    print(f"- {a['question']}\n  all: {a['answer'][:160]}\n  off: {b['answer'][:160]}")


if __name__ == "__main__":
    main()
