"""Pages of a PDF read by OCR: those whose text layer is missing or broken
(``yakgwan.ingest.pdf.quality``), rendered to a grey picture and read by Debian's tesseract
with its Korean model (``yakgwan.ingest.pdf.ocr``).

Tesseract's own threads slow each other down on a small machine (a page took 8.7 s with two
OpenMP threads and 3.5 s with one, on 2 cores), so each page is read by a process of one
thread and as many pages at a time as there are cores (at most ``MAX_WORKERS``).
"""

from __future__ import annotations

import os
import tempfile
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Callable

from yakgwan.ingest.pdf.ocr import OcrPage, read_image, tesseract

DPI = 200  # 300 dpi read no better on 약관 type (10 pt and up) and took 15 % longer
MODE = "3"  # tesseract's automatic page segmentation: a page may hold columns and tables
# a page where it finds (almost) nothing is read again as one block of text: the automatic mode
# finds no text on a divider page whose one heading is set large (a 보통약관 cover read empty)
BLOCK_MODE = "6"
RETRY_BELOW = 20  # characters
MAX_WORKERS = 4


def _read(exe: str, image: Path, number: int, source: str) -> OcrPage:
    page = read_image(exe, image, number, DPI, source, MODE, 1)
    if len("".join(page.text.split())) >= RETRY_BELOW:
        return page
    again = read_image(exe, image, number, DPI, source, BLOCK_MODE, 1)
    return again if len("".join(again.text.split())) > len("".join(page.text.split())) else page


def ocr_pages(pdf, source: str, numbers: list[int], on_page: Callable[[int], None] | None = None) -> tuple[str, dict[int, OcrPage]]:
    """The engine's name and each page in ``numbers`` (1-based) of the open pypdfium2 ``pdf``
    as read by OCR. An ``InputError`` naming ``source`` when tesseract or its Korean model is
    missing; ``on_page(n)`` after each page is read."""
    exe, engine = tesseract(source)
    workers = max(1, min(os.cpu_count() or 1, MAX_WORKERS, len(numbers)))
    out: dict[int, OcrPage] = {}
    with tempfile.TemporaryDirectory(prefix="yakgwan-ocr-") as tmp, ThreadPoolExecutor(workers) as pool:
        running: dict[int, Future[OcrPage]] = {}
        for n in numbers:
            image = Path(tmp) / f"p{n}.png"
            page = pdf[n - 1]
            try:
                page.render(scale=DPI / 72, grayscale=True).to_pil().save(image)
            finally:
                page.close()
            running[n] = pool.submit(_read, exe, image, n, source)
            if len(running) >= 2 * workers:  # bound the pictures waiting on disk
                first = min(running)
                out[first] = running.pop(first).result()
                if on_page:
                    on_page(first)
        for n in sorted(running):
            out[n] = running[n].result()
            if on_page:
                on_page(n)
    return engine, out
