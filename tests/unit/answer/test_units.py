"""Answer units, their scores and the calibrated outcome: by hand, with a fake embedder."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from yakgwan.answer.answerability import DEFAULT_MODEL, FEATURES, AnswerabilityModel, AnswerFeatures, reliability
from yakgwan.answer.extract_units import LIST_ITEMS, CachingEmbedder, UnitAnswerer, features, shown_unit, with_kind_siblings, with_kind_unit, with_whole_list
from yakgwan.answer.passages import with_asked_kind
from yakgwan.answer.select import SelectWeights, chosen, covered, idf_weights, score_units, unit_scores
from yakgwan.answer.units import Unit, article_key, chunk_units, hit_units, with_article_pieces
from yakgwan.answer.records import PARTIAL_TAIL
from yakgwan.core.records import Chunk, Hit

pytestmark = pytest.mark.unit

ARTICLE = ("제7조(보험금의 청구)\n① 보험수익자는 다음의 서류를 제출하고 보험금을 청구하여야 합니다.\n1. 청구서(회사 양식)\n2. 사고증명서\n"
           "② 제1항 제2호의 사고증명서는 국내의 병원에서 발급한 것이어야 합니다.\n다만, 국외의 의료기관도 됩니다.")


def _chunk(cid: str, text: str, article: str | None = "제7조", yakgwan: str | None = "보통약관", title: str | None = "보험금의 청구") -> Chunk:
    return Chunk(cid, "p.pdf", "p.pdf", "p", text, 0, len(text), (14,), yakgwan=yakgwan, article=article, article_title=title)


class WordTokenizer:
    name = "words"

    def tokenize(self, text: str) -> list[str]:
        return text.split()

    def tokenize_many(self, texts: list[str]) -> list[list[str]]:
        return [t.split() for t in texts]


class KeywordEmbedder:
    """A vector per text: one axis per listed word it contains (a fake with readable cosines)."""

    model_id = "fake-keywords"
    words = ("서류", "사고증명서", "병원", "해지")
    dim = len(words) + 1

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts, kind):  # type: ignore[no-untyped-def]
        self.calls.append(len(texts))
        v = np.array([[float(w in t) for w in self.words] + [0.1] for t in texts], dtype=np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def test_a_hang_keeps_its_ho_items_and_provisos_and_the_heading_is_never_a_unit() -> None:
    c = _chunk("c", ARTICLE)
    spans = chunk_units(c)
    texts = [c.text[s:e] for s, e in spans]
    assert texts == ["① 보험수익자는 다음의 서류를 제출하고 보험금을 청구하여야 합니다.\n1. 청구서(회사 양식)\n2. 사고증명서",
                     "② 제1항 제2호의 사고증명서는 국내의 병원에서 발급한 것이어야 합니다.\n다만, 국외의 의료기관도 됩니다."]
    page = _chunk("m", "# 환불\n\n출발 30일 전까지 취소하면 전액 환불합니다. 당일 취소는 환불하지 않습니다.", article=None, yakgwan=None, title=None)
    # a Markdown heading is the unit's provenance, not a unit
    assert [page.text[s:e] for s, e in chunk_units(page)] == ["출발 30일 전까지 취소하면 전액 환불합니다.", "당일 취소는 환불하지 않습니다."]
    # "#1" (no space) and a '#' inside a line are no headings
    tag = _chunk("t", "#1 인기 상품입니다.\n가격은 #원입니다.", article=None, yakgwan=None, title=None)
    assert [tag.text[s:e] for s, e in chunk_units(tag)] == ["#1 인기 상품입니다.", "가격은 #원입니다."]


def test_a_line_that_introduces_a_list_is_one_unit_with_its_items_and_only_those() -> None:
    text = ("**A:** 유효기간:\n\n- **적립일로부터 3년**\n- 매월 1일 안내\n\n다음 문단입니다.\n- 따로 선 항목\n\n"
            "준비물:\n1. 여권\n2) 항공권\n| 표 | 행 |\n" + "설명:\n" + "".join(f"- 항목 {i} " + "가" * 60 + "\n" for i in range(12)))
    c = _chunk("m", text, article=None, yakgwan=None, title=None)
    units = [c.text[s:e] for s, e in chunk_units(c)]
    assert units[:4] == ["**A:** 유효기간:\n\n- **적립일로부터 3년**\n- 매월 1일 안내",  # a blank line between the line and its list
                         "다음 문단입니다.", "- 따로 선 항목",  # a sentence introduces nothing
                         "준비물:\n1. 여권\n2) 항공권"]  # numbered items too; a table row ends the list
    long = next(u for u in units if u.startswith("설명:"))
    assert len(long) <= 600 and long.count("- 항목") == 8 and units[units.index(long) + 1].startswith("- 항목 8")  # as far as UNIT_CHARS


def test_a_unit_under_a_heading_inside_its_chunk_carries_that_heading() -> None:
    text = ("### 2. 필요 서류\n\n#### 의료비 청구\n- 진단서\n- 영수증\n\n#### 휴대품 분실\n- 경찰 신고서\n\n"
            "##### 해외\n- 현지 경찰 확인서\n\n#### 여행 취소\n- 취소 확인서")
    c = Chunk("s", "insurance.md", "insurance.md", "p", text, 0, len(text), (), section="여행자 보험 > 청구 방법 > 2. 필요 서류")
    units = hit_units([Hit(c, 1.0, 1, "hybrid_cc")])
    got = [(u.text, u.heading()) for u in units]
    assert got == [
        ("- 진단서", "여행자 보험 > 청구 방법 > 2. 필요 서류 > 의료비 청구"),
        ("- 영수증", "여행자 보험 > 청구 방법 > 2. 필요 서류 > 의료비 청구"),
        ("- 경찰 신고서", "여행자 보험 > 청구 방법 > 2. 필요 서류 > 휴대품 분실"),
        ("- 현지 경찰 확인서", "여행자 보험 > 청구 방법 > 2. 필요 서류 > 휴대품 분실 > 해외"),
        ("- 취소 확인서", "여행자 보험 > 청구 방법 > 2. 필요 서류 > 여행 취소"),  # a heading closes deeper ones
    ]
    # a chunk that joins a short section to the next is named after the later heading: a unit
    # above that heading sits under its own
    merged = "### 2008년\n- 3월: 창립\n\n### 2010년\n- 9월: 본사 이전"
    m = Chunk("j", "history.md", "history.md", "p", merged, 0, len(merged), (), section="회사 > 연혁 > 2010년")
    assert [(u.text, u.heading()) for u in hit_units([Hit(m, 1.0, 1, "hybrid_cc")])] == [
        ("- 3월: 창립", "회사 > 연혁 > 2008년"), ("- 9월: 본사 이전", "회사 > 연혁 > 2010년")]
    # the answer shows the unit under its own heading, and cites it so
    assert all(u.text == u.chunk.text[u.start : u.end] for u in units)
    assert shown_unit(units[3]) == "여행자 보험 > 청구 방법 > 2. 필요 서류 > 휴대품 분실 > 해외 — 현지 경찰 확인서"
    # a table's header row and rule are no units; a row is read with its header and quoted verbatim
    rows = "### 연봉 변동 이력\n\n| 연도 | 연봉 | 비고 |\n|------|------|------|\n| 2020 | 85,000,000원 | 취임 |\n| 2022 | 105,000,000원 | |"
    t = Chunk("r", "kim.md", "kim.md", "p", rows, 0, len(rows), (), section="김 (Kim) > 보상 정보 > 연봉 변동 이력")
    tu = hit_units([Hit(t, 1.0, 1, "hybrid_cc")])
    assert [u.text for u in tu] == ["| 2020 | 85,000,000원 | 취임 |", "| 2022 | 105,000,000원 | |"]
    assert [u.readable() for u in tu] == ["연도: 2020, 연봉: 85,000,000원, 비고: 취임", "연도: 2022, 연봉: 105,000,000원"]
    assert shown_unit(tu[0]) == "김 (Kim) > 보상 정보 > 연봉 변동 이력 — 연도: 2020, 연봉: 85,000,000원, 비고: 취임"
    # one row printed in two tables is read with its own table's header, and a row that repeats
    # the first table's header in the second table is a row there, not a header
    two = ("| 등급 | 적립 |\n|---|---|\n| 골드 | 10% |\n\n| 등급 | 할인 |\n|---|---|\n| 골드 | 10% |\n| 등급 | 적립 |\n\n"
           "| 마지막 | 행 |\n---\n다음 내용입니다.")
    t2 = Chunk("r2", "grade.md", "grade.md", "p", two, 0, len(two), (), section="등급")
    u2 = hit_units([Hit(t2, 1.0, 1, "hybrid_cc")])
    assert [u.readable() for u in u2][:3] == ["등급: 골드, 적립: 10%", "등급: 골드, 할인: 10%", "등급: 등급, 할인: 적립"]
    # a row right before a bare "---" (a thematic break, no pipe) is a row, not a header; the
    # break is no unit and does not join the line after it
    assert [u.text for u in u2][-2:] == ["| 마지막 | 행 |", "다음 내용입니다."]
    # a unit of a chunk without headings inside keeps the chunk's heading alone
    plain = Chunk("q", "faq.md", "faq.md", "p", "환불은 7일 안에 됩니다.", 0, 13, (), section="FAQ > 환불")
    assert [u.heading() for u in hit_units([Hit(plain, 1.0, 1, "hybrid_cc")])] == ["FAQ > 환불"]


def test_a_grouped_hit_brings_the_other_pieces_of_its_article_but_not_clone_yakgwan() -> None:
    head = _chunk("h", ARTICLE)
    piece = _chunk("p", "③ 회사는 서류를 받은 날부터 3영업일 이내에 지급합니다.")
    clone = _chunk("k", ARTICLE, yakgwan="벌금 특별약관")
    units = hit_units([Hit(head, 1.0, 1, "clause", members=(clone, piece)), Hit(piece, 0.5, 2, "clause")])
    assert [(u.chunk.chunk_id, u.rank) for u in units] == [("h", 1), ("h", 1), ("p", 1)]
    assert all(u.text == u.chunk.text[u.start : u.end] for u in units)


def test_idf_coverage_and_scores_by_hand() -> None:
    units = [{"a"}, {"a", "b"}, set()]
    idf = idf_weights(["a", "b"], units)
    idf_a, idf_b = math.log(1 + (3 - 2 + 0.5) / 2.5), math.log(1 + (3 - 1 + 0.5) / 1.5)
    assert idf == pytest.approx({"a": idf_a, "b": idf_b})
    assert [covered(idf, u) for u in units] == pytest.approx([idf_a / (idf_a + idf_b), 1.0, 0.0])
    assert covered(idf_weights([], [{"a"}]), {"a"}) == 0.0
    s = unit_scores(np.array([0.5, 0.4]), np.array([0.0, 1.0]), np.array([1.0, 2.0]), SelectWeights(lex=0.5, rank=0.2))
    assert s == pytest.approx([0.5 + 0.2, 0.4 + 0.5 + 0.1])
    with pytest.raises(ValueError, match="1-based"):
        unit_scores(np.array([0.5]), np.array([0.0]), np.array([0.0]), SelectWeights())
    assert chosen(np.array([0.2, 0.9, 0.8, 0.5, 0.85]), SelectWeights(keep=3, margin=0.15)) == [1, 4, 2]
    assert chosen(np.array([0.2, 0.9, 0.8]), SelectWeights(keep=3, margin=0.05)) == [1]
    assert chosen(np.zeros(0), SelectWeights()) == []



def test_a_further_unit_is_chosen_for_what_the_chosen_ones_lack() -> None:
    # the question asks two things, "a" (idf 1) and "b" (idf 3); unit 0 holds "a", unit 1 is a near
    # copy of it, unit 2 holds "b" and scores a little lower
    score = np.array([0.90, 0.89, 0.87, 0.50])
    terms = ({"a"}, {"a"}, {"b"}, {"a", "b"})
    idf = {"a": 1.0, "b": 3.0}
    # by hand, second pick: unit 1 gains 0.89 + 0.1 * 0 = 0.89, unit 2 0.87 + 0.1 * 3/4 = 0.945;
    # unit 3 is beyond the margin (0.90 - 0.15 = 0.75)
    assert chosen(score, SelectWeights(keep=2, margin=0.15, cover=0.1), terms, idf) == [0, 2]
    assert chosen(score, SelectWeights(keep=3, margin=0.15, cover=0.1), terms, idf) == [0, 2, 1]
    # no weight, or no terms: the best-scoring ones
    assert chosen(score, SelectWeights(keep=2, margin=0.15, cover=0.0), terms, idf) == [0, 1]
    assert chosen(score, SelectWeights(keep=2, margin=0.15)) == [0, 1]
    # a gain too small to beat the score gap keeps the score order
    assert chosen(score, SelectWeights(keep=2, margin=0.15, cover=0.01), terms, idf) == [0, 1]
    with pytest.raises(ValueError, match="one term set per unit"):
        chosen(score, SelectWeights(), terms[:2], idf)
    with pytest.raises(ValueError, match="cover"):
        SelectWeights(cover=-0.1)

def test_the_caching_embedder_embeds_a_passage_once() -> None:
    inner = KeywordEmbedder()
    e = CachingEmbedder(inner)
    a = e.embed(["서류", "병원"], "passage")
    b = e.embed(["병원", "서류", "해지"], "passage")
    assert inner.calls == [2, 1] and np.allclose(a[0], b[1]) and e.model_id == "fake-keywords"
    e.embed(["서류"], "query")
    assert inner.calls == [2, 1, 1]  # queries are never kept


def test_with_the_machine_cache_another_process_does_not_embed_a_unit_again(tmp_path: Path) -> None:
    from yakgwan.embedders.cache import EmbeddingCache

    first, again = KeywordEmbedder(), KeywordEmbedder()
    a = CachingEmbedder(first, EmbeddingCache.in_folder(tmp_path)).embed(["서류", "병원"], "passage")
    b = CachingEmbedder(again, EmbeddingCache.in_folder(tmp_path)).embed(["병원", "해지", "서류"], "passage")
    assert first.calls == [2] and again.calls == [1]  # only 해지 is new to the second one
    np.testing.assert_array_equal(a[0], b[2])
    np.testing.assert_array_equal(a[1], b[0])
    np.testing.assert_array_equal(b[1], again.embed(["해지"], "passage")[0])


def _model(weights: tuple[float, ...], answered: float = 0.6, partial: float = 0.3) -> AnswerabilityModel:
    n = len(FEATURES)
    return AnswerabilityModel((0.0,) * n, (1.0,) * n, weights, 0.0, answered, partial, "by hand", "fake-keywords")


def test_the_model_is_a_logistic_with_two_thresholds_and_round_trips() -> None:
    m = _model((2.0, 0.0, 1.0, 0.0, 0.0))
    x = AnswerFeatures(cos=0.5, cos_margin=0.1, lex=0.2, found=1.0, asked_found=0.5)
    assert m.probability(x) == pytest.approx(1 / (1 + math.exp(-(2.0 * 0.5 + 1.0 * 0.2))))
    assert (m.outcome(0.7), m.outcome(0.4), m.outcome(0.1)) == ("answered", "partial", "refused")
    assert AnswerabilityModel.from_json(json.loads(json.dumps(m.to_json()))) == m
    with pytest.raises(ValueError, match="thresholds"):
        _model((0.0,) * 5, answered=0.2, partial=0.5)
    assert reliability([0.1, 0.15, 0.9], [False, True, True], bins=5) == [(0.0, 0.125, 0.5, 2), (0.8, 0.9, 1.0, 1)]


def test_a_broken_model_file_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "m.json"
    bad.write_text('{"features": ["cos"]}', "utf-8")
    with pytest.raises(ValueError, match="m.json"):
        AnswerabilityModel.load(bad)


def test_the_bundled_model_loads_and_names_its_embedder_and_fit() -> None:
    m = AnswerabilityModel.load(DEFAULT_MODEL)
    assert m.embedder and "tuning halves" in m.source and 0 <= m.partial <= m.answered <= 1


def test_p_is_shown_cut_to_two_places() -> None:
    from yakgwan.answer.answerability import shown_p

    assert [shown_p(p) for p in (0.2996, 0.29, 0.57, 0.58, 0.3, 1.0, 0.0)] == ["0.29", "0.29", "0.57", "0.58", "0.30", "1.00", "0.00"]
    assert shown_p(float("nan")) == "nan"


def test_the_note_never_prints_a_p_under_a_threshold_as_the_threshold() -> None:
    """p = 0.2996 against answered >= 0.30: ``partial``, and the note says 0.29, not 0.30."""
    hits = [Hit(_chunk("h", ARTICLE), 1.0, 1, "clause")]
    bias = math.log(0.2996 / (1 - 0.2996))
    n = len(FEATURES)
    model = AnswerabilityModel((0.0,) * n, (1.0,) * n, (0.0,) * n, bias, 0.3, 0.25, "by hand", "fake-keywords")
    done = UnitAnswerer(KeywordEmbedder(), WordTokenizer(), model, lambda q: (1.0, 1.0), SelectWeights(keep=1)).answer("사고증명서 병원", hits)
    assert done.outcome == "partial" and "answerability p = 0.29 " in done.note_texts()[0]


def test_the_unit_answer_quotes_the_best_units_verbatim_and_the_model_decides() -> None:
    hits = [Hit(_chunk("h", ARTICLE), 1.0, 1, "clause"), Hit(_chunk("o", "① 계약자는 계약을 해지할 수 있습니다.", "제29조", title="해지"), 0.5, 2, "clause")]
    tok, emb = WordTokenizer(), KeywordEmbedder()
    # weights on cos only: the 사고증명서/병원 unit scores high for this question
    yes = UnitAnswerer(emb, tok, _model((10.0, 0.0, 0.0, 0.0, 0.0), answered=0.5, partial=0.2), lambda q: (1.0, 1.0), SelectWeights(keep=1))
    done = yes.answer("사고증명서 병원", hits)
    assert done.outcome == "answered" and len(done.citations) == 1
    c = done.citations[0]
    assert c.chunk_id == "h" and c.quote.startswith("② 제1항 제2호의 사고증명서") and c.quote in ARTICLE and c.yakgwan == "보통약관"
    assert "answerability p =" in done.note_texts()[0]
    no = UnitAnswerer(emb, tok, _model((-10.0, 0.0, 0.0, 0.0, 0.0), answered=0.9, partial=0.5), lambda q: (1.0, 1.0))
    refused = no.answer("사고증명서 병원", hits)
    assert refused.outcome == "refused" and refused.citations == []
    near = no.nearest("사고증명서 병원", hits)  # the same units, quoted whatever the decision
    assert near is not None and near.outcome == "partial" and [c.chunk_id for c in near.citations] == ["h"]
    assert near.citations[0].quote in ARTICLE and near.answer.endswith("[1]") and no.nearest("사고증명서", []) is None
    units, scored, picked = yes.choose("사고증명서 병원", hits)
    x = features(scored, picked, (0.5, 0.25))
    assert x.cos == pytest.approx(float(scored.cos.max())) and x.found == 0.5 and x.cos_margin == pytest.approx(x.cos - float(scored.cos.mean()))
    assert x.asked_found == 0.25
    assert score_units("q", [], emb, tok, SelectWeights()).score.size == 0
    # a partial answer names the question's nouns its quotes do not hold (interrogatives aside);
    # with every noun quoted, or no noun finder, the general tail
    half = _model((0.0,) * len(FEATURES), answered=0.9, partial=0.1)  # p = 0.5: partial
    nouns = lambda q: [w for w in q.split() if w not in ("은", "는")]  # noqa: E731
    part = UnitAnswerer(emb, tok, half, lambda q: (1.0, 1.0), SelectWeights(keep=1), nouns=nouns).answer("사고증명서 병원 휴업 얼마", hits)
    assert part.outcome == "partial" and part.answer.endswith("다만 인용한 문장에는 ‘휴업’에 대한 내용이 없습니다.")
    assert "휴업" not in part.claims_text
    every = UnitAnswerer(emb, tok, half, lambda q: (1.0, 1.0), SelectWeights(keep=1), nouns=nouns).answer("사고증명서 병원", hits)
    assert every.answer.endswith(PARTIAL_TAIL)
    assert UnitAnswerer(emb, tok, half, lambda q: (1.0, 1.0), SelectWeights(keep=1)).answer("사고증명서 병원 휴업", hits).answer.endswith(PARTIAL_TAIL)


def test_a_quote_names_the_clone_tokyakgwan_that_print_the_same_words_and_only_those() -> None:
    same = "① 회사는 피해자 1인당 보험가입금액을 한도로 지급합니다."
    head = _chunk("h", f"제1조(보험금의 지급사유)\n{same}\n② 한도는 3천만원입니다.", article="제1조", yakgwan="처리지원금(Ⅰ) 특별약관", title="보험금의 지급사유")
    twin = _chunk("t", f"제1조(보험금의 지급사유)\n{same.replace(' ', '  ')}\n② 한도는 2천만원입니다.", article="제1조", yakgwan="처리지원금(Ⅱ) 특별약관", title="보험금의 지급사유")
    piece = _chunk("p", "③ 서류는 제3조에 따릅니다.", article="제1조", yakgwan="처리지원금(Ⅰ) 특별약관", title="보험금의 지급사유")
    units = hit_units([Hit(head, 1.0, 1, "clause", members=(twin, piece))])
    by_text = {u.text.split()[0]: u for u in units}
    # ① reads the same in (Ⅱ), whitespace aside; ② differs there (another amount); a piece of the same 조 is no clone
    assert by_text["①"].also == ("처리지원금(Ⅱ) 특별약관 제1조",)
    assert by_text["②"].also == () and by_text["③"].also == ()
    assert shown_unit(by_text["①"]).endswith("(같은 문장: 처리지원금(Ⅱ) 특별약관 제1조)")
    assert "같은 문장" not in shown_unit(by_text["②"])
    many = Unit(head, 0, 1, "①", 1, also=tuple(f"특약{i} 제1조" for i in range(7)))
    assert shown_unit(many).endswith("(같은 문장: 특약0 제1조, 특약1 제1조, 특약2 제1조, 특약3 제1조, 특약4 제1조 외 2개)")


def test_an_exact_kind_no_picked_unit_gives_adds_the_best_unit_whose_article_gives_it() -> None:
    claim = _chunk("c", "① 보험수익자는 다음의 서류를 제출하고 보험금을 청구하여야 합니다.")
    limit = _chunk("l", "보험금청구권은 3년간 행사하지 않으면 소멸시효가 완성됩니다.", article="제35조", title="소멸시효")
    timing = _chunk("t", "서류를 접수한 날부터 3영업일 이내에 지급합니다.", article="제8조", title="보험금의 지급절차")
    law = replace(_chunk("x", "권리는 3년간 행사하지 아니하면 시효의 완성으로 소멸한다.", article="제662조", yakgwan=None, title="소멸시효"), kind="law")
    units = [Unit(c, 0, len(c.text), c.text, r) for r, c in enumerate((claim, timing, limit, law), 1)]
    score = [0.9, 0.2, 0.5, 0.8]
    period = "3년 전 사고인데 지금 청구해도 되나요?"  # asks a period: 지급절차 and 소멸시효 give one by their titles
    assert with_kind_unit(period, units, score, [0]) == [0, 2]  # the better-scoring of the two; the quoted law never
    assert with_kind_unit(period, units, score, [0, 2]) == [0, 2]  # a picked unit already gives it, in years
    # the question counts in years: 제8조's 3영업일 gives a period by its title but not in that measure
    assert with_kind_unit(period, units, score, [0, 1]) == [0, 1, 2]
    assert with_kind_unit("언제까지 청구해야 하나요?", units, score, [0, 1]) == [0, 1]  # no measure asked: a period is enough
    assert with_kind_unit("며칠 안에 주나요?", units, score, [0, 2]) == [0, 2, 1]  # days asked: 3영업일 counts in days
    assert with_kind_unit("사고 나면 보상되나요?", units, score, [0]) == [0]  # "paid" is no exact kind
    assert with_kind_unit(period, units[:1], score, [0]) == [0] and with_kind_unit(period, units, score, []) == []


def test_a_picked_unit_without_the_asked_figure_gives_way_to_the_best_unit_of_its_article_that_has_one() -> None:
    dispute = _chunk("d", "⑥ 증권을 받은 날에 대한 다툼이 있으면 회사가 증명합니다.", article="제18조", title="청약의 철회")
    days = _chunk("a", "① 계약자는 증권을 받은 날부터 15일 이내에 철회할 수 있습니다.", article="제18조", title="청약의 철회")
    refund = _chunk("r", "④ 회사는 3영업일 이내에 보험료를 돌려드립니다.", article="제18조", title="청약의 철회")
    other = _chunk("o", "② 회사는 30일 이내에 승낙합니다.", article="제17조", title="계약의 성립")
    plain = _chunk("p", "① 보험료는 돌려드립니다.", article="제32조", title="보험료의 환급")
    units = [Unit(c, 0, len(c.text), c.text, r) for r, c in enumerate((dispute, days, refund, other, plain), 1)]
    score = [0.9, 0.7, 0.8, 0.85, 0.6]
    period = "가입하고 며칠 안에 취소하면 돈 다 돌려받나요?"
    # ⑥ carries no count of time: the best-scoring of its 조 that does takes its place; 제32조 has no sibling with one
    assert with_kind_siblings(period, units, score, [0, 3, 4]) == [2, 3, 4]
    assert with_kind_siblings(period, units, score, [0, 2]) == [1, 2]  # a sibling already picked is not taken twice
    assert with_kind_siblings("철회하면 보상되나요?", units, score, [0]) == [0]  # "paid": no figure is asked
    assert with_kind_siblings("누가 받나요?", units, score, [0]) == [0]  # who: a kind no figure carries
    assert with_kind_siblings(period, units, score, []) == []


def test_a_hit_reads_its_whole_article_when_the_article_is_short() -> None:
    a1 = _chunk("a1", "① 15일 이내에 철회할 수 있습니다.", article="제18조")
    a2 = replace(_chunk("a2", "② 30일이 지나면 철회할 수 없습니다.", article="제18조"), start=100)
    a6 = replace(_chunk("a6", "⑥ 다툼은 회사가 증명합니다.", article="제18조"), start=500)
    long = [_chunk(f"l{i}", "가" * 900, article="제5조") for i in range(3)]
    pieces = {article_key(a1): [a1, a2, a6], article_key(long[0]): long}
    hits = [Hit(a6, 1.0, 1, "clause"), Hit(long[0], 0.5, 2, "clause"), Hit(a2, 0.4, 3, "clause")]
    out = with_article_pieces(hits, pieces)
    assert [h.chunk.chunk_id for h in out] == ["a6", "l0", "a2"] and [h.rank for h in out] == [1, 2, 3]
    assert [m.chunk_id for m in out[0].members] == ["a1"]  # a2 is a hit already; a6 is the hit itself
    assert out[1].members == () and out[2].members == ()  # a 조 over the limit is not read whole
    assert [u.text[:1] for u in hit_units(out[:1])] == ["①", "⑥"]  # in document order
    assert article_key(_chunk("n", "x", article=None)) is None
    assert with_article_pieces(hits, {}) == hits


def test_a_passage_of_the_asked_kind_takes_the_last_place_only_when_the_first_k_hold_none() -> None:
    gives = lambda h: h.startswith("시효")  # noqa: E731
    assert with_asked_kind(["청구1", "청구2", "청구3", "시효", "시효2"], 3, gives) == ["청구1", "청구2", "시효"]  # type: ignore[arg-type]
    assert with_asked_kind(["시효", "청구1", "청구2", "청구3"], 3, gives) == ["시효", "청구1", "청구2"]  # type: ignore[arg-type]
    assert with_asked_kind(["청구1", "청구2", "청구3", "청구4"], 3, gives) == ["청구1", "청구2", "청구3"]  # type: ignore[arg-type]
    assert with_asked_kind([], 2, gives) == []
    assert with_asked_kind(["청구1", "청구2", "시효"], 1, gives) == ["청구1", "시효"]  # type: ignore[arg-type]  # a short list keeps its hits


def test_a_question_that_asks_for_every_member_gets_the_whole_table_or_list_of_a_chosen_row() -> None:
    table = ("### 지사 현황\n\n| 지사명 | 직원 수 |\n|---|---|\n| 서울 본사 | 20명 |\n| 부산 지사 | 8명 |\n| 제주 지사 | 6명 |\n"
             "| 대구 지사 | 5명 |\n\n지사는 계속 늘어납니다.\n- 따로 선 항목")
    c = _chunk("m", table, article=None, yakgwan=None, title=None)
    units = hit_units([Hit(c, 1.0, 1, "hybrid_cc")])
    rows = [i for i, u in enumerate(units) if u.text.startswith("|")]
    assert len(rows) == 4
    count = "지사는 몇 개인가요?"
    # the best-scoring rows, then the rest of their table, in no more than LIST_ITEMS; the sentence and the bullet stay out
    assert with_whole_list(count, units, [rows[2], rows[0]]) == [rows[2], rows[0], rows[1], rows[3]]
    assert with_whole_list("어떤 지사들이 있나요?", units, [rows[1]]) == [rows[1], rows[0], rows[2], rows[3]]  # a plural asked about
    assert with_whole_list("부산 지사의 직원 수는?", units, [rows[1]]) == [rows[1]]  # one member asked: as picked
    sentence = next(i for i, u in enumerate(units) if u.text.startswith("지사는"))
    assert with_whole_list(count, units, [sentence]) == [sentence]  # no row or item picked: nothing to widen
    long = "\n".join(f"- 항목 {i}" for i in range(20))
    items = hit_units([Hit(_chunk("l", long, article=None, yakgwan=None, title=None), 1.0, 1, "hybrid_cc")])
    widened = with_whole_list("항목을 모두 나열하면?", items, [5])
    assert len(widened) == LIST_ITEMS and widened[0] == 5 and widened[1:] == [0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11]


def test_the_model_is_shown_every_unit_the_offline_answer_quotes_then_the_best_scoring_others() -> None:
    # "3년 전 사고인데 …서류" asks a period in years: the offline answer adds the 소멸시효 unit to the
    # claim clause its words matched; a model answering from the best-scoring units alone would not see it
    claim = _chunk("c", "① 보험수익자는 다음의 서류를 제출하고 보험금을 청구하여야 합니다.\n② 사고증명서는 병원에서 발급합니다.", article="제7조", title="보험금의 청구")
    limit = _chunk("l", "보험금청구권은 3년간 행사하지 않으면 소멸시효가 완성됩니다.", article="제35조", title="소멸시효")
    others = [_chunk(f"o{n}", f"① 서류 {n}호를 냅니다.", article=f"제{10 + n}조", title="기타") for n in range(6)]
    hits = [Hit(c, 1.0 - 0.01 * r, r, "clause") for r, c in enumerate([claim, *others, limit], 1)]
    answerer = UnitAnswerer(KeywordEmbedder(), WordTokenizer(), _model((10.0, 0.0, 0.0, 0.0, 0.0), answered=0.5, partial=0.2), lambda q: (1.0, 1.0), SelectWeights(keep=1))
    question = "3년 전 사고인데 지금 서류 내면 받을 수 있나요?"
    offline = answerer.answer(question, hits)
    assert offline.outcome == "answered" and "l" in [c.chunk_id for c in offline.citations]  # the 소멸시효 is quoted offline
    gate = answerer.for_model(question, hits, limit=3)
    shown = [s.chunk.chunk_id for s in gate.sentences]
    assert len(shown) == 3 and "l" in shown  # the model sees it too, within its limit
    assert set(c.chunk_id for c in offline.citations) <= set(shown)
