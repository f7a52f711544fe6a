"""Test sets: the seed format (a folder of documents + JSONL questions) and the BEIR format."""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from yakgwan.core.errors import InputError


@dataclass(frozen=True)
class EvalQuery:
    qid: str
    text: str
    relevant: dict[str, int]
    keywords: tuple[str, ...] = ()
    category: str | None = None
    reference_answer: str | None = None


@dataclass(frozen=True)
class EvalSet:
    name: str
    corpus: Path
    queries: list[EvalQuery] = field(default_factory=list)
    source: str = ""


def load_seed(corpus: Path, tests: Path) -> EvalSet:
    """Seed format: ``corpus`` is the knowledge-base folder (document ids are paths relative to
    it), ``tests`` has one ``{"question", "keywords", "reference_answer", "category",
    "source_docs"}`` object per line."""
    if not corpus.is_dir():
        raise InputError(str(corpus), "--corpus must be the knowledge-base folder")
    queries = []
    for lineno, row in _jsonl(tests):
        q, sources, keywords = row.get("question") if isinstance(row, dict) else None, None, None
        if isinstance(row, dict):
            sources, keywords = row.get("source_docs"), row.get("keywords") or []
        if not isinstance(q, str) or not q.strip() or not _str_list(sources) or not _str_list(keywords):
            raise InputError(str(tests), f"line {lineno}: needs 'question' (text), 'source_docs' and 'keywords' as lists of strings")
        queries.append(
            EvalQuery(
                qid=str(row.get("id", lineno)),
                text=q,
                relevant={s: 1 for s in sources},
                keywords=tuple(keywords),
                category=row.get("category"),
                reference_answer=row.get("reference_answer"),
            )
        )
    if not queries:
        raise InputError(str(tests), "no questions")
    return EvalSet(name=f"{corpus.parent.name or corpus.name}/{tests.name}", corpus=corpus, queries=queries, source=str(tests))


def load_beir(folder: Path, split_file: str = "qrels.tsv") -> EvalSet:
    """BEIR layout: ``corpus.jsonl``, ``queries.jsonl`` and ``qrels.tsv`` (or ``qrels/<split>.tsv``),
    the qrels with a header ``query-id  corpus-id  score``."""
    corpus, queries_file = folder / "corpus.jsonl", folder / "queries.jsonl"
    qrels_file = folder / split_file
    if not qrels_file.exists() and (folder / "qrels").is_dir():
        candidates = sorted((folder / "qrels").glob("*.tsv"))
        qrels_file = next((c for c in candidates if c.stem in ("dev", "test")), candidates[0] if candidates else qrels_file)
    for f in (corpus, queries_file, qrels_file):
        if not f.is_file():
            raise InputError(str(f), "missing: a BEIR folder needs corpus.jsonl, queries.jsonl and qrels.tsv")
    qrels: dict[str, dict[str, int]] = {}
    with qrels_file.open(encoding="utf-8") as fh:
        for i, row in enumerate(csv.reader(fh, delimiter="\t")):
            if i == 0 and row and not row[-1].strip().lstrip("-").isdigit():
                continue
            if len(row) < 3:
                continue
            qid, did = row[0], row[1]
            try:
                score = int(float(row[2]))
            except ValueError:
                raise InputError(str(qrels_file), f"line {i + 1}: score {row[2]!r} is not a number") from None
            if score > 0:
                qrels.setdefault(qid, {})[did] = score
    texts: dict[str, str] = {}
    for lineno, r in _jsonl(queries_file):
        if not isinstance(r, dict) or "_id" not in r or not isinstance(r.get("text"), str):
            raise InputError(str(queries_file), f"line {lineno}: needs '_id' and 'text'")
        texts[str(r["_id"])] = r["text"]
    queries = [EvalQuery(qid=q, text=texts[q], relevant=rel) for q, rel in qrels.items() if q in texts]
    if not queries:
        raise InputError(str(qrels_file), "no judged queries match queries.jsonl")
    return EvalSet(name=folder.name, corpus=corpus, queries=queries, source=str(qrels_file))


def _str_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _jsonl(path: Path):  # type: ignore[no-untyped-def]
    if not path.is_file():
        raise InputError(str(path), "no such file")
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if line.strip():
                try:
                    yield lineno, json.loads(line)
                except ValueError:
                    raise InputError(str(path), f"line {lineno}: not JSON") from None


def questions_sha256(queries: list[EvalQuery]) -> str:
    """A fingerprint of the questions as scored (ids, texts, judgements, keywords, categories):
    two results with the same one were measured on the same questions."""
    rows = [[q.qid, q.text, sorted(q.relevant.items()), list(q.keywords), q.category] for q in queries]
    return hashlib.sha256(json.dumps(rows, ensure_ascii=False, sort_keys=True).encode("utf-8")).hexdigest()


def corpus_sha256(corpus: Path) -> str:
    """A fingerprint of the corpus: every file's path (relative to ``corpus``) and bytes, or the
    one file's bytes when ``corpus`` is a file."""
    h = hashlib.sha256()
    files = [corpus] if corpus.is_file() else sorted(p for p in corpus.rglob("*") if p.is_file())
    for f in files:
        h.update((f.name if f == corpus else f.relative_to(corpus).as_posix()).encode("utf-8") + b"\0")
        with f.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        h.update(b"\0")
    return h.hexdigest()
