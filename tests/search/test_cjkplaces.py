"""The places a Chinese text names (memctl.search.cjkplaces)."""

from __future__ import annotations

import pytest

from memctl.search.cjkplaces import chinese_places


@pytest.mark.parametrize(("text", "places"), [
    ("后天成都会下雨吗？", {"成都"}),
    ("我在杭州租的房子押金退了没有", {"杭州"}),
    ("查一下周五南京到苏州的动车", {"南京"}),  # 到苏州: where the trip goes
    ("帮我订一张去大阪的车票", set()),  # a destination is not read
    ("月底回厦门，再飞首尔", set()),
    ("上海南站几点有车？", {"上海"}),  # leftmost and longest: not 海南
    ("公司在中山路，离哈尔滨路很近", set()),  # streets named after places
    ("我住在国内，老家在河南", {"河南"}),
    ("今晚想吃日本料理还是四川菜？", set()),  # a place that modifies a noun names a kind of thing
    ("北京烤鸭和意大利面哪个好做", set()),
    ("我的法国签证什么时候到期", set()),
    ("我在日本住了三年", {"日本"}),
    ("没有地名的一句话", set()),
])
def test_chinese_places_are_read_from_the_list(text: str, places: set[str]) -> None:
    assert chinese_places(text) == places
