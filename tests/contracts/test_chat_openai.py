"""The OpenAI-compatible chat provider, configured as a user would, against a loopback ``/v1/chat/completions`` server that
decodes like a model would (tokens are words; ``max_tokens``, ``stop`` and a JSON schema in
``response_format`` are honoured; a ``logprobs`` request gets top tokens), passes the ChatProvider contract. A parameter the provider
failed to send would change the stub's answer and fail the contract."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from chat_contract import ChatProviderContract, DecodingContract, OptionScoresContract, registered_provider
from stub_server import JsonHandler, serve

from yakgwan.llm.types import ChatProvider


def _answer(body: dict[str, Any]) -> str:
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    if "keywords" in schema.get("properties", {}):
        return json.dumps({"keywords": ["항공기 지연", "호텔비"]}, ensure_ascii=False)
    if "numbers from 1 to 40" in body["messages"][-1]["content"]:
        return ", ".join(str(i) for i in range(1, 41))
    return "네, 해외여행 중 도난당한 휴대폰은 보상받을 수 있습니다."


class _Chat(JsonHandler):
    def do_POST(self) -> None:  # noqa: N802
        body = self.body()
        if self.auth_or_embeddings(body, "key", 8):
            return
        if body.get("logprobs"):  # a one-token answer with the top tokens' log-probabilities
            top = [{"token": "예", "logprob": -0.3}, {"token": "아니", "logprob": -1.4}, {"token": "네", "logprob": -2.5}]
            return self.send_json(200, {"choices": [{"message": {"role": "assistant", "content": "예"}, "finish_reason": "length",
                                                     "logprobs": {"content": [{"token": "예", "logprob": -0.3, "top_logprobs": top}]}}],
                                        "usage": {"prompt_tokens": 12, "completion_tokens": 1}})
        text, finish = _answer(body), "stop"
        for stop in body.get("stop") or []:
            text = text.split(stop, 1)[0]
        words = text.split(" ")
        if len(words) > body["max_tokens"]:
            text, finish = " ".join(words[: body["max_tokens"]]), "length"
        prompt = sum(len(m["content"].split()) for m in body["messages"])
        self.send_json(200, {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": finish}],
                             "usage": {"prompt_tokens": prompt, "completion_tokens": len(text.split())}})


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    with serve(_Chat) as url:
        yield url


@pytest.mark.unit
class TestOpenAIChatProvider(ChatProviderContract, DecodingContract, OptionScoresContract):
    REGISTERED = "openai"

    @pytest.fixture()
    def provider(self, base_url: str, tmp_path: Path) -> ChatProvider:
        return registered_provider("openai", tmp_path, model="stub-chat", base_url=base_url, api_key="key")
