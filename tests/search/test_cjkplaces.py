"""The places a Chinese text names (memctl.search.cjkplaces)."""

from __future__ import annotations

import pytest

from memctl.search.cjkplaces import chinese_places


@pytest.mark.parametrize(("text", "places"), [
    ("帮我查一下明天北京的天气。", {"北京"}),
    ("我在上海那套房子物业费一个月多少？", {"上海"}),
    ("帮我查查明天广州到上海的高铁。", {"广州"}),  # 到上海: where the trip goes
    ("帮我订去札幌的机票。", set()),  # a destination is not read
    ("下周回青岛，然后飞东京", set()),
    ("上海南站几点有车？", {"上海"}),  # leftmost and longest: not 海南
    ("公司在中山路，离哈尔滨路很近", {"哈尔滨"}),  # 中山路 is a street in any city
    ("我住在国内，老家在河南", {"河南"}),
    ("没有地名的一句话", set()),
])
def test_chinese_places_are_read_from_the_list(text: str, places: set[str]) -> None:
    assert chinese_places(text) == places
