"""False refusals: answerable questions that ``ask`` refuses although the 조 that governs them is
among the first three hits of the same search.

Not a test. Two sets of questions that name their governing 조: policy_qa dev over the KB policy
(halves: even rows tune, odd rows check) and the answerable questions of
``../shared/data/policies/multi/gold`` asked within their document (halves by insurer, as
``bench/answerability.py``: 캐롯, 한화, 롯데 tune; DB, KB, 메리츠 check). For each question the
default pipeline's first three hits (``search``) are matched to the gold governing 조 (its 약관
and 조 number, a clone 특약 listed under a hit counting), then the question is put to ``ask``
(offline, the default pipeline, k = 5). Printed per set and half: the questions whose governing
조 is in the first three, and how many of those ``ask`` refused, answered partly or answered; each
false refusal is listed with its reason.

    .venv/bin/python bench/false_refusals.py [--kb-index DIR] [--multi-index DIR]

An index folder that does not exist is made (the KB policy: about a minute; the multi set: about
six).
"""

from __future__ import annotations

import argparse
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from yakgwan.answer.ko_rules.ruleset import RuleSet
from yakgwan.config import Settings
from yakgwan.services.ask import ask_index
from yakgwan.services.ingest import ingest
from yakgwan.services.search import search_index

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"
KB_PDF = SHARED / "policies" / "kb_smart_driver" / "kb_smart_driver_terms.pdf"
POLICY_QA = SHARED / "policy_qa" / "questions_dev.jsonl"
MULTI = SHARED / "policies" / "multi"
MULTI_TUNE = frozenset({"캐롯손해보험", "한화손해보험", "롯데손해보험"})
TOP = 3


def _squash(text: str | None) -> str:
    return re.sub(r"\s+", "", text or "")


def yakgwan_key(name: str | None) -> str:
    """A 약관 name compared without its numbering, spaces, punctuation or 특별약관/특약 ending;
    every 보통약관 is one key (a document has one)."""
    s = re.sub(r"^\s*(?:\d+(?:-\d+)*\.?|[ⅠⅡⅢⅣⅤIVX]+\.|제\d+[편장관절])\s*", "", name or "")
    s = re.sub(r"[^0-9A-Za-z가-힣%~]", "", s)
    if s.endswith("보통약관"):
        return "보통약관"
    return re.sub(r"(?:제도성)?(?:추가)?(?:특별약관|특약)$", "", s) or s


def article_no(text: str | None) -> str | None:
    m = re.match(r"제\d+조(?:의\d+)?", _squash(text))
    return m.group(0) if m else None


def governs(hit: dict[str, Any], gold: dict[str, Any]) -> bool:
    """The hit (or a clone 특약 listed under it) is the gold 조: same 약관 and 조 number."""
    want_y, want_a = yakgwan_key(gold.get("yakgwan")), article_no(gold.get("article"))
    if not want_a:
        return False
    pieces = [hit] + [m for v in hit.values() if isinstance(v, list) for m in v if isinstance(m, dict) and "article" in m]
    return any(yakgwan_key(p.get("yakgwan")) == want_y and article_no(p.get("article")) == want_a for p in pieces)


def questions() -> Iterator[tuple[str, str, dict[str, Any], tuple[str, ...]]]:
    """(set, half, row, filters) of every answerable question that names its governing 조."""
    lines = [json.loads(l) for l in POLICY_QA.read_text("utf-8").splitlines() if l.strip()]
    for i, r in enumerate(lines):
        if r.get("answerable", True) and r.get("governing"):
            yield "policy_qa", "tune" if i % 2 == 0 else "check", r, ()
    for f in sorted((MULTI / "gold").glob("*.json")):
        g = json.loads(f.read_text("utf-8"))
        half = "tune" if g.get("insurer") in MULTI_TUNE else "check"
        for q in g.get("questions", []):
            if q.get("answerable", True) and q.get("governing") and not q.get("names_insurer"):
                yield "multi", half, q, (f"doc={g['file']}",)


def _index(where: Path, sources: list[Path]) -> Settings:
    settings = Settings.from_env().with_(index_dir=where, quiet=True)
    if not (where.exists() and any(where.iterdir())):
        print(f"indexing {len(sources)} file(s) into {where} …", flush=True)
        ingest(settings, sources, sync=True)
    return settings


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kb-index", type=Path, default=Path(".yakgwan/bench-kb"))
    ap.add_argument("--multi-index", type=Path, default=Path(".yakgwan/bench-multi"))
    args = ap.parse_args()
    if not KB_PDF.exists() or not (MULTI / "gold").exists():
        raise SystemExit(f"needs {KB_PDF} and {MULTI / 'gold'} (the ../shared folder beside the repository)")
    indexes = {"policy_qa": _index(args.kb_index, [KB_PDF]),
               "multi": _index(args.multi_index, sorted(MULTI.glob("*.pdf")))}
    tally: dict[tuple[str, str], Counter[str]] = {}
    for name, half, row, filters in questions():
        settings = indexes[name]
        hits = search_index(settings, row["question"], "default", 5, list(filters)).to_json("ko")["hits"][:TOP]
        c = tally.setdefault((name, half), Counter())
        c["questions"] += 1
        if not any(governs(h, g) for h in hits for g in row["governing"][:1]):
            continue
        c["in_top3"] += 1
        res = ask_index(settings, row["question"], "default", "auto", 5, RuleSet.all(), list(filters))
        c[res.outcome] += 1
        if res.outcome == "refused":
            print(f"  false refusal [{name}/{half}] {row['question']} → {res.reason} ({row['governing'][0].get('yakgwan')} {row['governing'][0].get('article')})")
    print(f"\n{'set':<10} {'half':<6} {'questions':>9} {'gov. in top 3':>13} {'refused':>8} {'partial':>8} {'answered':>9}")
    for (name, half), c in sorted(tally.items()):
        print(f"{name:<10} {half:<6} {c['questions']:>9} {c['in_top3']:>13} {c['refused']:>8} {c['partial']:>8} {c['answered']:>9}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
