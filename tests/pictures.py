"""Pictures of text for the OCR tests: a notice drawn line by line in Noto Sans KR (the font the
evidence packs embed), and the check that Debian's tesseract with its Korean model is there."""

from __future__ import annotations

import shutil
import subprocess
from importlib.resources import as_file, files
from pathlib import Path

import pytest


def need_tesseract() -> str:
    """The tesseract program, or a skip that says how to install it with its Korean model."""
    exe = shutil.which("tesseract")
    if exe is None or "kor" not in subprocess.run([exe, "--list-langs"], capture_output=True, text=True).stdout.split():
        pytest.skip("Debian's tesseract-ocr and tesseract-ocr-kor are not installed (scripts/install-ocr.sh installs them)")
    return exe


def rasterise(text: str, out: Path) -> Path:
    """``text`` drawn black on white, 28 px Noto Sans KR, one line per line: a picture of a page."""
    from PIL import Image, ImageDraw, ImageFont

    lines = text.splitlines()
    with as_file(files("pylopdf_fonts_ko") / "NotoSansKR-Regular.otf") as font_path:
        font = ImageFont.truetype(str(font_path), 28)
    width = 120 + max(int(font.getlength(line)) for line in lines)
    image = Image.new("L", (width, 60 + 44 * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((60, 30 + 44 * i), line, fill=0, font=font)
    image.save(out)
    return out
