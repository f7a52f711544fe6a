"""LLM ingest steps: LLM chunking (verbatim originals, fallbacks) and pre-processing, with the
scripted provider; how an index remembers them; and the eval pipelines built on them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from yakgwan.services.context import open_context

from yakgwan.services.ingest import ingest
from yakgwan.config import EmbedderConfig, Settings
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.core.errors import ProviderError, UnknownName, YakgwanError
from yakgwan.ingest.indexing import index_text
from yakgwan.llm import LLM
from yakgwan.llm.scripted import ScriptedProvider
from yakgwan.llm.types import Completion
from yakgwan.pipelines import build_pipeline
from yakgwan.core.records import Document
from yakgwan.store import open_store
from yakgwan.ingest.steps.registry import canonical_steps
from yakgwan.ingest.steps.fallbacks import fallback_lines, left_as_was, left_as_was_head
from yakgwan.ingest.steps.llm_chunk import LLMChunker, halves, section_spans, sentence_windows
from yakgwan.ingest.steps.preprocess import Preprocessor
from yakgwan.llm.prompts.ingest import Section, Sections, cut_at_word
from yakgwan.messages import msg

pytestmark = pytest.mark.unit

TEXT = "벌금 특별약관은 벌금을 보상합니다. 한도는 2천만원입니다.\n골절 진단 시 골절진단비를 지급합니다. 치아 파절은 제외합니다."


def _doc(text: str = TEXT) -> Document:
    return Document("a.md", "a.md", "a", text, "markdown", "h")


def _sec(first: int, head: str = "제목") -> Section:
    return Section(first=first, headline=head, summary=f"{head} 요약")


def test_sentence_windows_hand_example() -> None:
    spans = [(0, 10), (11, 20), (21, 40), (41, 90)]
    assert sentence_windows(spans, 20) == [[(0, 10), (11, 20)], [(21, 40)], [(41, 90)]]
    assert sentence_windows(spans, 1000) == [spans]


def test_section_spans_from_start_numbers() -> None:
    window = [(0, 5), (6, 10), (11, 15), (16, 20)]
    out = section_spans(window, [_sec(3, "b"), _sec(1, "a"), _sec(3, "dup"), _sec(9, "out of range")])
    assert [(s, e, sec.headline) for s, e, sec in out] == [(0, 10, "a"), (11, 20, "b")]
    with pytest.raises(ValueError, match="sentence 1"):
        section_spans(window, [_sec(2)])


def test_llm_chunks_are_verbatim_with_headline_and_summary() -> None:
    doc = _doc()
    provider = ScriptedProvider([{"sections": [{"first": 1, "headline": "벌금 보상", "summary": "벌금을 2천만원까지 보상"},
                                               {"first": 3, "headline": "골절 진단비", "summary": "골절 시 지급, 치아 파절 제외"}]}])
    step = LLMChunker(LLM(provider))
    structure = app_chunks(doc)
    chunks = step.apply(doc, structure)
    assert [c.text for c in chunks] == ["벌금 특별약관은 벌금을 보상합니다. 한도는 2천만원입니다.", "골절 진단 시 골절진단비를 지급합니다. 치아 파절은 제외합니다."]
    for c in chunks:
        assert doc.text[c.start : c.end] == c.text  # the original is the document's own text
    assert chunks[1].retrieval_text == "골절 진단비\n골절 시 지급, 치아 파절 제외"
    assert chunks[1].section == structure[-1].section  # provenance stays the document's own
    assert "골절 시 지급" in index_text(chunks[1]) and step.fallbacks == 0
    # the model was shown numbered sentences, not asked to copy them
    listing = provider.calls[0][0][-1].content
    assert listing.startswith("[1] 벌금 특별약관은") and "[4] 치아 파절은 제외합니다." in listing


def test_llm_chunk_falls_back_to_structure_chunks() -> None:
    doc = _doc()
    structure = app_chunks(doc)
    bad = LLMChunker(LLM(ScriptedProvider(["not json", "still not json"])))
    assert bad.apply(doc, structure) == structure and bad.fallbacks == 1 and "structure chunks kept" in str(bad.reasons[0])
    no_start = LLMChunker(LLM(ScriptedProvider([{"sections": [{"first": 2, "headline": "h", "summary": "s"}]}])))
    assert no_start.apply(doc, structure) == structure and "sentence 1" in str(no_start.reasons[0])
    none = LLMChunker(None)
    assert none.apply(doc, structure) == structure and none.fallbacks == 1


class _CutOffAboveN:
    """Answers a listing of more than ``most`` sentences with a cut-off answer, and a shorter
    one with a section per sentence."""

    provider, model, supports_schema = "scripted", "cut-off", True

    def __init__(self, most: int) -> None:
        self.most, self.listings = most, []  # type: ignore[var-annotated]

    def chat(self, messages, params, schema=None):  # type: ignore[no-untyped-def]
        listing = [m.content for m in messages if m.role == "user" and m.content.startswith("[1] ")][-1].splitlines()
        repair = "not valid" in messages[-1].content  # the facade's repair request
        self.listings.append(f"{len(listing)}{' repair' if repair else ''}")
        if len(listing) > self.most:
            return Completion('{"sections": [{"first": 1, "headline": "', "length", 10, 700)
        secs = [{"first": i, "headline": f"h{i}", "summary": line[4:]} for i, line in enumerate(listing, 1)]
        return Completion(json.dumps({"sections": secs}, ensure_ascii=False), "stop", 10, 20)


def test_llm_chunk_fingerprint_follows_the_model_and_the_answer_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    import yakgwan.ingest.steps.llm_chunk as llm_chunk
    from pydantic import Field

    def fp(model: str) -> str:
        return LLMChunker(LLM(ScriptedProvider(["{}"], model=model))).fingerprint

    assert fp("a") == fp("a") and fp("a") != fp("b")
    before = fp("a")

    class FewerSections(Sections):
        sections: list[Section] = Field(min_length=1, max_length=4)

    monkeypatch.setattr(llm_chunk, "Sections", FewerSections)
    assert fp("a") != before  # an index chunked under another schema is rebuilt


def test_halves_by_hand() -> None:
    # characters 0–90, middle 45: the boundary at 41 is nearest
    assert halves([(0, 10), (11, 20), (21, 40), (41, 90)]) == ([(0, 10), (11, 20), (21, 40)], [(41, 90)])
    assert halves([(0, 10), (11, 20)]) == ([(0, 10)], [(11, 20)])
    assert halves([(0, 10), (10, 20), (20, 30)]) == ([(0, 10)], [(10, 20), (20, 30)])  # 10 and 20 tie at 5: the earlier
    with pytest.raises(ValueError):
        halves([(0, 10)])


def test_a_cut_off_window_is_asked_again_in_halves() -> None:
    doc = _doc()  # 4 sentences in one window
    provider = _CutOffAboveN(most=2)
    step = LLMChunker(LLM(provider))
    chunks = step.apply(doc, app_chunks(doc))
    # 4 sentences cut off, not repaired (the halves are the remedy), then 2 + 2
    assert provider.listings == ["4", "2", "2"] and step.fallbacks == 0
    assert [c.text for c in chunks] == ["벌금 특별약관은 벌금을 보상합니다.", "한도는 2천만원입니다.", "골절 진단 시 골절진단비를 지급합니다.", "치아 파절은 제외합니다."]
    assert [c.retrieval_text.split("\n")[0] for c in chunks] == ["h1", "h2", "h1", "h2"]  # numbered within each half
    assert all(doc.text[c.start : c.end] == c.text for c in chunks)
    # halved once only: a half cannot be halved again, so its cut-off answer gets the one
    # repair; cut off again, it leaves the document as it was (the second half is not asked)
    provider = _CutOffAboveN(most=1)
    step = LLMChunker(LLM(provider))
    structure = app_chunks(doc)
    assert step.apply(doc, structure) == structure and step.fallbacks == 1
    assert provider.listings == ["4", "2", "2 repair"] and "cut off at the token limit" in str(step.reasons[0])
    # a one-sentence window cannot be halved: its cut-off answer is repaired
    one = _doc("벌금 특별약관은 벌금을 보상합니다.")
    provider = _CutOffAboveN(most=0)
    step = LLMChunker(LLM(provider))
    assert step.apply(one, app_chunks(one)) == app_chunks(one) and provider.listings == ["1", "1 repair"]


def app_chunks(doc: Document):  # type: ignore[no-untyped-def]
    from yakgwan.ingest.chunkers.registry import chunker_for

    return chunker_for(doc).split(doc)


def test_an_over_long_headline_or_summary_is_cut_at_a_word_not_refused() -> None:
    assert cut_at_word("  골절   진단비 ", 10) == "골절 진단비"
    assert cut_at_word("가나다 라마바 사아자", 8) == "가나다 라마바"  # "가나다 라마바 " is 8: cut at the space
    assert cut_at_word("가나다라마바사아자차", 4) == "가나다라"  # no space: cut at the bound
    assert cut_at_word("가 나다라마바사아자차", 6) == "가 나다라마"  # the only space is in the first half
    long = "골절 진단 시 골절진단비를 지급하며 " * 20
    sec = Section.model_validate({"first": 1, "headline": "골절 " * 40, "summary": long})
    assert len(sec.headline) <= 60 and len(sec.summary) <= 200 and long.startswith(sec.summary)
    with pytest.raises(ValueError):
        Section.model_validate({"first": 1, "headline": "   ", "summary": "s"})
    doc = _doc()
    step = LLMChunker(LLM(ScriptedProvider([{"sections": [{"first": 1, "headline": "벌금", "summary": long}]}])))
    out = step.apply(doc, app_chunks(doc))
    assert step.fallbacks == 0 and out[0].retrieval_text == f"벌금\n{cut_at_word(long, 200)}"


def test_preprocess_keeps_the_original_and_indexes_the_rewrite() -> None:
    doc = _doc()
    chunks = app_chunks(doc)
    replies = ["벌금 보상 한도는? 핵심어: 벌금, 2천만원"] + ["  "] * (len(chunks) - 1)
    step = Preprocessor(LLM(ScriptedProvider(replies)))
    out = step.apply(doc, chunks)
    assert [c.text for c in out] == [c.text for c in chunks] and [c.chunk_id for c in out] == [c.chunk_id for c in chunks]
    assert out[0].retrieval_text == "벌금 보상 한도는? 핵심어: 벌금, 2천만원"
    assert index_text(out[0]).index("핵심어") < index_text(out[0]).index(chunks[0].text)
    assert step.fallbacks == len(chunks) - 1
    silent = Preprocessor(LLM(ScriptedProvider(["  "] * len(chunks))))
    assert silent.apply(doc, chunks) == chunks and silent.fallbacks == len(chunks)
    assert [str(r) for r in silent.reasons] == [f"a.md chunk {c.chunk_id}: the model wrote nothing; chunk indexed as it is" for c in chunks]


def test_fallback_lines_by_hand() -> None:
    why = ["a.md: no LLM configured", "b.md: cut off", "c.md: no section starts at sentence 1", "d.md: cut off"]
    def lines(*args: Any, lang: str = "en", **kw: Any) -> list[str]:
        return [line.text(lang) for line in fallback_lines(*args, **kw)]

    assert lines({"llm_chunk": 4, "preprocess": 0}, {"llm_chunk": why}, shown=2) == [
        "llm_chunk: 4 documents left as they were: a.md: no LLM configured; b.md: cut off; 2 more reason(s)"]
    assert lines({"llm_chunk": 4}, {"llm_chunk": why}, shown=2, lang="ko") == ["llm_chunk: 문서 4개를 그대로 두었습니다: a.md: no LLM configured; b.md: cut off; 이유 2개 더"]
    assert lines({"llm_chunk": 1}, {"llm_chunk": why[:1]}, shown=2) == ["llm_chunk: 1 document left as it was: a.md: no LLM configured"]
    assert lines({"preprocess": 2}, {}) == ["preprocess: 2 chunks left as they were (no LLM or an unusable answer)"]
    assert lines({"preprocess": 1}, {"preprocess": [msg("ingest_step.empty_rewrite", doc="a.md", chunk="c1")]}, lang="ko") == [
        "preprocess: 조각 1개를 그대로 두었습니다: a.md 조각 c1: 언어 모델이 아무것도 쓰지 않아 조각을 그대로 색인했습니다"]
    assert (left_as_was("llm_chunk", 1), left_as_was("preprocess", 1), left_as_was("other", 2)) == (
        "1 document left as it was", "1 chunk left as it was", "2 items left as they were")
    assert (left_as_was_head("llm_chunk"), left_as_was_head("other")) == ("llm_chunk: documents left as they were", "other: items left as they were")
    assert fallback_lines({}, {}) == []


def test_step_names_are_checked_and_ordered() -> None:
    assert canonical_steps(["preprocess", "llm_chunk", "preprocess"]) == ("llm_chunk", "preprocess")
    with pytest.raises(UnknownName, match="available: llm_chunk, preprocess"):
        canonical_steps(["summarise"])


def _settings(tmp_path: Path) -> Settings:
    return Settings(index_dir=tmp_path / "i", cache_dir=tmp_path / "c", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)


def test_index_remembers_its_steps_and_a_failed_step_changes_nothing(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "a.md").write_text("# 벌금\n\n벌금 특별약관은 벌금액을 2천만원 한도로 보상합니다.", "utf-8")
    s = _settings(tmp_path)
    ingest(s, [kb], embedder=HashingEmbedder())
    before = open_store(s.index_dir).read()
    assert before.extra["ingest_steps"] == []

    class Down:
        provider, model, supports_schema = "down", "m", True

        def chat(self, messages, params, schema=None):  # type: ignore[no-untyped-def]
            raise ProviderError("endpoint unreachable")

    with pytest.raises(ProviderError, match="unreachable"):
        ingest(s, [kb], embedder=HashingEmbedder(), steps=["preprocess"], llm=LLM(Down()))
    after = open_store(s.index_dir).read()
    assert [c.chunk_id for c in after.chunks] == [c.chunk_id for c in before.chunks] and after.extra["ingest_steps"] == []

    llm = LLM(ScriptedProvider(responder=lambda m, schema: "벌금 한도 질문, 핵심어 벌금"))
    report = ingest(s, [kb], embedder=HashingEmbedder(), steps=["preprocess"], llm=llm)
    assert report.reindexed and report.step_fallbacks == {"preprocess": 0}
    data = open_store(s.index_dir).read()
    assert data.extra["ingest_steps"] == ["preprocess"] and all(c.retrieval_text for c in data.chunks)
    ctx = open_context(s, embedder=HashingEmbedder())
    ctx.make_llm = lambda: llm
    hits = build_pipeline("preprocess", ctx)[0].retrieve("벌금 한도", 1)
    assert hits[0].chunk.text == "# 벌금\n\n벌금 특별약관은 벌금액을 2천만원 한도로 보상합니다."  # cited text is the original
    with pytest.raises(YakgwanError, match="built with --step llm_chunk"):
        build_pipeline("llm_chunk", ctx)

    # a document whose answer is unusable keeps its structure chunks, and the report says which and why
    cut_off = LLM(ScriptedProvider(responder=lambda m, schema: '{"sections": [{"first": 2, "headline": "h", "summary": "s"}]}'))
    report = ingest(s, [kb], embedder=HashingEmbedder(), steps=["llm_chunk"], llm=cut_off)
    assert report.step_fallbacks == {"llm_chunk": 1}
    assert {k: [str(r) for r in v] for k, v in report.step_reasons.items()} == {"llm_chunk": ["a.md: no section starts at sentence 1 (starts: [2]); structure chunks kept"]}
    assert [c.text for c in open_store(s.index_dir).read().chunks] == [c.text for c in before.chunks]


def test_changing_steps_needs_every_indexed_document(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / "a.md").write_text("벌금 특별약관은 벌금을 보상합니다.", "utf-8")
    (two / "b.md").write_text("골절 진단비를 지급합니다.", "utf-8")
    s = _settings(tmp_path)
    ingest(s, [one], embedder=HashingEmbedder())
    ingest(s, [two], embedder=HashingEmbedder())
    llm = LLM(ScriptedProvider(responder=lambda m, schema: "핵심어"))
    from yakgwan.core.errors import InputError

    with pytest.raises(InputError, match="1 indexed document.s. are not in this ingest"):
        ingest(s, [one], embedder=HashingEmbedder(), steps=["preprocess"], llm=llm)
    assert open_store(s.index_dir).read().extra["ingest_steps"] == []  # nothing changed
    report = ingest(s, [one, two], embedder=HashingEmbedder(), steps=["preprocess"], llm=llm)
    assert sorted(report.replaced) == ["a.md", "b.md"]


def test_llm_chunk_numbers_only_what_the_structure_chunker_kept() -> None:
    from dataclasses import replace

    doc = _doc()
    first = app_chunks(doc)[0]
    kept = [replace(first, start=TEXT.index("골절"), end=len(TEXT), text=TEXT[TEXT.index("골절"):])]  # the first line was dropped
    provider = ScriptedProvider([{"sections": [{"first": 1, "headline": "골절", "summary": "골절 진단비"}]}])
    chunks = LLMChunker(LLM(provider)).apply(doc, kept)
    assert "벌금" not in provider.calls[0][0][-1].content
    assert [c.text for c in chunks] == ["골절 진단 시 골절진단비를 지급합니다. 치아 파절은 제외합니다."]


def test_steps_without_an_llm_fail_loudly_and_eval_falls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import json
    import subprocess
    import sys

    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "a.md").write_text("# 벌금\n\n벌금 특별약관은 벌금액을 2천만원 한도로 보상합니다.", "utf-8")
    from yakgwan.core.errors import InputError

    with pytest.raises(InputError, match="need an LLM: set YAKGWAN_LLM"):
        ingest(_settings(tmp_path), [kb], embedder=HashingEmbedder(), steps=["llm_chunk"])
    assert not (tmp_path / "i").exists()  # nothing written
    tests = tmp_path / "t.jsonl"
    tests.write_text(json.dumps({"question": "벌금 한도?", "keywords": [], "category": "x", "source_docs": ["a.md"]}, ensure_ascii=False), "utf-8")
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith("YAKGWAN_")}
    env |= {"YAKGWAN_CACHE_DIR": str(tmp_path / "c"), "YAKGWAN_EMBEDDER": "hashing", "YAKGWAN_LLM": "none"}
    out = tmp_path / "r.json"
    p = subprocess.run([sys.executable, "-m", "yakgwan.cli", "eval", "--corpus", str(kb), "--tests", str(tests), "--pipeline", "llm_chunk",
                        "--pipeline", "bm25+preprocess", "--json", str(out), "--quiet"], env=env, capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    res = json.loads(out.read_text("utf-8"))
    assert [r["pipeline"] for r in res] == ["llm_chunk", "bm25+preprocess"]
    assert all("no LLM configured" in r["note"] and r["index"]["ingest_steps"] == [] for r in res)


def test_ingest_step_composites_resolve() -> None:
    from yakgwan.pipelines import resolve_pipeline

    assert resolve_pipeline("bm25+preprocess").ingest_steps == ("preprocess",)
    composed = resolve_pipeline("llm_chunk+rerank_llm+preprocess")
    assert composed.ingest_steps == ("llm_chunk", "preprocess") and composed.needs_llm and "rerank_llm" in composed.description.text("en")


def test_eval_says_which_documents_a_step_left_and_why(capsys: pytest.CaptureFixture[str]) -> None:
    from yakgwan.cli.eval import print_result_line

    why = ["a.md: no section starts at sentence 1 (starts: [2]); structure chunks kept", "b.md: model output does not match Sections: the answer was cut off at the token limit; structure chunks kept"]
    index = {"chunks": 9, "ingest_steps": ["llm_chunk"], "step_fallbacks": {"llm_chunk": 2}, "step_fallback_reasons": {"llm_chunk": why}}
    print_result_line({"pipeline": "llm_chunk", "dataset": "d", "n": 1, "k": 10, "metrics": {"mrr": 1.0}, "latency_ms": {"p50": 1.0, "p95": 2.0}, "index": index})
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == f"  llm_chunk: 2 documents left as they were: {why[0]}; {why[1]}"


def test_build_record_by_hand() -> None:
    from yakgwan.services.evaluate import built_record
    from yakgwan.ingest.run import IngestReport

    report = IngestReport(added=["a.md"], replaced=["b.md"], unchanged=["c.md"], seconds_total=12.345,
                          step_fallbacks={"llm_chunk": 1}, step_reasons={"llm_chunk": ["a.md: cut off; structure chunks kept"]})
    assert built_record(report, {"calls": 2}) == {
        "ingest_seconds": 12.35, "documents": 2, "incremental": True, "step_fallbacks": {"llm_chunk": 1},
        "step_fallback_reasons": {"llm_chunk": ["a.md: cut off; structure chunks kept"]}, "llm": {"calls": 2}}
    assert built_record(IngestReport(added=["a.md"], seconds_total=1.0), None) == {"ingest_seconds": 1.0, "documents": 1}
