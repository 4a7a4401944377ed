"""Acceptance (issue 24): two clones of one memory folder and a bare origin, with real git and the
merge driver installed by `memctl git setup`. In every scenario `git pull` (a merge) finishes with
no conflict left for a person except through `conflicts_with`, no file holds a conflict marker,
every memory id of both sides is present (active or archived), and `doctor` is clean."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from memctl.core.conflicts import conflict_regions
from tests.helpers import claude_folder, cli, cli_json

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

NOW = "2026-11-30T08:00:00Z"


@pytest.fixture
def git_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME of the test's own, so the user's git config never leaks in (nor out)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = Test\n\temail = test@example.com\n"
                                     "[init]\n\tdefaultBranch = main\n[pull]\n\trebase = false\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE"):
        monkeypatch.delenv(name, raising=False)
    return home


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed in {cwd}:\n{done.stdout}\n{done.stderr}")
    return done


def memory(mid: str, body: str, user: str = "alice", **fields: str) -> str:
    """A memctl-layout memory file's text."""
    front = {"id": mid, "type": "preference", "scope": "user", "user": user, "confidence": "0.9",
             "source": "user", "status": "active", "created": NOW, "updated": NOW, **fields}
    return "---\n" + "".join(f"{k}: {v}\n" for k, v in front.items()) + "---\n" + body + "\n"


BASE = {
    "users/alice/window-seats-aaaa0001.md": memory("aaaa0001", "Alice prefers window seats on flights.", tags="[travel]"),
    "users/alice/deploy-steps-aaaa0002.md": memory(
        "aaaa0002", "Deploy steps:\n1. run the tests\n2. tag the release\n3. push the tag\n4. announce it", type="skill"),
    "users/alice/old-office-aaaa0003.md": memory("aaaa0003", "Alice works from the Berlin office this week.",
                                                 type="context", expires="2020-01-01T00:00:00Z"),
    "users/alice/coffee-aaaa0004.md": memory("aaaa0004", "Alice drinks her coffee black with no sugar."),
    "users/alice/coffee-copy-aaaa0005.md": memory("aaaa0005", "Alice drinks her coffee black with no sugar."),
}


@dataclass
class Clones:
    origin: Path
    a: Path
    b: Path
    layout: str

    @property
    def mem_a(self) -> Path:
        return self.a / "mem"

    @property
    def mem_b(self) -> Path:
        return self.b / "mem"


def make_clones(tmp_path: Path, layout: str) -> Clones:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "--bare", "-q", str(origin))
    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "clone", "-q", str(origin), str(a))
    if layout == "claude":
        shutil.copytree(claude_folder(tmp_path / "fixture"), a / "mem")
        assert cli(None, "init", "--preset", "claude", str(a / "mem")).exit_code == 0
    else:
        assert cli(None, "init", str(a / "mem")).exit_code == 0
        for rel, text in BASE.items():
            (a / "mem" / rel).parent.mkdir(parents=True, exist_ok=True)
            (a / "mem" / rel).write_text(text)
    assert cli(a / "mem", "git", "setup").exit_code == 0
    commit(a, "base")
    git(a, "push", "-q", "-u", "origin", "main")
    git(tmp_path, "clone", "-q", str(origin), str(b))
    assert cli(b / "mem", "git", "setup").exit_code == 0
    return Clones(origin, a, b, layout)


def commit(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--allow-empty", "-m", message)


def ids(root: Path) -> set[str]:
    code, out = cli_json(root, "list", "--status", "all")
    assert code == 0, out
    return {m["id"] for m in out["data"]["memories"]}


def id_of(root: Path, path_end: str) -> str:
    listed = cli_json(root, "list", "--status", "all")[1]["data"]["memories"]
    return str(next(m["id"] for m in listed if m["path"].endswith(path_end)))


def edit(root: Path, path_end: str, *args: str) -> None:
    result = cli(root, "edit", id_of(root, path_end), *args)
    assert result.exit_code == 0, result.output


def add(root: Path, text: str, *args: str) -> None:
    result = cli(root, "add", text, *args)
    assert result.exit_code == 0, result.output


def run_ok(root: Path, *args: str) -> None:
    result = cli(root, *args)
    assert result.exit_code == 0, result.output


def hand_edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


Side = Callable[[Path], None]


@dataclass
class Scenario:
    name: str
    layout: str
    side_a: Side
    side_b: Side
    check: Callable[[Clones], None] | None = None
    conflicted: bool = False  # the sides clash: one side kept as a second memory
    tags: list[str] = field(default_factory=list)


def user_add(text: str) -> Side:
    return lambda root: add(root, text, "--user", "alice")


def add_and_index(root: Path, text: str) -> None:
    add(root, text, "--user", "alice")
    run_ok(root, "index", "--all")


def claude_add(text: str, name: str) -> Side:
    return lambda root: add(root, text, "--type", "feedback", "--name", name)


def check_tags_and_confidence(c: Clones) -> None:
    text = next((c.mem_b / "users" / "alice").glob("window-seats-*.md")).read_text()
    assert "tags: [travel, airline]" in text and "confidence: 0.8" in text


def check_body_lines(c: Clones) -> None:
    text = next((c.mem_b / "users" / "alice").glob("deploy-steps-*.md")).read_text()
    assert "1. run the unit and integration tests" in text and "4. announce it in #releases" in text


def check_tag_sets(c: Clones) -> None:
    text = next((c.mem_b / "users" / "alice").glob("window-seats-*.md")).read_text()
    assert "tags: [aisle-never, lounge]" in text or "tags: [lounge, aisle-never]" in text


def check_archived_with_edit(c: Clones) -> None:
    archived = list((c.mem_b / "archive" / "users" / "alice").glob("window-seats-*.md"))
    assert len(archived) == 1 and "airline" in archived[0].read_text() and "status: forgotten" in archived[0].read_text()
    assert not list((c.mem_b / "users" / "alice").glob("window-seats-*.md"))


def check_renamed_and_edited(c: Clones) -> None:
    moved = c.mem_b / "users" / "alice" / "seat-preference-aaaa0001.md"
    assert moved.is_file() and "airline" in moved.read_text()


def check_both_hand_lines(c: Clones) -> None:
    text = (c.mem_b / "MEMORY.md").read_text()
    assert "Note from A" in text and "Note from B" in text


def check_claude_adds(c: Clones) -> None:
    text = (c.mem_b / "MEMORY.md").read_text()
    assert "feedback_lint_before_push.md" in text and "feedback_small_pull_requests.md" in text


SCENARIOS = [
    Scenario("disjoint adds", "memctl", user_add("Alice's team ships on Thursdays."),
             user_add("Alice is allergic to peanuts.")),
    Scenario("disjoint adds, other users", "memctl", lambda r: add(r, "Bob prefers tea.", "--user", "bob"),
             lambda r: add(r, "Carol runs the on-call rota.", "--user", "carol")),
    Scenario("tags on one side, confidence on the other", "memctl",
             lambda r: edit(r, "window-seats-aaaa0001.md", "--set", "tags=[travel, airline]"),
             lambda r: edit(r, "window-seats-aaaa0001.md", "--set", "confidence=0.8"), check_tags_and_confidence),
    Scenario("body on one side, tags on the other", "memctl",
             lambda r: edit(r, "coffee-aaaa0004.md", "--body", "Alice drinks her coffee black, two cups a day."),
             lambda r: edit(r, "coffee-aaaa0004.md", "--set", "tags=[food]")),
    Scenario("different body lines", "memctl",
             lambda r: hand_edit(r / "users/alice/deploy-steps-aaaa0002.md", "1. run the tests", "1. run the unit and integration tests"),
             lambda r: hand_edit(r / "users/alice/deploy-steps-aaaa0002.md", "4. announce it", "4. announce it in #releases"),
             check_body_lines),
    Scenario("tags added on both sides, one removed", "memctl",
             lambda r: edit(r, "window-seats-aaaa0001.md", "--set", "tags=[lounge]"),
             lambda r: edit(r, "window-seats-aaaa0001.md", "--set", "tags=[travel, aisle-never]"), check_tag_sets),
    Scenario("the same field changed differently", "memctl",
             lambda r: edit(r, "coffee-aaaa0004.md", "--set", "confidence=0.85"),
             lambda r: edit(r, "coffee-aaaa0004.md", "--set", "confidence=0.75"), conflicted=True),
    Scenario("the same body line changed differently", "memctl",
             lambda r: hand_edit(r / "users/alice/deploy-steps-aaaa0002.md", "2. tag the release", "2. tag the release as vX.Y"),
             lambda r: hand_edit(r / "users/alice/deploy-steps-aaaa0002.md", "2. tag the release", "2. sign and tag the release"),
             conflicted=True),
    Scenario("forget on one side, edit on the other", "memctl",
             lambda r: run_ok(r, "forget", id_of(r, "window-seats-aaaa0001.md")),
             lambda r: edit(r, "window-seats-aaaa0001.md", "--set", "tags=[travel, airline]"), check_archived_with_edit),
    Scenario("forget on both sides", "memctl",
             lambda r: run_ok(r, "forget", id_of(r, "coffee-aaaa0004.md")),
             lambda r: run_ok(r, "forget", id_of(r, "coffee-aaaa0004.md"), "--reason", "no longer true")),
    Scenario("compact on one side, add on the other", "memctl",
             lambda r: run_ok(r, "compact"), user_add("Alice's laptop is a ThinkPad X1.")),
    Scenario("compact on one side, edit of the expired memory on the other", "memctl",
             lambda r: run_ok(r, "compact"),
             lambda r: edit(r, "old-office-aaaa0003.md", "--set", "tags=[office]")),
    Scenario("dedupe on one side, add on the other", "memctl",
             lambda r: run_ok(r, "dedupe"), user_add("Alice cycles to work in summer.")),
    Scenario("dedupe on one side, edit of a duplicate on the other", "memctl",
             lambda r: run_ok(r, "dedupe"), lambda r: edit(r, "coffee-copy-aaaa0005.md", "--set", "tags=[food]")),
    Scenario("rename by hand on one side, edit on the other", "memctl",
             lambda r: git(r.parent, "mv", "mem/users/alice/window-seats-aaaa0001.md", "mem/users/alice/seat-preference-aaaa0001.md"),
             lambda r: edit(r, "window-seats-aaaa0001.md", "--set", "tags=[travel, airline]"), check_renamed_and_edited),
    Scenario("index written on both sides", "memctl",
             lambda r: add_and_index(r, "Alice reads on the train."), lambda r: add_and_index(r, "Alice learns Spanish.")),
    Scenario("claude: disjoint adds", "claude", claude_add("Run the linters before pushing", "Lint before push"),
             claude_add("Keep pull requests under 400 lines", "Small pull requests"), check_claude_adds),
    Scenario("claude: hand edit of MEMORY.md on each side", "claude",
             lambda r: hand_edit(r / "MEMORY.md", "# Memory index\n", "# Memory index\nNote from A: read the runbook.\n"),
             lambda r: hand_edit(r / "MEMORY.md", "Ask before touching", "Note from B: pair on migrations.\nAsk before touching"),
             check_both_hand_lines),
    Scenario("claude: hand lines added at the same place", "claude",
             lambda r: (r / "MEMORY.md").write_text((r / "MEMORY.md").read_text() + "Note from A: ship on Tuesdays.\n"),
             lambda r: (r / "MEMORY.md").write_text((r / "MEMORY.md").read_text() + "Note from B: ship on Thursdays.\n"),
             check_both_hand_lines),
    Scenario("claude: different fields of one topic file", "claude",
             lambda r: hand_edit(r / "reference_dashboards.md", "type: reference\n", "type: reference\ntags: [grafana]\n"),
             lambda r: hand_edit(r / "reference_dashboards.md", "Where ingestion latency", "Where ingest latency")),
    Scenario("claude: the same field changed differently", "claude",
             lambda r: hand_edit(r / "reference_dashboards.md", "description: Where ingestion latency and error budgets are tracked",
                                 "description: Grafana boards"),
             lambda r: hand_edit(r / "reference_dashboards.md", "description: Where ingestion latency and error budgets are tracked",
                                 "description: The SLO boards"), conflicted=True),
    Scenario("claude: forget on one side, MEMORY.md hand edit on the other", "claude",
             lambda r: run_ok(r, "forget", id_of(r, "reference_dashboards.md")),
             lambda r: hand_edit(r / "MEMORY.md", "## Notes\n", "## Notes\nNote from B: keep it short.\n")),
    Scenario("claude: add on one side, compact on the other", "claude",
             claude_add("Run the linters before pushing", "Lint before push"), lambda r: run_ok(r, "compact")),
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
def test_two_clones_merge_with_nothing_lost(scenario: Scenario, tmp_path: Path, git_home: Path) -> None:
    c = make_clones(tmp_path, scenario.layout)
    scenario.side_a(c.mem_a)
    commit(c.a, "side a")
    git(c.a, "push", "-q")
    scenario.side_b(c.mem_b)
    commit(c.b, "side b")
    before = ids(c.mem_a) | ids(c.mem_b)
    pulled = git(c.b, "pull", "-q", "--no-edit", check=False)
    assert pulled.returncode == 0, pulled.stdout + pulled.stderr
    assert git(c.b, "diff", "--name-only", "--diff-filter=U").stdout == ""
    for path in c.b.rglob("*"):
        if path.is_file() and ".git" not in path.relative_to(c.b).parts:
            assert not conflict_regions(path.read_text(errors="replace")), path
    after = ids(c.mem_b)
    assert before <= after, before - after
    code, out = cli_json(c.mem_b, "doctor")
    assert code == 0 and out["data"]["problems"] == [], out["data"]["problems"]
    pairs = cli_json(c.mem_b, "conflicts")[1]["data"]["conflicts"]
    if scenario.conflicted:
        (copy,) = after - before  # their side, kept as one second memory
        assert any(copy in (p["newer"], p["older"]) for p in pairs), pairs  # shown for a person to settle
    else:
        assert after == before and pairs == []
    if scenario.check:
        scenario.check(c)


def test_setup_writes_attributes_and_the_driver(tmp_path: Path, git_home: Path) -> None:
    c = make_clones(tmp_path, "memctl")
    driver = git(c.b, "config", "--local", "merge.memctl.driver").stdout
    assert "git merge-file %O %A %B %P" in driver
    attributes = (c.mem_b / ".gitattributes").read_text()
    assert "users/**/*.md merge=memctl" in attributes
    check = git(c.b, "check-attr", "merge", "--", "mem/users/alice/window-seats-aaaa0001.md").stdout
    assert check.strip().endswith("merge: memctl")
    assert "users/*/MEMORY.md" in (c.mem_b / ".gitignore").read_text()
    again = cli_json(c.mem_b, "git", "setup")[1]["data"]
    assert again["written"] == []  # idempotent


def test_setup_outside_git_is_a_one_line_error(tmp_path: Path, git_home: Path) -> None:
    root = tmp_path / "mem"
    assert cli(None, "init", str(root)).exit_code == 0
    code, out = cli_json(root, "git", "setup")
    assert code == 2 and out["errors"][0]["code"] == "not_in_git"


def test_init_in_a_git_repository_installs_the_driver(tmp_path: Path, git_home: Path) -> None:
    git(tmp_path, "init", "-q", "repo")
    code, out = cli_json(None, "init", str(tmp_path / "repo" / "mem"))
    assert code == 0 and out["data"]["git"] is True
    assert "merge=memctl" in (tmp_path / "repo" / "mem" / ".gitattributes").read_text()
    assert git(tmp_path / "repo", "config", "--local", "merge.memctl.driver").returncode == 0


def test_history_in_a_fresh_clone_lists_the_other_clones_edits(tmp_path: Path, git_home: Path) -> None:
    c = make_clones(tmp_path, "memctl")
    edit(c.mem_a, "window-seats-aaaa0001.md", "--set", "tags=[travel, airline]")
    commit(c.a, "tag the seat preference")
    edit(c.mem_a, "window-seats-aaaa0001.md", "--set", "confidence=0.8")
    commit(c.a, "less sure")
    git(c.a, "push", "-q")
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(c.origin), str(fresh))
    shutil.rmtree(fresh / "mem" / ".memctl", ignore_errors=True)
    code, out = cli_json(fresh / "mem", "history", "aaaa0001")
    assert code == 0
    commits = [e for e in out["data"]["entries"] if e["op"] == "commit"]
    assert [e["detail"]["subject"] for e in commits] == ["base", "tag the seat preference", "less sure"]
    assert all(e["detail"]["author"] == "Test" for e in commits)
    assert "tags" in commits[1]["detail"]["fields"] and "confidence" in commits[2]["detail"]["fields"]
    assert "tags" not in commits[2]["detail"]["fields"]
    human = cli(fresh / "mem", "history", "aaaa0001").output
    assert "Test" in human and "confidence" in human


def test_a_hostile_repository_config_runs_nothing(tmp_path: Path, git_home: Path) -> None:
    """Programs a repository's config names (fsmonitor, a pager, gpg, an external diff) never run
    when memctl reads its history or installs the driver."""
    c = make_clones(tmp_path, "memctl")
    pwned = tmp_path / "pwned"
    script = tmp_path / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch {pwned}\n")
    script.chmod(0o755)
    for key in ("core.fsmonitor", "core.pager", "gpg.program", "diff.external"):
        git(c.b, "config", "--local", key, str(script))
    git(c.b, "config", "--local", "log.showSignature", "true")
    assert cli_json(c.mem_b, "history", "aaaa0001")[0] == 0
    assert cli(c.mem_b, "git", "setup").exit_code == 0
    assert not pwned.exists()
