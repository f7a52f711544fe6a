"""Benchmark and fit: the offline unit answer's answerability model, validated corpus by corpus.

Not a test. Five question sets over four corpora:

- ``policy_qa``: policy_qa dev over the KB policy (answerable and unanswerable rows);
- ``policy_unanswerable``: ``tests/data/answers/unanswerable_policy.jsonl`` over the same policy;
- ``skytravel``: skytravel dev over its knowledge base;
- ``skytravel_unanswerable``: ``tests/data/answers/unanswerable_skytravel.jsonl`` over it;
- ``multi``: the six questions of each document of ``../shared/data/policies/multi/gold``, each
  asked within its document (``--filter doc=FILE``), one collection of all of them.

For each question it retrieves with the default pipeline (k = 5), chooses units
(:mod:`yakgwan.answer.extract_units`) and records the features. Each question is also put to
``ask`` itself with a model that always answers: a question ``ask`` settles by another route
whatever the model says (an insurer not held, a name no document mentions, a 조 that does not
exist, which 특약, two named things compared by rule, an amount the clauses leave to the
contract or do not state) keeps that outcome in every table and is left out of the fit. A row's label is 1 when it is answerable and the chosen units, as the answer
shows them (with their heading), hold enough of its keywords (``eval --answers``' keyword recall:
at least half for the policies, 80% for skytravel), else 0.

Printed: the bundled model (``src/yakgwan/answer/data/answerability.json``) on every set by half;
then two validations of a refit:

1. **Leave one set out**: for each set, the model is fitted on every row of the other four and
   its outcomes are counted on the held-out set, whole. This is what says whether the decision
   carries over to questions written by someone else about other documents.
2. **Halves**: the shipped model is fitted on the tuning halves of all five sets (even rows of
   each file; for ``multi``, the documents of the tuning insurers: 캐롯, 한화, 롯데 tune; DB, KB,
   메리츠 check: split by document, never by row) and counted on both halves.

In a fit a row weighs 1 / its set's rows, counting those another route settles, so that
skytravel's hundred questions do not decide for the policies; a set whose rows mostly go
another way weighs that much less in the model's fit (its modelled share). The logistic model (scikit-learn, standardised
features) and its two thresholds: the thresholds maximise the weighted accuracy of the three
outcomes (label 1 → answered, an answerable row the units miss → partial, unanswerable →
refused). A refit is shipped only when it beats the bundled model on the sets it was not fitted
on. ``--write`` saves the halves model to ``src/yakgwan/answer/data/answerability.json``;
``--work DIR`` keeps the indexes there between runs (multi: about 5 minutes to ingest).

    .venv/bin/python bench/answerability.py [--write] [--work DIR]
"""

from __future__ import annotations

import argparse
import itertools
from collections import Counter
import json
import re
import tempfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from yakgwan.answer.compare import side_queries
from yakgwan.answer.ask import Asker
from yakgwan.answer.anchors import AnchorFinder, bare_term, found_shares, missing_anchors, normalise, subject_terms
from yakgwan.answer.answerability import DEFAULT_MODEL, FEATURES, AnswerabilityModel, AnswerFeatures, reliability
from yakgwan.answer.extract_units import UnitAnswerer, features, shown_unit
from yakgwan.config import Settings
from yakgwan.eval.keywords import keyword_recall
from yakgwan.pipelines import build_pipeline
from yakgwan.query.answer_type import asked_kinds
from yakgwan.query.answer_type import bundled as bundled_types
from yakgwan.services.context import open_context
from yakgwan.services.ingest import ingest
from yakgwan.store import parse_filters
from yakgwan.text.registry import tagger_of

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
MULTI = SHARED / "policies" / "multi"
SETS = {  # name: (corpus, questions, keyword rule)
    "policy_qa": (SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf", SHARED / "policy_qa" / "questions_dev.jsonl", "0.5"),
    "policy_unanswerable": (SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf",
                            REPO / "tests" / "data" / "answers" / "unanswerable_policy.jsonl", "0.5"),
    "skytravel": (SHARED / "skytravel" / "knowledge_base", SHARED / "skytravel" / "tests_dev.jsonl", "0.8"),
    "skytravel_unanswerable": (SHARED / "skytravel" / "knowledge_base", REPO / "tests" / "data" / "answers" / "unanswerable_skytravel.jsonl", "0.8"),
    "multi": (MULTI, MULTI / "gold", "0.5"),
}
# the multi documents' halves, by insurer (the insurer as the gold file names it)
MULTI_TUNE = frozenset({"캐롯손해보험", "한화손해보험", "롯데손해보험"})
MULTI_CHECK = frozenset({"DB손해보험", "KB손해보험", "메리츠화재"})


@dataclass
class Row:
    dataset: str
    half: str
    answerable: bool
    held: bool  # the chosen units hold the keywords
    x: tuple[float, ...]
    named_absent: bool = False  # the question names something the documents never mention (for reading; ``fixed`` decides)
    two_sided: bool = False  # a question about two named things (for reading; ``fixed`` decides)
    question: str = ""
    # the outcome ``ask`` gives whatever the model says (a scope or missing-name refusal, a
    # structure answer, a rider list, the comparison rules, an amount left to the contract), and
    # what gave it; None: the model decides
    fixed: str | None = None
    route: str = "units"
    extra: dict[str, float] | None = None  # candidate features not (yet) in the model, for study

    @property
    def label(self) -> int:
        return int(self.answerable and self.held)

    @property
    def truth(self) -> str:
        return "answered" if self.label else "partial" if self.answerable else "refused"

    @property
    def modelled(self) -> bool:
        """The model decides the row's outcome (``ask`` settles the others by another route)."""
        return self.fixed is None


def _held(keywords: list[str], shown: str, rule: str) -> bool:
    """The keywords are in what the answer shows (``eval --answers``' keyword recall: spellings
    of one number count once)."""
    recall = keyword_recall(shown, keywords)
    if recall is None:
        return False
    return recall >= float(rule) - 1e-9


def _index(corpora: list[Path], where: Path) -> Settings:
    """An index of ``corpora`` at ``where`` (made unless it is there already: ``--work``)."""
    settings = Settings.from_env().with_(index_dir=where, quiet=True)
    if not (where.exists() and any(where.iterdir())):
        ingest(settings, corpora, sync=True)
    return settings


def _questions(name: str, questions: Path) -> Iterator[tuple[dict[str, Any], str, str | None]]:
    """Each question with its half and, for multi, the document it is asked within."""
    if name != "multi":
        for i, line in enumerate(l for l in questions.read_text("utf-8").splitlines() if l.strip()):
            yield json.loads(line), "tune" if i % 2 == 0 else "check", None
        return
    for f in sorted(questions.glob("*.json")):
        g = json.loads(f.read_text("utf-8"))
        half = "tune" if g.get("insurer") in MULTI_TUNE else "check" if g.get("insurer") in MULTI_CHECK else None
        if half is None:
            raise SystemExit(f"{f}: insurer {g.get('insurer')!r} is in neither multi half")
        for q in g.get("questions", []):
            yield q, half, g["file"]


def each_question(work: Path) -> Iterator[tuple[str, str, dict[str, Any], str, Any]]:
    """Every question of every set with its set name, keyword rule, half and the context it is
    asked in (a multi question within its document), the indexes made under ``work`` (kept
    there) and each context opened once."""
    contexts: dict[tuple[Path, str | None], Any] = {}
    settings_of: dict[Path, Settings] = {}
    for name, (corpus, questions, rule) in SETS.items():
        if not corpus.exists() or not questions.exists():
            raise SystemExit(f"needs {corpus} and {questions} (the ../shared folder beside the repository)")
        if corpus not in settings_of:
            where = work / f"index-{len(settings_of)}"
            settings_of[corpus] = _multi_index(where) if name == "multi" else _index([corpus], where)
        for r, half, doc in _questions(name, questions):
            key = (corpus, doc)
            if key not in contexts:
                contexts[key] = open_context(settings_of[corpus], filters=parse_filters([f"doc={doc}"]) if doc else None)
            yield name, rule, r, half, contexts[key]


def collect(work: Path, embedders: set[str]) -> list[Row]:
    rows: list[Row] = []
    answerers: dict[int, Any] = {}
    for name, rule, r, half, ctx in each_question(work):
        if id(ctx) not in answerers:
            answerers[id(ctx)] = (ctx, *_answerer(ctx))
        ctx, retriever, anchors, text, equivalents, answerer, asker = answerers[id(ctx)]
        embedders.add(ctx.view.embedder)
        q = r["question"]
        # ask with a model that always answers: whatever is not "answered by units" then is
        # settled by another route, whatever the model would say
        res = asker.ask(q)
        fixed = None if (res.by == "units" and res.outcome == "answered") else res.outcome
        answerable = bool(r.get("answerable", "absent" not in r))
        units, scored, picked = answerer.choose(q, retriever.retrieve(q, 5))
        shown = " ".join(shown_unit(units[j]) for j in picked)
        x = features(scored, picked, answerer.found(q)).vector() if picked else (0.0, 0.0, 0.0, *answerer.found(q))
        absent = bool(missing_anchors(anchors.anchors(q), text, equivalents))
        sides = bool(side_queries(q, anchors.terms))
        rows.append(Row(name, half, answerable, _held(r.get("keywords", []), shown, rule), x, absent, sides, q, fixed, res.by,
                        {**_extra(q, shown, anchors, text, equivalents), **_drops(q, units, scored, picked, anchors, answerer)}))
    return rows


# candidate features recorded with ``--rows`` for study, not in the model: whether the units carry
# the kind of answer asked (a period, an amount, documents: ``query.answer_type``), the share of the
# question's subject nouns the documents hold that the units hold too, and how many subject nouns
# no document holds; and (``_drops``) how much the best unit's cosine falls when one subject noun
# is taken out of the question, least and most over the nouns. Measured 2026-12-06 (leave one set
# out): each moved the trade-off between answers and refusals; none beat the bundled model on both.
_CARRIES = {"period": re.compile(r"\d+\s*(?:일|년|개월|영업일|시간|주)"), "amount": re.compile(r"\d[\d,.]*\s*(?:원|만원|%|％)|한도|가입금액"),
            "documents": re.compile(r"서류|진단서|증명서|영수증|청구서|확인서")}


def _extra(q: str, shown: str, anchors: AnchorFinder, text: str, equivalents: Any) -> dict[str, float]:
    want = [k for k in asked_kinds(q, bundled_types()) if k in _CARRIES]
    flat = "".join(shown.split())
    carried = 1.0 if not want else float(any(_CARRIES[k].search(flat) for k in want))
    subj = subject_terms(anchors.terms(q))
    indoc = [f for f in subj if normalise(f) in text or (equivalents is not None and any(normalise(t) in text for t in equivalents(f)))]
    inunits = sum(1 for f in indoc if normalise(f) in normalise(shown)) / len(indoc) if indoc else 1.0
    return {"carried": carried, "subj_units": inunits, "n_miss": float(len(subj) - len(indoc))}


def _drops(q: str, units: list[Any], scored: Any, picked: list[int], anchors: AnchorFinder, answerer: UnitAnswerer) -> dict[str, float]:
    """How much the best unit's cosine falls when one subject noun is taken out of the question:
    the least and the most over the nouns (a noun the unit does not speak to barely moves it)."""
    from yakgwan.answer.select import read_as

    subj = [f for f in subject_terms(anchors.terms(q)) if f in q]
    if not picked or not subj:
        return {"drop_min": 0.0, "drop_max": 0.0}
    best = picked[0]
    v = np.asarray(answerer.embedder.embed([read_as(units[best])], "passage"), dtype=np.float32)[0]
    qs = np.asarray(answerer.embedder.embed([" ".join(q.replace(f, " ").split()) for f in subj], "query"), dtype=np.float32)
    cos = qs @ v / (np.linalg.norm(qs, axis=1) * np.linalg.norm(v))
    drops = float(scored.cos[best]) - cos
    return {"drop_min": float(drops.min()), "drop_max": float(drops.max())}


def _answerer(ctx: Any) -> tuple[Any, AnchorFinder, str, Callable[[str], tuple[str, ...]] | None, UnitAnswerer, Asker]:
    retriever, _ = build_pipeline("default", ctx)
    anchors = AnchorFinder(tagger_of(ctx.tokenizer))
    text = normalise("\n".join(c.text for c in ctx.view.chunks))
    dummy = AnswerabilityModel((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), 0.0, 0.0, 0.0, "unfitted", ctx.view.embedder)
    # as ask: over a policy, a word the insurance thesaurus maps to words the documents use is mentioned
    equivalents = (lambda form, th=ctx.thesaurus: th.meaning(bare_term(form))) if ctx.profile == "policy" else None
    answerer = UnitAnswerer(ctx.embedder, ctx.tokenizer, dummy, lambda q: found_shares(anchors, q, text, equivalents))
    asker = Asker(ctx, anchors=anchors)
    asker._units_fit, asker._units = True, answerer  # the dummy model: answered >= 0, so it always answers
    return retriever, anchors, text, equivalents, answerer, asker


def _multi_index(where: Path) -> Settings:
    """One collection of every multi gold document; a document whose gold says it shows its
    insurer only as a logo is ingested with ``insurer=`` given, as a user would have to."""
    settings = Settings.from_env().with_(index_dir=where, quiet=True)
    if where.exists() and any(where.iterdir()):
        return settings
    golds = [json.loads(f.read_text("utf-8")) for f in sorted((MULTI / "gold").glob("*.json"))]
    ingest(settings, [MULTI / g["file"] for g in golds if g.get("insurer_printed", True)], sync=True)
    for g in golds:
        if not g.get("insurer_printed", True):
            ingest(settings, [MULTI / g["file"]], meta={"insurer": g["insurer"]})  # added beside the others (sync would mirror)
    return settings


def _weights(rows: list[Row], of: list[Row]) -> np.ndarray:
    """Each row weighs 1 / the rows its set has in ``of`` (those another route settles
    included): a set whose rows mostly go elsewhere does not lend its few modelled rows the weight
    of all of them (3 of policy_unanswerable's 10 tuning rows reach the model)."""
    n = Counter(r.dataset for r in of)
    return np.array([1.0 / n[r.dataset] for r in rows])


def fit(tune: list[Row], embedder: str, what: str) -> AnswerabilityModel:
    """Fitted on the rows that reach the model, each weighing 1 / its set's rows (:func:`_weights`)."""
    from sklearn.linear_model import LogisticRegression

    every = tune
    tune = [r for r in tune if r.modelled]
    X = np.array([r.x for r in tune])
    y = np.array([r.label for r in tune])
    w = _weights(tune, every)
    mean, scale = X.mean(axis=0), X.std(axis=0)
    scale[scale == 0] = 1.0
    lr = LogisticRegression(C=1.0).fit((X - mean) / scale, y, sample_weight=w * len(tune) / w.sum())
    model = AnswerabilityModel(tuple(mean), tuple(scale), tuple(lr.coef_[0]), float(lr.intercept_[0]), 1.0, 0.0, "", embedder)
    probs = [_p(model, r.x) for r in tune]
    grid = [round(t, 2) for t in np.arange(0.05, 1.0, 0.05)]
    best = max(((hi, lo) for hi, lo in itertools.product(grid, grid) if lo <= hi),
               key=lambda hl: (sum(wi for p, r, wi in zip(probs, tune, w) if _outcome(p, *hl) == r.truth), hl[0]))
    sets = sorted({r.dataset for r in tune})
    source = (f"fitted {date.today().isoformat()} by bench/answerability.py on {what} of {', '.join(sets)} "
              f"(a row weighing 1 / its set's rows): {len(tune)} rows, {int(y.sum())} answered")
    return AnswerabilityModel(model.mean, model.scale, model.weights, model.bias, best[0], best[1], source, embedder)


def _p(model: AnswerabilityModel, x: tuple[float, ...]) -> float:
    return model.probability(AnswerFeatures(*x))


def _outcome(p: float, hi: float, lo: float) -> str:
    return "answered" if p >= hi else "partial" if p >= lo else "refused"


def outcomes(model: AnswerabilityModel, sel: list[Row]) -> dict[int, str]:
    """Each row's outcome as ``ask`` would give it (a named-absent row is refused first)."""
    return {id(r): r.fixed if r.fixed is not None else _outcome(_p(model, r.x), model.answered, model.partial) for r in sel}


def table_row(name: str, sel: list[Row], by: dict[int, str]) -> str:
    ans = [r for r in sel if r.answerable]
    una = [r for r in sel if not r.answerable]
    good = sum(1 for r in ans if by[id(r)] == "answered" and r.held)
    answered = sum(1 for r in ans if by[id(r)] == "answered")
    counts = {o: sum(1 for r in ans if by[id(r)] == o) for o in ("answered", "partial", "refused")}
    not_answered = sum(1 for r in una if by[id(r)] != "answered")
    refused = sum(1 for r in una if by[id(r)] == "refused")
    frac = lambda a, b: f"{a}/{b} = {a / b:.3f}" if b else "—"  # noqa: E731
    return (f"| {name} | {len(sel)} | {frac(answered, len(ans))} | {frac(good, len(ans))} | {counts} | "
            f"{frac(not_answered, len(una))} | {frac(refused, len(una))} |")


HEADER = ("| set | n | answerable: answered | answerable: answered with keywords | answerable: outcomes | "
          "unanswerable: not answered | unanswerable: refused |\n|---|---|---|---|---|---|---|")


def report_loco(rows: list[Row], embedder: str) -> None:
    print("\nleave one set out (fitted on every row of the other sets, counted on the held-out set)")
    print(HEADER)
    for name in SETS:
        held = [r for r in rows if r.dataset == name]
        model = fit([r for r in rows if r.dataset != name], embedder, "every row")
        print(table_row(name, held, outcomes(model, held)) + f"  (weights {np.round(model.weights, 2).tolist()}, "
              f"answered >= {model.answered}, partial >= {model.partial})")


def report(model: AnswerabilityModel, rows: list[Row]) -> None:
    for half in ("tune", "check"):
        print(f"\n{half} half")
        print(HEADER)
        for name in SETS:
            sel = [r for r in rows if r.half == half and r.dataset == name]
            print(table_row(name, sel, outcomes(model, sel)))
        routes = {name: dict(Counter(r.route for r in rows if r.half == half and r.dataset == name and not r.modelled)) for name in SETS}
        print(f"settled by another route than the model (by that route): {routes}")
        probs = [_p(model, r.x) for r in rows if r.half == half and r.modelled]
        labels = [bool(r.label) for r in rows if r.half == half and r.modelled]
        print("reliability: p bin | mean predicted | observed | n")
        for lo, pred, obs, n in reliability(probs, labels):
            print(f"  [{lo:.1f}, {lo + 0.2:.1f}) | {pred:.3f} | {obs:.3f} | {n}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--write", action="store_true", help=f"save the fitted model to {DEFAULT_MODEL}")
    ap.add_argument("--work", type=Path, help="keep the indexes in this folder between runs")
    ap.add_argument("--rows", type=Path, help="also write the collected rows (JSON lines) here")
    args = ap.parse_args()
    embedders: set[str] = set()
    with tempfile.TemporaryDirectory() as tmp:
        rows = collect(args.work or Path(tmp), embedders)
    if len(embedders) != 1:
        raise SystemExit(f"the sets were embedded with different embedders: {sorted(embedders)}")
    embedder = embedders.pop()
    if args.rows:
        args.rows.write_text("".join(json.dumps(r.__dict__, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    try:
        bundled: AnswerabilityModel | None = AnswerabilityModel.load()
    except ValueError as exc:  # fitted on other features than these rows carry
        print(f"\nthe bundled model is not compared: {exc}")
        bundled = None
    if bundled is not None and bundled.embedder == embedder:
        print(f"\nthe bundled model ({bundled.source}), on every set by half")
        print(HEADER)
        for name in SETS:
            for half in ("tune", "check"):
                sel = [r for r in rows if r.dataset == name and r.half == half]
                print(table_row(f"{name} ({half})", sel, outcomes(bundled, sel)))
    report_loco(rows, embedder)
    model = fit([r for r in rows if r.half == "tune"], embedder, "the tuning halves")
    print(f"\nrefit on the tuning halves (saved only with --write). features {FEATURES}; weights {np.round(model.weights, 3).tolist()} "
          f"bias {model.bias:.3f}; answered >= {model.answered}, partial >= {model.partial}")
    report(model, rows)
    if args.write:
        DEFAULT_MODEL.parent.mkdir(parents=True, exist_ok=True)
        DEFAULT_MODEL.write_text(json.dumps(model.to_json(), ensure_ascii=False, indent=1) + "\n", "utf-8")
        print(f"wrote {DEFAULT_MODEL}")


if __name__ == "__main__":
    main()
