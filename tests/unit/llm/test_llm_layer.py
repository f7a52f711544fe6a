"""The LLM layer: structured output with validation and one repair, the response cache, and the
OpenAI-compatible provider against a local stub server (success, 401, timeout, 429)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from pydantic import BaseModel, Field
from stub_server import JsonHandler, serve

from yakgwan.core.errors import ProviderError, UnknownName, YakgwanError
from yakgwan.llm import LLM, LLMConfig, GenParams, Message, StructuredOutputError, make_llm
from yakgwan.llm.cache import ResponseCache
from yakgwan.llm.openai_chat import OpenAIChatProvider
from yakgwan.llm.scripted import ScriptedProvider
from yakgwan.config import env as config_env

pytestmark = pytest.mark.unit


class Rewrites(BaseModel):
    queries: list[str] = Field(min_length=1, max_length=3)


Q = [Message("user", "비급여 치료비 보상 여부")]


def test_text_completion_and_usage() -> None:
    llm = LLM(ScriptedProvider(["안녕하세요"]))
    assert llm.complete(Q, step="rewrite") == "안녕하세요"
    assert llm.stats.calls == 1 and llm.stats.by_step == {"rewrite": 1}


def test_structured_output_validated_and_schema_sent() -> None:
    p = ScriptedProvider([{"queries": ["비급여 보상", "비급여 치료비"]}])
    out = LLM(p).complete(Q, schema=Rewrites)
    assert out == Rewrites(queries=["비급여 보상", "비급여 치료비"])
    messages, schema = p.calls[0]
    assert schema is not None and schema["properties"]["queries"]["maxItems"] == 3
    assert "JSON schema" in messages[0].content  # the schema is also in the prompt


def test_one_repair_then_success() -> None:
    p = ScriptedProvider(['{"queries": []}', '{"queries": ["보상"]}'])
    llm = LLM(p)
    assert llm.complete(Q, schema=Rewrites).queries == ["보상"]
    assert llm.stats.repairs == 1 and llm.stats.calls == 2
    repair_msg = p.calls[1][0][-1].content
    assert "queries" in repair_msg and "not valid" in repair_msg


def test_two_failures_raise_typed_error() -> None:
    llm = LLM(ScriptedProvider(["not json", "still not json"]))
    with pytest.raises(StructuredOutputError) as e:
        llm.complete(Q, schema=Rewrites)
    assert e.value.schema_name == "Rewrites" and e.value.raw == "still not json"


def test_cut_off_json_counts_as_invalid() -> None:
    llm = LLM(ScriptedProvider(['{"queries": ["a"]}'] * 2, finish_reason="length"))
    with pytest.raises(StructuredOutputError, match="cut off"):
        llm.complete(Q, schema=Rewrites)


def test_a_caller_may_decline_the_repair_of_a_cut_off_answer() -> None:
    p = ScriptedProvider(['{"queries": ["a"'] * 2, finish_reason="length")
    llm = LLM(p)
    with pytest.raises(StructuredOutputError) as e:
        llm.complete(Q, schema=Rewrites, repair_cut_off=False)
    assert e.value.cut_off and len(p.calls) == 1 and llm.stats.repairs == 0
    # an answer that is invalid but complete is still repaired
    p = ScriptedProvider(['{"queries": []}', '{"queries": ["보상"]}'])
    llm = LLM(p)
    assert llm.complete(Q, schema=Rewrites, repair_cut_off=False).queries == ["보상"]
    assert len(p.calls) == 2 and llm.stats.repairs == 1


def test_cache_makes_reruns_identical_and_free(tmp_path: Path) -> None:
    counter = {"n": 0}

    def responder(messages, schema):  # type: ignore[no-untyped-def]
        counter["n"] += 1
        return f"answer {counter['n']}"

    cache = ResponseCache(tmp_path / "r.sqlite")
    first = LLM(ScriptedProvider(responder=responder), cache=cache)
    a = first.complete(Q)
    second = LLM(ScriptedProvider(responder=responder), cache=ResponseCache(tmp_path / "r.sqlite"))
    assert second.complete(Q) == a == "answer 1"
    assert second.stats.calls == 0 and second.stats.cache_hits == 1
    # different parameters are a different request
    assert second.complete(Q, params=GenParams(max_tokens=7)) == "answer 2"


def test_a_cache_hit_reports_what_the_call_cost_when_it_was_made(tmp_path: Path) -> None:
    import json
    import sqlite3

    first = LLM(ScriptedProvider(["answer 1"]), cache=ResponseCache(tmp_path / "r.sqlite"))
    first.complete(Q)
    made = first.stats
    assert made.calls == 1 and made.latency_ms > 0 and made.cache_hits == 0
    again = LLM(ScriptedProvider(["unused"]), cache=ResponseCache(tmp_path / "r.sqlite"))
    assert again.complete(Q) == "answer 1" and again.stats.calls == 0 and again.stats.latency_ms == 0.0
    got = again.stats.as_dict()
    assert got["cache_hits"] == 1 and got["cached_untimed"] == 0
    assert got["cached_ms"] == pytest.approx(made.latency_ms, abs=0.1)  # the time recorded with the answer
    assert (got["cached_prompt_tokens"], got["cached_completion_tokens"]) == (made.prompt_tokens, made.completion_tokens)
    # an answer cached before times were kept is counted as untimed, not as free
    with sqlite3.connect(tmp_path / "r.sqlite") as db:
        (data,) = db.execute("SELECT data FROM resp").fetchone()
        old = {k: v for k, v in json.loads(data).items() if k != "latency_ms"}
        db.execute("UPDATE resp SET data=?", (json.dumps(old),))
    third = LLM(ScriptedProvider(["unused"]), cache=ResponseCache(tmp_path / "r.sqlite"))
    third.complete(Q)
    assert third.stats.cached_untimed == 1 and third.stats.cached_ms == 0.0 and third.stats.cache_hits == 1


def test_registry_names_available() -> None:
    assert make_llm(LLMConfig(provider="none"), Path("/nonexistent")) is None
    with pytest.raises(UnknownName, match="available: local, none, openai"):
        make_llm(LLMConfig(provider="gpt5"), Path("/nonexistent"))


def test_logprobs_switch_from_the_environment() -> None:
    env = {"YAKGWAN_LLM": "openai", "YAKGWAN_LLM_BASE_URL": "http://127.0.0.1:9/v1", "YAKGWAN_LLM_MODEL": "m"}
    assert config_env.llm(env).logprobs is True
    off = config_env.llm({**env, "YAKGWAN_LLM_LOGPROBS": "0"})
    assert off.logprobs is False and make_llm(off, Path("/nonexistent")).supports_logprobs is False  # type: ignore[union-attr]
    with pytest.raises(YakgwanError, match="YAKGWAN_LLM_LOGPROBS must be 1 or 0"):
        config_env.llm({**env, "YAKGWAN_LLM_LOGPROBS": "maybe"})


class _Chat(JsonHandler):
    def do_POST(self) -> None:  # noqa: N802
        body = self.body()
        if self.headers.get("Authorization") != "Bearer good":
            return self.send_json(401, {"error": {"message": "bad key"}})
        mode = body["messages"][-1]["content"]
        if mode == "slow":
            time.sleep(1.5)
        if mode == "busy":
            return self.send_json(429, {"error": {"message": "quota"}})
        content = json.dumps({"queries": ["보상"]}) if "response_format" in body else f"echo:{mode}"
        choice: dict = {"message": {"content": content}, "finish_reason": "stop"}
        if body.get("logprobs"):
            assert body["max_tokens"] == 1 and body["top_logprobs"] == 20
            top = [{"token": "예", "logprob": -0.2231}, {"token": " 아니", "logprob": -1.6094}, {"token": "네", "logprob": -4.0}]
            picked = {"odd": top[2:], "no-only": top[1:]}.get(mode, top)
            choice["logprobs"] = {"content": [{"token": "예", "logprob": -0.2231, "top_logprobs": picked}]}
        self.send_json(200, {"choices": [choice], "usage": {"prompt_tokens": 5, "completion_tokens": 3}})


@pytest.fixture()
def endpoint():  # type: ignore[no-untyped-def]
    with serve(_Chat) as url:
        yield url


def test_openai_chat_text_and_schema(endpoint: str) -> None:
    llm = LLM(OpenAIChatProvider(endpoint, "m", api_key="good", retries=0))
    assert llm.complete([Message("user", "hi")]) == "echo:hi"
    assert llm.complete([Message("user", "q")], schema=Rewrites).queries == ["보상"]
    assert llm.stats.prompt_tokens == 10 and llm.stats.completion_tokens == 6


def test_openai_chat_auth_error(endpoint: str) -> None:
    with pytest.raises(ProviderError, match="authentication failed"):
        OpenAIChatProvider(endpoint, "m", api_key="bad", retries=2).chat([Message("user", "hi")], GenParams())


def test_openai_chat_timeout(endpoint: str) -> None:
    p = OpenAIChatProvider(endpoint, "m", api_key="good", timeout_s=0.3, retries=1)
    t0 = time.perf_counter()
    with pytest.raises(ProviderError, match="timed out after 2 tries"):
        p.chat([Message("user", "slow")], GenParams())
    assert time.perf_counter() - t0 < 5


def test_openai_chat_quota(endpoint: str) -> None:
    with pytest.raises(ProviderError, match="quota"):
        OpenAIChatProvider(endpoint, "m", api_key="good", retries=1).chat([Message("user", "busy")], GenParams())


def test_cut_off_answers_are_cached_too(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path / "r.sqlite")
    first = LLM(ScriptedProvider(['{"queries": ["a"', '{"queries": ["a"'], finish_reason="length"), cache=cache)
    with pytest.raises(StructuredOutputError):
        first.complete(Q, schema=Rewrites)
    again = LLM(ScriptedProvider(["unused"]), cache=cache)
    with pytest.raises(StructuredOutputError, match="cut off"):
        again.complete(Q, schema=Rewrites)
    assert again.stats.calls == 0 and again.stats.cache_hits == 2


def test_softmax_hand_computed() -> None:
    from yakgwan.llm.facade import softmax

    # ln 0.8 = -0.2231, ln 0.2 = -1.6094  ->  0.8 / 0.2
    assert softmax([-0.2231436, -1.6094379]) == pytest.approx([0.8, 0.2], abs=1e-6)
    assert softmax([1000.0, 1000.0]) == [0.5, 0.5]  # shifted by the maximum: no overflow


def test_option_probs_normalised_cached_and_counted(tmp_path: Path) -> None:
    p = ScriptedProvider(["unused"], option_scorer=lambda msgs, opts: {"예": -0.5, "아니오": -2.0})
    llm = LLM(p, cache=ResponseCache(tmp_path / "c.sqlite"))
    probs = llm.option_probs(Q, ["예", "아니오"], step="rerank_yesno")
    e = 2.718281828459045
    assert probs["예"] == pytest.approx(e ** -0.5 / (e ** -0.5 + e ** -2.0))
    assert sum(probs.values()) == pytest.approx(1.0)
    assert llm.option_probs(Q, ["예", "아니오"]) == probs and len(p.calls) == 1  # second time from the cache
    assert llm.stats.calls == 1 and llm.stats.cache_hits == 1 and llm.stats.by_step == {"rerank_yesno": 1}
    with pytest.raises(ValueError, match="distinct"):
        llm.option_probs(Q, ["예", "예"])


def test_option_probs_need_a_provider_with_logprobs() -> None:
    class TextOnly:
        provider, model, supports_schema, supports_logprobs = "plain", "m", False, False

        def chat(self, messages, params, schema=None):  # type: ignore[no-untyped-def]
            raise AssertionError("not called")

    with pytest.raises(ProviderError, match="no token log-probabilities"):
        LLM(TextOnly()).option_probs(Q, ["예", "아니오"])


def test_openai_option_logprobs(endpoint: str) -> None:
    llm = LLM(OpenAIChatProvider(endpoint, "m", api_key="good", retries=0))
    probs = llm.option_probs([Message("user", "q")], ["예", "아니오"])
    assert probs["예"] == pytest.approx(0.8, abs=1e-4)  # 0.8 vs 0.2 from the two top log-probabilities
    # only "아니" among the top tokens: "예" gets the floor
    only_no = llm.option_probs([Message("user", "no-only")], ["예", "아니오"])
    assert only_no["아니오"] == pytest.approx(1.0)
    # neither option among the top tokens: no preference can be read, a typed error says so
    with pytest.raises(StructuredOutputError, match="not among the model's top tokens"):
        llm.option_probs([Message("user", "odd")], ["예", "아니오"])
