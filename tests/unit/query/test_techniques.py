"""Query-side techniques with the scripted LLM: safeguards, validation and fallbacks."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from yakgwan.services.context import open_context

from yakgwan.services.ingest import ingest
from yakgwan.config import EmbedderConfig, Settings
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.core.errors import UnknownName
from yakgwan.llm import LLM
from yakgwan.llm.cache import ResponseCache
from yakgwan.llm.scripted import ScriptedProvider
from yakgwan.pipelines import PIPELINES, build_pipeline, resolve_pipeline
from yakgwan.core.records import Chunk, Hit
from yakgwan.retrieval.hit_lists import pad_to_k
from yakgwan.retrieval.retrievers.multi_query import MultiQueryRetriever
from yakgwan.query.expander import QueryExpander
from yakgwan.query.hyde import HydeWriter
from yakgwan.rerank.listwise_llm import LLMListwiseReranker, apply_permutation
from yakgwan.text.registry import make_tokenizer

pytestmark = pytest.mark.unit
TOK = make_tokenizer("mecab")


def _chunk(i: int, text: str = "") -> Chunk:
    return Chunk(f"c{i}", f"d{i}", f"d{i}", "t", text or f"본문 {i}", 0, 1)


@dataclass
class FakeRetriever:
    lists: dict[str, list[int]]
    name: str = "fake"

    def retrieve(self, query: str, k: int) -> list[Hit]:
        ids = self.lists.get(query, [])
        return [Hit(_chunk(i), 1.0 / r, r, self.name) for r, i in enumerate(ids[:k], 1)]


def test_expander_keeps_original_first_and_drops_unrelated_rewrites() -> None:
    llm = LLM(ScriptedProvider([{"queries": ["벌금 특별약관 한도", "날씨 좋은 날", "벌금 특별약관 한도"]}]))
    qs = QueryExpander(llm, TOK, "multiquery", n=3).transform("벌금 보상 한도는?")
    assert qs == ["벌금 보상 한도는?", "벌금 특별약관 한도"]  # unrelated and duplicate dropped


def test_expander_without_llm_uses_labelled_keyword_rewrite() -> None:
    ex = QueryExpander(None, TOK, "rewrite")
    qs = ex.transform("비급여 치료비도 보상되나요?")
    assert qs[0] == "비급여 치료비도 보상되나요?" and "비급여" in qs[1].split()
    assert ex.fallback and "no LLM" in ex.fallback


def test_expander_survives_invalid_llm_output() -> None:
    ex = QueryExpander(LLM(ScriptedProvider(["garbage", "garbage"])), TOK, "rewrite")
    assert ex.transform("골절 진단비")[0] == "골절 진단비"
    assert ex.fallback and "LLM failed" in ex.fallback


def test_hyde_writer_modes_and_memo() -> None:
    p = ScriptedProvider(["회사는 음주운전 중 생긴 손해는\n 보상하지 않습니다.", "  "])
    w = HydeWriter(LLM(p), "clause")
    assert w("음주운전 사고도 보상되나요?") == w("음주운전 사고도 보상되나요?") == "회사는 음주운전 중 생긴 손해는 보상하지 않습니다."
    assert len(p.calls) == 1 and "약관 조항" in p.calls[0][0][0].content
    assert p.calls[0][1] is None  # free text: a passage cut at the token bound is still usable
    assert w("빈 답") == "빈 답" and w.fallback and "empty" in w.fallback
    assert HydeWriter(None)("질문") == "질문"


def test_apply_permutation_hand_examples() -> None:
    assert apply_permutation([3, 1, 2], 3) == ([2, 0, 1], 0)
    assert apply_permutation([2, 2, 9], 4) == ([1, 0, 2, 3], 2)  # repeat and out-of-range dropped
    assert apply_permutation([], 2) == ([0, 1], 0)


def test_listwise_rerank_reorders_and_validates() -> None:
    hits = [Hit(_chunk(i), 1.0, i + 1, "first") for i in range(4)]
    rr = LLMListwiseReranker(LLM(ScriptedProvider([{"order": [4, 2, 4, 7]}])), top_n=4)
    out = rr.rerank("q", hits, 4)
    assert [h.chunk.chunk_id for h in out] == ["c3", "c1", "c0", "c2"]
    assert [h.rank for h in out] == [1, 2, 3, 4] and len(rr.warnings) == 1
    failed = LLMListwiseReranker(LLM(ScriptedProvider(["x", "y"])), top_n=4).rerank("q", hits, 4)
    assert [h.chunk.chunk_id for h in failed] == ["c0", "c1", "c2", "c3"] and "failed" in failed[0].produced_by
    assert out[0].produced_by == "rerank_llm"
    # the model copied the numbers as listed: the hits say the order is unchanged
    kept = LLMListwiseReranker(LLM(ScriptedProvider([{"order": [1, 2, 3, 4]}])), top_n=4).rerank("q", hits, 4)
    assert [h.chunk.chunk_id for h in kept] == ["c0", "c1", "c2", "c3"] and kept[0].produced_by == "rerank_llm(order unchanged)"


def test_multiquery_rrf_keeps_original_and_pads() -> None:
    base = FakeRetriever({"q": [1, 2, 3], "v": [3, 4]})

    class T:
        def transform(self, query: str) -> list[str]:
            return [query, "v"]

    hits = MultiQueryRetriever("fusion", base, T(), merge="rrf").retrieve("q", 3)
    # c3: 1/63 + 1/61 > c1: 1/61 > c2: 1/62
    assert [h.chunk.chunk_id for h in hits] == ["c3", "c1", "c2"]
    padded = pad_to_k([hits[0]], hits, 3, "x")
    assert len(padded) == 3 and padded[1].produced_by == "x(padded)"


def test_composed_names_and_errors() -> None:
    assert resolve_pipeline("expansion+rerank_llm").name == "expansion+rerank_llm"
    with pytest.raises(UnknownName, match="pipeline step .bogus.; available: compress, crag, late, llm_chunk, preprocess, rerank_llm, rerank_yesno"):
        resolve_pipeline("hyde+bogus")
    assert {"rewrite", "multiquery", "fusion", "expansion", "hyde", "reverse_hyde", "hybrid_hyde", "rerank_llm"} <= set(PIPELINES)


def test_every_llm_pipeline_runs_end_to_end_with_scripted_llm(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "a.md").write_text("# 벌금\n\n벌금 특별약관은 벌금액을 2천만원 한도로 보상합니다.", "utf-8")
    (kb / "b.md").write_text("# 골절\n\n골절 진단을 받으면 골절진단비를 지급합니다.", "utf-8")
    (kb / "c.md").write_text("# 환불\n\n출발 30일 전 취소 시 전액 환불합니다.", "utf-8")
    s = Settings(index_dir=tmp_path / "i", cache_dir=tmp_path / "c", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    ingest(s, [kb], embedder=HashingEmbedder())

    def responder(messages, schema):  # type: ignore[no-untyped-def]
        props = (schema or {}).get("properties", {})
        if "order" in props:
            return {"order": [2, 1]}
        if "passage" in props:
            return {"passage": "벌금 특별약관은 확정판결로 정해진 벌금액을 보상합니다."}
        if "scores" in props:
            return {"scores": [5, 1, 1][: props["scores"]["minItems"]]}
        if "questions" in props:
            return {"questions": ["벌금 특별약관 보상 한도"]}
        if "enough" in props:
            return {"enough": True, "query": ""}
        if "yes" in props:
            return {"yes": True}
        if "tool" in props:
            return {"tool": "finish", "input": ""}
        return {"queries": ["벌금 특별약관 보상 한도"]}

    cache = ResponseCache(tmp_path / "llm.sqlite")
    names = ["rewrite", "multiquery", "fusion", "expansion", "hyde", "reverse_hyde", "hybrid_hyde", "rerank_llm", "fusion+rerank_llm"]
    for name in [*names, "rerank_yesno", "compress", "hyde+rerank_yesno", "crag", "fusion+crag", "multihop", "self_rag", "agentic", "raptor"]:
        ctx = open_context(s, embedder=HashingEmbedder())
        llm = LLM(ScriptedProvider(responder=responder, option_scorer=lambda m, o: {"예": -1.0, "아니오": -0.5}), cache=cache)
        ctx.make_llm = lambda llm=llm: llm
        retriever, note = build_pipeline(name, ctx)
        hits = retriever.retrieve("벌금 보상 한도는?", 3)
        assert note is None and len(hits) == 3, name
        assert {h.chunk.doc_id for h in hits} == {"a.md", "b.md", "c.md"}
        if name in names:  # the gate and one-sentence chunks may leave the other steps nothing to ask
            assert llm.stats.calls + llm.stats.cache_hits >= 1, name
    # a rerun is served from the cache: identical hits, zero calls
    ctx = open_context(s, embedder=HashingEmbedder())
    llm = LLM(ScriptedProvider(responder=responder), cache=cache)
    ctx.make_llm = lambda: llm
    again = build_pipeline("fusion", ctx)[0].retrieve("벌금 보상 한도는?", 3)
    assert llm.stats.calls == 0 and llm.stats.cache_hits == 1 and again[0].chunk.doc_id == "a.md"


def test_sentence_spans_and_compression_keeps_verbatim_spans() -> None:
    from yakgwan.retrieval.retrievers.compress import Compressor
    from yakgwan.text.sentences import sentence_spans

    text = "회사는 벌금액을 보상합니다. 다만 고의 사고는 제외합니다.\n청구서는 회사 양식입니다."
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == ["회사는 벌금액을 보상합니다.", "다만 고의 사고는 제외합니다.", "청구서는 회사 양식입니다."]
    hit = Hit(Chunk("c", "d", "d", "t", text, 0, len(text)), 1.0, 1, "hybrid_cc")
    llm_hit = Compressor(LLM(ScriptedProvider([{"keep": [2, 9]}])), TOK).compress("고의 사고도 보상되나요?", hit)
    assert llm_hit.evidence == (spans[1],) and llm_hit.evidence_text == "다만 고의 사고는 제외합니다."
    plain = Compressor(None, TOK).compress("청구서 양식", hit)
    assert plain.evidence_text == "청구서는 회사 양식입니다." and "no LLM" in plain.produced_by
    assert Compressor(None, TOK).compress("날씨", hit).evidence  # never empty


def test_stage_breakdown_hand_computed() -> None:
    from yakgwan.eval.runner import stage_breakdown

    # two queries: 10 ms (4 of them in the LLM) and 20 ms (a cache hit: no LLM time)
    out = stage_breakdown([10.0, 20.0], [4.0, 0.0], {"rewrite": 4.0})
    assert out == {"total": 15.0, "llm": 2.0, "retrieval": 13.0, "llm:rewrite": 2.0}


def test_gate_reads_the_relative_gap() -> None:
    from yakgwan.rerank.yesno import first_stage_is_close

    assert first_stage_is_close([1.0, 0.97], 0.05)  # 3% apart
    assert not first_stage_is_close([1.0, 0.90], 0.05)  # 10% apart
    assert first_stage_is_close([1 / 61, 1 / 62], 0.05)  # RRF scale: 1.6% apart
    assert not first_stage_is_close([1.0], 0.05) and first_stage_is_close([0.0, 0.0], 0.05)


def test_gated_pointwise_rerank() -> None:
    from yakgwan.rerank.yesno import GatedPointwiseReranker

    p_yes = {"t0": -3.0, "t1": -0.1, "t2": -0.1, "t3": 0.0}  # log P(예); 아니오 fixed at -1

    def scorer(msgs, opts):  # type: ignore[no-untyped-def]
        text = msgs[-1].content
        key = next(k for k in p_yes if f"문단: {k}" in text)
        return {"예": p_yes[key], "아니오": -1.0}

    def hits(scores: list[float]) -> list[Hit]:
        return [Hit(_chunk(i, f"t{i}"), s, i + 1, "first") for i, s in enumerate(scores)]

    provider = ScriptedProvider(["unused"], option_scorer=scorer)
    rr = GatedPointwiseReranker(LLM(provider), top_m=3, margin=0.05)
    close = rr.rerank("q", hits([1.0, 0.98, 0.5, 0.4]), 4)
    # top 3 judged: t1 and t2 tie on P(yes) and keep their first-stage order; t0 last; c3 untouched
    assert [h.chunk.chunk_id for h in close] == ["c1", "c2", "c0", "c3"]
    assert [h.rank for h in close] == [1, 2, 3, 4] and close[0].produced_by == "rerank_yesno"
    assert 0.0 < close[2].components["p_yes"] < close[0].components["p_yes"] < 1.0
    assert len(provider.calls) == 3
    sure = rr.rerank("q", hits([1.0, 0.5, 0.4]), 2)
    assert [h.chunk.chunk_id for h in sure] == ["c0", "c1"] and "gate closed" in sure[0].produced_by
    assert len(provider.calls) == 3 and (rr.queries, rr.gated) == (2, 1)
    from yakgwan.core.records import Hit as H

    kept = [H(h.chunk, h.score, h.rank, h.produced_by, evidence=((0, 1),)) for h in hits([1.0, 0.99])]
    assert all(h.evidence == ((0, 1),) for h in rr.rerank("q", kept, 2))  # compression spans survive the rerank
    failing = GatedPointwiseReranker(LLM(ScriptedProvider(["unused"], option_scorer=lambda m, o: {"예": None, "아니오": None})))
    failed = failing.rerank("q", hits([1.0, 0.99, 0.98]), 3)
    assert [h.chunk.chunk_id for h in failed] == ["c0", "c1", "c2"] and "failed" in failed[0].produced_by
    none = GatedPointwiseReranker(None).rerank("q", hits([1.0, 1.0]), 2)
    assert [h.chunk.chunk_id for h in none] == ["c0", "c1"] and "no LLM" in none[0].produced_by
    blind = ScriptedProvider(["unused"])  # a model without log-probabilities (YAKGWAN_LLM_LOGPROBS=0)
    kept_order = GatedPointwiseReranker(LLM(blind)).rerank("q", hits([1.0, 0.99, 0.98]), 3)
    assert [h.chunk.chunk_id for h in kept_order] == ["c0", "c1", "c2"] and "no log-probabilities" in kept_order[0].produced_by and not blind.calls
