"""Clause-aware retrieval: grouping (every variant keeps its provenance), the 약관 map's
coverage with hand-computed idf, the route, and the profile decided from document structure."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from yakgwan.core.records import Chunk, Hit
from yakgwan.retrieval.clause_map import ClauseMap, build_clause_map, is_policy, lucene_idf, title_field
from yakgwan.retrieval.grouping import group_hits, jaccard, shingles
from yakgwan.retrieval.route import route_query

pytestmark = pytest.mark.unit

SAMPLE = Path(__file__).resolve().parents[3] / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"


class WordTokenizer:
    """Whitespace and brackets split the words; enough for names like 교통사고처리지원금(Ⅰ)."""

    name = "words"
    spec = "words"

    def tokenize(self, text: str) -> list[str]:
        return text.replace("(", " ").replace(")", " ").split()

    def tokenize_many(self, texts: list[str]) -> list[list[str]]:
        return [self.tokenize(t) for t in texts]


def chunk(cid: str, text: str, yakgwan: str | None = None, article: str | None = None, pages: tuple[int, ...] = (1,), title: str | None = None) -> Chunk:
    return Chunk(cid, "policy.pdf", "policy.pdf", "policy", text, 0, len(text), pages, yakgwan=yakgwan, article=article, article_title=title)


CLAUSE = "회사는 피보험자가 자동차를 운전하던 중 교통사고로 타인을 다치게 하여 형사합의를 한 경우 처리지원금을 지급합니다."


def test_shingles_and_jaccard_by_hand() -> None:
    assert shingles("가 나다라마") == frozenset({"가나다라", "나다라마"})
    assert shingles("가나") == frozenset({"가나"}) and shingles("  ") == frozenset()
    a, b = frozenset({"x", "y", "z"}), frozenset({"y", "z", "w"})
    assert jaccard(a, b) == 2 / 4 and jaccard(frozenset(), frozenset()) == 0.0
    with pytest.raises(ValueError, match="n must be"):
        shingles("가나다", 0)


def test_grouping_keeps_every_variants_provenance() -> None:
    one = chunk("c1", CLAUSE, "교통사고처리지원금(Ⅰ) 특별약관", "제1조", (76,))
    two = chunk("c2", CLAUSE, "교통사고처리지원금(Ⅱ) 특별약관", "제1조", (79,))
    three = chunk("c3", CLAUSE + " ", "가족교통사고처리지원금(Ⅰ) 특별약관", "제1조", (97,))
    piece = chunk("c4", "② 제1항의 처리지원금은 피해자 1인당 한도로 지급합니다.", "교통사고처리지원금(Ⅰ) 특별약관", "제1조", (76,))
    other = chunk("c5", "회사는 보험증권을 받은 날부터 15일 이내에 청약을 철회할 수 있습니다.", "보통약관", "제18조", (19,))
    hits = [Hit(c, 1.0 - i / 10, i + 1, "first") for i, c in enumerate([one, two, piece, other, three])]
    grouped = group_hits(hits, k=5)
    assert [h.chunk.chunk_id for h in grouped] == ["c1", "c5"] and [h.rank for h in grouped] == [1, 2]
    members = grouped[0].members
    assert [m.chunk_id for m in members] == ["c2", "c4", "c3"]
    assert [(m.yakgwan, m.article, m.pages) for m in members] == [
        ("교통사고처리지원금(Ⅱ) 특별약관", "제1조", (79,)), ("교통사고처리지원금(Ⅰ) 특별약관", "제1조", (76,)), ("가족교통사고처리지원금(Ⅰ) 특별약관", "제1조", (97,)),
    ]
    assert grouped[1].members == ()
    # k counts groups; a later copy still joins its group after k groups are full
    assert [h.chunk.chunk_id for h in group_hits(hits, k=1)] == ["c1"] and len(group_hits(hits, k=1)[0].members) == 3
    # exact copies only: a different text stays apart even in the same 약관 when it is another 조
    strict = group_hits([Hit(one, 1.0, 1, "f"), Hit(other, 0.5, 2, "f")], k=5, threshold=1.0)
    assert [h.chunk.chunk_id for h in strict] == ["c1", "c5"]
    with pytest.raises(ValueError, match="threshold"):
        group_hits(hits, 5, threshold=0.0)


def test_the_clause_map_weighs_name_terms_by_their_idf() -> None:
    chunks = [
        chunk("a", "청약 철회", "보통약관", "제18조", title="청약의 철회"),
        chunk("b", "벌금 보상", "벌금 특별약관", "제1조", title="보험금의 지급사유"),
        chunk("c", "지원금", "교통사고처리지원금(Ⅰ) 특별약관", "제1조", title="보험금의 지급사유"),
        chunk("d", "가입자 유의사항"),
    ]
    cmap = ClauseMap.build(chunks, WordTokenizer())
    assert cmap.names == ("보통약관", "벌금 특별약관", "교통사고처리지원금(Ⅰ) 특별약관") and cmap.base == "보통약관"
    # 3 names; 특별약관 in 2 of them, every other term in 1
    rare, shared = lucene_idf(1, 3), lucene_idf(2, 3)
    assert rare == pytest.approx(math.log(1 + 2.5 / 1.5)) and shared == pytest.approx(math.log(1 + 1.5 / 2.5))
    cov = cmap.coverage(["벌금", "특약"])
    assert cov["벌금 특별약관"] == pytest.approx(rare / (rare + shared)) and cov["보통약관"] == 0.0
    assert cmap.coverage(["교통사고처리지원금", "Ⅰ"])["교통사고처리지원금(Ⅰ) 특별약관"] == pytest.approx(2 * rare / (2 * rare + shared))
    assert title_field(chunks[0]) == "보통약관 청약의 철회" and title_field(chunks[3]) == ""
    assert cmap.title_scores(["철회"]).argmax() == 0


class CountingWords(WordTokenizer):
    def __init__(self) -> None:
        self.read: list[str] = []

    def tokenize_many(self, texts: list[str]) -> list[list[str]]:
        self.read.extend(texts)
        return super().tokenize_many(texts)


def test_a_clause_map_built_through_the_token_cache_is_the_same_and_reads_each_title_once(tmp_path: Path) -> None:
    chunks = [
        chunk("a", "청약 철회", "보통약관", "제18조", title="청약의 철회"),
        chunk("b", "벌금 보상", "벌금 특별약관", "제1조", title="보험금의 지급사유"),
        chunk("c", "가입자 유의사항"),
    ]
    plain = ClauseMap.build(chunks, WordTokenizer())
    first, second = CountingWords(), CountingWords()
    cached = build_clause_map(chunks, first, tmp_path)
    again = build_clause_map(chunks, second, tmp_path)  # another process: every text is in the cache
    for m in (cached, again):
        assert m.names == plain.names and m.name_terms == plain.name_terms and m.base == plain.base
        assert list(m.title_scores(["철회", "지급사유"])) == pytest.approx(list(plain.title_scores(["철회", "지급사유"])))
    assert first.read and second.read == []
    assert build_clause_map(chunks, CountingWords(), None).names == plain.names  # no cache folder: built as it is


def test_the_route_names_a_special_term_or_falls_back_to_the_base_terms() -> None:
    chunks = [chunk("a", "x", "보통약관", "제1조"), chunk("b", "y", "벌금 특별약관", "제1조"), chunk("c", "z", "교통사고처리지원금(Ⅰ) 특별약관", "제1조")]
    cmap = ClauseMap.build(chunks, WordTokenizer())
    named = route_query(["벌금", "특별약관", "한도"], cmap, added=("벌금",))
    assert named.kind == "named" and [n for n, _ in named.scopes] == ["벌금 특별약관"] and named.to_json()["added"] == ["벌금"]
    assert route_query(["청약", "철회"], cmap).kind == "base" and route_query(["청약"], cmap).scopes[0][0] == "보통약관"
    no_base = ClauseMap.build(chunks[1:], WordTokenizer())
    assert route_query(["청약"], no_base).kind == "all"


def test_a_name_made_of_the_policys_common_words_is_named_by_no_question() -> None:
    from yakgwan.retrieval.clause_map import common_words

    names = ["보통약관", "벌금 특별약관", "교통사고처리지원금(Ⅰ) 특별약관", "( ) 보험금 지급 특별약관"]
    chunks = [
        chunk("a", "이 보통약관에서 회사는 보험금을 지급합니다. 청약 철회 제Ⅰ관", names[0], "제1조"),
        chunk("b", "벌금 보험금 지급 처리지원금 제Ⅰ관", names[1], "제1조"),
        chunk("c", "보험금 지급 처리지원금 제Ⅰ관", names[2], "제1조"),
        chunk("d", "보험금청구권 지급", names[3], "제1조"),
        chunk("e", "벌금 벌금 벌금"),  # outside any 약관: not counted
    ]
    words = {"보험금", "지급", "특별약관", "벌금", "처리지원금", "Ⅰ"}
    # 보험금 and 지급: printed in 3 of the 3 약관 whose names lack them (보험금청구권 holds 보험금);
    # 처리지원금: in 1 of 3 others (its own 약관 does not count); 벌금: in 0 of 3 others (chunk e
    # is outside any 약관; counted, it would make 1 of 4); Ⅰ: one character, never common
    assert common_words(words, names, chunks) == {"보험금", "지급"}
    assert common_words({"처리지원금"}, names, chunks + [chunk("f", "처리지원금", names[0], "제2조")]) == {"처리지원금"}  # 2 of 3
    assert common_words({"보통약관"}, names[:1], chunks[:1]) == frozenset()  # one 약관: its own name's words are never common
    cmap = ClauseMap.build(chunks, WordTokenizer())
    assert cmap.common == {"보험금", "지급"} and "보험금" in cmap.name_terms[3]  # still in the name's whole
    asked = route_query(["보험금", "지급", "청구"], cmap)
    assert asked.kind == "base", asked  # without the rule: named ( ) 보험금 지급 특별약관 (coverage 0.87)
    assert route_query(["벌금", "보험금"], cmap).scopes[0][0] == "벌금 특별약관"
    # a common word earns nothing, but its weight stays in the name's whole: 특별약관 (in 3 names)
    # against 보험금 and 지급 (in 1 each) is ln(1 + 1.5/3.5) / (that + 2 ln(1 + 3.5/1.5)) = 0.13
    shared, rare = lucene_idf(3, 4), lucene_idf(1, 4)
    assert cmap.coverage(["특별약관", "보험금", "지급"])[names[3]] == pytest.approx(shared / (shared + 2 * rare))
    assert shared / (shared + 2 * rare) == pytest.approx(0.13, abs=0.005)


def test_is_policy_needs_most_chunks_inside_a_named_yakgwan() -> None:
    inside, outside = chunk("a", "x", "보통약관"), chunk("b", "y")
    assert is_policy([inside, inside, outside]) and is_policy([inside, outside])
    assert not is_policy([inside, outside, outside]) and not is_policy([])


def test_the_profile_is_decided_from_document_structure(tmp_path: Path) -> None:
    """A Markdown wiki and a 약관 in separate collections: the 약관 gets the clause stage, the wiki
    hybrid_cc, with no flag set anywhere."""
    from yakgwan.config import EmbedderConfig, Settings
    from yakgwan.embedders.hashing import HashingEmbedder
    from yakgwan.pipelines import build_pipeline, ran_as
    from yakgwan.services.context import open_context
    from yakgwan.services.ingest import ingest
    from yakgwan.services.search import search

    wiki = tmp_path / "wiki"
    wiki.mkdir()
    (wiki / "onboarding.md").write_text("# 입사 안내\n\n## 휴가\n\n연차는 입사 1년 후 15일입니다.\n\n## 장비\n\n노트북은 첫날 받습니다.\n", "utf-8")
    profiles = {}
    for name, path in (("wiki", wiki), ("policy", SAMPLE)):
        settings = Settings(index_dir=tmp_path / f"index-{name}", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
        ingest(settings, [path], sync=True, embedder=HashingEmbedder())
        ctx = open_context(settings, embedder=HashingEmbedder())
        retriever, _ = build_pipeline("default", ctx)
        hyde, _ = build_pipeline("hyde", ctx)  # a technique's own first stage sits inside the clause stage on a policy
        profiles[name] = (ctx.profile, ran_as("default", ctx), retriever.name, type(hyde).__name__)
        res = search(ctx, "보험금 청구 서류", "default", 3)
        assert res.pipeline == ran_as("default", ctx) and res.route is None and res.to_json()["route"] is None
        assert all("members" in h for h in res.to_json()["hits"])
        routed = search(ctx, "벌금 특별약관 보험금 청구 서류", "route", 3)  # the route step is shown where it runs
        assert routed.route is not None and routed.to_json()["route"]["kind"] == routed.route.kind
        if name == "policy":
            assert routed.route.kind in ("base", "named")
    assert profiles == {"wiki": ("general", "hybrid_cc", "hybrid_cc", "FusionRetriever"), "policy": ("policy", "clause", "clause", "ClauseRetriever")}


def test_pieces_of_one_table_are_one_unit_and_text_outside_any_yakgwan_never_is() -> None:
    def table(cid: str, section: str, yakgwan: str | None = "전세버스 보장 추가특별약관", follows: str | None = None, kind: str = "table",
              doc: str = "p.pdf") -> Chunk:
        return Chunk(cid, doc, doc, "p", f"{cid} 등급 내용", 0, 9, (128,), kind=kind, section=section, yakgwan=yakgwan, follows=follows)

    hits = [Hit(c, 1.0, i + 1, "f") for i, c in enumerate([
        table("t1", "자동차사고부상등급표"), table("t2", "자동차사고부상등급표"), table("t3", "[별표]"),
        table("t4", "주요 민원", None, kind="text"), table("t5", "주요 민원", None, kind="text"),  # text outside any 약관
        # a 별표 outside any 약관: its pieces are one unit; the same heading after another 약관, or in another document, is another table
        table("a1", "【별표】", None, "가 특별약관"), table("a2", "【별표】", None, "가 특별약관"), table("b1", "【별표】", None, "나 특별약관"),
        table("c1", "【별표】", None, "가 특별약관", doc="q.pdf"),
    ])]
    grouped = group_hits(hits, 10, threshold=1.0)
    assert [h.chunk.chunk_id for h in grouped] == ["t1", "t3", "t4", "t5", "a1", "b1", "c1"]
    assert [m.chunk_id for m in grouped[0].members] == ["t2"] and [m.chunk_id for m in grouped[4].members] == ["a2"]


def test_pieces_of_one_article_of_an_appended_statute_are_one_unit() -> None:
    def law(cid: str, statute: str, article: str) -> Chunk:
        return Chunk(cid, "p.pdf", "p.pdf", "p", f"{cid} 조문", 0, 9, (160,), kind="law", section=statute, article=article)

    hits = [Hit(c, 1.0, i + 1, "f") for i, c in enumerate([law("l1", "상법", "제651조"), law("l2", "상법", "제651조"), law("l3", "민법", "제651조"),
                                                          law("l4", "상법", "제652조")])]
    grouped = group_hits(hits, 10, threshold=1.0)
    assert [h.chunk.chunk_id for h in grouped] == ["l1", "l3", "l4"] and [m.chunk_id for m in grouped[0].members] == ["l2"]


def test_a_unit_is_never_split_over_two_groups() -> None:
    """A piece of a 조 already folded into a group (as a copy of its head) joins that group."""
    head = chunk("h", CLAUSE, "교통사고처리지원금(Ⅰ) 특별약관", "제1조", (76,))
    copy = chunk("c", CLAUSE, "교통사고처리지원금(Ⅲ) 특별약관", "제1조", (82,))
    piece = chunk("p", "② 회사는 형사합의금을 피해자에게 직접 지급할 수 있습니다.", "교통사고처리지원금(Ⅲ) 특별약관", "제1조", (82,))
    grouped = group_hits([Hit(head, 1.0, 1, "f"), Hit(copy, 0.9, 2, "f"), Hit(piece, 0.8, 3, "f")], 5)
    assert [h.chunk.chunk_id for h in grouped] == ["h"] and [m.chunk_id for m in grouped[0].members] == ["c", "p"]


def test_restricting_a_grouped_hit_keeps_its_in_scope_copy() -> None:
    from yakgwan.retrieval.grouping import restrict

    head = chunk("h", CLAUSE, "교통사고처리지원금(Ⅱ) 특별약관", "제1조", (79,))
    mine = chunk("m", CLAUSE, "교통사고처리지원금(Ⅰ) 특별약관", "제1조", (76,))
    other = chunk("o", CLAUSE, "가족교통사고처리지원금(Ⅰ) 특별약관", "제1조", (97,))
    h = Hit(head, 0.9, 1, "clause", members=(other, mine))
    scoped = restrict(h, lambda c: c.yakgwan == "교통사고처리지원금(Ⅰ) 특별약관")
    assert scoped is not None and scoped.chunk.chunk_id == "m" and scoped.members == () and scoped.score == 0.9
    assert restrict(h, lambda c: True) == h and restrict(h, lambda c: True).members == (other, mine)
    assert restrict(h, lambda c: c.yakgwan == "보통약관") is None


def _table(cid: str, section: str, yakgwan: str | None, page: int, start: int = 0, doc: str = "policy.pdf") -> Chunk:
    return Chunk(cid, doc, doc, "p", f"{section} 1급 2급", start, start + 9, (page,), kind="table", section=section, yakgwan=yakgwan)


def test_a_mark_cites_the_table_printed_next_after_the_clause_in_its_own_document() -> None:
    from yakgwan.retrieval.clause_map import table_citations

    def at(cid: str, text: str, start: int) -> Chunk:
        return Chunk(cid, "policy.pdf", "policy.pdf", "policy", text, start, start + len(text), (1,), yakgwan="가 특별약관", article="제1조")

    chunks = [
        at("early", "(【별표】참조)에 해당되는 사고", 100),
        _table("first", "【별표】", None, 3, start=200),
        at("late", "(【별표】참조)에 해당되는 사고", 300),
        _table("second", "【별표】", None, 5, start=400),
        at("last", "【별표】에 정한 사고", 500),  # no table after it: the last one before
        at("numbered", "별표1에 정한 사고", 600),  # "별표" is not read inside "별표1"
        _table("elsewhere", "<별표1> 장해분류표", None, 9, start=0, doc="other.pdf"),  # another document's table is never cited
        at("named", "장해분류표에서 정한 장해", 700),
    ]
    assert table_citations(chunks) == {"early": ("first",), "late": ("second",), "last": ("second",)}


def test_a_clause_cites_a_table_by_its_name_anywhere_or_by_its_mark_in_its_own_yakgwan() -> None:
    from yakgwan.retrieval.clause_map import table_citations

    chunks = [
        _table("jang", "<별표1> 장해분류표", "보통약관", 28),
        _table("gol2", "골절분류표II", "골절발생위로금(II) 특별약관", 60),
        _table("gol", "골절분류표", "교통상해 골절입원일당 특별약관", 61),
        _table("byul", "【별표】", "교통사고처리지원금(Ⅰ) 특별약관", 78),
        chunk("hu", "장해분류표 (보통약관 별표1 참조)에서 정한 지급률을 곱한 금액", "( )상해 후유장해 특별약관", "제1조"),
        chunk("g2", "골절분류표II에서 정한 골절로 진단된 경우", "골절발생위로금(II) 특별약관", "제1조"),
        chunk("tc", "교통사고처리특례법 제3조 제2항 단서(【별표】참조)에 해당되는 사고", "교통사고처리지원금(Ⅰ) 특별약관", "제1조"),
        chunk("other", "【별표】참조", "벌금 특별약관", "제1조"),  # a mark means the citing 약관's own table
        chunk("none", "회사는 보험금을 지급합니다.", "보통약관", "제3조"),
    ]
    cites = table_citations(chunks)
    # 골절분류표II is read as one name: it does not also cite 골절분류표, which it contains
    assert cites == {"hu": ("jang",), "g2": ("gol2",), "tc": ("byul",)}


def test_with_whole_article_every_piece_of_an_article_cites_what_one_of_its_pieces_cites() -> None:
    from yakgwan.retrieval.clause_map import table_citations

    chunks = [
        _table("byul", "【별표】", "교통사고처리지원금(Ⅰ) 특별약관", 78),
        _table("jang", "<별표1> 장해분류표", "보통약관", 28),
        chunk("p1", "① 회사는 피보험자가 형사합의를 한 경우 처리지원금을 지급합니다.", "교통사고처리지원금(Ⅰ) 특별약관", "제1조"),
        chunk("p2", "② 교통사고처리특례법 제3조 제2항 단서(【별표】참조)에 해당되는 사고", "교통사고처리지원금(Ⅰ) 특별약관", "제1조"),
        chunk("p3", "③ 장해분류표에서 정한 장해를 입은 경우", "교통사고처리지원금(Ⅰ) 특별약관", "제1조"),
        # the same 조 number in another 약관 is another unit
        chunk("q1", "① 회사는 벌금을 지급합니다.", "벌금 특별약관", "제1조"),
        chunk("q2", "② 이 특약에서 정하지 않은 사항은 보통약관을 따릅니다.", "교통사고처리지원금(Ⅰ) 특별약관", "제2조"),
    ]
    assert table_citations(chunks, whole_article=True) == {"p1": ("byul", "jang"), "p2": ("byul", "jang"), "p3": ("byul", "jang")}
    # chunks outside any 약관 (an appendix of cited laws) are never one 조: each keeps its own
    laws = [chunk("l1", "제3조 ... 장해분류표", None, "제3조"), chunk("l2", "제3조 ... 다른 법", None, "제3조")]
    assert table_citations(chunks + laws, whole_article=True)["l1"] == ("jang",)
    assert "l2" not in table_citations(chunks + laws, whole_article=True)
    assert table_citations(chunks) == {"p2": ("byul",), "p3": ("jang",)}  # the default: the piece that names it


def test_a_cited_table_ranks_right_below_the_clause_that_cites_it() -> None:
    from yakgwan.retrieval.retrievers.clause import ClauseRetriever, ClauseWeights

    cite = chunk("c", "피보험자가 상해로 장해분류표에서 정한 장해상태가 되었을 때 지급률을 곱한 금액을 드립니다", "후유장해 특별약관", "제1조", title="보험금의 지급사유")
    other = chunk("o", "피보험자가 상해로 입원하였을 때 입원일당을 드립니다", "입원일당 특별약관", "제1조", title="보험금의 지급사유")
    far = chunk("f", "회사는 계약자에게 약관을 드립니다", "보통약관", "제19조", title="약관교부")
    table = _table("t", "<별표1> 장해분류표", "보통약관", 28)

    class Fixed:
        name = "fixed"

        def retrieve(self, query: str, k: int) -> list[Hit]:  # the table is not among the first stage's hits
            return [Hit(c, s, i + 1, "fixed") for i, (c, s) in enumerate([(cite, 3.0), (other, 2.0), (far, 1.0)])][:k]

    cmap = ClauseMap.build([cite, other, far, table], WordTokenizer())
    on = ClauseRetriever("clause", Fixed(), cmap, WordTokenizer(), ClauseWeights(title=0.0, none=0.0)).retrieve("눈 실명", 4)
    assert [h.chunk.chunk_id for h in on] == ["c", "t", "o", "f"]
    assert on[1].score == on[0].score and on[1].components["cited"] == on[0].score
    off = ClauseRetriever("clause", Fixed(), cmap, WordTokenizer(), ClauseWeights(title=0.0, none=0.0, cited=0.0)).retrieve("눈 실명", 4)
    assert [h.chunk.chunk_id for h in off] == ["c", "o", "f"]
    with pytest.raises(ValueError, match="cited"):
        ClauseWeights(cited=-0.1)


def test_an_appended_statute_gets_no_title_prior_for_a_title_it_shares_with_the_policy() -> None:
    from dataclasses import replace

    from yakgwan.retrieval.retrievers.clause import ClauseRetriever, ClauseWeights

    own = chunk("p", "계약자는 보험증권을 받은 날부터 15일 이내에 그 청약을 철회할 수 있습니다", "보통약관", "제18조", title="청약의 철회")
    law = replace(chunk("l", "일반금융소비자는 계약서류를 제공받은 날부터 15일 이내에 청약을 철회할 수 있다", None, "제46조", title="청약의 철회"),
                  kind="law", section="금융소비자 보호에 관한 법률")

    class Fixed:
        name = "fixed"

        def retrieve(self, query: str, k: int) -> list[Hit]:  # the first stage ranks the law a little higher
            return [Hit(law, 2.0, 1, "fixed"), Hit(own, 1.9, 2, "fixed"), Hit(far, 0.0, 3, "fixed")][:k]

    far = chunk("f", "회사는 보험금을 지급합니다", "보통약관", "제7조", title="보험금의 지급")
    cmap = ClauseMap.build([own, law, far], WordTokenizer())
    hits = ClauseRetriever("clause", Fixed(), cmap, WordTokenizer(), ClauseWeights(none=0.0)).retrieve("청약의 철회", 2)
    assert [h.chunk.chunk_id for h in hits] == ["p", "l"] and hits[1].components["title"] == 0.0
    both = ClauseRetriever("clause", Fixed(), cmap, WordTokenizer(), ClauseWeights(none=0.0, law_title=1.0)).retrieve("청약의 철회", 2)
    assert [h.chunk.chunk_id for h in both] == ["l", "p"]  # with the title prior on laws too, the statute wins


def test_a_coverage_question_lifts_the_paying_article_of_the_yakgwan_it_found() -> None:
    from yakgwan.retrieval.retrievers.clause import ClauseRetriever, ClauseWeights

    found = chunk("r7", "회사가 보험금을 지급한 물건의 잔존물은 회사의 것이 됩니다", "휴대품손해 특별약관", "제7조", title="잔존물의 귀속")
    pays = chunk("r2", "회사는 여행 중 우연한 사고로 휴대품에 생긴 손해를 보상합니다", "휴대품손해 특별약관", "제2조", title="보상하는 손해")
    other = chunk("o1", "회사는 상해로 입원한 경우 입원일당을 지급합니다", "입원일당 특별약관", "제1조", title="보험금의 지급사유")
    rule = chunk("b9", "계약자는 주소가 바뀌면 회사에 알려야 합니다", "보통약관", "제9조", title="주소변경통지")

    class Fixed:
        name = "fixed"

        def retrieve(self, query: str, k: int) -> list[Hit]:  # the paying article is not among the first stage's hits
            return [Hit(c, s, i + 1, "fixed") for i, (c, s) in enumerate([(found, 3.0), (rule, 2.0), (other, 1.0)])][:k]

    cmap = ClauseMap.build([found, pays, other, rule], WordTokenizer())
    question = "가방을 도난당했는데 보상받을 수 있나요?"
    off = ClauseRetriever("clause", Fixed(), cmap, WordTokenizer(), ClauseWeights(title=0.0, none=0.0, role=0.0, role_lift=0.0)).retrieve(question, 4)
    assert [h.chunk.chunk_id for h in off] == ["r7", "b9", "o1"]
    on = ClauseRetriever("clause", Fixed(), cmap, WordTokenizer(), ClauseWeights(title=0.0, none=0.0, role=0.3, role_lift=0.8)).retrieve(question, 4)
    assert [h.chunk.chunk_id for h in on] == ["r7", "r2", "b9", "o1"]
    assert on[1].score == pytest.approx(0.8) and on[1].components == {"role_lift": pytest.approx(0.8)}  # 0.8 x its 약관's best (1.0)
    assert on[3].components["role"] == 0.3  # a paying article among the hits gets the role prior
    neutral = ClauseRetriever("clause", Fixed(), cmap, WordTokenizer(), ClauseWeights(title=0.0, none=0.0)).retrieve("주소가 바뀌었어요", 4)
    assert [h.chunk.chunk_id for h in neutral] == ["r7", "b9", "o1"]  # a question that asks no kind moves nothing
    with pytest.raises(ValueError, match="role_lift"):
        ClauseWeights(role_lift=-1.0)


def test_a_clause_the_base_terms_restate_in_a_rider_is_one_hit() -> None:
    from yakgwan.retrieval.grouping import clone_articles

    base = [chunk("b1", "제18조(청약의 철회) ① 계약자는 보험증권을 받은 날부터 15일 이내에 그 청약을 철회할 수 있습니다.", "보통약관", "제18조", title="청약의 철회"),
            chunk("b2", "② 제1항에도 불구하고 청약한 날부터 30일이 초과한 계약은 청약을 철회할 수 없습니다.", "보통약관", "제18조", title="청약의 철회")]
    rider = [chunk("r1", "제17조(청약의 철회) ① 계약자는 보험증권을 받은 날부터 15일 이내에 그 청약을 철회할 수 있습니다.", "실손 특별약관", "제17조", title="청약의 철회"),
             chunk("r2", "② 제1항에도 불구하고 청약한 날부터 30일이 지나면 청약을 철회할 수 없습니다.", "실손 특별약관", "제17조", title="청약의 철회")]
    same_title = chunk("x1", "회사는 이 특별약관의 보험료를 돌려드리지 않습니다. 다른 내용입니다.", "운전자 특별약관", "제5조", title="청약의 철회")
    same_doc_only = chunk("s1", base[0].text, "보통약관", "제40조", title="청약의 철회")  # one 약관: never its own copy
    clones = clone_articles([*base, *rider, same_title, same_doc_only], threshold=0.7)
    assert clones["b1"] == clones["b2"] == clones["r1"] == clones["r2"]
    assert "x1" not in clones
    assert clone_articles([*base, *rider], threshold=1.0) == {}  # the numbers differ: not exact copies
    # the rider's piece ranks first; the 보통약관's article piece, lower, joins it as a member
    hits = [Hit(c, 1.0 - i / 10, i + 1, "first") for i, c in enumerate([rider[1], same_title, base[0]])]
    grouped = group_hits(hits, k=3, clones=clones)
    assert [h.chunk.chunk_id for h in grouped] == ["r2", "x1"] and [m.chunk_id for m in grouped[0].members] == ["b1"]
    assert [h.chunk.chunk_id for h in group_hits(hits, k=3)] == ["r2", "x1", "b1"]  # without: three hits


def test_copied_articles_are_found_a_document_at_a_time() -> None:
    from dataclasses import replace

    base = chunk("b1", "제18조(청약의 철회) ① 계약자는 보험증권을 받은 날부터 15일 이내에 청약을 철회할 수 있습니다.", "보통약관", "제18조", title="청약의 철회")
    rider = chunk("r1", "제17조(청약의 철회) ① 계약자는 보험증권을 받은 날부터 15일 이내에 청약을 철회할 수 있습니다.", "실손 특별약관", "제17조", title="청약의 철회")
    other = [replace(c, chunk_id=c.chunk_id + "x", doc_id="other.pdf") for c in (base, rider)]
    cmap = ClauseMap.build([base, rider, *other], WordTokenizer())
    clones = cmap.clones_at(0.7)
    assert clones.get("b1") == clones.get("r1") and clones.get("b1x") == clones.get("r1x") and clones.get("b1") != clones.get("b1x")
    assert clones.get("nope") is None and len(clones) == 4 and cmap.clones_at(0.7) is clones
