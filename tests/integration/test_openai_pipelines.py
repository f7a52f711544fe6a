"""Every LLM pipeline against a local OpenAI-compatible server (chat + embeddings), through the
CLI as a user would configure it: env vars only. Reruns are served from the response cache."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from stub_server import JsonHandler, serve


pytestmark = pytest.mark.integration

CALLS = {"chat": 0, "embeddings": 0}


class _Server(JsonHandler):
    def do_POST(self) -> None:  # noqa: N802
        body = self.body()
        if self.path.endswith("/embeddings"):
            CALLS["embeddings"] += 1
        if self.auth_or_embeddings(body, "secret", 16):
            return
        CALLS["chat"] += 1
        if body.get("logprobs"):  # a pointwise relevance judgement: log-probabilities of the first token
            top = [{"token": "예", "logprob": -0.4}, {"token": "아니", "logprob": -1.2}]
            return self.send_json(200, {"choices": [{"message": {"content": "예"}, "finish_reason": "length",
                                                     "logprobs": {"content": [{"token": "예", "logprob": -0.4, "top_logprobs": top}]}}],
                                        "usage": {"prompt_tokens": 10, "completion_tokens": 1}})
        schema = body.get("response_format", {}).get("json_schema", {}).get("schema", {})
        props = schema.get("properties", {})
        if "order" in props:
            content = json.dumps({"order": [2, 1, 3]})
        elif "queries" in props:
            content = json.dumps({"queries": ["벌금 특별약관 보상 한도", "벌금액 보상"]}, ensure_ascii=False)
        elif "sections" in props:  # LLM chunking: one section from the first sentence
            content = json.dumps({"sections": [{"first": 1, "headline": "제목", "summary": "요약"}]}, ensure_ascii=False)
        elif "keep" in props:
            content = json.dumps({"keep": [1]})
        else:  # a free-text request: the HyDE passage
            content = "회사는 확정판결로 정해진 벌금액을 2천만원 한도로 보상합니다."
        self.send_json(200, {"choices": [{"message": {"content": content}, "finish_reason": "stop"}],
                         "usage": {"prompt_tokens": 10, "completion_tokens": 5}})


@pytest.fixture()
def server():  # type: ignore[no-untyped-def]
    with serve(_Server) as url:
        yield url


def _cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "yakgwan.cli", *args, "--quiet"], env=env, capture_output=True, text=True, timeout=300)


def test_llm_pipelines_over_a_served_endpoint(tmp_path: Path, server: str) -> None:
    kb = tmp_path / "kb" / "faq"
    kb.mkdir(parents=True)
    (kb / "fine.md").write_text("# 벌금\n\n벌금 특별약관은 벌금액을 2천만원 한도로 보상합니다.", "utf-8")
    (kb / "bone.md").write_text("# 골절\n\n골절 진단 시 골절진단비를 지급합니다.", "utf-8")
    (kb / "refund.md").write_text("# 환불\n\n출발 30일 전 취소 시 전액 환불합니다.", "utf-8")
    tests = tmp_path / "t.jsonl"
    tests.write_text(json.dumps({"question": "벌금 보상 한도는?", "keywords": ["2천만원"], "category": "x", "source_docs": ["faq/fine.md"]},
                                ensure_ascii=False), "utf-8")
    env = dict(os.environ, YAKGWAN_CACHE_DIR=str(tmp_path / "cache"), YAKGWAN_EMBEDDER="openai", YAKGWAN_EMBED_BASE_URL=server,
               YAKGWAN_EMBED_MODEL="stub-embed", YAKGWAN_EMBED_API_KEY="secret", YAKGWAN_LLM="openai", YAKGWAN_LLM_BASE_URL=server,
               YAKGWAN_LLM_MODEL="stub-chat", YAKGWAN_LLM_API_KEY="secret")
    names = ["rewrite", "multiquery", "fusion", "expansion", "hyde", "reverse_hyde", "hybrid_hyde", "rerank_llm", "compress", "expansion+rerank_llm",
             "fusion+rerank_yesno", "llm_chunk", "preprocess"]
    args = ["eval", "--corpus", str(tmp_path / "kb"), "--tests", str(tests), "--k", "3", "--json", str(tmp_path / "r1.json")]
    for n in names:
        args += ["--pipeline", n]
    p = _cli(args, env)
    assert p.returncode == 0, p.stderr
    first = json.loads((tmp_path / "r1.json").read_text("utf-8"))
    assert [r["pipeline"] for r in first] == names
    for r in first:
        # fusion asks what multiquery asked: served from the cache, still an LLM pipeline
        usage = r["index"]["llm"] if r["pipeline"] in ("llm_chunk", "preprocess") else r["llm"]  # their calls are at ingest
        assert usage["model"] == "openai:stub-chat" and usage["calls"] + usage["cache_hits"] >= 1, r["pipeline"]
        assert "note" not in r and r["n"] == 1  # no fallback note: the served LLM answered
        st = r["stage_ms"]  # the query's time split into LLM calls and the rest
        assert st["total"] == pytest.approx(st["llm"] + st["retrieval"], abs=0.2) and st["llm"] >= 0
    chat_calls = CALLS["chat"]
    p = _cli(args[:-len(names) * 2 - 2] + ["--json", str(tmp_path / "r2.json")] + args[-len(names) * 2:], env)
    assert p.returncode == 0, p.stderr
    second = json.loads((tmp_path / "r2.json").read_text("utf-8"))
    assert CALLS["chat"] == chat_calls  # rerun: all from the cache
    assert all(r["llm"]["calls"] == 0 for r in second)
    for a, b in zip(first, second):  # the rerun still says what the LLM work cost when it was done
        if b["llm"]["cache_hits"]:
            assert b["llm"]["cached_untimed"] == 0 and b["llm"]["ms_per_q_as_recorded"] > 0, b["pipeline"]
            assert b["llm"]["cached_prompt_tokens"] == a["llm"]["prompt_tokens"] + a["llm"]["cached_prompt_tokens"], b["pipeline"]
    # the LLM-built indexes are reused, and say what building them cost
    built = {r["pipeline"]: r["index"] for r in first if "llm" in r["index"]}
    again = {r["pipeline"]: r["index"] for r in second if "llm" in r["index"]}
    assert list(again) == ["llm_chunk", "preprocess"] and built["llm_chunk"]["llm"]["calls"] >= 1
    assert all(again[p]["reused"] and "reused" not in built[p] and again[p]["llm"] == built[p]["llm"] for p in again)
    assert [r["metrics"] for r in second] == [r["metrics"] for r in first]
    # a wrong key is one clear line
    env["YAKGWAN_LLM_API_KEY"] = "wrong"
    p = _cli(["eval", "--corpus", str(tmp_path / "kb"), "--tests", str(tests), "--pipeline", "fusion", "--no-cache"], env)
    assert p.returncode != 0 and "authentication failed" in p.stderr and "Traceback" not in p.stderr
