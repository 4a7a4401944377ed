"""A dialogue's turns judged one by one (memctl.policy.turns)."""

from __future__ import annotations

import pytest

from memctl.core.models import Hit
from memctl.policy.relevance import QueryFacts
from memctl.policy.turns import TURN, about, best_of, by_turns, own_lines, speaks_of_own, turns

DIALOGUE = "User: I need to move my physio session.\nAssistant: Sure, I can help.\nUser: When do I normally go?"
GAP = "gap:memctl/all-MiniLM-L6-v2-int8"
GAP2 = "gap:multilingual-e5-small-q4"


def hit(doc_id: str, relevance: float | None, **components: float) -> Hit:
    return Hit(id=doc_id, path=None, type="fact", scope="user", user="u", content="x", score=0.5,
               components=components, relevance=relevance)


def test_turns_are_the_lines_without_their_speakers_then_the_last_speaker_s_lines_together() -> None:
    assert turns(DIALOGUE) == ["I need to move my physio session.", "Sure, I can help.", "When do I normally go?",
                               "I need to move my physio session. When do I normally go?"]
    assert turns("用户：我下周要去杭州。\n助手：好的。\n用户：我订的是哪家酒店？")[0] == "我下周要去杭州。"
    assert turns("Where does Hank live?") == []  # one line: no turns


@pytest.mark.parametrize(("dialogue", "joined"), [
    ("User: My knee is acting up again.\nAssistant: Sorry! The same one?\nUser: Yes. What did the physio say to do?",
     "My knee is acting up again. Yes. What did the physio say to do?"),
    ("用户：我下周要去杭州。\n助手：好的。\n用户：我订的是哪家酒店？", "我下周要去杭州。 我订的是哪家酒店？"),
    ("Assistant: hello\nAssistant: what can I do?\nUser: where is my passport?", None),  # the last speaker says one
    ("Assistant: Anything else?\nUser: my bank", None),  # one line of theirs
    ("User: one\nUser: two", None),  # no one else speaks
    ("the first line\nthe second\nand a third", None),  # no speakers
])
def test_own_lines_are_what_the_last_speaker_says_together(dialogue: str, joined: str | None) -> None:
    assert own_lines(dialogue) == joined


def test_a_dialogue_of_long_lines_reads_only_its_last_turns_that_fit() -> None:
    """Each turn is recalled as its own query: a pasted chat of long lines costs a bounded time."""
    long = "the budget review moved to the garden office again " * 12  # 612 characters
    dialogue = f"User: {long}\nAssistant: {long}\nUser: {long}\nAssistant: noted\nUser: and my bank?"
    assert turns(dialogue) == [long.strip(), "noted", "and my bank?", f"{long.strip()} and my bank?"]
    assert turns(f"User: hi\nAssistant: {long * 2}\nUser: {long * 2}") == []  # the last alone is too long


@pytest.mark.parametrize(("text", "own"), [
    ("When do I normally go?", True), ("remind me what we each pay", True), ("include my title", True),
    ("what's 7/8 as a decimal?", False), ("Tell me about the history of the Forth Bridge.", False),
    ("did his wife have the baby yet?", False), ("我订的是哪家酒店？", True), ("杭州明天天气怎么样？", False),
])
def test_speaks_of_own_reads_a_first_person_word(text: str, own: bool) -> None:
    assert speaks_of_own(text) is own


def test_a_dialogue_is_judged_by_its_turns_only_about_the_users_own_things_the_store_knows() -> None:
    dialogue = QueryFacts(shape="dialogue")
    assert by_turns(DIALOGUE, dialogue)
    assert not by_turns(DIALOGUE, QueryFacts(shape="dialogue", absent=True))  # names someone the store never mentions
    assert not by_turns("User: helping Jack with homework\nAssistant: Sure.\nUser: what's 7/8 as a decimal?", dialogue)
    assert not by_turns("Where do I normally go?", QueryFacts(shape="question"))
    repeated = "User: what's 7 times 8?\nAssistant: I can work that out.\nUser: what's 7 times 8?"
    assert not by_turns(repeated, dialogue)  # the last line is what is asked, even when said before


def test_a_turn_lifts_the_hit_it_is_about_and_says_which_turn() -> None:
    whole = [hit("a", 0.2), hit("b", 0.3), hit("c", None)]
    first = [hit("a", 0.9, **{GAP: 0.1, GAP2: -0.01}), hit("b", 0.95, **{GAP: -0.1, GAP2: -0.02}), hit("c", 0.9, **{GAP: 0.2})]
    second = [hit("a", 0.1, **{GAP: 0.0}), hit("b", 0.1, **{GAP: 0.0}), hit("c", 0.1)]
    a, b, c = best_of(whole, [first, second])
    assert a.relevance == 0.9 and a.components[TURN] == 1.0  # the best of the turn's candidates by one model
    assert b.relevance == 0.3 and TURN not in b.components  # not what the turn is about: judged by the whole
    assert c.relevance is None  # no calibrated signal: always shown, left as it is


def test_about_needs_some_model_s_cosine() -> None:
    assert about(hit("a", 0.9, **{GAP: 0.0}))
    assert not about(hit("a", 0.9, coverage=1.0))  # keyword recall alone: no turn lifts

