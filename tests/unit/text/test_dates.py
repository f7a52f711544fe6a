"""Full dates in Korean letters (hand-checked days)."""

from __future__ import annotations

from datetime import date

import pytest

from yakgwan.text.dates import full_dates


@pytest.mark.unit
def test_full_dates_in_every_form_and_an_impossible_one_skipped() -> None:
    text = "사고일 2025년 1월 27일, 종료일(2025.01.21), 촬영 2025-08-12, 오기 2025.13.45, 발송 2025. 2. 3."
    assert [d for _, d in full_dates(text)] == [date(2025, 1, 27), date(2025, 1, 21), date(2025, 8, 12), date(2025, 2, 3)]
    assert [d for _, d in full_dates(text, 0, text.index("촬영"))] == [date(2025, 1, 27), date(2025, 1, 21)]
