"""memctl/agents/mcp_sdk.py: the same server on mcp 1.x and 2.x (CI runs this file on both)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memctl.agents.mcp_sdk import SDK_MAJOR, make_server, types, wire
from tests.helpers import use_hashing_embedder


def test_the_installed_sdk_is_one_memctl_supports() -> None:
    assert SDK_MAJOR in (1, 2)


def test_a_method_the_bridge_does_not_know_is_refused_at_once() -> None:
    async def handler(params: object) -> object:
        return None

    with pytest.raises(ValueError, match="no MCP method"):
        make_server("x", "1", title="x", instructions="x", handlers={"tools/teleport": handler})


def test_protocol_objects_are_built_and_read_in_their_wire_form() -> None:
    tool = types.Tool.model_validate({"name": "t", "inputSchema": {"type": "object"},
                                      "annotations": {"readOnlyHint": True}})
    assert wire(tool) == {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"readOnlyHint": True}}


def test_an_error_whose_request_id_cannot_be_read_has_the_null_id(memdir: Path) -> None:
    """A line too deep to parse, its id past what is scanned for one: the answer says id null (the
    spec's id for a request whose id is unknown), on either SDK's writer."""
    use_hashing_embedder(memdir)
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    deep = '{"jsonrpc": "2.0", "method": "tools/call", "params": {"pad": "' + "x" * 5000 + '", "a": ' + \
        "[" * 1000 + "]" * 1000 + '}, "id": 7}'
    lines = [json.dumps(init), json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}), deep]
    done = subprocess.run([sys.executable, "-m", "memctl", "-d", str(memdir), "mcp", "--user", "alice"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0]["id"] == 1 and "result" in answers[0]
    assert answers[1] == {"jsonrpc": "2.0", "id": None,
                          "error": {"code": -32600, "message": "invalid request: JSON nested deeper than 64 levels"}}
