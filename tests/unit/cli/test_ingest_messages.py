"""What ``yakgwan ingest`` says while it runs: warnings when the words are committed (before the
embedding), and an interrupted ingest's summary of what it committed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pytest

import yakgwan.cli.ingest as cli_ingest
from yakgwan.config import EmbedderConfig, Settings
from yakgwan.messages import msg
from yakgwan.services.ingest import IngestReport

pytestmark = pytest.mark.unit


def _args(path: Path) -> argparse.Namespace:
    return argparse.Namespace(paths=[path], strict=False, steps=(), meta=[], ray=None, ray_workers=None)


def _settings(tmp: Path) -> Settings:
    return Settings(index_dir=tmp / "index", cache_dir=tmp / "cache", embedder=EmbedderConfig("hashing"), tokenizer="mecab", quiet=True)


def _warned() -> IngestReport:
    r = IngestReport(added=["policy.pdf"], new_pages=3, new_chunks=4, seconds_lexical=0.5)
    r.warnings.append(msg("ingest.textless_one", file="policy.pdf", pages="2", total=3))
    return r


def test_warnings_print_when_the_words_are_committed_and_not_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    def fake(settings, paths, on_lexical_ready=None, **kw):  # type: ignore[no-untyped-def]
        r = _warned()
        on_lexical_ready(r)
        print("EMBEDDING", file=sys.stderr)  # the long phase comes after the warning
        r.dense_ready = True
        return r

    monkeypatch.setattr(cli_ingest, "ingest", fake)
    assert cli_ingest.cmd_ingest(_args(tmp_path), _settings(tmp_path)) == 0
    out = capsys.readouterr()
    assert out.err.count("warning: policy.pdf: page 2 of 3") == 1
    assert out.err.index("warning: policy.pdf") < out.err.index("EMBEDDING")  # said when found, not after the embedding
    assert "hybrid ready" in out.out


def test_an_interrupted_ingest_prints_what_it_committed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def fake(settings, paths, on_lexical_ready=None, **kw):  # type: ignore[no-untyped-def]
        on_lexical_ready(_warned())
        raise KeyboardInterrupt  # Ctrl-C while embedding

    monkeypatch.setattr(cli_ingest, "ingest", fake)
    with pytest.raises(KeyboardInterrupt):
        cli_ingest.cmd_ingest(_args(tmp_path), _settings(tmp_path))
    out = capsys.readouterr()
    assert "added 1" in out.out and "hybrid NOT ready" in out.out  # the summary: the words are in, the vectors are not
    assert out.err.count("warning: policy.pdf: page 2 of 3") == 1


def test_an_ingest_interrupted_before_its_first_commit_says_the_index_is_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    def fake(settings, paths, on_lexical_ready=None, **kw):  # type: ignore[no-untyped-def]
        raise KeyboardInterrupt  # Ctrl-C while reading

    monkeypatch.setattr(cli_ingest, "ingest", fake)
    with pytest.raises(KeyboardInterrupt):
        cli_ingest.cmd_ingest(_args(tmp_path), _settings(tmp_path))
    out = capsys.readouterr()
    assert "the index is as it was" in out.err and out.out == ""
