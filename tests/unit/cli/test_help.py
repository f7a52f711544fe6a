"""``yakgwan --help`` and argparse's errors in the command line's language; pipelines described
in both languages."""

from __future__ import annotations

import argparse
import re

import pytest

from yakgwan.cli import main
from yakgwan.cli.parser import ARGPARSE_MESSAGES, argparse_message, build_parser, columns, wrap_columns
from yakgwan.messages import LANGS
from yakgwan.messages.catalogue import catalogue
from yakgwan.pipelines import PIPELINES, pipeline_specs_json, resolve_pipeline
from yakgwan.services.pipelines import pipeline_rows

pytestmark = pytest.mark.unit

HANGUL = re.compile(r"[가-힣]")


def _parsers(lang: str) -> dict[str, argparse.ArgumentParser]:
    """The top parser and every command's, by command name ("" for the top one)."""
    top = build_parser(lang)
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return {"": top, **sub.choices}


@pytest.mark.parametrize("lang", LANGS)
def test_every_option_of_every_command_has_help_in_the_language(lang: str) -> None:
    """No argument goes undocumented, and in Korean every help text is Korean (an English string
    written in the parser, outside the catalogue, fails here)."""
    parsers = _parsers(lang)
    assert set(parsers) == {"", "ingest", "search", "ask", "outline", "eval", "report", "pipelines", "appeal", "serve", "demo"}
    for name, p in parsers.items():
        page = p.format_help()  # argparse %-formats every help text: a stray % fails here
        assert p.description and p.description in " ".join(page.split()), name
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                continue
            assert action.help, f"{name} {action.option_strings or action.dest}: no help"
            if lang == "ko":
                assert HANGUL.search(action.help), (name, action.help)
            else:  # English, but for the names of 약관 it shows as they are written
                assert not HANGUL.search(re.sub(r"[가-힣 ]*약관", "", action.help)), (name, action.help)
        assert page.startswith("사용법: " if lang == "ko" else "usage: "), page[:40]
        titles = ("위치 인자:", "옵션:") if lang == "ko" else ("positional arguments:", "options:")
        assert titles[1] in page and (titles[0] in page) == any(not a.option_strings for a in p._actions if not isinstance(a, argparse._SubParsersAction))


def test_the_two_languages_say_different_words_for_each_option() -> None:
    ko, en = _parsers("ko"), _parsers("en")
    for name in ko:
        pairs = [(a.help, b.help) for a, b in zip(ko[name]._actions, en[name]._actions) if not isinstance(a, argparse._SubParsersAction)]
        assert pairs and all(k != e for k, e in pairs), name


def test_help_on_the_command_line_follows_the_locale(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for env, first, option in ((dict(YAKGWAN_LANG="", LC_ALL="", LC_MESSAGES="", LANG="ko_KR.UTF-8"), "사용법: yakgwan appeal", "거절 통지서"),
                               (dict(YAKGWAN_LANG="", LC_ALL="", LC_MESSAGES="", LANG="C.UTF-8"), "usage: yakgwan appeal", "the denial notice"),
                               (dict(YAKGWAN_LANG="ko", LANG="C.UTF-8"), "사용법: yakgwan appeal", "거절 통지서")):
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        with pytest.raises(SystemExit) as done:
            main(["appeal", "--help"])
        out = capsys.readouterr().out
        assert done.value.code == 0 and out.startswith(first) and option in out, out[:200]
    monkeypatch.setenv("YAKGWAN_LANG", "fr")  # a bad language: help in English (not the Korean locale's), the error said when a command runs
    monkeypatch.setenv("LANG", "ko_KR.UTF-8")
    with pytest.raises(SystemExit):
        main(["--help"])
    assert capsys.readouterr().out.startswith("usage: yakgwan")


@pytest.mark.parametrize(("argv", "ko", "en"), [
    (["search"], "다음 인자가 필요합니다: query", "the following arguments are required: query"),
    (["search", "q", "--k", "many"], "인자 --k: 'many'은(는) 올바른 int 값이 아닙니다", "argument --k: invalid int value: 'many'"),
    (["ask", "q", "--mode", "guess"], "인자 --mode: 'guess'은(는) 고를 수 없는 값입니다", "argument --mode: invalid choice: 'guess'"),
    (["search", "q", "--frobnicate"], "알 수 없는 인자: --frobnicate", "unrecognized arguments: --frobnicate"),
    (["search", "q", "--k"], "인자 --k: 값 하나가 필요합니다", "argument --k: expected one argument"),
    (["eval", "--index", "/tmp/folder"], "인자 --index: '/tmp/folder': 여기에는 postgresql:// URI를 줍니다", "argument --index: '/tmp/folder': a postgresql:// URI here"),
    (["report"], "다음 인자가 필요합니다: results", "the following arguments are required: results"),
])
def test_argparse_errors_are_said_in_the_language(argv: list[str], ko: str, en: str, capsys: pytest.CaptureFixture[str]) -> None:
    """argparse's own messages, as this Python writes them, each match a catalogue pattern."""
    for lang, want, prefix in (("ko", ko, "사용법: "), ("en", en, "usage: ")):
        with pytest.raises(SystemExit) as done:
            build_parser(lang).parse_args(argv)
        err = capsys.readouterr().err
        assert done.value.code == 2 and err.startswith(prefix), err
        last = err.strip().splitlines()[-1]
        # unrecognized arguments are said by the top parser, the rest by the command's
        assert re.match(rf"yakgwan( {argv[0]})?: {'오류' if lang == 'ko' else 'error'}: ", last) and want in last, last


def test_argparse_message_translates_each_known_pattern_and_keeps_the_rest() -> None:
    assert argparse_message("unrecognized arguments: --x --y", "ko") == "알 수 없는 인자: --x --y"
    assert argparse_message("ambiguous option: --in could match --index, --into", "ko") == "옵션 --in이(가) 여럿과 맞습니다: --index, --into"
    assert argparse_message("argument --policy: not allowed with argument --index", "ko") == "인자 --policy: --index와(과) 함께 쓸 수 없습니다"
    assert argparse_message("something argparse may say one day", "ko") == "something argparse may say one day"
    for english in ("argument --k: expected one argument", "the following arguments are required: query, --policy",
                    "argument --mode: invalid choice: 'x' (choose from 'a', 'b')", "argument --k: invalid int value: 'z'"):
        assert argparse_message(english, "en") == english  # each pattern's English text reads back as argparse wrote it
        assert argparse_message(english, "ko") != english
    assert {key for _, key in ARGPARSE_MESSAGES} == {k for k in catalogue().texts if k.startswith("argparse.")}


def test_help_is_wrapped_by_screen_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    assert columns("가a") == 3 and columns("") == 0 and columns("ab") == 2 and columns("ＡＢ") == 4
    assert wrap_columns("가나 다라 마", 5) == ["가나", "다라", "마"]  # 4 + 1 + 4 > 5: one word a line
    assert wrap_columns("가나 다라 마", 9) == ["가나 다라", "마"]  # 4 + 1 + 4 = 9 fits; 9 + 1 + 2 does not
    assert wrap_columns("ab cd ef", 5) == ["ab cd", "ef"]
    assert wrap_columns("아주긴낱말하나 a", 4) == ["아주긴낱말하나", "a"]  # a word wider than the line stays whole
    assert wrap_columns("  ", 10) == []
    monkeypatch.setenv("COLUMNS", "80")  # argparse sizes help to the terminal: 78 columns here, the usage line too
    for lang in LANGS:
        for name, p in _parsers(lang).items():
            widest = max(p.format_help().splitlines(), key=columns)
            assert columns(widest) <= 78 or " " not in widest.strip(), (lang, name, widest)  # only a word longer than a line may overrun


@pytest.mark.parametrize("lang", LANGS)
def test_every_pipeline_is_described_in_the_language(lang: str) -> None:
    rows = pipeline_rows()
    assert [r.name for r in rows] == list(PIPELINES)
    for r in rows:
        text = r.description.text(lang)
        assert text.strip() and "{" not in text, r.name
        if lang == "ko":
            assert HANGUL.search(text), (r.name, text)
    assert "RRF, k=60" in resolve_pipeline("hybrid").description.text("ko")  # the constant, not a copy of it
    composed = resolve_pipeline("hybrid+rerank_llm").description.text(lang)
    assert composed.startswith(resolve_pipeline("hybrid").description.text(lang)) and "rerank_llm" in composed
    specs = pipeline_specs_json(lang)
    assert all(s["composition"] for s in specs if s["type"] != "pipeline")
    assert [s["description"] for s in specs if s["type"] == "pipeline"] == [r.description.text(lang) for r in rows]
