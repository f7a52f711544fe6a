"""The contract every ``ChatProvider`` backend passes (``yakgwan.llm.types.ChatProvider``).

``ChatProviderContract``: a subclass names its backend in the provider registry (``REGISTERED``;
empty for the scripted fake, which is no configuration) and gives ``make_provider()`` (usually
``registered_provider``). ``DecodingContract`` adds the
decoding parameters a model honours (``GenParams.max_tokens`` ends the answer with
``finish_reason == "length"``, ``GenParams.stop`` ends it before the stop string); a provider that
replies from a script ignores them by design and leaves that mixin out. ``OptionScoresContract``
adds the ``OptionScorer`` protocol (next-token log-probabilities of given options).
"""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from yakgwan.llm.types import ChatProvider, Completion, GenParams, Message, OptionScorer

KEYWORDS_SCHEMA = {
    "type": "object",
    "properties": {"keywords": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3}},
    "required": ["keywords"],
    "additionalProperties": False,
}
ASK = [
    Message("system", "You are a helpful assistant. Answer briefly."),
    Message("user", "해외여행 중 휴대폰을 도난당하면 보상받을 수 있나요? 한 문장으로 답하세요."),
]
ASK_JSON = [
    Message("system", "Answer in JSON: up to three Korean search keywords for the user's question."),
    Message("user", "여행 중 항공기 지연으로 호텔비가 들었는데 보상되나요?"),
]
COUNT = [Message("user", "Write the numbers from 1 to 40 in order, separated by commas. Write nothing else.")]
JUDGE = [
    Message("system", "문단이 질문에 답하면 '예', 아니면 '아니오'로만 답하세요."),
    Message("user", "질문: 벌금은 얼마까지 보상하나요?\n문단: 회사는 벌금액을 2천만원 한도로 보상합니다."),
]
OPTIONS = ["예", "아니오"]


def registered_provider(name: str, cache_dir: Path, model: str | None = None, base_url: str | None = None, api_key: str | None = None) -> ChatProvider:
    """The provider ``yakgwan.llm.PROVIDERS`` makes for a configuration naming ``name``."""
    from yakgwan.llm import PROVIDERS, LLMConfig

    factory = PROVIDERS.get(name)
    assert factory is not None, f"no LLM provider {name!r} registered"
    return factory(LLMConfig(provider=name, model=model, base_url=base_url, api_key=api_key), cache_dir)


class ChatProviderContract:
    """Inherit and implement ``make_provider`` (or override the ``provider`` fixture)."""

    REGISTERED = ""

    def make_provider(self) -> ChatProvider:
        raise NotImplementedError

    @pytest.fixture()
    def provider(self) -> ChatProvider:
        return self.make_provider()

    def test_names_its_provider_and_model(self, provider: ChatProvider) -> None:
        assert isinstance(provider, ChatProvider)
        assert isinstance(provider.provider, str) and provider.provider
        assert isinstance(provider.model, str) and provider.model
        assert isinstance(provider.supports_schema, bool)

    def test_chat_returns_a_completion_with_its_token_usage(self, provider: ChatProvider) -> None:
        out = provider.chat(ASK, GenParams(max_tokens=64))
        assert isinstance(out, Completion)
        assert isinstance(out.text, str) and out.text.strip()
        assert out.finish_reason in ("stop", "length")
        assert isinstance(out.prompt_tokens, int) and out.prompt_tokens > 0
        assert isinstance(out.completion_tokens, int) and 0 < out.completion_tokens <= 64
        assert out.latency_ms >= 0.0 and out.cached is False

    def test_greedy_defaults_repeat_the_same_answer(self, provider: ChatProvider) -> None:
        first, second = provider.chat(ASK, GenParams(max_tokens=32)), provider.chat(ASK, GenParams(max_tokens=32))
        assert (first.text, first.finish_reason) == (second.text, second.finish_reason)

    def test_a_schema_gives_json_that_matches_it(self, provider: ChatProvider) -> None:
        if not provider.supports_schema:
            pytest.skip(f"{provider.provider} does not support constrained decoding (supports_schema is False)")
        out = provider.chat(ASK_JSON, GenParams(max_tokens=160), schema=KEYWORDS_SCHEMA)
        assert out.finish_reason == "stop", out
        jsonschema.validate(json.loads(out.text), KEYWORDS_SCHEMA)


class DecodingContract:
    """Mixin for providers backed by a model (or a server) that decodes."""

    def test_max_tokens_cuts_the_answer_and_says_so(self, provider: ChatProvider) -> None:
        out = provider.chat(COUNT, GenParams(max_tokens=4))
        assert out.finish_reason == "length"
        assert 0 < out.completion_tokens <= 4
        assert out.text.strip()

    def test_a_stop_string_ends_the_answer_before_it(self, provider: ChatProvider) -> None:
        free = provider.chat(COUNT, GenParams(max_tokens=48))
        assert "7" in free.text  # without the stop string the answer goes past it
        out = provider.chat(COUNT, GenParams(max_tokens=48, stop=("7",)))
        assert out.finish_reason == "stop"
        assert "7" not in out.text and out.text.strip()
        assert free.text.startswith(out.text.rstrip())
        assert out.completion_tokens < free.completion_tokens


class OptionScoresContract:
    """Mixin for providers that are also an ``OptionScorer`` (``supports_logprobs``): the
    log-probability of each option's first token as the next answer, without generating."""

    def test_scores_every_option_by_its_log_probability(self, provider: OptionScorer) -> None:
        assert provider.supports_logprobs is True
        out = provider.option_logprobs(JUDGE, OPTIONS)
        assert isinstance(out, Completion) and out.finish_reason == "logprobs"
        scores = json.loads(out.text)
        assert list(scores) == OPTIONS
        assert all(isinstance(v, float) and v <= 0.0 for v in scores.values()), scores
        assert out.prompt_tokens > 0 and out.completion_tokens == 0

    def test_option_scores_repeat(self, provider: OptionScorer) -> None:
        assert provider.option_logprobs(JUDGE, OPTIONS).text == provider.option_logprobs(JUDGE, OPTIONS).text
