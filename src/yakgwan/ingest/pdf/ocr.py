"""Text from a picture of a page: a scanned PDF, a photo or screenshot (PNG, JPEG), read by
Debian's ``tesseract-ocr`` with its Korean model (``tesseract-ocr-kor``), run as a program.

Each page comes back as lines (tesseract's own line grouping, words joined by a space) with the
mean of its word confidences (0–100), so whoever shows the text can say how sure the reading is.
A missing program or Korean model is an ``InputError`` naming the file and what to install; a
picture with no legible text is one too, never an empty text passed on.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from yakgwan.messages import msg
from yakgwan.core.errors import InputError

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
LANGUAGE = "kor"  # Korean alone: adding "eng" read Korean words of a letter as Latin ("ARS" for 사유로)
PAGE_MODE = "4"  # one column of text of varied sizes: a letter (the automatic mode garbled a plain one)
PDF_DPI = 300  # scanned pages are rendered at this resolution before reading
MIN_CHARS = 10  # fewer non-space characters than this on every page: nothing legible
TIMEOUT_S = 300  # one page


@dataclass(frozen=True)
class OcrPage:
    """One page as read: its text (lines joined by newlines) and the mean word confidence."""

    number: int
    text: str
    confidence: float
    words: int


@dataclass(frozen=True)
class OcrText:
    """What OCR read from one file: ``engine`` names the program, its version and language."""

    source: str
    engine: str
    pages: tuple[OcrPage, ...]

    @property
    def text(self) -> str:
        return "\n\n".join(p.text for p in self.pages if p.text)

    @property
    def confidence(self) -> float:
        """The mean word confidence over all pages, weighted by words (0 when none)."""
        words = sum(p.words for p in self.pages)
        return sum(p.confidence * p.words for p in self.pages) / words if words else 0.0


def tesseract(source: str) -> tuple[str, str]:
    """The program's path and its version line; an ``InputError`` naming ``source`` when the
    program or its Korean model is missing."""
    exe = shutil.which("tesseract")
    if exe is None:
        raise InputError(source, msg("ocr.needed", install=msg("ocr.install")))
    langs = subprocess.run([exe, "--list-langs"], capture_output=True, text=True, timeout=60)
    if LANGUAGE not in (langs.stdout + langs.stderr).split():
        raise InputError(source, msg("ocr.no_korean", language=LANGUAGE, install=msg("ocr.install")))
    version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60)
    first = ((version.stdout or version.stderr).splitlines() or ["tesseract"])[0].strip()
    return exe, first


def page_of(txt: str, tsv: str, number: int = 1) -> OcrPage:
    """A page from tesseract's two outputs for one picture (pure): the text from its plain-text
    output (whose word spacing is the page's; the TSV splits Korean words into pieces), blank
    lines dropped; the confidence is the mean over the TSV's word rows (level 5; a confidence
    of -1 marks layout, not a word)."""
    confs = []
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        if row.get("level") == "5" and (row.get("text") or "").strip() and float(row.get("conf") or -1) >= 0:
            confs.append(float(row["conf"]))
    text = "\n".join(line.rstrip() for line in txt.splitlines() if line.strip())
    return OcrPage(number, roman_numerals(text), sum(confs) / len(confs) if confs else 0.0, len(confs))


# a Roman numeral in parentheses, as tesseract's Korean model reads it: strokes as "|", "!", "l"
_STROKES = re.compile(r"\(\s*([|!lIㅣ]{1,3})\s*\)")


def roman_numerals(text: str) -> str:
    """"골절발생위로금(||)" -> "골절발생위로금(II)" (pure): a run of one to three strokes alone in
    parentheses is a Roman numeral (a pipe, "!" or a lone vowel ㅣ there is never a letter's own text)."""
    return _STROKES.sub(lambda m: "(" + "I" * len(m.group(1)) + ")", text)


def read_image(exe: str, image: Path, number: int, dpi: int | None, source: str, mode: str = PAGE_MODE,
               threads: int | None = None) -> OcrPage:
    """One picture read by tesseract (``exe``) in page segmentation ``mode``; ``threads``: the
    OpenMP threads it may use (None: its default, all cores)."""
    # the program inherits this process's environment, with its OpenMP threads limited
    limit = ["env", f"OMP_THREAD_LIMIT={threads}"] if threads and shutil.which("env") else []
    with tempfile.TemporaryDirectory(prefix="yakgwan-ocr-") as tmp:
        base = Path(tmp) / "page"
        args = [*limit, exe, str(image), str(base), "-l", LANGUAGE, "--psm", mode, *(["--dpi", str(dpi)] if dpi else []), "txt", "tsv"]
        try:
            done = subprocess.run(args, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise InputError(source, msg("ocr.timeout", page=number, seconds=TIMEOUT_S)) from None
        if done.returncode != 0:
            raise InputError(source, msg("ocr.failed", page=number, why=done.stderr.strip()[-300:] or f"tesseract exit code {done.returncode}"))
        return page_of(base.with_suffix(".txt").read_text("utf-8"), base.with_suffix(".tsv").read_text("utf-8"), number)


def _checked(source: str, engine: str, pages: list[OcrPage]) -> OcrText:
    if not any(len("".join(p.text.split())) >= MIN_CHARS for p in pages):
        raise InputError(source, msg("ocr.illegible"))
    return OcrText(source, f"{engine} ({LANGUAGE})", tuple(pages))


def ocr_image(path: Path) -> OcrText:
    """The text of a PNG or JPEG picture of a page."""
    source = str(path)
    exe, engine = tesseract(source)
    return _checked(source, engine, [read_image(exe, path, 1, None, source)])


def ocr_pdf(path: Path) -> OcrText:
    """The text of a PDF's pages read as pictures (a scan without a text layer)."""
    import pypdfium2 as pdfium

    source = str(path)
    exe, engine = tesseract(source)
    try:
        pdf = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise InputError(source, msg("ocr.corrupt_pdf", why=str(exc))) from None
    pages = []
    try:
        with tempfile.TemporaryDirectory(prefix="yakgwan-ocr-") as tmp:
            for i in range(len(pdf)):
                image = Path(tmp) / f"p{i + 1}.png"
                pdf[i].render(scale=PDF_DPI / 72).to_pil().save(image)
                pages.append(read_image(exe, image, i + 1, PDF_DPI, source))
    finally:
        pdf.close()
    return _checked(source, engine, pages)
