"""The scripted provider (the unit tests' fake chat model) passes the ChatProvider contract. It
replies from its script, so the decoding mixin (max_tokens, stop) does not apply to it; its
option log-probabilities come from its ``option_scorer``."""

from __future__ import annotations

from typing import Any, Sequence

import pytest
from chat_contract import ChatProviderContract, OptionScoresContract

from yakgwan.llm.scripted import ScriptedProvider
from yakgwan.llm.types import ChatProvider, Message


def _reply(messages: Sequence[Message], schema: dict[str, Any] | None) -> str | dict[str, Any]:
    if schema is not None:
        return {"keywords": ["항공기 지연", "호텔비"]}
    return "네, 해외여행 중 도난당한 휴대폰은 보상받을 수 있습니다."


@pytest.mark.unit
class TestScriptedProvider(ChatProviderContract, OptionScoresContract):
    def make_provider(self) -> ChatProvider:
        return ScriptedProvider(responder=_reply, option_scorer=lambda messages, options: {options[0]: -0.3, options[1]: -1.4})
