"""Compare PDF text extractors on the KB policy (or any PDF): speed, Korean spacing, table rows.

    python bench/pdf_extractors.py [PDF] [--pages N]

Extractors: pypdf ``extract_text``, pdfplumber ``extract_text``, pypdfium2 ``get_text_range``
(pdfium's own reading order) and ``yakgwan`` (pdfium text rectangles regrouped into visual lines,
the way ``yakgwan.ingest.loaders.pdf`` reads a PDF, before page furniture is stripped).

Columns:
  ms/page     wall time per page, single process, file already in the OS cache.
  chars       characters extracted.
  glued_head  lines ending in an article heading "제N조(제목)" after a sentence end on the same line
              ("…체결됩니다. 제2조(용어의 정의)"): two lines merged into one, which hides structure.
  wrap/1k     Hangul followed by a line break and Hangul ("청\\n약을"), per 1,000 Hangul words: a
              word broken at the margin reaches the index as two fragments. An upper bound: a heading
              ending in Hangul before a line starting with Hangul counts too, for every extractor.
  long/1k     Hangul words of 15 or more syllables per 1,000 Hangul words: spaces lost between words
              (Korean policy words are rarely longer; glued words inflate this).
  spaced/1k   runs of three or more one-syllable Hangul words ("보 험 금"), per 1,000 Hangul words:
              spaces inserted inside words.
  rows        share of table rows (tables found by pdfplumber's ruling-line detector, rows with at
              least two non-empty cells) whose first two cells appear on one line, in order.
  tabbed      share of those rows whose two cells are separated by a tab.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

DEFAULT = Path(__file__).resolve().parents[1].parent / "shared/data/policies/kb_smart_driver/kb_smart_driver_terms.pdf"
HANGUL_WORD = re.compile(r"[가-힣]+")
# a heading "제N조(제목)" that ends its line but follows a sentence end on the same line
GLUED_HEAD = re.compile(r"다\.[ \t]*제\s*\d+\s*조(?:의\s*\d+)?\s*\((?:[^()\n]|\([^()\n]*\))*\)\s*$", re.MULTILINE)


def run_pypdf(path: Path, n: int) -> list[str]:
    import pypdf

    reader = pypdf.PdfReader(path)
    return [reader.pages[i].extract_text() or "" for i in range(n)]


def run_pdfplumber(path: Path, n: int) -> list[str]:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return [pdf.pages[i].extract_text() or "" for i in range(n)]


def run_pdfium(path: Path, n: int) -> list[str]:
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(path)
    return [pdf[i].get_textpage().get_text_range().replace("\r\n", "\n") for i in range(n)]


def run_yakgwan(path: Path, n: int) -> list[str]:
    import pypdfium2 as pdfium

    from yakgwan.ingest.loaders.pdf import extract_lines, glue_wrapped_words, right_margin

    pdf = pdfium.PdfDocument(path)
    pages = extract_lines(pdf)[:n]
    right = right_margin(pages)
    return ["\n".join(glue_wrapped_words(p, right)) for p in pages]


EXTRACTORS = {"pypdf": run_pypdf, "pdfplumber": run_pdfplumber, "pypdfium2": run_pdfium, "yakgwan": run_yakgwan}


def reference_rows(path: Path, n: int) -> dict[int, list[tuple[str, str]]]:
    """Per page, the first lines of the first two non-empty cells of every table row."""
    import pdfplumber

    rows: dict[int, list[tuple[str, str]]] = {}
    with pdfplumber.open(path) as pdf:
        for i in range(n):
            for table in pdf.pages[i].find_tables():
                for row in table.extract():
                    cells = [c.strip().splitlines()[0].strip() for c in row if c and c.strip()]
                    if len(cells) >= 2 and cells[0] and cells[1]:
                        rows.setdefault(i, []).append((cells[0], cells[1]))
    return rows


def spacing(text: str) -> dict[str, float]:
    words = HANGUL_WORD.findall(text)
    per_k = 1000 / max(len(words), 1)
    spaced = re.findall(r"(?:(?<=\s)|^)[가-힣](?:[ ][가-힣]){2,}(?=\s|$)", text, flags=re.MULTILINE)
    return {"wrap/1k": len(re.findall(r"[가-힣]\n[가-힣]", text)) * per_k,
            "long/1k": sum(len(w) >= 15 for w in words) * per_k,
            "spaced/1k": len(spaced) * per_k}


def row_scores(pages: list[str], rows: dict[int, list[tuple[str, str]]]) -> tuple[float, float]:
    total = kept = tabbed = 0
    for i, pairs in rows.items():
        lines = pages[i].splitlines()
        for a, b in pairs:
            total += 1
            hit = next((ln for ln in lines if a in ln and b in ln[ln.index(a) + len(a):]), None)
            if hit is not None:
                kept += 1
                between = hit[hit.index(a) + len(a):]
                tabbed += "\t" in between[:between.index(b) + 1]
    return kept / max(total, 1), tabbed / max(total, 1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pdf", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--pages", type=int, default=0, help="first N pages only (0: all)")
    args = ap.parse_args(argv)
    if not args.pdf.exists():
        print(f"{args.pdf}: not found (the KB policy lives in ../shared)", file=sys.stderr)
        return 2
    import pypdfium2 as pdfium

    n = len(pdfium.PdfDocument(args.pdf))
    n = min(n, args.pages) if args.pages else n
    rows = reference_rows(args.pdf, n)
    print(f"{args.pdf.name}: {n} pages, {sum(map(len, rows.values()))} reference table rows "
          f"on {len(rows)} pages")
    print(f"{'extractor':<11}{'ms/page':>9}{'chars':>9}{'glued_head':>11}{'wrap/1k':>9}{'long/1k':>9}"
          f"{'spaced/1k':>10}{'rows':>7}{'tabbed':>8}")
    for name, run in EXTRACTORS.items():
        started = time.perf_counter()
        pages = run(args.pdf, n)
        ms = (time.perf_counter() - started) * 1000 / n
        text = "\n".join(pages)
        glued = len(GLUED_HEAD.findall(text))
        s = spacing(text)
        kept, tabbed = row_scores(pages, rows)
        print(f"{name:<11}{ms:>9.1f}{len(text):>9}{glued:>11}{s['wrap/1k']:>9.1f}{s['long/1k']:>9.2f}"
              f"{s['spaced/1k']:>10.2f}{kept:>7.0%}{tabbed:>8.0%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
