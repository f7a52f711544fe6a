"""Reading a PDF by its layout (``yakgwan.ingest.pdf``): each mechanism on a small PDF the test
builds itself (two columns, two pages on one sheet, a glyph drawn twice, a side tab, a page with
no text layer, a broken text layer), and the pure steps with hand-made glyphs."""

from __future__ import annotations

from pathlib import Path

import pytest

from pdfs import build_pdf, picture_pdf
from pictures import need_tesseract, rasterise
from yakgwan.ingest.loaders.pdf import PdfLoader
from yakgwan.ingest.pdf.columns import find_gutter
from yakgwan.ingest.pdf.edges import TabCut, _gaps, recurring, tab_cuts
from yakgwan.ingest.pdf.glyphs import DRAWN, GUESSED, Glyph
from yakgwan.ingest.pdf.lines import build_rows, drop_doubles, segments
from yakgwan.ingest.pdf.marks import circled, resolve_marks
from yakgwan.ingest.pdf.quality import Layer, judge, odd_share

LEFT = ["제1조(목적)", "이 계약은 보험계약자와 회사 사이에,", "피보험자의 위험을 보장하기 위하여,", "체결됩니다. 왼쪽 단의 끝입니다."]
RIGHT = ["제2조(용어의 정의)", "이 계약에서 사용되는 용어의 뜻은,", "다음과 같습니다. 오른쪽 단입니다.", "계약자는 회사와 계약한 사람입니다."]


# sentences of different lengths and word breaks: the spaces of monospaced lines must not line
# up into a white river down the page (a gutter)
SENTENCES = ["회사는 피보험자가 보험기간 중에 상해를 입은 경우 보험금을 지급합니다.", "계약자는 청약을 철회할 수 있습니다.",
             "보험수익자는 서류를 제출하고 보험금을 청구하여야 합니다.", "이 특별약관에서 정하지 아니한 사항은 보통약관을 따릅니다.",
             "다만, 피보험자의 고의로 인한 손해는 보상하지 아니합니다.", "보험금 청구권은 3년간 행사하지 않으면 소멸시효가 완성됩니다.",
             "회사는 접수한 날부터 3영업일 이내에 보험금을 드립니다.", "계약 전 알릴 의무를 위반한 경우 계약을 해지할 수 있습니다."]


def _load(tmp_path: Path, data: bytes, name: str = "p.pdf", ocr: bool = False):
    path = tmp_path / name
    path.write_bytes(data)
    return PdfLoader(ocr=ocr).load(path, tmp_path)[0]


def _two_columns(x_left: float, x_right: float) -> list[tuple[float, float, str]]:
    runs = []
    for i, (a, b) in enumerate(zip(LEFT, RIGHT)):
        y = 760 - 14 * i
        runs += [(x_left, y, a), (x_right, y, b)]
    return runs


@pytest.mark.unit
def test_two_columns_are_read_column_by_column(tmp_path: Path) -> None:
    doc = _load(tmp_path, build_pdf([_two_columns(40, 320)]))
    lines = doc.text.splitlines()
    assert lines == LEFT + RIGHT  # the left column whole, then the right; no line joins the two


@pytest.mark.unit
def test_a_landscape_sheet_of_two_pages_is_read_page_by_page(tmp_path: Path) -> None:
    sheet = []
    for i in range(6):  # two pages side by side, each one column of text, a wide gutter between
        y = 540 - 14 * i
        sheet += [(30, y, f"왼{i + 1} " + SENTENCES[i]), (470, y, f"오{i + 1} " + SENTENCES[i + 2])]
    doc = _load(tmp_path, build_pdf([sheet], size=(842, 595)))
    lines = doc.text.splitlines()
    assert [ln.split()[0] for ln in lines] == [f"왼{i}" for i in range(1, 7)] + [f"오{i}" for i in range(1, 7)]


@pytest.mark.unit
def test_a_table_of_label_and_text_cells_is_read_by_rows(tmp_path: Path) -> None:
    rows = [(60, 760 - 14 * i, label) for i, label in enumerate(["계약자", "피보험자", "보험수익자", "보험증권"])]
    rows += [(200, 760 - 14 * i, text) for i, text in enumerate(["회사와 계약을 체결하고 보험료를 납입하는 사람", "보험사고의 대상이 되는 사람",
                                                                 "보험금을 받는 사람", "계약의 성립을 증명하는 증서"])]
    lines = _load(tmp_path, build_pdf([rows])).text.splitlines()
    assert lines[0] == "계약자\t회사와 계약을 체결하고 보험료를 납입하는 사람" and len(lines) == 4


@pytest.mark.unit
def test_a_glyph_drawn_twice_is_read_once(tmp_path: Path) -> None:
    bold = [(72, 760, "제3조(보험금의 지급사유)"), (72.4, 760.2, "제3조(보험금의 지급사유)"), (72, 740, "회사는 보험금을 지급합니다.")]
    doc = _load(tmp_path, build_pdf([bold]))
    assert doc.text.splitlines()[0] == "제3조(보험금의 지급사유)"


@pytest.mark.unit
def test_a_side_tab_down_the_edge_of_many_pages_is_dropped(tmp_path: Path) -> None:
    pages = []
    for no in range(4):
        body = [(60, 780 - 14 * i, "갑을병정"[no] + " " + SENTENCES[(i + no) % 8]) for i in range(8)]
        # one letter a row, at the page edge (a space after it: pdfium leaves out a text object
        # that is one two-byte glyph of the tests' bare font)
        tab = [(570, 700 - 12 * i, ch + " ") for i, ch in enumerate("보통약관")]
        pages.append(body + tab)
    doc = _load(tmp_path, build_pdf(pages))
    lines = doc.text.splitlines()
    assert "".join(ln[-1] for ln in lines) == "." * 32  # every line ends where its sentence does
    assert sorted(ln[2:] for ln in lines) == sorted(SENTENCES * 4)


@pytest.mark.unit
def test_a_narrow_column_on_one_page_is_not_a_side_tab(tmp_path: Path) -> None:
    pages = [[(60, 780 - 14 * i, SENTENCES[(i + no) % 8]) for i in range(6)] for no in range(4)]
    pages[1] += [(570, 700 - 12 * i, ch + " ") for i, ch in enumerate("눈귀코")]  # short cells of a table, on one page only
    doc = _load(tmp_path, build_pdf(pages))
    assert all(ch in doc.text for ch in "눈귀코")


@pytest.mark.unit
def test_digits_drawn_out_of_stream_order_are_read_where_they_stand(tmp_path: Path) -> None:
    # the text layer gives "제 조 보험금의 지급사유 4 ( )": the digits and brackets come last in the stream
    runs = [(72, 760, "제 조 보험금의 지급사유"), (82, 760, "4"), (102, 760, "("), (202, 760, ")"), (72, 740, "회사는 보험금을 지급합니다.")]
    doc = _load(tmp_path, build_pdf([runs]))
    assert doc.text.splitlines()[0].replace(" ", "") == "제4조(보험금의지급사유)"


@pytest.mark.unit
def test_a_private_use_paragraph_mark_is_numbered_in_its_article(tmp_path: Path) -> None:
    runs = [(72, 760, "제18조(청약의 철회)"), (72, 745, "\uf000 계약자는 청약을 철회할 수 있습니다."),
            (72, 730, "\uf000 회사는 보험료를 돌려드립니다."), (72, 715, "다만 \uf000 표시는 글자가 아닙니다.")]
    lines = _load(tmp_path, build_pdf([runs])).text.splitlines()
    assert lines[1].startswith("① 계약자는") and lines[2].startswith("② 회사는") and lines[3] == "다만 표시는 글자가 아닙니다."


@pytest.mark.unit
def test_a_broken_text_layer_is_sent_to_ocr_and_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from yakgwan.ingest.pdf import ocr_pages as module
    from yakgwan.ingest.pdf.ocr import OcrPage

    asked: list[int] = []

    def fake(pdf, source, numbers, on_page=None):
        asked.extend(numbers)
        for n in numbers:
            on_page and on_page(n)
        return "tesseract (kor)", {n: OcrPage(n, "제3조(보험금의 지급사유)\n회사는 보험금을 지급합니다.", 91.0, 8) for n in numbers}

    monkeypatch.setattr(module, "ocr_pages", fake)
    good = [(72, 760, "제1조(목적) 이 계약은 체결됩니다."), (72, 740, "제2조(정의) 용어의 뜻입니다.")]
    broken = [(72, 760, "제 조 보험금의 지급사유 ( )"), (72, 740, "제 조 보험금을 지급하지 않는 사유 ( )"), (72, 720, "제 조 청구 ( )")]
    done: list[tuple[int, int]] = []
    path = tmp_path / "p.pdf"
    path.write_bytes(build_pdf([good, broken]))
    doc = PdfLoader(on_ocr_page=lambda d, t: done.append((d, t))).load(path, tmp_path)[0]
    assert asked == [2] and doc.ocr_pages == (2,) and done == [(1, 1)]
    assert "제3조(보험금의 지급사유)" in doc.text and "제 조" not in doc.text


@pytest.mark.integration
def test_a_page_that_is_a_picture_is_read_by_ocr_and_named_in_a_warning(tmp_path: Path) -> None:
    need_tesseract()
    from yakgwan.config import EmbedderConfig, Settings
    from yakgwan.services.ingest import ingest

    png = rasterise("제1조(목적)\n이 계약은 보험계약자와 회사 사이에 체결됩니다.\n제2조(보험금의 지급사유)\n회사는 보험금을 지급합니다.", tmp_path / "page.png")
    pdf = picture_pdf(png, tmp_path / "docs" / "scan.pdf") if (tmp_path / "docs").mkdir() is None else None
    doc = PdfLoader().load(pdf, tmp_path)[0]
    assert doc.ocr_pages == (1,) and doc.ocr_engine and doc.ocr_engine.startswith("tesseract")
    assert "보험금의지급사유" in doc.text.replace(" ", "") and doc.ocr_confidence is not None and doc.ocr_confidence > 60
    settings = Settings(index_dir=tmp_path / "index", cache_dir=tmp_path / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)
    report = ingest(settings, [pdf])
    [said] = [w.text("en") for w in report.warnings]
    assert said.startswith(f"{pdf}: no usable text layer on page(s) 1 of 1; read by OCR (tesseract")  # the page's number, then the count


@pytest.mark.unit
def test_without_ocr_a_picture_page_is_named_unread(tmp_path: Path) -> None:
    png = rasterise("제1조(목적)\n이 계약은 체결됩니다.", tmp_path / "page.png")
    scan = picture_pdf(png, tmp_path / "scan.pdf")
    text = build_pdf([[(72, 760, "제1조(목적) 이 계약은 보험계약자와 회사 사이에 체결됩니다.")]])
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for f in (tmp_path / "t.pdf", scan):
        if f.name == "t.pdf":
            f.write_bytes(text)
        writer.add_page(PdfReader(f).pages[0])
    both = tmp_path / "both.pdf"
    with both.open("wb") as fh:
        writer.write(fh)
    doc = PdfLoader(ocr=False).load(both, tmp_path)
    assert doc[0].unread_pages == (2,) and [p.page for p in doc[0].pages] == [1]


# ---- pure steps, with hand-made glyphs ----------------------------------------------------

def _g(ch: str, x: float, top: float = 100.0, size: float = 10.0, space_after: int = 0) -> Glyph:
    return Glyph(ch, x, top, x + size, top + size, space_after=space_after)


@pytest.mark.unit
def test_spaces_come_from_the_stream_where_the_gap_agrees_and_from_wide_gaps() -> None:
    row = [_g("가", 0, space_after=DRAWN), _g("나", 10.6), _g("다", 20.6, space_after=GUESSED), _g("라", 30.7),
           _g("마", 40.7, space_after=GUESSED), _g("바", 52.4), _g("사", 66.0)]
    # 가-나: a drawn space and a gap of 0.6 (> 0.05 h): a break; 다-라: a guessed space and a gap
    # of 0.1 (< 0.15 h): none; 라-마: no space, no gap; 마-바: guessed, gap 1.7 (> 0.15 h): a
    # break; 바-사: no space but a gap of 3.6 (> 0.3 h): a break
    [seg] = segments(row)
    assert seg.text == "가 나다라마 바 사"


@pytest.mark.unit
def test_a_cell_wide_gap_ends_a_segment_and_a_drawn_final_space_stays() -> None:
    segs = segments([_g("가", 0), _g("나", 10), _g("다", 40, space_after=DRAWN)])  # gap 20 > 1.8 h
    assert [s.text for s in segs] == ["가나", "다 "]


@pytest.mark.unit
def test_drop_doubles_keeps_one_of_a_glyph_drawn_twice_and_repeated_letters() -> None:
    row = [_g("보", 0), _g("보", 0.4), _g("험", 10), _g("험", 10.3), _g("금", 20), _g("금", 30)]
    assert "".join(g.ch for g in drop_doubles(row)) == "보험금금"  # a real repeat (금금) is 10 pt apart


@pytest.mark.unit
def test_rows_hold_superscripts_and_split_baselines() -> None:
    glyphs = [_g("가", 0, 100), _g("1", 10, 98, 5), _g("나", 0, 114)]
    rows = build_rows(glyphs)
    assert ["".join(g.ch for g in r.glyphs) for r in rows] == ["가1", "나"]


@pytest.mark.unit
def test_a_gutter_needs_columns_on_both_sides() -> None:
    two = build_rows([_g(ch, x + 11 * k, 100 + 14 * i) for i in range(6) for x in (0, 300) for k, ch in enumerate("가나다라마바사아자차카타파하")])
    assert find_gutter(two) == pytest.approx((153.0, 300.0), abs=1.0)
    one = build_rows([_g(ch, 11 * k, 100 + 14 * i) for i in range(6) for k, ch in enumerate("가나다라마바사아자차카타파하" * 3)])
    assert find_gutter(one) is None


@pytest.mark.unit
def test_gaps_of_a_union_of_spans_by_hand() -> None:
    assert _gaps([(0, 5), (3, 8), (10, 12), (15, 20)], 0, 20) == [(8, 10), (12, 15)]
    assert _gaps([(2, 4)], 0, 10) == [(0, 2), (4, 10)]
    assert _gaps([(0, 10)], 0, 10) == []


@pytest.mark.unit
def test_a_tab_counts_when_it_recurs_at_the_same_inset() -> None:
    body = [_g(ch, 40 + 10 * k, 100 + 14 * i) for i in range(10) for k, ch in enumerate("본문의줄은여기서끝납니다한줄")]
    tab = [_g(ch, 560, 100 + 14 * i) for i, ch in enumerate("보통약관")]
    page = body + tab
    [cut] = tab_cuts(page, 595)
    assert cut.side == 1 and 560 - 400 > 0 and 595 - cut.x(595) == pytest.approx(cut.inset)
    assert 180 < cut.x(595) < 560
    pages = [(page, 595.0)] * 4 + [(body, 595.0)]
    found = recurring([tab_cuts(g, w) for g, w in pages], pages)
    assert [len(f) for f in found] == [1, 1, 1, 1, 0]
    assert recurring([tab_cuts(page, 595)] + [()] * 9, [(page, 595.0)] + [(body, 595.0)] * 9) == [()] * 10
    assert TabCut(-1, 20.0).x(595) == 20.0


@pytest.mark.unit
@pytest.mark.parametrize("text, picture, layer", [
    ("", True, Layer.MISSING),
    ("보통약관", True, Layer.MISSING),  # a few letters over a picture: the picture is the page
    ("", False, Layer.GOOD),  # blank
    ("제 조 보험금의 지급사유 ( )\n제 조 보험금을 지급하지 않는 사유 ( )", False, Layer.BROKEN),
    ("제조업자의 제조물 책임은 보상하지 않습니다. 제3조(보험금의 지급사유)에 따릅니다.", False, Layer.GOOD),
    ("°í°´ÀÇ ¼º¸í°ú ÁÖ¼Ò¸¦ È®ÀÎÇÕ´Ï´Ù º¸Çè±Ý", False, Layer.MOJIBAKE),
    ("제1조(목적) 이 계약은 체결됩니다 ① ② ㎞ 「」 【】 Ⅱ", False, Layer.GOOD),
])
def test_the_text_layer_is_judged(text: str, picture: bool, layer: Layer) -> None:
    assert judge(text, picture) is layer


@pytest.mark.unit
def test_odd_share_by_hand() -> None:
    assert odd_share("가나ÀÇ") == 0.5 and odd_share("  ") == 0.0


@pytest.mark.unit
def test_marks_restart_in_each_article_and_follow_printed_numbers() -> None:
    lines = ["제1조(목적)", "\uf000 첫째", "\uf000 둘째", "제2조(정의)", "① 인쇄된 번호", "\uf000 다음", "표\uf000 안"]
    assert resolve_marks(lines) == ["제1조(목적)", "① 첫째", "② 둘째", "제2조(정의)", "① 인쇄된 번호", "② 다음", "표 안"]
    assert circled(1) == "①" and circled(20) == "⑳"
    with pytest.raises(ValueError, match="n must be between 1 and 20"):
        circled(21)


@pytest.mark.unit
def test_a_column_holding_a_small_table_is_still_a_column(tmp_path: Path) -> None:
    # the left column carries an example table (rows of cells) on half of its rows; the right
    # column is text: the page is two columns, not a table set twice side by side
    runs = []
    for i in range(8):
        y = 760 - 14 * i
        if i % 2:
            runs += [(40, y, f"예{i}"), (120, y, f"칸{i}")]
        else:
            runs.append((40, y, f"왼{i} " + SENTENCES[i][:18]))
        runs.append((320, y, f"오{i} " + SENTENCES[i][:18]))
    lines = _load(tmp_path, build_pdf([runs])).text.splitlines()
    firsts = [ln.split()[0].split("\t")[0] for ln in lines]
    assert firsts.index("오0") > max(firsts.index(f"예{i}") for i in (1, 3, 5, 7))  # the left column first, whole
    assert not any("\t오" in ln for ln in lines)  # no row joins the two columns


@pytest.mark.unit
def test_a_left_line_ending_inside_the_gutter_does_not_glue_the_right_columns_heading(tmp_path: Path) -> None:
    runs = []
    runs = []
    for i in range(12):  # two columns of 20-glyph lines: the left ends at x 240, the right starts at 320
        y = 760 - 14 * i
        left = f"왼{i:02d} " + SENTENCES[i % 8][:15] + "." if i != 5 else f"왼{i:02d} " + SENTENCES[i % 8][:16] + "."  # 10 pt into the gutter
        right = "제3조(보상내용)" if i == 5 else f"오{i:02d} " + SENTENCES[(i + 3) % 8][:15] + "."
        runs += [(40, y, left), (320, y, right)]
    lines = _load(tmp_path, build_pdf([runs])).text.splitlines()
    assert "제3조(보상내용)" in lines  # its own line, not glued to the left line beside it
    order = [ln[:3] for ln in lines]
    assert order == [f"왼{i:02d}" for i in range(12)] + ["오00", "오01", "오02", "오03", "오04", "제3조"[:3]] + [f"오{i:02d}" for i in range(6, 12)]


@pytest.mark.unit
def test_a_label_cell_beside_a_wrapped_cell_is_read_before_it(tmp_path: Path) -> None:
    # a term | meaning table: each term is printed halfway down its meaning, which wraps over
    # two lines; reading by rows would put the term inside the meaning's sentence
    runs = [(60, 760, "용어"), (200, 760, "정의")]
    y = 740
    for term, first, second in [("보험증권", "계약의 성립과 그 내용을 증명하기 위하여", "회사가 드리는 증서를 말합니다."),
                                ("진단계약", "계약을 체결하기 위하여 건강진단을", "받아야 하는 계약을 말합니다.")]:
        runs += [(200, y, first), (60, y - 7, term), (200, y - 14, second)]
        y -= 28
    text = _load(tmp_path, build_pdf([runs])).text
    squashed = "".join(text.split())
    assert "계약의성립과그내용을증명하기위하여회사가드리는증서를말합니다." in squashed
    assert "계약을체결하기위하여건강진단을받아야하는계약을말합니다." in squashed
    assert squashed.index("보험증권") < squashed.index("계약의성립") < squashed.index("진단계약") < squashed.index("계약을체결")


@pytest.mark.unit
def test_labels_first_moves_only_a_short_outdented_line_inside_a_sentence() -> None:
    from yakgwan.ingest.pdf.columns import Line
    from yakgwan.ingest.pdf.furniture import labels_first

    def ln(text: str, x: float) -> Line:
        return Line(text, False, False, x, 10.0)

    cell = [ln("계약을 체결하기 위하여 건강진단을", 200), ln("진단계약", 60), ln("받아야 하는 계약을 말합니다.", 200)]
    assert [x.text for x in labels_first(cell)] == ["진단계약", "계약을 체결하기 위하여 건강진단을", "받아야 하는 계약을 말합니다."]
    ended = [ln("회사는 보험금을 지급합니다.", 200), ln("제5조(준용)", 60), ln("이 특약에 없는 사항은", 200)]
    assert labels_first(ended) == ended  # the line before ends its sentence: a heading, not a label
    item = [ln("다음의 경우에는 보험금을", 200), ln("1. 고의", 60), ln("지급하지 않습니다.", 200)]
    assert labels_first(item) == item  # an item marker is never a label
    long = [ln("다음의 경우에는 보험금을", 200), ln("이 줄은 라벨이라기에는 너무나 긴 문장입니다", 60), ln("지급하지 않습니다.", 200)]
    assert labels_first(long) == long


@pytest.mark.unit
def test_a_top_row_holding_both_columns_text_is_read_with_the_columns(tmp_path: Path) -> None:
    # a page with no top margin: its first row, set apart by a gap, holds the left column's last
    # sentence and the right column's title; it is not a running header
    runs = [(40, 830, "왼0 앞 단에서 이어지는 문장의 끝입니다."), (320, 830, "3. 나 보장 특별약관")]
    for i in range(8):
        y = 780 - 14 * i
        runs += [(40, y, f"왼{i + 1} " + SENTENCES[i][:16] + "."), (320, y, f"오{i + 1} " + SENTENCES[(i + 3) % 8][:16] + ".")]
    lines = _load(tmp_path, build_pdf([runs])).text.splitlines()
    assert "3. 나 보장 특별약관" in lines and not any("\t" in ln for ln in lines)
    assert lines.index("3. 나 보장 특별약관") == lines.index(next(ln for ln in lines if ln.startswith("오1"))) - 1
    assert lines[0].startswith("왼0")
