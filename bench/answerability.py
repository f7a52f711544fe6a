"""Benchmark and fit: the offline unit answer's answerability model, on tuning halves only.

Not a test. For each dev set (policy_qa dev over the KB policy; skytravel dev and the skytravel
unanswerable set over its knowledge base) it indexes the corpus, retrieves with the default
pipeline (k = 5), chooses units (:mod:`yakgwan.answer.extract_units`) and records the
features. A question naming something the documents never mention is refused before any
answerer runs (as ``ask`` does), and is left out of the fit. A row's label is 1 when it is answerable and the chosen units, as the answer shows them (with
their heading), hold its keywords (policy_qa: every keyword; skytravel: at least 80% of them;
``eval --answers``' keyword recall), else 0. Halves: even rows of each
file tune, odd rows check. A question about two named things is left out: ``ask`` searches each
side and answers it by the comparison rules, not by units.

The logistic model (scikit-learn, standardised features) and its two thresholds are fitted on
the tuning rows; the thresholds maximise tuning accuracy of the three outcomes (label 1 →
answered, an answerable row the units miss → partial, unanswerable → refused). Printed: the
outcome table and a reliability table for both halves. ``--write`` saves the model to
``src/yakgwan/answer/data/answerability.json``.

    .venv/bin/python bench/answerability.py [--write]
"""

from __future__ import annotations

import argparse
import itertools
import json
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import numpy as np

from yakgwan.answer.compare import side_queries
from yakgwan.answer.anchors import AnchorFinder, bare_term, found_share, missing_anchors, normalise
from yakgwan.answer.answerability import DEFAULT_MODEL, FEATURES, AnswerabilityModel, reliability
from yakgwan.answer.extract_units import UnitAnswerer, features, shown_unit
from yakgwan.config import Settings
from yakgwan.eval.keywords import keyword_recall
from yakgwan.pipelines import build_pipeline
from yakgwan.services.context import open_context
from yakgwan.services.ingest import ingest
from yakgwan.text.registry import tagger_of

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
SETS = {  # name: (corpus, questions, keyword rule)
    "policy_qa": (SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf", SHARED / "policy_qa" / "questions_dev.jsonl", "all"),
    "skytravel": (SHARED / "skytravel" / "knowledge_base", SHARED / "skytravel" / "tests_dev.jsonl", "0.8"),
    "skytravel_unanswerable": (SHARED / "skytravel" / "knowledge_base", REPO / "tests" / "data" / "answers" / "unanswerable_skytravel.jsonl", "0.8"),
}


@dataclass
class Row:
    dataset: str
    half: str
    answerable: bool
    held: bool  # the chosen units hold the keywords
    x: tuple[float, ...]
    named_absent: bool = False  # the question names something the documents never mention: ask refuses it first
    two_sided: bool = False  # a question about two named things: ask answers it by searching each side, not by units

    @property
    def label(self) -> int:
        return int(self.answerable and self.held)

    @property
    def truth(self) -> str:
        return "answered" if self.label else "partial" if self.answerable else "refused"


def _held(keywords: list[str], shown: str, rule: str) -> bool:
    """The keywords are in what the answer shows (``eval --answers``' keyword recall: spellings
    of one number count once)."""
    recall = keyword_recall(shown, keywords)
    if recall is None:
        return False
    return recall == 1.0 if rule == "all" else recall >= float(rule) - 1e-9


def context_of(corpus: Path, questions: Path, tmp: Path, contexts: dict[Path, Any]) -> Any:
    """The context of an index of ``corpus`` under ``tmp``, made once per corpus (kept in ``contexts``)."""
    if not corpus.exists() or not questions.exists():
        raise SystemExit(f"needs {corpus} and {questions} (the ../shared folder beside the repository)")
    if corpus not in contexts:
        settings = Settings.from_env().with_(index_dir=tmp / f"index-{len(contexts)}", quiet=True)
        ingest(settings, [corpus], sync=True)
        contexts[corpus] = open_context(settings)
    return contexts[corpus]


def collect(tmp: Path, embedders: set[str]) -> list[Row]:
    rows: list[Row] = []
    contexts: dict[Path, Any] = {}
    for name, (corpus, questions, rule) in SETS.items():
        ctx = context_of(corpus, questions, tmp, contexts)
        embedders.add(ctx.view.embedder)
        retriever, _ = build_pipeline("default", ctx)
        anchors = AnchorFinder(tagger_of(ctx.tokenizer))
        text = normalise("\n".join(c.text for c in ctx.view.chunks))
        dummy = AnswerabilityModel((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), 0.0, 1.0, 0.0, "unfitted", ctx.view.embedder)
        # as ask: over a policy, a word the insurance thesaurus maps to words the documents use is mentioned
        equivalents = (lambda form, th=ctx.thesaurus: th.meaning(bare_term(form))) if ctx.profile == "policy" else None
        answerer = UnitAnswerer(ctx.embedder, ctx.tokenizer, dummy, lambda q: found_share(anchors.terms(q), text))
        for i, line in enumerate(l for l in questions.read_text("utf-8").splitlines() if l.strip()):
            r = json.loads(line)
            answerable = bool(r.get("answerable", "absent" not in r))
            units, scored, picked = answerer.choose(r["question"], retriever.retrieve(r["question"], 5))
            shown = " ".join(shown_unit(units[j]) for j in picked)
            x = features(scored, picked, answerer.found(r["question"])).vector() if picked else (0.0, 0.0, 0.0, answerer.found(r["question"]))
            absent = bool(missing_anchors(anchors.anchors(r["question"]), text, equivalents))
            sides = bool(side_queries(r["question"], anchors.terms))
            rows.append(Row(name, "tune" if i % 2 == 0 else "check", answerable, _held(r.get("keywords", []), shown, rule), x, absent, sides))
    return rows


def fit(tune: list[Row], embedder: str) -> AnswerabilityModel:
    """Fitted on the rows that reach the model (``ask`` refuses the others before it runs)."""
    from sklearn.linear_model import LogisticRegression

    tune = [r for r in tune if not r.named_absent and not r.two_sided]
    X = np.array([r.x for r in tune])
    y = np.array([r.label for r in tune])
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    lr = LogisticRegression(C=1.0).fit((X - mean) / scale, y)
    model = AnswerabilityModel(tuple(mean), tuple(scale), tuple(lr.coef_[0]), float(lr.intercept_[0]), 1.0, 0.0, "", embedder)
    probs = [_p(model, r.x) for r in tune]
    grid = [round(t, 2) for t in np.arange(0.05, 1.0, 0.05)]
    best = max(((hi, lo) for hi, lo in itertools.product(grid, grid) if lo <= hi),
               key=lambda hl: (sum(_outcome(p, *hl) == r.truth for p, r in zip(probs, tune)), hl[0]))
    source = (f"fitted {date.today().isoformat()} by bench/answerability.py on the tuning halves (even rows) of "
              f"{', '.join(SETS)}: {len(tune)} rows, {int(y.sum())} answered")
    return AnswerabilityModel(model.mean, model.scale, model.weights, model.bias, best[0], best[1], source, embedder)


def _p(model: AnswerabilityModel, x: tuple[float, ...]) -> float:
    from yakgwan.answer.answerability import AnswerFeatures

    return model.probability(AnswerFeatures(*x))


def _outcome(p: float, hi: float, lo: float) -> str:
    return "answered" if p >= hi else "partial" if p >= lo else "refused"


def report(model: AnswerabilityModel, rows: list[Row]) -> None:
    for half in ("tune", "check"):
        print(f"\n{half} half")
        print("| set | n | answerable: answered with keywords | answerable: outcomes | unanswerable: refused |")
        print("|---|---|---|---|---|")
        for name in SETS:
            sel = [r for r in rows if r.half == half and r.dataset == name and not r.two_sided]
            ans = [r for r in sel if r.answerable]
            una = [r for r in sel if not r.answerable]
            outs = ["refused" if r.named_absent else _outcome(_p(model, r.x), model.answered, model.partial) for r in sel]
            by = dict(zip(map(id, sel), outs))
            good = sum(1 for r in ans if by[id(r)] == "answered" and r.held)
            counts = {o: sum(1 for r in ans if by[id(r)] == o) for o in ("answered", "partial", "refused")}
            ref = sum(1 for r in una if by[id(r)] == "refused")
            print(f"| {name} | {len(sel)} | {good}/{len(ans) or 0} = {good / len(ans) if ans else 0:.3f} | {counts} | "
                  f"{ref}/{len(una)} = {ref / len(una) if una else 0:.3f} |")
        left = {name: sum(r.two_sided for r in rows if r.half == half and r.dataset == name) for name in SETS}
        print(f"left out, about two named things (ask searches each side and answers by the comparison rules): {left}")
        probs = [_p(model, r.x) for r in rows if r.half == half and not r.named_absent and not r.two_sided]
        labels = [bool(r.label) for r in rows if r.half == half and not r.named_absent and not r.two_sided]
        print("reliability: p bin | mean predicted | observed | n")
        for lo, pred, obs, n in reliability(probs, labels):
            print(f"  [{lo:.1f}, {lo + 0.2:.1f}) | {pred:.3f} | {obs:.3f} | {n}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help=f"save the fitted model to {DEFAULT_MODEL}")
    args = ap.parse_args()
    embedders: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        rows = collect(Path(tmp), embedders)
    if len(embedders) != 1:
        raise SystemExit(f"the dev sets were embedded with different embedders: {sorted(embedders)}")
    model = fit([r for r in rows if r.half == "tune"], embedders.pop())
    print(f"features {FEATURES}; weights {np.round(model.weights, 3).tolist()} bias {model.bias:.3f}; "
          f"answered >= {model.answered}, partial >= {model.partial}")
    report(model, rows)
    if args.write:
        DEFAULT_MODEL.parent.mkdir(parents=True, exist_ok=True)
        DEFAULT_MODEL.write_text(json.dumps(model.to_json(), ensure_ascii=False, indent=1) + "\n", "utf-8")
        print(f"wrote {DEFAULT_MODEL}")


if __name__ == "__main__":
    main()
