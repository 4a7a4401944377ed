"""A repeat in other words told by its values and its predicate (policy/restate.py)."""

from __future__ import annotations

import pytest

from memctl.policy.decide import Candidate, Neighbor, decide
from memctl.policy.restate import restates
from tests.policy.linear import finishes


def _action(old: str, new: str, cosine: float = 0.75, owner: str | None = None) -> str:
    stored = Neighbor(id="m1", text=old, type="fact", cosine=cosine)
    return decide(Candidate(text=new, type="fact", owner=owner), [stored]).action


@pytest.mark.parametrize("old, new, owner", [
    ("The clinic's fax number is 555-2198.", "Faxes for the clinic go to five five five, two one nine eight.", None),
    ("Maya's email is maya@lindqvist.io.", "Write to Maya at maya [at] lindqvist [dot] io.", None),
    ("Maya's email is maya@lindqvist.io.", "Write to Maya at maya [at] lindqvist [dot] io.", "maya"),
    ("Reach the landlord on 555 2198.", "The landlord's phone is 555-2198.", None),
])
def test_a_contact_value_said_again_in_other_words_is_a_repeat(old: str, new: str, owner: str | None) -> None:
    assert restates(old, new, owner)
    assert _action(old, new, owner=owner) == "noop"


@pytest.mark.parametrize("old, new", [
    ("Theo's rent is $1,240 a month.", "Theo's rent was $1,240 a month."),  # no longer holds
    ("The phone plan costs $45 a month.", "The phone plan costs $45 a year."),  # how often is a value
    ("The gym membership costs $45 a month.", "The gym parking costs $45 a month."),  # another predicate
    ("Rosa's lease starts on 4 May.", "4 May is when Rosa's lease ends."),
    ("Maya's email is maya@lindqvist.io.", "Maya's sister's email is maya@lindqvist.io."),  # another person
    ("Maya's email is maya@lindqvist.io.", "Maya no longer uses maya@lindqvist.io."),
])
def test_the_same_values_with_another_predicate_or_person_are_no_repeat(old: str, new: str) -> None:
    assert not restates(old, new)


@pytest.mark.parametrize("old, new", [
    ("Hulu costs me $11.99 a month.", "I pay 11.99 dollars monthly for Hulu."),  # paying is what an amount is for
    ("Pilates is at 6:15 a.m. on Tuesdays.", "Tuesday mornings at quarter past six: pilates."),  # a.m. is the morning
])
def test_a_word_the_value_says_by_itself_is_no_other_predicate(old: str, new: str) -> None:
    assert restates(old, new)


@pytest.mark.parametrize("old, new", [
    ("My salary is $5,000 a month.", "I pay $5,000 a month."),  # says not what for
    ("The gym costs $40 a month.", "I pay $40 a month for parking."),
    ("Hulu costs me $11.99 a month.", "I pay $11.99 a month for Peacock."),
])
def test_paying_alone_is_no_repeat_of_what_was_paid_for(old: str, new: str) -> None:
    assert not restates(old, new)


@pytest.mark.parametrize("old, new, owner", [
    ("秋月的面试在6月18日", "秋月6月18号面试", "秋月"),  # the same predicate, the value written another way
    ("秋月的生日是九月二号", "我是9月2号生的", "秋月"),
    ("车位费每个月三百", "每月车位费300", None),
    ("老周每月8号交物业费", "老周每个月八号交的物业费", "老周"),
])
def test_a_chinese_text_with_the_same_values_and_predicate_in_another_order_is_a_repeat(
        old: str, new: str, owner: str | None) -> None:
    assert restates(old, new, owner)


@pytest.mark.parametrize("old, new", [
    ("秋月的面试在6月18日", "秋月的体检在6月18日"),  # another predicate
    ("秋月的面试在6月18日", "秋月6月18号去报到"),
    ("老周每月8号交物业费", "老周每月8号交停车费"),
    ("老周每月8号交物业费", "老周每年8号交物业费"),  # how often is a value
    ("老周每月8号交物业费", "老周的女儿每月8号交物业费"),  # another person
    ("老周每月8号交物业费", "老周每月8号不交物业费了"),
    ("秋月的驾照2030年到期", "秋月的护照2030年到期"),
])
def test_a_chinese_text_with_the_same_values_and_another_predicate_is_no_repeat(old: str, new: str) -> None:
    assert not restates(old, new, "老周")


@pytest.mark.parametrize("old, new", [
    ("小林6月2号下午3点约了牙医", "小林和牙医约的时间：六月二日下午三点"),  # a date is a time by itself
    ("The board meeting is on May 3 at 9:00.", "Date and time of the board meeting: May 3, 9:00."),
])
def test_a_time_or_date_named_as_such_is_no_other_predicate(old: str, new: str) -> None:
    assert restates(old, new)


def test_time_said_of_another_predicate_is_still_no_repeat() -> None:
    assert not restates("小林6月2号下午3点约了牙医", "小林体检的时间：六月二日下午三点")
    assert not restates("小林的牙医预约在6月2日", "小林搬家的日期是6月2日")
    assert not restates("The board meeting is on May 3.", "Date of the board vote: May 3.")


@pytest.mark.parametrize("old, new", [
    ("Grandpa takes his heart pills at 8 am and walks the dog at 6 pm.", "Grandpa takes his heart pills at 6 pm."),
    ("Nina pays the rent on the 1st and the water bill on the 20th.", "Nina pays the rent on the 20th."),
    ("I spend $12 a month on Tidal and $8 on Deezer.", "I spend $8 a month on Tidal."),
    ("The lease starts on 2 June and ends on 1 December.", "The lease ends on 2 June."),
    ("外婆每天早上8点量血压，晚上6点遛狗", "外婆每天晚上6点量血压"),
    ("小周每月1号还房贷，20号交电费", "小周每月20号还房贷"),
])
def test_one_of_two_values_of_a_sort_said_with_a_word_of_the_other_is_no_repeat(old: str, new: str) -> None:
    assert not restates(old, new)


@pytest.mark.parametrize("old, new", [
    ("Tidal costs me $12 a month.", "I pay $12 for Tidal."),  # the other value is how often, not an amount
    ("每天早上7点之前要把前一天的报表发给老板", "报表要在早上七点前发给老板"),  # a count beside a clock time
])
def test_a_value_of_another_sort_left_out_still_lets_the_rest_be_a_repeat(old: str, new: str) -> None:
    assert restates(old, new)


@pytest.mark.parametrize("old, new", [
    ("Wen was born on 2 March 1988.", "Wen's date of birth is 1988-03-02."),
    ("Wen's birthday is March 2.", "Wen was born on 2 March."),
    ("Joe's visa expires on 30 June 2029.", "Joe's visa is valid until 2029-06-30."),
    ("Joe's visa expires on 30 June 2029.", "Expiry date of Joe's visa: 30/06/2029."),
    ("Mira flies to Oslo on 12 May.", "Mira's Oslo flight is on May 12."),
    ("Since 2019 Ivo works at Siemens.", "Since 2019 Ivo is a Siemens employee."),
    ("Kai's mobile plan costs $20 a month.", "Kai pays $20 monthly for his phone plan."),
    ("老周的驾照有效期至2030年8月1日", "老周驾照到期日：2030.08.01"),
    ("小梅6月8号飞成都", "小梅的成都航班是六月八号"),
    ("阿强每月10号交物业费", "阿强每个月十号付物业费"),
])
def test_one_attribute_said_by_another_word_is_a_repeat(old: str, new: str) -> None:
    assert restates(old, new)


@pytest.mark.parametrize("old, new", [
    ("Wen was born on 2 March 1988.", "Wen got married on 2 March 1988."),
    ("Joe's visa expires on 30 June 2029.", "Joe's visa was issued on 30 June 2029."),
    ("Mira flies to Oslo on 12 May.", "Mira's Oslo flight lands on 12 May."),
    ("Mira flies to Oslo on 12 May.", "Mira drives to Oslo on 12 May."),
    ("Since 2019 Ivo works at Siemens.", "Since 2019 Ivo is a Siemens customer."),
    ("Kai's phone plan costs $20 a month.", "Kai's internet plan costs $20 a month."),
    ("老周的驾照有效期至2030年8月1日", "老周的驾照2030年8月1日补办"),
    ("小梅6月8号飞成都", "小梅6月8号坐高铁去成都"),
    ("阿强每月10号交物业费", "阿强每月10号收物业费"),
])
def test_another_attribute_beside_the_same_values_is_still_no_repeat(old: str, new: str) -> None:
    assert not restates(old, new)


@pytest.mark.parametrize("old, new", [
    ("The gym pass renews on January 9.", "The gym pass renews 9 Jan."),
    ("The lease renewal is due on 7/1.", "The lease renewal is due on July 1st."),
])
def test_a_month_named_in_one_text_and_written_in_digits_in_the_other_is_the_date(old: str, new: str) -> None:
    assert restates(old, new)


def test_for_an_hour_is_how_long_not_how_often() -> None:
    assert restates("Omar swims for an hour every day at 6:30.", "Omar swims sixty minutes daily at 6:30.")
    assert not restates("Omar swims for an hour every morning.", "Omar swims for an hour every week.")


@pytest.mark.parametrize("old, new", [
    ("Grandpa takes his heart pills at 8 am and walks the dog at 6 pm.", "Grandpa takes his heart pills at 6 pm."),
    ("Nina pays the rent on the 1st and the water bill on the 20th.", "Nina pays the rent on the 20th."),
])
def test_one_of_two_values_with_a_word_of_the_other_is_no_repeat_however_alike(old: str, new: str) -> None:
    assert _action(old, new, cosine=0.95) == "add"


def test_a_text_that_says_less_with_one_value_of_each_sort_is_still_a_repeat() -> None:
    assert _action("Grandpa takes his heart pills at 8 am with water.", "Grandpa takes his heart pills at 8 am.",
                   cosine=0.95) == "noop"


def test_a_long_run_with_no_digit_is_read_in_linear_time() -> None:
    """The value run (characters other than blanks and Chinese, a digit in them) was tried from every
    start of a long run and read the rest of it: 8,000 characters of 'a.b' took 8 s."""
    assert finishes(
        "from memctl.policy import restate\n"
        "for text in ('a' * 100000, 'a.b' * 40000, 'x@' * 50000 + '7'):\n"
        "    restate._VALUE_RUN.sub(' ', text)\n"
        "assert restate._VALUE_RUN.findall('每月5号交房租, rent $1,200.50 now, no digits here') == ['5号', '$1,200.50']\n")
