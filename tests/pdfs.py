"""PDFs the tests build themselves: text runs placed glyph by glyph in a Korean font, and a
picture of a page saved as a PDF with no text layer."""

from __future__ import annotations

from pathlib import Path


def build_pdf(pages: list[list[tuple[float, float, str]]], font_size: int = 10, size: tuple[int, int] = (595, 842)) -> bytes:
    """A PDF whose pages (``size`` points wide and high) show ``(x, y, text)`` runs in a
    Type0/Identity-H font with a ToUnicode map (no embedded font: every glyph is 1 em wide), so
    Korean text extracts as Unicode. A run's text is drawn glyph by glyph in its order."""
    chars = sorted({c for page in pages for _, _, t in page for c in t})
    cmap = ["/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /UCS def /CMapType 2 def",
            "1 begincodespacerange <0000> <FFFF> endcodespacerange"]
    for i in range(0, len(chars), 100):
        block = chars[i:i + 100]
        cmap += [f"{len(block)} beginbfchar", *(f"<{ord(c):04X}> <{ord(c):04X}>" for c in block), "endbfchar"]
    cmap.append("endcmap CMapName currentdict /CMap defineresource pop end end")
    objs: list[bytes] = []

    def add(body: str | bytes) -> int:
        objs.append(body.encode() if isinstance(body, str) else body)
        return len(objs)

    def stream(data: bytes) -> int:
        return add(b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream")

    desc = add("<< /Type /FontDescriptor /FontName /Batang /Flags 4 /FontBBox [0 -200 1000 900] "
               "/ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>")
    cid = add(f"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /Batang /CIDSystemInfo << /Registry (Adobe) "
              f"/Ordering (Identity) /Supplement 0 >> /FontDescriptor {desc} 0 R /DW 1000 >>")
    tounicode = stream("\n".join(cmap).encode())
    font = add(f"<< /Type /Font /Subtype /Type0 /BaseFont /Batang /Encoding /Identity-H "
               f"/DescendantFonts [{cid} 0 R] /ToUnicode {tounicode} 0 R >>")
    parent = len(objs) + 2 * len(pages) + 1
    kids = []
    for page in pages:
        ops = "\n".join(f"BT /F1 {font_size} Tf {x} {y} Td <{''.join(f'{ord(c):04X}' for c in t)}> Tj ET"
                        for x, y, t in page)
        content = stream(ops.encode())
        kids.append(add(f"<< /Type /Page /Parent {parent} 0 R /MediaBox [0 0 {size[0]} {size[1]}] "
                        f"/Resources << /Font << /F1 {font} 0 R >> >> /Contents {content} 0 R >>"))
    assert add(f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>") == parent
    root = add(f"<< /Type /Catalog /Pages {parent} 0 R >>")
    out, offsets = bytearray(b"%PDF-1.7\n"), []
    for n, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objs) + 1} /Root {root} 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return bytes(out)


def picture_pdf(png: Path, out: Path) -> Path:
    """A PDF of one page that is only the picture ``png`` (no text layer): a scan."""
    from PIL import Image

    with Image.open(png) as image:
        image.convert("RGB").save(out, "PDF", resolution=200.0)
    return out
