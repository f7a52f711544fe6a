"""Test sets: the seed format (a folder of documents + JSONL questions), the BEIR format, and
the clause-level format (questions over a 약관 PDF, each with its governing (약관, 조) units)."""

from __future__ import annotations

import csv
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path

from yakgwan.core.errors import InputError
from yakgwan.eval.clauses import GoverningUnit
from yakgwan.messages import msg

HALVES = ("tune", "check")


@dataclass(frozen=True)
class EvalQuery:
    qid: str
    text: str
    relevant: dict[str, int]
    keywords: tuple[str, ...] = ()
    category: str | None = None
    reference_answer: str | None = None
    topic: str | None = None
    # clause-level sets: the units a good answer cites, the primary one first
    governing: tuple[GoverningUnit, ...] = ()


@dataclass(frozen=True)
class EvalSet:
    """A test set: its name, corpus (a folder, or a file), the questions scored and where they
    come from. ``unanswerable`` holds a clause-level set's questions the policy does not answer:
    kept, but not scored for retrieval."""

    name: str
    corpus: Path
    queries: list[EvalQuery] = field(default_factory=list)
    source: str = ""
    unanswerable: tuple[EvalQuery, ...] = ()

    @property
    def clause_level(self) -> bool:
        """Whether the questions are judged by (약관, 조) units (``yakgwan.eval.clauses``)."""
        return any(q.governing for q in self.queries)


def in_half(position: int, half: str | None) -> bool:
    """Whether the row at 0-based ``position`` (blank lines aside) is in ``half``: ``"tune"`` the
    even positions, ``"check"`` the odd ones, None every row. A fixed rule that reads no content."""
    if half is None:
        return True
    if half not in HALVES:
        raise InputError(None, msg("eval.half", halves=", ".join(HALVES), value=repr(half)))
    return position % 2 == HALVES.index(half)


def half_label(half: str) -> str:
    """How a half is named in a result's ``source``."""
    return f"{half} half: rows at {'even' if half == 'tune' else 'odd'} 0-based positions in the file"


def load_seed(corpus: Path, tests: Path, half: str | None = None) -> EvalSet:
    """Seed format: ``corpus`` is the knowledge-base folder (document ids are paths relative to
    it), ``tests`` has one ``{"question", "keywords", "reference_answer", "category",
    "source_docs"}`` object per line. ``half`` keeps one half (:func:`in_half`)."""
    in_half(0, half)  # an unknown half fails before anything is read
    if not corpus.is_dir():
        raise InputError(str(corpus), msg("eval.corpus_folder"))
    queries = []
    for position, (lineno, row) in enumerate(_jsonl(tests)):
        q, sources, keywords = row.get("question") if isinstance(row, dict) else None, None, None
        if isinstance(row, dict):
            sources, keywords = row.get("source_docs"), row.get("keywords") or []
        if not isinstance(q, str) or not q.strip() or not _str_list(sources) or not _str_list(keywords):
            raise InputError(str(tests), msg("eval.seed_line", line=lineno))
        if not in_half(position, half):
            continue
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
        raise InputError(str(tests), msg("eval.no_questions", half=msg("eval.in_half", half=half) if half else ""))
    name, source = f"{corpus.parent.name or corpus.name}/{tests.name}", str(tests)
    if half is not None:
        name, source = f"{name} ({half} half)", f"{source}; {half_label(half)}"
    return EvalSet(name=name, corpus=corpus, queries=queries, source=source)


def is_clause_file(tests: Path) -> bool:
    """Whether ``tests`` is in the clause-level format: its first row has ``governing``."""
    for _, row in _jsonl(tests):
        return isinstance(row, dict) and "governing" in row
    return False


def load_clauses(corpus: Path, tests: Path, half: str | None = None) -> EvalSet:
    """Clause-level format: ``corpus`` is the policy (a PDF, or a folder holding it), ``tests``
    has one ``{"id", "question", "style", "topic", "governing": [{"yakgwan", "article",
    "article_title", "page"}, ...], "answer", "keywords", "answerable"}`` object per line.
    ``style`` becomes the question's category. Rows with ``"answerable": false`` are kept apart
    (``EvalSet.unanswerable``).

    ``half`` keeps one half by a fixed rule that reads no content: ``"tune"`` the rows at even
    0-based positions in the file (blank lines aside: 0, 2, 4, …), ``"check"`` those at odd
    positions; None keeps every row."""
    in_half(0, half)  # an unknown half fails before anything is read
    if not corpus.exists():
        raise InputError(str(corpus), msg("eval.no_corpus"))
    answerable, unanswerable = [], []
    for position, (lineno, row) in enumerate(_jsonl(tests)):
        q, is_answerable = _clause_row(tests, lineno, row)
        if not in_half(position, half):
            continue
        (answerable if is_answerable else unanswerable).append(q)
    if not answerable:
        raise InputError(str(tests), msg("eval.no_answerable", half=msg("eval.in_half", half=half) if half else ""))
    name, source = f"{tests.parent.name or tests.name}/{tests.name}", str(tests)
    if half is not None:
        name += f" ({half} half)"
        source += f"; {half_label(half)}"
    return EvalSet(name=name, corpus=corpus, queries=answerable, source=source, unanswerable=tuple(unanswerable))


def _clause_row(path: Path, lineno: int, row: object) -> tuple[EvalQuery, bool]:
    """One row of the clause-level format, or an InputError naming the file, line and field."""
    def bad(why: str) -> InputError:
        return InputError(str(path), f"line {lineno}: {why}")

    if not isinstance(row, dict):
        raise bad("not a JSON object")
    q = row.get("question")
    if not isinstance(q, str) or not q.strip():
        raise bad("needs 'question' (text)")
    for key in ("id", "style", "topic", "answer"):
        if row.get(key) is not None and not isinstance(row[key], str):
            raise bad(f"'{key}' must be text")
    keywords = row.get("keywords") or []
    if not _str_list(keywords):
        raise bad("'keywords' must be a list of strings")
    answerable = row.get("answerable", True)
    if not isinstance(answerable, bool):
        raise bad("'answerable' must be true or false")
    governing = row.get("governing")
    if not isinstance(governing, list) or not governing:
        raise bad("needs 'governing': a non-empty list of {yakgwan, article, article_title, page}")
    units = []
    for i, g in enumerate(governing):
        ok = (isinstance(g, dict) and isinstance(g.get("yakgwan"), str) and g["yakgwan"].strip()
              and isinstance(g.get("article"), str) and g["article"].strip()
              and isinstance(g.get("page"), int) and not isinstance(g["page"], bool) and g["page"] >= 1
              and (g.get("article_title") is None or isinstance(g["article_title"], str)))
        if not ok:
            raise bad(f"governing[{i}] needs 'yakgwan' and 'article' (text), 'page' (a number >= 1) and 'article_title' (text or null)")
        units.append(GoverningUnit(g["yakgwan"], g["article"], g.get("article_title"), g["page"]))
    query = EvalQuery(
        qid=row.get("id") or str(lineno), text=q, relevant={u.label(): 1 for u in units}, keywords=tuple(keywords),
        category=row.get("style"), reference_answer=row.get("answer"), topic=row.get("topic"), governing=tuple(units),
    )
    return query, answerable


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
            raise InputError(str(f), msg("eval.beir_missing"))
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
                raise InputError(str(qrels_file), msg("eval.score", line=i + 1, value=repr(row[2]))) from None
            if score > 0:
                qrels.setdefault(qid, {})[did] = score
    texts: dict[str, str] = {}
    for lineno, r in _jsonl(queries_file):
        if not isinstance(r, dict) or "_id" not in r or not isinstance(r.get("text"), str):
            raise InputError(str(queries_file), msg("eval.query_line", line=lineno))
        texts[str(r["_id"])] = r["text"]
    queries = [EvalQuery(qid=q, text=texts[q], relevant=rel) for q, rel in qrels.items() if q in texts]
    if not queries:
        raise InputError(str(qrels_file), msg("eval.no_judged"))
    return EvalSet(name=folder.name, corpus=corpus, queries=queries, source=str(qrels_file))


def _str_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _jsonl(path: Path):  # type: ignore[no-untyped-def]
    if not path.is_file():
        raise InputError(str(path), msg("eval.no_file"))
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if line.strip():
                try:
                    yield lineno, json.loads(line)
                except ValueError:
                    raise InputError(str(path), msg("eval.not_json", line=lineno)) from None


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
