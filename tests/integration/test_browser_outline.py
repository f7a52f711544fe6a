"""The document outline in a real browser (the set-up of test_browser.py): a policy with a 보통약관
and a 특별약관 is registered, the reader opens its outline and sees each 약관 with its 조, in
Korean and in English, at 1280 px and at 360 px: nothing wider than the window, nothing axe
finds serious."""

from __future__ import annotations

from typing import Any

import pytest
from test_browser import DESKTOP, NARROW, _check_page, _collection, _session, browser, site  # noqa: F401 (fixtures)

pytestmark = pytest.mark.integration

POLICY = ("보통약관\n\n제1조(보상하는 손해) 회사는 피보험자가 교통사고로 상해를 입은 때에 보험금을 지급합니다.\n\n"
          "제2조(보상하지 않는 손해) 회사는 피보험자가 음주운전을 하는 동안 생긴 손해는 보상하지 않습니다.\n\n"
          "벌금 특별약관\n\n제1조(보험금의 지급사유) 회사는 피보험자가 자동차 운전 중 사고로 받은 벌금을 지급합니다.\n")


def _open_outline(pg: Any, collection: str) -> None:
    pg.select_option("#policy-select", collection)
    pg.click("#outline-open")
    pg.wait_for_selector("#outline[data-ready] .outline-doc")


@pytest.mark.parametrize("viewport", [DESKTOP, NARROW], ids=["1280px", "360px"])
def test_the_outline_of_a_registered_policy_in_both_languages(browser: Any, site: str, viewport: dict[str, int]) -> None:  # noqa: F811
    collection = _collection(site, "구조 시험 약관", "구조.md", POLICY.encode())
    for pg in _session(browser, site, viewport):
        _open_outline(pg, collection)
        assert pg.inner_text("#outline h2") == "문서 구조" and pg.inner_text("#outline h3") == "구조.md"
        names = pg.locator("#outline .outline-yakgwan summary strong").all_inner_texts()
        assert names == ["보통약관", "벌금 특별약관"], names
        assert "조 2개" in pg.inner_text("#outline .outline-yakgwan li >> nth=0")
        pg.click("#outline .outline-yakgwan summary >> nth=1")
        assert "제1조 보험금의 지급사유" in pg.inner_text("#outline .outline-yakgwan li >> nth=1")
        _check_page(pg, f"15-outline-ko-{viewport['width']}")
        pg.click("#lang")
        pg.wait_for_function("() => document.querySelector('#outline h2')?.textContent === 'Document outline'")
        # the static labels turn at once; the outline itself is drawn again when its fetch returns
        pg.wait_for_function("() => document.querySelector('#outline .outline-yakgwan li')?.textContent.includes('article(s)')")
        assert "2 article(s)" in pg.inner_text("#outline .outline-yakgwan li >> nth=0") and "(not found)" in pg.inner_text("#outline .outline-identity")
        _check_page(pg, f"16-outline-en-{viewport['width']}")
        pg.click("#lang")
        pg.click("#outline-close")
        assert pg.is_hidden("#outline")
