"""A deterministic fake chat model for unit tests: replies come from a script, never a model."""

from __future__ import annotations

import json
from typing import Any, Callable, Sequence

from yakgwan.core.errors import ProviderError
from yakgwan.llm.types import Completion, GenParams, Message

Reply = str | dict[str, Any] | list[Any]


class ScriptedProvider:
    """Answers from ``replies`` in order (a dict or list is sent as JSON text), or from
    ``responder(messages, schema)`` when given. Every call is recorded in ``calls``.

    Running out of replies raises, so a test notices an unexpected extra call.
    """

    provider = "scripted"
    supports_schema = True

    def __init__(
        self,
        replies: Sequence[Reply] = (),
        responder: Callable[[Sequence[Message], dict[str, Any] | None], Reply] | None = None,
        model: str = "script",
        finish_reason: str = "stop",
        option_scorer: Callable[[Sequence[Message], Sequence[str]], dict[str, float]] | None = None,
    ) -> None:
        if not replies and responder is None:
            raise ValueError("give replies or a responder")
        self.model = model
        self._replies = list(replies)
        self._responder = responder
        self._finish = finish_reason
        self._option_scorer = option_scorer
        self.supports_logprobs = option_scorer is not None
        self.calls: list[tuple[list[Message], dict[str, Any] | None]] = []

    def chat(self, messages: Sequence[Message], params: GenParams, schema: dict[str, Any] | None = None) -> Completion:
        self.calls.append((list(messages), schema))
        if self._responder is not None:
            reply = self._responder(messages, schema)
        elif self._replies:
            reply = self._replies.pop(0)
        else:
            raise ProviderError(f"scripted provider: no reply left for call {len(self.calls)}")
        text = reply if isinstance(reply, str) else json.dumps(reply, ensure_ascii=False)
        prompt_tokens = sum(len(m.content.split()) for m in messages)
        return Completion(text=text, finish_reason=self._finish, prompt_tokens=prompt_tokens, completion_tokens=len(text.split()))

    def option_logprobs(self, messages: Sequence[Message], options: Sequence[str]) -> Completion:
        """Log-probabilities from ``option_scorer(messages, options)``."""
        self.calls.append((list(messages), {"options": list(options)}))
        if self._option_scorer is None:
            raise ProviderError("scripted provider: no option_scorer given")
        return Completion(json.dumps(self._option_scorer(messages, options)), "logprobs", sum(len(m.content.split()) for m in messages))
