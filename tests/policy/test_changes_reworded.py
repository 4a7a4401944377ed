"""A change said in other words (policy/decide.py _weak_conflict, statement.swaps_a_value): linked as a
possible conflict, never superseded; another predicate or another thing stays apart."""

from __future__ import annotations

import pytest

from memctl.policy.decide import Candidate, Neighbor, decide


def _linked(old: str, new: str, owner: str | None = None, cosine: float = 0.5) -> bool:
    decision = decide(Candidate(text=new, type="fact", owner=owner),
                      [Neighbor(id="m1", text=old, type="fact", cosine=cosine)])
    assert decision.action == "add"  # linked or added beside: never superseded on these signals
    return "m1" in decision.conflicts_with


@pytest.mark.parametrize("old, new", [
    ("Leo's guitar lesson is Mondays at 6 with Ms. Ruiz", "Guitar is Thursdays at 7 with Mr. Park"),
    ("Our sprint review is Tuesdays with Marta", "The sprint review is on Fridays now, with Joel"),
])
def test_a_weekly_day_swapped_is_a_new_value_not_another_occurrence(old: str, new: str) -> None:
    """"Mondays", "every Tuesday", 每周五: a day that comes back each week is the schedule's value."""
    assert _linked(old, new, "leo")


@pytest.mark.parametrize("old, new", [
    ("Our code freeze is on 10/15", "The launch is on 10/30"),
    ("My yoga class is on Tuesdays", "The yoga class costs $18 a session"),
    ("I swim at the lido on Mondays", "I play tennis with Ana on Thursdays"),
])
def test_another_predicate_stays_apart(old: str, new: str) -> None:
    assert not _linked(old, new)


@pytest.mark.parametrize("old, new", [
    ("Pablo's train to Leeds leaves from platform 4", "The Leeds train departs from platform 9"),
    ("My locker at the gym is on the second row, spot 2-11", "My locker is 4-07 near the showers"),
])
def test_a_number_of_the_thing_both_speak_of_is_its_value(old: str, new: str) -> None:
    """The train to Leeds (a word that may label a numbered thing, here with no number of its own)
    leaves from another platform: the platform is the value, not another thing."""
    assert _linked(old, new, "pablo")


@pytest.mark.parametrize("old, new", [
    ("Train IC 512 leaves from platform 4 at 9:10", "Train IC 733 departs from platform 9 at 9:40"),
    ("The train to Leeds leaves from platform 4", "The York train departs from platform 9"),
    ("Locker 12 at the gym is on the second row", "Locker 31 sits near the showers on row 4"),
])
def test_the_numbered_thing_itself_or_another_named_one_is_another_thing(old: str, new: str) -> None:
    assert not _linked(old, new)


@pytest.mark.parametrize("old, new", [
    ("My GP is Dr. Okafor at the Hill Street practice", "My doctor is Dr. Brandt"),
    ("Lena's counselor is Dr. Sato, Mondays", "I see Dr. Ames for therapy on Thursdays"),
])
def test_a_role_said_by_another_word_is_one_attribute(old: str, new: str) -> None:
    """"GP" / "doctor", "counselor" / "therapist" / "therapy": one role, another person in it."""
    assert _linked(old, new, "lena")


@pytest.mark.parametrize("old, new", [
    ("My dentist is Dr. Ruiz", "My GP is Dr. Okafor"),
    ("My lawyer is Ms. Brandt", "My accountant is Mr. Okoye"),
])
def test_another_role_stays_apart(old: str, new: str) -> None:
    assert not _linked(old, new)


@pytest.mark.parametrize("old, new, owner", [
    ("Nadia keeps her recipes in Evernote.", "Nadia moved all of her recipes over to Notion.", "Nadia"),
    ("Our family photos live in Google Photos.", "We migrated every album into iCloud last spring.", None),
    ("Omar's dentist visit is on June 4 at 9am.", "Omar pushed his dentist visit to June 18.", "Omar"),
    ("Ivo is a junior designer at Figma.", "Ivo got promoted to lead designer at Figma.", "Ivo"),
    ("Bea parks in bay P7 at work.", "The office reassigned Bea to bay R2.", "Bea"),
])
def test_a_verb_of_change_moving_to_a_new_value_is_a_change(old: str, new: str, owner: str | None) -> None:
    """"moved ... over to X", "bumped ... up to X", "got promoted to X": the new value after "to" /
    "into" takes the place of the older text's value of that kind, for the same subject."""
    assert _linked(old, new, owner, cosine=0.3)


@pytest.mark.parametrize("old, new, owner", [
    ("Hugo lives in Porto.", "Hugo moved his meeting to Friday.", "Hugo"),
    ("Mara lives in Oslo.", "Tim moved to Bergen.", "Mara"),
    ("Kai stores his notes in Obsidian.", "Kai moved his notes into a new folder.", "Kai"),
])
def test_a_verb_of_change_with_no_value_of_the_older_kind_moved_is_no_change(old: str, new: str, owner: str | None) -> None:
    """A day where the older text names a city, another person who moved, a target with no value of
    the older kind: nothing the older text states is moved."""
    from memctl.policy.statement import moves_the_value
    assert not moves_the_value(old, new, owner)


@pytest.mark.parametrize("old, new, owner", [
    ("Rosa pays $50 a month for the gym.", "Rosa's gym hiked her fee to $65.", "Rosa"),
    ("Theo weighs 92 kg.", "Theo is down to 84 kg since he took up rowing.", "Theo"),
])
def test_a_value_said_to_go_up_or_down_to_another_is_a_change(old: str, new: str, owner: str) -> None:
    """"is down to 84 kg", "hiked her fee to $65": the value after "to" takes the older's place."""
    assert _linked(old, new, owner, cosine=0.4)


@pytest.mark.parametrize("text, value", [
    ("The gym hiked her fee to $65.", "$65"),
    ("Doctor upped my dose to 40 mg, starting today.", "40 mg"),
    ("Theo is down to 84 kg since he took up rowing.", "84 kg since he took up rowing"),
    ("I went to Lisbon in May.", None),  # "went to" is where someone went, no value moved
])
def test_the_value_a_verb_of_change_moves_something_to(text: str, value: str | None) -> None:
    from memctl.policy.facts import moved_to
    assert moved_to(text) == value


@pytest.mark.parametrize("old, new, owner", [
    ("小敏体重一百三十斤。", "小敏这一年减到了一百一十斤。", "小敏"),
    ("婚礼定在10月8号。", "酒店满了，婚礼挪到10月20号。", None),
    ("老周每天吃一片阿司匹林，100毫克。", "医生让老周把阿司匹林加到200毫克。", "老周"),
    ("周会每周一上午十点开。", "主管把周会改到了下午三点。", None),
])
def test_a_chinese_verb_of_change_moving_to_a_new_value_is_a_change(old: str, new: str, owner: str | None) -> None:
    """减到 / 挪到 / 加到 / 改到 and the new value after it, in place of the older's value of that kind;
    a relative who has it done (医生让..., 主管把...) is the agent, not whom the statement is about."""
    assert _linked(old, new, owner, cosine=0.6)


def test_a_text_of_many_capitalised_words_is_read_in_time() -> None:
    # Each capitalised word looked back over the whole text before it for a sentence's end, so one
    # stored memory of 80 KB of "A " cost seconds in every decision that read it.
    import time

    from memctl.policy.statement import _capitalised

    began = time.perf_counter()
    assert _capitalised("A " * 40_000) == {"A"}
    assert time.perf_counter() - began < 5
    assert _capitalised("Tom moved. Then Linear won! Jira") == {"Linear"}  # no word that opens a sentence


@pytest.mark.parametrize("old, new, owner", [
    ("Nina's parrot Kiwi eats Harrison's pellets", "The vet switched Kiwi to a seed and fruit mix", "nina"),
    ("My weekly cello lesson is Tuesdays at 6 pm", "The teacher moved cello lessons to Fridays at 5 pm", None),
    ("用户的网易云会员是连续包季", "用户把网易云改成了年费", None),
    ("我每天晚上吃一粒阿托伐他汀，20毫克。", "医生让我把阿托伐他汀减到隔天一粒", None),
])
def test_a_verb_of_change_moving_the_older_thing_is_a_change(old: str, new: str, owner: str | None) -> None:
    """The thing moved ("switched Kiwi to", "把网易云改成了") is the older text's thing; the target is new."""
    assert _linked(old, new, owner)


@pytest.mark.parametrize("old, new", [
    ("My weekly cello lesson is Tuesdays at 6 pm", "The teacher moved the choir rehearsal to Fridays"),
    ("Nina's parrot Kiwi eats Harrison's pellets", "Nina switched her phone plan to a cheaper one"),
    ("用户的网易云会员是连续包季", "用户把客厅的灯换成了暖光"),
])
def test_a_verb_of_change_moving_another_thing_is_no_change(old: str, new: str) -> None:
    assert not _linked(old, new, "nina")


@pytest.mark.parametrize("old, new, owner", [
    ("Pia rides a 2012 Vespa to work", "Pia sold the Vespa and now rides a 2021 Honda scooter", "pia"),
    ("Noor shares the flat with three students", "The students all left, and Noor shares it with her cousin now", "noor"),
    ("Bea practises French with Babbel", "Bea dropped the app; she practises French with a neighbour now", "bea"),
    ("Dr. Varga is Otto's family doctor", "Dr. Varga moved away, so Otto's new GP is Dr. Lind", "otto"),
])
def test_the_older_predicate_said_now_with_another_value_is_a_change(old: str, new: str, owner: str) -> None:
    """A clause with "now" / "instead" says a word of the older's predicate, words it does not say, and
    leaves out some of its words: the slot has another value."""
    assert _linked(old, new, owner)


@pytest.mark.parametrize("old, new", [
    ("Pia rides a 2012 Vespa to work", "Pia now rides a 2012 Vespa to work"),
    ("Pia rides a 2012 Vespa to work", "Pia coaches a junior chess club now"),
    ("My sister rides a Vespa to work", "My brother now rides a Honda to work"),
    ("Dr. Varga is my family doctor", "My new neighbour is a nurse"),
])
def test_now_with_the_same_value_another_predicate_or_another_person_is_no_change(old: str, new: str) -> None:
    assert not _linked(old, new, "pia")


@pytest.mark.parametrize("old, new", [
    ("Wen cycles 12 km to the office every day.", "这个月体重减到了58公斤。"),
    ("Wen keeps three goldfish in a tank.", "电费每月降到了两百块。"),
    ("文文每天骑车12公里上班。", "这个月体重减到了58公斤。"),
])
def test_a_value_moved_of_another_measure_or_in_another_language_is_no_change(old: str, new: str) -> None:
    """A number moved to (减到 58公斤, a weight) takes the place only of the older's number of that
    measure, never a distance; an English text's number says nothing of what a Chinese 减到 moves."""
    assert not _linked(old, new, "wen", cosine=0.3)


@pytest.mark.parametrize("old, new", [
    ("Wen weighs 63 kg.", "Wen is down to 58 kg after the summer."),
    ("文文体重63公斤。", "减到58了！"),
    ("电费每月三百块。", "电费每月降到了两百块。"),
])
def test_a_value_moved_of_the_same_measure_or_said_without_its_unit_is_a_change(old: str, new: str) -> None:
    assert _linked(old, new, "wen", cosine=0.5)


@pytest.mark.parametrize("old, new", [
    ("阿杰上班一般坐地铁。", "阿杰现在都骑电动车上班，地铁太挤了。"),
    ("我们小区的物业是万科的。", "业委会换了公司，现在物业归碧桂园管。"),
    ("小芸的吉他老师是陈老师。", "陈老师回老家了，小芸以后跟着周老师学。"),
])
def test_a_chinese_clause_saying_what_holds_now_with_another_value_is_a_change(old: str, new: str) -> None:
    """现在 / 以后 / 已经 in a clause sharing a character of the older's predicate, saying characters the
    older does not and leaving out some it says: the slot has another value."""
    assert _linked(old, new)


@pytest.mark.parametrize("old, new", [
    ("阿杰上班一般坐地铁。", "阿杰现在上班一般坐地铁。"),
    ("阿杰上班一般坐地铁。", "阿杰现在在学做饭。"),
])
def test_now_in_chinese_with_the_same_value_or_another_predicate_is_no_change(old: str, new: str) -> None:
    assert not _linked(old, new)


@pytest.mark.parametrize("old, new, owner", [
    ("Milo's cat Pumpkin weighs 11 pounds.", "At the clinic on Monday Pumpkin weighed fourteen pounds.", "milo"),
])
def test_a_word_saying_when_qualifies_no_thing(old: str, new: str, owner: str | None) -> None:
    """"Monday Pumpkin" / "cat Pumpkin": a day said before the name is when, not another Pumpkin."""
    assert _linked(old, new, owner)


@pytest.mark.parametrize("old, new, owner", [
    ("Greta is vegan.", "Greta started eating eggs and fish again last spring.", "greta"),
    ("Paolo is teetotal.", "Paolo started drinking alcohol at weddings and parties.", "paolo"),
])
def test_a_diet_ended_by_eating_or_drinking_again_is_a_change(old: str, new: str, owner: str) -> None:
    """What someone eats or drinks is one attribute at a time (facts.SINGLE_VALUED "diet"), and "started
    eating" / "started drinking" announces a new value of it."""
    assert _linked(old, new, owner)


@pytest.mark.parametrize("old, new", [
    ("Greta is vegan.", "Greta's sister started eating fish again."),
    ("Greta is vegan.", "Greta started running again in March."),
])
def test_another_person_or_another_habit_started_is_no_diet_change(old: str, new: str) -> None:
    assert not _linked(old, new, "greta")


@pytest.mark.parametrize("old, new, owner", [
    ("Tom's vitamin B12 level was 180 at the spring physical.", "Tom's newest B12 result came back at 420.", "tom"),
])
def test_one_named_measure_with_another_number_is_a_change(old: str, new: str, owner: str) -> None:
    """A code both texts name (B12, HbA1c) is the one thing measured, no other thing: its number swapped
    is a new value, though no other word of the two is shared."""
    assert _linked(old, new, owner)


@pytest.mark.parametrize("old, new", [
    ("Tom's vitamin B12 level was 180 at the spring physical.", "Tom's vitamin D3 level was 30 at the spring physical."),
])
def test_two_named_measures_stay_apart(old: str, new: str) -> None:
    assert not _linked(old, new, "tom")


@pytest.mark.parametrize("old, new", [
    ("Nora attended a jazz festival last week and loved every minute.", "Nora is looking forward to attending a poetry reading this month."),
])
def test_two_times_said_from_now_of_something_that_happened_are_two_things(old: str, new: str) -> None:
    """"last week" / "this month": when each thing happens, not one value put in place of another."""
    assert not _linked(old, new, "nora", cosine=0.8)


def test_a_calendar_date_moved_is_still_a_new_value() -> None:
    assert _linked("Nora's passport renewal appointment is on 3 March.",
                   "The consulate moved the renewal to 17 March, Nora says.", "nora", cosine=0.8)
