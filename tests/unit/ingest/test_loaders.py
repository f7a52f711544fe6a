"""Loaders: encodings, content sniffing and one clear error per bad file."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest

from yakgwan.core.errors import InputError
from yakgwan.ingest.loaders import SourceFile, collect_files, load_file
from yakgwan.ingest.loaders.textdecode import decode_text, repair_mojibake

pytestmark = pytest.mark.unit

KO = "제1조(목적) 이 특별약관은 비급여 의료비를 보상합니다.\n① 회사는 보험금을 지급합니다.\n"


def _load(path: Path, **kw) -> list:
    return load_file(SourceFile(path, path.parent), **kw)


def test_utf8_markdown_title_and_ids(tmp_path: Path) -> None:
    (tmp_path / "policies").mkdir()
    f = tmp_path / "policies" / "a.md"
    f.write_text("# 여행자 보험\n\n본문입니다.\n", "utf-8")
    [doc] = load_file(SourceFile(f, tmp_path))
    assert doc.doc_id == "policies/a.md"
    assert doc.doc_type == "policies"
    assert doc.title == "여행자 보험"
    assert doc.kind == "markdown"


def test_cp949_text_is_decoded(tmp_path: Path) -> None:
    f = tmp_path / "legacy.txt"
    f.write_bytes(KO.encode("cp949"))
    [doc] = _load(f)
    assert doc.text == KO


def test_euc_kr_text_is_decoded(tmp_path: Path) -> None:
    f = tmp_path / "euc.txt"
    f.write_bytes(KO.encode("euc-kr"))
    assert _load(f)[0].text == KO


def test_clean_korean_is_not_touched_by_mojibake_repair() -> None:
    assert repair_mojibake(KO) == (KO, None)


def test_latin1_mojibake_file_repaired(tmp_path: Path) -> None:
    f = tmp_path / "moji.txt"
    f.write_text(KO.encode("utf-8").decode("latin-1"), "utf-8")
    assert _load(f)[0].text == KO


def test_unrepairable_mojibake_refused(tmp_path: Path) -> None:
    # cp1253 leaves holes for some bytes, so the round trip cannot be undone
    garbled = KO.encode("utf-8").decode("cp1253", errors="replace")
    f = tmp_path / "greek.txt"
    f.write_text(garbled, "utf-8")
    with pytest.raises(InputError, match="garbled|mojibake"):
        _load(f)


def test_binary_with_md_name(tmp_path: Path) -> None:
    f = tmp_path / "fake.md"
    f.write_bytes(bytes(range(256)) * 20)
    with pytest.raises(InputError) as e:
        _load(f)
    assert e.value.path == str(f) and "binary" in e.value.reason


def test_undecodable_bytes(tmp_path: Path) -> None:
    assert decode_text("정상".encode())[0] == "정상"
    f = tmp_path / "bad.txt"
    f.write_bytes(b"\xff\xfe\xfd" * 0 + bytes([0x81, 0x20, 0xfe, 0x41, 0xc8]) * 3 + b"\x80\x81\xff" * 50)
    with pytest.raises(InputError):
        _load(f)


def test_empty_file(tmp_path: Path) -> None:
    f = tmp_path / "empty.txt"
    f.write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        _load(f)


def test_unknown_extension_lists_supported(tmp_path: Path) -> None:
    f = tmp_path / "x.xyz"
    f.write_text("hello")
    with pytest.raises(InputError, match=r"unsupported file type '.xyz'.*\.pdf"):
        _load(f)


def test_too_large_checked_before_reading(tmp_path: Path) -> None:
    f = tmp_path / "big.txt"
    with open(f, "wb") as fh:
        fh.truncate(200 * 1024 * 1024)  # sparse 200 MB file: no disk used, never read
    with pytest.raises(InputError, match="too large"):
        _load(f)


def test_pdf_suffix_without_pdf_content(tmp_path: Path) -> None:
    f = tmp_path / "not.pdf"
    f.write_text("just text")
    with pytest.raises(InputError, match="not a PDF"):
        _load(f)


def test_missing_path() -> None:
    with pytest.raises(InputError, match="no such file"):
        collect_files([Path("/nonexistent/file.pdf")])


def test_folder_reports_unsupported_files(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# a\n\ntext", "utf-8")
    (tmp_path / "b.bin").write_bytes(b"\x00\x01")
    (tmp_path / ".hidden.md").write_text("# h", "utf-8")
    files, problems = collect_files([tmp_path])
    assert [f.path.name for f in files] == ["a.md"]
    assert len(problems) == 1 and problems[0].path.endswith("b.bin")


def test_html_visible_text_headers_and_tables(tmp_path: Path) -> None:
    f = tmp_path / "p.html"
    f.write_text(
        "<html><head><title>약관 안내</title><style>p{}</style></head><body><h2>보장 내용</h2>"
        "<script>alert(1)</script><p>상해 의료비를 보상합니다.</p>"
        "<table><tr><th>항목</th><th>금액</th></tr><tr><td>사망</td><td>1억원</td></tr></table></body></html>",
        "utf-8",
    )
    [doc] = _load(f)
    assert doc.title == "약관 안내"
    assert "## 보장 내용" in doc.text
    assert "| 사망 | 1억원 |" in doc.text
    assert "alert" not in doc.text and "p{}" not in doc.text


def test_html_flattening_by_hand_comments_breaks_and_a_table_inside_a_row(tmp_path: Path) -> None:
    from bs4 import BeautifulSoup

    from yakgwan.ingest.loaders.html import html_to_text

    raw = ("앞<div>블록<p>문단</p>꼬리</div>뒤<!-- 주석 --><h1>제목</h1><ul><li>하나</li><li>둘<br>셋</li></ul>"
           "<table><tr><td>바깥<table><tr><td>안쪽</td></tr></table></td><td>칸</td></tr></table>")
    assert html_to_text(BeautifulSoup(raw, "html.parser")) == "앞\n블록\n문단\n꼬리\n뒤\n# 제목\n\n하나\n둘\n셋\n\n| 바깥 안쪽 | 안쪽 | 칸 |"


def test_deeply_nested_html_is_refused_by_name_fast_and_deep_inline_tags_are_read(tmp_path: Path) -> None:
    import time

    n = 50_000  # 550 KB of nested <div>: flattening by inserting after every block took minutes at this size
    deep = tmp_path / "deep.html"
    deep.write_text("<div>" * n + "x" + "</div>" * n, "utf-8")
    t = time.perf_counter()
    with pytest.raises(InputError, match=r"deep\.html: HTML nests 50,000 elements deep \(more than 2000\)"):
        _load(deep)  # refused from its tags, before a parser builds the tree
    from bs4 import BeautifulSoup

    from yakgwan.ingest.loaders.html import html_to_text

    # a long list of unclosed <li> (old HTML) nests as deep in the parsed tree: it is read, not refused
    items = BeautifulSoup("<ul>" + "".join(f"<li>항목 {i}" for i in range(5000)) + "</ul>", "html.parser")
    assert html_to_text(items).splitlines()[:2] == ["항목 0", "항목 1"] and len(html_to_text(items).splitlines()) == 5000
    spans = tmp_path / "spans.html"
    spans.write_text("<p>보험금 청구</p>" + "<span>" * n + "보장 내용" + "</span>" * n, "utf-8")
    [doc] = _load(spans)
    assert doc.text == "보험금 청구\n보장 내용"
    assert time.perf_counter() - t < 10.0  # both: about 1.5 s on 2 cores


def test_a_control_character_in_a_file_name_is_escaped_in_errors_and_provenance(tmp_path: Path) -> None:
    from yakgwan.core.errors import one_line
    from yakgwan.core.records import Chunk

    assert one_line("a\nb\tc\x1bd\u2028e 제1조") == "a\\nb\\tc\\x1bd\\u2028e 제1조"
    assert one_line("\u202eevil\u2066.pdf") == "\\u202eevil\\u2066.pdf"  # a direction change shows as what it is
    bad = tmp_path / "청구\n서류.md"
    bad.write_bytes(b"")
    with pytest.raises(InputError) as err:
        _load(bad)
    assert str(err.value) == f"{tmp_path}/청구\\n서류.md: empty file" and err.value.path == str(bad)  # the path itself is kept as it is
    chunk = Chunk("c", "d", "청구\n서류.md", "t", "본문", 0, 2, (3,))
    assert chunk.citation() == "청구\\n서류.md · p.3"


def test_links_to_nothing_loops_and_deleted_files_are_listed_with_their_reason(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text(KO, "utf-8")
    (tmp_path / "gone.md").symlink_to(tmp_path / "nowhere.md")
    (tmp_path / "loop.md").symlink_to(tmp_path / "loop.md")
    files, problems = collect_files([tmp_path])
    assert [f.path.name for f in files] == ["a.md"]
    assert sorted((Path(p.path).name, p.reason) for p in problems) == [("gone.md", "a symbolic link to a missing file"),
                                                                       ("loop.md", "a symbolic link loop")]
    deleted = SourceFile(tmp_path / "a.md", tmp_path)
    (tmp_path / "a.md").unlink()  # gone between listing and reading
    with pytest.raises(InputError, match=r"a\.md: no such file \(deleted or moved\?\)"):
        load_file(deleted)
    with pytest.raises(InputError, match="a folder, not a file"):
        load_file(SourceFile(tmp_path, tmp_path))


def test_docx_paragraphs_headings_tables(tmp_path: Path) -> None:
    import docx

    d = docx.Document()
    d.add_heading("제1조(목적)", level=1)
    d.add_paragraph("이 약관은 보험계약에 관한 사항을 정합니다.")
    t = d.add_table(rows=2, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text, t.cell(1, 0).text, t.cell(1, 1).text = "항목", "금액", "벌금", "2천만원"
    f = tmp_path / "p.docx"
    d.save(f)
    [doc] = _load(f)
    assert doc.text.splitlines()[0] == "# 제1조(목적)"
    assert "| 벌금 | 2천만원 |" in doc.text


def test_docx_that_is_not_a_zip(tmp_path: Path) -> None:
    f = tmp_path / "x.docx"
    f.write_text("plain")
    with pytest.raises(InputError, match="ZIP"):
        _load(f)


def test_docx_zip_without_document(tmp_path: Path) -> None:
    f = tmp_path / "x.docx"
    with zipfile.ZipFile(f, "w") as z:
        z.writestr("hello.txt", "hi")
    with pytest.raises(InputError, match=r"not a Word \(.docx\) document"):
        _load(f)


def test_docx_archive_bombs_are_refused_before_anything_is_expanded(tmp_path: Path) -> None:
    # the command line's reader has the server's bounds: the central directory is read, nothing expanded
    bomb = tmp_path / "bomb.docx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("word/document.xml", b"0" * (20 * 1024 * 1024))  # 20 MB of zeros in ~20 KB: over 100 times its size
    assert bomb.stat().st_size < 200 * 1024
    with pytest.raises(InputError, match="would expand to 20,971,520 bytes") as err:
        _load(bomb)
    assert "bomb.docx" in str(err.value)
    many = tmp_path / "many.docx"
    with zipfile.ZipFile(many, "w") as z:
        z.writestr("word/document.xml", "<w:document/>")
        for i in range(5001):
            z.writestr(f"x/{i}", b"")
    with pytest.raises(InputError, match="5,002 entries"):
        _load(many)
    damaged = tmp_path / "damaged.docx"
    data = bomb.read_bytes()
    damaged.write_bytes(data[:-30])  # the end of the central directory cut off
    with pytest.raises(InputError):
        _load(damaged)


def _understate(path: Path, name: str, size: int) -> None:
    """Rewrite the expanded size the archive states for entry ``name`` (local header and central
    directory) as ``size``, the data left as it is: a directory that lies."""
    data = bytearray(path.read_bytes())
    raw = name.encode()
    for sig, size_at, name_at in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        at = data.find(sig)
        while at >= 0 and data[at + name_at:at + name_at + len(raw)] != raw:
            at = data.find(sig, at + 1)
        data[at + size_at:at + size_at + 4] = size.to_bytes(4, "little")
    path.write_bytes(bytes(data))


def test_a_docx_whose_directory_understates_an_entry_is_refused_before_it_is_expanded(tmp_path: Path) -> None:
    # 8 MB of zeros said to be 4 KB: within every stated bound, but a reader asking for the whole
    # entry decompresses all of it before its checksum fails
    forged = tmp_path / "forged.docx"
    with zipfile.ZipFile(forged, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", b"0" * (8 * 1024 * 1024))
    _understate(forged, "word/document.xml", 4096)
    with zipfile.ZipFile(forged) as z:
        assert z.getinfo("word/document.xml").file_size == 4096  # the lie is what the directory says
    with pytest.raises(InputError, match="understates entry word/document.xml") as err:
        _load(forged)
    assert "forged.docx" in str(err.value)
    from yakgwan.ingest.loaders.archive import docx_verdict

    verdict = docx_verdict(forged, forged.stat().st_size, "forged.docx")
    assert verdict is not None and verdict.bomb  # the server answers 413, as for any bomb
    honest = tmp_path / "honest.docx"  # small and incompressible entries, stored or deflated, are no lie
    with zipfile.ZipFile(honest, "w") as z:
        z.writestr("word/document.xml", "<w:document/>", compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("media/x.bin", bytes(range(256)) * 40, compress_type=zipfile.ZIP_DEFLATED)
        z.writestr("media/y.bin", b"\x01\x02", compress_type=zipfile.ZIP_STORED)
    assert docx_verdict(honest, honest.stat().st_size, "honest.docx") is None


def test_beir_corpus(tmp_path: Path) -> None:
    f = tmp_path / "corpus.jsonl"
    rows = [{"_id": "d1", "title": "T", "text": "본문 하나"}, {"_id": "d2", "title": "", "text": "본문 둘"}]
    f.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), "utf-8")
    docs = _load(f)
    assert [d.doc_id for d in docs] == ["d1", "d2"]
    assert docs[0].kind == "beir"


def test_jsonl_that_is_not_beir(tmp_path: Path) -> None:
    f = tmp_path / "tests.jsonl"
    f.write_text('{"question": "q"}\n', "utf-8")
    with pytest.raises(InputError, match="BEIR"):
        _load(f)


def test_curly_quotes_and_dashes_are_not_mojibake(tmp_path: Path) -> None:
    text = "제1조(용어의 정의) 이 약관에서 사용하는 용어의 뜻은 다음과 같습니다. 1. “계약자”: 회사와 계약을 체결한 사람 — ‘피보험자’와 다릅니다…\n" * 5
    f = tmp_path / "quotes.txt"
    f.write_text(text, "utf-8")
    assert _load(f)[0].text == text


def test_western_accented_text_is_accepted(tmp_path: Path) -> None:
    text = "Le contrat d'assurance prévoit une indemnité forfaitaire; élément très général. Ελληνικά κείμενα.\n"
    f = tmp_path / "fr.txt"
    f.write_text(text, "utf-8")
    assert _load(f)[0].text == text


def test_utf16_with_bom(tmp_path: Path) -> None:
    f = tmp_path / "u16.txt"
    f.write_bytes(KO.encode("utf-16"))
    assert _load(f)[0].text == KO
