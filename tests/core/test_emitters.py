"""serialise_memory writes the same text whichever YAML emitter writes it: libyaml's (used when it
is installed and every string is one both emitters write alike) or PyYAML's."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from memctl.core import fileformat
from memctl.core.models import Memory

WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)
# YAML's awkward spots: indicators, keywords read as other types, quotes, spaces at the ends,
# line breaks, controls, a BOM, characters outside the BMP, long keys (not simple keys).
AWKWARD = ["- ", "? ", ": ", "#", " #", "---", "...", "'", '"', "''", "&a", "*a", "!!str", "|", "> ", "<<",
           "yes", "No", "null", "~", "on", "1e3", "0x1F", "12:30", "2026-12-03", ".inf", " ", "  ",
           "\n", "\r\n", "\t", "\x85", "\u2028", "\ufeff", "\x7f", "\xa0", "é", "中文", "😀", "x" * 130]
PIECES = st.lists(st.sampled_from(AWKWARD) | st.text(max_size=6), max_size=12).map("".join)


def _pyyaml(memory: Memory) -> str:
    meta = yaml.dump(memory.frontmatter(), Dumper=fileformat._Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False, width=100000)
    return f"---\n{meta}---\n{memory.body.strip()}\n"


def _memory(text: str, key: str, **fields: Any) -> Memory:
    return Memory(id="3f9a1c2e", type="fact", user="alice", created=WHEN, updated=WHEN, body="Alice likes tea.",
                  tags=[text, key], extra={"note": text, key or "k": [text, {"n": key}]}, **fields)


@settings(max_examples=400, deadline=None)
@given(text=PIECES, key=PIECES.filter(lambda k: k not in Memory.model_fields))
def test_both_emitters_write_the_same_file(text: str, key: str) -> None:
    try:
        memory = _memory(text, key)
    except ValueError:
        return
    assert fileformat.serialise_memory(memory) == _pyyaml(memory)


@pytest.mark.skipif(not fileformat._LIBYAML, reason="PyYAML without libyaml")
def test_plain_text_goes_to_libyaml_and_the_rest_to_pyyaml() -> None:
    assert fileformat._plain_text({"tags": ["Zürich", "中文", "a: b", "- x"], "n": 3})
    assert not fileformat._plain_text({"tags": ["ok", "two\nlines"]})
    assert not fileformat._plain_text({"k😀": 1})
