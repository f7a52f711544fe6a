"""The web app in a real browser: Debian's Chromium, headless, driven by Playwright (no browser is
downloaded). A user uploads the KB policy and a denial notice, waits for the analysis, clicks a
citation and reads the highlighted clause; asks what the policy cannot answer and sees the
refusal; runs a small evaluation and sees the charts. Screenshots of each page are saved under
artifacts/screenshots/."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest
from live_server import live_server

from yakgwan.config import ServerConfig, Settings
from yakgwan.server.app import create_app

pytestmark = pytest.mark.integration

CHROMIUM = Path("/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
NOTICE = Path(__file__).resolve().parents[1] / "data" / "appeal" / "notices" / "01_fine_drunk_driving.txt"
# what a browser in a closed network needs not to stall on background connections
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip(f"needs Debian's Chromium at {CHROMIUM} (apt-get install chromium); scripts/test.sh installs it")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs playwright (the test extra)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data = tmp_path_factory.mktemp("site")
    settings = Settings.from_env().with_(quiet=True)  # the real bundled embedder; its cache is the user's
    with live_server(create_app(ServerConfig(settings, data))) as url:
        yield url


@pytest.fixture()
def page(browser: Any, site: str) -> Iterator[Any]:
    pg = browser.new_page(viewport={"width": 1280, "height": 900}, locale="ko-KR")
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(site + "/")
    pg.wait_for_selector("#page-appeal[data-ready]")
    yield pg
    pg.close()
    assert not errors, errors


def _shot(pg: Any, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    pg.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def test_appeal_page_end_to_end(page: Any, kb_policy_pdf: Path) -> None:
    assert page.inner_text("nav .tab.active") == "이의신청"
    page.set_input_files("#policy-file", str(kb_policy_pdf))
    page.fill("#policy-name", "kb")
    page.click("#policy-go")
    page.wait_for_selector("#policy-select option[value=kb]", state="attached", timeout=600_000)
    page.set_input_files("#notice-file", str(NOTICE))
    page.select_option("#analysis-mode", "rules")
    page.click("#notice-go")
    page.wait_for_selector("#appeal-result #analysis", timeout=600_000)
    assert page.inner_text("#band") == "LOW"
    assert "혈중알코올농도" in page.inner_text("#analysis .tree")
    # each finding opens both texts: the notice's sentence and the policy's words, with their citation
    finding = page.locator("#analysis .finding", has_text="청구 특약의 면책 조항").first
    finding.locator("summary").click()
    both = finding.locator(".both").inner_text()
    assert "안내문:" in both and "약관 원문:" in both and "벌금 특별약관 제2조 제8호" in both
    # the reading checks are listed with their status (this notice gives them nothing to read)
    assert page.inner_text("#checks").count("해당 없음") == 3 and "용어 정의 대조" in page.inner_text("#checks")
    _shot(page, "1-appeal")
    cite = page.locator("#analysis .cite", has_text="벌금 특별약관 제2조 제8호").first
    cite.click()
    page.wait_for_selector("#clause:not([hidden]) mark")
    assert "음주, 무면허 상태" in page.inner_text("#clause mark")
    assert "69 쪽" in page.inner_text("#clause-meta") and "제2조" in page.inner_text("#clause-title")
    _shot(page, "2-clause")
    page.click("#clause-close")
    assert page.is_hidden("#clause")


def _ensure_kb(site: str, pdf: Path) -> None:
    """The policy collection the appeal test makes through the page; made through the API when
    this test runs alone."""
    import json
    import time
    import urllib.request

    with urllib.request.urlopen(f"{site}/api/collections") as res:
        if any(c["name"] == "kb" for c in json.loads(res.read())):
            return
    req = urllib.request.Request(f"{site}/api/collections", json.dumps({"name": "kb"}).encode(), {"Content-Type": "application/json"})
    urllib.request.urlopen(req).read()
    body = b"--b\r\nContent-Disposition: form-data; name=\"file\"; filename=\"kb.pdf\"\r\n\r\n" + pdf.read_bytes() + b"\r\n--b--\r\n"
    req = urllib.request.Request(f"{site}/api/collections/kb/documents", body, {"Content-Type": "multipart/form-data; boundary=b"})
    job = json.loads(urllib.request.urlopen(req).read())
    while True:
        with urllib.request.urlopen(f"{site}/api/jobs/{job['id']}") as res:
            if json.loads(res.read())["status"] in ("succeeded", "failed"):
                return
        time.sleep(0.2)


def test_ask_page_refuses_what_the_policy_does_not_say(page: Any, site: str, kb_policy_pdf: Path) -> None:
    _ensure_kb(site, kb_policy_pdf)
    page.reload()
    page.wait_for_selector("#page-appeal[data-ready]")
    page.click("button[data-page=ask]")
    page.wait_for_selector("#ask-collection option[value=kb]", state="attached")
    page.fill("#question", "삼성화재 다이렉트 자동차보험의 보험료는 얼마인가요?")
    page.click("#ask-go")
    page.wait_for_selector("#ask-latest[data-outcome]", timeout=120_000)
    assert page.get_attribute("#ask-latest", "data-outcome") == "refused"
    assert page.inner_text("#refusal") == "제공된 문서에는 이 질문에 대한 내용이 없습니다."
    assert page.locator("#citations li").count() == 0
    page.fill("#question", "음주운전으로 받은 벌금도 보상하나요?")  # a second question: the conversation keeps the first
    page.click("#ask-go")
    page.wait_for_selector("#ask-latest[data-outcome]", timeout=120_000)
    assert page.locator("#ask-result .card").count() == 2 and "음주운전" in page.inner_text("#ask-latest .question")
    assert page.get_attribute("#ask-result .card >> nth=1", "data-outcome") == "refused"
    first = page.inner_text("#citations li >> nth=0")
    assert ".pdf · " in first and ("특별약관 · 제" in first or "보통약관 · 제" in first)  # 제N조 alone is ambiguous
    _shot(page, "3-ask-refused")
    page.click("#lang")
    assert page.inner_text("button[data-page=ask]") == "Ask" and page.inner_text("#ask-go") == "Ask"
    _shot(page, "4-ask-english")
    page.click("#lang")
    assert page.inner_text("button[data-page=ask]") == "질문하기"


def test_workbench_runs_an_eval_and_draws_the_charts(page: Any) -> None:
    page.click("button[data-page=workbench]")
    page.wait_for_selector("#page-workbench[data-ready]")
    page.select_option("#wb-dataset", "sample")
    page.click("#wb-go")
    page.wait_for_selector("#wb-table", timeout=300_000)
    rows = page.locator("#wb-table tbody tr")
    assert rows.count() == 4 and "hybrid_cc" in page.inner_text("#wb-table")
    # what LLM work cost as recorded: no LLM step in these pipelines, so no figure
    assert "질문당 LLM ms (기록된 시간)" in page.inner_text("#wb-table thead")
    assert [rows.nth(i).locator("td").last.inner_text() for i in range(4)] == ["—"] * 4
    assert page.locator("#wb-overall svg rect").count() >= 4 * 5  # a bar per pipeline and metric (+ the grid)
    assert page.locator("#wb-bycat svg rect").count() >= 4
    page.wait_for_selector("#wb-map svg circle")
    assert page.locator("#wb-map svg circle").count() >= 6
    assert {"policies", "faq", "company"} <= set(page.locator("#wb-map .legend").inner_text().split())
    _shot(page, "5-workbench")


@pytest.fixture(scope="module", autouse=True)
def _fresh_shots() -> None:
    shutil.rmtree(SHOTS, ignore_errors=True)
