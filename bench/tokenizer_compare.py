"""Compare Korean tokenizers for BM25: analyser speed and BM25-only retrieval quality.

Usage::

    python bench/tokenizer_compare.py [--shared ../shared/data] [--k 10] [--json OUT]

Data (read in place, never copied): skytravel (knowledge_base/**/*.md, chunked two ways:
~500-character chunks and markdown-header sections; 102 dev questions, relevance = source_docs)
and autorag_ko (BEIR; each corpus row as one chunk, and long rows split into ~500-character
chunks). A document's rank is the rank of its best chunk. Metrics at k: MRR, Recall, nDCG
(binary gains, IDCG over min(k, #relevant) ideal hits).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time
from dataclasses import dataclass
from pathlib import Path

from yakgwan.retrieval.scoring.bm25 import BM25Index
from yakgwan.text.registry import make_tokenizer
from yakgwan.text.tokenizer import TokenizerConfig

CHUNK_CHARS = 500
CHUNK_POOL = 200  # chunks retrieved before folding them into documents


@dataclass(frozen=True)
class Dataset:
    name: str
    chunk_texts: list[str]
    chunk_docs: list[str]
    queries: list[str]
    relevant: list[set[str]]


# ------------------------------------------------------------------ chunking
def split_chars(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """Greedy packing of paragraphs (then sentences, then hard cuts) into chunks of <= size."""
    pieces: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        if len(para) <= size:
            pieces.append(para)
            continue
        for sent in re.split(r"(?<=[.!?다요])\s+|\n", para):
            pieces.extend(sent[i:i + size] for i in range(0, len(sent), size))
    chunks, cur = [], ""
    for p in (p.strip() for p in pieces):
        if not p:
            continue
        if cur and len(cur) + 1 + len(p) > size:
            chunks.append(cur)
            cur = p
        else:
            cur = f"{cur}\n{p}" if cur else p
    if cur:
        chunks.append(cur)
    return chunks


def split_headers(text: str) -> list[str]:
    """One chunk per markdown section (a header line and the text up to the next header)."""
    parts = re.split(r"(?m)^(?=#{1,6}\s)", text)
    return [p.strip() for p in parts if p.strip()]


# ------------------------------------------------------------------ datasets
def load_skytravel(root: Path, mode: str) -> Dataset:
    kb = root / "knowledge_base"
    texts, docs = [], []
    for path in sorted(kb.rglob("*.md")):
        text = path.read_text("utf-8")
        for chunk in (split_chars(text) if mode == "500" else split_headers(text)):
            texts.append(chunk)
            docs.append(path.relative_to(kb).as_posix())
    rows = [json.loads(line) for line in (root / "tests_dev.jsonl").read_text("utf-8").splitlines() if line.strip()]
    return Dataset(f"skytravel/{mode}", texts, docs, [r["question"] for r in rows], [set(r["source_docs"]) for r in rows])


def load_autorag(root: Path, split_long: bool) -> Dataset:
    texts, docs = [], []
    for line in (root / "corpus.jsonl").read_text("utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        body = f"{row.get('title') or ''}\n{row['text']}".strip()
        for chunk in (split_chars(body) if split_long and len(body) > 2 * CHUNK_CHARS else [body]):
            texts.append(chunk)
            docs.append(row["_id"])
    qrels: dict[str, set[str]] = {}
    for line in (root / "qrels.tsv").read_text("utf-8").splitlines()[1:]:
        qid, did, score = line.split("\t")
        if float(score) > 0:
            qrels.setdefault(qid, set()).add(did)
    queries = [json.loads(line) for line in (root / "queries.jsonl").read_text("utf-8").splitlines() if line.strip()]
    queries = [q for q in queries if q["_id"] in qrels]
    name = "autorag/split" if split_long else "autorag/rows"
    return Dataset(name, texts, docs, [q["text"] for q in queries], [qrels[q["_id"]] for q in queries])


# ------------------------------------------------------------------ metrics
def doc_ranking(hits: list[tuple[int, float]], chunk_docs: list[str], k: int) -> list[str]:
    seen: list[str] = []
    for row, _ in hits:
        doc = chunk_docs[row]
        if doc not in seen:
            seen.append(doc)
            if len(seen) == k:
                break
    return seen


def metrics_at_k(ranked: list[str], relevant: set[str], k: int) -> dict[str, float]:
    """MRR@k = 1/rank of the first relevant; Recall@k = found/|relevant|;
    nDCG@k = sum 1/log2(rank+1) over relevant hits / the same sum over min(k, |relevant|) ranks."""
    top = ranked[:k]
    first = next((i for i, d in enumerate(top, 1) if d in relevant), None)
    dcg = sum(1 / math.log2(i + 1) for i, d in enumerate(top, 1) if d in relevant)
    idcg = sum(1 / math.log2(i + 1) for i in range(1, min(k, len(relevant)) + 1))
    return {
        "mrr": 1 / first if first else 0.0,
        "recall": len(set(top) & relevant) / len(relevant),
        "ndcg": dcg / idcg if idcg else 0.0,
    }


def evaluate(ds: Dataset, chunk_tokens: list[list[str]], query_tokens: list[list[str]], k: int) -> dict[str, float]:
    start = time.perf_counter()
    index = BM25Index.build(chunk_tokens)
    build_s = time.perf_counter() - start
    totals = {"mrr": 0.0, "recall": 0.0, "ndcg": 0.0}
    for qt, rel in zip(query_tokens, ds.relevant):
        ranked = doc_ranking(index.search(qt, CHUNK_POOL), ds.chunk_docs, k)
        for key, value in metrics_at_k(ranked, rel, k).items():
            totals[key] += value
    out = {key: value / len(ds.queries) for key, value in totals.items()}
    out["build_s"] = build_s
    return out


# ------------------------------------------------------------------ runs
CONFIGS = {
    "kiwi": ("kiwi", TokenizerConfig(compound_parts=False)),
    "kiwi+parts": ("kiwi", TokenizerConfig(compound_parts=True)),
    "kiwi+parts-negfix": ("kiwi", TokenizerConfig(compound_parts=True, attach_prefixes=False)),
    "mecab": ("mecab", TokenizerConfig(compound_parts=False)),
    "mecab+parts": ("mecab", TokenizerConfig(compound_parts=True)),
    "mecab+parts-negfix": ("mecab", TokenizerConfig(compound_parts=True, attach_prefixes=False)),
}


def speed(label: str, texts: list[str]) -> dict[str, float]:
    name, config = CONFIGS[label]
    tok = make_tokenizer(name, config)
    start = time.perf_counter()
    tok.tokenize("보험금 지급")
    load_s = time.perf_counter() - start
    n_chars = sum(len(t) for t in texts)
    runs = []
    for _ in range(2):  # the first pass also fills kiwi's compound-part cache
        start = time.perf_counter()
        tok.tokenize_many(texts)
        runs.append(time.perf_counter() - start)
    return {"load_s": load_s, "chars_per_s": n_chars / runs[0], "chars_per_s_warm": n_chars / runs[1], "chars": n_chars}


def run(shared: Path, k: int) -> dict[str, dict]:
    sets = [
        load_skytravel(shared / "skytravel", "500"),
        load_skytravel(shared / "skytravel", "headers"),
        load_autorag(shared / "autorag_ko", split_long=False),
        load_autorag(shared / "autorag_ko", split_long=True),
    ]
    make_tokenizer("kiwi").tokenize("워밍업")  # page the kiwi model in once so load times compare
    results: dict[str, dict] = {}
    for label, (name, config) in CONFIGS.items():
        results[label] = {"speed": speed(label, sets[2].chunk_texts)}
        tok = make_tokenizer(name, config)
        for ds in sets:
            chunk_tokens = tok.tokenize_many(ds.chunk_texts)
            query_tokens = tok.tokenize_many(ds.queries)
            results[label][ds.name] = evaluate(ds, chunk_tokens, query_tokens, k)
        print(f"done {label}", flush=True)
    return results


def print_table(results: dict[str, dict], k: int) -> None:
    sets = [s for s in next(iter(results.values())) if s != "speed"]
    print(f"\nBM25 (Lucene, k1=1.2, b=0.75), document level @ {k}: MRR / Recall / nDCG")
    header = f"{'tokenizer':<20}{'load s':>7}{'kchar/s':>9}{'warm':>6}" + "".join(f"{s:>24}" for s in sets)
    print(header)
    print("-" * len(header))
    for label, res in results.items():
        cells = "".join(f"{res[s]['mrr']:>8.3f}{res[s]['recall']:>8.3f}{res[s]['ndcg']:>8.3f}" for s in sets)
        sp = res["speed"]
        print(f"{label:<20}{sp['load_s']:>7.2f}{sp['chars_per_s'] / 1000:>9.0f}{sp['chars_per_s_warm'] / 1000:>6.0f}{cells}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "data")
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if not args.shared.exists():
        raise SystemExit(f"{args.shared}: shared data folder not found (pass --shared)")
    results = run(args.shared, args.k)
    print_table(results, args.k)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2, ensure_ascii=False), "utf-8")


if __name__ == "__main__":
    main()
