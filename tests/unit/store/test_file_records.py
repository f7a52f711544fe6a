"""JSON records in a folder (:class:`yakgwan.store.local.records.FileRecords`): the server's job
log on a data folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from yakgwan.store import open_records
from yakgwan.store.local.records import FileRecords

pytestmark = pytest.mark.unit


def test_records_are_put_read_listed_and_deleted(tmp_path: Path) -> None:
    log = FileRecords(tmp_path / "jobs")
    assert log.all() == {} and log.get("abc") is None  # nothing yet, no folder
    log.put("abc", {"status": "running", "name": "약관.pdf"})
    log.put("cancel:abc", {"requested": 1.0})
    log.put("abc", {"status": "succeeded"})  # replaced whole
    assert log.get("abc") == {"status": "succeeded"}
    assert log.all() == {"abc": {"status": "succeeded"}, "cancel:abc": {"requested": 1.0}}
    log.delete("cancel:abc")
    log.delete("never")  # nothing to delete: no error
    assert set(log.all()) == {"abc"}


def test_a_bad_key_is_refused_and_a_damaged_file_skipped(tmp_path: Path) -> None:
    log = FileRecords(tmp_path)
    for bad in ("../x", "a/b", "", "a:b:c", "x\n", "a" * 101):
        with pytest.raises(ValueError):
            log.put(bad, {})
    log.put("good", {"ok": True})
    (tmp_path / "cut.json").write_text('{"status": "runn', "utf-8")  # a file a crash cut short
    (tmp_path / "list.json").write_text("[1, 2]", "utf-8")  # not a record
    assert log.all() == {"good": {"ok": True}} and log.get("cut") is None


def test_open_records_on_a_folder_keeps_them_in_its_subfolder(tmp_path: Path) -> None:
    log = open_records(tmp_path, "jobs")
    log.put("abc", {"status": "queued"})
    assert (tmp_path / "jobs" / "abc.json").is_file() and open_records(str(tmp_path), "jobs").get("abc") == {"status": "queued"}


def test_put_if_writes_only_over_the_record_it_expects_and_one_of_many_writers_wins(tmp_path: Path) -> None:
    from concurrent.futures import ThreadPoolExecutor

    log = FileRecords(tmp_path / "jobs")
    assert log.put_if("resume:faq", {"owner": "a"}, None)  # none there: written
    assert not log.put_if("resume:faq", {"owner": "b"}, None)  # one there now
    assert not log.put_if("resume:faq", {"owner": "b"}, {"owner": "c"})  # not what is there
    assert log.put_if("resume:faq", {"owner": "b"}, {"owner": "a"}) and log.get("resume:faq") == {"owner": "b"}
    with ThreadPoolExecutor(8) as pool:  # eight writers expecting the same record: exactly one lands
        won = list(pool.map(lambda i: log.put_if("resume:faq", {"owner": f"w{i}"}, {"owner": "b"}), range(8)))
    assert sum(won) == 1 and log.get("resume:faq") == {"owner": f"w{won.index(True)}"}
    assert set(log.all()) == {"resume:faq"}  # the lock file is no record
