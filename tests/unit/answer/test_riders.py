"""The which-특약 list answer (answer/riders.py), with a fake embedder whose cosines are readable."""

from __future__ import annotations

import numpy as np
import pytest

from yakgwan.answer.answerability import FEATURES, AnswerabilityModel
from yakgwan.answer.extract_units import UnitAnswerer
from yakgwan.answer.records import REFUSAL
from yakgwan.answer.riders import asks_which_rider, coverage_hits, rider_list
from yakgwan.core.records import Chunk, Hit

pytestmark = pytest.mark.unit


class Words:
    name = "words"

    def tokenize(self, text: str) -> list[str]:
        return text.split()

    def tokenize_many(self, texts: list[str]) -> list[list[str]]:
        return [t.split() for t in texts]


class AxisEmbedder:
    """One axis per listed word a text contains, plus a small constant axis."""

    model_id = "fake-axes"
    words = ("벌금", "골절", "해지")
    dim = len(words) + 1

    def embed(self, texts, kind):  # type: ignore[no-untyped-def]
        v = np.array([[float(w in t) for w in self.words] + [0.1] for t in texts], dtype=np.float32)
        return v / np.linalg.norm(v, axis=1, keepdims=True)


def _model(bias: float) -> AnswerabilityModel:
    n = len(FEATURES)
    return AnswerabilityModel((0.0,) * n, (1.0,) * n, (0.0,) * n, bias, 0.5, 0.1, "test", "fake-axes")


def _c(cid: str, yakgwan: str, text: str, title: str = "보험금의 지급사유", article: str = "제1조", page: int = 1) -> Chunk:
    body = f"{article}({title})\n① {text}"
    return Chunk(cid, "p.pdf", "p.pdf", "p", body, 0, len(body), (page,), yakgwan=yakgwan, article=article, article_title=title)


@pytest.mark.parametrize("question", [
    "어떤 특약이 골절을 보장하나요?", "벌금을 보장하는 특약은 무엇인가요?", "입원하면 어느 특별약관에서 나오나요?",
    "화상 보장은 무슨 담보인가요?", "이건 특약으로 뭐가 있어요?", "보장하는 특약은 어떤 게 있나요?", "입원비 주는 특약이 있나요?",
    "그런 특약 있어요?", "보장하는 담보가 있을까요?", "그런 특약 있어?", "이런 걸 보장하는 특약이 있는지 궁금해요"])
def test_a_question_asking_which_rider(question: str) -> None:
    assert asks_which_rider(question)


@pytest.mark.parametrize("question", [
    "벌금 특약이랑 교통사고처리지원금 특약이 둘 다 있는데 둘 다 받을 수 있나요?", "보험금 청구할 때 어떤 서류가 필요한가요?",
    "이 특약은 언제 해지되나요?", "특약 보험료는 얼마인가요?", "특약이 없으면 어떻게 되나요?", "가족 특약이 있어서 청구했는데 거절됐어요.",
    "이 특약이 있는데 보상되나요?", "운전자 특약이 있어요. 벌금은 나오나요?", "특약이 없어요, 입원비는 못 받나요?",
    "가입한 특약이 있는지 어디서 확인하나요?", "이 특약은 무엇을 보장하나요?", "어느 특약이든 보상되나요?", "해당 특약은 무엇인가요?"])
def test_not_a_question_asking_which_rider(question: str) -> None:
    assert not asks_which_rider(question)


def test_every_clone_member_of_the_first_hits_is_a_candidate_and_only_coverage_articles() -> None:
    fine, family, bike = _c("a", "벌금 특별약관", "벌금을 지급합니다."), _c("b", "가족벌금 특별약관", "벌금을 지급합니다."), _c("c", "자전거사고 벌금 특별약관", "벌금을 지급합니다.")
    claim = _c("d", "벌금 특별약관", "청구서를 냅니다.", "보험금의 청구", "제3조")
    far = _c("e", "골절발생위로금(II) 특별약관", "골절 시 지급합니다.")
    hits = [Hit(fine, 1.0, 1, "clause", members=(family,)), Hit(claim, 0.9, 2, "clause"), Hit(bike, 0.8, 3, "clause"), Hit(far, 0.7, 4, "clause")]
    got = coverage_hits(hits, 3)
    assert [h.chunk.chunk_id for h in got] == ["a", "b", "c"] and [h.rank for h in got] == [1, 1, 3]
    assert [h.chunk.chunk_id for h in coverage_hits(hits, 1)] == ["a", "b"]


def test_the_list_names_each_rider_within_the_margin_cited_verbatim_and_the_model_gates_it() -> None:
    fine = _c("a", "벌금 특별약관", "벌금을 지급합니다.", page=69)
    family = _c("b", "가족벌금 특별약관", "가족의 벌금을 지급합니다.", page=72)
    other = _c("c", "골절발생위로금(II) 특별약관", "골절 시 지급합니다.", page=40)
    hits = [Hit(fine, 1.0, 1, "clause", members=(family,)), Hit(other, 0.9, 2, "clause")]
    yes = UnitAnswerer(AxisEmbedder(), Words(), _model(5.0), lambda q: (1.0, 1.0))
    done = rider_list("벌금 보장 특약은 무엇인가요?", hits, yes)
    assert done is not None and done.outcome == "answered"
    assert [c.yakgwan for c in done.citations] == ["벌금 특별약관", "가족벌금 특별약관"]  # in page order; 골절 is far below
    by_id = {"a": fine.text, "b": family.text}
    assert all(c.quote in by_id[c.chunk_id] for c in done.citations)
    assert done.answer.startswith("보험금 지급사유에 이 내용이 있는 특약: 벌금 특별약관, 가족벌금 특별약관.") and "[2]" in done.answer
    # a wide margin lists the far one too; the calibrated model's refusal gives no list
    assert len(rider_list("벌금 보장 특약은 무엇인가요?", hits, yes, margin=1.0).citations) == 3
    no = rider_list("벌금 보장 특약은 무엇인가요?", hits, UnitAnswerer(AxisEmbedder(), Words(), _model(-5.0), lambda q: (1.0, 1.0)))
    assert no.outcome == "refused" and no.citations == [] and no.answer.startswith(REFUSAL)
    # p between the thresholds: a partial list says so
    half = rider_list("벌금 보장 특약은 무엇인가요?", hits, UnitAnswerer(AxisEmbedder(), Words(), _model(-1.0), lambda q: (1.0, 1.0)))
    assert half is not None and half.outcome == "partial" and half.answer.endswith("확실하지 않습니다.")
    # no coverage article among the first hits: refused
    assert rider_list("벌금", [Hit(_c("d", "벌금 특별약관", "청구", "보험금의 청구", "제3조"), 1.0, 1, "clause")], yes).outcome == "refused"
