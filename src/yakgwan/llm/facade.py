"""``LLM``: the one object techniques call. ``complete(messages, schema=None)`` returns text, or
a validated Pydantic object when ``schema`` (a Pydantic model class) is given.

Structured output: the JSON schema goes to the provider for constrained decoding where it is
supported and into the prompt always; the answer is validated with Pydantic; one repair retry
sends the validation error back; a second failure raises ``StructuredOutputError``. A JSON
answer cut off by the token limit (finish_reason "length") counts as invalid; a caller with a
better remedy for it than asking the same again (``llm_chunk`` asks for half the text) passes
``repair_cut_off=False`` and gets the error at once. Responses (cut-off
ones included) are cached by request, so reruns are identical and cost nothing.
"""

from __future__ import annotations

import dataclasses
import json
import math
import time
from typing import Any, Callable, Sequence, TypeVar, overload

from pydantic import BaseModel, ValidationError

from yakgwan.core.errors import ProviderError
from yakgwan.messages import msg
from yakgwan.llm.cache import ResponseCache, request_key
from yakgwan.llm.types import ChatProvider, Completion, GenParams, Message, OptionScorer, UsageStats

T = TypeVar("T", bound=BaseModel)


CUT_OFF = "the answer was cut off at the token limit"


class StructuredOutputError(ProviderError):
    """The model did not produce output matching the schema, even after one repair."""

    def __init__(self, schema_name: str, reason: str, raw: str) -> None:
        self.schema_name, self.reason, self.raw = schema_name, reason, raw
        super().__init__(f"model output does not match {schema_name}: {reason}")

    def __reduce__(self) -> tuple[type, tuple[str, str, str]]:
        return (type(self), (self.schema_name, self.reason, self.raw))

    @property
    def cut_off(self) -> bool:
        """The (last) answer ran into the token limit: a smaller request may fit."""
        return self.reason == CUT_OFF


class LLM:
    def __init__(self, provider: ChatProvider, cache: ResponseCache | None = None, params: GenParams | None = None) -> None:
        self.provider = provider
        self.cache = cache
        self.params = params or GenParams()
        self.stats = UsageStats()

    @property
    def name(self) -> str:
        return f"{self.provider.provider}:{self.provider.model}"

    @property
    def supports_logprobs(self) -> bool:
        """Whether :meth:`option_probs` can work with this provider."""
        return bool(getattr(self.provider, "supports_logprobs", False))

    @overload
    def complete(self, messages: Sequence[Message], schema: None = None, params: GenParams | None = None, step: str = "", *, repair_cut_off: bool = True) -> str: ...

    @overload
    def complete(self, messages: Sequence[Message], schema: type[T], params: GenParams | None = None, step: str = "", *, repair_cut_off: bool = True) -> T: ...

    def complete(self, messages, schema=None, params=None, step="", *, repair_cut_off=True):  # type: ignore[no-untyped-def]
        params = params or self.params
        if schema is None:
            return self._call(messages, None, params, step).text
        json_schema = schema.model_json_schema()
        msgs = _with_schema_instruction(messages, json_schema)
        done = self._call(msgs, json_schema, params, step)
        try:
            return _validate(schema, done)
        except StructuredOutputError as first:
            if first.cut_off and not repair_cut_off:
                raise
            self.stats.repairs += 1
            repair = [*msgs, Message("assistant", done.text), Message("user", _repair_prompt(first.reason))]
            again = self._call(repair, json_schema, params, step)
            return _validate(schema, again)

    def option_probs(self, messages: Sequence[Message], options: Sequence[str], step: str = "") -> dict[str, float]:
        """Probability of each option as the model's next answer, normalised over ``options``
        (their first tokens must differ). Needs a provider with log-probabilities
        (:class:`OptionScorer`); cached like ``complete``."""
        if len(options) < 2 or len(set(options)) != len(options):
            raise ValueError(f"options must be at least two distinct strings, got {options!r}")
        if not self.supports_logprobs:
            raise ProviderError(msg("llm.no_logprobs", name=self.name))
        scorer: OptionScorer = self.provider  # type: ignore[assignment]
        key_params = GenParams(max_tokens=1)
        done = self._call(messages, {"options": list(options)}, key_params, step, lambda: scorer.option_logprobs(messages, options))
        try:
            logprobs = json.loads(done.text)
            values = [logprobs[o] for o in options]
        except (ValueError, KeyError, TypeError) as exc:
            raise StructuredOutputError("option scores", f"not usable ({exc!r})", done.text) from None
        if any(v is None for v in values):
            # an endpoint whose top tokens held no option: no preference can be read from it
            missing = [o for o, v in zip(options, values) if v is None]
            raise StructuredOutputError("option scores", f"options {missing} not among the model's top tokens", done.text)
        return dict(zip(options, softmax([float(v) for v in values])))

    def _call(
        self,
        messages: Sequence[Message],
        schema: dict[str, Any] | None,
        params: GenParams,
        step: str,
        ask: Callable[[], Completion] | None = None,
    ) -> Completion:
        key = request_key(self.provider.provider, self.provider.model, messages, schema, params)
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                self.stats.hit(hit)
                return hit
        t0 = time.perf_counter()
        if ask is not None:
            done = ask()
        else:
            done = self.provider.chat(messages, params, schema if self.provider.supports_schema else None)
        ms = (time.perf_counter() - t0) * 1000
        self.stats.add(step, done, ms)
        done = dataclasses.replace(done, latency_ms=ms)  # the time the cache records with it
        if self.cache is not None:
            # cut-off answers too: decoding is deterministic, so a rerun must see the same
            # failure (and fallback) instead of paying for it again
            self.cache.put(key, done)
        return done


def softmax(logprobs: Sequence[float]) -> list[float]:
    """exp(x_i) / sum_j exp(x_j), computed stably (shifted by the maximum)."""
    top = max(logprobs)
    exps = [math.exp(x - top) for x in logprobs]
    total = sum(exps)
    return [e / total for e in exps]


def _with_schema_instruction(messages: Sequence[Message], schema: dict[str, Any]) -> list[Message]:
    note = "Answer with one JSON object only, matching this JSON schema:\n" + json.dumps(schema, ensure_ascii=False)
    msgs = list(messages)
    if msgs and msgs[0].role == "system":
        return [Message("system", msgs[0].content + "\n\n" + note), *msgs[1:]]
    return [Message("system", note), *msgs]


def _validate(schema: type[T], done: Completion) -> T:
    if done.finish_reason == "length":
        raise StructuredOutputError(schema.__name__, CUT_OFF, done.text)
    text = done.text.strip()
    if text.startswith("```"):
        text = text.strip("`").removeprefix("json").strip()
    try:
        return schema.model_validate_json(text)
    except ValidationError as exc:
        errors = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in exc.errors()[:5])
        raise StructuredOutputError(schema.__name__, errors, done.text) from None


def _repair_prompt(reason: str) -> str:
    return f"That answer is not valid: {reason}. Reply again with only the corrected JSON object."
