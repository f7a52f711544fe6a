"""The band's per-finding weights, fitted on the scenario notices (tests/data/appeal), with
leave-one-out accuracy. Not a test.

Each scenario gives the rule findings the analysis states (their kinds, counted) and the expected
band. The model is the band's own: z = logit(금감원 base rate) + Σ w_kind · count_kind, read off
at the band's fixed thresholds (LOW < 0.25 <= MEDIUM < 0.6 <= HIGH). Weights are fitted as an
ordinal logistic model with those fixed cut points (no intercept: the base rate stays the
금감원's). A kind's weight is its family's (band.FAMILIES) plus its own share, each with an L2
penalty (fixed beforehand, not tuned): a kind seen on one notice, left out, still has its
family's weight. Reported:

- leave-one-out band accuracy over all scenarios (fit on the others, predict the one left out),
  overall, by scenario kind and by finding kind;
- the two halves by a fixed rule (tuning half: even rows of scenarios.jsonl; checking half: odd
  rows): fitted on one, accuracy on the other;
- the weights fitted on all scenarios, which ``--write`` stores in
  src/yakgwan/appeal/data/band_weights.json with this provenance.

With findings of a run with a model (``bench/appeal_checks.py --json``), the reading checks' kinds
(band.READ_WEIGHTS) are fitted in a second stage on top of the rule weights, and the same figures
are reported for the band with them ("with the model's checks"); without them, ``--write`` keeps
the reading checks' weights already stored.

    .venv/bin/python bench/appeal_fit.py [--findings results.json] [--write]
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

import numpy as np

from yakgwan.appeal import band as B
from yakgwan.appeal.band_fit import BANDS, fit, leave_one_out, membership, predict, staged_fit, staged_leave_one_out
from yakgwan.config import Settings
from yakgwan.services.appeal import AppealOptions, appeal

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "data" / "appeal"
ORDER = {b: i for i, b in enumerate(BANDS)}


def findings_of(scenarios: list[dict], saved: Path | None) -> dict[str, list[dict]]:
    if saved:
        return {r["id"]: r["findings"] for r in json.loads(saved.read_text("utf-8"))}
    settings = Settings.from_env().with_(quiet=True)
    policy = REPO.parent / "shared" / "data" / "policies" / "kb_smart_driver"
    out = {}
    for sc in scenarios:
        res = appeal(DATA / sc["file"], policy, settings, AppealOptions(analysis="rules")).to_json()
        out[sc["id"]] = res["findings"]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--findings", type=Path, help="results of bench/appeal_analysis.py --analysis rules --json (else computed)")
    ap.add_argument("--l2-family", type=float, default=0.1, help="penalty on a family's weight (fixed, not tuned)")
    ap.add_argument("--l2-kind", type=float, default=2.0, help="penalty on a kind's own share beside its family's (fixed, not tuned)")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    scenarios = [json.loads(line) for line in (DATA / "scenarios.jsonl").read_text("utf-8").splitlines() if line.strip()]
    found = findings_of(scenarios, args.findings)
    kinds = sorted({f["kind"] for fs in found.values() for f in fs if f["by"] == "rules"} | set(B.RULE_WEIGHTS))
    M = membership(kinds, {f: ks for f, ks in B.FAMILIES.items() if f != "misreads_policy"})
    l2 = (args.l2_family, args.l2_kind)
    X = np.array([[sum(f["kind"] == k and f["by"] == "rules" for f in found[sc["id"]]) for k in kinds] for sc in scenarios], dtype=float)
    y = np.array([ORDER[sc["expected_band"]] for sc in scenarios])
    n = len(scenarios)
    print(f"{n} scenarios ({Counter(sc['expected_band'] for sc in scenarios)}); finding kinds: {', '.join(kinds)}; l2 family/kind={l2}")

    hand = np.array([B.RULE_WEIGHTS.get(k, 0.0) for k in kinds])
    hand_pred = predict(X, hand)
    loo = leave_one_out(X, y, M, l2)
    low_only = sum(y == 0)
    print(f"band accuracy: always LOW {low_only}/{n} = {low_only / n:.3f}; hand weights {sum(int(p == t) for p, t in zip(hand_pred, y))}/{n}; "
          f"leave-one-out {sum(int(p == t) for p, t in zip(loo, y))}/{n} = {np.mean(np.array(loo) == y):.3f}")
    tune, check = np.arange(n) % 2 == 0, np.arange(n) % 2 == 1
    for name, a, b in (("tuning half -> checking half", tune, check), ("checking half -> tuning half", check, tune)):
        pred = np.array(predict(X[b], fit(X[a], y[a], M, l2)))
        print(f"fit on the {name}: {int((pred == y[b]).sum())}/{int(b.sum())} = {np.mean(pred == y[b]):.3f}")

    by_kind: dict[str, list[bool]] = defaultdict(list)
    for sc, p, t in zip(scenarios, loo, y):
        by_kind[sc.get("kind", "?")].append(p == t)
    print("\nleave-one-out by scenario kind:")
    for k, oks in sorted(by_kind.items()):
        print(f"  {k:<22}{sum(oks)}/{len(oks)}")
    w_all = fit(X, y, M, l2)
    print("\nby finding kind (weights fitted on all scenarios; the scenarios it fires on, by expected band; LOO accuracy on them):")
    print(f"  {'finding kind':<32}{'hand':>6}{'fitted':>8}  fires on (LOW/MEDIUM/HIGH)  LOO")
    for j, k in enumerate(kinds):
        on = np.where(X[:, j] > 0)[0]
        bands = Counter(int(y[i]) for i in on)
        acc = sum(int(loo[i] == y[i]) for i in on)
        print(f"  {k:<32}{hand[j]:>+6.2f}{w_all[j]:>+8.2f}  {bands.get(0, 0)}/{bands.get(1, 0)}/{bands.get(2, 0)}{'':>20}{acc}/{len(on)}")
    print("\nleave-one-out misses:")
    names = {v: k for k, v in ORDER.items()}
    for sc, p, t in zip(scenarios, loo, y):
        if p != t:
            fired = [k for j, k in enumerate(kinds) if X[scenarios.index(sc), j] > 0]
            print(f"  {sc['id']:<42} expected {names[int(t)]:<7} got {names[p]:<7} findings: {', '.join(fired) or '-'}")
    read_kinds = list(B.READ_WEIGHTS)
    Xm = np.array([[sum(f["kind"] == k for f in found[sc["id"]]) for k in read_kinds] for sc in scenarios], dtype=float)
    read_w: dict[str, float] = {}
    staged_acc = None
    if Xm.any():
        Mm = membership(read_kinds, {"misreads_policy": B.FAMILIES["misreads_policy"]})
        sloo = staged_leave_one_out(X, Xm, y, M, Mm, l2)
        staged_acc = float(np.mean(np.array(sloo) == y))
        print(f"\nwith the model's checks (7)-(9): leave-one-out {sum(int(p == t) for p, t in zip(sloo, y))}/{n} = {staged_acc:.3f} (rules alone {np.mean(np.array(loo) == y):.3f})")
        for name, a, b in (("tuning half -> checking half", tune, check), ("checking half -> tuning half", check, tune)):
            wr, wm = staged_fit(X[a], Xm[a], y[a], M, Mm, l2)
            pred = np.array(predict(Xm[b], wm, offset=X[b] @ wr))
            print(f"  fit on the {name}: {int((pred == y[b]).sum())}/{int(b.sum())} = {np.mean(pred == y[b]):.3f}")
        _, wm_all = staged_fit(X, Xm, y, M, Mm, l2)
        read_w = {k: round(float(w), 3) for k, w in zip(read_kinds, wm_all)}
        print(f"  {'reading check finding':<38}{'hand':>6}{'fitted':>8}  fires on (LOW/MEDIUM/HIGH)  LOO with / without")
        for j, k in enumerate(read_kinds):
            on = np.where(Xm[:, j] > 0)[0]
            bands = Counter(int(y[i]) for i in on)
            print(f"  {k:<38}{B.READ_WEIGHTS[k]:>+6.2f}{wm_all[j]:>+8.2f}  {bands.get(0, 0)}/{bands.get(1, 0)}/{bands.get(2, 0)}{'':>20}"
                  f"{sum(int(sloo[i] == y[i]) for i in on)}/{len(on)} / {sum(int(loo[i] == y[i]) for i in on)}/{len(on)}")
        by_kind_s: dict[str, list[tuple[bool, bool]]] = defaultdict(list)
        for sc, p, q, t in zip(scenarios, sloo, loo, y):
            by_kind_s[sc.get("kind", "?")].append((p == t, q == t))
        print("  leave-one-out by scenario kind, with / without the model's checks:")
        for k, oks in sorted(by_kind_s.items()):
            print(f"    {k:<22}{sum(a for a, _ in oks)}/{len(oks)} / {sum(b for _, b in oks)}/{len(oks)}")
    if args.write:
        out = REPO / "src" / "yakgwan" / "appeal" / "data" / "band_weights.json"
        out.parent.mkdir(exist_ok=True)
        acc = float(np.mean(np.array(loo) == y))
        kept = {k: v for k, v in B.fitted_weights().weights.items() if k in B.READ_WEIGHTS} if not read_w else read_w
        with_model = f"; the reading checks' weights fitted on top with a model's checks (leave-one-out {staged_acc:.3f})" if staged_acc is not None else ""
        out.write_text(json.dumps({
            "weights": {**{k: round(float(w), 3) for k, w in zip(kinds, w_all)}, **kept},
            "source": f"fitted {date.today().isoformat()} by bench/appeal_fit.py on the {n} scenario notices of tests/data/appeal "
                      f"(ordinal logistic with fixed band thresholds and the base rate {B.base_rate():.3f}; weights pooled by family, l2 family/kind {l2[0]}/{l2[1]}); leave-one-out band accuracy {acc:.3f}{with_model}",
            "label": f"가상 부지급 안내문 {n}건으로 맞춘 값 (한 건씩 빼고 맞춘 뒤 그 건으로 확인한 밴드 정확도 {acc:.0%})",
        }, ensure_ascii=False, indent=1) + "\n", "utf-8")
        print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
