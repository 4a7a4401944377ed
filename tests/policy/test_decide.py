"""The write decision: rules over similarity + text comparison, and the LLM prompt/answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memctl.policy.decide import (
    Candidate,
    Decision,
    Neighbor,
    announces_change_of,
    compare_texts,
    decide,
    fingerprint,
    is_ambiguous,
    llm_decision_prompt,
    looks_conflicting,
    normalise,
    parse_llm_decision,
)


def _decide_pair(old: str, new: str, cosine: float, old_key: str | None = None,
                 new_key: str | None = None) -> Decision:
    candidate = Candidate(text=new, type="fact", key=new_key)
    stored = Neighbor(id="m1", text=old, type="fact", key=old_key, cosine=cosine)
    return decide(candidate, [stored])


# (stored text, new text, cosine, stored key, new key, expected action, expected similar)
PAIRS = [
    # The examples.
    ("Alice is vegetarian", "Alice is a vegetarian", 0.996, None, None, "noop", []),
    ("Alice prefers window seats on flights", "Alice prefers window seats on long flights",
     0.95, None, None, "update", []),
    ("Bob likes jazz", "Bob dislikes jazz", 0.88, None, None, "supersede", []),
    ("The team uses PostgreSQL 16", "The team uses PostgreSQL 15", 0.91, None, None, "supersede", []),
    ("The offsite in Tokyo is on March 3", "The offsite in Tokyo is on March 5",
     0.96, None, None, "supersede", []),
    ("Alice lives in Beijing", "Alice moved to Shanghai", 0.5, "home.city", "home.city",
     "supersede", []),
    ("Prefers window seats", "Likes to sit by the window on planes", 0.59, None, None, "add", ["m1"]),
    ("Alice has a cat named Tom", "The build uses Bazel", 0.2, None, None, "add", []),
    # Says less than the stored memory: nothing new.
    ("Alice prefers window seats on long flights", "Alice prefers window seats on flights",
     0.95, None, None, "noop", []),
    ("Alice is allergic to peanuts and shellfish", "Alice is allergic to peanuts",
     0.9, None, None, "noop", []),
    ("Alice likes jazz but not rock", "Alice likes jazz", 0.9, None, None, "noop", []),
    # Chinese, compared by characters.
    ("Alice住在北京", "Alice住在上海", 0.9, None, None, "supersede", []),
    ("用户住在北京", "用户住在上海", 0.6, "home.city", "home.city", "supersede", []),
    ("我喜欢咖啡", "我不喜欢咖啡", 0.9, None, None, "supersede", []),
    ("我喜欢咖啡", "我讨厌咖啡", 0.9, None, None, "supersede", []),
    ("我喜欢咖啡", "我喜欢咖啡。", 0.99, None, None, "noop", []),
    ("我喜欢咖啡", "我喜欢黑咖啡", 0.93, None, None, "update", []),
    ("用户住在北京", "项目使用 Rust 编写", 0.1, None, None, "add", []),
    # Negation and antonyms.
    ("Bob doesn't like jazz", "Bob does not like jazz", 0.97, None, None, "noop", []),
    ("Bob likes jazz", "Bob doesn't like jazz", 0.9, None, None, "supersede", []),
    ("Never deploy on Fridays", "Deploy on Fridays", 0.9, None, None, "supersede", []),
    ("Dark mode is enabled", "Dark mode is disabled", 0.93, None, None, "supersede", []),
    ("Alice always takes the train", "Alice never takes the train", 0.9, None, None, "supersede", []),
    ("Bob hates jazz", "Bob loves jazz", 0.86, None, None, "supersede", []),
    ("Requests from the VPN are allowed", "Requests from the VPN are denied",
     0.92, None, None, "supersede", []),
    ("Alice likes jazz", "Alice likes jazz but not rock", 0.9, None, None, "update", []),
    ("Alice used to live in Beijing", "Alice lives in Beijing", 0.9, None, None, "supersede", []),
    ("Alice stopped drinking coffee", "Alice drinks coffee", 0.88, None, None, "supersede", []),
    # Numbers and dates compared as values.
    ("The meeting is on 2024-03-05", "The meeting is on 2024-3-5", 0.98, None, None, "noop", []),
    ("The meeting is on March 3rd", "The meeting is on March 3", 0.98, None, None, "noop", []),
    ("The budget is 1,000 dollars", "The budget is 1000 dollars", 0.99, None, None, "noop", []),
    ("The budget is 1000 dollars", "The budget is 1500 dollars", 0.95, None, None, "supersede", []),
    ("Alice's flight leaves at 09:30", "Alice's flight leaves at 10:30", 0.95, None, None,
     "supersede", []),
    ("Python 3.11 is the default interpreter", "Python 3.12 is the default interpreter",
     0.97, None, None, "supersede", []),
    # A replaced word in an otherwise matching statement.
    ("Alice works at Google", "Alice works at Meta", 0.87, None, None, "supersede", []),
    # Stemming: plurals are the same content.
    ("The team uses feature flags", "The team uses feature flag", 0.99, None, None, "noop", []),
    # Keys.
    ("Alice lives in Beijing", "Alice lives in Beijing.", 0.99, "home.city", "home.city", "noop", []),
    ("Alice lives in Beijing", "Alice lives in Beijing with her two cats", 0.7, "home.city",
     "home.city", "update", []),
    ("Alice prefers window seats", "Alice prefers vegetarian meals", 0.86, "travel.seat",
     "travel.meal", "add", ["m1"]),
    # Similar but not provably the same fact: add, naming the similar memory.
    ("Alice prefers window seats", "Alice books aisle seats for her kids", 0.86, None, None,
     "add", ["m1"]),
    ("Alice prefers window seats on flights", "Alice prefers window seats on long flights",
     0.8, None, None, "add", ["m1"]),
    ("Alice prefers window seats on flights", "Alice prefers window seats on long flights",
     0.5, None, None, "add", []),
    # Provably the same text is a repeat even if the caller's cosine is odd.
    ("Alice is vegetarian!", "alice is VEGETARIAN", 0.4, None, None, "noop", []),
]


@pytest.mark.parametrize("old,new,cosine,old_key,new_key,action,similar", PAIRS)
def test_decision_pairs(old: str, new: str, cosine: float, old_key: str | None,
                        new_key: str | None, action: str, similar: list[str]) -> None:
    decision = _decide_pair(old, new, cosine, old_key, new_key)
    assert decision.action == action, decision.reason
    assert decision.similar == similar
    assert decision.decided_by == "rules"
    assert decision.target == (None if action == "add" else "m1")


def test_table_has_at_least_35_pairs() -> None:
    assert len(PAIRS) >= 35


def test_update_carries_new_text_and_supersede_explains_the_change() -> None:
    update = _decide_pair("Alice prefers window seats on flights",
                          "Alice prefers window seats on long flights", 0.95)
    assert update.text == "Alice prefers window seats on long flights"
    supersede = _decide_pair("The team uses PostgreSQL 16", "The team uses PostgreSQL 15", 0.91)
    assert "'16' -> '15'" in supersede.reason
    assert supersede.text is None


@pytest.mark.parametrize("old,new,cosine,conflict", [
    ("Bob likes jazz", "Bob dislikes jazz", 0.7, True),
    ("Alice is vegetarian", "Alice is not vegetarian anymore, she eats fish", 0.8, True),
    ("Prefers window seats", "Likes to sit by the window on planes", 0.59, False),
    ("Bob likes jazz", "Bob dislikes jazz", 0.3, False),  # below related: not even similar
])
def test_related_but_unmatched_conflicts(old: str, new: str, cosine: float, conflict: bool) -> None:
    decision = _decide_pair(old, new, cosine)
    assert decision.action == "add"
    assert decision.conflicts_with == (["m1"] if conflict else [])


@pytest.mark.parametrize("old,new,relation", [
    ("Alice is vegetarian", "Alice is a vegetarian.", "same"),
    ("Alice prefers window seats on long flights", "Alice prefers window seats on flights", "less"),
    ("Alice prefers window seats on flights", "Alice prefers window seats on long flights", "more"),
    ("Bob likes jazz", "Bob dislikes jazz", "changed"),
    ("Alice likes tea", "The build uses Bazel", "different"),
    ("Bob is Alice's manager", "Alice is Bob's manager", "changed"),  # swapped, never a repeat
    ("Alice is Bob's manager and mentor", "Bob is Alice's manager", "different"),
    ("", "Alice likes tea", "different"),
])
def test_compare_texts(old: str, new: str, relation: str) -> None:
    assert compare_texts(old, new) == relation


@pytest.mark.parametrize("a,b", [
    ("Alice is vegetarian", "Alice is a vegetarian."),
    ("The Team uses feature-flags", "the team uses feature flags"),
    ("Bob doesn’t like jazz", "Bob does not like jazz"),
    ("我喜欢咖啡", "我喜欢咖啡！"),
])
def test_normalise_and_fingerprint_equal(a: str, b: str) -> None:
    assert normalise(a) == normalise(b)
    assert fingerprint(a) == fingerprint(b)


def test_fingerprint_differs_for_different_facts() -> None:
    assert fingerprint("Bob likes jazz") != fingerprint("Bob dislikes jazz")
    assert len(fingerprint("x")) == 16


def test_normalise_keeps_cjk_runs_unspaced() -> None:
    assert normalise("Alice 住在 北京") == "alic 住在北京"


def _neighbor(id: str, text: str, cosine: float, key: str | None = None,
              type: str = "fact") -> Neighbor:
    return Neighbor(id=id, text=text, type=type, key=key, cosine=cosine)


def test_noop_wins_over_supersede_and_the_other_is_a_conflict() -> None:
    candidate = Candidate(text="Bob dislikes jazz", type="fact")
    neighbors = [_neighbor("a", "Bob likes jazz", 0.88), _neighbor("b", "Bob dislikes jazz", 0.99)]
    decision = decide(candidate, neighbors)
    assert (decision.action, decision.target) == ("noop", "b")
    assert decision.conflicts_with == ["a"]
    assert decision.similar == ["a"]


def test_same_key_neighbour_is_preferred_and_similar_is_ordered_by_cosine() -> None:
    candidate = Candidate(text="Alice moved to Shanghai", type="fact", key="home.city")
    neighbors = [_neighbor("z", "Alice visited Shanghai in May", 0.7),
                 _neighbor("y", "Alice lives in Beijing", 0.5, key="home.city"),
                 _neighbor("x", "Alice travels to Shanghai often", 0.8)]
    decision = decide(candidate, neighbors)
    assert (decision.action, decision.target) == ("supersede", "y")
    assert decision.similar == ["x", "z"]


def test_other_type_is_never_matched_but_is_similar() -> None:
    candidate = Candidate(text="Bob likes jazz", type="preference")
    decision = decide(candidate, [_neighbor("a", "Bob likes jazz", 0.99, type="fact")])
    assert decision.action == "add"
    assert decision.similar == ["a"]


def test_custom_thresholds() -> None:
    candidate = Candidate(text="Alice prefers window seats on long flights", type="fact")
    neighbor = _neighbor("a", "Alice prefers window seats on flights", 0.8)
    assert decide(candidate, [neighbor], duplicate_threshold=0.75).action == "update"
    assert decide(candidate, [neighbor], related_threshold=0.9).similar == []


def test_no_neighbours_is_a_plain_add() -> None:
    decision = decide(Candidate(text="Anything", type="fact"), [])
    assert decision.model_dump(mode="json") == {
        "action": "add", "target": None, "similar": [], "conflicts_with": [],
        "reason": "no similar memory", "decided_by": "rules", "text": None,
    }


@pytest.mark.parametrize("decision,ambiguous", [
    (Decision(action="add", similar=["a"], reason="r"), True),
    (Decision(action="add", conflicts_with=["a"], reason="r"), True),
    (Decision(action="add", reason="r"), False),
    (Decision(action="noop", target="a", similar=["b"], reason="r"), False),
    (Decision(action="add", similar=["a"], reason="r", decided_by="llm"), False),
])
def test_is_ambiguous(decision: Decision, ambiguous: bool) -> None:
    assert is_ambiguous(decision) is ambiguous


NEIGHBORS = [_neighbor("3f9a1c2e", "Alice prefers window seats", 0.8),
             _neighbor("77aa0b1c", "Alice flies economy", 0.6)]


def test_prompt_names_candidate_neighbours_and_answer_format() -> None:
    candidate = Candidate(text='Alice likes to sit by the "window"', type="preference",
                          key="travel.seat")
    prompt = llm_decision_prompt(candidate, NEIGHBORS)
    assert json.dumps(candidate.text) in prompt
    assert "key travel.seat" in prompt
    assert prompt.index("3f9a1c2e") < prompt.index("77aa0b1c")
    assert '"Alice prefers window seats"' in prompt
    for word in ("ADD", "UPDATE", "SUPERSEDE", "NOOP", '"action"', '"target"'):
        assert word in prompt


def test_prompt_without_neighbours() -> None:
    assert "(none)" in llm_decision_prompt(Candidate(text="x", type="fact"), [])


@pytest.mark.parametrize("output,action,target,text", [
    ('{"action": "NOOP", "target": "3f9a1c2e", "reason": "already stored"}',
     "noop", "3f9a1c2e", None),
    ('{"action": "UPDATE", "target": "3f9a1c2e", "text": "Alice prefers window seats on '
     'long flights", "reason": "more detail"}', "update", "3f9a1c2e",
     "Alice prefers window seats on long flights"),
    ('{"action": "DELETE", "target": "77aa0b1c", "reason": "changed"}', "supersede", "77aa0b1c", None),
    ('{"action": "ADD", "target": null, "reason": "new"}', "add", None, None),
    ('{"action": "add", "target": "null"}', "add", None, None),
    ('```json\n{"action": "NOOP", "target": "3f9a1c2e", "reason": "same"}\n```', "noop",
     "3f9a1c2e", None),
    ('Sure! Comparing {the facts}, my answer is {"action": "DELETE", "target": "3f9a1c2e", '
     '"reason": "negated"} hope that helps', "supersede", "3f9a1c2e", None),
])
def test_parse_llm_decision_valid(output: str, action: str, target: str | None,
                                  text: str | None) -> None:
    decision = parse_llm_decision(output, NEIGHBORS)
    assert decision is not None
    assert (decision.action, decision.target, decision.text) == (action, target, text)
    assert decision.decided_by == "llm"
    assert decision.reason


def test_parse_llm_decision_lists_the_others_as_similar() -> None:
    decision = parse_llm_decision('{"action": "UPDATE", "target": "3f9a1c2e"}', NEIGHBORS)
    assert decision is not None
    assert decision.similar == ["77aa0b1c"]
    assert decision.reason == "llm answered update"


@pytest.mark.parametrize("output", [
    "",
    "I think you should add it.",
    '{"action": "MERGE", "target": "3f9a1c2e"}',  # unknown action
    '{"action": "NOOP", "target": "deadbeef"}',  # target not among the neighbours
    '{"action": "UPDATE", "target": null}',  # update needs a target
    '{"action": "DELETE"}',
    '{"action": "ADD", "target": "deadbeef"}',
    '{"action": "NOOP", "target": "3f9a1c2e"',  # truncated JSON
    '["NOOP", "3f9a1c2e"]',
])
def test_parse_llm_decision_malformed(output: str) -> None:
    assert parse_llm_decision(output, NEIGHBORS) is None


@pytest.mark.model
@pytest.mark.parametrize("old,new,old_key,new_key,action", [
    ("Alice is vegetarian", "Alice is a vegetarian", None, None, "noop"),
    ("Alice prefers window seats on flights", "Alice prefers window seats on long flights",
     None, None, "update"),
    ("Bob likes jazz", "Bob dislikes jazz", None, None, "supersede"),
    ("The team uses PostgreSQL 16", "The team uses PostgreSQL 15", None, None, "supersede"),
    ("The offsite in Tokyo is on March 3", "The offsite in Tokyo is on March 5", None, None,
     "supersede"),
    ("Alice lives in Beijing", "Alice moved to Shanghai", "home.city", "home.city", "supersede"),
    ("Prefers window seats", "Likes to sit by the window on planes", None, None, "add"),
    ("用户住在北京", "用户住在上海", "home.city", "home.city", "supersede"),
])
def test_decisions_with_the_shipped_model(tmp_path: Path, old: str, new: str,
                                          old_key: str | None, new_key: str | None,
                                          action: str) -> None:
    from memctl.search.embedders import FastEmbedder  # deferred: loads onnxruntime

    vectors = FastEmbedder(cache_dir=tmp_path).embed([old, new])
    cosine = float(vectors[0] @ vectors[1])
    assert _decide_pair(old, new, cosine, old_key, new_key).action == action


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("Carol wants weekly status updates as a short bullet list on Friday mornings.",
     "Carol wants a weekly status update as a short bullet list every Friday morning.", "same"),
    ("Standup is at 9:30 in the office", "Standup is at 9:30 on the office", "same"),
    ("Alice moved to Shanghai", "Alice moved from Shanghai", "changed"),
    ("The meeting is on Friday", "The meeting is before Friday", "changed"),
    ("Alice was the design lead", "Alice is the design lead", "changed"),
    ("Bob runs every morning", "Bob runs every morning before work", "more"),
])
def test_function_word_swaps_do_not_change_a_fact(old: str, new: str, expected: str) -> None:
    assert compare_texts(old, new) == expected


@pytest.mark.parametrize(("old", "new", "relation"), [
    ("Priya uses Notion", "My notes live in Notion", "different"),  # "uses" is no "used (to)"
    ("Omar uses a standing desk", "Omar used a standing desk", "same"),
    ("I use Vim", "I used to use Vim", "changed"),
    ("I used to live in Oslo", "I live in Oslo", "changed"),
])
def test_used_to_is_a_negation_and_uses_is_not(old: str, new: str, relation: str) -> None:
    assert compare_texts(old, new) == relation
    assert looks_conflicting(old, new) == (relation == "changed")


@pytest.mark.parametrize(("old", "new", "relation"), [
    # who an appointment or a meeting is with tells which one it is: two on one day are two facts
    ("I have a meeting with the accountant on 4 June", "I have a meeting with the lawyer on 4 June", "different"),
    ("The review meeting with legal is on Tuesday", "The review meeting with legal is on Thursday", "changed"),
])
def test_an_event_with_someone_else_is_another_event(old: str, new: str, relation: str) -> None:
    assert compare_texts(old, new) == relation


@pytest.mark.parametrize(("old", "new", "relation"), [
    # a negation of one thing and a statement of another both hold
    ("我不吃香菜", "我每顿都要吃一碗米饭", "different"),
    ("I don't drink soda", "I drink sparkling water with lunch", "different"),
    ("I don't drink soda", "I drink soda again", "changed"),
    ("我不吃辣", "我现在能吃一点辣了", "changed"),
])
def test_a_negation_is_a_change_only_of_what_it_denies(old: str, new: str, relation: str) -> None:
    assert compare_texts(old, new) == relation


def test_two_dated_occurrences_are_not_a_change_the_model_may_link() -> None:
    from memctl.policy.decide import two_occurrences

    old, new = "Physio session on 4 March at 10am", "Physio session on 18 April at 10am"
    assert two_occurrences(old, new, weekdays=False)
    assert not two_occurrences(old, "Physio session moved to 18 April at 10am", weekdays=False)  # it says it moved
    # a weekday may be a recurring schedule: only dates are occurrences for the model's reading
    assert not two_occurrences("Choir practice is Mondays", "Choir practice: Thursdays", weekdays=False)


@pytest.mark.parametrize(("old", "new"), [
    ("Mark's laptop runs Ubuntu 22.04.", "Mark's desktop runs Ubuntu 22.04."),
    ("My rent is due on the 1st.", "My car payment is due on the 1st."),
    ("Her bike is stored in the garage.", "Her kayak is stored in the garage."),
    ("我的车是白色的", "我的房子是白色的"),
])
def test_another_thing_a_person_has_is_no_new_value_of_the_first(old: str, new: str) -> None:
    # the word after the possessor names the thing the statement is about: two things, both kept
    assert compare_texts(old, new) == "different"
    assert _decide_pair(old, new, 0.9).action == "add"


@pytest.mark.parametrize(("old", "new"), [
    ("Mark's laptop runs Ubuntu 22.04.", "Mark's laptop runs Fedora 40."),
    ("My phone is an iPhone 13.", "My phone is a Pixel 8."),
    ("我喜欢咖啡", "我讨厌咖啡"),
])
def test_a_new_value_of_the_same_thing_is_still_a_change(old: str, new: str) -> None:
    assert _decide_pair(old, new, 0.9).action in ("supersede", "add")
    assert compare_texts(old, new) != "same"


@pytest.mark.parametrize(("old", "new"), [
    ("I pay $45 a month for internet.", "I pay $45 a month for my phone."),
    ("The gym costs $30 a month.", "The pool costs $30 a month."),
])
def test_the_same_value_of_another_thing_is_not_a_repeat(old: str, new: str) -> None:
    # one word swapped, the values kept: the swapped word is the other thing, not a paraphrase
    assert _decide_pair(old, new, 0.9).action == "add"


@pytest.mark.parametrize(("old", "new"), [
    ("I'm a C++ developer", "I'm a C developer"),
    ("Our backend is written in C#", "Our backend is written in C"),
    ("I write F# at work", "I write C# at work"),
])
def test_a_sign_that_names_a_language_is_part_of_the_word(old: str, new: str) -> None:
    assert compare_texts(old, new) != "same" and fingerprint(old) != fingerprint(new)


def test_a_move_away_from_the_stored_place_is_never_its_repeat() -> None:
    from memctl.policy.pairs import reading

    # the model's cosines read the two alike; a text announcing a change the other does not is news
    assert reading("I live in Porto", "I moved back from Porto", None, 0.95, 0.95) != "duplicate"
    assert reading("我住在上海", "我搬离了上海", None, 0.95, 0.95) != "duplicate"


def test_ending_a_state_announces_a_change() -> None:
    from memctl.policy.facts import announces_change

    for text in ("We cancelled the Iceland trip", "Omar retired last spring", "I sold my car",
                 "They broke up", "旅行取消了", "他退休了", "We migrated from Jira to Linear",
                 "I upgraded to the family plan", "Omar handed in his notice", "Just sold the Civic",
                 "Rent went up to $1,975", "都改喝燕麦拿铁了", "何佳跳槽去美团了"):
        assert announces_change(text), text
    assert not announces_change("We booked the Iceland trip")


def test_a_value_added_beside_with_more_words_is_no_update() -> None:
    old = Neighbor(id="m1", text="I'm taking Organic Chemistry this semester.", type="fact", cosine=0.94)
    new = Candidate(text="I'm taking the Organic Chemistry lab this semester as well.", type="fact")
    assert decide(new, [old]).action == "add"
    detail = Candidate(text="I'm taking Organic Chemistry this semester with Dr. Ruiz.", type="fact")
    assert decide(detail, [old]).action == "update"


@pytest.mark.parametrize("old, new", [
    ("Ella's lease with Greystar starts in March", "March is when Ella's Greystar lease ends"),
    ("The train to Leeds departs at 8:05", "At 8:05 the Leeds train pulls in"),
    ("Omar's Visa card limit is $5,000", "Omar owes $5,000 on the Visa card"),
    ("The Zoom call with Acme is at 3pm", "At 3pm I cancel the Acme Zoom call"),
    ("The pharmacy opens at 9am", "At 9am, the pharmacy shuts its doors"),
    ("孙悦的租约3月开始", "3月份孙悦那边的租约就到期了"),
])
def test_the_same_values_said_of_another_predicate_are_kept(old: str, new: str) -> None:
    """The same names, numbers and dates in other words are not enough for a repeat: the rest may
    say another fact of them (a NOOP would drop it), so below the duplicate threshold it is added."""
    assert _decide_pair(old, new, 0.7).action == "add"


@pytest.mark.parametrize("old, new", [
    ("The gym opens at 6am", "My alarm goes off at 6am"),  # a clock time alone names no thing
    ("My passport expires in 2030", "My driver's license expires in 2030"),  # a near copy, one word swapped
    ("I love Vim", "Vim is what I hate these days"),  # opposite words
    ("Omar drives to work", "Omar no longer drives to work"),  # a negation added
    ("我的 GitHub 是 lin-dev", "我在公司 GitLab 的账号是 lin"),  # another Latin word on each side
    ("Hana's sister lives in Kyoto", "Hana moved to Kyoto"),  # another person, a change announced
])
def test_the_same_values_are_no_repeat_when_the_structure_tells_them_apart(old: str, new: str) -> None:
    assert _decide_pair(old, new, 0.7).action != "noop"


@pytest.mark.parametrize("old, new", [
    ("My gym membership is with Equinox, $180/month.", "Equinox renewal came back at $210 a month, sadly."),
    ("My phone is a Samsung Galaxy.", "The Samsung cracked, so work handed me a Pixel."),
    ("Our internet provider is Comcast.", "Comcast kept dropping out, so the house is on Sonic fiber."),
    # a relation named as the value, not whom the statement is about (policy/apart.py subject_relations)
    ("My emergency contact is my brother, Ken.", "I put my wife Aiko down as the emergency contact instead."),
])
def test_a_value_of_one_kind_replaced_in_other_words_is_a_possible_change(old: str, new: str) -> None:
    decision = _decide_pair(old, new, 0.6)
    assert decision.action == "add" and decision.conflicts_with == ["m1"]


@pytest.mark.parametrize("old, new", [
    ("Bob's laptop is a ThinkPad X1", "Bob's laptop is a MacBook Air"),  # a near copy: the token rules read it
    ("我这个月的电费是 320 块", "我这个月的燃气费是 86 块"),  # one character pair shared is no attribute
    ("My sister's phone is a Samsung Galaxy.", "The Samsung cracked, so work handed me a Pixel."),  # another person
])
def test_a_value_replaced_is_no_change_when_the_structure_says_another_thing(old: str, new: str) -> None:
    assert _decide_pair(old, new, 0.6).conflicts_with == []


def test_one_english_word_swapped_with_the_same_values_is_never_the_model_s_repeat() -> None:
    # the pair model reads these alike; the swapped word is the attribute ("live" / "was born")
    old = Neighbor(id="m1", text="I live in Oslo.", type="fact", cosine=0.8, frame_cosine=0.9,
                   ml_cosines={"ml_cos": 0.95, "ml_frame": 0.95, "ml_attr": 0.95, "ml_value": 1.0})
    assert decide(Candidate(text="I was born in Oslo.", type="fact"), [old]).action == "add"


@pytest.mark.parametrize(("old", "new", "action"), [
    # two things with the same value are two facts: the thing after a possessor, or the one opened with
    ("我的驾驶证2031年过期", "我的医保卡2031年过期", "add"),
    ("工牌2030年底到期", "门禁卡2030年底到期", "add"),
    ("周宁的医保卡2031年过期", "周宁的驾驶证2031年过期", "add"),  # a name as the possessor
    ("韩雪家的冰箱2030年过保", "韩雪家的洗衣机2030年过保", "add"),
    ("小李的爱奇艺会员每月5号续费", "小李的网盘会员每月5号续费", "add"),
    ("老钱每月物业费480", "老钱每月停车费480", "add"),  # one thing for another, the same amount after it
    ("小李爱奇艺会员每月5号续费", "小李网盘会员每月5号续费", "add"),
    # one run swapped elsewhere is as often the same thing said another way, a possessor on one side only too
    ("我开比亚迪汉", "我的车是比亚迪的汉", "noop"),
    ("我的车是比亚迪汉", "我开比亚迪的汉", "noop"),
    ("立伟开蔚来ET5", "我的车是蔚来的ET5", "noop"),  # it opens with two ways to name a person
])
def test_one_chinese_thing_swapped_with_the_same_values_is_never_the_model_s_repeat(
        old: str, new: str, action: str) -> None:
    stored = Neighbor(id="m1", text=old, type="fact", cosine=0.8, frame_cosine=0.9,
                      ml_cosines={"ml_cos": 0.95, "ml_frame": 0.95, "ml_attr": 0.95, "ml_value": 1.0})
    assert decide(Candidate(text=new, type="fact"), [stored]).action == action


@pytest.mark.parametrize("old, new", [
    ("Jonas moved to Porto", "Elena moved to Porto"),
    ("Elena lives in Porto", "Jonas moved to Porto"),
    ("Ines works at Siemens", "Grace joined Siemens"),
])
def test_two_people_at_one_value_are_not_one_attribute_changed(old: str, new: str) -> None:
    """A shared city or employer is what each statement says of its own person, not a subject they
    share: no change is announced of the stored one."""
    assert not announces_change_of(old, new)
    assert _decide_pair(old, new, 0.6).conflicts_with == []


def test_one_person_moving_is_still_a_change_announced() -> None:
    assert announces_change_of("Hank lives in Beijing", "Hank moved to Shanghai")
    assert announces_change_of("Elena lives in Porto", "Elena moved to Lisbon")


def test_a_date_in_digits_is_a_date_not_two_numbers() -> None:
    from memctl.policy.distinct import values_of

    card = values_of("My Visa expires 04/27.")
    assert card.dates == {"--04-27"} and not card.numbers  # not the counts 4 and 27
    assert values_of("Atlas goes live 3/15.").dates == values_of("Atlas launches on the 15th of March.").dates


def test_a_chinese_day_moved_with_gai_is_the_value_not_a_second_occurrence() -> None:
    from memctl.policy.decide import two_occurrences

    assert not two_occurrences("复盘会定在10月12号下午两点", "复盘会改10/14上午11点", weekdays=False)


def test_a_chinese_clock_time_is_read_apart_from_the_date_before_it() -> None:
    from memctl.policy.distinct import values_of

    moved = values_of("复盘会改10/14上午11点")  # not the number 1411:00
    assert moved.dates == {"--10-14"} and moved.numbers == {"11:00"}


@pytest.mark.parametrize("old, new", [
    ("Rita and her niece loved the lantern festival the previous month.", "Rita is organising a pottery fair with her students for next month."),
    ("The former year Omar coached the chess club.", "Omar is learning to sail this summer."),
])
def test_previous_or_former_before_a_time_word_says_when_not_a_negation(old: str, new: str) -> None:
    """"the previous month" is when something happened, not "previously" said of a state that ended."""
    from memctl.policy.decide import compare_texts, flips_polarity
    assert not flips_polarity(old, new)
    assert compare_texts(old, new) != "changed"


def test_former_said_of_a_state_is_still_a_negation() -> None:
    from memctl.policy.decide import flips_polarity
    assert flips_polarity("Ines is the club treasurer.", "Ines is the former club treasurer.")
