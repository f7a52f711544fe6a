"""Which embedder turns chunks and queries into vectors (``yakgwan.embedders`` builds it)."""

from __future__ import annotations

from dataclasses import dataclass

from yakgwan.config.variables import EnvVar, env_field


# the bundled e5 weights as int8 onnxruntime (``yakgwan.embedders.e5_onnx`` says why it is the default)
DEFAULT_EMBEDDER = "e5-small-int8"


@dataclass(frozen=True)
class EmbedderConfig:
    """``name`` is an ``EMBEDDERS`` registry name, checked when the embedder is built; the other
    fields are for ``openai`` (any OpenAI-compatible endpoint)."""

    name: str = env_field(EnvVar(
        "YAKGWAN_EMBEDDER",
        "`e5-small-int8`: the bundled multilingual-e5-small weights as an int8 onnxruntime graph; "
        "`e5-small`: the same weights in float32 numpy, about 3 times slower, cosine ≥ 0.999 to int8's; "
        "`e5-small-native`: the same weights on their own C runtime; `openai`: an OpenAI-compatible "
        "endpoint; `hashing`: a deterministic test fake",
        choices="embedder",
    ), DEFAULT_EMBEDDER)
    base_url: str | None = env_field(EnvVar(
        "YAKGWAN_EMBED_BASE_URL", "for `openai`: the endpoint (needed)", values="a URL, e.g. `http://127.0.0.1:8080/v1`",
    ), None)
    model: str | None = env_field(EnvVar("YAKGWAN_EMBED_MODEL", "for `openai`: the model name (needed)", values="a model name"), None)
    api_key: str | None = env_field(EnvVar(
        "YAKGWAN_EMBED_API_KEY", "for `openai`: the key (never stored in the index)", values="a key",
    ), None, repr=False)
