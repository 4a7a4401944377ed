"""A memory file whose visibility the rules do not know is its author's only on every surface: the
CLI (list, recall, context, with a one-line warning on stderr), a real MCP stdio session and the
REST API over real HTTP; `edit --set visibility=private` is refused with the valid values."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from memctl.agents.guard import Access, parse_tokens
from memctl.agents.http import create_app
from memctl.api import MemoryStore
from tests.helpers import cli, http, http_server, use_hashing_embedder

ID = "b0a4d0b1"
NOTE = "Board-only note: the layoffs are planned for January."
MEMBERS = '\n[projects.board.members]\ncarol = "owner"\nvic = "viewer"\n'
TOKENS = {name: f"{name}-token-0123456789abcdef" for name in ("carol", "vic", "mallory")}


def note(visibility: str) -> str:
    return (f"---\nid: {ID}\ntype: fact\nscope: project\nproject: board\nauthor: carol\nvisibility: {visibility}\n"
            f"created: 2026-01-01T00:00:00Z\nupdated: 2026-01-01T00:00:00Z\n---\n{NOTE}\n")


def make_board(memdir: Path, visibility: str = "private") -> Path:
    (memdir / "memctl.toml").write_text((memdir / "memctl.toml").read_text() + MEMBERS)
    (memdir / "projects" / "board").mkdir(parents=True)
    (memdir / "projects" / "board" / f"layoffs-{ID}.md").write_text(note(visibility))
    return use_hashing_embedder(memdir)


@pytest.fixture
def board(memdir: Path) -> Path:
    return make_board(memdir)


@pytest.mark.parametrize("command", [["list"], ["list", "--project", "board"],
                                     ["recall", "layoffs planned January", "--mode", "keyword"],
                                     ["recall", "layoffs planned January", "--project", "board"],
                                     ["context", "layoffs in January", "--project", "board"]])
@pytest.mark.parametrize(("reader", "visibility"), [("mallory", "owner-only"), ("vic", "Owner_Only"),
                                                    ("mallory", "private")])
def test_the_cli_never_shows_it_to_another(memdir: Path, command: list[str], reader: str, visibility: str) -> None:
    board = make_board(memdir, visibility)
    result = cli(board, "--actor", reader, *command)
    assert result.exit_code in (0, 4) and "layoffs" not in result.stdout, result.stdout
    warned = [line for line in result.stderr.splitlines() if "unknown visibility" in line]
    assert len(warned) == 1 and warned[0].startswith("memctl: warning: projects/board/"), result.stderr
    mine = cli(board, "--actor", "carol", *command)
    assert "layoffs" in mine.stdout, mine.stdout + mine.stderr


def test_doctor_reports_it_and_edit_refuses_an_unknown_value(board: Path) -> None:
    doctor = cli(board, "doctor", "--json")
    assert doctor.exit_code == 1
    problems = json.loads(doctor.stdout)["data"]["problems"]
    assert [p["kind"] for p in problems] == ["unknown_visibility"], problems
    fixed = cli(board, "edit", ID, "--set", "visibility=members")
    assert fixed.exit_code == 0, fixed.stderr
    refused = cli(board, "edit", ID, "--set", "visibility=private")
    assert refused.exit_code == 2
    assert refused.stderr.strip() == ("memctl: error: unknown visibility 'private' "
                                      "(choose from public, members, owner_only)")
    assert "visibility: members" in (board / "projects" / "board" / f"layoffs-{ID}.md").read_text()


def test_rest_never_shows_it_to_another(board: Path) -> None:
    tokens = parse_tokens(",".join(f"{name}={token}" for name, token in TOKENS.items()))
    with http_server(create_app(MemoryStore(board), Access(tokens=tokens))) as url:
        def ids(person: str, route: str, key: str) -> list[str]:
            status, _, env = http(url, "GET", route, headers={"Authorization": f"Bearer {TOKENS[person]}"})
            assert status == 200, env
            return [m["id"] for m in env["data"][key]]

        for person in ("mallory", "vic"):
            assert ids(person, "/api/project/board/memory", "memories") == []
            assert ids(person, "/api/project/board/memory/search?q=layoffs+January", "hits") == []
            status, _, _ = http(url, "GET", f"/api/project/board/memory/{ID}",
                                headers={"Authorization": f"Bearer {TOKENS[person]}"})
            assert status == 404
        assert ids("carol", "/api/project/board/memory", "memories") == [ID]


def test_mcp_never_shows_it_to_another(board: Path) -> None:
    seen: dict[str, list[str]] = {}

    async def ask(person: str) -> None:
        params = StdioServerParameters(command=sys.executable, env={**os.environ, "MEMCTL_ACTOR": person},
                                       args=["-m", "memctl", "-d", str(board), "mcp", "--project", "board"])
        with anyio.fail_after(60):
            async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
                await client.initialize()
                found = await client.call_tool("memory_search", {"query": "layoffs planned January"})
                listed = await client.call_tool("memory_list", {})
                block = await client.call_tool("memory_context", {"query": "layoffs in January"})
                seen[person] = [h["id"] for h in found.structured_content["hits"]]
                seen[person] += [m["id"] for m in listed.structured_content["memories"]]
                seen[person] += [ID] if "layoffs" in block.structured_content["text"] else []

    for person in ("vic", "carol"):
        anyio.run(ask, person)
    assert seen == {"vic": [], "carol": [ID, ID, ID]}
