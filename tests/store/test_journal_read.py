"""The journal reads only what was appended since its last read, and all of it again when the file
was replaced or cut."""

from __future__ import annotations

from pathlib import Path

from memctl.store.journal import Journal


def _ids(journal: Journal) -> list[str]:
    return [e.id for e in journal.read()]


def test_appends_are_read_and_a_replaced_file_is_read_whole(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.jsonl")
    assert _ids(journal) == []
    journal.append("add", "a1", None, "h1")
    assert _ids(journal) == ["a1"]
    journal.append("add", "b2", None, "h2")
    with journal.path.open("a") as out:
        out.write('{"op": "add", "id": "torn"')  # a line being written: not read yet
    assert _ids(journal) == ["a1", "b2"]
    with journal.path.open("a") as out:
        out.write(', "time": "2026-01-01T00:00:00Z"}\n')
    journal.append("add", "c3", None, "h3")
    assert _ids(journal) == ["a1", "b2", "torn", "c3"]
    assert _ids(Journal(journal.path)) == ["a1", "b2", "torn", "c3"]
    text = journal.path.read_text().splitlines()
    journal.path.unlink()
    journal.path.write_text(text[2] + "\n")  # replaced (another inode), shorter
    assert _ids(journal) == ["torn"]
    journal.path.write_text("")  # cut in place
    assert _ids(journal) == []
