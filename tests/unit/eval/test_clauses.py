"""The clause-level test format: its loader and halves, unit matching ((약관, 조) whitespace aside,
tables by page), the metrics by hand and against pytrec_eval and ranx, and scoring a retriever."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from yakgwan.core.errors import InputError
from yakgwan.core.records import Chunk, Hit
from yakgwan.eval.clauses import GoverningUnit, Place, clause_metrics, first_match_rank, matches, missing_units, norm_name, rank_units
from yakgwan.eval.datasets import EvalSet, is_clause_file, load_clauses
from yakgwan.eval.result import EvalResult
from yakgwan.eval.runner import EvalOptions, check_governing_units, check_judged_documents, score_retriever
from yakgwan.services.evaluate import load_evalset

pytestmark = pytest.mark.unit

ROOT = next(p for p in Path(__file__).resolve().parents if (p / "pyproject.toml").is_file())
SHARED = ROOT.parent / "shared" / "data"
POLICY_QA = SHARED / "policy_qa" / "questions_dev.jsonl"
POLICY_PDF = SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"

BASE = GoverningUnit("보통약관", "제18조", "청약의 철회", 19)
SPECIAL = GoverningUnit("교통사고처리지원금(Ⅰ) 특별약관", "제2조", "보험금의 지급사유", 40)
TABLE = GoverningUnit("보통약관", "별표1", "장해분류표", 30)


def _row(i: int, **over: object) -> dict:
    row = {"id": f"pq-{i:03d}", "question": f"질문 {i}", "style": "keyword", "topic": "청약철회",
           "governing": [{"yakgwan": "보통약관", "article": "제18조", "article_title": "청약의 철회", "page": 19}],
           "answer": "15일", "keywords": ["15일"], "answerable": True}
    return row | over


def _write(path: Path, rows: list[object]) -> Path:
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in rows) + "\n", "utf-8")
    return path


# ---------------------------------------------------------------- matching and unit ranking


def test_a_clause_unit_matches_by_yakgwan_without_whitespace_and_article():
    assert norm_name(" 교통사고처리지원금(Ⅰ)\t특별약관 ") == "교통사고처리지원금(Ⅰ)특별약관"
    assert matches(Place("교통사고처리지원금(Ⅰ)특별약관", "제2조", (41,)), SPECIAL)  # page does not matter for a 조
    assert not matches(Place("교통사고처리지원금(Ⅱ) 특별약관", "제2조", (40,)), SPECIAL)  # another 약관
    assert not matches(Place("교통사고처리지원금(Ⅰ) 특별약관", "제3조", (40,)), SPECIAL)  # another 조
    assert not matches(Place("교통사고처리지원금(Ⅰ) 특별약관", None, (40,)), SPECIAL)


def test_a_table_unit_matches_by_page_whatever_the_chunk():
    assert TABLE.is_table and not BASE.is_table
    assert all(GoverningUnit("x", a, None, 1).is_table for a in ("별표", "별표1", "부표", "분류표"))
    assert matches(Place(None, None, (29, 30)), TABLE)
    assert matches(Place("벌금 특별약관", "제1조", (30,)), TABLE)  # page only
    assert not matches(Place("보통약관", "별표1", (31,)), TABLE)


def test_units_are_deduplicated_down_the_list_and_unarticled_chunks_are_units_by_pages():
    a1, a1b = Place("보통 약관", "제1조", (3,)), Place("보통약관", "제1조", (4,))  # one unit, whitespace aside
    p3, p3b, p4 = Place(None, None, (3,)), Place("보통약관", None, (3,)), Place(None, None, (4,))
    units = rank_units([[a1], [p3], [a1b], [p3b], [p4], []])
    assert [u[0] for u in units] == [a1, p3, p4]
    assert [u[0].label() for u in units] == ["보통 약관 제1조", "p.3", "p.4"]
    # a hit's members count for its unit, and its own chunk names the unit
    grouped = rank_units([[Place("벌금 특별약관", "제1조", (5,)), Place("보통약관", "제18조", (19,))]])
    assert first_match_rank(grouped, [BASE], 10) == 1


def test_clause_metrics_by_hand():
    units = rank_units([[Place("보통약관", "제17조", (18,))], [Place(None, None, (30,))], [Place("보통약관", "제18조", (19,))]])
    # primary (제18조) at unit rank 3; any governing (the table on p.30) at rank 2
    m = clause_metrics(units, [BASE, TABLE], 10)
    assert m == {"hit@1": 0.0, "hit@5": 1.0, "mrr": pytest.approx(1 / 3), "any_hit@1": 0.0, "any_hit@5": 1.0, "any_mrr": 0.5}
    # the cut at k: k = 2 loses the primary
    assert clause_metrics(units, [BASE, TABLE], 2) == {"hit@1": 0.0, "hit@5": 0.0, "mrr": 0.0, "any_hit@1": 0.0, "any_hit@5": 1.0, "any_mrr": 0.5}
    # rank 6: a hit for MRR only
    six = rank_units([[Place("보통약관", f"제{i}조", ())] for i in (1, 2, 3, 4, 5, 18)])
    assert clause_metrics(six, [BASE], 10) == pytest.approx({"hit@1": 0, "hit@5": 0, "mrr": 1 / 6, "any_hit@1": 0, "any_hit@5": 0, "any_mrr": 1 / 6})
    assert clause_metrics([], [BASE], 10)["mrr"] == 0.0
    with pytest.raises(ValueError):
        clause_metrics(units, [], 10)
    with pytest.raises(ValueError):
        clause_metrics(units, [BASE], 0)


def _random_case(rng: random.Random) -> tuple[list[list[Place]], list[GoverningUnit]]:
    names = ["보통약관", "벌금 특별약관", "벌금특별약관", "교통사고처리지원금(Ⅰ) 특별약관"]
    hits = []
    for _ in range(rng.randint(0, 25)):
        article = rng.choice([None, "제1조", "제2조", "제3조", "제4조"])
        hits.append([Place(rng.choice(names), article, tuple(sorted(rng.sample(range(1, 8), rng.randint(0, 2)))))])
    governing = [GoverningUnit(rng.choice(names), rng.choice(["제1조", "제2조", "제3조", "별표"]), None, rng.randint(1, 7))
                 for _ in range(rng.randint(1, 3))]
    return hits, governing


def _as_qrels(units: list[tuple[Place, ...]], governing: list[GoverningUnit]) -> tuple[list[str], dict[str, int], dict[str, int]]:
    """Units as documents u0, u1, …: relevant to the primary unit, and to any governing unit."""
    ids = [f"u{i}" for i in range(len(units))]
    primary = {d: int(any(matches(p, governing[0]) for p in u)) for d, u in zip(ids, units)}
    anyone = {d: int(any(matches(p, g) for p in u for g in governing)) for d, u in zip(ids, units)}
    return ids, primary | {"never": 1}, anyone | {"never": 1}  # a judged unit never retrieved: no run is empty of judgements


def test_against_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    rng = random.Random(7)
    for _ in range(200):
        hits, governing = _random_case(rng)
        units = rank_units(hits)
        ids, primary, anyone = _as_qrels(units, governing)
        got = clause_metrics(units, governing, 10)
        cut = {"q": {d: float(100 - i) for i, d in enumerate(ids[:10])}} if ids else {"q": {"none": 1.0}}
        for prefix, qrels in (("", primary), ("any_", anyone)):
            ref = pytrec_eval.RelevanceEvaluator({"q": qrels}, {"recip_rank", "success"}).evaluate(cut)["q"]
            assert got[f"{prefix}mrr"] == pytest.approx(ref["recip_rank"])
            assert got[f"{prefix}hit@1"] == ref["success_1"] and got[f"{prefix}hit@5"] == ref["success_5"]


def test_against_ranx():
    ranx = pytest.importorskip("ranx")
    rng = random.Random(11)
    cases = []
    for i in range(100):
        hits, governing = _random_case(rng)
        units = rank_units(hits)
        if units:
            cases.append((f"q{i}", units, governing))
    for prefix, which in (("", 1), ("any_", 2)):
        qrels = ranx.Qrels({q: _as_qrels(u, g)[which] for q, u, g in cases})
        run = ranx.Run({q: {d: float(len(u) - j) for j, d in enumerate(_as_qrels(u, g)[0])} for q, u, g in cases})
        ranx.evaluate(qrels, run, ["mrr@10", "hit_rate@1", "hit_rate@5"], return_mean=False, make_comparable=True)
        ref = run.scores  # per query id
        for q, u, g in cases:
            got = clause_metrics(u, g, 10)
            assert got[f"{prefix}mrr"] == pytest.approx(ref["mrr@10"][q])
            assert got[f"{prefix}hit@1"] == ref["hit_rate@1"][q] and got[f"{prefix}hit@5"] == ref["hit_rate@5"][q]


# ---------------------------------------------------------------- the loader


def test_the_loader_reads_governing_units_keeps_unanswerable_apart_and_names_its_set(tmp_path: Path):
    gov = [{"yakgwan": "교통사고처리지원금(Ⅰ) 특별약관", "article": "제2조", "article_title": "보험금의 지급사유", "page": 40},
           {"yakgwan": "보통약관", "article": "별표1", "article_title": None, "page": 30}]
    (tmp_path / "qa").mkdir()
    tests = _write(tmp_path / "qa" / "q.jsonl", [_row(1), "", _row(2, governing=gov, style="story", topic="교처지"), _row(3, answerable=False)])
    assert is_clause_file(tests) and not is_clause_file(_write(tmp_path / "seed.jsonl", [{"question": "q"}]))
    pdf = tmp_path / "policy.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    s = load_clauses(pdf, tests)
    assert s.name == "qa/q.jsonl" and s.clause_level and [q.qid for q in s.queries] == ["pq-001", "pq-002"]
    assert [q.qid for q in s.unanswerable] == ["pq-003"]
    q2 = s.queries[1]
    assert q2.governing == (SPECIAL, GoverningUnit("보통약관", "별표1", None, 30)) and q2.category == "story" and q2.topic == "교처지"
    assert list(q2.relevant) == ["교통사고처리지원금(Ⅰ) 특별약관 제2조 (p.40)", "보통약관 별표1 (p.30)"]
    # the set judges units, not documents: the document check has nothing to say
    assert check_judged_documents(s, set()) == []


def test_halves_split_by_position_in_the_file(tmp_path: Path):
    rows = [_row(i, answerable=i != 4) for i in range(1, 8)]  # positions 0..6; pq-004 (position 3) unanswerable
    tests = _write(tmp_path / "q.jsonl", rows[:3] + [""] + rows[3:])  # a blank line does not count
    tune, check = (load_clauses(tmp_path, tests, h) for h in ("tune", "check"))
    assert [q.qid for q in tune.queries] == ["pq-001", "pq-003", "pq-005", "pq-007"] and tune.unanswerable == ()
    assert [q.qid for q in check.queries] == ["pq-002", "pq-006"] and [q.qid for q in check.unanswerable] == ["pq-004"]
    assert tune.name.endswith("(tune half)") and "even 0-based positions" in tune.source and "odd" in check.source
    with pytest.raises(InputError, match="--half"):
        load_clauses(tmp_path, tests, "train")


@pytest.mark.parametrize("bad, why", [
    ({"governing": []}, "line 2: needs 'governing'"),
    ({"governing": [{"yakgwan": "보통약관", "article": "제1조", "page": "19"}]}, "line 2: governing[0] needs"),
    ({"governing": [{"yakgwan": "", "article": "제1조", "page": 19}]}, "line 2: governing[0] needs"),
    ({"question": ""}, "line 2: needs 'question'"),
    ({"answerable": "yes"}, "line 2: 'answerable' must be true or false"),
    ({"keywords": "15일"}, "line 2: 'keywords' must be a list"),
])
def test_a_malformed_row_names_the_file_and_line(tmp_path: Path, bad: dict, why: str):
    row = _row(2) | bad
    tests = _write(tmp_path / "q.jsonl", [_row(1), row])
    with pytest.raises(InputError) as exc:
        load_clauses(tmp_path, tests)
    assert str(tests) in str(exc.value) and why in str(exc.value)


def test_a_row_without_governing_in_a_clause_file_is_refused(tmp_path: Path):
    row = _row(2)
    del row["governing"]
    with pytest.raises(InputError, match="line 2: needs 'governing'"):
        load_clauses(tmp_path, _write(tmp_path / "q.jsonl", [_row(1), row]))


def test_load_evalset_takes_a_pdf_or_a_folder_and_halves_any_tests_file(tmp_path: Path):
    pdf = tmp_path / "policy.pdf"
    pdf.write_bytes(b"%PDF-1.4")
    tests = _write(tmp_path / "q.jsonl", [_row(1), _row(2)])
    assert load_evalset(pdf, tests, None).corpus == pdf
    assert len(load_evalset(tmp_path, tests, None, "check").queries) == 1
    with pytest.raises(InputError, match="no such file or folder"):
        load_evalset(tmp_path / "missing.pdf", tests, None)
    seed = _write(tmp_path / "seed.jsonl", [{"question": f"q{i}", "keywords": [], "source_docs": ["a.md"]} for i in range(5)])
    # the seed format is halved by the same rule: even 0-based rows tune, odd rows check
    assert [q.text for q in load_evalset(tmp_path, seed, None, "tune").queries] == ["q0", "q2", "q4"]
    check = load_evalset(tmp_path, seed, None, "check")
    assert [q.text for q in check.queries] == ["q1", "q3"] and check.name.endswith("(check half)") and "odd 0-based" in check.source
    with pytest.raises(InputError, match="--half must be one of"):
        load_evalset(tmp_path, seed, None, "middle")
    with pytest.raises(InputError, match="not --beir"):
        load_evalset(None, None, tmp_path, "tune")


# ---------------------------------------------------------------- scoring a retriever


class Ranked:
    """Returns fixed chunk places per question (by its text)."""

    def __init__(self, places: dict[str, list[Place]]) -> None:
        self.places = places

    def retrieve(self, query: str, k: int) -> list[Hit]:
        out = []
        for i, p in enumerate(self.places.get(query, [])[:k]):
            chunk = Chunk(f"c{i}", "policy.pdf", "policy.pdf", "t", "본문", 0, 2, pages=p.pages, yakgwan=p.yakgwan, article=p.article)
            out.append(Hit(chunk, 1.0 / (i + 1), i + 1, "fixed"))
        return out


def test_score_retriever_on_a_clause_set_by_hand(tmp_path: Path):
    gov_table = [{"yakgwan": "보통약관", "article": "별표1", "article_title": "장해분류표", "page": 30},
                 {"yakgwan": "보통약관", "article": "제18조", "article_title": None, "page": 19}]
    tests = _write(tmp_path / "q.jsonl", [_row(1, style="story", topic="A"), _row(2, governing=gov_table, topic="B"),
                                          _row(3, style="story", topic="A"), _row(4, answerable=False)])
    s = load_clauses(tmp_path, tests)
    retriever = Ranked({
        # q1: 제18조 behind two chunks of one unit: unit rank 2 -> hit@1 0, hit@5 1, RR 1/2
        "질문 1": [Place("보통약관", "제17조", (18,)), Place("보통 약관", "제17조", (18,)), Place("보통약관", "제18조", (19,))],
        # q2: primary table on p.30 at rank 3, its second unit (제18조) at rank 1
        "질문 2": [Place("보통약관", "제18조", (19,)), Place("보통약관", "제2조", (4,)), Place(None, None, (30,))],
        # q3: nothing
        "질문 3": [Place("벌금 특별약관", "제1조", (50,))],
    })
    res = score_retriever(retriever, "fixed", s, EvalOptions(k=10), quiet=True)
    assert res.level == "clause" and res.n == 3 and res.n_unanswerable == 1 and res.seed_metrics is None
    assert res.metrics == pytest.approx({"hit@1": 0.0, "hit@5": 2 / 3, "mrr": (1 / 2 + 1 / 3) / 3,
                                         "any_hit@1": 1 / 3, "any_hit@5": 2 / 3, "any_mrr": (1 / 2 + 1) / 3})
    assert res.by_category["story"] == pytest.approx({"hit@1": 0, "hit@5": 0.5, "mrr": 0.25, "any_hit@1": 0, "any_hit@5": 0.5, "any_mrr": 0.25, "n": 2})
    assert set(res.by_category) == {"keyword", "story"} and set(res.by_topic) == {"A", "B"} and res.by_topic["B"]["any_mrr"] == 1.0
    q1, q2 = res.per_query[:2]
    assert q1.relevant == ("보통약관 제18조 (p.19)",) and q1.retrieved == ("보통약관 제17조", "보통약관 제18조") and q1.topic == "A"
    assert q2.relevant == ("보통약관 별표1 (p.30)", "보통약관 제18조 (p.19)") and q2.retrieved[-1] == "p.30"
    out = res.to_json()
    assert list(out)[:6] == ["pipeline", "dataset", "n", "n_unanswerable", "k", "level"] and "by_topic" in out and "seed_metrics" not in out
    assert EvalResult.from_json(json.loads(json.dumps(out))) == res
    # a per-query row of an older run has no topic, and reads back without one
    old = dict(out["per_query"][0])
    del old["topic"]
    assert "topic" not in EvalResult.from_json(out | {"per_query": [old]}).to_json()["per_query"][0]


def test_governing_units_missing_from_the_index_warn_and_all_missing_fail(tmp_path: Path):
    s = load_clauses(tmp_path, _write(tmp_path / "q.jsonl", [_row(1), _row(2, governing=[
        {"yakgwan": "벌금특별약관", "article": "제3조", "article_title": None, "page": 9}])]))
    chunks = [Chunk("c", "d", "d", "t", "x", 0, 1, pages=(9,), yakgwan="벌금 특별약관", article="제3조")]
    assert missing_units([BASE], [Place.of(chunks[0])]) == [BASE]
    assert check_governing_units(s, chunks) == ["1 of 2 governing units match no chunk of the corpus, e.g. 보통약관 제18조 (p.19)"]
    with pytest.raises(InputError, match="none of the 2 governing units"):
        check_governing_units(s, [])


# ---------------------------------------------------------------- the shared policy set


@pytest.mark.skipif(not POLICY_QA.is_file(), reason=f"the shared policy_qa set is absent ({POLICY_QA})")
def test_the_shared_dev_set_loads_with_its_halves():
    corpus = POLICY_PDF if POLICY_PDF.is_file() else POLICY_QA.parent
    full = load_evalset(corpus, POLICY_QA, None)
    assert (len(full.queries), len(full.unanswerable)) == (40, 5)
    tune, check = (load_evalset(corpus, POLICY_QA, None, h) for h in ("tune", "check"))
    assert len(tune.queries) + len(check.queries) == 40 and len(tune.unanswerable) + len(check.unanswerable) == 5
    assert {q.qid for q in tune.queries}.isdisjoint(q.qid for q in check.queries)
    assert all(q.governing and q.category for q in full.queries)
