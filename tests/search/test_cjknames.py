"""The person names a Chinese text says (memctl.search.cjknames) and name_terms reading them."""

from __future__ import annotations

import pytest

from memctl.search.cjknames import chinese_names
from memctl.search.specificity import name_terms


@pytest.mark.parametrize(("text", "names"), [
    ("表妹陈露的护照什么时候到期？", {"陈露"}),
    ("帮我约王医生看一下牙。", {"王医"}),
    ("帮我把李老师的课调到周三下午。", {"李老"}),
    ("叫上同事小吴，他推荐的店叫什么？", {"小吴"}),
    ("项目技术负责人是老马（马建军）。", {"老马"}),
    ("男朋友郑杰（阿杰）是前端工程师", {"郑杰"}),
    ("同事周末加班，老公马上到", set()),  # common words a surname opens
    ("小时候住在老城区，有老毛病", set()),
    ("我妈跟我们住一起，帮着接送孩子。", set()),
    ("做个小程序，小范围试一下这个小任务", set()),  # a common word after 小 or 老
    ("数量小于十，老顾客加一点小苏打", set()),
    ("历史老师说主任医生明天在", set()),  # a common word ends in the surname before a title
    ("同事周报发了吗", set()),
    ("历史课的王老师", {"王老"}),
    ("赵磊下属的钱雯明天请假吗？", {"钱雯"}),  # a role whose 的 introduces a person, then the name
    ("女儿的高烧退了吗？老公的钱都花哪了？朋友的金毛几岁？", set()),  # after another relation 的 is a thing's
    ("同事的孩子上几年级？朋友的周末怎么过？", set()),  # 的 and no name after it
])
def test_chinese_names_are_read_by_their_shapes(text: str, names: set[str]) -> None:
    assert chinese_names(text) == names


def test_name_terms_read_chinese_names_and_leave_english_as_it_was() -> None:
    assert name_terms("用户：表妹陈露来了。\n助手：好的。", speakers=False) == {"陈露"}
    assert name_terms("What did Kevin watch?") == {"kevin"}

