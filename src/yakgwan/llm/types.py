"""Chat messages, generation parameters, completions, and the provider protocol."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal, Protocol, Sequence, runtime_checkable

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str

    def as_dict(self) -> dict[str, str]:
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class GenParams:
    """Decoding parameters. Defaults are deterministic (greedy) so evaluations repeat."""

    temperature: float = 0.0
    max_tokens: int = 512
    seed: int = 0
    stop: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.max_tokens <= 0:
            raise ValueError(f"max_tokens must be > 0, got {self.max_tokens}")
        if not 0.0 <= self.temperature <= 2.0:
            raise ValueError(f"temperature must be in [0, 2], got {self.temperature}")

    def as_dict(self) -> dict[str, Any]:
        return {"temperature": self.temperature, "max_tokens": self.max_tokens, "seed": self.seed, "stop": list(self.stop)}


@dataclass(frozen=True)
class Completion:
    """One provider answer. ``finish_reason`` is "stop" when generation ended by itself and
    "length" when it hit ``max_tokens`` (a JSON answer cut there is not valid)."""

    text: str
    finish_reason: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    cached: bool = False


@runtime_checkable
class ChatProvider(Protocol):
    """A chat model. ``schema`` (a JSON schema) asks for constrained decoding where the
    provider supports it (``supports_schema``); others get the schema in the prompt only."""

    provider: str
    model: str
    supports_schema: bool

    def chat(self, messages: Sequence[Message], params: GenParams, schema: dict[str, Any] | None = None) -> Completion: ...


class OptionScorer(Protocol):
    """A chat model that can score its next token (``supports_logprobs`` is True): the
    log-probability of the first token of each option (e.g. "예" / "아니오") right after the
    messages, as a ``Completion`` whose ``text`` is a JSON object ``{option: logprob}`` and whose
    ``finish_reason`` is "logprobs". Used for pointwise relevance judgements without generating
    text."""

    supports_logprobs: bool

    def option_logprobs(self, messages: Sequence[Message], options: Sequence[str]) -> Completion: ...


@dataclass
class UsageStats:
    """LLM calls made through one ``LLM`` facade. Cache hits are counted apart, with what they
    cost when they were first made: their tokens, and their time where the cache recorded it
    (``cached_untimed`` counts hits cached before times were kept), so that a rerun from the
    cache still says what the answers cost."""

    calls: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    repairs: int = 0
    by_step: dict[str, int] = field(default_factory=dict)
    by_step_ms: dict[str, float] = field(default_factory=dict)
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    cached_ms: float = 0.0
    cached_untimed: int = 0

    def plus(self, other: "UsageStats") -> "UsageStats":
        """The usage of two facades together (eval's workers each have their own). Pure."""
        merged = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self) if f.name not in ("by_step", "by_step_ms")}
        by_step = {k: self.by_step.get(k, 0) + other.by_step.get(k, 0) for k in {*self.by_step, *other.by_step}}
        by_step_ms = {k: self.by_step_ms.get(k, 0.0) + other.by_step_ms.get(k, 0.0) for k in {*self.by_step_ms, *other.by_step_ms}}
        return UsageStats(**merged, by_step=by_step, by_step_ms=by_step_ms)

    def add(self, step: str, done: "Completion", ms: float) -> None:
        """Count one provider call of ``step`` that took ``ms`` milliseconds."""
        self.calls += 1
        self.prompt_tokens += done.prompt_tokens
        self.completion_tokens += done.completion_tokens
        self.latency_ms += ms
        step = step or "other"
        self.by_step[step] = self.by_step.get(step, 0) + 1
        self.by_step_ms[step] = self.by_step_ms.get(step, 0.0) + ms

    def hit(self, done: "Completion") -> None:
        """Count one answer from the cache, at the cost recorded with it (a recorded time is
        never 0: a real call takes some)."""
        self.cache_hits += 1
        self.cached_prompt_tokens += done.prompt_tokens
        self.cached_completion_tokens += done.completion_tokens
        if done.latency_ms > 0:
            self.cached_ms += done.latency_ms
        else:
            self.cached_untimed += 1

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "latency_ms": round(self.latency_ms, 1),
            "repairs": self.repairs,
            "by_step": dict(self.by_step),
            "by_step_ms": {k: round(v, 1) for k, v in self.by_step_ms.items()},
            "cached_prompt_tokens": self.cached_prompt_tokens,
            "cached_completion_tokens": self.cached_completion_tokens,
            "cached_ms": round(self.cached_ms, 1),
            "cached_untimed": self.cached_untimed,
        }
