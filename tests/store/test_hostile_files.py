"""Hostile and damaged files: each is reported and skipped, every command finishes in a few seconds,
and nothing inside or outside the directory changes.

The directory is shared through git, so any file in it may come from someone else. Commands run in
a real subprocess with a timeout, as a user's shell would run them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import ROOT, cli, tree_bytes, use_hashing_embedder

HEAD = "---\nid: {id}\ntype: fact\nuser: alice\ncreated: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n"
COMMANDS = [["list"], ["recall", "alice seat", "-u", "alice"], ["context", "seat", "-u", "alice"], ["doctor"],
            ["stats"], ["dedupe", "--dry-run"], ["add", "Alice likes green tea a lot", "-u", "alice"],
            ["index", "--all"], ["reindex"], ["compact"], ["check"], ["structure"], ["export", "--to", "jsonl"]]
EXITS = {"doctor": (1,), "check": (0, 1)}  # 1: problems / findings, as documented; 3: some refused
TIMEOUT = 30  # seconds per command: generous for a loaded machine; today's hangs never ended


def memctl(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "memctl", "-d", str(root), *args], capture_output=True,
                          text=True, env=env, timeout=TIMEOUT)


def alias_bomb(folder: Path) -> str:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x]"] + [
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]" for i in range(8)]
    (folder / "bomb.md").write_text(HEAD.format(id="b0b0b0b1") + "\n".join(lines) + "\n---\nbody\n")
    return "anchors"


def deep_nesting(folder: Path) -> str:
    (folder / "deep.md").write_text(HEAD.format(id="b0b0b0b2") + "x: " + "[" * 5000 + "]" * 5000 + "\n---\nbody\n")
    return "nested deeper"


def huge_file(folder: Path) -> str:
    with open(folder / "huge.md", "w") as handle:
        handle.write(HEAD.format(id="b0b0b0b3") + "---\n")
        handle.write(("lorem ipsum dolor sit amet " * 40 + "\n") * 50_000)  # about 54 MB
    return "not read"


def fifo(folder: Path) -> str:
    os.mkfifo(folder / "pipe.md")
    return "not a regular file"


def binary(folder: Path) -> str:
    (folder / "bin.md").write_bytes(b"---\n\x00\xff\xfe\x00garbage\x89PNG\r\n")
    return "not UTF-8"


def non_utf8(folder: Path) -> str:
    (folder / "latin1.md").write_bytes((HEAD.format(id="b0b0b0b4") + "---\nCaf\xe9 au lait\n").encode("latin-1"))
    return "not UTF-8"


def unclosed_fence(folder: Path) -> str:
    (folder / "open.md").write_text(HEAD.format(id="b0b0b0b5") + "body without a closing fence\n")
    return "not closed"


def conflict_markers(folder: Path) -> str:
    text = HEAD.format(id="b0b0b0b6") + "---\n<<<<<<< HEAD\nAlice likes tea\n=======\nAlice likes coffee\n>>>>>>> other\n"
    (folder / "merge.md").write_text(text)
    return "merge conflict"


def duplicate_id(folder: Path) -> str:
    existing = next(p for p in folder.glob("*.md") if p.name != "MEMORY.md")
    (folder / "copy.md").write_text(existing.read_text())
    return "duplicate id"


def python_tag(folder: Path) -> str:
    (folder / "tag.md").write_text(HEAD.format(id="b0b0b0b7") + "x: !!python/object/apply:os.system [touch /tmp/pwned]\n---\nbody\n")
    return "constructor"


HOSTILE = [alias_bomb, deep_nesting, huge_file, fifo, binary, non_utf8, unclosed_fence, conflict_markers,
           duplicate_id, python_tag]


@pytest.fixture
def mem(memdir: Path) -> Path:
    use_hashing_embedder(memdir)
    assert cli(memdir, "add", "Alice prefers window seats on flights", "--user", "alice").exit_code == 0
    return memdir


@pytest.mark.parametrize("make", HOSTILE, ids=[f.__name__ for f in HOSTILE])
def test_a_hostile_file_is_reported_and_every_command_still_works(mem: Path, make) -> None:
    folder = mem / "users" / "alice"
    reason = make(folder)
    hostile = {p.name for p in folder.iterdir()} - {"MEMORY.md"}
    doctor = memctl(mem, "doctor")
    assert doctor.returncode == 1 and reason in doctor.stderr, doctor.stderr
    for args in COMMANDS:
        done = memctl(mem, *args)
        assert "Traceback" not in done.stderr, (args, done.stderr)
        assert done.returncode in EXITS.get(args[0], (0, 3)), (args, done.returncode, done.stderr)
    assert hostile <= {p.name for p in folder.iterdir()}  # the hostile file is left where it was
    assert not Path("/tmp/pwned").exists()


def test_hostile_files_change_nothing_on_disk(mem: Path) -> None:
    for make in (alias_bomb, deep_nesting, binary, non_utf8, unclosed_fence, conflict_markers, python_tag):
        make(mem / "users" / "alice")
    before = tree_bytes(mem)
    for args in (["list"], ["recall", "alice", "-u", "alice"], ["doctor"], ["stats"], ["index", "--all"]):
        memctl(mem, *args)
    assert tree_bytes(mem) == {**before, **{k: v for k, v in tree_bytes(mem).items() if k.endswith("MEMORY.md")}}


def test_a_copy_made_by_hand_never_hides_the_memory_its_id_names(mem: Path) -> None:
    """Two files with one id: the one whose name ends with the id keeps it, wherever the other's name
    sorts (a copy named `a-copy.md` came first and hid the original from list, show and edit)."""
    folder = mem / "users" / "alice"
    original = next(p for p in folder.glob("*.md") if p.name != "MEMORY.md")
    memory_id = original.stem.rpartition("-")[2]
    (folder / "a-copy.md").write_text(original.read_text().replace("window seats", "aisle seats"))
    shown = memctl(mem, "show", memory_id)
    assert "window seats" in shown.stdout and "aisle seats" not in shown.stdout, shown.stdout
    doctor = memctl(mem, "doctor")
    assert "a-copy.md" in doctor.stderr and "duplicate" in doctor.stderr, doctor.stderr


def test_bom_and_crlf_files_are_read(mem: Path) -> None:
    folder = mem / "users" / "alice"
    (folder / "bom.md").write_bytes(("\ufeff" + HEAD.format(id="c0c0c0c1") + "---\nAlice keeps bees\n").encode())
    (folder / "crlf.md").write_bytes((HEAD.format(id="c0c0c0c2") + "---\nAlice rides a tandem\n").replace("\n", "\r\n").encode())
    listed = memctl(mem, "list", "-q").stdout.split()
    assert "c0c0c0c1" in listed and "c0c0c0c2" in listed
    assert memctl(mem, "doctor").returncode == 0


def test_symlinks_out_of_the_directory_are_never_followed(mem: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text(HEAD.format(id="d0d0d0d1").replace("alice", "eve") + "---\nEve's private note\n")
    (outside / "etc.md").symlink_to("/etc/hostname")
    (mem / "users" / "eve").symlink_to(outside)
    (mem / "users" / "alice" / "passwd.md").symlink_to("/etc/passwd")
    outside_before = tree_bytes(outside)
    assert "d0d0d0d1" not in memctl(mem, "list", "-q").stdout
    assert "Eve" not in memctl(mem, "context", "private note", "-u", "eve").stdout
    assert memctl(mem, "index", "--all").returncode == 0
    assert not (outside / "MEMORY.md").exists()
    doctor = memctl(mem, "doctor")
    assert doctor.returncode == 1 and "outside the memory directory" in doctor.stderr
    assert memctl(mem, "forget", "d0d0d0d1").returncode == 4
    assert tree_bytes(outside) == outside_before


def test_a_symlink_loop_is_walked_once(mem: Path) -> None:
    (mem / "users" / "alice" / "loop").symlink_to(mem / "users")
    (mem / "users" / "alice" / "self").symlink_to(".")
    done = memctl(mem, "list", "-q")
    assert done.returncode == 0 and len(done.stdout.split()) == 1
    assert "loop" in memctl(mem, "doctor").stderr


def test_memctl_never_writes_through_a_symlinked_folder(mem: Path, tmp_path: Path) -> None:
    real = mem / "projects" / "real-shop"
    real.mkdir(parents=True)
    (mem / "projects" / "shop").symlink_to(real)  # inside the directory: read, but never written through
    done = memctl(mem, "add", "The shop deploys on Fridays", "-p", "shop")
    assert done.returncode == 2 and "symbolic link" in done.stderr
    assert list(real.iterdir()) == []


def test_a_hand_edit_of_the_same_size_and_mtime_is_seen(mem: Path) -> None:
    path = next((mem / "users" / "alice").glob("alice-*.md"))
    memory_id = memctl(mem, "list", "-q").stdout.strip()
    text = path.read_text()
    stat = path.stat()
    path.write_text(text.replace("window", "aisle!"))  # same length
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # touch -r: the old mtime back
    assert path.stat().st_size == stat.st_size and path.stat().st_mtime_ns == stat.st_mtime_ns
    assert "aisle!" in memctl(mem, "show", memory_id).stdout
    assert memctl(mem, "edit", memory_id, "--set", "confidence=0.9").returncode == 0
    assert "aisle!" in path.read_text()  # the edit built on the hand edit, never on a stale copy


@pytest.mark.parametrize("name", ["alice\n", "con", "NUL", "lpt1", "a\tb", "a\x1b[31m", ".", "..", "a/b", " alice"])
def test_odd_names_are_refused(mem: Path, name: str) -> None:
    before = tree_bytes(mem)
    done = memctl(mem, "add", "Someone likes green tea", "--user", name)
    assert done.returncode == 2 and "invalid user name" in done.stderr and "Traceback" not in done.stderr
    assert tree_bytes(mem) == before
