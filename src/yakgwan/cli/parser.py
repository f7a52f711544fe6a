"""The argument parser of every command (``yakgwan --help``)."""

from __future__ import annotations

import argparse
from pathlib import Path

from yakgwan.core.location import index_location, is_database_uri


RULES_HELP = ("which answer rules are on: all (default), none, names (compare,titles), or changes read left to right "
              "(all,-compare); an unknown name lists them all (docs/answers.md)")


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("--index", type=index_location, help="index folder, or postgresql://USER@HOST:PORT/DB?collection=NAME (default: $YAKGWAN_INDEX or the per-user data folder)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def _filter(p: argparse.ArgumentParser) -> None:
    p.add_argument("--filter", action="append", default=[], dest="filters", metavar="KEY=VALUE",
                   help="search only part of the index: yakgwan=\"벌금 특별약관\", doc=…, product=…, insurer=…, version>=2024-01 "
                   "(=, !=, >=, <=, >, <; repeatable, all apply)")


def build_parser() -> argparse.ArgumentParser:
    from yakgwan import __version__

    ap = argparse.ArgumentParser(prog="yakgwan", description="Korean-first retrieval over 약관 and other documents.")
    ap.add_argument("--version", action="version", version=f"yakgwan {__version__}")
    sub = ap.add_subparsers(dest="command", required=True)
    for add in (_ingest, _search, _ask, _eval, _report, _pipelines, _appeal, _serve, _demo):
        add(sub)
    return ap


def _ingest(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ingest", help="add files, folders or a BEIR corpus.jsonl to the index")
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--strict", action="store_true", help="any bad file fails the whole ingest")
    p.add_argument(
        "--step",
        action="append",
        dest="steps",
        default=[],
        help="LLM ingest step after chunking: llm_chunk, preprocess (repeatable; needs YAKGWAN_LLM). "
        "An index remembers its steps; ingesting with other steps re-chunks every document",
    )
    p.add_argument("--ray", metavar="local|auto|ADDRESS", help="read, tokenise and embed on a Ray cluster: local (this machine's cores), "
                   "auto (the cluster this machine belongs to) or its address (the ray extra)")
    p.add_argument("--ray-workers", type=int, metavar="N", help="with --ray: worker processes, each loading the models once (default: one per CPU)")
    p.add_argument("--meta", action="append", default=[], metavar="KEY=VALUE",
                   help="set on every document of this ingest, for --filter: insurer, product, version (e.g. version=2024-01); repeatable")
    _common(p)


def _search(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("search", help="search the index")
    p.add_argument("query")
    p.add_argument("--pipeline", default="default")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--json", action="store_true", help="print hits as JSON")
    _filter(p)
    _common(p)


def _ask(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ask", help="answer from the documents with citations, or refuse")
    p.add_argument("question")
    p.add_argument("--pipeline", default="default")
    p.add_argument("--mode", default="auto", choices=("auto", "generate", "cot", "extract"),
                   help="generate: the LLM writes short cited claims; cot: the same after reasoning in a scratchpad that is never "
                        "shown as the answer (--json prints it); extract: the best supporting sentences or answer units themselves; "
                        "auto (default): generate when an LLM is configured")
    p.add_argument("--k", type=int, default=5, help="passages read (default 5)")
    p.add_argument("--rules", default="all", help=RULES_HELP)
    p.add_argument("--json", action="store_true", help="print the answer object as JSON")
    p.add_argument("--no-cache", action="store_true", help="bypass the LLM response cache")
    _filter(p)
    _common(p)


def _eval(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("eval", help="evaluate pipelines on a test set")
    p.add_argument("--corpus", type=Path, help="seed format: the knowledge-base folder; clause-level format: the policy PDF or its folder")
    p.add_argument("--tests", type=Path, help="the questions (JSONL): seed format, or clause-level when its rows have 'governing'")
    p.add_argument("--beir", type=Path, help="BEIR folder (corpus.jsonl, queries.jsonl, qrels.tsv)")
    p.add_argument("--pipeline", action="append", dest="pipelines", help="repeatable; default: the default pipeline")
    p.add_argument("--pipelines", nargs="+", action="extend", dest="pipelines", metavar="NAME", help="several pipelines at once (with --pipeline too)")
    p.add_argument("--half", choices=("tune", "check"),
                   help="only the tuning half of --tests (rows at even 0-based positions in the file, blank lines aside) or the checking "
                        "half (odd); with --answers the --unanswerable file is halved the same way")
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--answers", action="store_true", help="also answer every question (ask) and score the answers")
    p.add_argument("--unanswerable", type=Path, help="with --answers: JSONL of questions the documents cannot answer (refusal is correct)")
    p.add_argument("--answer-mode", default="auto", choices=("auto", "generate", "cot", "extract"), help="with --answers: how ask answers (see ask --mode)")
    p.add_argument("--rules", default="all", help="with --answers: " + RULES_HELP)
    p.add_argument("--judge-runs", type=int, default=3, help="with --answers and an LLM: LLM-as-judge runs per answer (0: none)")
    p.add_argument("--limit", type=int, help="only the first N questions (in file order), e.g. for a costly query-side LLM step; the whole corpus is still indexed")
    p.add_argument("--json", type=Path, dest="json_out", help="write results (a list, one object per pipeline)")
    p.add_argument("--report", type=Path, help="write an HTML report with charts")
    p.add_argument("--no-cache", action="store_true", help="bypass the LLM response cache")
    p.add_argument("--ray", metavar="local|auto|ADDRESS", help="run each pipeline's questions on the actors of a Ray cluster (the ray extra)")
    p.add_argument("--ray-workers", type=int, metavar="N", help="with --ray: worker processes, each building the pipeline once (default: one per CPU)")
    p.add_argument("--index", type=database_uri, help="build the evaluation index in this PostgreSQL database "
                   "(postgresql://…?collection=NAME: in a collection NAME_eval_<key> of its own) instead of the cache folder")
    p.add_argument("--quiet", action="store_true")


def database_uri(value: str) -> str:
    """``--index`` of eval and serve: a postgresql:// URI (their folder indexes live in the cache
    folder and the data folder)."""
    if not is_database_uri(value):
        raise argparse.ArgumentTypeError(f"{value!r}: a postgresql:// URI here (without it, the indexes live in the cache or data folder)")
    return value


def _report(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="one side-by-side table from eval results saved by separate runs")
    p.add_argument("results", nargs="+", type=Path, help="files written by `yakgwan eval --json`; all must be of one test set and k")
    p.add_argument("--out", type=Path, help="write the HTML report (charts, per-category deltas, sources)")
    p.add_argument("--markdown", type=Path, help="write the table as Markdown (it is also printed)")
    p.add_argument("--summary", type=Path, help="write the results without their per-question rows (no question or document text)")
    p.add_argument("--title", help="the report's title (default: the test set's name)")
    p.add_argument("--quiet", action="store_true", help="do not print the table")


def _pipelines(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pipelines", help="list pipelines")
    p.add_argument("--json", action="store_true", help="every pipeline's spec (stages and parameters) and the steps pipelines compose with")
    p.add_argument("--quiet", action="store_true", help="accepted for uniformity; this command shows no progress")


def _appeal(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("appeal", help="analyse a claim denial notice against the policy")
    p.add_argument("notice", type=Path, help="the denial notice (.txt, .md or .pdf; a scanned PDF, .png or .jpg is read by OCR)")
    p.add_argument("--policy", type=index_location, required=True,
                   help="the policy (PDF or text), an index folder built from it, or postgresql://…?collection=NAME (with --filter to pick one policy among many)")
    p.add_argument("--mode", default="plain", help="retrieval mode: plain, hyde, reverse_hyde, hybrid_hyde")
    p.add_argument("--analysis", default="auto", choices=("auto", "rules", "llm"),
                   help="rules: templates only; llm: the configured LLM (YAKGWAN_LLM) adds sub-issues, gaps and findings; auto (default): llm when one is configured")
    p.add_argument("--search", default="single", choices=("single", "fused"),
                   help="single (default): each reason searched as written; fused: plus two LLM-written variants, RRF, gated yes/no rerank")
    p.add_argument("--llm-findings", default="advise", choices=("advise", "apply"),
                   help="advise (default): the LLM's findings are listed, the band moves only on rule findings; apply: they move the band too")
    p.add_argument("--reason", action="append", default=[], dest="reasons", metavar="TEXT",
                   help="the denial reason, as the notice states it (repeatable): used instead of the reasons recognised in it, "
                        "for a notice whose reason is not recognised (the error then lists its sentences)")
    p.add_argument("--json", type=Path, dest="json_out", help="write the analysis object")
    p.add_argument("--out", type=Path, help="write the evidence pack: .md, .html or .pdf")
    p.add_argument("--quiet", action="store_true")
    _filter(p)


def _serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="the HTTP API and the web app")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--data", type=Path, help="where collections, uploads and runs live (default: YAKGWAN_DATA_DIR or a per-user folder)")
    p.add_argument("--index", type=database_uri, help="keep every collection's index and the jobs in this PostgreSQL database "
                   "(postgresql://…?collection=NAME: collections NAME_<collection>; default: $YAKGWAN_INDEX when it is such a URI, else the data folder)")
    p.add_argument("--workers", type=int, default=1, help="server processes sharing the work (more than 1 needs --index postgresql://…)")
    p.add_argument("--quiet", action="store_true", help="no access log")


def _demo(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="ingest the sample policy (or PATH) and run example searches")
    p.add_argument("paths", nargs="*", type=Path)
    _common(p)
