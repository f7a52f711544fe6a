"""What an upload is, read from its bytes the way ``ingest`` reads files."""

from __future__ import annotations

import pytest

from yakgwan.server.problems import Problem
from yakgwan.server.runtime.uploads import sniff

pytestmark = pytest.mark.unit

KO = "# 보험금 청구\n\n보험수익자는 청구서와 사고증명서를 제출합니다.\n"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_text_with_its_byte_order_mark_is_text(encoding: str) -> None:
    bom = {"utf-16": b"", "utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}[encoding]
    data = bom + KO.encode(encoding)
    assert data[:2] in (b"\xff\xfe", b"\xfe\xff") and b"\x00" in data
    assert sniff(data, "청구.md").kind == "markdown"
    assert sniff(data, "청구.txt").kind == "text"


def test_html_that_mentions_a_pdf_header_is_html_and_a_fragment_keeps_its_name() -> None:
    page = "<!doctype html><html><body><p>파일은 %PDF-1.7 로 시작합니다.</p></body></html>".encode()
    assert sniff(page, "안내.html").kind == "html"
    fragment = "<p>청약 철회는 15일 이내</p>".encode()
    assert sniff(fragment, "조각.html").kind == "html" and sniff(fragment, "조각.txt").kind == "text"


def test_pdfs_and_binaries() -> None:
    assert sniff(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "a.pdf").kind == "pdf"
    assert sniff(b"\x00\x01junk%PDF-1.4\n\x00\xff\xfe binary", "b.pdf").kind == "pdf"  # bytes before the header
    # a picture is told by its signature (a notice may be one: read by OCR); other binaries are refused
    assert sniff(b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "image.png").kind == "png" and sniff(b"\xff\xd8\xff\xe0" + b"\x00" * 64, "사진.JPEG").kind == "jpeg"
    with pytest.raises(Problem, match="named .png but the content is a PDF"):
        sniff(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "scan.png")
    with pytest.raises(Problem, match="binary content"):
        sniff(b"GIF89a" + b"\x00" * 64, "image.gif")
    with pytest.raises(Problem, match="named .pdf but the content is plain text"):
        sniff(KO.encode(), "policy.pdf")


@pytest.mark.parametrize("encoding", ["utf-8", "cp949", "utf-16"])
@pytest.mark.parametrize("shift", [0, 1, 2])
def test_a_large_korean_text_is_text_wherever_the_sniffed_prefix_ends(encoding: str, shift: int) -> None:
    """The kind is told from the first 256 KB; a cut inside a character (a UTF-8 syllable is 3
    bytes, a cp949 one 2) must not make the file unreadable."""
    from yakgwan.server.runtime.uploads import SNIFF_BYTES

    data = ("가" * shift + KO * (SNIFF_BYTES // 40)).encode(encoding)
    assert len(data) > SNIFF_BYTES
    assert sniff(data, "약관.md").kind == "markdown"
