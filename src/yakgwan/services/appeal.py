"""``appeal``: a denial notice analysed against a policy (a PDF or text file, indexed on first
use and cached, an existing index folder, or a collection in PostgreSQL), or against the part of
a collection that filters keep (one product or version among many policies)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from yakgwan.appeal.notice import NoDenialReason
from yakgwan.appeal.policy import Policy, policy_from_context
from yakgwan.appeal.result import AppealResult
from yakgwan.appeal.run import AppealOptions, analyse_notice, read_notice
from yakgwan.config import Settings
from yakgwan.core.errors import InputError
from yakgwan.core.location import IndexLocation, display_location, is_database_uri
from yakgwan.core.records import sha256_hex
from yakgwan.pipelines import PipelineContext
from yakgwan.services.context import open_context
from yakgwan.services.ingest import ingest
from yakgwan.store import Filter, open_store, parse_filters
from yakgwan.messages import DEFAULT_LANG, msg

# the pipeline context of an index location, restricted to the filters (``store.filters``)
MakeContext = Callable[[IndexLocation, Sequence[Filter]], PipelineContext]


def open_policy(where: IndexLocation, settings: Settings, make_context: MakeContext | None = None, filters: Sequence[str] = ()) -> Policy:
    """An existing index (a folder or a postgresql:// collection) is used as it is; a policy
    file or folder is indexed under the cache folder (re-used while the file is unchanged).
    ``filters`` (``KEY=VALUE``, as ``search --filter``) keep part of the index, e.g. one product's
    version in a collection of many policies. ``make_context`` builds the context (a service
    passes its shared models); default: from ``settings``."""
    parsed = parse_filters(filters)
    if is_database_uri(where):
        if not open_store(where).exists():
            raise InputError(display_location(where), msg("appeal.no_index"))
        index: IndexLocation = where
    else:
        path = Path(where)
        if not path.exists():
            raise InputError(str(path), msg("appeal.no_policy"))
        if path.is_dir() and open_store(path).exists():
            index = path
        else:
            index = settings.cache_dir / "policy-index" / sha256_hex(str(path.resolve()))[:16]
            report = ingest(settings.with_(index_dir=index), [path], sync=True)
            if report.failed and not open_store(index).exists():
                raise report.failed[0]
    ctx = make_context(index, parsed) if make_context is not None else open_context(settings.with_(index_dir=index), filters=parsed)
    source = display_location(where) + "".join(f" [{f}]" for f in parsed)
    return policy_from_context(source, index, ctx)


def appeal(
    notice_path: Path, policy: IndexLocation, settings: Settings, opts: AppealOptions = AppealOptions(),
    make_context: MakeContext | None = None, filters: Sequence[str] = (), reasons: Sequence[str] = (),
) -> AppealResult:
    """Read the notice, open the policy (the part ``filters`` keep), analyse. The options and
    filters are checked before either is read. ``reasons``: the denial reasons a reader gave
    (marked in the notice or typed), used instead of those recognised in it."""
    parse_filters(filters)
    notice = read_notice(notice_path, reasons)
    return analyse_notice(notice, open_policy(policy, settings, make_context, filters), opts)


PACK_SUFFIXES = (".md", ".html", ".htm", ".pdf")


def check_pack_path(out: Path) -> None:
    if out.suffix.lower() not in PACK_SUFFIXES:
        raise InputError(str(out), msg("pack.suffix"))


def check_letter_path(out: Path) -> None:
    """A letter is written as .md, .pdf or .docx, or into a folder (named from the case)."""
    from yakgwan.appeal.letter import LETTER_SUFFIXES

    if out.suffix and not out.is_dir() and out.suffix.lower() not in LETTER_SUFFIXES:  # no suffix: a folder
        raise InputError(str(out), msg("letter.suffix"))


def letter_file_name(result: dict, suffix: str, stem: str | None = None) -> str:
    """The name a letter (or, with ``stem``, another download of the case) is saved under:
    ``이의신청서_<특약>_<사고일>.<suffix>``."""
    from yakgwan.appeal.letter import file_name

    return file_name(result, suffix) if stem is None else file_name(result, suffix, stem=stem)


def write_letter(result: dict, out: Path) -> tuple[Path, int]:
    """The 이의신청서 and the 금융감독원 분쟁조정 신청 text of an analysis (its JSON), written to
    ``out`` (by its suffix; a folder: ``이의신청서_<특약>_<사고일>.pdf`` in it). Returns the path and
    how many characters a PDF's font lacks."""
    from yakgwan.appeal.letter import write

    check_letter_path(out)
    return write(result, out)


def evidence_pack_text(result: dict, fmt: str, lang: str = DEFAULT_LANG) -> str:
    """The evidence pack of an analysis (its JSON) as Markdown (``md``) or HTML (``html``), its
    headings and labels in ``lang``."""
    from yakgwan.appeal.render import to_html, to_markdown

    if fmt not in ("md", "html"):
        raise InputError(None, msg("pack.text_format", fmt=repr(fmt)))
    return to_markdown(result, lang) if fmt == "md" else to_html(result, lang)


def write_evidence_pack(result: dict, out: Path, fmt: str | None = None, lang: str = DEFAULT_LANG) -> int:
    """Write the evidence pack to ``out`` as ``fmt`` (md, html or pdf; default: by the file's
    suffix). Returns how many characters a PDF's font lacks (drawn as □); 0 for text formats."""
    from yakgwan.appeal.render import to_pdf

    if fmt is None:
        check_pack_path(out)
        fmt = {".md": "md", ".pdf": "pdf"}.get(out.suffix.lower(), "html")
    out.parent.mkdir(parents=True, exist_ok=True)
    if fmt == "pdf":
        return to_pdf(result, out, lang)
    out.write_text(evidence_pack_text(result, fmt, lang), "utf-8")
    return 0
