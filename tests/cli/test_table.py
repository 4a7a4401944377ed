"""The generated option table (memctl/agents/cli_table.py) is the typer commands' own, as they are now."""

from __future__ import annotations

from memctl.agents.cli_table import TABLE
from memctl.cli import gentable
from tests.helpers import ROOT


def test_the_checked_in_table_is_what_the_commands_generate() -> None:
    """Regenerate with `python -m memctl.cli.gentable > memctl/agents/cli_table.py` after a change to a
    request model (core/requests.py) or a command's options."""
    assert (ROOT / "memctl" / "agents" / "cli_table.py").read_text(encoding="utf-8") == gentable.render()


def test_a_declared_field_reaches_the_table_with_its_values() -> None:
    recall = TABLE["commands"]["recall"]
    assert recall["options"]["--type"] == ("types", None) and recall["options"]["-t"] == ("types", None)
    assert recall["params"]["k"] == ("int", None, 1, 1000)
    assert recall["values"]["mode"] == ("hybrid", "keyword", "semantic")
    assert recall["values"]["users"] == "@users" and recall["positional"] == ["query"]
    assert "memory.preset" in TABLE["config_keys"] and "recall.min_relevance" in TABLE["config_keys"]
