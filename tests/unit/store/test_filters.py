"""Filters on a chunk's 약관 and its document's metadata, and the view of the chunks they keep."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from yakgwan.core.errors import InputError
from yakgwan.retrieval.scoring.bm25 import BM25Index
from yakgwan.store.filters import FilteredView, Filter, matching_rows, parse_meta, restrict
from yakgwan.store.local.view import LocalView

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "contracts"))
from store_contract import sample_data  # noqa: E402

pytestmark = pytest.mark.unit


def _view() -> LocalView:
    data = sample_data()
    data.docs["doc0.md"] = replace(data.docs["doc0.md"], meta={"insurer": "가나손해보험", "version": "2023-07"})
    data.docs["doc1.md"] = replace(data.docs["doc1.md"], meta={"product": "다라운전자보험", "version": "2024-04"})
    return LocalView(data)


@pytest.mark.parametrize("text, parsed", [
    ('yakgwan="벌금  특별약관"', Filter("yakgwan", "=", "벌금 특별약관")),
    ("version>=2024-01", Filter("version", ">=", "2024-01")),
    (" product != 다라 운전자보험 ", Filter("product", "!=", "다라 운전자보험")),
    ("version<2024", Filter("version", "<", "2024")),
])
def test_a_filter_is_key_operator_value(text: str, parsed: Filter) -> None:
    assert Filter.parse(text) == parsed


@pytest.mark.parametrize("text, says", [("약관=벌금", "write KEY=VALUE"), ("page=3", "unknown key 'page'"), ("version>=", "no value"), ("yakgwan", "write KEY")])
def test_a_bad_filter_says_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(InputError, match=says):
        Filter.parse(text)


def test_rows_kept_by_each_kind_of_key() -> None:
    view = _view()  # rows 0, 2 of doc0.md; rows 1, 3 of doc1.md; only row 0 is 보통약관, row 2 벌금 특별약관
    rows = lambda *texts: matching_rows(view, [Filter.parse(t) for t in texts]).tolist()  # noqa: E731
    assert rows("yakgwan=보통약관") == [0]
    assert rows("yakgwan!=보통약관") == [1, 2, 3]  # a chunk with no 약관 is not 보통약관
    assert rows("doc=doc1.md") == [1, 3]
    assert rows("insurer=가나손해보험") == [0, 2]
    assert rows("product=다라운전자보험") == [1, 3]
    assert rows("product=문서 0") == [0, 2]  # no product given: the document's title
    assert rows("version>=2024-01") == [1, 3] and rows("version<2024-01") == [0, 2]
    assert rows("version>=2023-01", "doc=doc0.md", "yakgwan=벌금 특별약관") == [2]


def test_nothing_kept_is_an_error_listing_what_there_is() -> None:
    with pytest.raises(InputError, match=r"no chunk matches yakgwan=없는 특약; yakgwan values in this index: '벌금 특별약관', '보통약관'"):
        restrict(_view(), [Filter.parse("yakgwan=없는 특약")])
    assert restrict(_view(), []).__class__ is LocalView  # no filter: the view itself


def test_the_filtered_view_is_an_index_of_the_kept_rows() -> None:
    base = _view()
    view = restrict(base, [Filter.parse("doc=doc0.md")])
    assert isinstance(view, FilteredView)
    assert [c.chunk_id for c in view.chunks] == ["c00", "c02"] and set(view.docs) == {"doc0.md"}
    np.testing.assert_array_equal(view.vectors, base.vectors[[0, 2]])
    assert view.dense_ready and view.dense_embedded == 2
    query = ["약관", "벌금", "치료비"]
    full = BM25Index.build(base.data.tokens).search(query, 10)
    assert view.lexical_search(query, 10) == [(list(view.rows).index(r), s) for r, s in full if r in (0, 2)]
    assert view.lexical_search(["치료비"], 10) == []  # only doc1.md has it
    q = base.vectors[2]
    assert view.dense_search(q, 1) == [(1, pytest.approx(1.0, abs=1e-6))]
    assert view.dense_search(q, 5, np.array([0])) == [(0, pytest.approx(float(base.vectors[0] @ q), abs=1e-6))]


def test_metadata_given_at_ingest_is_checked() -> None:
    assert parse_meta(["insurer= 가나 손해보험 ", "version=2024-01"]) == {"insurer": "가나 손해보험", "version": "2024-01"}
    for bad, says in (["colour=red"], "unknown key 'colour'"), (["version"], "write KEY=VALUE"), (["version= "], "no value"):
        with pytest.raises(InputError, match=says):
            parse_meta(bad)


def test_an_insurer_filter_finds_any_alias_of_the_company() -> None:
    view = _view()
    view.data.docs["doc1.md"] = replace(view.data.docs["doc1.md"], printed={"insurer": "삼성화재"})
    rows = lambda text: matching_rows(view, [Filter.parse(text)]).tolist()  # noqa: E731
    for value in ("삼성화재", "삼성화재해상보험", "삼성화재해상보험주식회사", "(주) 삼성화재해상보험", "삼성 화재"):
        assert rows(f"insurer={value}") == [1, 3], value
    assert rows("insurer=삼성생명") == [] and rows("insurer!=삼성화재해상보험") == [0, 2]
    assert rows("insurer=가나 손해보험") == [0, 2]  # a name the lexicon does not know: compared without spaces
    labelled = replace(view.data.docs["doc0.md"], meta={"insurer": "삼성화재해상보험주식회사"})
    assert Filter.parse("insurer=삼성화재").keeps(view.chunks[0], labelled)


def test_product_and_document_types_can_be_set_at_ingest() -> None:
    assert parse_meta(["product_type=운전자보험", "doc_type=약관"]) == {"product_type": "운전자보험", "doc_type": "약관"}
