"""memctl mcp and memctl serve as commands: wiring, and a clear line when the server extra is missing."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.helpers import cli


@pytest.mark.parametrize("command, module", [("serve", "memctl.agents.serve"), ("mcp", "memctl.agents.mcp")])
def test_without_the_server_extra_the_commands_say_what_to_install(memdir: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  command: str, module: str) -> None:
    monkeypatch.setitem(sys.modules, module, None)  # what a missing fastapi / mcp looks like to the import
    result = cli(memdir, command)
    assert result.exit_code == 1
    assert "needs the server extra" in result.stderr and "pip install 'memctl[server]'" in result.stderr


def test_serve_refuses_a_remote_host_without_a_token_before_binding(memdir: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMCTL_TOKEN", raising=False)
    result = cli(memdir, "serve", "--host", "0.0.0.0", "--port", "1")
    assert result.exit_code == 2 and "MEMCTL_TOKEN" in result.stderr
