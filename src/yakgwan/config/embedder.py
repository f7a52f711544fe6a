"""Which embedder turns chunks and queries into vectors (``yakgwan.embedders`` builds it)."""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.config.variables import EnvVar, env_field


@dataclass(frozen=True)
class EmbedderConfig:
    """``name`` is an ``EMBEDDERS`` registry name, checked when the embedder is built; the other
    fields are for ``openai`` (any OpenAI-compatible endpoint)."""

    name: str = env_field(EnvVar(
        "YAKGWAN_EMBEDDER",
        "`e5-small`: the bundled multilingual-e5-small weights on the fast numpy engine; "
        "`e5-small-int8`: the same weights as an int8 onnxruntime graph, about 3 times faster, cosine ≥ 0.999 "
        "to `e5-small` (needs the `onnx` extra); `e5-small-native`: the same weights on their own C runtime; `openai`: an OpenAI-compatible "
        "endpoint; `hashing`: a deterministic test fake",
        choices="embedder",
    ), "e5-small")
    base_url: str | None = env_field(EnvVar(
        "YAKGWAN_EMBED_BASE_URL", "for `openai`: the endpoint (needed)", values="a URL, e.g. `http://127.0.0.1:8080/v1`",
    ), None)
    model: str | None = env_field(EnvVar("YAKGWAN_EMBED_MODEL", "for `openai`: the model name (needed)", values="a model name"), None)
    api_key: str | None = env_field(EnvVar(
        "YAKGWAN_EMBED_API_KEY", "for `openai`: the key (never stored in the index)", values="a key",
    ), None, repr=False)
