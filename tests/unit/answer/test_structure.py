"""Structure answers over a policy: a 조 the named 약관 lacks is answered from the parsed articles."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.answer.ask import Asker
from yakgwan.answer.structure import articles_by_yakgwan, asked_articles, missing_article_answer, named_yakgwan
from yakgwan.config import EmbedderConfig, Settings
from yakgwan.core.records import Chunk
from yakgwan.embedders.hashing import HashingEmbedder
from yakgwan.services.context import open_context
from yakgwan.services.ingest import ingest

pytestmark = pytest.mark.unit

SAMPLE = Path(__file__).resolve().parents[3] / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"


def _article(cid: str, yakgwan: str, number: str, title: str, page: int) -> Chunk:
    text = f"{number}({title})\n① 회사는 이 조에서 정한 바에 따릅니다."
    return Chunk(cid, "p.pdf", "p.pdf", "p", text, 0, len(text), (page,), yakgwan=yakgwan, article=number, article_title=title)


CHUNKS = [
    _article("b1", "보통약관", "제1조", "목적", 1),
    _article("b2", "보통약관", "제2조", "용어의 정의", 1),
    _article("b2b", "보통약관", "제2조", "용어의 정의", 2),  # a second piece of 제2조
    _article("f1", "벌금 특별약관", "제1조", "보험금의 지급사유", 5),
    _article("f2", "벌금 특별약관", "제2조", "보험금을 지급하지 않는 사유", 5),
    _article("f3", "벌금 특별약관", "제3조", "준용규정", 6),
    _article("z1", "자전거사고 벌금 특별약관", "제1조", "보험금의 지급사유", 9),
]


def test_asked_articles_leave_a_statutes_articles_out() -> None:
    assert asked_articles("벌금 특별약관 제9조에는 어떤 내용이 있나요?") == ["제9조"]
    assert asked_articles("보통약관 제 29 조의 2 와 제3조") == ["제29조의2", "제3조"]
    assert asked_articles("도로교통법 제13조 위반이면 되나요?") == []
    assert asked_articles("「교통사고처리 특례법」 제3조 제2항 단서") == []
    assert asked_articles("합의금은 얼마인가요?") == []


def test_the_longest_printed_name_wins_and_tukyak_reads_as_tukbyul_yakgwan() -> None:
    names = list(articles_by_yakgwan(CHUNKS))
    assert names == ["보통약관", "벌금 특별약관", "자전거사고 벌금 특별약관"]
    assert named_yakgwan("자전거사고 벌금 특약 제5조", names) == "자전거사고 벌금 특별약관"
    assert named_yakgwan("벌금특별약관 제5조", names) == "벌금 특별약관"
    assert named_yakgwan("제5조가 궁금해요", names) is None


def test_a_missing_article_is_answered_with_the_articles_there_are_cited_verbatim() -> None:
    done = missing_article_answer("벌금 특약 제9조에는 어떤 내용이 있나요?", CHUNKS)
    assert done is not None and (done.outcome, done.reason) == ("partial", "no_such_article")  # an answer, not a refusal
    assert done.claims_text == ("벌금 특별약관에는 제1조~제3조가 있으며 제9조는 없습니다. "
                                "있는 조: 제1조(보험금의 지급사유), 제2조(보험금을 지급하지 않는 사유), 제3조(준용규정).")
    assert [(c.chunk_id, c.quote) for c in done.citations] == [("f1", "제1조(보험금의 지급사유)"), ("f3", "제3조(준용규정)")]
    by_id = {c.chunk_id: c.text for c in CHUNKS}
    assert all(c.quote in by_id[c.chunk_id] for c in done.citations)


def test_an_existing_article_or_one_some_yakgwan_has_is_left_to_retrieval() -> None:
    assert missing_article_answer("벌금 특약 제3조 내용", CHUNKS) is None
    assert missing_article_answer("제3조에는 뭐가 있나요?", CHUNKS) is None  # 벌금 특별약관 has one
    assert missing_article_answer("도로교통법 제13조", CHUNKS) is None
    done = missing_article_answer("제77조에는 뭐가 있나요?", CHUNKS)
    assert done is not None and done.claims_text.startswith("이 문서의 어느 약관에도 제77조는 없습니다. 벌금 특별약관에는 제1조~제3조가 있으며")


def test_ask_over_the_sample_policy_answers_a_missing_article_from_the_structure(tmp_path: Path) -> None:
    s = Settings(index_dir=tmp_path / "i", cache_dir=tmp_path / "c", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    ingest(s, [SAMPLE], embedder=HashingEmbedder())
    ctx = open_context(s, embedder=HashingEmbedder())
    ctx.make_llm = lambda: None
    asker = Asker(ctx)
    res = asker.ask("벌금 특별약관 제9조에는 어떤 내용이 있나요?")
    assert (res.outcome, res.reason, res.by, res.llm_calls) == ("partial", "no_such_article", "structure", 0)
    assert res.answer.startswith("벌금 특별약관에는 제1조~제4조가 있으며 제9조는 없습니다.")
    assert [c.article for c in res.citations] == ["제1조", "제4조"] and {c.yakgwan for c in res.citations} == {"벌금 특별약관"}
    exists = asker.ask("벌금 특별약관 제2조에는 어떤 내용이 있나요?")
    assert exists.by != "structure" and any(c.yakgwan == "벌금 특별약관" for c in exists.citations)


def test_an_amount_the_policy_leaves_to_the_contract_is_said_so_with_the_clause_quoted() -> None:
    from yakgwan.answer.contract_amounts import asked_kinds, left_to_contract
    from yakgwan.answer.records import Citation, Generated

    pays = _article("p", "벌금 특별약관", "제1조", "보험금의 지급사유", 5)
    text_left = "회사는 이 특별약관의 보험가입금액을 사망보험금으로 지급합니다."
    text_days = "입원 1일당 보험가입금액을 ( )일을 한도로 지급합니다."
    text_stated = "벌금액을 2천만원 한도로 지급합니다."

    def done(*quotes: str) -> Generated:
        return Generated("answered", "x", [Citation(i + 1, pays.chunk_id, "p.pdf", "제1조", 5, q, pays.yakgwan) for i, q in enumerate(quotes)])

    assert [k.name for k in asked_kinds("사망보험금은 몇 억이에요?")] == ["money"]
    assert [k.name for k in asked_kinds("최대 며칠까지 나와요?")] == ["days"]
    assert asked_kinds("누가 받나요?") == []
    left = left_to_contract("사망보험금이 얼마예요?", done(text_left, "② 사망일이 아닌 상해 발생일을 기준으로 합니다."))
    assert left is not None and (left.outcome, left.reason) == ("partial", "left_to_contract") and [c.quote for c in left.citations] == [text_left]
    assert left.answer.startswith("약관은 이 금액을 정하지 않습니다.")
    assert left_to_contract("하루 입원비는 최대 며칠까지예요?", done(text_days)) is not None
    assert left_to_contract("벌금은 얼마까지 나와요?", done(text_left, text_stated)) is None  # a quote states the amount
    assert left_to_contract("누가 받나요?", done(text_left)) is None  # no amount asked
    assert left_to_contract("얼마예요?", done("【예시】 보험가입금액 : 300만원 일 때 200만원을 지급")) is not None  # an example states none
    rule = "회사는 보험료 산출방법서에 따라 계산한 해지환급금을 계약자에게 돌려드립니다."
    none = left_to_contract("해지환급금은 얼마 받나요?", done(rule))
    assert none is not None and (none.outcome, none.reason) == ("partial", "not_stated") and none.answer.startswith("인용한 약관 조항에는 물으신 수치")
    # a count of business days states a number of days ("3영업일 이내"); "1일당" is a rate, not a count
    assert left_to_contract("며칠 안에 들어와요?", done("서류를 받은 날부터 3영업일 이내에 지급합니다.")) is None
    assert left_to_contract("며칠 안에 들어와요?", done("입원 1일당 보험가입금액을 지급합니다.")) is not None
    assert [c.quote for c in none.citations] == [rule]  # what the clause does say stays quoted
    assert left_to_contract("가지급금은 얼마나 먼저 줘요?", done("추정한 보험금의 50% 상당액을 가지급보험금으로 지급합니다.")) is None  # a share states it
    assert left_to_contract("보험료는 몇 프로 할인돼요?", done("할인율은 회사가 정한 기준에 따릅니다.")) is not None
    assert left_to_contract("보험료는 몇 프로 할인돼요?", done("보험료의 5%를 할인합니다.")) is None


def test_with_an_llm_an_amount_left_to_the_contract_is_answered_as_offline_without_asking_the_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The LLM path never refuses less than the offline answer: a question asking an amount the
    quoted clauses leave to the contract gets the offline "left to your certificate" answer, and
    the model is not asked."""
    from yakgwan.answer.answerability import FEATURES, AnswerabilityModel
    from yakgwan.llm import LLM
    from yakgwan.llm.scripted import ScriptedProvider

    s = Settings(index_dir=tmp_path / "i", cache_dir=tmp_path / "c", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    ingest(s, [SAMPLE], embedder=HashingEmbedder())
    ctx = open_context(s, embedder=HashingEmbedder())

    def never(messages, schema):  # type: ignore[no-untyped-def]
        raise AssertionError("the model was asked")

    llm = LLM(ScriptedProvider(responder=never))
    ctx.make_llm = lambda: llm
    fitted = AnswerabilityModel((0.0,) * len(FEATURES), (1.0,) * len(FEATURES), (0.0,) * len(FEATURES), 5.0, 0.5, 0.1, "test", ctx.view.embedder)
    monkeypatch.setattr(AnswerabilityModel, "load", classmethod(lambda cls, path=None: fitted))
    question = "형사합의가 필요하면 교통사고처리지원금은 정확히 몇 만원 나오나요?"
    offline = Asker(ctx, mode="extract").ask(question)
    assert (offline.outcome, offline.reason) == ("partial", "left_to_contract") and offline.answer.startswith("약관은 이 금액을 정하지 않습니다."), offline.answer
    res = Asker(ctx, mode="generate").ask(question)
    assert (res.outcome, res.reason, res.answer, res.by, res.llm_calls) == ("partial", "left_to_contract", offline.answer, "units", 0)
    assert any("the model was not asked" in n for n in res.note_texts())


def test_an_answered_unit_answer_leads_with_what_the_governing_unit_says(answering_sample) -> None:  # type: ignore[no-untyped-def]
    """Over the sample 약관 (a question written for this test), with a decision that answers: the
    answer's first sentence names the 약관, 조 and title of the best unit and quotes its count of
    days, marked with that unit's citation number; the span is in the cited quote. The sentence
    is the result's ``conclusion`` (and the answer's first words)."""
    ctx = answering_sample
    res = Asker(ctx, mode="extract").ask("보험금 서류를 접수하면 며칠 안에 보험금을 지급하나요?")
    assert res.outcome == "answered" and res.by == "units", res.answer
    lead = res.answer.split(" [")[0]
    assert "3영업일 이내" in lead and lead.endswith("라고 적혀 있습니다.") and "제" in lead and "조(" in lead, res.answer
    n = int(res.answer[len(lead) + 2:].split("]")[0])
    cited = next(c for c in res.citations if c.n == n)
    assert "3영업일" in cited.quote and cited.article in lead
    assert res.conclusion == f"{lead} [{n}]" and res.answer.startswith(res.conclusion) and res.to_json()["conclusion"] == res.conclusion
    assert res.question_kind == "amount"  # 며칠: a number of days, stated here (so no "left to the certificate")
