"""Properties that must hold for any input (hypothesis): files round-trip, queries never raise,
names validate or are refused with a clear error."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memctl.core.fileformat import parse_memory, serialise_memory
from memctl.core.models import Memory, check_name, name_arg
from memctl.errors import MemctlError, UsageError

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=300)
KEYS = st.from_regex(r"[a-z][a-z0-9_]{0,15}", fullmatch=True).filter(lambda k: k not in Memory.model_fields)
SCALARS = st.one_of(st.text(max_size=40), st.integers(-10**9, 10**9), st.booleans(),
                    st.lists(st.text(max_size=20), max_size=4))
WHEN = datetime(2026, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def normalised(body: str) -> str:
    """What a body reads back as: line endings normalised, surrounding whitespace stripped."""
    return re.sub(r"\r\n?", "\n", body).strip()


@settings(max_examples=300, deadline=None)
@given(body=TEXT, extra=st.dictionaries(KEYS, SCALARS, max_size=4))
def test_any_memory_reads_back_as_written(body: str, extra: dict) -> None:
    if not normalised(body):
        return
    try:
        memory = Memory(id="3f9a1c2e", type="fact", user="alice", created=WHEN, updated=WHEN, body=body, extra=extra)
    except ValueError:
        return  # the model refuses it: nothing is written
    text = serialise_memory(memory)
    try:
        back = parse_memory(text)
    except MemctlError as exc:
        pytest.fail(f"serialised memory does not read back: {exc.message}")
    assert back.body == normalised(body) or back.body == memory.body
    assert back.extra == extra and back.frontmatter() == memory.frontmatter()
    assert serialise_memory(back) == text  # byte-stable


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(query=st.text(max_size=200))
def test_a_query_of_any_text_never_raises(samples, query: str) -> None:
    import memctl

    store = memctl.open(samples)
    for mode in ("keyword", "hybrid"):
        try:
            result = store.recall(query, mode=mode, k=3, record_usage=False)
        except UsageError as exc:
            assert exc.code == "empty_query" and not query.strip()
        else:  # k answers, then the constraints of the request's domains ride along (issue 23)
            assert len([hit for hit in result.hits if not hit.constraint]) <= 3
            assert all(hit.constraint for hit in result.hits[3:])


@settings(max_examples=300, deadline=None)
@given(name=st.text(max_size=80))
def test_a_name_validates_or_is_refused_clearly(name: str) -> None:
    try:
        assert name_arg(name, "user") == name
    except UsageError as exc:
        assert exc.code == "bad_name" and exc.message.startswith("invalid user name") and "\n" not in exc.message
    else:
        assert check_name(name, "user") == name and "/" not in name and ".." not in name
