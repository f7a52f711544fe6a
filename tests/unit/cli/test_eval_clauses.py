"""``yakgwan eval`` on the clause-level format, end to end: the bundled sample 약관 as a file
corpus, the hashing embedder, the JSON, the HTML report and ``yakgwan report``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
SAMPLE = REPO / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"


def _run(args: list[str], tmp: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, YAKGWAN_INDEX=str(tmp / "index"), YAKGWAN_CACHE_DIR=str(tmp / "cache"), YAKGWAN_EMBEDDER="hashing")
    env.pop("YAKGWAN_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "yakgwan.cli", *args, "--quiet"], capture_output=True, text=True, env=env, timeout=300)


def _norm(s: str) -> str:
    return re.sub(r"\s+", "", s)


@pytest.mark.unit
def test_eval_on_a_clause_level_set(tmp_path: Path) -> None:
    policy = tmp_path / "policy" / "sample_yakgwan.txt"
    policy.parent.mkdir()
    shutil.copy(SAMPLE, policy)
    rows = [
        {"id": "q1", "question": "벌금 특별약관 보험금 청구할 때 서류", "style": "keyword", "topic": "청구",
         "governing": [{"yakgwan": "벌금특별약관", "article": "제3조", "article_title": "보험금의 청구", "page": 1}], "answerable": True},
        {"id": "q2", "question": "교통사고처리지원금 특약에서 보험금 안 주는 경우", "style": "colloquial", "topic": "면책",
         "governing": [{"yakgwan": "교통사고처리지원금 특별약관", "article": "제2조", "article_title": None, "page": 1},
                       {"yakgwan": "보통약관", "article": "제4조", "article_title": None, "page": 1}], "answerable": True},
        {"id": "q3", "question": "보험료는 얼마인가요?", "style": "colloquial", "topic": "보험료",
         "governing": [{"yakgwan": "보통약관", "article": "제1조", "article_title": "목적", "page": 1}], "answerable": False},
    ]
    tests = tmp_path / "qa" / "questions.jsonl"
    tests.parent.mkdir()
    tests.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), "utf-8")
    out, html = tmp_path / "eval.json", tmp_path / "r.html"
    p = _run(["eval", "--corpus", str(policy), "--tests", str(tests), "--pipelines", "bm25", "hybrid", "--json", str(out), "--report", str(html)], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr  # every governing unit is in the sample
    res = json.loads(out.read_text("utf-8"))
    assert [r["pipeline"] for r in res] == ["bm25", "hybrid"]
    for r in res:
        assert (r["n"], r["n_unanswerable"], r["level"], r["dataset"]) == (2, 1, "clause", "qa/questions.jsonl")
        assert set(r["metrics"]) == {"hit@1", "hit@5", "mrr", "any_hit@1", "any_hit@5", "any_mrr"}
        assert set(r["by_category"]) == {"keyword", "colloquial"} and set(r["by_topic"]) == {"청구", "면책"}
        for q in r["per_query"]:  # the metrics agree with the units listed
            primary = _norm(q["relevant"][0].rsplit(" (p.", 1)[0])
            ranks = [i for i, u in enumerate(q["retrieved"], 1) if _norm(u) == primary]
            assert q["metrics"]["mrr"] == pytest.approx(1 / ranks[0] if ranks else 0.0)
            assert len(q["retrieved"]) == len(set(q["retrieved"]))  # units de-duplicated
    assert res[0]["per_query"][0]["metrics"]["hit@1"] == 1.0  # bm25 finds 벌금 특별약관 제3조 first
    assert "(약관, 조) units:" in p.stdout and "mrr@10=" in p.stdout and "+1 unanswerable" in p.stdout
    page = html.read_text("utf-8")
    assert "Clause-level metrics" in page and "By style" in page and "By topic" in page and "Hit@5 (primary unit)" in page
    # the tuning half of a 3-row file holds rows 0 and 2 (q3 unanswerable): one question scored
    half = tmp_path / "tune.json"
    p = _run(["eval", "--corpus", str(policy.parent), "--tests", str(tests), "--pipeline", "bm25", "--half", "tune", "--json", str(half)], tmp_path)
    assert p.returncode == 0, p.stderr
    tune = json.loads(half.read_text("utf-8"))[0]
    assert tune["n"] == 1 and tune["n_unanswerable"] == 1 and tune["dataset"] == "qa/questions.jsonl (tune half)"
    assert tune["corpus_sha256"] == res[0]["corpus_sha256"]  # the folder holds just the file
    md = tmp_path / "t.md"
    p = _run(["report", str(out), "--markdown", str(md)], tmp_path)
    assert p.returncode == 0, p.stderr
    table = md.read_text("utf-8")
    assert "hit@5" in table and "MRR@10" in table and "hit@5 by category, minus bm25:" in table
