"""The command line: one clear stderr line and a non-zero exit on bad input; JSON contracts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from yakgwan.pipelines import PIPELINES

REPO = Path(__file__).resolve().parents[3]


def _run(args: list[str], tmp: Path, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, YAKGWAN_INDEX=str(tmp / "index"), YAKGWAN_CACHE_DIR=str(tmp / "cache"), YAKGWAN_EMBEDDER="hashing")
    env.pop("YAKGWAN_DEBUG", None)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "yakgwan.cli", *args, "--quiet"] if args[0] not in ("pipelines",) else [sys.executable, "-m", "yakgwan.cli", *args],
                          capture_output=True, text=True, env=env, timeout=300)


def _one_error_line(p: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert p.returncode != 0
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, p.stderr
    assert "Traceback" not in p.stderr
    for n in needles:
        assert n in lines[0], lines[0]


@pytest.mark.unit
def test_pipelines_lists_registry(tmp_path: Path) -> None:
    p = _run(["pipelines"], tmp_path)
    assert p.returncode == 0
    names = [ln.split()[0] for ln in p.stdout.splitlines()]
    assert names == list(PIPELINES)
    assert "(default)" in p.stdout


@pytest.mark.unit
def test_pipelines_json_gives_every_spec_with_stages_and_parameters(tmp_path: Path) -> None:
    p = _run(["pipelines", "--json"], tmp_path)
    assert p.returncode == 0, p.stderr
    specs = json.loads(p.stdout)
    pipelines = [s for s in specs if s["type"] == "pipeline"]
    assert [s["name"] for s in pipelines] == list(PIPELINES)
    assert [s["name"] for s in pipelines if s["default"]] == ["auto"]
    for s in pipelines:
        assert s["stages"] and all(st["kind"] and st["name"] and isinstance(st["params"], dict) for st in s["stages"]), s
    hybrid = next(s for s in pipelines if s["name"] == "hybrid")
    assert any(st["params"].get("k") == 60 for st in hybrid["stages"]), hybrid  # RRF's k, as the description says
    assert {s["type"] for s in specs} >= {"post_step", "ingest_step"}


@pytest.mark.unit
@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("missing.pdf", None, "no such file"),
        ("empty.txt", b"", "empty file"),
        ("fake.md", bytes(range(256)) * 8, "binary"),
        ("notes.xyz", b"hello", "unsupported file type"),
        ("bad.pdf", b"%PDF-1.7\n\x00\x01 broken", ""),
    ],
)
def test_bad_input_one_line(tmp_path: Path, name: str, content: bytes | None, reason: str) -> None:
    f = tmp_path / name
    if content is not None:
        f.write_bytes(content)
    p = _run(["ingest", str(f)], tmp_path)
    _one_error_line(p, str(f), reason)
    assert not (tmp_path / "index").exists()


@pytest.mark.unit
def test_unknown_pipeline_names_available(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "a.md").write_text("# 보험\n\n비급여 항목은 보장하지 않습니다.", "utf-8")
    assert _run(["ingest", str(kb)], tmp_path).returncode == 0
    p = _run(["search", "비급여", "--pipeline", "hyde2"], tmp_path)
    _one_error_line(p, "'hyde2'", "available:", "bm25", "hybrid")


@pytest.mark.unit
def test_search_without_index(tmp_path: Path) -> None:
    p = _run(["search", "보험"], tmp_path)
    _one_error_line(p, "no index here")


@pytest.mark.unit
def test_search_json_shape(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "a.md").write_text("# 보험\n\n## 비급여\n\n비급여 항목은 보장하지 않습니다.\n\n## 급여\n\n급여 항목은 보장합니다.", "utf-8")
    assert _run(["ingest", str(kb)], tmp_path).returncode == 0
    p = _run(["search", "비급여", "--json", "--k", "2"], tmp_path)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["lists"] == {"bm25": "ready", "dense": "ready"}
    top = out["hits"][0]
    assert top["doc"] == "a.md" and "비급여" in top["text"] and top["rank"] == 1
    assert set(top) >= {"chunk_id", "pages", "article", "paragraph", "span", "yakgwan"}


@pytest.mark.unit
def test_eval_json_contract(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    (kb / "faq").mkdir(parents=True)
    (kb / "faq" / "a.md").write_text("# 환불\n\n출발 30일 전 취소하면 전액 환불합니다.", "utf-8")
    (kb / "faq" / "b.md").write_text("# 보험\n\n해외 의료비는 3,000만원까지 보장합니다.", "utf-8")
    tests = tmp_path / "tests.jsonl"
    rows = [
        {"question": "취소하면 환불되나요?", "keywords": ["전액"], "reference_answer": "", "category": "direct", "source_docs": ["faq/a.md"]},
        {"question": "해외 의료비 보장 한도는?", "keywords": ["3,000만원"], "reference_answer": "", "category": "numeric", "source_docs": ["faq/b.md"]},
    ]
    tests.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), "utf-8")
    out, html = tmp_path / "eval.json", tmp_path / "r.html"
    p = _run(["eval", "--corpus", str(kb), "--tests", str(tests), "--pipeline", "bm25", "--pipeline", "hybrid",
              "--k", "5", "--json", str(out), "--report", str(html)], tmp_path)
    assert p.returncode == 0, p.stderr
    res = json.loads(out.read_text("utf-8"))
    assert [r["pipeline"] for r in res] == ["bm25", "hybrid"]
    for r in res:
        assert r["n"] == 2 and r["k"] == 5
        assert set(r["metrics"]) == {"mrr", "ndcg", "precision", "recall", "keyword_coverage"}
        assert set(r["seed_metrics"]) >= {"mrr", "ndcg", "precision", "recall", "keyword_coverage"}
        assert set(r["by_category"]) == {"direct", "numeric"}
        assert set(r["latency_ms"]) == {"p50", "p95"}
        assert r["load_1m"]["mean"] >= 0 and r["load_1m"]["max"] >= r["load_1m"]["mean"] and r["load_1m"]["cores"] >= 1
        assert len(r["per_query"]) == 2
    assert res[0]["metrics"]["mrr"] == pytest.approx(1.0)
    assert "<svg" in html.read_text("utf-8")
    assert res[0]["stage_ms"]["llm"] == 0.0 and "llm" not in res[0]  # no LLM step: all of it is retrieval
    p = _run(["eval", "--corpus", str(kb), "--tests", str(tests), "--pipeline", "bm25", "--limit", "1", "--json", str(out)], tmp_path)
    assert p.returncode == 0, p.stderr
    one = json.loads(out.read_text("utf-8"))[0]
    assert one["n"] == 1 and one["per_query"][0]["query"] == rows[0]["question"] and "first 1 of 2 questions" in one["source"]
    p = _run(["eval", "--corpus", str(kb), "--tests", str(tests), "--limit", "0"], tmp_path)
    assert p.returncode != 0 and "--limit must be > 0" in p.stderr
    # runs made separately go in one table; a run on other questions does not
    assert res[0]["questions_sha256"] == res[1]["questions_sha256"] != one["questions_sha256"]
    assert res[0]["corpus_sha256"] == one["corpus_sha256"] and len(res[0]["corpus_sha256"]) == 64
    solo = tmp_path / "solo.json"
    p = _run(["eval", "--corpus", str(kb), "--tests", str(tests), "--pipeline", "dense", "--k", "5", "--json", str(solo)], tmp_path)
    assert p.returncode == 0, p.stderr
    both, md, summary = tmp_path / "both.html", tmp_path / "table.md", tmp_path / "summary.json"
    p = _run(["report", str(out), str(solo), "--out", str(both), "--markdown", str(md), "--summary", str(summary)], tmp_path)
    assert p.returncode != 0 and "n = 1" in p.stderr and "n = 2" in p.stderr and str(out) in p.stderr  # eval.json holds the --limit run
    out.write_text(json.dumps(res, ensure_ascii=False), "utf-8")
    p = _run(["report", str(out), str(solo), "--out", str(both), "--markdown", str(md), "--summary", str(summary)], tmp_path)
    assert p.returncode == 0, p.stderr
    lines = md.read_text("utf-8").splitlines()
    assert [ln.split(" | ")[0] for ln in lines[2:5]] == ["| bm25", "| hybrid", "| dense"]
    assert any(ln.startswith("Source: ") and "(n=2, k=5)" in ln for ln in lines)
    assert "recall@5 by category, minus bm25:" in lines and "| pipeline | direct (n=1) | numeric (n=1) |" in lines
    kept = json.loads(summary.read_text("utf-8"))
    assert [r["pipeline"] for r in kept] == ["bm25", "hybrid", "dense"] and all("per_query" not in r for r in kept)
    assert rows[0]["question"] not in summary.read_text("utf-8")
    assert html.read_text("utf-8").count("<tr><th>") < both.read_text("utf-8").count("<tr><th>")


@pytest.mark.unit
def test_readme_first_screen_commands_exist() -> None:
    readme = (REPO / "README.md").read_text("utf-8")
    first_screen = "\n".join(readme.splitlines()[:25])
    assert "bash scripts/demo.sh" in first_screen and "bash scripts/test.sh" in first_screen and "bash scripts/serve.sh" in first_screen
    assert "yakgwan serve" in (REPO / "scripts" / "serve.sh").read_text("utf-8")
    ci = (REPO / ".ci" / "run").read_text("utf-8")
    assert "bash scripts/test.sh" in ci
    assert "pytest" in (REPO / "scripts" / "test.sh").read_text("utf-8")


@pytest.mark.unit
def test_serve_starts_prints_its_url_and_answers(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys
    import time
    import urllib.request

    from live_server import free_port

    port = free_port()
    env = {**os.environ, "YAKGWAN_DATA_DIR": str(tmp_path / "data"), "YAKGWAN_CACHE_DIR": str(tmp_path / "c"), "YAKGWAN_EMBEDDER": "hashing"}
    proc = subprocess.Popen([sys.executable, "-m", "yakgwan.cli", "serve", "--port", str(port), "--quiet"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()  # type: ignore[union-attr]
        assert f"web app at http://localhost:{port}/" in line, line
        deadline = time.monotonic() + 90  # generous: the models warm up in the background, and a busy machine is slow
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health", timeout=10) as res:
                    assert json.loads(res.read())["status"] == "ok"
                    break
            except OSError:
                assert time.monotonic() < deadline, "the server did not answer"
                time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as res:
            assert "/static/main.js" in res.read().decode("utf-8")  # the page; its words come from /api/messages
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    bad = _run(["serve", "--port", "70000"], tmp_path)
    assert bad.returncode != 0 and "--port must be 1–65535" in bad.stderr


@pytest.mark.unit
def test_demo_on_bundled_sample(tmp_path: Path) -> None:
    sample = REPO / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"
    p = _run(["demo", str(sample)], tmp_path)
    assert p.returncode == 0, p.stderr
    assert "약관 3" in p.stdout and "chunks" in p.stdout
    # each example search shows a hit with its 약관 and article
    assert p.stdout.count("Q: ") == 3
    assert "교통사고처리지원금 특별약관 · 제1조(보험금의 지급사유)" in p.stdout
    assert "보통약관 · 제5조(보험금의 청구)" in p.stdout


def _pdf_bytes(kind: str) -> bytes:
    import io

    pypdf = pytest.importorskip("pypdf")
    w = pypdf.PdfWriter()
    w.add_blank_page(width=595, height=842)  # a page with no text layer, like a scan
    if kind == "encrypted":
        w.encrypt(user_password="secret", owner_password="owner", algorithm="AES-128")
    buf = io.BytesIO()
    w.write(buf)
    return buf.getvalue()


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.unit
@pytest.mark.parametrize(
    "name, make, reason",
    [
        ("encrypted.pdf", lambda: _pdf_bytes("encrypted"), "encrypted"),
        ("scanned.pdf", lambda: _pdf_bytes("scanned"), "no legible text"),
        ("truncated.pdf", lambda: _pdf_bytes("scanned")[:200], ""),
        ("empty.pdf", lambda: b"", "empty file"),
        ("binary.md", lambda: bytes(range(256)) * 8, "binary"),
        ("garbled.txt", lambda: "보험금 지급사유 비급여 항목 안내".encode("utf-8").decode("cp1253", "replace").encode("utf-8"), "garbled"),
        ("notes.xyz", lambda: b"hello", "unsupported"),
    ],
)
def test_bad_input_leaves_existing_index_unchanged(tmp_path: Path, name: str, make, reason: str) -> None:
    good = tmp_path / "good.md"
    good.write_text("# 보험\n\n비급여 항목은 보장하지 않습니다.", "utf-8")
    assert _run(["ingest", str(good)], tmp_path).returncode == 0
    before = _tree(tmp_path / "index")
    bad = tmp_path / name
    bad.write_bytes(make())
    p = _run(["ingest", str(bad)], tmp_path)
    _one_error_line(p, str(bad), reason)
    assert _tree(tmp_path / "index") == before


@pytest.mark.unit
def test_huge_file_rejected_without_reading(tmp_path: Path) -> None:
    big = tmp_path / "huge.pdf"
    with open(big, "wb") as fh:
        fh.write(b"%PDF-1.7\n")
        fh.truncate(200 * 1024 * 1024)
    p = _run(["ingest", str(big)], tmp_path)
    _one_error_line(p, str(big), "too large")


@pytest.mark.unit
def test_cp949_file_ingests(tmp_path: Path) -> None:
    f = tmp_path / "legacy.txt"
    f.write_bytes("제1조(목적) 이 약관은 비급여 의료비 보상에 관한 사항을 정합니다.".encode("cp949"))
    assert _run(["ingest", str(f)], tmp_path).returncode == 0
    out = json.loads(_run(["search", "비급여", "--json"], tmp_path).stdout)
    assert out["hits"][0]["doc"] == "legacy.txt" and "비급여" in out["hits"][0]["text"]


@pytest.mark.unit
def test_mixed_folder_exit_code_and_listing(tmp_path: Path) -> None:
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "ok.md").write_text("# 환불\n\n전액 환불합니다.", "utf-8")
    (kb / "bad.pdf").write_bytes(b"junk")
    p = _run(["ingest", str(kb)], tmp_path)
    assert p.returncode == 3
    assert "failed (1):" in p.stderr and "bad.pdf" in p.stderr and "not a PDF" in p.stderr
    assert "added 1" in p.stdout
    p = _run(["ingest", str(kb), "--strict", "--index", str(tmp_path / "strict")], tmp_path)
    _one_error_line(p, "bad.pdf", "--strict")
    assert not (tmp_path / "strict").exists()


@pytest.mark.unit
@pytest.mark.parametrize(("error", "said", "code"), [
    (OSError(28, "No space left on device", "/idx/g2/vectors.npy"), "error: disk full (/idx/g2/vectors.npy): free some space", 2),
    (OSError("363264 requested and 95200 written"), "error: disk full: free some space", 2),  # numpy's short write
    (OSError(30, "Read-only file system", "/ro/index"), "error: the folder is read-only (/ro/index)", 2),
    (PermissionError(13, "Permission denied", "/root/x"), "error: permission denied (/root/x): Permission denied", 2),
    (OSError(5, "Input/output error"), "internal error: OSError", 70),
])
def test_a_disk_problem_is_said_in_words(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], error: OSError, said: str, code: int) -> None:
    import yakgwan.cli.search as search
    from yakgwan.cli import main

    def fail(args, settings):  # type: ignore[no-untyped-def]
        raise error

    monkeypatch.setattr(search, "cmd_pipelines", fail)
    monkeypatch.delenv("YAKGWAN_DEBUG", raising=False)
    assert main(["pipelines"]) == code
    assert said in capsys.readouterr().err


def test_the_command_line_speaks_korean_under_a_korean_locale(tmp_path: Path) -> None:
    """LANG=ko_KR.* (or YAKGWAN_LANG=ko) gives Korean errors and reports; C or en_US English; a
    language yakgwan does not have is refused in words."""
    ko = {"YAKGWAN_LANG": "", "LC_ALL": "", "LC_MESSAGES": "", "LANG": "ko_KR.UTF-8"}
    p = _run(["ingest", str(tmp_path / "없는파일.pdf")], tmp_path, ko)
    _one_error_line(p, "yakgwan ingest: 오류: ", "없는파일.pdf")
    sample = REPO / "src" / "yakgwan" / "samples" / "sample_yakgwan.txt"
    done = _run(["ingest", str(sample)], tmp_path, ko)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("색인 ") and "문서 1개 (추가 1, 교체 0, 그대로 0)" in done.stdout and "하이브리드 검색 준비 완료" in done.stdout
    found = _run(["search", "보험금 청구 서류", "--k", "2"], tmp_path, ko)
    assert found.returncode == 0 and found.stdout.startswith("[") and "BM25 준비됨 · 의미 검색 준비됨 · " in found.stdout.splitlines()[0], found.stdout
    # how the answer was made (a note) is said in the language too, on the terminal and in --json
    answered = _run(["ask", "보험금 청구 서류는 무엇인가요"], tmp_path, ko)
    assert answered.returncode == 0 and "참고: 로그 확률을 주는 언어 모델이 없어 질문과 겹치는 낱말로 문장을 골랐습니다" in answered.stderr, answered.stderr
    as_json = json.loads(_run(["ask", "보험금 청구 서류는 무엇인가요", "--json"], tmp_path, {**ko, "LANG": "C.UTF-8"}).stdout)
    assert as_json["notes"] == ["no LLM with log-probabilities: sentences chosen by word overlap with the question"]
    english = _run(["ingest", str(sample)], tmp_path, {**ko, "LANG": "C.UTF-8"})
    assert "documents 1 (added 0, replaced 0, unchanged 1)" in english.stdout and "hybrid ready after" in english.stdout
    folder = tmp_path / "모음"
    folder.mkdir()
    (folder / "빈.txt").write_bytes(b"")
    (folder / "깨진.txt").write_bytes(b"\xff\xfe\x00\xd8")  # a UTF-16 byte-order mark, then half a surrogate pair
    nothing = _run(["ingest", str(folder)], tmp_path, ko)
    assert nothing.returncode == 2 and "색인할 것이 없습니다: 파일 2개를 읽지 못했고" in nothing.stderr, nothing.stderr
    assert "빈.txt: 빈 파일입니다" in nothing.stderr and "깨진.txt: UTF-16 바이트 순서 표시로 시작하지만 올바른 UTF-16이 아닙니다" in nothing.stderr
    refused = _run(["ingest", str(sample)], tmp_path, {"YAKGWAN_LANG": "fr"})
    _one_error_line(refused, "YAKGWAN_LANG='fr': use one of ko, en")


def test_a_notice_whose_reason_is_not_recognised_lists_its_sentences_and_takes_the_reason_given(tmp_path: Path) -> None:
    policy = tmp_path / "policy.txt"
    policy.write_text("보통약관\n\n제1조(보상하는 손해) 회사는 피보험자가 교통사고로 상해를 입은 때에 보험금을 지급합니다.\n\n"
                      "제2조(보상하지 않는 손해) 회사는 피보험자가 음주운전을 하는 동안 생긴 손해는 보상하지 않습니다.\n", "utf-8")
    notice = tmp_path / "notice.txt"
    notice.write_text("보험금 지급 안내\n\n고객님께서 청구하신 건에 대해 안내드립니다.\n검토 결과를 알려 드립니다.\n", "utf-8")
    p = _run(["appeal", str(notice), "--policy", str(policy), "--analysis", "rules"], tmp_path)
    assert p.returncode == 2 and "no recognisable denial reason" in p.stderr.splitlines()[0] and "Traceback" not in p.stderr
    assert "--reason" in p.stderr and "    고객님께서 청구하신 건에 대해 안내드립니다." in p.stderr.splitlines()
    given = "음주운전 중 사고이므로 보통약관 제2조에 따라 보험금을 지급하지 않습니다."
    done = _run(["appeal", str(notice), "--policy", str(policy), "--analysis", "rules", "--reason", given], tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"reason 1: {given}" in done.stdout and "cited: 보통약관 제2조 (found)" in done.stdout


@pytest.mark.unit
def test_a_name_that_changes_the_texts_direction_is_shown_escaped_by_search_ask_and_outline(tmp_path: Path) -> None:
    # "\u202efdp.txt" would show as "txt.pdf"; every line that names the file shows the character as an escape
    kb = tmp_path / "kb"
    kb.mkdir()
    (kb / "\u202efdp.txt").write_text("제1조(목적) 이 약관은 보험금 지급을 정합니다.", "utf-8")
    (kb / "\u2066a\nb.md").write_text("# 보험금\n\n보험금은 청구한 날부터 3영업일 이내에 지급합니다.", "utf-8")
    assert _run(["ingest", str(kb)], tmp_path).returncode == 0
    env = dict(os.environ, YAKGWAN_INDEX=str(tmp_path / "index"), YAKGWAN_CACHE_DIR=str(tmp_path / "cache"), YAKGWAN_EMBEDDER="hashing")
    outline = subprocess.run([sys.executable, "-m", "yakgwan.cli", "outline"], capture_output=True, text=True, env=env, timeout=300)
    for args, p in ((["search", "보험금 지급"], None), (["ask", "보험금은 언제 지급하나요?"], None), (["outline"], outline)):
        p = p or _run(args, tmp_path)
        assert p.returncode == 0, p.stderr
        shown = p.stdout + p.stderr
        assert not any(ch in shown for ch in "\u202e\u2066"), (args, shown)
        assert "\\u202efdp.txt" in shown or "\\u2066a\\nb.md" in shown, (args, shown)
    # --json too: the same JSON value (parsed, the name is the file's), every such character spelled as an escape
    for args in (["search", "보험금 지급", "--json"], ["ask", "보험금은 언제 지급하나요?", "--json"], ["outline", "--json"]):
        p = subprocess.run([sys.executable, "-m", "yakgwan.cli", *args], capture_output=True, text=True, env=env, timeout=300)
        assert p.returncode == 0, p.stderr
        assert not any(ch in p.stdout for ch in "\u202e\u2066"), (args, p.stdout[:300])
        assert "\u202efdp.txt" in json.dumps(json.loads(p.stdout), ensure_ascii=False) or "\u2066a\nb.md" in json.dumps(json.loads(p.stdout), ensure_ascii=False)


@pytest.mark.unit
def test_json_text_spells_direction_and_control_characters_as_escapes_and_keeps_the_value() -> None:
    from yakgwan.core.errors import json_text

    value = {"name": "계약\u202efdp.md", "note": "a\u2028b\x85c\nd", "list": ["\u2066x\u2069", 1]}
    text = json_text(value)
    assert json.loads(text) == value  # the same JSON value
    assert not any(ch in text for ch in "\u202e\u2028\x85\u2066\u2069")
    assert '"계약\\u202efdp.md"' in text and "\\u2028" in text and "\\u0085" in text and "\\n" in text  # Korean as it is
    assert json_text([1], indent=1) == "[\n 1\n]"  # the indent's own newlines are no escapes
