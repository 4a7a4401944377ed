"""The agent tool registry: schemas bound to the settings, argument checks, and each tool over a store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from memctl.agents.tools import TOOLS, Caller, Defaults, InvalidArguments, call_tool, parse_arguments, simplify
from memctl.api import MemoryStore
from memctl.config import Config
from memctl.errors import NotFound, Refused, UsageError

CLAUDE = Config.model_validate({"memory": {"preset": "claude"}})
ALICE = Caller(defaults=Defaults(user="alice"))


def test_the_tools_are_the_seeds_names() -> None:
    assert list(TOOLS) == ["memory_search", "memory_add", "memory_context", "memory_update", "memory_forget",
                           "memory_list", "memory_query", "memory_show"]
    add = TOOLS["memory_add"].input_schema(Config())["properties"]
    assert {"text", "type", "scope", "user", "project", "session", "confidence", "key", "tags"} <= set(add)
    search = TOOLS["memory_search"].input_schema(Config())["properties"]
    # the declared names (core/requests.py: RecallRequest); the seed's names are accepted as aliases
    assert {"query", "k", "types", "scopes", "users", "projects", "session", "tags", "since", "status"} <= set(search)


@pytest.mark.parametrize("config, types, default", [
    (Config(), ["preference", "fact", "skill", "habit", "event", "context", "constraint", "decision"], "fact"),
    (CLAUDE, ["user", "feedback", "project", "reference"], "user"),
    (Config.model_validate({"memory": {"types": ["note", "todo"]}}), ["note", "todo"], "note"),
])
def test_memory_type_is_an_enum_of_the_configured_types(config: Config, types: list[str], default: str) -> None:
    add = TOOLS["memory_add"].input_schema(config)
    assert add["properties"]["type"]["enum"] == types
    assert add["properties"]["type"]["default"] == default
    assert add["required"] == ["text"] and add["additionalProperties"] is False
    for name in ("memory_list", "memory_update"):
        prop = TOOLS[name].input_schema(config)["properties"]["type"]  # the declared name; memory_type an alias
        assert prop["enum"] == [*types, None] and "default" not in prop  # a filter: none (null) means any type
    prop = TOOLS["memory_search"].input_schema(config)["properties"]["types"]
    assert prop["items"]["enum"] == types and not prop.get("default")  # a filter: none means any type


def test_schemas_are_plain_for_models_and_outputs_allow_null() -> None:
    schema = TOOLS["memory_search"].input_schema(Config())
    assert schema["properties"]["session"] == {"type": ["string", "null"], "title": "Session",
                                               "description": schema["properties"]["session"]["description"]}
    assert "anyOf" not in str(schema)
    out = TOOLS["memory_add"].output_schema()
    assert {"type": "null"} in out["properties"]["matched"]["anyOf"]
    assert simplify({"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}) == {"type": ["integer", "null"]}
    assert simplify({"anyOf": [{"type": "string"}, {"type": "null"}], "enum": ["a"]}) == {"type": ["string", "null"],
                                                                                       "enum": ["a", None]}


@pytest.mark.parametrize("tool, arguments, problem", [
    ("memory_search", {}, "query is required"),
    ("memory_search", {"query": "x", "k": "5"}, "k: Input should be a valid integer"),
    ("memory_search", {"query": "x", "k": 0}, "k: Input should be greater than or equal to 1"),
    ("memory_search", {"query": "x", "mode": "fuzzy"}, "mode: Input should be 'hybrid', 'keyword' or 'semantic'"),
    ("memory_search", {"query": "   "}, "query: must not be empty or blank"),
    ("memory_search", {"query": "x", "colour": "red"}, "unknown argument 'colour' (expected: query, users,"),
    ("memory_search", {"query": "x", "user": "../x"}, "users: invalid user name '../x'"),
    ("memory_add", {"content": "x", "memory_type": "fact"}, "type: Input should be 'user', 'feedback', "
                                                            "'project' or 'reference'"),
    ("memory_add", {"content": "x", "tags": ["a", 1]}, "tags.1: Input should be a valid string"),
    ("memory_add", {"content": "x", "confidence": 1.5}, "confidence: Input should be less than or equal to 1"),
    ("memory_list", {"memory_type": "banana"}, "type: Input should be 'user'"),
    ("memory_list", [], "the arguments must be a JSON object"),
    ("memory_forget", {"reason": "wrong"}, "id is required"),
    ("memory_forget", {"id": "../../etc"}, "memory_id: invalid memory id '../../etc'"),
    ("memory_update", {"id": "abcd", "importance": 2}, "importance: Input should be less than or equal to 1"),
])
def test_bad_arguments_say_what_to_fix(tool: str, arguments: Any, problem: str) -> None:
    with pytest.raises(InvalidArguments, match=None) as info:
        parse_arguments(TOOLS[tool], CLAUDE, arguments)
    assert problem in info.value.message and info.value.code == "invalid_arguments"


def test_nulls_count_as_omitted() -> None:
    args = parse_arguments(TOOLS["memory_list"], Config(), {"user": None, "limit": 2})
    assert args.user is None and args.limit == 2


def test_an_unknown_tool_is_refused() -> None:
    with pytest.raises(InvalidArguments) as info:
        call_tool(None, "memory_teleport", {})
    assert info.value.code == "unknown_tool" and "memory_search" in info.value.message


# -- the tools over a store ---------------------------------------------------------------------

def _valid(name: str, data: dict) -> dict:
    jsonschema.validate(data, TOOLS[name].output_schema())  # what an MCP client checks structuredContent against
    return data


def test_add_search_update_forget_list(store: MemoryStore) -> None:
    added = _valid("memory_add", call_tool(store, "memory_add", {"content": "Alice prefers window seats on flights",
                                                                 "memory_type": "preference"}, ALICE))
    assert added["written"] and added["memory"]["user"] == "alice" and added["memory"]["source"] == "ai"
    memory_id = added["memory"]["id"]
    hits = _valid("memory_search", call_tool(store, "memory_search", {"query": "window seat"}, ALICE))["hits"]
    assert [h["id"] for h in hits] == [memory_id]
    changed = _valid("memory_update", call_tool(store, "memory_update", {
        "id": memory_id, "content": "Alice prefers aisle seats on long flights", "tags": ["travel"],
        "confidence": 0.9}, ALICE))["memory"]
    assert changed["content"] == "Alice prefers aisle seats on long flights" and changed["tags"] == ["travel"]
    assert changed["confidence"] == 0.9 and store.get(memory_id).tags == ["travel"]
    listed = _valid("memory_list", call_tool(store, "memory_list", {}, ALICE))
    assert listed["count"] == 1 and listed["memories"][0]["id"] == memory_id
    shown = _valid("memory_show", call_tool(store, "memory_show", {"id": memory_id[:6]}, ALICE))["memory"]
    assert shown["id"] == memory_id and shown["content"] == changed["content"] and "importance_score" in shown
    gone = _valid("memory_forget", call_tool(store, "memory_forget", {"id": memory_id, "reason": "asked"}, ALICE))
    assert gone["memory"]["status"] == "forgotten"
    assert call_tool(store, "memory_list", {}, ALICE)["count"] == 0
    assert call_tool(store, "memory_list", {"status": "forgotten"}, ALICE)["count"] == 1


def test_a_repeat_is_a_noop_not_an_error(store: MemoryStore) -> None:
    first = call_tool(store, "memory_add", {"content": "Alice is allergic to peanuts"}, ALICE)
    again = _valid("memory_add", call_tool(store, "memory_add", {"content": "Alice is allergic to peanuts"}, ALICE))
    assert again["written"] is False and again["decision"]["action"] == "noop"
    assert again["decision"]["target"] == first["memory"]["id"]


def test_a_secret_is_refused_by_add_and_by_update(store: MemoryStore) -> None:
    with pytest.raises(Refused) as info:
        call_tool(store, "memory_add", {"content": "My card number is 4111 1111 1111 1111"}, ALICE)
    assert info.value.code == "sensitive"
    memory_id = call_tool(store, "memory_add", {"content": "Alice pays with her work card"}, ALICE)["memory"]["id"]
    with pytest.raises(Refused) as info:
        call_tool(store, "memory_update", {"id": memory_id, "content": "Alice's card is 4111 1111 1111 1111"}, ALICE)
    assert info.value.code == "sensitive" and store.get(memory_id).body == "Alice pays with her work card"


def test_update_needs_something_to_change_and_an_existing_memory(store: MemoryStore) -> None:
    memory_id = call_tool(store, "memory_add", {"content": "Alice plays the cello"}, ALICE)["memory"]["id"]
    with pytest.raises(UsageError, match="nothing to change"):
        call_tool(store, "memory_update", {"id": memory_id}, ALICE)
    with pytest.raises(NotFound):
        call_tool(store, "memory_update", {"id": "abcdef12", "key": "x"}, ALICE)


@pytest.mark.parametrize("arguments, owner", [
    ({}, {"scope": "user", "user": "alice"}),
    ({"scope": "project"}, {"scope": "project", "project": "shop"}),
    ({"project": "web"}, {"scope": "project", "project": "web"}),
    ({"session": "s1"}, {"scope": "session", "user": "alice", "session": "s1"}),
    ({"user": "bob"}, {"scope": "user", "user": "bob"}),
])
def test_add_scope_and_owner(store: MemoryStore, arguments: dict, owner: dict) -> None:
    caller = Caller(defaults=Defaults(user="alice", project="shop"))
    memory = call_tool(store, "memory_add", {"content": "The team ships on Thursdays", **arguments}, caller)["memory"]
    assert {k: memory.get(k) for k in owner} == owner


@pytest.mark.parametrize("arguments, code", [
    ({"scope": "session"}, "no_session"),
    ({"scope": "user", "project": "web"}, "bad_scope"),
    ({"scope": "project"}, "no_owner"),  # no default project
])
def test_add_scope_mistakes(store: MemoryStore, arguments: dict, code: str) -> None:
    with pytest.raises(UsageError) as info:
        call_tool(store, "memory_add", {"content": "The team ships on Thursdays", **arguments}, ALICE)
    assert info.value.code == code


def test_search_scope_keeps_only_that_scope(store: MemoryStore) -> None:
    store.add_raw("Checkout runs on Go and Postgres", type="context", project="shop", user="alice")
    store.add_raw("Alice likes Go for small services", type="preference", user="alice")
    caller = Caller(defaults=Defaults(user="alice", project="shop"))
    both = call_tool(store, "memory_search", {"query": "Go"}, caller)["hits"]
    assert {h["scope"] for h in both} == {"user", "project"}
    only = call_tool(store, "memory_search", {"query": "Go", "scope": "project"}, caller)["hits"]
    assert [h["scope"] for h in only] == ["project"]
    typed = call_tool(store, "memory_search", {"query": "Go", "memory_type": "preference"}, caller)["hits"]
    assert [h["type"] for h in typed] == ["preference"]


def _fill_rate_limit(store: MemoryStore, caller: Caller, source: str) -> list[str]:
    outcomes = []
    for n, city in enumerate(["Lisbon", "Osaka", "Nairobi", "Denver"]):
        try:
            call_tool(store, "memory_add", {"content": f"Alice visited {city} in 20{10 + n}", "session": "s1",
                                            "source": source}, caller)
            outcomes.append("written")
        except Refused as exc:
            outcomes.append(exc.code)
    return outcomes


def test_an_agent_saying_source_user_is_still_rate_limited(store: MemoryStore) -> None:
    assert _fill_rate_limit(store, ALICE, "user") == ["written"] * 3 + ["rate_limited"]
    assert {m.source for m in store.list(user="alice")} == {"ai"}


def test_a_trusted_caller_keeps_its_source(store: MemoryStore) -> None:
    trusted = Caller(defaults=Defaults(user="alice"), trust_source=True)
    assert _fill_rate_limit(store, trusted, "user") == ["written"] * 4
    assert {m.source for m in store.list(user="alice")} == {"user"}


def test_an_agent_write_with_no_confidence_is_unrated_not_certain(store: MemoryStore, memdir: Path) -> None:
    """[gate] agent_confidence (0.7): "Alice" alone is stored at 0.7, not silently at 1.0; a stated
    confidence is kept; with min_confidence above agent_confidence the gate refuses the unrated write."""
    added = call_tool(store, "memory_add", {"content": "Alice"}, ALICE)
    assert added["written"] and added["memory"]["confidence"] == 0.7
    stated = call_tool(store, "memory_add", {"content": "Alice prefers aisle seats", "confidence": 0.95}, ALICE)
    assert stated["memory"]["confidence"] == 0.95
    assert store.add("Bob drinks his coffee black", user="bob").memory.confidence == 1.0  # a person's add
    config = memdir / "memctl.toml"
    config.write_text(config.read_text().replace("min_confidence = 0.7", "min_confidence = 0.8"))
    with pytest.raises(Refused) as info:
        call_tool(MemoryStore(memdir), "memory_add", {"content": "Alice keeps a cat named Miso"}, ALICE)
    assert [f["code"] for f in info.value.data["verdict"]["failures"]] == ["low_confidence"]


def test_list_is_newest_first_with_offset_and_filters(store: MemoryStore) -> None:
    from memctl import clock

    for day, (text, subtype) in enumerate([("Alice lives in Lisbon now", "home"), ("Alice works as a nurse", "job"),
                                           ("Alice plays the cello", None)], 1):
        clock.set_now(clock.parse_timestamp(f"2026-01-0{day}T00:00:00Z"))
        store.add_raw(text, type="fact", user="alice", subtype=subtype, tags=["bio"] if subtype else [])
    clock.set_now(None)
    names = [m["content"] for m in call_tool(store, "memory_list", {"limit": 2, "offset": 1}, ALICE)["memories"]]
    assert names == ["Alice works as a nurse", "Alice lives in Lisbon now"]
    assert call_tool(store, "memory_list", {"subtype": "job"}, ALICE)["count"] == 1
    assert call_tool(store, "memory_list", {"tag": "bio"}, ALICE)["count"] == 2


def test_context_uses_the_default_user(store: MemoryStore) -> None:
    call_tool(store, "memory_add", {"content": "Alice prefers window seats on flights", "memory_type": "preference"},
              ALICE)
    block = _valid("memory_context", call_tool(store, "memory_context", {"query": "book me a flight"}, ALICE))
    assert "window seats" in block["text"] and block["tokens"] <= block["budget"] == 800


def test_claude_preset_add_without_a_type_takes_the_presets_default(tmp_path: Path) -> None:
    from memctl.store.directory import init_directory

    init_directory(tmp_path / "mem")
    config = tmp_path / "mem" / "memctl.toml"
    config.write_text(config.read_text().replace('preset = "default"', 'preset = "claude"'))
    store = MemoryStore(tmp_path / "mem")
    memory = call_tool(store, "memory_add", {"content": "Alice wants terse answers"}, ALICE)["memory"]
    assert memory["type"] == "user"


def test_visibility_is_set_by_add_and_update_and_checked(store: MemoryStore) -> None:
    schema = TOOLS["memory_add"].input_schema(Config())["properties"]["visibility"]
    assert schema["enum"] == ["public", "members", "owner_only", None]
    assert TOOLS["memory_update"].input_schema(Config())["properties"]["visibility"]["enum"] == schema["enum"]
    added = call_tool(store, "memory_add", {"content": "Alice keeps her diary in a blue notebook",
                                            "visibility": "owner_only"}, ALICE)["memory"]
    assert added["visibility"] == "owner_only" and store.get(added["id"]).visibility == "owner_only"
    assert "visibility: owner_only" in (store.root / added["path"]).read_text(encoding="utf-8")
    changed = call_tool(store, "memory_update", {"id": added["id"], "visibility": "public"}, ALICE)["memory"]
    assert changed["visibility"] == "public"
    with pytest.raises(InvalidArguments, match="visibility"):
        call_tool(store, "memory_add", {"content": "Alice likes plums a lot", "visibility": "everyone"}, ALICE)
    with pytest.raises(InvalidArguments, match="visibility"):
        call_tool(store, "memory_update", {"id": added["id"], "visibility": "secret"}, ALICE)
    assert store.get(added["id"]).visibility == "public"


def test_the_facade_refuses_an_unknown_visibility(store: MemoryStore) -> None:
    with pytest.raises(UsageError) as caught:
        store.add("Alice likes plums a lot", user="alice", visibility="everyone")
    assert caught.value.code == "bad_visibility" and caught.value.exit_code == 2
    assert store.list(user="alice") == []
