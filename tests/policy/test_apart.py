"""The structural reading that two statements are two facts (policy/apart.py), the veto it puts on
weak conflict links (policy/decide.py), and values written one way (policy/distinct.py)."""

from __future__ import annotations

import pytest

from memctl.policy.apart import acts_on_the_owner, apart_reason, roles_reversed, subject_relations
from memctl.policy.decide import Candidate, Neighbor, decide
from memctl.policy.distinct import values_of


@pytest.mark.parametrize("text, owner, expected", [
    ("My sister lives in Lyon", None, {"sister"}),
    ("Tara's son plays soccer on Saturdays", "tara", {"son"}),
    ("Alice's mother is a retired teacher", "alice", {"mother"}),
    ("Harvey and his wife married in 2015", "harvey", {"wife"}),
    ("Sophie's boss is Mark", "sophie", set()),  # the relation is the attribute, a name its value
    ("My doctor is Dr. Klein", None, set()),
    ("我男朋友叫李航", None, set()),
    ("我爸的生日是农历八月十五", None, {"我爸"}),
    ("Umar's weekly 1:1 with his manager is Monday 11am", "umar", set()),
])
def test_the_subject_is_the_relation_a_statement_is_about(text: str, owner: str | None, expected: set[str]) -> None:
    assert subject_relations(text, owner) == expected


@pytest.mark.parametrize("old, new, owner", [
    ("My sister lives in Lyon", "My brother lives in Lyon", None),
    ("Alice is a pharmacist", "Alice's mother is a retired teacher", "alice"),
    ("I speak Portuguese", "I speak some German too", None),
    ("我养了一只猫", "我还养了一只仓鼠", None),
    ("Bob visited Paris in 2019", "Bob visited Rome in 2021", None),
    ("Brian reads The Economist", "Brian reads The Atlantic online", "brian"),
    ("I'm learning Rust", "I'm learning to surf", None),  # a copula before -ing: an activity, not a state
])
def test_two_facts_that_both_hold_are_read_apart(old: str, new: str, owner: str | None) -> None:
    assert apart_reason(old, new, owner) is not None


@pytest.mark.parametrize("old, new, owner", [
    ("Alice lives in Lisbon", "Alice lives in Berlin", None),
    ("Bob uses Neovim as his editor", "Bob uses VS Code as his editor", None),
    ("Sophie's boss is Mark", "Sophie reports to Jenna", "sophie"),
    ("The kids' bedtime is 8pm", "Bedtime for the kids is 8:30 over the summer", None),
    ("Bob visited Paris every summer", "Bob no longer visits Paris", None),
    ("丽娜的年假还剩8天", "丽娜的年假还剩3天", None),  # 还剩: still left, not "also"
    ("I'm using Vim", "I'm using Emacs", None),  # what someone uses holds one value at a time
    ("My phone is an iPhone 13", "My phone is a Pixel 8", None),
])
def test_a_change_is_not_read_apart(old: str, new: str, owner: str | None) -> None:
    assert apart_reason(old, new, owner) is None


def test_a_weak_link_between_two_facts_is_vetoed() -> None:
    old = Neighbor(id="m1", text="Brian reads The Economist", type="fact", cosine=0.62)
    decision = decide(Candidate(text="Brian reads The Atlantic online", type="fact", owner="brian"), [old])
    assert decision.action == "add" and decision.conflicts_with == []


def test_a_change_of_the_same_slot_is_still_linked_or_superseded() -> None:
    old = Neighbor(id="m1", text="Alice lives in Lisbon", type="fact", cosine=0.87)
    decision = decide(Candidate(text="Alice lives in Berlin", type="fact"), [old])
    assert decision.action == "supersede" and decision.target == "m1"


@pytest.mark.parametrize("a, b", [
    ("Netflix costs me $17.99 a month", "I pay 17.99 dollars monthly for Netflix"),
    ("年会在1月10日", "我们年会定在一月十号"),
    ("手机号是139 1122 3344", "我的电话：13911223344"),
    ("组会在每周三下午两点", "我们周三14:00开组会"),
    ("The yoga class is on Mondays at 7pm", "I do yoga Monday evenings at 19:00"),
])
def test_values_are_compared_written_one_way(a: str, b: str) -> None:
    va, vb = values_of(a), values_of(b)
    assert (va.numbers, va.dates) == (vb.numbers, vb.dates)


def test_other_values_stay_other() -> None:
    assert values_of("standup at 9:30").numbers != values_of("standup at 10:30").numbers
    assert values_of("下午两点开会").numbers != values_of("上午两点开会").numbers
    assert values_of("周三开会").dates != values_of("周四开会").dates


@pytest.mark.parametrize("a, b", [
    ("折扣是百分之五十", "折扣是百分之三十"),  # two percentages, not both "100"
    ("中午十二点开会", "晚上十二点开会"),  # noon and midnight
    ("I lived in Lyon 2015-2018", "I lived in Lyon 20152018"),  # a range of years is no phone number
])
def test_values_written_one_way_stay_apart(a: str, b: str) -> None:
    assert values_of(a).numbers != values_of(b).numbers


@pytest.mark.parametrize("text", ["这家店的咖啡有一点贵", "我希望甜一点", "这件事十分重要"])
def test_words_a_numeral_opens_are_no_values(text: str) -> None:
    assert values_of(text).numbers == frozenset()


def test_numerals_still_read_beside_those_words() -> None:
    assert values_of("下午一点开会").numbers == values_of("13:00开会").numbers
    assert values_of("两点十分出发").numbers == values_of("2:10出发").numbers
    assert values_of("等十分钟").numbers == values_of("等10分钟").numbers
    assert values_of("打百分之五十的折").numbers == values_of("打50%的折").numbers


@pytest.mark.parametrize("old, new", [
    ("Theo's repo uses Postgres for storage.", "Theo's repo uses Redis for caching."),
    ("Ella prefers window seats on flights.", "Ella prefers aisle seats on trains."),
    ("I prefer aisle seats on flights.", "On trains I prefer a window seat."),
])
def test_another_purpose_or_setting_is_another_fact(old: str, new: str) -> None:
    assert apart_reason(old, new) == "another purpose or setting"


@pytest.mark.parametrize("old, new", [
    ("Theo's repo uses Postgres for storage.", "Theo's repo uses MySQL for storage."),  # the same purpose
    ("The book club meets on the first Tuesday of the month", "The book club meets on the last Thursday"),
    ("Mia has piano on Thursdays at 6", "Mia has piano on Saturdays at 10"),  # a day is a value
    ("I use Figma for design", "I switched to Sketch for prototyping"),  # a change announced
])
def test_the_same_setting_a_day_or_a_change_announced_is_not_another_setting(old: str, new: str) -> None:
    assert apart_reason(old, new) != "another purpose or setting"


@pytest.mark.parametrize("old, new", [
    ("梁爽每天吃一片二甲双胍", "医生给梁爽加量了，一天两片"),  # the doctor acts for 梁爽: still about her
    ("秀英用的是老年机", "女儿给我买了个智能手机，老年机不用了"),
    ("金鑫在用 Notion 做笔记。", "金鑫把 Notion 里的东西全导到 Obsidian 了，账号也注销了。"),  # 也 in a later clause
])
def test_a_relative_acting_for_someone_or_a_later_also_is_not_apart(old: str, new: str) -> None:
    assert apart_reason(old, new) is None


def test_a_chinese_value_added_in_the_first_clause_is_still_added_beside() -> None:
    assert apart_reason("我养了一只猫", "我还养了一只仓鼠，叫团团") == "a value added beside the stored one"
    assert subject_relations("我姐姐给我买了一台电脑") == set()
    assert subject_relations("我姐姐在上海工作") == {"姐姐"}


def test_the_subject_of_two_relations_of_one_length_does_not_depend_on_set_order() -> None:
    import subprocess
    import sys

    code = ("from memctl.policy.apart import subject_relations;"
            "print(sorted(subject_relations('孩子的医生是王主任，现在孩子都找陈医生看')))")
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": str(seed)}).stdout for seed in range(6)}
    assert len(seen) == 1


@pytest.mark.parametrize("old, new, owner", [
    ("Lena takes 25 mg of sertraline each night.", "Lena's doctor bumped her sertraline up to 50 mg.", "Lena"),
    ("Our retro is at 4pm on Fridays.", "My manager pushed the retro to 5pm.", None),
    ("Ada works the early shift.", "Ada's boss moved her to the late shift.", "Ada"),
    ("Jon takes 5 mg of warfarin daily.", "Doctor upped Jon's dose to 7.5.", "Jon"),
])
def test_a_relative_acting_on_the_owner_is_not_another_subject(old: str, new: str, owner: str | None) -> None:
    """"Lena's doctor bumped her sertraline up", "my manager pushed the retro to 5pm": the relation
    is the agent of a verb whose object is the owner or the owner's thing the other text speaks of,
    so the statement is about the owner's value, not about the relative."""
    assert acts_on_the_owner(new, old, owner)
    assert apart_reason(old, new, owner) != "another person is the subject"
    decision = decide(Candidate(text=new, type="fact", owner=owner), [Neighbor(id="m1", text=old, type="fact", cosine=0.8)])
    assert decision.conflicts_with == ["m1"]  # a change of the owner's value, linked


@pytest.mark.parametrize("text, other", [
    ("My sister lives in Lyon.", "I live in Lyon."),
    ("My sister drives a Civic.", "I drive a Civic."),
    ("My brother sold his bike.", "I ride a road bike."),
])
def test_a_relative_doing_their_own_thing_is_still_the_subject(text: str, other: str) -> None:
    """A verb with no object, an object with no possessor, or the relative's own thing the other text
    does not speak of: the relative is whom the statement is about."""
    assert not acts_on_the_owner(text, other)


@pytest.mark.parametrize("old, new, owner", [
    ("Tom owes his sister $300.", "Tom's sister owes him $120 for the train tickets.", "Tom"),
    ("I text my mom every Sunday.", "My mom texts me on Wednesdays.", None),
])
def test_roles_reversed_across_the_same_verb_are_two_facts(old: str, new: str, owner: str | None) -> None:
    """The relation after the verb in one text is its subject in the other: each holds the other's
    role, so two facts, never a new value of one."""
    assert apart_reason(old, new, owner) == "the roles are reversed"
    decision = decide(Candidate(text=new, type="fact", owner=owner), [Neighbor(id="m1", text=old, type="fact", cosine=0.8)])
    assert decision.action == "add" and decision.conflicts_with == []


@pytest.mark.parametrize("old, new", [
    ("My lawyer is Ms. Ortiz", "Mr. Bell is my lawyer"),  # a copula says one role from either side
    ("My sister lives in Lyon", "My sister moved to Nice"),
])
def test_one_role_said_both_ways_is_no_reversal(old: str, new: str) -> None:
    assert not roles_reversed(old, new)


def test_the_same_amount_owed_the_other_way_is_no_repeat() -> None:
    """"Ana owes her cousin $80" / "Ana's cousin owes her $80": the same values of one slot, but the
    roles reversed, so two debts, not one said again."""
    old = Neighbor(id="m1", text="Ana owes her cousin $80.", type="fact", cosine=0.97)
    decision = decide(Candidate(text="Ana's cousin owes her $80.", type="fact", owner="Ana"), [old])
    assert decision.action == "add" and decision.conflicts_with == []


@pytest.mark.parametrize("old, new, owner", [
    ("Hana's son Kenji goes to Maple Grove Primary", "Kenji moved to Riverside School in January", "hana"),
    ("My mom lives in Tucson", "My mother moved to Mesa last spring", None),
    ("Dara's boy plays in the junior orchestra", "Dara's son switched to the youth band", "dara"),
    ("Our girls take ballet on Fridays", "Our daughters quit ballet", None),
])
def test_one_relative_named_or_said_another_way_is_one_subject(old: str, new: str, owner: str | None) -> None:
    """"my son Kenji" / "Kenji ...": the name after a relation is that relative; "mom" / "mother",
    "my boy" / "my son" say one relative."""
    assert apart_reason(old, new, owner) is None


@pytest.mark.parametrize("old, new, owner", [
    ("Hana's son Kenji goes to Maple Grove Primary", "Kenji's sister moved to Riverside School", "hana"),
    ("Hana's son Kenji goes to Maple Grove Primary", "Hana's daughter moved to Riverside School", "hana"),
    ("My mom lives in Tucson", "My dad moved to Mesa last spring", None),
    ("My son sings in the choir", "The boy next door sings in the choir", None),
])
def test_another_relative_is_still_another_subject(old: str, new: str, owner: str | None) -> None:
    assert apart_reason(old, new, owner) == "another person is the subject"


@pytest.mark.parametrize("old, new", [
    ("My Kindle runs firmware 5.16", "My Kobo runs firmware 4.38"),
    ("Our boiler is a Vaillant", "Our cooker is a Smeg"),
])
def test_two_things_of_the_owner_sharing_no_word_are_two_facts(old: str, new: str) -> None:
    assert apart_reason(old, new) == "another thing of the owner's"


@pytest.mark.parametrize("old, new", [
    ("My phone runs Android 13", "My phone runs Android 14 now"),
    ("My GP is Dr. Ortiz", "My doctor is Dr. Lamb"),
    ("My Kindle runs firmware 5.16", "My Kindle and my Kobo both run firmware 5.16"),
])
def test_one_thing_or_one_role_said_another_way_is_no_other_thing(old: str, new: str) -> None:
    assert apart_reason(old, new) != "another thing of the owner's"


@pytest.mark.parametrize("old, new", [
    ("My locker at Westside is number 4", "My locker at Eastgate is number 9"),
    ("The flat in Leeds is let to a student", "The flat in York is let to a nurse"),
])
def test_one_thing_in_two_places_is_two_facts(old: str, new: str) -> None:
    assert apart_reason(old, new) == "another place of the thing"


@pytest.mark.parametrize("old, new", [
    ("I live in Leeds", "I live in York now"),
    ("The flat in Leeds is let to a student", "The flat in Leeds is let to a nurse now"),
])
def test_a_place_that_is_the_value_or_the_same_place_is_no_other_place(old: str, new: str) -> None:
    assert apart_reason(old, new) != "another place of the thing"


@pytest.mark.parametrize("old, new", [
    ("小吴的借记卡尾号是3105。", "小吴的信用卡尾号是8862。"),
    ("阿梅的公司邮箱是mei@lanting.cn。", "阿梅的学校邮箱是amei77@edu.cn。"),
    ("老周最爱吃的面条是牛肉面。", "老周最爱吃的饺子是韭菜馅的。"),
    ("她的左耳有点耳鸣。", "她的右脚踝上周扭伤了。"),
])
def test_two_things_of_one_chinese_possessor_are_two_facts(old: str, new: str) -> None:
    """"X的" then the thing the statement is about, neither thing said in the other's: two things."""
    assert apart_reason(old, new) == "another thing of the owner's"
    assert "m1" not in decide(Candidate(text=new, type="fact"),
                              [Neighbor(id="m1", text=old, type="fact", cosine=0.8)]).conflicts_with


@pytest.mark.parametrize("old, new", [
    ("我的主治医生是张大夫。", "我的医生换成了李大夫。"),
    ("小吴的车是一辆旧捷达。", "小吴的新车是比亚迪秦。"),
    ("小吴的借记卡尾号是3105。", "小吴的借记卡换了，尾号是4417。"),
])
def test_one_chinese_thing_said_with_a_word_more_is_no_other_thing(old: str, new: str) -> None:
    assert apart_reason(old, new) != "another thing of the owner's"


@pytest.mark.parametrize("old, new", [
    ("我欠表哥三千块学费。", "表哥欠我三千块房租。"),
    ("小周请我看了场电影。", "我请小周吃了顿火锅。"),
])
def test_chinese_roles_reversed_across_the_same_verb_are_two_facts(old: str, new: str) -> None:
    """"我欠表哥..." / "表哥欠我...": the owner and the other person hold the verb's roles the other way round."""
    assert roles_reversed(old, new)
    decision = decide(Candidate(text=new, type="fact"), [Neighbor(id="m1", text=old, type="fact", cosine=0.97)])
    assert decision.action == "add" and "m1" not in decision.conflicts_with


@pytest.mark.parametrize("old, new", [
    ("我欠表哥三千块学费。", "我欠表哥五千块学费了。"),
    ("我请小周看了场电影。", "小周的电影票是我买的。"),
])
def test_the_same_roles_in_chinese_are_not_reversed(old: str, new: str) -> None:
    assert not roles_reversed(old, new)


@pytest.mark.parametrize("old, new", [
    ("欣然开给蓝山公司的0418号发票，五千元，月底到期。", "欣然开给蓝山公司的0419号发票，五千元，月底到期。"),
    ("小武的车停在3号楼下面。", "小武的电动车停在7号楼下面。"),
])
def test_a_chinese_numbered_thing_is_its_own_thing(old: str, new: str) -> None:
    """"0418号发票" / "0419号发票": a number before 号 and the thing it numbers is an identifier."""
    from memctl.policy.facts import names_other_things
    assert names_other_things(old, new)
    decision = decide(Candidate(text=new, type="fact"), [Neighbor(id="m1", text=old, type="fact", cosine=0.97)])
    assert decision.action == "add" and "m1" not in decision.conflicts_with


def test_a_day_of_the_month_before_a_verb_is_no_numbered_thing() -> None:
    from memctl.policy.facts import identifiers
    assert identifiers("每月8号交物业费") == set()
