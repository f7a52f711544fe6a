"""``eval --answers`` end to end against an OpenAI-compatible server (chat + embeddings): answers,
refusals, citations, the LLM judge with its spread, and the answer-side RAG techniques, configured
by environment variables only, as a user would. A rerun is served from the response cache."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from stub_server import JsonHandler, serve, write_branch_kb

pytestmark = pytest.mark.integration

CALLS: dict[str, int] = {}
FACTS = {"부산 지사": "8명", "출발 30일 전": "전액"}  # what the stub model answers from, when a shown sentence has it


def _answer(prompt: str) -> dict:
    """The grounded answer: cite the shown sentence that holds the asked fact, else refuse."""
    question = prompt.rsplit("[질문]", 1)[-1]
    for key, fact in FACTS.items():
        if key in question:
            for line in prompt.split("[질문]")[-2].splitlines():
                m = re.match(r"\[(\d+)\] (.*)", line)
                if m and fact in m.group(2):
                    return {"outcome": "answered", "claims": [{"text": f"{key}: {fact}입니다.", "cite": [m.group(1)]}], "missing": ""}
    return {"outcome": "refused", "claims": [], "missing": ""}


class _Server(JsonHandler):
    def do_POST(self) -> None:  # noqa: N802
        body = self.body()
        if self.auth_or_embeddings(body, "secret", 32):
            return
        schema = body.get("response_format", {}).get("json_schema", {}).get("schema", {})
        props = schema.get("properties", {})
        prompt = body["messages"][-1]["content"]
        if "outcome" in props:
            kind, content = "answer", _answer(prompt)
        elif "accuracy" in props:  # the judge: scores that differ by seed, so the spread is not zero
            kind, content = "judge", {"accuracy": 4 + body["seed"] % 2, "completeness": 4, "relevance": 5}
        elif "scores" in props:  # corrective RAG grades: every passage useful
            kind, content = "crag_grade", {"scores": [5] * schema["properties"]["scores"]["minItems"]}
        elif "yes" in props:
            kind, content = "yes_no", {"yes": True}
        elif "questions" in props:
            kind, content = "decompose", {"questions": [prompt.split("질문:")[-1].strip()[:40]]}
        elif "enough" in props:
            kind, content = "next_hop", {"enough": True, "query": ""}
        elif "tool" in props:
            done = "관찰" in prompt or "결과" in prompt
            kind, content = "agent", ({"tool": "finish", "input": ""} if done else {"tool": "kb_search", "input": "지사 직원"})
        else:  # free text: a RAPTOR summary
            kind, content = "text", "지사와 환불 규정을 다룬 문서들입니다."
        CALLS[kind] = CALLS.get(kind, 0) + 1
        text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
        self.send_json(200, {"choices": [{"message": {"content": text}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": 5}})


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "yakgwan.cli", *args, "--quiet"], env=env, capture_output=True, text=True, timeout=600)


def test_eval_answers_over_a_served_endpoint(tmp_path: Path) -> None:
    tests = write_branch_kb(tmp_path)
    un = tmp_path / "u.jsonl"
    un.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in [
        {"id": "u1", "question": "광주 지사 직원 수는?", "made_by": "other_branch"},  # refused before any model: 광주 is in no document
        {"id": "u2", "question": "제주 지사의 주차 요금은?", "made_by": "absent_fact"},  # every word is in the documents: the model refuses
    ]), "utf-8")
    pipelines = ["hybrid_cc", "crag", "self_rag", "multihop", "agentic", "raptor"]
    with serve(_Server) as url:
        env = dict(os.environ, YAKGWAN_CACHE_DIR=str(tmp_path / "cache"), YAKGWAN_EMBEDDER="openai", YAKGWAN_EMBED_BASE_URL=url,
                   YAKGWAN_EMBED_MODEL="stub-embed", YAKGWAN_EMBED_API_KEY="secret", YAKGWAN_LLM="openai", YAKGWAN_LLM_BASE_URL=url,
                   YAKGWAN_LLM_MODEL="stub-chat", YAKGWAN_LLM_API_KEY="secret", YAKGWAN_SEARCH="none")
        # this endpoint returns no token log-probabilities: without saying so, the first step that reads them stops with a clear line
        p = _cli(["eval", "--corpus", str(tmp_path / "kb"), "--tests", str(tests), "--answers", "--pipeline", "self_rag", "--judge-runs", "0"], env)
        assert p.returncode != 0 and "YAKGWAN_LLM_LOGPROBS=0" in p.stderr and "Traceback" not in p.stderr, p.stderr
        env["YAKGWAN_LLM_LOGPROBS"] = "0"  # then Self-RAG asks structured yes/no questions instead
        args = ["eval", "--corpus", str(tmp_path / "kb"), "--tests", str(tests), "--answers", "--unanswerable", str(un), "--judge-runs", "3", "--k", "3"]
        for name in pipelines:
            args += ["--pipeline", name]
        p = _cli([*args, "--json", str(tmp_path / "r1.json"), "--report", str(tmp_path / "r1.html")], env)
        assert p.returncode == 0, p.stderr
        first = json.loads((tmp_path / "r1.json").read_text("utf-8"))
        assert [r["pipeline"] for r in first] == pipelines
        for r in first:
            a = r["answers"]
            assert a["mode"] == "generate" and "note" not in a, r["pipeline"]
            m = a["metrics"]
            assert (m["answer_rate"], m["refusal_rate"], m["citation_validity"], m["citation_support"], m["keyword_recall"]) == (1.0, 1.0, 1.0, 1.0, 1.0), r["pipeline"]
            assert a["unanswerable_by_kind"]["other_branch"]["refused_by_anchor"] == 1 and a["unanswerable_by_kind"]["absent_fact"]["refused_by_anchor"] == 0
            rows = {q["qid"]: q for q in a["per_question"]}
            assert all(q["by"] == "openai:stub-chat" for q in rows.values() if q["set"] == "answerable")
            cite = [q for q in a["per_question"] if q["set"] == "answerable"][0]["citations"][0]
            assert cite["doc"] == "faq/branch.md" and "8명" in cite["quote"]
            j = a["judge"]  # seeds 1, 2, 3 -> accuracy 5, 4, 5: mean 14/3, spread pstdev = 0.4714
            assert j["model"] == "openai:stub-chat" and j["runs"] == 3 and j["failed_judgements"] == 0
            assert j["scores"]["accuracy"] == {"mean": 4.6667, "spread": 0.4714, "runs": 3}, r["pipeline"]
            assert j["scores"]["relevance"] == {"mean": 5.0, "spread": 0.0, "runs": 3}
        assert CALLS["answer"] >= 3 and CALLS["judge"] >= 6 and CALLS["crag_grade"] >= 1 and CALLS["agent"] >= 1 and CALLS["text"] >= 1
        assert "refusal rate (unanswerable)" in (tmp_path / "r1.html").read_text("utf-8")
        # the same prompt twice (another pipeline retrieving the same sentences) is one call: the cache
        # rerun: every answer, judgement and technique step from the cache; identical numbers
        before = sum(v for k, v in CALLS.items() if k != "embeddings")
        p = _cli([*args, "--json", str(tmp_path / "r2.json")], env)
        assert p.returncode == 0, p.stderr
        assert sum(v for k, v in CALLS.items() if k != "embeddings") == before
        second = json.loads((tmp_path / "r2.json").read_text("utf-8"))
        assert [r["answers"]["metrics"] for r in second] == [r["answers"]["metrics"] for r in first]
        assert [r["answers"]["judge"]["scores"] for r in second] == [r["answers"]["judge"]["scores"] for r in first]
        # a wrong key: one clear line, no traceback
        p = _cli([*args[:10], "--no-cache"], {**env, "YAKGWAN_LLM_API_KEY": "wrong"})
        assert p.returncode != 0 and "authentication failed" in p.stderr and "Traceback" not in p.stderr, p.stderr
