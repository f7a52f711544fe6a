"""The which-특약 list answer (``answer/riders.py``) on the KB policy: precision, recall and exact
lists per half of ``tests/data/answers/which_rider_policy.jsonl``, against the answer ``ask``
gives without the list (the cited 약관 of the unit answer).

Not a test. Indexes the 168-page policy into a temporary folder (or uses ``--index``). With
``--grid`` it prints every (ranks, margin) pair of the choice made on the tuning half (even rows),
with the checking half (odd rows) beside it.

    .venv/bin/python bench/which_rider.py [--index DIR] [--grid]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
from pathlib import Path

from yakgwan.answer.ask import Asker, evidence_hits
from yakgwan.answer.riders import LIST_MARGIN, LIST_RANKS, rider_list
from yakgwan.config import Settings
from yakgwan.pipelines import build_pipeline
from yakgwan.services.context import open_context
from yakgwan.services.ingest import ingest

REPO = Path(__file__).resolve().parents[1]
PDF = REPO.parent / "shared" / "data" / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"
QUESTIONS = REPO / "tests" / "data" / "answers" / "which_rider_policy.jsonl"


@dataclasses.dataclass
class Tally:
    precision: float = 0.0
    recall: float = 0.0
    exact: int = 0
    n: int = 0

    def add(self, got: set[str], want: set[str]) -> None:
        """One question; an empty ``want`` is a question no 특약 answers: an empty list (a
        refusal) scores precision and recall 1, any other list 0."""
        hit = len(got & want)
        self.precision += hit / len(got) if got else float(not want)
        self.recall += hit / len(want) if want else float(not got)
        self.exact += got == want
        self.n += 1

    def line(self) -> str:
        p, r = self.precision / self.n, self.recall / self.n
        f1 = 2 * p * r / (p + r) if p + r else 0.0
        return f"P {p:.3f}  R {r:.3f}  F1 {f1:.3f}  exact {self.exact}/{self.n}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", type=Path)
    ap.add_argument("--grid", action="store_true")
    args = ap.parse_args()
    if not PDF.exists():
        raise SystemExit(f"needs {PDF} (the ../shared folder beside the repository)")
    index = args.index or Path(tempfile.mkdtemp()) / "index"
    s = Settings.from_env().with_(index_dir=index, quiet=True)
    if args.index is None:
        ingest(s, [PDF])
    ctx = open_context(s)
    ctx.make_llm = lambda: None
    asker = Asker(ctx, mode="extract")
    units = asker._unit_answerer()
    if units is None:
        raise SystemExit(f"the bundled answerability model does not fit the index's embedder ({ctx.view.embedder})")
    retriever, _ = build_pipeline("default", ctx)
    rows = [json.loads(line) for line in QUESTIONS.read_text("utf-8").splitlines() if line.strip()]
    hits = [evidence_hits(retriever.retrieve(r["question"], 5)) for r in rows]

    def tally(ranks: int, margin: float) -> dict[str, Tally]:
        out = {"tune": Tally(), "check": Tally()}
        for i, (r, h) in enumerate(zip(rows, hits)):
            done = rider_list(r["question"], h, units, margin, ranks)
            out["tune" if i % 2 == 0 else "check"].add({c.yakgwan or "" for c in done.citations}, set(r["riders"]))
        return out

    ask = {"tune": Tally(), "check": Tally()}
    for i, r in enumerate(rows):
        res = asker.ask(r["question"])
        ask["tune" if i % 2 == 0 else "check"].add({c.yakgwan or "" for c in res.citations}, set(r["riders"]))
    print(f"{QUESTIONS.name}: {len(rows)} questions; tuning half = even rows, checking half = odd rows")
    for half in ("tune", "check"):
        print(f"  ask as shipped (ranks {LIST_RANKS}, margin {LIST_MARGIN}), {half}: {ask[half].line()}")
    base = {"tune": Tally(), "check": Tally()}  # the unit answer the question got before the list
    for i, (r, h) in enumerate(zip(rows, hits)):
        done = units.answer(r["question"], h)  # (its outcome decides: a refusal cites nothing)
        base["tune" if i % 2 == 0 else "check"].add({c.yakgwan or "" for c in done.citations}, set(r["riders"]))
    for half in ("tune", "check"):
        print(f"  the unit answer without the list, {half}: {base[half].line()}")
    if args.grid:
        for ranks in (1, 2, 3, 5):
            for margin in (0.01, 0.02, 0.03, 0.05, 0.1):
                t = tally(ranks, margin)
                print(f"  ranks {ranks} margin {margin:<4}: tune {t['tune'].line()} | check {t['check'].line()}")


if __name__ == "__main__":
    main()
