"""One gate for every way a memory is written or changed (policy/gate.py RULES): a person's edit, an
agent's memory_update, an add, an import and a restored record are decided by the same rules, as the
registry says where each applies, and refused in one wording."""

from __future__ import annotations

import json

import pytest

from memctl.agents.tools import Caller, Defaults, call_tool
from memctl.api import MemoryStore
from memctl.errors import Refused

ALICE = Caller(defaults=Defaults(user="alice"))


def refusal(call) -> tuple[str, str]:
    with pytest.raises(Refused) as caught:
        call()
    return caught.value.code, str(caught.value)


def test_an_edit_and_an_agent_update_lowering_confidence_are_decided_alike(store: MemoryStore) -> None:
    memory = store.add("Alice prefers window seats on flights", user="alice").memory
    assert memory is not None
    by_person = refusal(lambda: store.edit(memory.id, {"confidence": "0.5"}))
    by_agent = refusal(lambda: call_tool(store, "memory_update", {"id": memory.id, "confidence": 0.5}, ALICE))
    assert by_person == by_agent == ("low_confidence", "refused by the gate (low_confidence): confidence 0.5 is "
                                                       "below the minimum 0.7")
    assert store.get(memory.id).confidence == 1.0
    assert store.edit(memory.id, {"confidence": "0.8"}).confidence == 0.8
    assert call_tool(store, "memory_update", {"id": memory.id, "confidence": 0.9}, ALICE)["memory"]["confidence"] == 0.9


def test_an_agent_rewriting_a_low_confidence_memory_makes_a_claim_a_person_does_not(store: MemoryStore) -> None:
    """A memory below the minimum (written by hand, or before the threshold rose): a person may edit
    its text or tags; an agent's new text is a new claim at that confidence, refused like an add."""
    memory = store.add_raw("Alice might like jazz", user="alice", confidence=0.4)
    assert store.edit(memory.id, {"tags": "[music]"}).tags == ["music"]
    assert store.edit(memory.id, body="Alice might like jazz and blues").body == "Alice might like jazz and blues"
    code, _ = refusal(lambda: call_tool(store, "memory_update", {"id": memory.id, "content": "Alice likes jazz"}, ALICE))
    assert code == "low_confidence"
    written = call_tool(store, "memory_update", {"id": memory.id, "content": "Alice likes jazz", "confidence": 0.9}, ALICE)
    assert written["memory"]["content"] == "Alice likes jazz"


def test_a_secret_is_refused_in_the_same_words_by_add_edit_update_and_import(store: MemoryStore) -> None:
    card = "My card number is 4111 1111 1111 1111"
    memory = store.add("Alice pays by card at the bakery", user="alice").memory
    assert memory is not None
    found = {refusal(lambda: store.add(card, user="alice")),
             refusal(lambda: store.edit(memory.id, body=card)),
             refusal(lambda: call_tool(store, "memory_update", {"id": memory.id, "content": card}, ALICE))}
    assert len(found) == 1 and next(iter(found))[0] == "sensitive"
    item = store.import_text(json.dumps({"content": card, "user": "alice"})).items[0]
    assert (item.outcome, item.codes[0], item.message) == ("refused", "sensitive", next(iter(found))[1])


def test_the_length_rule_judges_a_body_only_when_it_is_written(store: MemoryStore) -> None:
    memory = store.add_raw("Tea", user="alice")  # shorter than the minimum, written with no gate
    assert store.edit(memory.id, {"tags": "[drinks]"}).tags == ["drinks"]
    assert refusal(lambda: store.edit(memory.id, body="Tea!"))[0] == "too_short"
